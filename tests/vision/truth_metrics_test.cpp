#include <catch2/catch.hpp>
#include <algorithm>

#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <string>
#include <tuple>

#include <nlohmann/json.hpp>

#include "render_fixtures.h"
#include "vision/truth_metrics.h"

using namespace meeplecam;
using namespace meeplecam::vision;

namespace {

int type_index(const Catalog& catalog, const std::string& id) {
    for (std::size_t i = 0; i < catalog.tiles().size(); ++i) {
        if (catalog.tiles()[i].id == id) return static_cast<int>(i);
    }
    return -1;
}

// A read tile at (col, row) of the reading's own frame.
DecodedTile read_tile(const Catalog& catalog, int col, int row, const std::string& id, int rot) {
    DecodedTile t;
    t.col = col, t.row = row, t.type = type_index(catalog, id), t.rot = rot;
    return t;
}

std::string write_temp(const char* name, const std::string& text) {
    const auto path = (std::filesystem::temp_directory_path() / name).string();
    std::ofstream(path) << text;
    return path;
}

}  // namespace

TEST_CASE("a reading is scored against a hand-labelled layout under the board's turn and shift", "[vision][truth]") {
    const auto catalog = test::base_catalog_for_render();
    // The labels: a 3 x 2 board. Curve V at (0, 0) turned once, E (city N) at (1, 0), U (straight road) at (2, 0),
    // corner city N at (0, 1), B (monastery) at (1, 1), D at (2, 1).
    const std::vector<LabelledTile> labels = {{0, 0, "V", 1}, {1, 0, "E", 0}, {2, 0, "U", 0}, {0, 1, "N", 0}, {1, 1, "B", 0}, {2, 1, "D", 2}};
    // The reading saw the board turned a quarter turn anticlockwise and shifted: label cell (c, r) is read at
    // (r + 5, -c + 7) with each rotation one quarter turn less. N is read as I (wrong), D is not read (missed),
    // U is read as the same straight road turned twice (right: U looks the same turned by a half turn), and one
    // tile is invented beside the board.
    auto at = [](int c, int r) { return std::pair{r + 5, -c + 7}; };
    std::vector<DecodedTile> read;
    auto add = [&](int c, int r, const std::string& id, int rot) {
        const auto [x, y] = at(c, r);
        read.push_back(read_tile(*catalog, x, y, id, (rot + 3) % 4));
    };
    add(0, 0, "V", 1);
    add(1, 0, "E", 0);
    add(2, 0, "U", 2);
    add(0, 1, "I", 0);
    add(1, 1, "B", 0);
    read.push_back(read_tile(*catalog, 9, 9, "E", 0));

    const LayoutScore s = score_against_layout(read, *catalog, labels);
    CHECK(s.labelled == 6);
    CHECK(s.turn == 1);
    CHECK(s.right == 4);
    CHECK(s.wrong == 1);
    CHECK(s.missed == 1);
    CHECK(s.invented == 1);
    REQUIRE(s.confusions.size() == 1);
    CHECK(s.confusions[0] == "N->I");

    // A hidden tile is no reading: it counts as missed.
    read[1].hidden = true;
    const LayoutScore h = score_against_layout(read, *catalog, labels);
    CHECK(h.right == 3);
    CHECK(h.missed == 2);
    // A cell labelled "?" (a tile nobody could label): a reading there is neither scored nor invented.
    auto with_unknown = labels;
    with_unknown.push_back({4, 4, kUnlabelled, 0});
    read[1].hidden = false;
    {
        const auto [x, y] = at(4, 4);
        read.push_back(read_tile(*catalog, x, y, "U", 0));
    }
    const LayoutScore u = score_against_layout(read, *catalog, with_unknown);
    CHECK(u.labelled == 6);
    CHECK(u.right == 4);
    CHECK(u.invented == 1);
    // Nothing read: everything missed.
    const LayoutScore none = score_against_layout({}, *catalog, labels);
    CHECK(none.right == 0);
    CHECK(none.missed == 6);
}

TEST_CASE("layout label files load, and bad ones name the file and the entry", "[vision][truth][bad-input]") {
    const auto catalog = test::base_catalog_for_render();
    const auto good = write_temp("meeplecam_labels_good.json", R"({"tiles": [{"at": [0, 0], "tile": "V", "rot": 90}, {"at": [1, 0], "tile": "E", "rot": 0}]})");
    const auto labels = load_layout_labels(good, *catalog);
    REQUIRE(labels);
    REQUIRE(labels->tiles.size() == 2);
    CHECK(labels->tiles[0].tile == "V");
    CHECK(labels->tiles[0].rot == 1);
    CHECK(labels->tiles[1].col == 1);
    CHECK(labels->sides_laid_wrong.empty());

    auto error_of = [&](const char* name, const std::string& text) {
        const auto r = load_layout_labels(write_temp(name, text), *catalog);
        REQUIRE_FALSE(r);
        return r.error().to_string();
    };
    CHECK_THAT(error_of("meeplecam_labels_trunc.json", R"({"tiles": [{"at": [0, 0], "ti)"), Catch::Contains("meeplecam_labels_trunc.json"));
    CHECK_THAT(error_of("meeplecam_labels_type.json", R"({"tiles": [{"at": [0, 0], "tile": "Z9", "rot": 0}]})"), Catch::Contains("tiles[0]") && Catch::Contains("Z9"));
    CHECK_THAT(error_of("meeplecam_labels_rot.json", R"({"tiles": [{"at": [0, 0], "tile": "V", "rot": 45}]})"), Catch::Contains("rot must be"));
    CHECK_THAT(error_of("meeplecam_labels_twice.json", R"({"tiles": [{"at": [0, 0], "tile": "V", "rot": 0}, {"at": [0, 0], "tile": "E", "rot": 0}]})"),
               Catch::Contains("tiles[1]") && Catch::Contains("second tile"));
    CHECK_THAT(error_of("meeplecam_labels_none.json", R"([1, 2])"), Catch::Contains("\"tiles\""));
    CHECK_THAT(error_of("meeplecam_labels_apart.json", R"({"tiles": [], "sides_laid_wrong": [[[0, 0], [2, 0]]]})"),
               Catch::Contains("sides_laid_wrong[0]") && Catch::Contains("do not touch"));
    CHECK_THAT(error_of("meeplecam_labels_side.json", R"({"tiles": [], "sides_laid_wrong": [[[0, 0]]]})"), Catch::Contains("sides_laid_wrong[0]"));
    const auto laid_wrong = load_layout_labels(write_temp("meeplecam_labels_wrong.json", R"({"tiles": [], "sides_laid_wrong": [[[4, 6], [4, 7]]]})"), *catalog);
    REQUIRE(laid_wrong);
    REQUIRE(laid_wrong->sides_laid_wrong.size() == 1);
    CHECK(laid_wrong->sides_laid_wrong[0] == std::pair{cv::Point(4, 6), cv::Point(4, 7)});
    const auto missing = load_layout_labels((std::filesystem::temp_directory_path() / "meeplecam_no_such_labels.json").string(), *catalog);
    REQUIRE_FALSE(missing);
    CHECK_THAT(missing.error().to_string(), Catch::Contains("cannot open"));
}

TEST_CASE("the shipped real-photo labels are legal base-game boards", "[vision][truth]") {
    // A label error would score the reader wrongly: every labelled board's touching sides must match.
    const auto catalog = test::base_catalog_for_render();
    const std::filesystem::path dir = std::filesystem::path(MEEPLECAM_SOURCE_DIR) / "bench" / "real_labels";
    REQUIRE(std::filesystem::is_directory(dir));
    int files = 0;
    for (const auto& entry : std::filesystem::directory_iterator(dir)) {
        const std::string name = entry.path().filename().string();
        if (name.size() < 12 || name.substr(name.size() - 12) != ".layout.json") continue;  // the tile sheets' labels are checked below
        ++files;
        INFO(entry.path().string());
        const auto labels = load_layout_labels(entry.path().string(), *catalog);
        REQUIRE(labels);
        std::map<std::pair<int, int>, const LabelledTile*> at;
        for (const auto& l : labels->tiles) {
            if (l.tile != kUnlabelled) at[{l.col, l.row}] = &l;
        }
        // Sides the players themselves laid wrong on the table (each checked by eye on the photo
        // and named in the note) must not match; every other side must.
        const auto& laid_wrong = labels->sides_laid_wrong;
        auto edge = [&](const LabelledTile& l, int side) { return catalog->find(l.tile)->edge_at(l.rot, side); };
        int pairs = 0;
        for (const auto& [cell, l_ptr] : at) {
            const LabelledTile& l = *l_ptr;
            for (const auto& [dc, dr, side] : {std::tuple{1, 0, 1}, std::tuple{0, 1, 2}}) {
                const auto it = at.find({l.col + dc, l.row + dr});
                if (it == at.end()) continue;
                ++pairs;
                INFO(l.tile << " at " << l.col << "," << l.row << " side " << side);
                const bool declared_wrong = std::count(laid_wrong.begin(), laid_wrong.end(), std::pair{cv::Point(l.col, l.row), cv::Point(l.col + dc, l.row + dr)}) > 0;
                CHECK((edge(l, side) == edge(*it->second, (side + 2) % 4)) != declared_wrong);
            }
        }
        CHECK(pairs > 0);
    }
    CHECK(files >= 1);
}

TEST_CASE("the shipped tile-sheet labels hold every base tile once", "[vision][truth]") {
    // bench/real_labels/tile_sheets.labels.json labels the 72 base tiles of the real tile sheets
    // (bench/real_scans.cpp scores the classifier on them): a label error shows as a count off.
    const auto catalog = test::base_catalog_for_render();
    const std::filesystem::path path = std::filesystem::path(MEEPLECAM_SOURCE_DIR) / "bench" / "real_labels" / "tile_sheets.labels.json";
    std::ifstream in(path);
    REQUIRE(in);
    const nlohmann::json j = nlohmann::json::parse(in);
    CHECK(j.at("format") == "meeplecam-tile-sheet-labels");
    const std::size_t cells = j.at("grid").at(0).get<std::size_t>() * j.at("grid").at(1).get<std::size_t>();
    std::map<std::string, int> counted;
    for (const auto& sheet : j.at("sheets")) {
        INFO(sheet.at("image").get<std::string>());
        REQUIRE(sheet.at("tiles").size() == cells);
        for (const auto& t : sheet.at("tiles")) {
            const std::string id = t.at("tile").get<std::string>();
            const int rot = t.at("rot").get<int>();
            CHECK((id == kUnlabelled || catalog->find(id) != nullptr));
            CHECK((rot == 0 || rot == 90 || rot == 180 || rot == 270));
            ++counted[id];
        }
    }
    for (const auto& type : catalog->tiles()) {
        INFO(type.id);
        CHECK(counted[type.id] == type.count);
    }
    CHECK(counted[kUnlabelled] == 0);
}
