// Tracker unit tests on rendered frames with a fixed camera: stable-frame detection, an
// illegal move flagged and not recorded, an ambiguity answered with choose(), a follower
// placed after its tile or with it (session/follower_on_tile.h), and a follower vanishing
// without a scoring.
#include <catch2/catch.hpp>

#include <cstdio>
#include <map>
#include <memory>
#include <set>

#include <opencv2/imgproc.hpp>

#include "engine/ports.h"
#include "engine/record.h"
#include "session/follower_on_tile.h"
#include "session/tracker.h"
#include "vision/table_renderer.h"

using namespace meeplecam;

namespace {

// A fixed camera over a fixed set of cells; renders scenes of tiles of the base catalog.
class TableCamera {
public:
    TableCamera(std::vector<Cell> cells, std::uint64_t seed) {
        Record r;
        r.players = {{"red", "red"}, {"blue", "blue"}};
        catalog_ = catalog_for(r).value();
        options_ = vision::RenderOptions::for_difficulty(vision::Difficulty::Easy);
        options_.width = 960;
        options_.height = 540;
        options_.gap_mm = {1.0, 1.0};
        options_.scene_seed = seed;
        options_.layout_cells = std::move(cells);
        options_.hand_chance = 0;
        const auto first = vision::render_table(scene({{"D", {0, 0}, 0}}), options_, 1);
        REQUIRE(first.has_value());
        const cv::Point2d o = first->truth.board_origin_mm;
        image_to_table_ = cv::Matx33d(1, 0, -o.x, 0, 1, -o.y, 0, 0, 1) * first->truth.table_to_image.inv();
        gap_mm_ = first->truth.gap_mm;
    }

    struct Tile {
        std::string id;
        Cell at;
        int rot;
    };
    struct Piece {
        Cell at;
        std::string loc;  // board port of the follower
        std::string colour;
    };

    // Builds a scene from tile ids and followers (followers by board port).
    vision::Scene scene(const std::vector<Tile>& tiles, const std::vector<Piece>& pieces = {}) const {
        vision::Scene s;
        for (const auto& t : tiles) s.tiles.push_back({catalog_->find(t.id), t.at, t.rot, nullptr});
        for (const auto& p : pieces) {
            for (const auto& t : s.tiles) {
                if (t.at == p.at) {
                    const Port port = parse_port(p.loc).value();
                    s.pieces.push_back({p.at, t.type->feature_at(port, t.rot), p.colour, port});
                }
            }
        }
        return s;
    }
    // Renders one frame of `s`; `hand_at` puts a hand over that cell.
    cv::Mat shoot(const vision::Scene& s, std::optional<Cell> hand_at = std::nullopt) {
        vision::RenderOptions o = options_;
        o.hand_chance = hand_at ? 1.0 : 0.0;
        o.hand_cell = hand_at;
        auto r = vision::render_table(s, o, ++frame_seed_);
        REQUIRE(r.has_value());
        return r->image;
    }
    session::TrackerOptions tracker_options() const {
        session::TrackerOptions t;
        t.gap_mm = gap_mm_;
        return t;
    }
    const cv::Matx33d& image_to_table() const { return image_to_table_; }

private:
    std::shared_ptr<const Catalog> catalog_;
    vision::RenderOptions options_;
    cv::Matx33d image_to_table_;
    double gap_mm_ = 1.0;
    std::uint64_t frame_seed_ = 100;
};

Record two_player_setup() {
    Record r;
    r.players = {{"red", "red"}, {"blue", "blue"}};
    Event start;
    start.type = "tile";
    start.tile = "D";
    r.events.push_back(start);
    return r;
}

// Feeds `frame` n times; returns the updates.
std::vector<session::TrackerUpdate> feed(session::Tracker& t, const cv::Mat& frame, int n) {
    std::vector<session::TrackerUpdate> out;
    for (int i = 0; i < n; ++i) out.push_back(t.on_frame(frame));
    return out;
}

const session::TrackerUpdate* analysed(const std::vector<session::TrackerUpdate>& ups) {
    for (const auto& u : ups) {
        if (u.analysed) return &u;
    }
    return nullptr;
}

}  // namespace

TEST_CASE("tracker: a frame is read once, after stable_frames still frames, and not while a hand moves", "[session]") {
    TableCamera cam({{0, 0}, {1, 0}, {0, 1}}, 21);
    auto tracker = session::Tracker::create(two_player_setup(), cam.tracker_options(), cam.image_to_table());
    REQUIRE(tracker.has_value());
    const cv::Mat start = cam.shoot(cam.scene({{"D", {0, 0}, 0}}));
    const int need = tracker->options().stable_frames;
    auto ups = feed(*tracker, start, need + 2);
    for (int i = 0; i + 1 < need; ++i) CHECK(ups[static_cast<std::size_t>(i)].state == session::FrameState::Moving);
    CHECK(ups[static_cast<std::size_t>(need - 1)].state == session::FrameState::Stable);
    CHECK(ups[static_cast<std::size_t>(need - 1)].analysed);
    CHECK_FALSE(ups[static_cast<std::size_t>(need)].analysed);  // read once per stillness

    // A hand reaching in: every frame differs from the last, so nothing is read.
    const auto after = cam.scene({{"D", {0, 0}, 0}, {"V", {1, 0}, 0}});
    for (double reach : {0.4, 0.7, 1.0}) {
        (void)reach;
        const auto u = tracker->on_frame(cam.shoot(after, Cell{1, 0}));
        CHECK(u.state == session::FrameState::Moving);
        CHECK_FALSE(u.analysed);
    }
    CHECK(tracker->record().events.size() == 1);
    // The hand gone, the new tile is read once the table is still again.
    const cv::Mat placed = cam.shoot(after);
    ups = feed(*tracker, placed, need + 2);
    const auto* read = analysed(ups);
    REQUIRE(read != nullptr);
    REQUIRE(read->committed.size() == 1);
    CHECK(read->committed[0].tile == "V");
    CHECK(read->committed[0].at == Cell{1, 0});
    CHECK(read->committed[0].rot == 0);
    CHECK(read->committed[0].player == "red");
}

TEST_CASE("tracker: a tile that breaks a rule is flagged with the engine's reason and not recorded", "[session]") {
    TableCamera cam({{0, 0}, {1, 0}}, 22);
    auto tracker = session::Tracker::create(two_player_setup(), cam.tracker_options(), cam.image_to_table());
    REQUIRE(tracker.has_value());
    feed(*tracker, cam.shoot(cam.scene({{"D", {0, 0}, 0}})), 4);
    // U turned 0: a road north-south, so its west side (field) faces D's road.
    const auto ups = feed(*tracker, cam.shoot(cam.scene({{"D", {0, 0}, 0}, {"U", {1, 0}, 0}})), 4);
    const auto* read = analysed(ups);
    REQUIRE(read != nullptr);
    REQUIRE(read->illegal.has_value());
    CHECK(read->illegal->move.tile == "U");
    CHECK(read->illegal->move.at == Cell{1, 0});
    CHECK(read->illegal->rule.find("road") != std::string::npos);
    CHECK(read->committed.empty());
    CHECK(tracker->record().events.size() == 1);
    CHECK(tracker->game().board().size() == 1);
}

TEST_CASE("tracker: a tile laid against one read as illegal means play went on, not a hand", "[session]") {
    TableCamera cam({{0, 0}, {1, 0}, {2, 0}}, 22);
    auto tracker = session::Tracker::create(two_player_setup(), cam.tracker_options(), cam.image_to_table());
    REQUIRE(tracker.has_value());
    feed(*tracker, cam.shoot(cam.scene({{"D", {0, 0}, 0}})), 4);
    const std::vector<TableCamera::Tile> two = {{"D", {0, 0}, 0}, {"U", {1, 0}, 0}};
    const auto first = feed(*tracker, cam.shoot(cam.scene(two)), 4);
    REQUIRE(analysed(first) != nullptr);
    REQUIRE(analysed(first)->illegal.has_value());  // as above: U's field faces D's road
    // Nobody takes it back: the next player lays a tile against it, off the board as recorded.
    std::vector<TableCamera::Tile> three = two;
    three.push_back({"V", {2, 0}, 1});
    const auto second = feed(*tracker, cam.shoot(cam.scene(three)), 4);
    const auto* read = analysed(second);
    REQUIRE(read != nullptr);
    for (const auto& n : read->notes) UNSCOPED_INFO(n);
    CHECK(read->state == session::FrameState::Stable);  // not "a hand"
    // The illegal cell is read again, as its best legal placement: committed, or asked.
    if (read->committed.empty()) {
        REQUIRE(!read->ambiguity.empty());
        CHECK(read->ambiguity[0].at == Cell{1, 0});
        REQUIRE(tracker->choose(0).has_value());
    } else {
        CHECK(read->committed[0].at == Cell{1, 0});
    }
    CHECK(tracker->game().board().size() == 2);
    // The tile laid against it is read after the next hand (the tracker is not stuck behind the refusal).
    feed(*tracker, cam.shoot(cam.scene(three), Cell{2, 0}), 2);
    const auto third = feed(*tracker, cam.shoot(cam.scene(three)), 4);
    const auto* next = analysed(third);
    REQUIRE(next != nullptr);
    const bool read_there = (!next->committed.empty() && next->committed[0].at == Cell{2, 0}) ||
                            (!next->ambiguity.empty() && next->ambiguity[0].at == Cell{2, 0}) ||
                            (next->illegal && next->illegal->move.at == Cell{2, 0});
    CHECK(read_there);
}

TEST_CASE("tracker: a wrong answer to an ambiguity is re-read when the next tile reads legal only under the right one", "[session]") {
    TableCamera cam({{0, 0}, {1, 0}, {1, -1}}, 23);
    session::TrackerOptions opt = cam.tracker_options();
    opt.commit_margin = 1000;  // never sure enough: always ask
    opt.max_candidates = 12;   // every legal reading listed, so the players can pick one without the city (the first five all show it)
    auto tracker = session::Tracker::create(two_player_setup(), opt, cam.image_to_table());
    REQUIRE(tracker.has_value());
    const auto catalog_owner = catalog_for(tracker->record()).value();  // the tracker's game is replaced when it re-reads
    const Catalog& catalog = *catalog_owner;
    // A board side (0 N, 1 E, 2 S, 3 W) of `id` turned `rot`.
    auto edge = [&](const std::string& id, int rot, int side) { return catalog.find(id)->edges[static_cast<std::size_t>((side - rot + 8) % 4)]; };
    REQUIRE(edge("D", 0, 1) == EdgeKind::Road);
    REQUIRE(edge("D", 0, 0) == EdgeKind::City);
    // Red lays another D at [1, 0], its road on the start tile's, its city to the north.
    feed(*tracker, cam.shoot(cam.scene({{"D", {0, 0}, 0}})), 4);
    const std::vector<TableCamera::Tile> two = {{"D", {0, 0}, 0}, {"D", {1, 0}, 0}};
    const auto first_ups = feed(*tracker, cam.shoot(cam.scene(two)), 4);
    const auto* first = analysed(first_ups);
    REQUIRE(first != nullptr);
    REQUIRE(first->ambiguity.size() >= 2);
    // The players answer wrong: a candidate without a city on its north side.
    int wrong = -1;
    for (std::size_t i = 0; i < first->ambiguity.size() && wrong < 0; ++i) {
        const auto& c = first->ambiguity[i];
        if (edge(c.tile, c.rot, 0) != EdgeKind::City) wrong = static_cast<int>(i);
    }
    std::string offered;
    for (const auto& c : first->ambiguity) offered += " | " + c.tile + " " + std::to_string(c.rot * 90);
    INFO("asked" << offered);
    REQUIRE(wrong >= 0);
    const std::string wrong_tile = first->ambiguity[static_cast<std::size_t>(wrong)].tile;
    REQUIRE(tracker->choose(wrong).has_value());
    // Blue lays the all-city tile at [1, -1] on the D's city: illegal against what was recorded
    // there, legal against the tile on the table.
    std::vector<TableCamera::Tile> three = two;
    three.push_back({"C", {1, -1}, 0});
    const auto second_ups = feed(*tracker, cam.shoot(cam.scene(three)), 4);
    const auto* second = analysed(second_ups);
    REQUIRE(second != nullptr);
    std::string seen;
    for (const auto& c : second->ambiguity) seen += " | asked " + c.tile + " " + std::to_string(c.rot * 90) + " at " + to_string(c.at);
    for (const auto& n : second->notes) seen += " | " + n;
    INFO("answered " << wrong_tile << seen);
    CHECK_FALSE(second->illegal.has_value());
    const Event& recorded = tracker->record().events[1];
    CHECK(recorded.tile == "D");
    CHECK(edge(recorded.tile, recorded.rot, 0) == EdgeKind::City);
    REQUIRE_FALSE(tracker->corrections().empty());
    CHECK(tracker->corrections().back().find("re-read") != std::string::npos);
    // The all-city tile is read now (asked, as every move here).
    REQUIRE_FALSE(second->ambiguity.empty());
    CHECK(second->ambiguity[0].tile == "C");
    CHECK(second->ambiguity[0].at == Cell{1, -1});
}

TEST_CASE("tracker: an ambiguity lists the legal candidates and choose() records the players' answer", "[session]") {
    TableCamera cam({{0, 0}, {1, 0}}, 23);
    session::TrackerOptions opt = cam.tracker_options();
    opt.commit_margin = 1000;  // never sure enough: always ask
    auto tracker = session::Tracker::create(two_player_setup(), opt, cam.image_to_table());
    REQUIRE(tracker.has_value());
    CHECK_FALSE(tracker->choose(0).has_value());  // nothing asked yet
    feed(*tracker, cam.shoot(cam.scene({{"D", {0, 0}, 0}})), 4);
    const auto ups = feed(*tracker, cam.shoot(cam.scene({{"D", {0, 0}, 0}, {"V", {1, 0}, 0}})), 4);
    const auto* read = analysed(ups);
    REQUIRE(read != nullptr);
    REQUIRE(read->ambiguity.size() >= 2);
    CHECK(read->committed.empty());
    CHECK(ups.back().ambiguity.size() == read->ambiguity.size());  // the question stays open
    int truth = -1;
    for (std::size_t i = 0; i < read->ambiguity.size(); ++i) {
        const auto& c = read->ambiguity[i];
        CHECK(c.at == Cell{1, 0});
        if (c.tile == "V" && c.rot == 0) truth = static_cast<int>(i);
    }
    REQUIRE(truth >= 0);
    CHECK(read->ambiguity[0].tile == "V");  // the classifier ranks the true tile first
    CHECK_FALSE(tracker->choose(static_cast<int>(read->ambiguity.size())).has_value());  // out of range
    REQUIRE(tracker->choose(truth).has_value());
    REQUIRE(tracker->record().events.size() == 2);
    CHECK(tracker->record().events[1].tile == "V");
    CHECK(tracker->record().events[1].rot == 0);
    CHECK_FALSE(tracker->choose(0).has_value());  // answered
}

TEST_CASE("tracker: a follower placed after its tile is recorded on its feature / one vanishing unscored is reported",
          "[session]") {
    TableCamera cam({{0, 0}, {1, 0}, {0, 1}}, 24);
    auto tracker = session::Tracker::create(two_player_setup(), cam.tracker_options(), cam.image_to_table());
    REQUIRE(tracker.has_value());
    // E turned twice: its city faces south, its field meets D's field.
    const auto tiles = std::vector<TableCamera::Tile>{{"D", {0, 0}, 0}, {"E", {0, 1}, 2}};
    feed(*tracker, cam.shoot(cam.scene({{"D", {0, 0}, 0}})), 4);
    feed(*tracker, cam.shoot(cam.scene(tiles)), 4);
    REQUIRE(tracker->record().events.size() == 2);
    // A red follower on E's city.
    const auto ups = feed(*tracker, cam.shoot(cam.scene(tiles, {{{0, 1}, "S", "red"}})), 4);
    const auto* read = analysed(ups);
    REQUIRE(read != nullptr);
    REQUIRE(read->committed.size() == 1);
    CHECK(read->committed[0].type == "meeple");
    const TileType* e = tracker->game().catalog().find("E");
    const auto port = parse_port(read->committed[0].loc);
    REQUIRE(port.has_value());
    CHECK(e->features[static_cast<std::size_t>(e->feature_at(*port, 2))].kind == FeatureKind::City);
    CHECK(read->committed[0].player == "red");
    // Taken off without any scoring: reported, nothing recorded.
    const auto gone = feed(*tracker, cam.shoot(cam.scene(tiles)), 4);
    const auto* again = analysed(gone);
    REQUIRE(again != nullptr);
    REQUIRE(again->removed_by_mistake.size() == 1);
    CHECK(again->removed_by_mistake[0].at == Cell{0, 1});
    CHECK(again->removed_by_mistake[0].colour == "red");
    CHECK(tracker->record().events.size() == 3);
}

TEST_CASE("tracker: a follower put down with its tile is read with it, and the tile without it", "[session][follower-with-tile]") {
    TableCamera cam({{0, 0}, {1, 0}, {0, 1}}, 24);
    // E turned twice: its city faces south, its field meets D's field; a red follower on its city
    // comes in the same move.
    const auto tiles = std::vector<TableCamera::Tile>{{"D", {0, 0}, 0}, {"E", {0, 1}, 2}};
    const cv::Mat bare = cam.shoot(cam.scene({{"D", {0, 0}, 0}}));
    const cv::Mat with_follower = cam.shoot(cam.scene(tiles, {{{0, 1}, "S", "red"}}));
    for (const bool read_with_tile : {true, false}) {
        INFO("read_follower_with_tile " << read_with_tile);
        session::TrackerOptions options = cam.tracker_options();
        options.read_follower_with_tile = read_with_tile;
        auto tracker = session::Tracker::create(two_player_setup(), options, cam.image_to_table());
        REQUIRE(tracker.has_value());
        feed(*tracker, bare, 4);
        const auto ups = feed(*tracker, with_follower, 4);
        const auto* read = analysed(ups);
        REQUIRE(read != nullptr);
        REQUIRE(!read->committed.empty());
        CHECK(read->committed[0].type == "tile");
        CHECK(read->committed[0].tile == "E");
        if (!read_with_tile) {
            CHECK(read->committed.size() == 1);  // the follower is not looked for
            continue;
        }
        for (const auto& n : read->notes) UNSCOPED_INFO(n);
        REQUIRE(read->committed.size() == 2);
        CHECK(read->committed[1].type == "meeple");
        CHECK(read->committed[1].player == "red");
        const TileType* e = tracker->game().catalog().find("E");
        const auto port = parse_port(read->committed[1].loc);
        REQUIRE(port.has_value());
        CHECK(e->features[static_cast<std::size_t>(e->feature_at(*port, 2))].kind == FeatureKind::City);
    }
}

TEST_CASE("tracker: a follower painted over the only pennant leaves the pennant twins to the players", "[session][follower-with-tile]") {
    TableCamera cam({{0, 0}, {1, 0}, {0, 1}}, 24);
    session::TrackerOptions options = cam.tracker_options();
    auto tracker = session::Tracker::create(two_player_setup(), options, cam.image_to_table());
    REQUIRE(tracker.has_value());
    const auto catalog_owner = catalog_for(tracker->record()).value();
    const TileType* m = catalog_owner->find("M");
    // M (a corner city with a pennant) below D, its field facing D's field; a red follower on
    // its city stands where the art draws the pennant.
    int rot = -1;
    for (int r = 0; r < 4 && rot < 0; ++r) {
        if (m->edges[static_cast<std::size_t>((0 - r + 8) % 4)] == EdgeKind::Field && m->edges[static_cast<std::size_t>((2 - r + 8) % 4)] == EdgeKind::City) rot = r;
    }
    REQUIRE(rot >= 0);
    std::string city_port;
    for (int p = 0; p < kCentre && city_port.empty(); ++p) {
        const int f = m->feature_at(static_cast<Port>(p), rot);
        if (f >= 0 && m->features[static_cast<std::size_t>(f)].kind == FeatureKind::City) city_port = port_name(static_cast<Port>(p));
    }
    const auto tiles = std::vector<TableCamera::Tile>{{"D", {0, 0}, 0}, {"M", {0, 1}, rot}};
    feed(*tracker, cam.shoot(cam.scene({{"D", {0, 0}, 0}})), 4);
    const auto ups = feed(*tracker, cam.shoot(cam.scene(tiles, {{{0, 1}, city_port, "red"}})), 4);
    const auto* read = analysed(ups);
    REQUIRE(read != nullptr);
    std::string notes;
    for (const auto& n : read->notes) notes += " | " + n;
    INFO(notes);
    // Asked, the twins tied at the top; not committed as the pennantless N.
    REQUIRE(read->ambiguity.size() >= 2);
    CHECK(read->committed.empty());
    std::set<std::string> top{read->ambiguity[0].tile, read->ambiguity[1].tile};
    CHECK(top == std::set<std::string>{"M", "N"});
    CHECK(notes.find("not told apart") != std::string::npos);
}

TEST_CASE("tracker: an answered ambiguity keeps the follower that came with its tile, though the last tile's follower came in the same frame",
          "[session][follower-with-tile]") {
    TableCamera cam({{0, 0}, {0, 1}, {1, 1}}, 25);
    session::TrackerOptions options = cam.tracker_options();
    options.commit_margin = 1000;  // never sure enough: every tile is asked
    auto tracker = session::Tracker::create(two_player_setup(), options, cam.image_to_table());
    REQUIRE(tracker.has_value());
    // Red lays E (city south) below the start tile and is asked which tile it is.
    const std::vector<TableCamera::Tile> two = {{"D", {0, 0}, 0}, {"E", {0, 1}, 2}};
    feed(*tracker, cam.shoot(cam.scene({{"D", {0, 0}, 0}})), 4);
    const auto first = feed(*tracker, cam.shoot(cam.scene(two)), 4);
    const auto* asked = analysed(first);
    REQUIRE(asked != nullptr);
    int truth = -1;
    for (std::size_t i = 0; i < asked->ambiguity.size(); ++i) {
        if (asked->ambiguity[i].tile == "E" && asked->ambiguity[i].rot == 2) truth = static_cast<int>(i);
    }
    REQUIRE(truth >= 0);
    REQUIRE(tracker->choose(truth).has_value());
    // In one frame: red's follower on E's city, and blue's monastery beside E with a blue monk.
    std::vector<TableCamera::Tile> three = two;
    three.push_back({"B", {1, 1}, 0});
    const auto second = feed(*tracker, cam.shoot(cam.scene(three, {{{0, 1}, "S", "red"}, {{1, 1}, "C", "blue"}})), 4);
    const auto* read = analysed(second);
    REQUIRE(read != nullptr);
    for (const auto& n : read->notes) UNSCOPED_INFO(n);
    REQUIRE(!read->committed.empty());
    CHECK(read->committed[0].type == "meeple");  // red's, on the tile laid before
    CHECK(read->committed[0].player == "red");
    REQUIRE(!read->ambiguity.empty());
    int monastery = -1;
    for (std::size_t i = 0; i < read->ambiguity.size(); ++i) {
        if (read->ambiguity[i].tile == "B") monastery = static_cast<int>(i);
    }
    REQUIRE(monastery >= 0);
    const auto taken = tracker->choose(monastery);
    REQUIRE(taken.has_value());
    for (const auto& n : taken->notes) UNSCOPED_INFO(n);
    REQUIRE(taken->committed.size() == 2);  // the tile, and the monk read on it
    CHECK(taken->committed[0].tile == "B");
    CHECK(taken->committed[1].type == "meeple");
    CHECK(taken->committed[1].player == "blue");
    CHECK(taken->committed[1].loc == "C");
}

TEST_CASE("a follower's blob is found by its colour, not in art of that colour, and painted over", "[session][follower-with-tile]") {
    // A 90 px tile square in float Lab: green grass, a brown city band along the top.
    const cv::Vec3f grass(55, -35, 40), city(60, 15, 35), red(45, 60, 40);
    cv::Mat lab(90, 90, CV_32FC3, cv::Scalar(grass[0], grass[1], grass[2]));
    lab(cv::Rect(0, 0, 90, 25)).setTo(cv::Scalar(city[0], city[1], city[2]));
    const vision::ColourModels models = vision::ColourModels::daylight();  // the models the pointers below point into
    const vision::ColourModel* red_model = models.find("red");
    const vision::ColourModel* green_model = models.find("green");
    REQUIRE(red_model != nullptr);
    REQUIRE(green_model != nullptr);
    SECTION("no follower: nothing") { CHECK_FALSE(session::find_follower_by_colour(lab, *red_model).has_value()); }
    SECTION("a red follower (a 24x18 px body) is found where it stands") {
        cv::rectangle(lab, cv::Rect(50, 40, 18, 24), cv::Scalar(red[0], red[1], red[2]), cv::FILLED);
        const auto blob = session::find_follower_by_colour(lab, *red_model);
        REQUIRE(blob.has_value());
        CHECK(blob->centroid.x == Approx(58.5).margin(1.0));
        CHECK(blob->centroid.y == Approx(51.5).margin(1.0));
        CHECK(blob->share == Approx(18.0 * 24 / (90 * 90)).epsilon(0.15));
        // Pixels that did not change since the tile came (a neighbour's follower leaning over) are not looked at.
        const cv::Mat unchanged(lab.size(), CV_8UC1, cv::Scalar(0));
        CHECK_FALSE(session::find_follower_by_colour(lab, *red_model, {}, unchanged).has_value());
    }
    SECTION("red art smaller than a follower (a roof, a pennant) is no follower") {
        cv::rectangle(lab, cv::Rect(20, 5, 9, 9), cv::Scalar(red[0], red[1], red[2]), cv::FILLED);
        cv::rectangle(lab, cv::Rect(60, 8, 10, 8), cv::Scalar(red[0], red[1], red[2]), cv::FILLED);
        CHECK_FALSE(session::find_follower_by_colour(lab, *red_model).has_value());
    }
    SECTION("a green follower on green grass cannot be told: nothing is found") {
        const cv::Vec3f green(55, -50, 43);
        cv::Mat meadow(90, 90, CV_32FC3, cv::Scalar(green[0], green[1] + 3, green[2] - 2));
        cv::rectangle(meadow, cv::Rect(50, 40, 18, 24), cv::Scalar(green[0], green[1], green[2]), cv::FILLED);
        CHECK_FALSE(session::find_follower_by_colour(meadow, *green_model).has_value());
    }
    SECTION("painting over takes the colour of the surroundings") {
        cv::Mat bgr(90, 90, CV_8UC3, cv::Scalar(40, 160, 90));
        cv::rectangle(bgr, cv::Rect(50, 40, 18, 24), cv::Scalar(30, 30, 200), cv::FILLED);
        cv::Mat mask(bgr.size(), CV_8UC1, cv::Scalar(0));
        cv::rectangle(mask, cv::Rect(50, 40, 18, 24), cv::Scalar(255), cv::FILLED);
        const cv::Mat cleared = session::clear_follower(bgr, mask);
        const cv::Vec3b centre = cleared.at<cv::Vec3b>(52, 59);
        CHECK(std::abs(centre[0] - 40) <= 6);
        CHECK(std::abs(centre[1] - 160) <= 6);
        CHECK(std::abs(centre[2] - 90) <= 6);
    }
}

TEST_CASE("tracker: bad set-up and options are refused with a reason", "[session]") {
    session::TrackerOptions opt;
    opt.stable_frames = 0;
    CHECK_FALSE(opt.check().has_value());
    CHECK(opt.check().error().message.find("stable_frames") != std::string::npos);
    Record empty;
    empty.players = {{"red", "red"}};
    CHECK_FALSE(session::Tracker::create(empty, {}, cv::Matx33d::eye()).has_value());
    CHECK_FALSE(session::Tracker::create(two_player_setup(), {}, cv::Matx33d::zeros()).has_value());
}

namespace {

// The frame as a camera nudged by `dx`, `dy` pixels and turned `deg` degrees about the frame's
// centre sees it (the table and tiles stay put).
cv::Mat nudged(const cv::Mat& frame, double dx, double dy, double deg) {
    cv::Mat m = cv::getRotationMatrix2D(cv::Point2f(static_cast<float>(frame.cols) / 2, static_cast<float>(frame.rows) / 2), deg, 1.0);
    m.at<double>(0, 2) += dx;
    m.at<double>(1, 2) += dy;
    cv::Mat out;
    cv::warpAffine(frame, out, m, frame.size(), cv::INTER_LINEAR, cv::BORDER_REPLICATE);
    return out;
}

}  // namespace

TEST_CASE("tracker: a camera nudged between moves is followed, and the move still read", "[session][camera-moved]") {
    TableCamera cam({{-1, 0}, {0, 0}, {1, 0}, {0, 1}, {0, -1}}, 25);
    const auto start = cam.scene({{"D", {0, 0}, 0}});
    const auto after = cam.scene({{"D", {0, 0}, 0}, {"V", {1, 0}, 0}});
    const auto later = cam.scene({{"D", {0, 0}, 0}, {"V", {1, 0}, 0}, {"E", {0, 1}, 2}});
    for (const bool follow : {true, false}) {
        INFO((follow ? "following the camera" : "a fixed camera assumed"));
        session::TrackerOptions opt = cam.tracker_options();
        opt.follow_camera = follow;
        auto tracker = session::Tracker::create(two_player_setup(), opt, cam.image_to_table());
        REQUIRE(tracker.has_value());
        feed(*tracker, cam.shoot(start), 4);
        // The camera was bumped while V was put down: ~5 mm and 1.5 degrees at this scale.
        auto ups = feed(*tracker, nudged(cam.shoot(after), 9, -6, 1.5), 4);
        const auto* read = analysed(ups);
        REQUIRE(read != nullptr);
        if (!follow) {
            CHECK(read->state == session::FrameState::Occluded);  // the whole table looks changed
            CHECK(tracker->record().events.size() == 1);
            continue;
        }
        bool noted = false;
        for (const auto& n : read->notes) noted = noted || n.find("the camera moved") != std::string::npos;
        CHECK(noted);
        REQUIRE(read->committed.size() == 1);
        CHECK(read->committed[0].tile == "V");
        CHECK(read->committed[0].at == Cell{1, 0});
        CHECK(read->committed[0].rot == 0);
        // Bumped again the other way; E comes down south of D.
        ups = feed(*tracker, nudged(cam.shoot(later), -4, 7, -1.0), 4);
        read = analysed(ups);
        REQUIRE(read != nullptr);
        REQUIRE(read->committed.size() == 1);
        CHECK(read->committed[0].tile == "E");
        CHECK(read->committed[0].at == Cell{0, 1});
        CHECK(read->committed[0].rot == 2);
        // Still, unmoved: nothing new, no movement noted.
        ups = feed(*tracker, nudged(cam.shoot(later), -4, 7, -1.0), 4);
        for (const auto& u : ups) {
            for (const auto& n : u.notes) CHECK(n.find("the camera moved") == std::string::npos);
        }
        CHECK(tracker->record().events.size() == 3);
    }
}

TEST_CASE("tracker: a plane that drifts away from the start tile is refitted to the placed tiles", "[session][refit-plane]") {
    TableCamera cam({{-1, 0}, {0, 0}, {1, 0}, {2, 0}, {3, 0}, {4, 0}, {0, 1}, {0, -1}}, 26);
    // A plane as the start tile alone gives it: right at the start tile, off farther out (here
    // 6 % too large a scale and a slight skew: ~3 mm one cell out, ~9 mm three cells out).
    const cv::Matx33d drift(1.06, 0.02, 0, -0.01, 1.05, 0, 0, 0, 1);
    const cv::Matx33d drifted = drift * cam.image_to_table();
    std::vector<TableCamera::Tile> tiles = {{"D", {0, 0}, 0}};
    std::map<bool, int> right;
    std::map<bool, double> far_error;
    const double pitch = cam.tracker_options().tile_mm + cam.tracker_options().gap_mm;
    for (const bool refit : {false, true}) {
        session::TrackerOptions opt = cam.tracker_options();
        opt.refit_plane = refit;
        opt.refit_min_tiles = 2;
        auto tracker = session::Tracker::create(two_player_setup(), opt, drifted);
        REQUIRE(tracker.has_value());
        std::vector<TableCamera::Tile> down = tiles;
        feed(*tracker, cam.shoot(cam.scene(down)), 4);
        bool refitted = false;
        for (int x = 1; x <= 4; ++x) {
            down.push_back({"U", {x, 0}, 1});  // a straight road east-west
            const auto ups = feed(*tracker, cam.shoot(cam.scene(down)), 4);
            for (const auto& u : ups) {
                for (const auto& n : u.notes) refitted = refitted || n.find("table plane refitted") != std::string::npos;
                if (!u.ambiguity.empty()) REQUIRE(tracker->choose(0).has_value());  // as a player would, the first offer
            }
        }
        const auto& events = tracker->record().events;
        int ok = 0;
        for (std::size_t i = 1; i < events.size(); ++i) ok += events[i].tile == "U" && events[i].rot % 2 == 1 && events[i].at == Cell{static_cast<int>(i), 0};
        right[refit] = ok;
        // How far the tracker's mapping puts the far tile's centre (4 cells out) from the truth.
        const cv::Point2d far_px = [&] {
            const cv::Vec3d v = cam.image_to_table().inv() * cv::Vec3d(4 * pitch, 0, 1);
            return cv::Point2d(v[0] / v[2], v[1] / v[2]);
        }();
        const cv::Vec3d m = tracker->image_to_table() * cv::Vec3d(far_px.x, far_px.y, 1);
        far_error[refit] = cv::norm(cv::Point2d(m[0] / m[2], m[1] / m[2]) - cv::Point2d(4 * pitch, 0));
        std::printf("drifting plane, refit %s: %d of 4 road tiles recorded right; 4 cells out the mapping is off by %.2f mm%s\n",
                    refit ? "on" : "off", ok, far_error[refit], refitted ? " (refitted)" : "");
        CHECK(refitted == refit);
    }
    CHECK(right[true] == 4);
    CHECK(far_error[false] > 8.0);  // the drift as given
    CHECK(far_error[true] < 1.5);
}
