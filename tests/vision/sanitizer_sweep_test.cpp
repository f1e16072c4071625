// The sanitizers' sweep through the reader: every stage, with every opt-in option on, on a few
// rendered scenes. build-asan leaves out the tests tagged [scene] (full rendered scenes, seconds
// each; the plain build checks what they measure), so this file is where ASan and UBSan see the
// reader's code paths those tests would have taken them through: the lattice search, the
// glare lift, growth across a gap, the arm colour term, hands, pennants, the piece detector and
// the tiles read again under pieces. It runs in the plain build too, where its bounds hold.
#include <catch2/catch.hpp>

#include <algorithm>

#include "engine/random_game.h"
#include "render_fixtures.h"
#include "vision/board_reader.h"
#include "vision/photo_score.h"
#include "vision/piece_detector.h"
#include "vision/table_renderer.h"

using namespace meeplecam;

namespace {

// The reader with each option that is off by default turned on (values from their tests).
vision::ReaderOptions every_opt_in() {
    vision::ReaderOptions o;
    o.lift_glare = vision::GlareLift::when_stronger;
    o.min_across_gap_alignment = 1.6;
    o.classifier.road_arm_colour_weight = 12;
    o.classifier.arm_penalty = 3;
    o.cover_pieces = true;
    return o;
}

int right_of(const std::vector<test::TileReadBack>& tiles) {
    return static_cast<int>(std::count_if(tiles.begin(), tiles.end(), [](const test::TileReadBack& t) { return t.right; }));
}

}  // namespace

TEST_CASE("every reader stage runs on medium and hard bench boards with every opt-in option on", "[vision][sanitizer-sweep]") {
    const auto options = every_opt_in();
    REQUIRE(options.check());
    // A medium board (60 + 1000 % 21 = 67 tiles): read nearly whole with the options on.
    const auto medium = test::read_back(test::render_bench_board(1000, vision::Difficulty::Medium), *test::base_catalog_for_render(), options);
    INFO("medium 1000: " << right_of(medium) << " of " << medium.size() << " tiles right");
    CHECK(right_of(medium) >= static_cast<int>(medium.size()) - 4);
    // A hard board (steep view, glare, blur, a hand): found, most tiles right.
    vision::BoardReading hard_reading;
    const auto hard = test::read_back(test::render_bench_board(1002, vision::Difficulty::Hard), *test::base_catalog_for_render(), options,
                                      &hard_reading);
    INFO("hard 1002: " << right_of(hard) << " of " << hard.size() << " tiles right");
    CHECK(hard_reading.found);
    CHECK(right_of(hard) >= static_cast<int>(hard.size()) / 2);
}

TEST_CASE("followers on a read board are detected, and the tiles under them read again", "[vision][sanitizer-sweep][pieces]") {
    RandomGameOptions game_options;
    game_options.seed = 3;
    game_options.players = 4;
    game_options.max_tiles = 20;
    game_options.follower_chance = 1.0;
    const auto game = play_random_game(test::base_catalog_for_render(), game_options);
    REQUIRE(game);
    const auto scene = vision::scene_of(game->game);
    const auto rendering = vision::render_table(scene, test::daylight_options(), 3);
    REQUIRE(rendering);
    const auto options = every_opt_in();
    auto read = vision::read_board(rendering->image, *test::base_catalog_for_render(), options);
    REQUIRE(read);
    REQUIRE(read->found);
    auto board = read.value();
    vision::PieceDetectorOptions detector;
    detector.find_bridges = detector.find_castles = true;
    const auto detection = vision::detect_pieces_rereading(rendering->image, board, *test::base_catalog_for_render(),
                                                          vision::ColourModels::daylight(), detector, options);
    REQUIRE(detection);
    const auto followers = std::count_if(detection->pieces.begin(), detection->pieces.end(),
                                         [](const vision::DetectedPiece& p) { return p.kind == "follower"; });
    INFO(followers << " followers found of " << rendering->truth.pieces.size());
    CHECK(followers >= static_cast<long>(rendering->truth.pieces.size()) * 3 / 4);
    CHECK(followers <= static_cast<long>(rendering->truth.pieces.size()));
}
