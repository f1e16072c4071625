#include <catch2/catch.hpp>

#include <algorithm>
#include <array>
#include <deque>
#include <map>
#include <string>

#include <opencv2/imgproc.hpp>

#include "render_fixtures.h"
#include "vision/tile_art.h"

using namespace meeplecam;

namespace {

// Whether a variant map draws a road bend as two arms to the centre (its road split in two).
bool is_elbow(const TileType& type, const TileType& variant) { return variant.features.size() > type.features.size(); }

}  // namespace

TEST_CASE("road bends drawn as two arms to the centre are read as bends, not junctions", "[vision][board-reader][classify]") {
    // Printed art turns its road bends near the tile's centre; the renderer draws them as arcs
    // round the corner. A board whose bends are drawn like the printed art (V, J, K, O, P as two
    // arms meeting at the centre: tile_art.h printed_geometry_variants) reads its bends as
    // junctions (W, L) or straight roads without the printed-art maps (real test_00: 5 of 9 V misread).
    const auto catalog = test::base_catalog_for_render();
    auto tiles = test::random_board(40, 23);
    std::deque<TileType> elbows;  // the drawn art, kept alive for the render
    int bends = 0;
    for (auto& t : tiles) {
        for (const auto& [variant, style] : vision::printed_geometry_variants(*t.type)) {
            if (!is_elbow(*t.type, variant)) continue;
            elbows.push_back(variant);
            t.printed = &elbows.back();
            ++bends;
        }
    }
    REQUIRE(bends >= 8);
    auto rendering = vision::render_table(tiles, test::daylight_options(), 23);
    REQUIRE(rendering);
    auto bends_right = [&](bool printed_variants) {
        vision::ReaderOptions o;
        o.classifier.printed_variants = printed_variants;
        int right = 0, read = 0;
        for (const auto& t : test::read_back(rendering.value(), *catalog, o)) {
            if (t.read == nullptr || vision::printed_geometry_variants(*t.truth).size() == 1) continue;
            bool bent = false;
            for (const auto& [variant, style] : vision::printed_geometry_variants(*t.truth)) bent = bent || is_elbow(*t.truth, variant);
            if (!bent) continue;
            ++read;
            right += t.right;
        }
        INFO(right << " of " << read << " bends right (printed variants " << printed_variants << ")");
        CHECK(read >= bends - 2);
        return right;
    };
    const int with = bends_right(true), without = bends_right(false);
    INFO("bends " << bends << ": right " << with << " with the printed-art maps, " << without << " without");
    CHECK(with >= bends - 1);
    CHECK(without < with);
}

namespace {

// Draws a constructed top view of 9 x 7 tiles of `pitch` px (one cell of table around) in printed
// art's manner: grass, cream roads with dark borders running straight from each side's middle
// to the centre, a village of the city's colour where three roads meet, and city caps. Plan
// letters: U a straight road, V a bend, W a junction, E a city cap, b a bend with a bush of the
// city's colour on the grass `bush_depth` in from a side without road, f a bend with a farmstead
// (fence, brown house) west of the centre, where a junction's third arm would run. Each tile is turned by a
// quarter turn per (3 row + col); `sides` gets each cell's edge kinds (N, E, S, W) as drawn.
cv::Mat printed_board(const std::string& plan, int cols, int pitch, double bush_depth, std::vector<vision::CellObservation>& cells,
                      std::vector<std::array<EdgeKind, 4>>& sides) {
    const int rows = static_cast<int>(plan.size()) / cols, p = pitch;
    const cv::Scalar table(120, 110, 100), grass(70, 150, 90), speck(50, 120, 70), border(70, 80, 90), road(190, 220, 230),
        city(60, 110, 160), roof(50, 60, 150), line(30, 40, 50), farm_wall(70, 110, 150), farm_roof(40, 70, 130), fence(45, 85, 125);
    cv::Mat top(rows * p + 2 * p, cols * p + 2 * p, CV_8UC3, table);
    cv::RNG rng(5);
    for (int r = 0; r < rows; ++r) {
        for (int c = 0; c < cols; ++c) {
            const char kind = plan[static_cast<std::size_t>(r * cols + c)];
            cv::Mat t(p, p, CV_8UC3, grass);
            cv::Mat noise(p, p, CV_8UC3);
            rng.fill(noise, cv::RNG::NORMAL, 0, 6);
            t += noise;
            for (int k = 0; k < 6; ++k) cv::circle(t, cv::Point(rng.uniform(4, p - 4), rng.uniform(4, p - 4)), 2, speck, cv::FILLED);
            auto at = [p](double u, double v) { return cv::Point(static_cast<int>(u * p), static_cast<int>(v * p)); };
            std::array<EdgeKind, 4> e{EdgeKind::Field, EdgeKind::Field, EdgeKind::Field, EdgeKind::Field};
            const std::array<cv::Point2d, 4> port{cv::Point2d(0.5, 0), cv::Point2d(1, 0.5), cv::Point2d(0.5, 1), cv::Point2d(0, 0.5)};
            std::vector<int> roads;
            if (kind == 'U') roads = {0, 2};
            if (kind == 'V' || kind == 'b' || kind == 'f') roads = {1, 2};
            if (kind == 'W') roads = {1, 2, 3};
            for (const int side : roads) cv::line(t, at(port[side].x, port[side].y), at(0.5, 0.5), border, static_cast<int>(0.11 * p), cv::LINE_AA);
            for (const int side : roads) {
                cv::line(t, at(port[side].x, port[side].y), at(0.5, 0.5), road, static_cast<int>(0.06 * p), cv::LINE_AA);
                e[static_cast<std::size_t>(side)] = EdgeKind::Road;
            }
            if (kind == 'W') {
                cv::circle(t, at(0.5, 0.5), static_cast<int>(0.12 * p), city, cv::FILLED, cv::LINE_AA);
                cv::circle(t, at(0.5, 0.5), static_cast<int>(0.12 * p), line, 2, cv::LINE_AA);
            }
            if (kind == 'E') {
                const cv::Size cap(p / 2 + 4, static_cast<int>(0.3 * p));
                cv::ellipse(t, at(0.5, 0), cap, 0, 0, 360, city, cv::FILLED, cv::LINE_AA);
                for (int k = 0; k < 5; ++k) cv::rectangle(t, cv::Rect(rng.uniform(8, p - 14), rng.uniform(0, 8), 6, 5), roof, cv::FILLED);
                cv::ellipse(t, at(0.5, 0), cap, 0, 0, 180, line, 2, cv::LINE_AA);
                e[0] = EdgeKind::City;
            }
            if (kind == 'f') {  // a farmstead west of the centre: a wooden fence round a brown house with a darker roof
                const std::vector<cv::Point> yard = {at(0.36, 0.44), at(0.20, 0.40), at(0.06, 0.46), at(0.10, 0.60), at(0.30, 0.62)};
                cv::polylines(t, yard, true, fence, 2, cv::LINE_AA);
                cv::rectangle(t, at(0.15, 0.45), at(0.26, 0.55), farm_wall, cv::FILLED);
                cv::rectangle(t, at(0.15, 0.45), at(0.26, 0.49), farm_roof, cv::FILLED);
            }
            if (kind == 'b') {
                cv::circle(t, at(0.5, bush_depth), static_cast<int>(0.09 * p), city, cv::FILLED, cv::LINE_AA);
                cv::circle(t, at(0.5, bush_depth), static_cast<int>(0.09 * p), line, 2, cv::LINE_AA);
            }
            for (int q = 0; q < (r * 3 + c) % 4; ++q) {
                cv::rotate(t, t, cv::ROTATE_90_CLOCKWISE);
                e = {e[3], e[0], e[1], e[2]};
            }
            t.copyTo(top(cv::Rect((c + 1) * p, (r + 1) * p, p, p)));
            vision::CellObservation o;
            o.col = c + 1, o.row = r + 1;
            cells.push_back(o);
            sides.push_back(e);
        }
    }
    return top;
}

// A 9 x 7 plan of U, V, E and W tiles with nine cells of `bend` (a plan letter of printed_board)
// among them.
std::string plan_with_bends(char bend) {
    std::string plan =
        "UVEWUVEWU"
        "W*UVE*WUE"
        "VUEW*VUEW"
        "EW*UVEW*U"
        "U*VEWU*VE"
        "VEWU*VEWU"
        "WUVE*WUVE";
    for (auto& c : plan) c = c == '*' ? bend : c;
    return plan;
}

// Classifies the cells of a printed board built from `plan` (printed_board) with `options`:
// per plan letter, how many cells were read with the right sides, and how many there were.
std::map<char, std::pair<int, int>> right_by_plan_letter(const std::string& plan, const Catalog& catalog, const vision::ClassifierOptions& options) {
    std::vector<vision::CellObservation> cells;
    std::vector<std::array<EdgeKind, 4>> sides;
    vision::LatticeView view;
    view.pitch_px = 64;
    view.top = printed_board(plan, 9, 64, /*bush_depth=*/0.36, cells, sides);
    view.cols = 11, view.rows = 9;
    view.frame = view.top.size();
    std::map<char, std::pair<int, int>> out;  // plan letter -> (read right, cells)
    const auto hyps = vision::classify_cells(view, cells, catalog, options);
    REQUIRE(hyps.size() == cells.size());
    for (std::size_t i = 0; i < hyps.size(); ++i) {
        const auto& best = hyps[i].hyps.front();
        const TileType& read = catalog.tiles()[static_cast<std::size_t>(best.type)];
        bool right = true;
        for (int side = 0; side < 4; ++side) right = right && read.edge_at(best.rot, side) == sides[i][static_cast<std::size_t>(side)];
        auto& [ok, all] = out[plan[i]];
        ok += right ? 1 : 0;
        ++all;
    }
    return out;
}

}  // namespace

TEST_CASE("a bush on a road bend's grass is not read as a third road arm", "[vision][board-reader][classify]") {
    // Printed fields hold bushes, trees and farmhouses. A bush of the city's colour (as real
    // villages, where printed roads meet, are) is explained better by the road, whose colours
    // include the villages', than by the grass, and the road-like share of the arm the junction
    // layout draws over it passes the old arm check: the bend read as a junction (real test_00
    // and test_07: V as W at the board's rim, where no neighbour says otherwise). Where the road
    // meets each side, the bush is not there: the road-side check reads the bend.
    const auto catalog = test::base_catalog_for_render();
    const std::string plan = plan_with_bends('b');
    auto right_by_kind = [&](const vision::ClassifierOptions& o) { return right_by_plan_letter(plan, *catalog, o); };
    vision::ClassifierOptions arm_check;  // the layout's arms judged alone, as before the road-side check
    arm_check.road_side_penalty = 0;
    arm_check.arm_penalty = 3.0;
    const auto with = right_by_kind({}), without = right_by_kind(arm_check);
    for (const auto& [kind, counts] : with) {
        INFO(kind << ": " << counts.first << " of " << counts.second << " right with the road-side check, " << without.at(kind).first
                  << " without");
        CHECK(counts.first == counts.second);
    }
    // Measured: bushed bends 9 of 9 right with the check, 0 of 9 without (all read W); the others all right either way.
    CHECK(without.at('b').first <= 2);
}

TEST_CASE("a farmstead beside a road bend is not read as a third road arm", "[vision][board-reader][classify][arm-colour]") {
    // Printed fields hold farmsteads beside road bends: a wooden fence round a brown house with a
    // darker roof, where a junction's third arm would run. The road's dark borders and the
    // farmstead's browns are near in colour, so the learnt road explains the house, and the
    // bend is read as a junction (W) by the likelihood and the road-side check alike. The arm
    // the junction draws over the farmstead shows the farmstead's colour and not the other
    // arms' (one road, one colour): ClassifierOptions::road_arm_colour_weight. It is off by
    // default (arm33 round: on rendered bench boards one true arm of a junction lies as far from
    // the others' colour, the board's samples being coarse), so this test switches it on.
    const auto catalog = test::base_catalog_for_render();
    const std::string plan = plan_with_bends('f');
    auto right_by_kind = [&](const vision::ClassifierOptions& o) { return right_by_plan_letter(plan, *catalog, o); };
    vision::ClassifierOptions without_arm_colour;
    without_arm_colour.road_arm_colour_weight = 0;
    vision::ClassifierOptions with_arm_colour;
    with_arm_colour.road_arm_colour_weight = 12.0;  // measured: 8 reads 1 of 9 farmstead bends right, 10 two, 12 all
    const auto with = right_by_kind(with_arm_colour), without = right_by_kind(without_arm_colour);
    for (const auto& [kind, counts] : with) {
        INFO(kind << ": " << counts.first << " of " << counts.second << " right with the arm colour term, " << without.at(kind).first
                  << " without");
        CHECK(counts.first == counts.second);
    }
    // Measured: farmstead bends 9 of 9 right with the term, 0 of 9 without (all read W); the others all right either way.
    CHECK(without.at('f').first <= without.at('f').second / 2);
}
