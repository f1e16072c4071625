#include "engine/modules/bazaars.h"

#include <algorithm>
#include <map>
#include <set>

#include "engine/game.h"

namespace meeplecam {
namespace {

using nlohmann::json;

constexpr long long kMaxBid = 1'000'000;

std::string list_text(const std::vector<std::string>& items) {
    std::string out;
    for (const auto& s : items) out += (out.empty() ? "" : ", ") + s;
    return out;
}

// Refuses keys other than `allowed` in a module event (a typo must not be silently ignored).
Status only_keys(const json& j, const std::set<std::string>& allowed, const std::string& where) {
    for (const auto& [key, value] : j.items()) {
        if (!allowed.count(key)) {
            std::string known;
            for (const auto& k : allowed) known += (known.empty() ? "" : ", ") + k;
            const std::string type = j.contains("type") && j["type"].is_string() ? j["type"].get<std::string>() : "unnamed";
            return invalid(where, "unknown field '" + key + "' (an " + type +
                                      " event has: " + known + ")");
        }
    }
    return Ok{};
}

Result<std::string> string_field(const json& j, const char* field, const std::string& where) {
    if (!j.contains(field)) return invalid(where, std::string("missing '") + field + "'");
    if (!j[field].is_string() || j[field].get<std::string>().empty()) {
        return invalid(where, std::string("'") + field + "' must be a non-empty string");
    }
    return j[field].get<std::string>();
}

}  // namespace

Status BazaarsModule::configure(const json& options) {
    const std::string where = "options.bazaars";
    if (!options.is_object()) return invalid(where, "must be an object, e.g. {\"variant\": \"no-bidding\"}");
    for (const auto& [key, value] : options.items()) {
        if (key == "variant") {
            if (value == "auction") {
                variant_ = Variant::Auction;
            } else if (value == "no-bidding") {
                variant_ = Variant::NoBidding;
            } else {
                return invalid(where, "'variant' must be \"auction\" or \"no-bidding\", not " + value.dump());
            }
        } else if (key == "bids_limited_to_score") {
            if (!value.is_boolean()) return invalid(where, "'bids_limited_to_score' must be true or false");
            limited_ = value.get<bool>();
        } else {
            return invalid(where, "unknown option '" + key + "' (known: variant, bids_limited_to_score)");
        }
    }
    return Ok{};
}

// --- State queries ---------------------------------------------------------------------------

bool BazaarsModule::trigger_pending(const Game& game) const {
    if (phase_ != Phase::Idle || auctioned_turn_ || game.turn_tile() < 0) return false;
    if (!game.board().tiles()[game.turn_tile()].type->has_tag("bazaar")) return false;
    return game.tiles_left() >= static_cast<int>(game.players().size());
}

bool BazaarsModule::auction_due(const Game& game) const { return phase_ == Phase::Due || trigger_pending(game); }

std::string BazaarsModule::why_no_auction(const Game& game) const {
    switch (phase_) {
        case Phase::Bidding: return "the tiles of this auction are already revealed";
        case Phase::Placing: return "the tiles of the last auction are still being placed";
        default: break;
    }
    if (game.turn_tile() < 0) return "an auction follows only a turn whose tile shows a bazaar";
    const PlacedTile& t = game.board().tiles()[game.turn_tile()];
    if (auctioned_turn_) {
        return "tile " + t.type->id + " was acquired at an auction: an auctioned bazaar starts no auction (no chain reaction)";
    }
    if (!t.type->has_tag("bazaar")) return "tile " + t.type->id + " at " + to_string(t.at) + " shows no bazaar";
    return "only " + std::to_string(game.tiles_left()) + " tiles are left face down for " +
           std::to_string(game.players().size()) + " players: the bazaar is ignored (too few tiles)";
}

std::string BazaarsModule::acquired(int player) const {
    if (player < 0 || player >= static_cast<int>(won_.size())) return {};
    return won_[player];
}

int BazaarsModule::next_without_tile(int p) const {
    for (int k = 1; k <= players_; ++k) {
        const int q = (p + k) % players_;
        if (won_[q].empty()) return q;
    }
    return -1;
}

std::vector<int> BazaarsModule::bidders_after(int picker) const {
    std::vector<int> out;
    for (int k = 1; k < players_; ++k) {
        const int q = (picker + k) % players_;
        if (won_[q].empty()) out.push_back(q);
    }
    return out;
}

// --- Turn flow -------------------------------------------------------------------------------

void BazaarsModule::on_turn_scored(Game& game) {
    if (!trigger_pending(game)) return;
    phase_ = Phase::Due;
    active_ = game.turn_player();
}

void BazaarsModule::on_tile_placed(Game& game) {
    if (phase_ == Phase::Placing) {
        MEEPLECAM_CHECK(!placing_.empty() && placing_.front() == game.turn_player(),
                        "the auctioned tile is placed by its owner (checked before the tile)");
        won_[placing_.front()].clear();
        placing_.pop_front();
        auctioned_turn_ = true;
        if (placing_.empty()) phase_ = Phase::Resume;
        return;
    }
    // A normally drawn tile: normal play again (after an auction's placements, too).
    auctioned_turn_ = false;
    phase_ = Phase::Idle;
}

void BazaarsModule::on_tile_discarded(Game& /*game*/, int player, const TileType& /*type*/) {
    if (phase_ != Phase::Placing) return;
    MEEPLECAM_CHECK(!placing_.empty() && placing_.front() == player, "the auctioned tile is discarded by its owner");
    won_[player].clear();
    placing_.pop_front();
    if (placing_.empty()) phase_ = Phase::Resume;
}

std::optional<int> BazaarsModule::next_player(const Game& /*game*/) const {
    switch (phase_) {
        case Phase::Bidding: return picker_;
        case Phase::Placing: return placing_.front();
        case Phase::Resume: return (active_ + 1) % players_;
        default: return std::nullopt;
    }
}

std::optional<std::string> BazaarsModule::assigned_tile(const Game& /*game*/) const {
    if (phase_ != Phase::Placing) return std::nullopt;
    return won_[placing_.front()];
}

Status BazaarsModule::before_core_event(Game& game, const Event& event, const std::string& where) {
    const bool draws = event.type == "tile" || event.type == "discard";
    if (auction_due(game) && draws) {
        const int active = phase_ == Phase::Due ? active_ : game.turn_player();
        return illegal(where, "an auction must follow " + game.players()[active].color +
                                  "'s bazaar tile: the next event is an 'auction' revealing " +
                                  std::to_string(game.players().size()) + " tiles");
    }
    if (phase_ == Phase::Bidding) {
        return illegal(where, "the auction is under way: " + game.players()[picker_].color +
                                  " picks a tile next (an 'auction-round' event)");
    }
    if (phase_ == Phase::Placing && draws) {
        const int owner = placing_.front();
        const std::string& color = game.players()[owner].color;
        if (event.player != color) {
            return illegal(where, color + " places the tile it acquired at the auction (" + won_[owner] +
                                      ") now, not " + (event.player.empty() ? "nobody" : event.player));
        }
        if (event.tile != won_[owner]) {
            return illegal(where, color + " acquired tile " + won_[owner] +
                                      " at the auction and must place it (or discard it when it fits nowhere), not " +
                                      event.tile);
        }
    }
    return Ok{};
}

// --- Events ----------------------------------------------------------------------------------

Status BazaarsModule::apply_event(Game& game, const Event& event, const std::string& where) {
    return event.type == "auction" ? reveal(game, event, where) : round(game, event, where);
}

Status BazaarsModule::reveal(Game& game, const Event& e, const std::string& where) {
    const json& j = e.raw;
    if (auto st = only_keys(j, {"type", "player", "tiles"}, where); !st) return st;
    if (e.player.empty()) return invalid(where, "missing 'player' (the active player, who reveals the tiles)");
    const int player = game.player_index(e.player);
    if (player < 0) return invalid(where, "unknown player colour '" + e.player + "'");
    if (!j.contains("tiles") || !j["tiles"].is_array()) {
        return invalid(where, "'tiles' must be an array of tile ids, e.g. [\"U\", \"V\"]");
    }
    std::vector<std::string> tiles;
    std::map<std::string, int> count;
    for (const auto& t : j["tiles"]) {
        if (!t.is_string()) return invalid(where, "'tiles' must be an array of tile ids");
        const std::string id = t.get<std::string>();
        if (!game.catalog().find(id)) return invalid(where, "unknown tile id '" + id + "' (not in the game's catalog)");
        tiles.push_back(id);
        ++count[id];
    }
    if (!auction_due(game)) return illegal(where, "no auction now: " + why_no_auction(game));
    const int active = phase_ == Phase::Due ? active_ : game.turn_player();
    const int n = static_cast<int>(game.players().size());
    if (player != active) {
        return illegal(where, "the tiles are revealed by " + game.players()[active].color +
                                  ", whose bazaar tile started the auction, not " + e.player);
    }
    if (static_cast<int>(tiles.size()) != n) {
        return illegal(where, "an auction reveals one tile per player (" + std::to_string(n) + "), not " +
                                  std::to_string(tiles.size()));
    }
    for (const auto& [id, k] : count) {
        const int left = game.supply_left(*game.catalog().find(id));
        if (k > left) {
            return illegal(where, "tile " + id + " is revealed " + std::to_string(k) + " time(s) but the " +
                                      game.options().edition + " supply has " + std::to_string(left) +
                                      " face-down cop" + (left == 1 ? "y" : "ies") + " left");
        }
    }
    if (game.turn_tile() >= 0) {
        // The bazaar turn ends (and is scored) before the auction.
        if (auto st = game.close_turn(); !st) return Error{st.error().kind, where, st.error().message};
    }
    MEEPLECAM_CHECK(phase_ == Phase::Due && active_ == active, "scoring the bazaar turn makes the auction due");
    players_ = n;
    unsold_ = tiles;
    won_.assign(n, std::string());
    placing_.clear();
    picker_ = (active_ + 1) % n;
    bool all_zero = true;
    for (int s : game.scores()) all_zero = all_zero && s == 0;
    no_bidding_ = variant_ == Variant::NoBidding || (limited_ && all_zero);  // footnotes 12, 13
    phase_ = Phase::Bidding;
    return Ok{};
}

void BazaarsModule::pay(Game& game, int player, int points, const std::string& explanation) const {
    if (points == 0) return;
    ScoreEvent ev;
    ev.phase = ScoreEvent::Phase::Turn;
    ev.event_index = game.turn_event();
    ev.feature = "auction";
    ev.points = points;
    ev.winners = {player};
    ev.explanation = explanation + " = " + std::to_string(points) + " points";
    game.add_score(std::move(ev));
}

Status BazaarsModule::round(Game& game, const Event& e, const std::string& where) {
    const json& j = e.raw;
    if (auto st = only_keys(j, {"type", "picker", "tile", "bids", "deal", "free"}, where); !st) return st;
    auto picker_name = string_field(j, "picker", where);
    if (!picker_name) return picker_name.error();
    const int picker = game.player_index(picker_name.value());
    if (picker < 0) return invalid(where, "unknown player colour '" + picker_name.value() + "'");
    auto tile = string_field(j, "tile", where);
    if (!tile) return tile.error();
    if (!game.catalog().find(tile.value())) {
        return invalid(where, "unknown tile id '" + tile.value() + "' (not in the game's catalog)");
    }
    bool free = false;
    if (j.contains("free")) {
        if (j["free"] != true) return invalid(where, "'free' must be true when given");
        free = true;
    }
    if (phase_ != Phase::Bidding) {
        return illegal(where, phase_ == Phase::Due || auction_due(game)
                                  ? "the tiles must be revealed first (an 'auction' event)"
                                  : "no auction is under way");
    }
    const auto& colors = game.players();
    if (picker != picker_) {
        return illegal(where, "it is " + colors[picker_].color + "'s pick (the next player without a tile), not " +
                                  picker_name.value() + "'s" +
                                  (won_[picker].empty() ? "" : " (" + picker_name.value() + " already has a tile)"));
    }
    const auto it = std::find(unsold_.begin(), unsold_.end(), tile.value());
    if (it == unsold_.end()) {
        return illegal(where, "tile " + tile.value() + " is not among the revealed tiles still unsold (" +
                                  list_text(unsold_) + ")");
    }
    const std::vector<int> others = bidders_after(picker);
    const std::string& id = tile.value();
    const std::string& pname = colors[picker].color;

    if (no_bidding_ || others.empty()) {
        if (j.contains("bids") || j.contains("deal")) {
            return illegal(where, others.empty() ? "the last revealed tile goes free to " + pname + ": no bids, no deal"
                                                 : "this auction has no bidding (" +
                                                       std::string(variant_ == Variant::NoBidding
                                                                       ? "variant no-bidding"
                                                                       : "every score is 0 and bids are limited to the score") +
                                                       "): each player just takes a tile");
        }
        if (!free) {
            return illegal(where, std::string(others.empty() ? "the last revealed tile goes free to " + pname
                                                             : "without bidding every tile is free") +
                                      ": write \"free\": true");
        }
        won_[picker] = id;
    } else {
        if (free) {
            return illegal(where, "only the last revealed tile is free (" + std::to_string(others.size() + 1) +
                                      " players are still without a tile)");
        }
        if (!j.contains("bids") || !j["bids"].is_array()) {
            return invalid(where, "'bids' must be an array of {\"player\", \"bid\"} or {\"player\", \"pass\": true}");
        }
        std::vector<int> expected = {picker};
        expected.insert(expected.end(), others.begin(), others.end());
        const json& bids = j["bids"];
        int high = -1, high_bidder = -1;
        std::set<int> seen;
        for (std::size_t i = 0; i < bids.size(); ++i) {
            const json& b = bids[i];
            const std::string at = "bids[" + std::to_string(i) + "]";
            if (!b.is_object()) return invalid(where, at + " must be an object {\"player\", \"bid\" or \"pass\"}");
            for (const auto& [key, value] : b.items()) {
                if (key != "player" && key != "bid" && key != "pass") {
                    return invalid(where, at + ": unknown field '" + key + "' (use player, bid or pass)");
                }
            }
            auto who_name = string_field(b, "player", where + ": " + at);
            if (!who_name) return who_name.error();
            const int who = game.player_index(who_name.value());
            if (who < 0) return invalid(where, at + ": unknown player colour '" + who_name.value() + "'");
            const bool has_bid = b.contains("bid"), has_pass = b.contains("pass");
            if (has_bid == has_pass) return invalid(where, at + ": give either 'bid' (a number) or \"pass\": true");
            if (has_pass && b["pass"] != true) return invalid(where, at + ": 'pass' must be true when given");
            if (has_bid && (!b["bid"].is_number_integer() || b["bid"].get<long long>() > kMaxBid)) {
                return invalid(where, at + ": 'bid' must be an integer (at most 1000000)");
            }
            if (i >= expected.size() || who != expected[i]) {
                std::string why;
                if (seen.count(who)) {
                    why = who_name.value() + " bids only once per tile";
                } else if (!won_[who].empty()) {
                    why = who_name.value() + " already has a tile from this auction and may not bid";
                } else if (i >= expected.size()) {
                    why = "every player without a tile has already bid or passed";
                } else {
                    why = "expected " + colors[expected[i]].color + " to " + (i == 0 ? "open" : "bid or pass") +
                          " (seat order from the picker), not " + who_name.value();
                }
                return illegal(where, at + ": " + why);
            }
            seen.insert(who);
            if (has_pass) {
                if (i == 0) return illegal(where, at + ": the picker " + pname + " must open with a bid (0 is allowed)");
                continue;
            }
            const long long bid = b["bid"].get<long long>();
            if (bid < 0) return illegal(where, at + ": a bid is at least 0, not " + std::to_string(bid));
            if (i > 0 && bid <= high) {
                return illegal(where, at + ": " + who_name.value() + "'s bid " + std::to_string(bid) +
                                          " must exceed the highest bid so far (" + std::to_string(high) + ", " +
                                          colors[high_bidder].color + ")");
            }
            if (limited_ && bid > game.scores()[who]) {
                return illegal(where, at + ": " + who_name.value() + " may not bid " + std::to_string(bid) +
                                          ": bids are limited to the bidder's score (" +
                                          std::to_string(game.scores()[who]) + ", option bids_limited_to_score)");
            }
            high = static_cast<int>(bid);
            high_bidder = who;
        }
        if (bids.size() < expected.size()) {
            return illegal(where, "the bids end before " + colors[expected[bids.size()]].color +
                                      " bid or passed (every player without a tile bids once or passes, in seat order)");
        }
        auto deal = string_field(j, "deal", where);
        if (!deal) return deal.error();
        if (deal.value() != "buy" && deal.value() != "sell") {
            return invalid(where, "'deal' must be \"buy\" or \"sell\", not \"" + deal.value() + "\"");
        }
        const std::string& hname = colors[high_bidder].color;
        const std::string amount = std::to_string(high);
        if (high_bidder == picker) {
            if (deal.value() == "sell") {
                return illegal(where, pname + " cannot sell: its own bid (" + amount +
                                          ") is the highest, so it buys the tile and pays the bank");
            }
            pay(game, picker, -high, pname + " buys tile " + id + " at its own bid of " + amount + ", paid to the bank");
            won_[picker] = id;
        } else if (deal.value() == "buy") {
            if (limited_ && high > game.scores()[picker]) {
                return illegal(where, pname + " cannot buy: paying " + hname + "'s bid of " + amount +
                                          " would exceed its score (" + std::to_string(game.scores()[picker]) +
                                          ", option bids_limited_to_score); it must sell");
            }
            pay(game, picker, -high, pname + " buys tile " + id + ", paying " + hname + "'s bid of " + amount);
            pay(game, high_bidder, high, hname + " receives its bid of " + amount + " from " + pname + " for tile " + id);
            won_[picker] = id;
        } else {
            pay(game, high_bidder, -high, hname + " buys tile " + id + " from " + pname + " at its bid of " + amount);
            pay(game, picker, high, pname + " sells tile " + id + " to " + hname + " for " + amount);
            won_[high_bidder] = id;
        }
    }
    unsold_.erase(std::find(unsold_.begin(), unsold_.end(), id));
    if (!unsold_.empty()) {
        picker_ = next_without_tile(picker);
        MEEPLECAM_CHECK(picker_ >= 0, "as many players without a tile as unsold tiles");
        return Ok{};
    }
    // Every tile has an owner: all place them, starting with the player after the active player.
    for (int k = 1; k <= players_; ++k) {
        const int p = (active_ + k) % players_;
        MEEPLECAM_CHECK(!won_[p].empty(), "every player acquired one tile");
        placing_.push_back(p);
    }
    picker_ = -1;
    phase_ = Phase::Placing;
    return Ok{};
}

// --- For generators --------------------------------------------------------------------------

bool BazaarsModule::must_act(const Game& /*game*/) const { return phase_ == Phase::Bidding; }

int BazaarsModule::tiles_to_reveal(const Game& game) const {
    return auction_due(game) ? static_cast<int>(game.players().size()) : 0;
}

std::optional<Event> BazaarsModule::reveal_event(const Game& game, const std::vector<std::string>& tiles) const {
    if (!auction_due(game)) return std::nullopt;
    const int active = phase_ == Phase::Due ? active_ : game.turn_player();
    Event e;
    e.type = "auction";
    e.player = game.players()[active].color;
    e.raw = {{"type", "auction"}, {"player", e.player}, {"tiles", tiles}};
    return e;
}

std::vector<Event> BazaarsModule::options(const Game& game) const {
    std::vector<Event> out;
    if (phase_ != Phase::Bidding) return out;
    const std::string pname = game.players()[picker_].color;
    const std::vector<int> others = bidders_after(picker_);
    std::vector<std::string> ids = unsold_;
    std::sort(ids.begin(), ids.end());
    ids.erase(std::unique(ids.begin(), ids.end()), ids.end());
    auto add = [&](json raw) {
        Event e;
        e.type = "auction-round";
        e.raw = std::move(raw);
        out.push_back(std::move(e));
    };
    const auto& scores = game.scores();
    for (const auto& id : ids) {
        if (no_bidding_ || others.empty()) {
            add({{"type", "auction-round"}, {"picker", pname}, {"tile", id}, {"free", true}});
            continue;
        }
        // A representative sample of bid sequences, not every one: {opening bid, raise pattern,
        // sell}; patterns: 0 all pass, 1 all raise by 1, 2 the first raises by 2, 3 the last by 3.
        static constexpr int kSample[6][3] = {{0, 0, 0}, {2, 0, 0}, {1, 1, 0}, {1, 1, 1}, {0, 2, 1}, {2, 3, 0}};
        for (const auto& [open, pattern, sell] : kSample) {
            if (limited_ && open > scores[picker_]) continue;
            json list = json::array({{{"player", pname}, {"bid", open}}});
            int high = open, high_bidder = picker_;
            for (std::size_t k = 0; k < others.size(); ++k) {
                int raise = 0;
                if (pattern == 1) raise = 1;
                if (pattern == 2 && k == 0) raise = 2;
                if (pattern == 3 && k + 1 == others.size()) raise = 3;
                const std::string& color = game.players()[others[k]].color;
                if (raise > 0 && (!limited_ || high + raise <= scores[others[k]])) {
                    high += raise;
                    high_bidder = others[k];
                    list.push_back({{"player", color}, {"bid", high}});
                } else {
                    list.push_back({{"player", color}, {"pass", true}});
                }
            }
            // The picker whose own bid is highest buys (pays the bank); one who cannot afford the
            // high bid under bids_limited_to_score sells.
            bool selling = sell != 0 && high_bidder != picker_;
            if (limited_ && high_bidder != picker_ && high > scores[picker_]) selling = true;
            add({{"type", "auction-round"},
                 {"picker", pname},
                 {"tile", id},
                 {"bids", std::move(list)},
                 {"deal", selling ? "sell" : "buy"}});
        }
    }
    return out;
}

}  // namespace meeplecam
