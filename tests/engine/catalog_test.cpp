#include <catch2/catch.hpp>

#include <map>

#include "engine/catalog.h"
#include "replay_fixtures.h"

using namespace meeplecam;

TEST_CASE("the base catalog matches the published tile set", "[catalog]") {
    const auto cat = test::base_catalog();
    REQUIRE(cat->tiles().size() == 24);
    int tiles = 0, monasteries = 0, pennants = 0;
    for (const auto& t : cat->tiles()) {
        tiles += t.count;
        for (const auto& f : t.features) {
            if (f.kind == FeatureKind::Monastery) monasteries += t.count;
            pennants += f.pennants * t.count;
        }
    }
    CHECK(tiles == 72);
    CHECK(monasteries == 6);
    CHECK(pennants == 10);
    CHECK(cat->start_tile() == "D");
}

TEST_CASE("tile edges follow the N/E/S/W column of the tile table", "[catalog]") {
    const std::map<std::string, std::string> table = {
        {"A", "FFRF"}, {"B", "FFFF"}, {"C", "CCCC"}, {"D", "CRFR"}, {"E", "CFFF"}, {"F", "FCFC"},
        {"G", "FCFC"}, {"H", "FCFC"}, {"I", "CCFF"}, {"J", "CRRF"}, {"K", "CFRR"}, {"L", "CRRR"},
        {"M", "CCFF"}, {"N", "CCFF"}, {"O", "CRRC"}, {"P", "CRRC"}, {"Q", "CCFC"}, {"R", "CCFC"},
        {"S", "CCRC"}, {"T", "CCRC"}, {"U", "RFRF"}, {"V", "FFRR"}, {"W", "FRRR"}, {"X", "RRRR"}};
    const auto cat = test::base_catalog();
    for (const auto& [id, edges] : table) {
        const TileType* t = cat->find(id);
        REQUIRE(t);
        std::string got;
        for (EdgeKind e : t->edges) got += e == EdgeKind::City ? 'C' : e == EdgeKind::Road ? 'R' : 'F';
        CHECK(got == edges);
    }
}

TEST_CASE("a turned tile shows its edges a side further clockwise per quarter turn", "[catalog]") {
    const auto cat = test::base_catalog();
    const TileType& e = *cat->find("E");  // city north only
    CHECK(e.edge_at(0, 0) == EdgeKind::City);
    CHECK(e.edge_at(1, 1) == EdgeKind::City);  // one turn clockwise: the city faces east
    CHECK(e.edge_at(1, 0) == EdgeKind::Field);
    CHECK(e.edge_at(3, 3) == EdgeKind::City);
    // Turns and sides are taken modulo 4, negative ones too.
    CHECK(e.edge_at(-1, 3) == EdgeKind::City);
    CHECK(e.edge_at(5, 5) == EdgeKind::City);
    CHECK(e.edge_at(2, -2) == EdgeKind::City);
    const TileType& d = *cat->find("D");  // CRFR
    for (int rot = 0; rot < 4; ++rot) {
        for (int side = 0; side < 4; ++side) CHECK(d.edge_at(rot, side) == d.edges[static_cast<std::size_t>((side - rot + 4) % 4)]);
    }
}

TEST_CASE("symmetric tiles list only their distinct rotations", "[catalog]") {
    const auto cat = test::base_catalog();
    const std::map<std::string, std::size_t> distinct = {{"A", 4}, {"B", 1}, {"C", 1}, {"F", 2}, {"G", 2},
                                                          {"H", 2}, {"I", 4}, {"U", 2}, {"V", 4}, {"X", 1}};
    for (const auto& [id, n] : distinct) {
        INFO(id);
        CHECK(cat->find(id)->distinct_rotations.size() == n);
    }
}

TEST_CASE("a bad catalog is refused with the tile and the reason", "[catalog][bad-input]") {
    auto load = [](const std::string& tiles) {
        return Catalog::from_text(R"({"format":"meeplecam-catalog","version":1,"game":"carcassonne","tiles":)" + tiles + "}",
                                  "my.json");
    };
    auto r = load(R"([{"id":"Z","count":1,"features":[{"kind":"field","ports":["N","E","S"]}]}])");
    REQUIRE_FALSE(r);
    CHECK_THAT(r.error().to_string(), Catch::Contains("Z") && Catch::Contains("belongs to no feature"));

    r = load(R"([{"id":"Z","count":1,"features":[{"kind":"city","ports":["N"]},{"kind":"field","ports":["NL","NR","EL","E","ER","SL","S","SR","WL","W","WR"]}]}])");
    REQUIRE_FALSE(r);
    CHECK_THAT(r.error().message, Catch::Contains("mixes city"));

    r = load(R"([{"id":"Z","count":1,"features":[{"kind":"castle","ports":["C"]}]}])");
    REQUIRE_FALSE(r);
    CHECK_THAT(r.error().message, Catch::Contains("unknown feature kind 'castle'"));

    r = load(R"([{"id":"Z","count":-1,"features":[]}])");
    REQUIRE_FALSE(r);
    r = load(R"([{"id":"Z","count":1,"features":[{"kind":"field","ports":["N","N"]}]}])");
    REQUIRE_FALSE(r);
    CHECK_THAT(r.error().message, Catch::Contains("two features"));

    auto truncated = Catalog::from_text(R"({"format":"meeplecam-catalog","version":1,"tiles":[)", "cut.json");
    REQUIRE_FALSE(truncated);
    CHECK_THAT(truncated.error().to_string(), Catch::Contains("cut.json") && Catch::Contains("not valid JSON"));
    CHECK_FALSE(Catalog::load_file("/nonexistent/catalog.json"));

    // A 'format' of the wrong type (the fuzzer's find: a repeated key, the last an array) is refused, not thrown.
    auto not_text = Catalog::from_text(R"({"format":"meeplecam-catalog","version":1,"game":"carcassonne","format":[]})", "twice.json");
    REQUIRE_FALSE(not_text);
    CHECK_THAT(not_text.error().to_string(), Catch::Contains("twice.json") && Catch::Contains("'format' must be"));
}

TEST_CASE("merging catalogs refuses duplicate tile ids", "[catalog]") {
    Catalog a = *test::base_catalog();
    CHECK_FALSE(a.merge(*test::base_catalog()));
}

TEST_CASE("the expansion catalogs load with the published counts", "[catalog]") {
    auto bcb = Catalog::embedded("carcassonne-bridges-castles-bazaars");
    REQUIRE(bcb);
    int tiles = 0, bazaars = 0, no_castle = 0;
    for (const auto& t : bcb->tiles()) {
        tiles += t.count;
        bazaars += t.has_tag("bazaar") ? t.count : 0;
        for (const auto& f : t.features) no_castle += f.has_tag("no-castle") ? 1 : 0;
    }
    CHECK(tiles == 12);
    CHECK(bazaars == 8);
    CHECK(no_castle == 1);

    auto ferries = Catalog::embedded("carcassonne-ferries");
    REQUIRE(ferries);
    auto total = [&](const char* edition) {
        int n = 0;
        for (const auto& t : ferries->tiles()) n += t.count_in(edition);
        return n;
    };
    CHECK(total("C1") == 8);
    CHECK(total("C3") == 8);
    CHECK(ferries->find("FE2")->count_in("C2") == 4);
    CHECK(ferries->find("FE2")->count_in("C3") == 3);
    CHECK(ferries->find("FE3")->count_in("C3") == 2);
    // Lake jetties are road ends: they match roads.
    CHECK(ferries->find("FE3")->edges[0] == EdgeKind::Road);

    // Both merge into the base game without id clashes.
    Catalog all = *test::base_catalog();
    REQUIRE(all.merge(bcb.value()));
    REQUIRE(all.merge(ferries.value()));
    CHECK(all.tiles().size() == 24 + 11 + 3);
}
