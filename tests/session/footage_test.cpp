// The tracker on rendered footage of scripted games (hands coming and going, light drifting, a
// follower knocked aside and put back): the recorded match equals the script and the final
// scores match — a whole game (played until the bag is empty) per Carcassonne expansion mix:
// base, Bridges-Castles-Bazaars and Ferries, plus shorter games of the last two. 960x540 frames
// and few frames per move keep a whole game near 70 s of CPU; scripts/session_accuracy.sh gives
// the rate over many seeds.
#include <catch2/catch.hpp>

#include <algorithm>
#include <map>
#include <optional>
#include <vector>

#include "engine/ports.h"
#include "engine/random_game.h"
#include "engine/record.h"
#include "session/footage.h"
#include "session/tracker.h"
#include "tests/engine/replay_fixtures.h"

using namespace meeplecam;

namespace {

struct Outcome {
    Record script;
    Record recorded;
    std::vector<int> script_scores, recorded_scores;
    int ambiguities = 0, illegal = 0, removed_by_mistake = 0, frames = 0;
    std::vector<std::string> problems;
    std::map<std::size_t, std::string> reading;  // per recorded event: the frame and notes of the reading that committed it
};


// Plays a seeded random game, renders it as footage and tracks it. Events a camera cannot
// see are entered where the footage says the players enter them; ambiguities are answered
// with the tracker's first candidate (as a headless run does), so a wrong guess shows.
// With `follower_with_tile`, each follower comes down in the same move as its tile (one hand,
// no still frame between); the tracker reads it with the tile (its default options).
Outcome track_scripted_game(std::uint64_t seed, std::vector<std::string> expansions, int tiles, bool follower_with_tile = false) {
    constexpr int kStableFrames = 2;  // still frames the tracker waits for (the first still frame still differs from the hand's)
    RandomGameOptions ro;
    ro.seed = seed;
    ro.max_tiles = tiles;
    ro.expansions = std::move(expansions);
    auto played = play_random_game(nullptr, ro);
    REQUIRE(played.has_value());
    // A whole game: every tile of the mix was drawn (placed, or discarded as the rules say).
    if (tiles < 0) REQUIRE(played->game.tiles_left() == 0);
    Outcome out;
    out.script = played->record;
    out.script_scores = played->game.scores();

    session::FootageOptions fo;
    fo.seed = seed;
    fo.width = 960;
    fo.height = 540;
    fo.approach_frames = 1;
    fo.leave_frames = 1;
    fo.still_frames = kStableFrames + 1;
    fo.follower_with_tile = follower_with_tile;
    Record setup = out.script;
    setup.events.resize(1);
    setup.finished = false;
    std::optional<session::Tracker> tracker;
    auto sink = [&](const session::FootageFrame& f, const cv::Mat& image, const session::FootageCamera& camera) -> Status {
        if (!tracker) {
            session::TrackerOptions topt;
            topt.tile_mm = camera.tile_mm;
            topt.gap_mm = camera.gap_mm;
            topt.stable_frames = kStableFrames;
            auto made = session::Tracker::create(setup, topt, camera.image_to_table_mm);
            if (!made) return made.error();
            tracker.emplace(std::move(made).value());
        }
        for (const int i : f.enter_before) {
            if (auto st = tracker->record_event(out.script.events[static_cast<std::size_t>(i)]); !st) {
                out.problems.push_back("frame " + std::to_string(f.index) + ": entering event " + std::to_string(i) + ": " +
                                       st.error().to_string());
            }
        }
        const auto up = tracker->on_frame(image);
        ++out.frames;
        if (up.analysed) {
            std::string notes = "frame " + std::to_string(f.index) + ":";
            for (const auto& n : up.notes) notes += " | " + n;
            const std::size_t first = tracker->record().events.size() - up.committed.size();
            for (std::size_t k = first; k < tracker->record().events.size(); ++k) out.reading[k] = notes;
        }
        if (up.illegal) {
            ++out.illegal;
            out.problems.push_back("frame " + std::to_string(f.index) + ": illegal " + up.illegal->move.tile + " at " +
                                   to_string(up.illegal->move.at) + ": " + up.illegal->rule);
        }
        if (up.analysed && !up.ambiguity.empty()) {
            ++out.ambiguities;
            if (auto st = tracker->choose(0); !st) out.problems.push_back(st.error().to_string());
        }
        out.removed_by_mistake += static_cast<int>(up.removed_by_mistake.size());
        return Ok{};
    };
    auto camera = session::render_footage(out.script, fo, sink);
    REQUIRE(camera.has_value());
    REQUIRE(tracker.has_value());
    REQUIRE(tracker->finish().has_value());
    out.recorded = tracker->record();
    out.recorded_scores = tracker->game().scores();
    return out;
}

void check_same_match(const Outcome& o) {
    INFO("frames " << o.frames << ", ambiguities " << o.ambiguities << ", illegal " << o.illegal);
    for (const auto& p : o.problems) UNSCOPED_INFO(p);
    // The first event that differs names the misread move; the rest follows from it.
    for (std::size_t i = 0; i < std::min(o.script.events.size(), o.recorded.events.size()); ++i) {
        INFO("event " << i);
        const auto read = o.reading.find(i);
        INFO("read at " << (read == o.reading.end() ? std::string("(entered or chosen)") : read->second));
        REQUIRE(o.recorded.events[i].to_json() == o.script.events[i].to_json());
    }
    REQUIRE(o.recorded.events.size() == o.script.events.size());
    CHECK(o.recorded_scores == o.script_scores);
    CHECK(o.removed_by_mistake == 0);  // the knocked follower stayed on its tile
    CHECK(o.illegal == 0);
}

}  // namespace

constexpr int kWholeGame = -1;  // play until the bag is empty

// The tiles a whole-game case plays: all of them (kWholeGame) in the plain suite. Under the
// sanitizers a whole game costs several minutes of CPU, so that suite (scripts/test.sh
// --sanitize: MEEPLECAM_SOAK_FACTOR 0.05) plays that share of a 72-tile game, read as the soaks
// read it (test::soak_games: at least 10 tiles); a factor of 1 or more plays the whole game.
int whole_game_tiles() {
    constexpr int kBaseGameTiles = 72;
    const int tiles = test::soak_games(kBaseGameTiles);
    if (tiles >= kBaseGameTiles) return kWholeGame;
    WARN("MEEPLECAM_SOAK_FACTOR below 1: a " << tiles << "-tile game instead of the whole game");
    return tiles;
}

TEST_CASE("footage: a whole scripted base game is tracked move for move", "[session][footage][whole]") {
    check_same_match(track_scripted_game(3, {}, whole_game_tiles()));
}

// The shorter games of the same seeds (their footage frames a smaller board: larger tiles).
TEST_CASE("footage: a 12-tile scripted Bridges, Castles and Bazaars game is tracked move for move", "[session][footage]") {
    check_same_match(track_scripted_game(3, {"bridges", "castles", "bazaars"}, 12));
}

TEST_CASE("footage: a 36-tile scripted Ferries game is tracked move for move", "[session][footage]") {
    // Under the sanitizers (MEEPLECAM_SOAK_FACTOR below 1) the soaks' share of it, like the whole games.
    check_same_match(track_scripted_game(2, {"ferries"}, std::min(36, test::soak_games(36))));
}

// [plain-only]: under the sanitizers (MEEPLECAM_SOAK_FACTOR below 1) these two would play the first
// 10 tiles of the same seeds as the 12-tile and 36-tile cases above, which the sanitizer pass runs
// already, so build-asan leaves them out (cmake/MeeplecamTargets.cmake); the plain suite plays them whole.
TEST_CASE("footage: a whole scripted Bridges, Castles and Bazaars game is tracked move for move", "[session][footage][whole][plain-only]") {
    check_same_match(track_scripted_game(3, {"bridges", "castles", "bazaars"}, whole_game_tiles()));
}

TEST_CASE("footage: a whole scripted Ferries game is tracked move for move", "[session][footage][whole][plain-only]") {
    check_same_match(track_scripted_game(2, {"ferries"}, whole_game_tiles()));
}

TEST_CASE("footage: followers put down with their tiles are read with them (four 12-tile base games)", "[session][footage][follower-with-tile]") {
    // Each follower of these games comes in the same move as its tile: the tile is read with
    // the follower painted over, then the follower is placed on the feature under it.
    // Under the sanitizers (MEEPLECAM_SOAK_FACTOR below 1) that share of the four games, at least one.
    std::vector<std::uint64_t> seeds = {3, 4, 5, 6};
    seeds.resize(static_cast<std::size_t>(std::clamp(test::soak_games(40) / 10, 1, 4)));
    for (const std::uint64_t seed : seeds) {
        INFO("seed " << seed);
        const Outcome o = track_scripted_game(seed, {}, 12, true);
        REQUIRE(std::count_if(o.script.events.begin(), o.script.events.end(), [](const Event& e) { return e.type == "meeple"; }) >= 3);
        check_same_match(o);
    }
}

TEST_CASE("footage: the frames show each move's hand, stills and the knocked follower", "[session][footage]") {
    RandomGameOptions ro;
    ro.seed = 3;
    ro.max_tiles = 8;
    auto played = play_random_game(nullptr, ro);
    REQUIRE(played.has_value());
    session::FootageOptions fo;
    fo.width = 320;
    fo.height = 180;
    std::vector<session::FootageFrame> frames;
    cv::Matx33d first_camera;
    auto cam = session::render_footage(played->record, fo, [&](const session::FootageFrame& f, const cv::Mat& image,
                                                                const session::FootageCamera& c) -> Status {
        if (frames.empty()) first_camera = c.table_to_image;
        if (image.cols != 320 || image.rows != 180) return invalid("test", "wrong frame size");
        if (cv::norm(c.table_to_image - first_camera) > 1e-9) return invalid("test", "the camera moved");
        frames.push_back(f);
        return Ok{};
    });
    REQUIRE(cam.has_value());
    int hands = 0, stills = 0, knocks = 0;
    for (const auto& f : frames) {
        hands += f.phase == "hand-in" || f.phase == "hand-out";
        stills += f.phase == "still";
        knocks += f.phase == "knock";
    }
    const int moves = static_cast<int>(played->record.events.size()) - 1;
    CHECK(hands == moves * (fo.approach_frames + fo.leave_frames));
    CHECK(stills >= (moves + 1) * fo.still_frames);
    CHECK(knocks == 2 * (fo.approach_frames + fo.leave_frames));
    CHECK(frames.back().events_shown == static_cast<int>(played->record.events.size()));
}
