// Bazaars: auctions after a bazaar turn, forced placements, variants and bad input.
#include <catch2/catch.hpp>

#include "engine/modules/bazaars.h"
#include "engine/random_game.h"
#include "engine/record.h"
#include "replay_fixtures.h"

using namespace meeplecam;
using nlohmann::json;
using test::meeple;
using test::tile;

namespace {

// A Bazaars record with the start tile D at [0,0] and `events`; players red, blue(, green).
Record bz_record(std::vector<json> events, int players = 3, json options = json::object(), bool finished = false) {
    const char* colors[] = {"red", "blue", "green", "yellow"};
    json doc = {{"format", "meeplecam-record"}, {"version", 1},          {"game", "carcassonne"},
                {"expansions", {"bazaars"}},    {"finished", finished}, {"players", json::array()}};
    for (int i = 0; i < players; ++i) doc["players"].push_back({{"color", colors[i]}});
    if (!options.empty()) doc["options"] = {{"bazaars", options}};
    doc["events"] = json::array({tile("", "D", 0, 0, 0)});
    for (auto& e : events) doc["events"].push_back(std::move(e));
    auto r = parse_record(doc, "test");
    if (!r) FAIL(r.error().to_string());
    return r.value();
}

json auction(const std::string& player, std::vector<std::string> tiles) {
    return {{"type", "auction"}, {"player", player}, {"tiles", tiles}};
}

json bid(const std::string& player, int amount) { return {{"player", player}, {"bid", amount}}; }
json pass(const std::string& player) { return {{"player", player}, {"pass", true}}; }

json round(const std::string& picker, const std::string& id, json bids, const std::string& deal) {
    return {{"type", "auction-round"}, {"picker", picker}, {"tile", id}, {"bids", std::move(bids)}, {"deal", deal}};
}

json free_round(const std::string& picker, const std::string& id) {
    return {{"type", "auction-round"}, {"picker", picker}, {"tile", id}, {"free", true}};
}

// The rules' three-player example (see golden bazaars_01): red's CB5 closes a city (red +4), then
// blue buys U from red's bid 3, green sells V to red for 3, green takes E free.
std::vector<json> example_until(std::size_t n) {
    std::vector<json> all = {
        tile("red", "CB5", 0, -1, 180),                                                 // 1
        meeple("red", 0, -1, "S"),                                                      // 2
        auction("red", {"U", "V", "E"}),                                                // 3
        round("blue", "U", {bid("blue", 2), pass("green"), bid("red", 3)}, "buy"),      // 4
        round("green", "V", {bid("green", 2), bid("red", 3)}, "sell"),                  // 5
        free_round("green", "E"),                                                       // 6
        tile("blue", "U", 1, 0, 90),                                                    // 7
        tile("green", "E", 1, -1, 0),                                                   // 8
        meeple("green", 1, -1, "N"),                                                    // 9
        tile("red", "V", -1, 0, 180),                                                   // 10
        tile("blue", "U", 2, 0, 90),                                                    // 11
    };
    all.resize(n);
    return all;
}

// Replaces event `i` (1-based, as in the record) of the example's first `n` events by `e`.
std::vector<json> example_with(std::size_t n, std::size_t i, json e) {
    auto events = example_until(n);
    events[i - 1] = std::move(e);
    return events;
}

Error error_of(const Record& r) {
    auto g = replay(r);
    if (g) FAIL("the record replayed without error");
    return g.error();
}

std::string message_of(const Record& r) { return error_of(r).to_string(); }

const BazaarsModule& bazaars(const Game& g) {
    const auto* m = dynamic_cast<const BazaarsModule*>(g.modules().front().get());
    REQUIRE(m);
    return *m;
}

}  // namespace

TEST_CASE("the rules' example: buy from the high bidder, sell to it, the last tile free", "[bazaars]") {
    ReplayOptions no_close;
    no_close.close_last_turn = false;

    // Before the reveal: the turn is open and owes an auction.
    auto g = replay(bz_record(example_until(2)), no_close);
    REQUIRE(g);
    CHECK(bazaars(g.value()).auction_due(g.value()));
    CHECK(bazaars(g.value()).tiles_to_reveal(g.value()) == 3);

    // The reveal closes (and scores) red's turn first: red's city of 2 tiles = 4.
    g = replay(bz_record(example_until(3)), no_close);
    REQUIRE(g);
    CHECK(g->scores() == std::vector<int>{4, 0, 0});
    CHECK(bazaars(g.value()).phase() == BazaarsModule::Phase::Bidding);
    CHECK(g->next_player() == 1);  // blue picks first
    CHECK(bazaars(g.value()).must_act(g.value()));
    CHECK_FALSE(bazaars(g.value()).options(g.value()).empty());

    g = replay(bz_record(example_until(4)), no_close);
    REQUIRE(g);
    CHECK(g->scores() == std::vector<int>{7, -3, 0});  // blue pays red's bid: below zero is fine
    CHECK(bazaars(g.value()).acquired(1) == "U");
    CHECK(g->next_player() == 2);

    g = replay(bz_record(example_until(6)), no_close);
    REQUIRE(g);
    CHECK(g->scores() == std::vector<int>{4, -3, 3});
    CHECK(bazaars(g.value()).phase() == BazaarsModule::Phase::Placing);
    CHECK(bazaars(g.value()).acquired(0) == "V");
    CHECK(bazaars(g.value()).acquired(2) == "E");
    CHECK(g->next_player() == 1);  // blue places first (the player after red)
    CHECK(bazaars(g.value()).assigned_tile(g.value()) == std::optional<std::string>("U"));

    g = replay(bz_record(example_until(8)), no_close);
    REQUIRE(g);
    CHECK(g->turn_player() == 2);  // green's turn is open for its follower
    CHECK(g->next_player() == 0);  // then red places V
    g = replay(bz_record(example_until(10)), no_close);
    REQUIRE(g);
    CHECK(bazaars(g.value()).phase() == BazaarsModule::Phase::Resume);
    CHECK(g->next_player() == 1);  // normal play resumes with the player after red

    g = replay(bz_record(example_until(11), 3, json::object(), true));
    REQUIRE(g);
    CHECK(g->scores() == std::vector<int>{4, -3, 4});
    int auction_events = 0;
    for (const auto& ev : g->score_events()) {
        if (ev.feature != "auction") continue;
        ++auction_events;
        CHECK(ev.event_index == 1);  // the auction belongs to the turn of red's bazaar tile
    }
    CHECK(auction_events == 4);
}

TEST_CASE("the auction's events are checked and refused with the event named", "[bazaars]") {
    auto illegal_with = [](std::vector<json> events, const std::string& what) {
        const Error e = error_of(bz_record(std::move(events)));
        INFO(e.to_string());
        CHECK(e.kind == ErrorKind::Illegal);
        CHECK_THAT(e.to_string(), Catch::Contains(what));
    };
    auto invalid_with = [](std::vector<json> events, const std::string& what) {
        const Error e = error_of(bz_record(std::move(events)));
        INFO(e.to_string());
        CHECK(e.kind == ErrorKind::Invalid);
        CHECK_THAT(e.to_string(), Catch::Contains(what));
    };
    // The reveal.
    illegal_with(example_with(3, 3, tile("blue", "U", 1, 0, 90)), "event 3 (tile): an auction must follow red's bazaar tile");
    illegal_with({tile("red", "U", 1, 0, 90), auction("red", {"V", "E", "E"})}, "event 2 (auction): no auction now: tile U at [1, 0] shows no bazaar");
    illegal_with({auction("red", {"V", "E", "E"})}, "event 1 (auction): no auction now");
    illegal_with(example_with(3, 3, auction("blue", {"U", "V", "E"})), "revealed by red");
    illegal_with(example_with(3, 3, auction("red", {"U", "V"})), "one tile per player (3), not 2");
    illegal_with(example_with(3, 3, auction("red", {"C", "C", "U"})), "tile C is revealed 2 time(s) but the C3 supply has 1");
    invalid_with(example_with(3, 3, auction("red", {"U", "V", "ZZ"})), "event 3 (auction): unknown tile id 'ZZ'");
    invalid_with(example_with(3, 3, json{{"type", "auction"}, {"player", "red"}, {"tiles", "UVE"}}), "'tiles' must be an array");
    invalid_with(example_with(3, 3, json{{"type", "auction"}, {"tiles", {"U", "V", "E"}}}), "missing 'player'");
    invalid_with(example_with(3, 3, json{{"type", "auction"}, {"player", "red"}, {"tiles", {"U", "V", "E"}}, {"at", 1}}),
                 "unknown field 'at'");
    illegal_with(example_with(4, 4, auction("red", {"U", "V", "E"})), "event 4 (auction): no auction now: the tiles of this auction are already revealed");

    // The rounds.
    illegal_with(example_with(3, 3, round("blue", "U", {bid("blue", 2)}, "buy")), "event 3 (auction-round): the tiles must be revealed first");
    illegal_with(example_with(4, 4, round("green", "U", {bid("green", 2), bid("red", 3), pass("blue")}, "buy")),
                 "event 4 (auction-round): it is blue's pick");
    illegal_with(example_with(4, 4, round("blue", "W", {bid("blue", 2), pass("green"), pass("red")}, "buy")),
                 "tile W is not among the revealed tiles still unsold (U, V, E)");
    illegal_with(example_with(4, 4, round("blue", "U", {bid("blue", 2), bid("red", 3), pass("green")}, "buy")),
                 "bids[1]: expected green to bid or pass (seat order from the picker), not red");
    illegal_with(example_with(4, 4, round("blue", "U", {bid("blue", 2), bid("green", 2), pass("red")}, "buy")),
                 "bids[1]: green's bid 2 must exceed the highest bid so far (2, blue)");
    illegal_with(example_with(4, 4, round("blue", "U", {pass("blue"), bid("green", 1), pass("red")}, "buy")),
                 "bids[0]: the picker blue must open with a bid (0 is allowed)");
    illegal_with(example_with(4, 4, round("blue", "U", {bid("blue", 2), pass("green")}, "buy")),
                 "the bids end before red bid or passed");
    illegal_with(example_with(4, 4, round("blue", "U", {bid("blue", 2), pass("green"), pass("red"), bid("blue", 5)}, "buy")),
                 "bids[3]: blue bids only once per tile");
    illegal_with(example_with(5, 5, round("green", "V", {bid("green", 2), bid("blue", 3)}, "sell")),
                 "bids[1]: blue already has a tile from this auction and may not bid");
    illegal_with(example_with(4, 4, round("blue", "U", {bid("blue", 2), pass("green"), pass("red")}, "sell")),
                 "blue cannot sell: its own bid (2) is the highest");
    illegal_with(example_with(4, 4, round("blue", "U", {bid("blue", -1), pass("green"), pass("red")}, "buy")),
                 "a bid is at least 0");
    illegal_with(example_with(4, 4, free_round("blue", "U")), "only the last revealed tile is free (3 players");
    illegal_with(example_with(6, 6, round("green", "E", {bid("green", 0)}, "buy")), "the last revealed tile goes free to green");
    illegal_with(example_with(6, 6, json{{"type", "auction-round"}, {"picker", "green"}, {"tile", "E"}}),
                 "write \"free\": true");
    invalid_with(example_with(4, 4, round("blue", "U", {bid("blue", 2), pass("green"), pass("red")}, "swap")),
                 "'deal' must be \"buy\" or \"sell\"");
    invalid_with(example_with(4, 4, round("blue", "U", {json{{"player", "blue"}, {"bid", "2"}}, pass("green"), pass("red")}, "buy")),
                 "bids[0]: 'bid' must be an integer");
    invalid_with(example_with(4, 4, round("blue", "U", {json{{"player", "blue"}, {"bid", 2}, {"pass", true}}, pass("green"), pass("red")}, "buy")),
                 "give either 'bid'");
    invalid_with(example_with(4, 4, round("pink", "U", {bid("blue", 2)}, "buy")), "unknown player colour 'pink'");
    invalid_with(example_with(4, 4, json{{"type", "auction-round"}, {"picker", "blue"}, {"tile", "U"}, {"player", "blue"}, {"free", true}}),
                 "unknown field 'player'");
    illegal_with(example_with(4, 4, meeple("red", 0, -1, "N")), "event 4 (meeple): the auction is under way: blue picks a tile next");

    // The placements.
    illegal_with(example_with(7, 7, tile("green", "E", 1, -1, 0)), "event 7 (tile): blue places the tile it acquired at the auction (U) now, not green");
    illegal_with(example_with(7, 7, tile("blue", "V", -1, 0, 180)), "blue acquired tile U at the auction and must place it");
    illegal_with(example_with(11, 11, tile("green", "U", 2, 0, 90)), "event 11 (tile): it is blue's turn, not green's");
}

TEST_CASE("an auctioned bazaar tile starts no auction / a bazaar drawn later does", "[bazaars]") {
    // Two players. Red's CB6 south of the start; blue takes CB10 (a bazaar) for 0; red gets U free.
    std::vector<json> events = {
        tile("red", "CB6", 0, 1, 0),                                        // 1
        auction("red", {"CB10", "U"}),                                       // 2
        round("blue", "CB10", {bid("blue", 0), pass("red")}, "buy"),         // 3
        free_round("red", "U"),                                              // 4
        tile("blue", "CB10", 0, 2, 90),                                      // 5: auctioned bazaar: no auction
        tile("red", "U", 1, 0, 90),                                          // 6
    };
    auto chained = events;
    chained.push_back(auction("blue", {"V", "E"}));
    CHECK_THAT(message_of(bz_record(chained, 2)), Catch::Contains("event 7 (auction)") && Catch::Contains("no chain reaction"));

    auto later = events;
    later.push_back(tile("blue", "CB11", 0, 3, 90));  // drawn normally: an auction is due
    later.push_back(tile("red", "V", -1, 0, 180));
    CHECK_THAT(message_of(bz_record(later, 2)), Catch::Contains("event 8 (tile): an auction must follow blue's bazaar tile"));
    later.back() = auction("blue", {"V", "E"});
    auto g = replay(bz_record(later, 2));
    REQUIRE(g);
    CHECK(bazaars(g.value()).phase() == BazaarsModule::Phase::Bidding);
    CHECK(g->next_player() == 0);  // red picks first
}

TEST_CASE("a discarded bazaar tile starts no auction / an unplaceable auctioned tile is discarded", "[bazaars]") {
    // Red's E closes the start tile's city: no city side is open, so C and CB1 fit nowhere.
    auto g = replay(bz_record({tile("red", "E", 0, -1, 180), json{{"type", "discard"}, {"player", "blue"}, {"tile", "CB1"}},
                               tile("blue", "U", 1, 0, 90)},
                              2));
    REQUIRE(g);  // footnote 5: no auction after a discarded bazaar
    CHECK(bazaars(g.value()).phase() == BazaarsModule::Phase::Idle);

    // Blue's CB6: red buys C for 0, cannot place it and discards it; blue places U; red resumes.
    std::vector<json> events = {
        tile("red", "E", 0, -1, 180),                                 // 1
        tile("blue", "CB6", 0, 1, 0),                                 // 2
        auction("blue", {"C", "U"}),                                  // 3
        round("red", "C", {bid("red", 0), pass("blue")}, "buy"),      // 4
        free_round("blue", "U"),                                      // 5
        json{{"type", "discard"}, {"player", "red"}, {"tile", "C"}},  // 6
        tile("blue", "U", 1, 0, 90),                                  // 7
    };
    g = replay(bz_record(events, 2));
    REQUIRE(g);
    CHECK(g->next_player() == 0);  // red: the player after blue, the active player
    CHECK(g->supply_left(*g->catalog().find("C")) == 0);
    auto wrong = events;
    wrong[5] = json{{"type", "discard"}, {"player", "red"}, {"tile", "U"}};
    CHECK_THAT(message_of(bz_record(wrong, 2)), Catch::Contains("event 6 (discard): red acquired tile C"));

    // The active player discarding the last auctioned tile: play resumes after it, not with it.
    std::vector<json> last = {
        tile("red", "E", 0, -1, 180),                                 // 1
        tile("blue", "CB6", 0, 1, 0),                                 // 2
        auction("blue", {"C", "U"}),                                  // 3
        round("red", "U", {bid("red", 0), pass("blue")}, "buy"),      // 4
        free_round("blue", "C"),                                      // 5
        tile("red", "U", 1, 0, 90),                                   // 6
        json{{"type", "discard"}, {"player", "blue"}, {"tile", "C"}}, // 7
    };
    g = replay(bz_record(last, 2));
    REQUIRE(g);
    CHECK(g->next_player() == 0);
    last.push_back(tile("blue", "V", -1, 0, 180));
    CHECK_THAT(message_of(bz_record(last, 2)), Catch::Contains("event 8 (tile): it is red's turn"));
}

TEST_CASE("no auction when fewer tiles are face down than players", "[bazaars]") {
    auto catalog_with = [](int u_count) {
        const json doc = {
            {"format", "meeplecam-catalog"}, {"version", 1}, {"game", "carcassonne"}, {"set", "test"},
            {"title", "test"}, {"start_tile", "D"},
            {"tiles",
             {{{"id", "D"},
               {"count", 1},
               {"features",
                {{{"kind", "city"}, {"ports", {"NL", "N", "NR"}}},
                 {{"kind", "road"}, {"ports", {"W", "E"}}},
                 {{"kind", "field"}, {"ports", {"WR", "EL"}}, {"cities", {0}}},
                 {{"kind", "field"}, {"ports", {"ER", "SL", "S", "SR", "WL"}}}}}},
              {{"id", "CB6"},
               {"count", 1},
               {"tags", {"bazaar"}},
               {"features", {{{"kind", "field"}, {"ports", {"NL", "N", "NR", "EL", "E", "ER", "SL", "S", "SR", "WL", "W", "WR"}}}}}},
              {{"id", "U"},
               {"count", u_count},
               {"features",
                {{{"kind", "road"}, {"ports", {"N", "S"}}},
                 {{"kind", "field"}, {"ports", {"NR", "EL", "E", "ER", "SL"}}},
                 {{"kind", "field"}, {"ports", {"SR", "WL", "W", "WR", "NL"}}}}}}}}};
        auto c = Catalog::from_json(doc, "test catalog");
        if (!c) FAIL(c.error().to_string());
        return std::make_shared<const Catalog>(std::move(c.value()));
    };
    ReplayOptions opt;
    // 2 U left after the bazaar, 2 players: exactly enough, the auction is due.
    opt.catalog = catalog_with(2);
    auto r = bz_record({tile("red", "CB6", 0, 1, 0), tile("blue", "U", 1, 0, 90)}, 2);
    auto g = replay(r, opt);
    REQUIRE_FALSE(g);
    CHECK_THAT(g.error().to_string(), Catch::Contains("an auction must follow red's bazaar tile"));
    // 1 U left: too few, the bazaar is ignored and play goes on.
    opt.catalog = catalog_with(1);
    g = replay(r, opt);
    REQUIRE(g);
    auto with_auction = bz_record({tile("red", "CB6", 0, 1, 0), auction("red", {"U", "U"})}, 2);
    g = replay(with_auction, opt);
    REQUIRE_FALSE(g);
    CHECK_THAT(g.error().to_string(), Catch::Contains("only 1 tiles are left face down for 2 players"));
}

TEST_CASE("options: the no-bidding variant and bids limited to the score", "[bazaars]") {
    // Unknown or ill-typed options are refused as invalid, naming the module's options.
    for (const json& bad : {json{{"variant", "silent"}}, json{{"bids_limited_to_score", 1}}, json{{"limit", true}}}) {
        auto g = replay(bz_record({}, 2, bad));
        REQUIRE_FALSE(g);
        CHECK(g.error().kind == ErrorKind::Invalid);
        CHECK_THAT(g.error().to_string(), Catch::Contains("options.bazaars"));
    }

    // No bidding: each player just takes a tile, in turn from the player after the active one.
    const json variant = {{"variant", "no-bidding"}};
    std::vector<json> events = {tile("red", "CB6", 0, 1, 0), auction("red", {"U", "V", "E"}), free_round("blue", "V"),
                                free_round("green", "U"), free_round("red", "E")};
    auto g = replay(bz_record(events, 3, variant));
    REQUIRE(g);
    CHECK(g->score_events().empty());
    CHECK(bazaars(g.value()).acquired(1) == "V");
    auto bidding = events;
    bidding[2] = round("blue", "V", {bid("blue", 1), pass("green"), pass("red")}, "buy");
    CHECK_THAT(message_of(bz_record(bidding, 3, variant)), Catch::Contains("event 3 (auction-round): this auction has no bidding"));

    // Bids limited to the score: with every score 0 the auction has no bidding (footnote 13).
    const json limited = {{"bids_limited_to_score", true}};
    REQUIRE(replay(bz_record(events, 3, limited)));
    // Red closes a city first (4 points): bids are then checked against each bidder's score.
    std::vector<json> scored = {tile("red", "CB5", 0, -1, 180), meeple("red", 0, -1, "S"), auction("red", {"U", "V", "E"})};
    auto with = [&](json r) {
        auto e = scored;
        e.push_back(std::move(r));
        return bz_record(e, 3, limited);
    };
    CHECK_THAT(message_of(with(round("blue", "U", {bid("blue", 1), pass("green"), pass("red")}, "buy"))),
               Catch::Contains("blue may not bid 1: bids are limited to the bidder's score (0"));
    CHECK_THAT(message_of(with(round("blue", "U", {bid("blue", 0), pass("green"), bid("red", 5)}, "buy"))),
               Catch::Contains("red may not bid 5"));
    CHECK_THAT(message_of(with(round("blue", "U", {bid("blue", 0), pass("green"), bid("red", 4)}, "buy"))),
               Catch::Contains("blue cannot buy: paying red's bid of 4 would exceed its score (0"));
    auto sold = replay(with(round("blue", "U", {bid("blue", 0), pass("green"), bid("red", 4)}, "sell")));
    REQUIRE(sold);
    CHECK(sold->scores() == std::vector<int>{0, 4, 0});
}

TEST_CASE("auction events round-trip through the record / a record may stop mid-auction", "[bazaars]") {
    const Record r = bz_record(example_until(11), 3, json::object(), true);
    auto again = parse_record_text(r.to_json().dump(), "again");
    REQUIRE(again);
    CHECK(again->to_json() == r.to_json());
    auto a = replay(r);
    auto b = replay(again.value());
    REQUIRE(a);
    REQUIRE(b);
    CHECK(a->scores() == b->scores());

    // Finished during the bidding: the payments made stand; the unsold tiles are never placed.
    auto stopped = replay(bz_record(example_until(4), 3, json::object(), true));
    REQUIRE(stopped);
    CHECK(stopped->finished());
    CHECK(stopped->scores() == std::vector<int>{7, -3, 0});
}

TEST_CASE("random games with Bazaars hold auctions from the generator's bag", "[bazaars]") {
    int auctions = 0;
    for (int players = 1; players <= 6; ++players) {
        RandomGameOptions opt;
        opt.seed = 40 + static_cast<std::uint64_t>(players);
        opt.players = players;
        opt.expansions = {"bazaars"};
        opt.check_consistency = true;
        auto played = play_random_game(nullptr, opt);
        if (!played) FAIL(played.error().to_string());
        for (const auto& e : played->record.events) auctions += e.type == "auction" ? 1 : 0;
        int discards = 0;
        for (const auto& e : played->record.events) discards += e.type == "discard" ? 1 : 0;
        CHECK(static_cast<int>(played->game.board().size()) + discards == 84);
        auto again = replay(played->record);
        REQUIRE(again);
        CHECK(again->scores() == played->game.scores());
    }
    CHECK(auctions >= 6);
}
