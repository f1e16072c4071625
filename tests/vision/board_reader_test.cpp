#include <catch2/catch.hpp>

#include <cmath>
#include <limits>
#include <map>
#include <random>

#include <opencv2/imgproc.hpp>

#include "engine/random_game.h"
#include "vision/board_reader.h"
#include "render_fixtures.h"
#include "vision/table_renderer.h"

using namespace meeplecam;

namespace {

using test::random_board;
std::shared_ptr<const Catalog> base() { return test::base_catalog_for_render(); }

cv::Point2d apply(const cv::Matx33d& h, cv::Point2d p) {
    const cv::Vec3d v = h * cv::Vec3d(p.x, p.y, 1);
    return {v[0] / v[2], v[1] / v[2]};
}

// RMS distance (mm) between the true tile centres and their top-view positions after the
// best rigid alignment (the top view's orientation and origin are arbitrary).
double rectification_rms_mm(const vision::LatticeView& view, const vision::RenderTruth& truth) {
    std::vector<cv::Point2d> a, b;
    for (const auto& t : truth.tiles) {
        a.push_back(apply(view.image_to_top, t.centre_px) / view.px_per_mm);
        b.push_back(t.centre_mm);
    }
    cv::Point2d ca(0, 0), cb(0, 0);
    for (std::size_t i = 0; i < a.size(); ++i) ca += a[i], cb += b[i];
    ca *= 1.0 / static_cast<double>(a.size()), cb *= 1.0 / static_cast<double>(b.size());
    double sxx = 0, sxy = 0;
    for (std::size_t i = 0; i < a.size(); ++i) {
        const cv::Point2d p = a[i] - ca, q = b[i] - cb;
        sxx += p.x * q.x + p.y * q.y;
        sxy += p.x * q.y - p.y * q.x;
    }
    const double th = std::atan2(sxy, sxx), c = std::cos(th), s = std::sin(th);
    double e = 0;
    for (std::size_t i = 0; i < a.size(); ++i) {
        const cv::Point2d p = a[i] - ca, q = b[i] - cb;
        const cv::Point2d r(c * p.x - s * p.y, s * p.x + c * p.y);
        e += (r.x - q.x) * (r.x - q.x) + (r.y - q.y) * (r.y - q.y);
    }
    return std::sqrt(e / static_cast<double>(a.size()));
}

}  // namespace

TEST_CASE("the plane and lattice are estimated from the tiles alone", "[vision][board-reader]") {
    // Easy renders (tilt up to 10 degrees): tile centres land within a few mm of the truth,
    // and nearly every tile falls in its own occupied cell.
    int good = 0;
    const int boards = 4;
    for (int seed = 1; seed <= boards; ++seed) {
        auto options = vision::RenderOptions::for_difficulty(vision::Difficulty::Easy);
        const auto tiles = random_board(60 + 5 * seed, static_cast<std::uint64_t>(seed));
        auto r = vision::render_table(tiles, options, static_cast<std::uint64_t>(seed));
        REQUIRE(r);
        auto view = vision::find_lattice(r->image);
        INFO("seed " << seed << ", style " << r->truth.style << ", " << r->truth.surface << " table, tilt " << r->truth.camera.tilt_deg);
        if (!view) {
            WARN("no lattice: " << view.error().message);
            continue;
        }
        const double rms = rectification_rms_mm(view.value(), r->truth);
        INFO("rectification RMS " << rms << " mm");
        const auto cells = vision::occupied_cells(view.value());
        std::map<std::pair<int, int>, int> hits;
        for (const auto& t : r->truth.tiles) {
            const cv::Point2d c = apply(view->image_to_top, t.centre_px);
            ++hits[{static_cast<int>(std::floor(c.x / view->pitch_px)), static_cast<int>(std::floor(c.y / view->pitch_px))}];
        }
        int own = 0;
        for (const auto& c : cells) own += hits.count({c.col, c.row}) && hits[{c.col, c.row}] == 1;
        INFO("cells " << cells.size() << ", each with its own tile " << own << " of " << tiles.size());
        good += rms < 4.0 && own >= 0.9 * static_cast<double>(tiles.size());
    }
    // Known weakness: the pitch search can still lock on a multiple or half of the pitch.
    CHECK(good >= boards - 1);
}

TEST_CASE("a frame without a board finds no tiles", "[vision][board-reader][bad-input]") {
    // Plain table; wood-like stripes; noise: no two line families with periodic gaps.
    std::mt19937 rng(3);
    cv::Mat blank(540, 960, CV_8UC3, cv::Scalar(90, 120, 150));
    cv::Mat stripes = blank.clone();
    for (int x = 0; x < stripes.cols; x += 37) cv::line(stripes, {x, 0}, {x + 40, stripes.rows}, cv::Scalar(60, 80, 110), 3);
    cv::Mat noise(540, 960, CV_8UC3);
    cv::randu(noise, cv::Scalar::all(0), cv::Scalar::all(255));
    for (const auto* image : {&blank, &stripes, &noise}) {
        auto reading = vision::read_board(*image, *base());
        REQUIRE(reading);
        CHECK_FALSE(reading->found);
        CHECK(reading->tiles.empty());
        CHECK_THAT(reading->message, Catch::Contains("no board"));
    }
    CHECK_FALSE(vision::read_board(cv::Mat(), *base()));
    vision::ReaderOptions bad;
    bad.lattice.px_per_mm = 0;
    CHECK_FALSE(bad.check());
    bad = {};
    bad.classifier.samples = 1;
    CHECK_FALSE(bad.check());
    bad = {};
    bad.decoder.mismatch_penalty = -1;
    CHECK_FALSE(bad.check());
}

TEST_CASE("joint decoding fixes a misread tile from its neighbours", "[vision][board-reader][decode]") {
    // A real 30-tile board: every cell's true placement scores 0 and every other -20, except
    // one cell with four neighbours whose scores were misread: a placement that clashes with
    // its neighbours' edges scores 3 above the truth.
    const auto& catalog = *base();
    const auto tiles = random_board(30, 11);
    std::map<std::pair<int, int>, const vision::SceneTile*> at;
    for (const auto& t : tiles) at[{t.at.x, t.at.y}] = &t;
    const vision::SceneTile* victim = nullptr;
    for (const auto& t : tiles) {
        int n = 0;
        for (const auto& [dx, dy] : {std::pair{1, 0}, {-1, 0}, {0, 1}, {0, -1}}) n += static_cast<int>(at.count({t.at.x + dx, t.at.y + dy}));
        if (n >= 3) victim = &t;
    }
    REQUIRE(victim != nullptr);
    // A wrong placement whose edges differ from the truth on a side with a neighbour.
    int wrong_type = -1, wrong_rot = 0;
    for (const auto& type : catalog.tiles()) {
        for (const int r : type.distinct_rotations) {
            if (wrong_type >= 0 || type.index == victim->type->index) continue;
            for (int side = 0; side < 4; ++side) {
                constexpr int dx[4] = {0, 1, 0, -1}, dy[4] = {-1, 0, 1, 0};
                if (!at.count({victim->at.x + dx[side], victim->at.y + dy[side]})) continue;
                if (type.edges[static_cast<std::size_t>((side - r + 4) % 4)] != victim->type->edges[static_cast<std::size_t>((side - victim->rot + 4) % 4)]) {
                    wrong_type = type.index, wrong_rot = r;
                }
            }
        }
    }
    REQUIRE(wrong_type >= 0);
    std::vector<vision::CellHypotheses> cells;
    for (const auto& t : tiles) {
        vision::CellHypotheses h;
        h.col = t.at.x, h.row = t.at.y;
        const bool misread = &t == victim;
        for (const auto& type : catalog.tiles()) {
            for (const int r : type.distinct_rotations) {
                const bool truth = type.index == t.type->index && r == t.rot % static_cast<int>(type.distinct_rotations.size());
                const bool planted = misread && type.index == wrong_type && r == wrong_rot;
                h.hyps.push_back({type.index, r, truth ? 0.0 : planted ? 3.0 : -20.0});
            }
        }
        cells.push_back(h);
    }
    auto find = [](const std::vector<vision::DecodedTile>& d, const vision::SceneTile& t) {
        for (const auto& x : d) {
            if (x.col == t.at.x && x.row == t.at.y) return x;
        }
        return vision::DecodedTile{};
    };
    const auto decoded = vision::decode_board(cells, catalog);
    REQUIRE(decoded.size() == tiles.size());
    for (const auto& t : tiles) {
        const auto d = find(decoded, t);
        INFO("cell " << t.at.x << "," << t.at.y << " true " << t.type->id << " rot " << t.rot);
        CHECK(d.type == t.type->index);
        CHECK(d.rot == t.rot % static_cast<int>(t.type->distinct_rotations.size()));
    }
    const auto fixed = find(decoded, *victim);
    CHECK(fixed.runner_type == wrong_type);
    // Without the neighbours' constraint the misread stands.
    vision::DecoderOptions loose;
    loose.mismatch_penalty = 0;
    const auto alone = find(vision::decode_board(cells, catalog, loose), *victim);
    CHECK(alone.type == wrong_type);
}

TEST_CASE("terrain layouts follow the tile geometry", "[vision][board-reader]") {
    const auto& catalog = *base();
    // U: a straight road N-S through fields; at rot 1 it runs E-W.
    const auto& type_u = *catalog.find("U");
    const auto l0 = vision::terrain_layout(type_u, 0, 20, 0.06), l1 = vision::terrain_layout(type_u, 1, 20, 0.06);
    CHECK(l0[static_cast<std::size_t>(0 * 20 + 10)] == vision::kRoad);   // north middle
    CHECK(l0[static_cast<std::size_t>(10 * 20 + 0)] == vision::kField);  // west middle
    CHECK(l1[static_cast<std::size_t>(10 * 20 + 0)] == vision::kRoad);
    CHECK(l1[static_cast<std::size_t>(0 * 20 + 10)] == vision::kField);
    // Pennants are not in the layouts: M and N (the same city, with and without) look alike. B has a monastery.
    const auto lm = vision::terrain_layout(*catalog.find("M"), 0, 20, 0.06), ln = vision::terrain_layout(*catalog.find("N"), 0, 20, 0.06);
    std::size_t same = 0;
    for (std::size_t i = 0; i < lm.size(); ++i) same += lm[i] == ln[i];
    CHECK(same >= lm.size() * 95 / 100);
    const auto lc = vision::terrain_layout(*catalog.find("C"), 0, 20, 0.06);
    CHECK(std::count(lc.begin(), lc.end(), vision::kCity) > 300);
    const auto lb = vision::terrain_layout(*catalog.find("B"), 0, 20, 0.06);
    CHECK(lb[static_cast<std::size_t>(10 * 20 + 10)] == vision::kCloister);
}

TEST_CASE("lattice cells are counted in double and capped (a degenerate plane put points 1e17 px away)",
          "[vision][reader][bad-input]") {
    // Found by image_fuzz: static_cast<int> of ~1.3e17 cells (undefined behaviour) in find_lattice.
    CHECK(vision::lattice_cells(0, 100, 45.8, 87) == 3);
    CHECK(vision::lattice_cells(-10, 10, 45.8, 87) == 2);
    CHECK(vision::lattice_cells(0, 1.3e17, 45.8, 87) == 87);
    CHECK(vision::lattice_cells(-1e30, 1e30, 45.8, 87) == 87);
    CHECK(vision::lattice_cells(0, std::numeric_limits<double>::infinity(), 45.8, 87) == 87);
    CHECK(vision::lattice_cells(-std::numeric_limits<double>::infinity(), 10, 45.8, 87) == 0);
    CHECK(vision::lattice_cells(0, std::numeric_limits<double>::quiet_NaN(), 45.8, 87) == 0);
    CHECK(vision::lattice_cells(1e18, -1e18, 45.8, 87) == 0);  // no points
}
