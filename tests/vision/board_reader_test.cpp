#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <functional>
#include <initializer_list>
#include <limits>
#include <map>
#include <numeric>
#include <random>
#include <set>
#include <tuple>
#include <vector>

#include <opencv2/imgcodecs.hpp>
#include <opencv2/imgproc.hpp>

#include "tests/sanitizers/build_kind.h"
#include "engine/random_game.h"
#include "vision/board_reader.h"
#include "render_fixtures.h"
#include "vision/homography.h"
#include "vision/table_renderer.h"
#include "vision/tile_art.h"
#include "vision/truth_metrics.h"

using namespace meeplecam;

namespace {

using test::random_board;
std::shared_ptr<const Catalog> base() { return test::base_catalog_for_render(); }

// The top-view cell (col, row) a camera pixel falls in.
std::pair<int, int> cell_of(const vision::LatticeView& view, cv::Point2d image_px) {
    const cv::Point2d c = vision::apply_homography(view.image_to_top, image_px);
    return {static_cast<int>(std::floor(c.x / view.pitch_px)), static_cast<int>(std::floor(c.y / view.pitch_px))};
}

// How many true tile centres fall in each cell of the view.
std::map<std::pair<int, int>, int> true_tiles_per_cell(const vision::LatticeView& view, const vision::RenderTruth& truth) {
    std::map<std::pair<int, int>, int> hits;
    for (const auto& t : truth.tiles) ++hits[cell_of(view, t.centre_px)];
    return hits;
}

// The bench's medium board of `seed` (a random base game of 60-80 tiles, as bench/vision renders it).
vision::Rendering render_bench_medium(std::uint64_t seed) { return test::render_bench_board(seed, vision::Difficulty::Medium); }

// Reads `image` once with each of `options`, every reading required to succeed.
std::vector<vision::BoardReading> read_with_each(const cv::Mat& image, const Catalog& catalog, std::initializer_list<vision::ReaderOptions> options) {
    std::vector<vision::BoardReading> readings;
    for (const auto& o : options) {
        auto reading = vision::read_board(image, catalog, o);
        REQUIRE(reading);
        readings.push_back(std::move(*reading));
    }
    return readings;
}

// Tiles missed (true tiles whose cell was not read) and cells invented (read where no tile lies).
std::pair<int, int> missed_and_invented(const vision::BoardReading& reading, const vision::RenderTruth& truth) {
    const auto truth_cells = true_tiles_per_cell(reading.view, truth);
    std::map<std::pair<int, int>, bool> read;
    for (const auto& t : reading.tiles) read[{t.col, t.row}] = true;
    int missed = 0, invented = 0;
    for (const auto& [cell, n] : truth_cells) missed += read.count(cell) ? 0 : n;
    for (const auto& [cell, yes] : read) invented += truth_cells.count(cell) ? 0 : 1;
    return {missed, invented};
}

}  // namespace

TEST_CASE("the plane and lattice are estimated from the tiles alone", "[vision][board-reader][scene]") {
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
        const double rms = vision::rectification_rms_mm(view.value(), r->truth);
        INFO("rectification RMS " << rms << " mm");
        const auto cells = vision::occupied_cells(view.value());
        auto hits = true_tiles_per_cell(view.value(), r->truth);
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

TEST_CASE("joint decoding mends two touching misread tiles at once", "[vision][board-reader][decode]") {
    // Two touching cells both misread, each only on the side they share: each misreading fits
    // the cell's other neighbours, and each cell's truth clashes with the other's misreading, so
    // no single cell can change without a clash staying. Both misreadings score 2 above the truth:
    // mending the pair loses 4 and gains the clash's penalty (12).
    const auto& catalog = *base();
    const auto tiles = random_board(30, 11);
    std::map<std::pair<int, int>, const vision::SceneTile*> at;
    for (const auto& t : tiles) at[{t.at.x, t.at.y}] = &t;
    constexpr int dx[4] = {0, 1, 0, -1}, dy[4] = {-1, 0, 1, 0};
    auto edge = [](const TileType& type, int rot, int side) { return type.edge_at(rot, side); };
    // A placement of cell `t` that shows the truth on every side with a neighbour but `side`,
    // and `want` there.
    auto misreading = [&](const vision::SceneTile& t, int side, EdgeKind want) -> std::pair<int, int> {
        for (const auto& type : catalog.tiles()) {
            for (const int r : type.distinct_rotations) {
                if (edge(type, r, side) != want) continue;
                bool fits = true;
                for (int s = 0; s < 4 && fits; ++s) {
                    if (s == side || !at.count({t.at.x + dx[s], t.at.y + dy[s]})) continue;
                    fits = edge(type, r, s) == edge(*t.type, t.rot, s);
                }
                if (fits) return {type.index, r};
            }
        }
        return {-1, 0};
    };
    const vision::SceneTile *first = nullptr, *second = nullptr;
    std::pair<int, int> wrong_first{-1, 0}, wrong_second{-1, 0};
    for (const auto& t : tiles) {
        if (first) break;
        for (int side : {1, 2}) {
            const auto it = at.find({t.at.x + dx[side], t.at.y + dy[side]});
            if (it == at.end() || first) continue;
            const EdgeKind truth = edge(*t.type, t.rot, side);
            // The three edge kinds: the truth, and one misreading on each side of the seam.
            std::vector<EdgeKind> others;
            for (const EdgeKind k : {EdgeKind::City, EdgeKind::Road, EdgeKind::Field}) {
                if (k != truth) others.push_back(k);
            }
            for (int k = 0; k < 2 && !first; ++k) {
                const auto a = misreading(t, side, others[static_cast<std::size_t>(k)]);
                const auto b = misreading(*it->second, (side + 2) % 4, others[static_cast<std::size_t>(1 - k)]);
                if (a.first >= 0 && b.first >= 0) first = &t, second = it->second, wrong_first = a, wrong_second = b;
            }
        }
    }
    REQUIRE(first != nullptr);
    std::vector<vision::CellHypotheses> cells;
    for (const auto& t : tiles) {
        vision::CellHypotheses h;
        h.col = t.at.x, h.row = t.at.y;
        for (const auto& type : catalog.tiles()) {
            for (const int r : type.distinct_rotations) {
                const bool truth = type.index == t.type->index && r == t.rot % static_cast<int>(type.distinct_rotations.size());
                const bool planted = (&t == first && std::pair{type.index, r} == wrong_first) || (&t == second && std::pair{type.index, r} == wrong_second);
                h.hyps.push_back({type.index, r, truth ? 0.0 : planted ? 2.0 : -20.0});
            }
        }
        cells.push_back(h);
    }
    // The count prior would favour common types on its own: off, so the scores alone decide.
    vision::DecoderOptions options;
    options.count_prior = 0;
    options.excess_penalty = 0;
    auto read = [&](const vision::DecoderOptions& o, const vision::SceneTile& t) {
        for (const auto& d : vision::decode_board(cells, catalog, o)) {
            if (d.col == t.at.x && d.row == t.at.y) return std::pair{d.type, d.rot};
        }
        return std::pair{-1, 0};
    };
    INFO("cells " << first->at.x << "," << first->at.y << " (" << first->type->id << ") and " << second->at.x << "," << second->at.y << " ("
                  << second->type->id << ")");
    CHECK(read(options, *first) == std::pair{first->type->index, first->rot % static_cast<int>(first->type->distinct_rotations.size())});
    CHECK(read(options, *second) == std::pair{second->type->index, second->rot % static_cast<int>(second->type->distinct_rotations.size())});
    // One cell at a time, the decoder stays with both misreadings.
    options.pair_moves = 0;
    CHECK(read(options, *first) == wrong_first);
    CHECK(read(options, *second) == wrong_second);
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

TEST_CASE("refitting the lattice on the tiles' outlines brings the rectification under 1.5 mm", "[vision][board-reader][refine][scene]") {
    for (int seed = 1; seed <= 3; ++seed) {
        auto options = vision::RenderOptions::for_difficulty(vision::Difficulty::Easy);
        const auto tiles = random_board(60 + 5 * seed, static_cast<std::uint64_t>(seed));
        auto r = vision::render_table(tiles, options, static_cast<std::uint64_t>(seed));
        REQUIRE(r);
        auto view = vision::find_lattice(r->image);
        REQUIRE(view);
        auto cells = vision::occupied_cells(view.value());
        const double before = vision::rectification_rms_mm(view.value(), r->truth);
        REQUIRE(vision::refine_lattice(r->image, view.value(), cells, {}));
        const double after = vision::rectification_rms_mm(view.value(), r->truth);
        INFO("seed " << seed << ": RMS " << before << " mm -> " << after << " mm, " << cells.size() << " cells of " << tiles.size());
        CHECK(after < 1.5);
        CHECK(after <= before + 0.1);
        // Every tile keeps its cell, and no table cell is taken for a tile.
        CHECK(cells.size() >= tiles.size() - 2);
        CHECK(cells.size() <= tiles.size());
    }
    vision::RefineOptions bad;
    bad.search = 0.7;
    CHECK_FALSE(bad.check());
}

TEST_CASE("occupancy counts each cell's square as an integral image of the table mask does", "[vision][board-reader][speed]") {
    // occupied_cells counts each cell's inset square of the table mask directly (no integral
    // image the size of the view): the cells and their shares must be those the integral gives.
    auto rendered = vision::render_table(random_board(75, 21), vision::RenderOptions::for_difficulty(vision::Difficulty::Medium), 21);
    REQUIRE(rendered);
    auto view = vision::find_lattice(rendered->image);
    REQUIRE(view);
    const vision::LatticeOptions lo;
    const auto cells = vision::occupied_cells(view.value(), lo);
    cv::Mat sum;
    cv::integral(view->not_table / 255, sum, CV_64F);
    std::vector<vision::CellObservation> expected;
    const double p = view->pitch_px, inset = lo.cell_inset * p;
    for (int r = 0; r < view->rows; ++r) {
        for (int c = 0; c < view->cols; ++c) {
            const int xa = std::clamp(static_cast<int>(std::lround(c * p + inset)), 0, view->not_table.cols);
            const int xb = std::clamp(static_cast<int>(std::lround((c + 1) * p - inset)), 0, view->not_table.cols);
            const int ya = std::clamp(static_cast<int>(std::lround(r * p + inset)), 0, view->not_table.rows);
            const int yb = std::clamp(static_cast<int>(std::lround((r + 1) * p - inset)), 0, view->not_table.rows);
            if (xb <= xa || yb <= ya) continue;
            const double n = sum.at<double>(yb, xb) - sum.at<double>(ya, xb) - sum.at<double>(yb, xa) + sum.at<double>(ya, xa);
            const double share = n / ((xb - xa) * (yb - ya));
            if (share >= lo.occupied_share) expected.push_back({c, r, share});
        }
    }
    expected = vision::largest_group(std::move(expected));
    REQUIRE(cells.size() == expected.size());
    CHECK(cells.size() >= 40);
    for (std::size_t i = 0; i < cells.size(); ++i) {
        CHECK(cells[i].col == expected[i].col);
        CHECK(cells[i].row == expected[i].row);
        CHECK(cells[i].occupancy == expected[i].occupancy);
    }
}

TEST_CASE("a refit warping only near the tiles finds the same lattice, tiles and contrast as one warping the whole view",
          "[vision][board-reader][refine][speed][scene]") {
    // The reader's candidate checks warp the top view only within a pitch of the tiles (most of
    // a lattice's rectangle is table): nothing they measure may change, and the view they
    // leave must be the whole view's near the tiles, black beyond.
    int partial = 0;
    for (int seed = 1; seed <= 4; ++seed) {
        auto options = vision::RenderOptions::for_difficulty(seed % 2 ? vision::Difficulty::Easy : vision::Difficulty::Medium);
        const auto tiles = random_board(16 + 12 * seed, static_cast<std::uint64_t>(seed));
        auto r = vision::render_table(tiles, options, static_cast<std::uint64_t>(seed));
        REQUIRE(r);
        auto found = vision::find_lattice(r->image);
        REQUIRE(found);
        // Half of the board only (a candidate holding a few of the cells in its rectangle): the
        // table mask cleared on the right half.
        auto whole = found.value(), near = found.value();
        whole.not_table = found->not_table.clone();
        whole.not_table.colRange(whole.not_table.cols / 2, whole.not_table.cols).setTo(0);
        near.not_table = whole.not_table.clone();
        auto whole_cells = vision::occupied_cells(whole), near_cells = whole_cells;
        vision::RefineOptions near_only;
        near_only.warp_near_cells = true;
        REQUIRE(vision::refine_lattice(r->image, whole, whole_cells, {}));
        REQUIRE(vision::refine_lattice(r->image, near, near_cells, {}, near_only));
        INFO("seed " << seed << ": " << whole_cells.size() << " cells of " << tiles.size());
        CHECK_FALSE(whole.top_near_cells);
        CHECK(cv::norm(cv::Mat(whole.image_to_top), cv::Mat(near.image_to_top), cv::NORM_INF) < 1e-9 * cv::norm(cv::Mat(whole.image_to_top), cv::NORM_INF));
        REQUIRE(whole_cells.size() == near_cells.size());
        for (std::size_t i = 0; i < whole_cells.size(); ++i) {
            CHECK(whole_cells[i].col == near_cells[i].col);
            CHECK(whole_cells[i].row == near_cells[i].row);
            CHECK(cv::norm(whole_cells[i].offset_px - near_cells[i].offset_px) < 1e-6);
        }
        const auto a = vision::tile_contrast(whole, whole_cells, {}), b = vision::tile_contrast(near, near_cells, {});
        CHECK(a.ratio() == Approx(b.ratio()).epsilon(1e-9));
        CHECK(a.best_shift == b.best_shift);
        const auto aligned_whole = vision::cell_alignment(whole, whole_cells, {}), aligned_near = vision::cell_alignment(near, near_cells, {});
        for (std::size_t i = 0; i < aligned_whole.size(); ++i) CHECK(aligned_whole[i] == Approx(aligned_near[i]).epsilon(1e-9));
        if (!near.top_near_cells) continue;
        ++partial;
        // Within a pitch of the tiles the two views agree (a warp of a region may round a
        // sample position the other way: a grey level at most); beyond, the near view is black.
        cv::Mat needed(whole.top.size(), CV_8UC1, cv::Scalar(0));
        for (const auto& c : whole_cells) {
            const cv::Rect square(static_cast<int>((c.col - 1) * whole.pitch_px), static_cast<int>((c.row - 1) * whole.pitch_px),
                                  static_cast<int>(3 * whole.pitch_px), static_cast<int>(3 * whole.pitch_px));
            needed(square & cv::Rect(0, 0, needed.cols, needed.rows)).setTo(255);
        }
        int most = 0;
        for (int y = 0; y < needed.rows; ++y) {
            for (int x = 0; x < needed.cols; ++x) {
                if (!needed.at<std::uint8_t>(y, x)) continue;
                const cv::Vec3b u = whole.top.at<cv::Vec3b>(y, x), v = near.top.at<cv::Vec3b>(y, x);
                for (int ch = 0; ch < 3; ++ch) most = std::max(most, std::abs(u[ch] - v[ch]));
            }
        }
        CHECK(most <= 1);
        CHECK(cv::countNonZero(near.top.reshape(1)) < cv::countNonZero(whole.top.reshape(1)));
    }
    CHECK(partial >= 3);  // the half boards left much of their rectangle unwarped
}

TEST_CASE("pennant twins are told apart by the pennant blob", "[vision][board-reader][pennants]") {
    const auto& catalog = *base();
    int twins = 0, right = 0;
    for (int seed = 11; seed <= 13; ++seed) {
        auto options = vision::RenderOptions::for_difficulty(vision::Difficulty::Easy);
        const auto tiles = random_board(70, static_cast<std::uint64_t>(seed));
        auto r = vision::render_table(tiles, options, static_cast<std::uint64_t>(seed));
        REQUIRE(r);
        auto reading = vision::read_board(r->image, catalog);
        REQUIRE(reading);
        REQUIRE(reading->found);
        // Truth per top-view cell.
        std::map<std::pair<int, int>, std::string> truth;
        for (const auto& t : r->truth.tiles) {
            const cv::Point2d c = vision::apply_homography(reading->view.image_to_top, t.centre_px);
            truth[{static_cast<int>(std::floor(c.x / reading->view.pitch_px)), static_cast<int>(std::floor(c.y / reading->view.pitch_px))}] = t.tile;
        }
        for (const auto& t : reading->tiles) {
            const auto it = truth.find({t.col, t.row});
            if (it == truth.end()) continue;
            const std::string& id = it->second;
            if (id != "M" && id != "N" && id != "O" && id != "P" && id != "Q" && id != "R" && id != "S" && id != "T" && id != "F" && id != "G") continue;
            ++twins;
            right += catalog.tiles()[static_cast<std::size_t>(t.type)].id == id;
        }
    }
    INFO(right << " of " << twins << " pennant-twin tiles read as the right twin");
    REQUIRE(twins >= 20);
    CHECK(right >= 0.85 * twins);
}

TEST_CASE("evening out the light removes a glare spot", "[vision][board-reader][light]") {
    auto options = vision::RenderOptions::for_difficulty(vision::Difficulty::Easy);
    options.glare_chance = 0;
    auto r = vision::render_table(random_board(40, 5), options, 5);
    REQUIRE(r);
    auto view = vision::find_lattice(r->image);
    REQUIRE(view);
    auto cells = vision::occupied_cells(view.value());
    REQUIRE(vision::refine_lattice(r->image, view.value(), cells, {}));
    const cv::Mat clean = view->top.clone();
    // Glare: white added around the board's centre.
    cv::Point2d centre(0, 0);
    for (const auto& c : cells) centre += view->cell_centre(c.col, c.row);
    centre *= 1.0 / static_cast<double>(cells.size());
    cv::Mat glared = clean.clone();
    const double radius = 2.5 * view->pitch_px;
    for (int y = 0; y < glared.rows; ++y) {
        for (int x = 0; x < glared.cols; ++x) {
            const double g = 0.5 * std::exp(-0.5 * (std::pow(x - centre.x, 2) + std::pow(y - centre.y, 2)) / (radius * radius));
            auto& p = glared.at<cv::Vec3b>(y, x);
            for (int ch = 0; ch < 3; ++ch) p[ch] = cv::saturate_cast<std::uint8_t>(p[ch] * (1 - g) + 255 * g);
        }
    }
    // Evened out, the glared view must come close to the evened-out clean view.
    vision::LatticeView lit = view.value(), plain = view.value();
    lit.top = glared.clone();
    vision::even_out_light(lit, cells);
    vision::even_out_light(plain, cells);
    const cv::Mat reference = plain.top;
    const cv::Rect spot(static_cast<int>(centre.x - radius), static_cast<int>(centre.y - radius), static_cast<int>(2 * radius), static_cast<int>(2 * radius));
    const cv::Rect in = spot & cv::Rect(0, 0, clean.cols, clean.rows);
    const double before = cv::norm(glared(in), clean(in), cv::NORM_L1) / static_cast<double>(in.area());
    const double after = cv::norm(lit.top(in), reference(in), cv::NORM_L1) / static_cast<double>(in.area());
    INFO("mean colour error in the glare spot: " << before << " -> " << after);
    // Measured 193 -> 170: the wide window under-reads the glare's peak (a known weakness).
    CHECK(after < 0.92 * before);
}

TEST_CASE("easy renders are read with few errors", "[vision][board-reader][accuracy][scene]") {
    const auto& catalog = *base();
    int tiles_n = 0, errors = 0;
    for (int seed = 21; seed <= 23; ++seed) {
        auto options = vision::RenderOptions::for_difficulty(vision::Difficulty::Easy);
        const auto tiles = random_board(65, static_cast<std::uint64_t>(seed));
        auto r = vision::render_table(tiles, options, static_cast<std::uint64_t>(seed));
        REQUIRE(r);
        auto reading = vision::read_board(r->image, catalog);
        REQUIRE(reading);
        REQUIRE(reading->found);
        const auto& view = reading->view;
        // The board's quarter turn in the top view, from the first tile's NW -> NE edge.
        const cv::Point2d nw = vision::apply_homography(view.image_to_top, r->truth.tiles[0].corners_px[0]), ne = vision::apply_homography(view.image_to_top, r->truth.tiles[0].corners_px[1]);
        const int g = ((static_cast<int>(std::lround(std::atan2(ne.y - nw.y, ne.x - nw.x) * 2 / 3.14159265358979)) % 4) + 4) % 4;
        std::map<std::pair<int, int>, const vision::DecodedTile*> read;
        for (const auto& t : reading->tiles) read[{t.col, t.row}] = &t;
        for (const auto& t : r->truth.tiles) {
            ++tiles_n;
            const auto it = read.find(cell_of(view, t.centre_px));
            if (it == read.end()) {
                ++errors;
                continue;
            }
            const auto& type = *catalog.find(t.tile);
            const int period = static_cast<int>(type.distinct_rotations.size());
            const int want = (t.rot_deg / 90 + g) % 4;
            errors += catalog.tiles()[static_cast<std::size_t>(it->second->type)].id != t.tile || ((it->second->rot - want) % period + period) % period != 0;
        }
        errors += static_cast<int>(reading->tiles.size()) - static_cast<int>(r->truth.tiles.size()) > 0 ? static_cast<int>(reading->tiles.size() - r->truth.tiles.size()) : 0;
        UNSCOPED_INFO("seed " << seed << ": " << errors << " errors so far, " << reading->tiles.size() << " read, style " << r->truth.style << ", " << r->truth.surface);
    }
    INFO(errors << " errors in " << tiles_n << " tiles");
    // Measured: 16 of 195 (8 %), nearly all pennant twins in the contrast style.
    CHECK(errors <= 0.10 * tiles_n);
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

TEST_CASE("holes in the board showing a busy table are not read as tiles", "[vision][board-reader][table][scene]") {
    const auto& catalog = *base();
    // Counts the cells read where no tile lies (a flower in a hole of the board has edges on
    // all four sides: the neighbours' sides).
    auto invented = [&](const vision::BoardReading& reading, const vision::RenderTruth& truth) {
        std::map<std::pair<int, int>, bool> real;
        for (const auto& t : truth.tiles) {
            const cv::Point2d c = vision::apply_homography(reading.view.image_to_top, t.centre_px);
            real[{static_cast<int>(std::floor(c.x / reading.view.pitch_px)), static_cast<int>(std::floor(c.y / reading.view.pitch_px))}] = true;
        }
        int n = 0;
        for (const auto& t : reading.tiles) n += !real.count({t.col, t.row});
        return n;
    };
    int with_table = 0, without_table = 0, boards = 0;
    for (int seed = 41; seed <= 44; ++seed) {
        auto options = vision::RenderOptions::for_difficulty(vision::Difficulty::Medium);
        options.surfaces = {vision::TableSurface::Busy};
        options.hand_chance = 0;
        const auto tiles = random_board(60, static_cast<std::uint64_t>(seed));
        auto r = vision::render_table(tiles, options, static_cast<std::uint64_t>(seed));
        REQUIRE(r);
        auto reading = vision::read_board(r->image, catalog);
        REQUIRE(reading);
        if (!reading->found) continue;
        vision::ReaderOptions no_table;
        no_table.classifier.table_reach = 0;
        auto plain = vision::read_board(r->image, catalog, no_table);
        REQUIRE(plain);
        REQUIRE(plain->found);
        ++boards;
        with_table += invented(*reading, r->truth);
        without_table += invented(*plain, r->truth);
        UNSCOPED_INFO("seed " << seed << ": invented " << with_table << " with the table model, " << without_table << " without, so far");
    }
    REQUIRE(boards >= 3);
    CHECK(with_table <= boards);  // at most one invented tile per board on average
    CHECK(with_table <= without_table);
}

TEST_CASE("tiles under a hand are reported hidden, not guessed", "[vision][board-reader][hand][scene]") {
    const auto& catalog = *base();
    int covered = 0, covered_hidden = 0, visible = 0, visible_hidden = 0;
    for (int seed = 51; seed <= 54; ++seed) {
        auto options = vision::RenderOptions::for_difficulty(vision::Difficulty::Easy);
        options.hand_chance = 1;
        const auto tiles = random_board(60, static_cast<std::uint64_t>(seed));
        auto r = vision::render_table(tiles, options, static_cast<std::uint64_t>(seed));
        REQUIRE(r);
        auto reading = vision::read_board(r->image, catalog);
        REQUIRE(reading);
        REQUIRE(reading->found);
        std::map<std::pair<int, int>, const vision::DecodedTile*> read;
        for (const auto& t : reading->tiles) read[{t.col, t.row}] = &t;
        for (const auto& t : r->truth.tiles) {
            const cv::Point2d c = vision::apply_homography(reading->view.image_to_top, t.centre_px);
            const auto it = read.find({static_cast<int>(std::floor(c.x / reading->view.pitch_px)), static_cast<int>(std::floor(c.y / reading->view.pitch_px))});
            if (it == read.end()) continue;
            if (t.visible < 0.5) ++covered, covered_hidden += it->second->hidden;
            if (t.visible > 0.99) ++visible, visible_hidden += it->second->hidden;
        }
        UNSCOPED_INFO("seed " << seed << ": covered " << covered_hidden << " / " << covered << " reported hidden; visible " << visible_hidden << " / "
                              << visible << " reported hidden, so far");
    }
    REQUIRE(covered >= 3);
    CHECK(covered_hidden >= 0.6 * covered);
    CHECK(visible_hidden <= 0.02 * visible);
}

namespace {

// A lattice view of `image` whose pitch is `factor` times the tiles' true pitch (0.5: every
// tile cut in four; 2: four tiles a cell), moved by `shift` cells: the cells under the
// rendered tiles' centres, no refit. `truth_view` must sit on the tiles.
std::pair<vision::LatticeView, std::vector<vision::CellObservation>> wrong_lattice(const cv::Mat& image, const vision::LatticeView& truth_view,
                                                                                   const vision::RenderTruth& truth, double factor,
                                                                                   cv::Point2d shift) {
    vision::LatticeView v = truth_view;
    const double p = v.pitch_px;
    // Top px of the true lattice -> top px of a lattice of pitch factor * p (cells scaled by 1 / factor).
    const cv::Matx33d rescale(1 / factor, 0, -shift.x * p, 0, 1 / factor, -shift.y * p, 0, 0, 1);
    v.image_to_top = rescale * truth_view.image_to_top;
    std::map<std::pair<int, int>, bool> seen;
    std::vector<vision::CellObservation> cells;
    double x1 = 0, y1 = 0;
    for (const auto& t : truth.tiles) {
        const cv::Point2d c = vision::apply_homography(v.image_to_top, t.centre_px);
        // With half the pitch a tile covers the 2 x 2 cells around its centre.
        const std::vector<cv::Point2d> at = factor < 1 ? std::vector<cv::Point2d>{c + cv::Point2d(-p / 2, -p / 2), c + cv::Point2d(p / 2, -p / 2),
                                                                                  c + cv::Point2d(-p / 2, p / 2), c + cv::Point2d(p / 2, p / 2)}
                                                       : std::vector<cv::Point2d>{c};
        for (const auto& q : at) {
            const int col = static_cast<int>(std::floor(q.x / p)), row = static_cast<int>(std::floor(q.y / p));
            if (col < 0 || row < 0 || seen[{col, row}]) continue;
            seen[{col, row}] = true;
            cells.push_back({col, row, 1.0, {0, 0}});
            x1 = std::max(x1, (col + 2) * p), y1 = std::max(y1, (row + 2) * p);
        }
    }
    cv::warpPerspective(image, v.top, v.image_to_top, cv::Size(static_cast<int>(x1), static_cast<int>(y1)));
    return {v, cells};
}

}  // namespace

TEST_CASE("the tile contrast tells the true lattice from half, double and half-shifted ones", "[vision][board-reader][lattice-check][scene]") {
    // The reader checks each candidate lattice against the tiles: on the true one the cells'
    // square outlines are much stronger than squares half a pitch away; on a lattice at half
    // or twice the pitch (the pitch search's usual slips) they are not, and on one moved half
    // a pitch the strongest squares are the true tiles.
    const vision::ReaderOptions defaults;
    for (int seed = 1; seed <= 3; ++seed) {
        auto options = vision::RenderOptions::for_difficulty(seed == 3 ? vision::Difficulty::Medium : vision::Difficulty::Easy);
        const auto tiles = random_board(60 + 5 * seed, static_cast<std::uint64_t>(seed));
        auto r = vision::render_table(tiles, options, static_cast<std::uint64_t>(seed));
        REQUIRE(r);
        auto view = vision::find_lattice(r->image);
        REQUIRE(view);
        auto cells = vision::occupied_cells(view.value());
        REQUIRE(vision::refine_lattice(r->image, view.value(), cells, {}));
        REQUIRE(vision::rectification_rms_mm(view.value(), r->truth) < 2.0);  // the view sits on the tiles
        INFO("seed " << seed << ", style " << r->truth.style << ", " << r->truth.surface << " table, tilt " << r->truth.camera.tilt_deg);
        const auto right = vision::tile_contrast(view.value(), cells, {});
        INFO("true lattice: sides " << right.sides << ", half a pitch away " << right.shifted);
        CHECK(right.ratio() >= defaults.min_tile_contrast);
        CHECK(right.best_shift == cv::Point2d(0, 0));
        for (const double factor : {0.5, 2.0}) {
            const auto [v, c] = wrong_lattice(r->image, view.value(), r->truth, factor, {0, 0});
            const auto wrong = vision::tile_contrast(v, c, {});
            INFO("pitch x" << factor << ": sides " << wrong.sides << ", half a pitch away " << wrong.shifted);
            CHECK(wrong.ratio() < defaults.min_tile_contrast);
        }
        // Half a pitch off along x: the true tiles are the strongest squares, half a pitch across x.
        const auto [v, c] = wrong_lattice(r->image, view.value(), r->truth, 1.0, {0.5, 0});
        const auto moved = vision::tile_contrast(v, c, {});
        INFO("moved half a pitch: sides " << moved.sides << ", half a pitch away " << moved.shifted);
        CHECK(moved.ratio() < 1.0);
        CHECK(moved.best_shift == cv::Point2d(view->pitch_px / 2, 0));
    }
}

TEST_CASE("glare and light gradients on the table are not taken for tiles", "[vision][board-reader][table][scene]") {
    // The table's colours are learnt along the frame's edge; near the board a glare spot and
    // the light gradient brighten it by a lightness bin or more. Counted: occupied cells of
    // the lattice (before the refit drops cells without an outline) where no tile lies.
    auto options = vision::RenderOptions::for_difficulty(vision::Difficulty::Medium);
    options.surfaces = {vision::TableSurface::Plain, vision::TableSurface::Wood};
    options.tilt_deg = {5, 12};
    options.glare_chance = 1;
    options.glare_strength = {0.5, 0.6};
    options.glare_radius = {0.12, 0.14};
    options.light_gradient = {0.3, 0.4};
    options.hand_chance = 0;
    int invented_tolerant = 0, invented_strict = 0, boards = 0;
    for (int seed = 21; seed <= 24; ++seed) {
        const auto tiles = random_board(60, static_cast<std::uint64_t>(seed));
        auto r = vision::render_table(tiles, options, static_cast<std::uint64_t>(seed));
        REQUIRE(r);
        auto count = [&](int reach) {
            vision::LatticeOptions lo;
            lo.table_lightness_reach = reach;
            auto view = vision::find_lattice(r->image, lo);
            if (!view) return -1;
            const auto real = true_tiles_per_cell(view.value(), r->truth);
            int n = 0;
            for (const auto& c : vision::occupied_cells(view.value(), lo)) n += !real.count({c.col, c.row});
            return n;
        };
        const int tolerant = count(1), strict = count(0);
        INFO("seed " << seed << ", " << r->truth.surface << " table: table cells taken for tiles " << tolerant << " (lightness reach 1), " << strict << " (reach 0)");
        if (tolerant < 0 || strict < 0) continue;
        ++boards;
        invented_tolerant += tolerant, invented_strict += strict;
    }
    INFO(boards << " boards: " << invented_tolerant << " table cells taken for tiles (reach 1), " << invented_strict << " (reach 0)");
    REQUIRE(boards >= 3);
    CHECK(invented_tolerant <= invented_strict);
    CHECK(invented_tolerant <= boards);
}

TEST_CASE("when every cell looks occupied, the cells in the board's colours are kept", "[vision][board-reader][table][scene]") {
    // A glared wood table or a cloth in the tiles' colours can make occupancy take the whole
    // frame for tiles (more cells than the game has): keep_board_colours learns the board's
    // colours from cells aligned with the lattice and the table's from the rest. Here every
    // cell of a refitted lattice is offered; counted against the true tile centres.
    auto options = vision::RenderOptions::for_difficulty(vision::Difficulty::Medium);
    options.surfaces = {vision::TableSurface::Wood, vision::TableSurface::Cloth};
    options.tilt_deg = {10, 20};
    options.glare_chance = 1;
    options.glare_strength = {0.4, 0.5};
    options.hand_chance = 0;
    int tiles_n = 0, kept_tiles = 0, kept_table = 0, table_offered = 0, boards = 0;
    for (int seed = 31; seed <= 34; ++seed) {
        const auto tiles = random_board(60, static_cast<std::uint64_t>(seed));
        auto r = vision::render_table(tiles, options, static_cast<std::uint64_t>(seed));
        REQUIRE(r);
        auto view = vision::find_lattice(r->image);
        if (!view) continue;
        auto cells = vision::occupied_cells(view.value());
        REQUIRE(vision::refine_lattice(r->image, view.value(), cells, {}));
        if (vision::rectification_rms_mm(view.value(), r->truth) > 3.0) continue;  // this test is about occupancy, not the lattice
        const auto real = true_tiles_per_cell(view.value(), r->truth);
        std::vector<vision::CellObservation> every;
        for (int row = 0; row < view->rows; ++row) {
            for (int col = 0; col < view->cols; ++col) every.push_back({col, row, 1.0, {0, 0}});
        }
        const auto kept = vision::keep_board_colours(view.value(), every, {});
        int on_tiles = 0;
        for (const auto& c : kept) on_tiles += real.count({c.col, c.row}) ? 1 : 0;
        UNSCOPED_INFO("seed " << seed << ", " << r->truth.surface << ": " << every.size() << " cells offered, " << kept.size() << " kept, " << on_tiles
                              << " of " << real.size() << " tiles");
        ++boards;
        tiles_n += static_cast<int>(real.size());
        kept_tiles += on_tiles;
        kept_table += static_cast<int>(kept.size()) - on_tiles;
        table_offered += static_cast<int>(every.size()) - static_cast<int>(real.size());
    }
    REQUIRE(boards >= 3);
    INFO(kept_tiles << " of " << tiles_n << " tiles kept, " << kept_table << " of " << table_offered << " table cells kept");
    CHECK(kept_tiles >= 0.9 * tiles_n);
    CHECK(kept_table <= 0.05 * table_offered);
}

TEST_CASE("small tiles far from the camera are found from their own short sides", "[vision][board-reader][lattice][scene]") {
    // A board filling under half the frame has tiles about 20 work px wide: their sides are
    // shorter than min_segment, and the few longer edges near the board (gaps running on
    // across tiles) can miss one direction. The search near the board then looks again with
    // edges from min_board_segment. Counted: boards whose lattice (before the refit) lands
    // within 8 mm (measured: 4 of 6 with the short edges, 3 with long ones only).
    auto options = vision::RenderOptions::for_difficulty(vision::Difficulty::Medium);
    options.fill = {0.4, 0.45};
    options.hand_chance = 0;
    auto good_boards = [&](double min_board_segment) {
        int good = 0;
        for (int seed = 41; seed <= 46; ++seed) {
            const auto tiles = random_board(60, static_cast<std::uint64_t>(seed));
            auto r = vision::render_table(tiles, options, static_cast<std::uint64_t>(seed));
            REQUIRE(r);
            vision::LatticeOptions lo;
            lo.min_board_segment = min_board_segment;
            auto view = vision::find_lattice(r->image, lo);
            const double rms = view ? vision::rectification_rms_mm(view.value(), r->truth) : -1;
            UNSCOPED_INFO("seed " << seed << ", " << r->truth.surface << ", tilt " << r->truth.camera.tilt_deg << ", min_board_segment " << min_board_segment
                                  << ": " << (view ? "rms " + std::to_string(rms) + " mm" : view.error().message));
            good += view && rms < 8.0;
        }
        return good;
    };
    const vision::LatticeOptions defaults;
    const int with_short = good_boards(defaults.min_board_segment), long_only = good_boards(defaults.min_segment);
    CHECK(with_short >= 4);
    CHECK(with_short > long_only);
}

TEST_CASE("tiles laid out in rows whose sides do not match are no board", "[vision][board-reader][decoy][scene]") {
    // A printed reference sheet or tiles sorted on the table: a lattice and tiles, but
    // neighbours whose sides cannot agree. The decoder cannot make them match, and the
    // reading is refused (ReaderOptions::min_side_agreement); a legal board of as many tiles
    // rendered the same way is read.
    const auto& catalog = *base();
    const auto& types = catalog.tiles();
    auto options = vision::RenderOptions::for_difficulty(vision::Difficulty::Easy);
    options.style = "classic";
    options.surfaces = {vision::TableSurface::Plain};
    options.hand_chance = 0;
    int sheets_refused = 0, boards_read = 0;
    for (int seed = 51; seed <= 53; ++seed) {
        // A 5 x 8 block of tiles, each turned at random: touching sides mostly differ.
        std::mt19937 rng(static_cast<std::uint32_t>(seed));
        std::vector<vision::SceneTile> sheet;
        for (int row = 0; row < 5; ++row) {
            for (int col = 0; col < 8; ++col) {
                vision::SceneTile t;
                t.type = &types[static_cast<std::size_t>((row * 8 + col) % static_cast<int>(types.size()))];
                t.at = Cell{col, row};
                t.rot = static_cast<int>(rng() % 4);
                sheet.push_back(t);
            }
        }
        auto r = vision::render_table(sheet, options, static_cast<std::uint64_t>(seed));
        REQUIRE(r);
        auto reading = vision::read_board(r->image, catalog);
        REQUIRE(reading);
        UNSCOPED_INFO("seed " << seed << " sheet: " << (reading->found ? "read as a board of " + std::to_string(reading->tiles.size()) + " tiles" : reading->message));
        sheets_refused += !reading->found;
        auto legal = vision::render_table(random_board(40, static_cast<std::uint64_t>(seed)), options, static_cast<std::uint64_t>(seed));
        REQUIRE(legal);
        auto board = vision::read_board(legal->image, catalog);
        REQUIRE(board);
        UNSCOPED_INFO("seed " << seed << " board: " << (board->found ? "read, " + std::to_string(board->tiles.size()) + " tiles" : board->message));
        boards_read += board->found;
    }
    CHECK(sheets_refused == 3);
    CHECK(boards_read == 3);
}

TEST_CASE("a photo larger than max_frame_side is read shrunk, its view mapping the camera image", "[vision][board-reader][speed]") {
    const auto& catalog = *base();
    auto options = vision::RenderOptions::for_difficulty(vision::Difficulty::Easy);
    const auto tiles = random_board(65, 21);
    auto r = vision::render_table(tiles, options, 21);
    REQUIRE(r);
    // The same frame at twice the size (3840x2160): pixel (x, y) becomes (2x + 0.5, 2y + 0.5).
    cv::Mat big;
    cv::resize(r->image, big, cv::Size(), 2, 2, cv::INTER_LINEAR);
    vision::ReaderOptions shrink;
    shrink.max_frame_side = 2560;
    auto reading = vision::read_board(big, catalog, shrink);
    REQUIRE(reading);
    REQUIRE(reading->found);
    const auto& view = reading->view;
    CHECK(view.frame == big.size());
    CHECK(reading->stages.candidates >= 1);
    CHECK(reading->stages.total.wall_ms >= reading->stages.lines.wall_ms);
    std::map<std::pair<int, int>, int> read;
    for (const auto& t : reading->tiles) read[{t.col, t.row}] = 1;
    int own = 0;
    for (const auto& t : r->truth.tiles) {
        own += read.count(cell_of(view, 2 * t.centre_px + cv::Point2d(0.5, 0.5))) > 0;
    }
    INFO(own << " of " << r->truth.tiles.size() << " true tiles fall in a read cell; " << reading->tiles.size() << " read");
    CHECK(own >= 0.95 * static_cast<double>(r->truth.tiles.size()));
    CHECK(reading->tiles.size() <= r->truth.tiles.size() + 2);
    // The shrinking is an option with a checked range.
    vision::ReaderOptions bad;
    bad.max_frame_side = 100;
    CHECK_FALSE(bad.check());
}

namespace {

// How many of the boards rendered with `render` at `seeds` (first random_board(tiles(seed),
// seed)) the reader, set up by `set`, reads within `max_rms_mm`; each outcome is logged.
int boards_read_within(const vision::RenderOptions& render, const std::vector<std::uint64_t>& seeds, int (*tiles)(std::uint64_t),
                       const std::function<void(vision::ReaderOptions&)>& set, double max_rms_mm, const std::string& what) {
    int good = 0;
    for (const std::uint64_t seed : seeds) {
        auto r = vision::render_table(random_board(tiles(seed), seed), render, seed);
        REQUIRE(r);
        vision::ReaderOptions reader;
        set(reader);
        const double rms = test::read_rms_mm(*r, reader);
        UNSCOPED_INFO("seed " << seed << ", " << what << ": " << (std::isinf(rms) ? "no board" : "rms " + std::to_string(rms) + " mm"));
        good += rms < max_rms_mm;
    }
    return good;
}

}  // namespace

TEST_CASE("a lattice framing many cells weakly beats one framing few sharply", "[vision][board-reader][lattice-check][scene]") {
    // Blurred steep views weaken every outline, the true lattice's too: on these boards it
    // frames its 50-80 cells 1.4-1.5 times more than half a pitch away, under
    // min_tile_contrast, while a wrong lattice over ~20 cells (a tile's art, a corner of the
    // board) passes at 1.7, or the fold's own wrong choice is read (31 mm off). Counted:
    // boards read within 3 mm, with the weaker tier over twice min_checked_tiles cells and
    // without it. (Hard renders of bench/vision seeds 1011 and 5009.)
    auto options = vision::RenderOptions::for_difficulty(vision::Difficulty::Hard);
    auto good_boards = [&](double weak_tile_contrast) {
        return boards_read_within(
            options, {1011u, 5009u}, [](std::uint64_t seed) { return 60 + static_cast<int>(seed % 21); },
            [&](vision::ReaderOptions& r) {
                r.weak_tile_contrast = weak_tile_contrast;
                // Seams off: with them hard 1011 is also read within 3 mm (1.6 mm) on the clear tier
                // alone (cause not traced), and the pair no longer shows what the weak tier adds.
                r.min_seam_pairs = 1000000;
                // The terrain model's restarts off too: with either, hard 1011 (muted art)
                // classifies consistently on the true lattice, and the classifier's choice among
                // unsure lattices reads it within 3 mm (1.5 mm) on the clear tier alone (terrain14).
                r.classifier.swapped_restart = false;
                r.classifier.grass_restart = false;
                // And the reading again of a board refused by its sides (refusal15): with it, hard
                // 1011's reading on the clear tier alone (1.6 mm, refused by its sides without
                // the restarts) is kept.
                r.relearn_share = 0;
                // And the road-side check (cls20; the old per-arm check back): with it, the clear
                // tier alone reads both boards within 3 mm too.
                r.classifier.road_side_penalty = 0;
                r.classifier.arm_penalty = 3.0;
            },
            3.0,
            "weak_tile_contrast " + std::to_string(weak_tile_contrast));
    };
    const vision::ReaderOptions defaults;
    const int with_weak = good_boards(defaults.weak_tile_contrast), clear_only = good_boards(defaults.min_tile_contrast);
    CHECK(with_weak == 2);
    CHECK(with_weak > clear_only);
}

namespace {

// The rendered frame grown on the horizon's side by a plain wall until the horizon lies
// `horizon_at` half-widths of the grown frame from its centre (a taller frame from the same
// camera: the table seen from a seat, the wall behind it beyond the board); the truth's
// pixels move with the frame. For views whose horizon lies above or below the frame (roll 0).
void grow_towards_horizon(vision::Rendering& r, double horizon_at) {
    const cv::Vec3d h = r.truth.table_to_image.inv().t() * cv::Vec3d(0, 0, 1);  // the table's line at infinity in the image
    REQUIRE(std::abs(h[1]) > 1e-12);
    const double cx = r.image.cols / 2.0, cy = r.image.rows / 2.0;
    const double beyond = std::abs(-(h[2] + h[0] * cx) / h[1] - cy);  // the horizon's distance from the centre (px)
    REQUIRE(beyond > cy);
    int pad = 0;
    auto distance = [&](int p) { return (beyond - p / 2.0) / (std::max(r.image.cols, r.image.rows + p) / 2.0); };
    while (distance(pad) > horizon_at && pad < 4 * r.image.rows) pad += 10;
    const bool above = -(h[2] + h[0] * cx) / h[1] < cy;
    const cv::Scalar wall = cv::mean(r.image.row(above ? 0 : r.image.rows - 1));
    cv::copyMakeBorder(r.image, r.image, above ? pad : 0, above ? 0 : pad, 0, 0, cv::BORDER_CONSTANT, wall);
    if (above) {
        for (auto& t : r.truth.tiles) t.centre_px.y += pad;
    }
}

}  // namespace

TEST_CASE("a steep view whose horizon lies just above the frame is rectified", "[vision][board-reader][lattice][scene]") {
    // A table seen from a seat has the horizon just above the frame or inside it (the wall
    // behind the table): about one half-width from the frame's centre. A horizon required
    // outside a disc of 1.2 half-widths about the centre refused such views (5 of the 10 lost
    // development photos, steep views of a table); now it must only miss the board's colours
    // by `horizon_margin`. Tilted over `level_tilt_deg`, the view is turned to look straight
    // down before the pitches are measured: foreshortened by the tilt's cosine, the two axes'
    // pitches differed by more than max_aspect and a halved or doubled one was read. Rendered
    // steep views (tilt 48-50 degrees, the renderer's limit) grown by a wall until the horizon
    // lies 1.0 half-widths from the centre. Counted: boards read within 5 mm, with the defaults
    // (measured 6 of 8), with the horizon required 1.2 from the board (4: seeds found by the
    // zoomed search, whose crop puts the horizon farther out) and without levelling (2).
    auto options = vision::RenderOptions::for_difficulty(vision::Difficulty::Medium);
    options.tilt_deg = {48, 50};
    options.fov_deg = {60, 60};
    options.roll_deg = {0, 0};
    options.hand_chance = 0;
    auto good_boards = [&](double horizon_margin, double level_tilt_deg) {
        int good = 0;
        for (const std::uint64_t seed : {71u, 72u, 73u, 74u, 75u, 76u, 77u, 78u}) {
            auto r = vision::render_table(random_board(50, seed), options, seed);
            REQUIRE(r);
            grow_towards_horizon(r.value(), 1.0);
            vision::ReaderOptions reader;
            reader.lattice.horizon_margin = horizon_margin;
            reader.lattice.level_tilt_deg = level_tilt_deg;
            const double rms = test::read_rms_mm(*r, reader);
            UNSCOPED_INFO("seed " << seed << ", tilt " << r->truth.camera.tilt_deg << ", horizon_margin " << horizon_margin << ", level_tilt_deg " << level_tilt_deg << ": "
                                  << (std::isinf(rms) ? "no board" : "rms " + std::to_string(rms) + " mm"));
            good += rms < 5.0;
        }
        return good;
    };
    const vision::LatticeOptions defaults;
    const int near_horizon = good_boards(defaults.horizon_margin, defaults.level_tilt_deg);
    CHECK(near_horizon >= 5);
    if (test::kSanitizedBuild) return;  // the ablation arms: plain build only (tests/sanitizers/build_kind.h)
    const int far_only = good_boards(1.2, defaults.level_tilt_deg), unlevelled = good_boards(defaults.horizon_margin, 90);
    CHECK(near_horizon > far_only);
    CHECK(near_horizon > unlevelled);
}

TEST_CASE("a small board on a busy table is searched again in a crop around it", "[vision][board-reader][lattice][scene]") {
    // A board spanning a third of the frame has tiles ~20 px wide in the work image: a
    // tartan's long stripes outvote their short sides in the line directions, and no
    // candidate frames the tiles. Cropped to the board's box (its colours) the frame is read
    // at up to its own resolution. Counted: boards read within 5 mm, zoom on and off
    // (measured: 5 of 6 and 4 of 6; seed 62 was read 152 mm off without the crop).
    auto options = vision::RenderOptions::for_difficulty(vision::Difficulty::Medium);
    options.surfaces = {vision::TableSurface::Busy};
    options.fill = {0.3, 0.4};
    options.hand_chance = 0;
    auto good_boards = [&](double min_zoom) {
        return boards_read_within(
            options, {61u, 62u, 63u, 64u, 65u, 66u}, [](std::uint64_t) { return 60; }, [&](vision::ReaderOptions& r) { r.min_zoom = min_zoom; },
            5.0, "min_zoom " + std::to_string(min_zoom));
    };
    const vision::ReaderOptions defaults;
    const int zoomed = good_boards(defaults.min_zoom);
    CHECK(zoomed >= 5);
    if (test::kSanitizedBuild) return;  // the ablation arm: plain build only (tests/sanitizers/build_kind.h)
    const int unzoomed = good_boards(100);
    CHECK(zoomed > unzoomed);
}

TEST_CASE("tiles coloured like a busy cloth are found by their outlines beside the board", "[vision][board-reader][table][grow][scene]") {
    const auto& catalog = *base();
    // The bench's medium boards 1004 and 1010 (busy cloths in the tiles' colours): the table
    // mask lost 11 and 8 tiles on the right lattice.
    int missed_grown = 0, missed_plain = 0, invented_grown = 0, boards = 0;
    for (const std::uint64_t seed : {1004u, 1010u}) {
        const auto r = render_bench_medium(seed);
        auto grown = vision::read_board(r.image, catalog);
        vision::ReaderOptions no_growth;
        no_growth.grow_rounds = 0;
        auto plain = vision::read_board(r.image, catalog, no_growth);
        REQUIRE(grown);
        REQUIRE(plain);
        REQUIRE(grown->found);
        REQUIRE(plain->found);
        ++boards;
        const auto [m1, i1] = missed_and_invented(*grown, r.truth);
        const auto [m0, i0] = missed_and_invented(*plain, r.truth);
        missed_grown += m1, invented_grown += i1, missed_plain += m0;
        UNSCOPED_INFO("seed " << seed << ": missed " << m1 << " grown, " << m0 << " without; invented " << i1 << " grown, " << i0 << " without");
    }
    // Measured: 11 + 8 missed without, 1 + 5 grown (the rest: dropped by the classifier's table model or outside the lattice); none invented.
    CHECK(missed_grown + 6 <= missed_plain);
    CHECK(invented_grown <= boards);
}

TEST_CASE("reader options refuse a growth alignment below 1", "[vision][board-reader][bad-input]") {
    vision::ReaderOptions o;
    o.min_added_alignment = 0.9;
    CHECK_FALSE(o.check());
    o.min_added_alignment = 2.0;
    o.grow_rounds = -1;
    CHECK_FALSE(o.check());
    o.grow_rounds = 2;
    CHECK(o.check());
}

namespace {

// Reads the bench's board `seed` at `preset` (test::render_bench_board) with `options`; returns
// every true tile whose cell was read, and in `invented` (when given) the tiles read on cells
// where none lies.
std::vector<test::TileReadBack> bench_board_read(std::uint64_t seed, vision::Difficulty preset, int* invented = nullptr,
                                                 const vision::ReaderOptions& options = {}) {
    vision::BoardReading reading;
    auto tiles = test::read_back(test::render_bench_board(seed, preset), *base(), options, &reading);
    std::erase_if(tiles, [](const test::TileReadBack& t) { return t.read == nullptr; });
    if (invented) *invented = static_cast<int>(reading.tiles.size() - tiles.size());
    return tiles;
}

// A reading's misread tiles, and those of them read with more city sides than the truth has (a
// city invented over grass: the terrain model took a grass colour for city).
struct CityMisreads {
    int matched = 0, misread = 0, as_city = 0;
};
CityMisreads count_city_misreads(const std::vector<test::TileReadBack>& tiles) {
    auto city_ports = [](const TileType& tt) {
        int n = 0;
        for (const auto& f : tt.features) n += f.kind == FeatureKind::City ? static_cast<int>(f.ports.size()) : 0;
        return n;
    };
    CityMisreads out;
    out.matched = static_cast<int>(tiles.size());
    for (const auto& t : tiles) {
        out.misread += !t.right;
        out.as_city += !t.right && city_ports(*t.read) > city_ports(*t.truth);
    }
    return out;
}

// A "cake": pale flat icing panels on a dark background, tile art pasted on `tiled_share` of
// each panel's cells (random cells, random tiles: a decoration, not a game), the panels'
// straight sides and the tiles' gaps on one lattice; the other cells are plain icing. With
// every cell tiled it is a board of tiles (laid out apart, so only the lattice counts).
cv::Mat render_cake(double tiled_share, std::uint64_t seed) {
    const auto& catalog = *base();
    const auto& style = vision::builtin_tile_styles().front();
    constexpr int kTile = 64, kGap = 2, kPitch = kTile + kGap, kCols = 8, kRows = 6;
    std::mt19937_64 rng(seed);
    cv::Mat image(720, 1280, CV_8UC3, cv::Scalar(25, 20, 20));
    for (const cv::Point origin : {cv::Point(60, 150), cv::Point(700, 170)}) {
        const cv::Rect panel(origin, cv::Size(kCols * kPitch, kRows * kPitch));
        image(panel).setTo(cv::Scalar(185, 225, 195));  // mint icing (BGR)
        cv::Mat noise(panel.size(), CV_8UC3);
        cv::randn(noise, cv::Scalar::all(0), cv::Scalar::all(3));
        image(panel) += noise;
        std::vector<int> cells(kCols * kRows);
        std::iota(cells.begin(), cells.end(), 0);
        std::shuffle(cells.begin(), cells.end(), rng);
        const auto n = static_cast<std::size_t>(std::lround(tiled_share * kCols * kRows));
        for (std::size_t k = 0; k < n; ++k) {
            const int col = cells[k] % kCols, row = cells[k] / kCols;
            const auto& type = catalog.tiles()[rng() % catalog.tiles().size()];
            const cv::Mat art = vision::render_tile(type, static_cast<int>(rng() % 4), kTile, style, rng);
            art.copyTo(image(cv::Rect(panel.x + col * kPitch + kGap / 2, panel.y + row * kPitch + kGap / 2, kTile, kTile)));
        }
    }
    return image;
}

}  // namespace

TEST_CASE("a glared board's grass is not read as city", "[vision][board-reader][classify]") {
    // The bench's medium board 1015 (classic art, a busy red cloth, glare over the board's middle):
    // the glared grass made a colour cluster of its own, which the EM started as city; 23 of its
    // 67 tiles were read as cities (C, S, P, Q) on the right lattice.
    const auto [matched, misread, as_city] = count_city_misreads(bench_board_read(1015, vision::Difficulty::Medium));
    INFO(misread << " of " << matched << " tiles misread, " << as_city << " of them with city invented");
    // Measured: 0 of 67 (was 23, every one with city invented).
    REQUIRE(matched >= 60);
    CHECK(misread <= 3);
    CHECK(as_city <= 1);
}

TEST_CASE("cities coloured like the roads are read as cities, not fields", "[vision][board-reader][classify]") {
    // The bench's medium board 7000 (muted art, whose cities and roads share one beige, on a pink
    // cloth under a reddish light), read on the right lattice: the EM started the road on the
    // beige and the city on the other clusters (the table's, a dark shade), so the city took the
    // grass and the field the beige; every one of its 67 tiles was misread, while the decoder made
    // every touching side agree.
    int misread = 0, city_as_field = 0;
    const auto tiles = bench_board_read(7000, vision::Difficulty::Medium);
    const int matched = static_cast<int>(tiles.size());
    for (const auto& t : tiles) {
        misread += !t.right;
        city_as_field += t.truth->id == "C" && t.read->id != "C";  // its one full city
    }
    INFO(misread << " of " << matched << " tiles misread");
    // Measured: 3 of 67 (was 67; the full city read as B).
    REQUIRE(matched >= 60);
    CHECK(misread <= 6);
    CHECK(city_as_field == 0);
}

TEST_CASE("grass a little off its colour over part of the board is read as field, not city", "[vision][board-reader][classify][scene]") {
    // The bench's medium boards 9009 (dusk art on wood: a yellower grass over the board's lower
    // left) and 3012 (contrast art on a busy cloth: a lighter grass over its middle), read on
    // the right lattice: that grass made a colour cluster beyond the start's grass chroma, the
    // EM started it as city and kept it there, and its tiles read as full cities (12 of 60 on
    // 9009, 16 of 63 on 3012 misread; 11 and 16 of them with city invented).
    for (const std::uint64_t seed : {9009u, 3012u}) {
        const auto [matched, misread, as_city] = count_city_misreads(bench_board_read(seed, vision::Difficulty::Medium));
        INFO("board " << seed << ": " << misread << " of " << matched << " tiles misread, " << as_city << " with city invented");
        // Measured: 9009 1 misread (0 with city invented), 3012 0; with grass_restart off 12 (11), 16 (16).
        REQUIRE(matched >= 55);
        CHECK(misread <= 3);
        CHECK(as_city <= 1);
    }
}

TEST_CASE("of two colours the city holds the grass is the one nearer the field", "[vision][board-reader][classify][scene]") {
    // The bench's medium board 13012 (contrast art on wood, a hand; its lattice reframed, 6.7 mm):
    // a greener grass over part of the board made a colour cluster of its own that the EM kept as
    // city, beside the city's own grey. Both passed grass_held_by_city's test, and the grey,
    // held more, was taken for grass: its restart explained the frame worse and was dropped, the
    // green stayed city, and its tiles read as cities (U as C, V as E or F).
    const auto [matched, misread, as_city] = count_city_misreads(bench_board_read(13012, vision::Difficulty::Medium));
    INFO(misread << " of " << matched << " tiles misread, " << as_city << " with city invented");
    // Measured: 13 of 58 misread, 8 with city invented (cells on the reframed lattice's rim, 0.2 pitch off
    // their tiles); with grass_nearest_field off 35 and 25.
    REQUIRE(matched >= 50);
    CHECK(misread <= 18);
    CHECK(as_city <= 12);
}

TEST_CASE("holes the table mask took for tiles do not refuse a board", "[vision][board-reader][classify][refusal][scene]") {
    // The bench's medium board 13016 (dusk art on an orange wood table), its lattice right
    // (0.6 mm): 14 holes in the board show wood the table mask calls tile, and
    // the seams do not drop (the wood lies near the dusk art's colours). They taught the city the
    // wood's colour and read as full cities, 30 of 118 touching sides disagreed, and the board
    // was refused as tiles laid out apart. With the tiles whose sides mostly disagree teaching
    // nothing (ReaderOptions::relearn_share), the classifier's table model drops the holes.
    // With the road-side check (cls20) one relearning leaves it refused (half the holes lie side
    // by side and keep teaching; the next test, syn21's second round): the old per-arm check here,
    // so that the single relearning is what is tested.
    const auto& catalog = *base();
    vision::ReaderOptions arm_check;
    arm_check.classifier.road_side_penalty = 0;
    arm_check.classifier.arm_penalty = 3.0;
    vision::ReaderOptions off = arm_check;
    off.relearn_share = 0;
    const vision::Rendering r = test::render_bench_board(13016, vision::Difficulty::Medium);
    auto refused = vision::read_board(r.image, catalog, off);
    REQUIRE(refused);
    INFO("without relearning: " << (refused->found ? "read, " + std::to_string(refused->tiles.size()) + " tiles" : refused->message));
    CHECK(!refused->found);
    int misread = 0, invented = 0;
    const auto tiles = bench_board_read(13016, vision::Difficulty::Medium, &invented, arm_check);
    for (const auto& t : tiles) misread += !t.right;
    INFO(misread << " of " << tiles.size() << " tiles misread, " << invented << " invented (of 72 true tiles)");
    // Measured: 64 of 72 read, 0 misread, 0 invented (7 missed beside the hand or by the mask, 1 under the hand).
    CHECK(tiles.size() >= 60);
    CHECK(misread <= 2);
    CHECK(invented <= 2);
}

TEST_CASE("holes in a group, still teaching the city after one relearning, are untaught in a second round", "[vision][board-reader][classify][refusal][scene]") {
    // The bench's medium board 13016 again, with the default road-side check: the first reading's
    // 14 holes read as cities, 32 of 118 touching sides disagree. The 7 holes whose sides mostly
    // disagree are untaught, but the other 7 lie in groups (a hole beside a hole: city meets city,
    // so as many sides agree as disagree) and keep teaching the city the wood's colour: the
    // reading made again is the same and the board was refused. A second round
    // (ReaderOptions::relearn_rounds) adds the remaining tiles whose disagreeing sides at least
    // equal their agreeing ones, and the table model then drops the holes.
    const auto& catalog = *base();
    vision::ReaderOptions once;
    once.relearn_rounds = 1;
    const vision::Rendering r = test::render_bench_board(13016, vision::Difficulty::Medium);
    auto refused = vision::read_board(r.image, catalog, once);
    REQUIRE(refused);
    INFO("one round: " << (refused->found ? "read, " + std::to_string(refused->tiles.size()) + " tiles" : refused->message));
    CHECK(!refused->found);
    int misread = 0, invented = 0;
    const auto tiles = bench_board_read(13016, vision::Difficulty::Medium, &invented);
    for (const auto& t : tiles) misread += !t.right;
    INFO(misread << " of " << tiles.size() << " tiles misread, " << invented << " invented (of 72 true tiles)");
    // Measured: 64 of 72 read, 1 misread (V under the hand), 0 invented.
    CHECK(tiles.size() >= 60);
    CHECK(misread <= 2);
    CHECK(invented <= 2);
}

TEST_CASE("a rescaled lattice framing its cells clearly replaces a choice that frames none", "[vision][board-reader][lattice][rescale][scene]") {
    // The bench's medium board 13001 (dusk art on a busy cloth, tilt 1): no candidate frames its
    // cells (the best 1.33 times over 29 cells), so the fold's own lattice was read, 14.5 mm off
    // (41 of 62 tiles wrong or missed). Measured again on its own top view, that candidate frames
    // 32 cells 1.69 times, 2.6 mm off, but a rescaled lattice was taken only when sure (2.5 times).
    // When the choice shows no tiles, the clearest rescaled one showing tiles clearly is taken
    // (RescaleOptions::clear_when_unshown).
    const vision::Rendering r = test::render_bench_board(13001, vision::Difficulty::Medium);
    auto rms_with = [&](bool clear) {
        vision::ReaderOptions options;
        options.rescale.clear_when_unshown = clear;
        return test::read_rms_mm(r, options);
    };
    const double clear = rms_with(true), sure_only = rms_with(false);
    INFO("clear rescaled taken " << clear << " mm, only sure ones " << sure_only << " mm");
    CHECK(clear < 4.0);
    CHECK(sure_only > 10.0);
}

TEST_CASE("tiles beyond the box of the board's colours are read", "[vision][board-reader][extent][scene]") {
    // The reader's top view covers the box of the board's colours as the line search saw them.
    // The bench's medium board 7017 (classic art on a green flowered cloth): its right column and
    // bottom rows are as green as the cloth, left out of the box, and 9 tiles were never looked
    // at; 13014 (muted art on a pale table, a hand at the right): 10 tiles beyond the left and
    // bottom. The chosen view is widened where tiles show their outlines beyond it
    // (ReaderOptions::board_margin_cells), and the cells offered on their outline find them.
    const auto& catalog = *base();
    vision::ReaderOptions off;
    off.board_margin_cells = 0;
    off.rim_ring_outlines = false;  // as measured (lost18): the rim ring finds one of 7017's tiles in the narrow view too (miss35)
    for (const std::uint64_t seed : {7017u, 13014u}) {
        const vision::Rendering r = test::render_bench_board(seed, vision::Difficulty::Medium);
        const auto missed = test::missed_tiles;
        const auto narrow = test::read_back(r, catalog, off);
        const auto wide = test::read_back(r, catalog);
        const int misread = test::misread_tiles(wide);
        INFO("seed " << seed << ": " << missed(narrow) << " missed in the colours' box, " << missed(wide) << " widened, " << misread << " misread of "
                     << wide.size());
        // Measured: 7017 9 -> 0 missed, 0 misread; 13014 11 -> 2 missed, 4 misread (under the hand).
        CHECK(missed(narrow) >= 8);
        CHECK(missed(wide) <= 2);
        CHECK(misread <= 4);
    }
}

TEST_CASE("tiles on the view's rim and beyond the grown board are read", "[vision][board-reader][extent][rim][scene]") {
    // The view is cut to the box of the board's colours: a rim tile's outer side lies on the
    // view's edge with no table beyond it to make a step, and the squares half a pitch away it is
    // compared with run off the view, so its outline measured weak (medium 7016's top row on a
    // plain table, 7014's dusk tiles on a tartan): ReaderOptions::rim_ring_outlines measures it on
    // a view grown by a cell. And the view was widened only where cells read by occupancy reached
    // its side; tiles grown on their outlines reached sides none did, past which the board went on
    // (7006: 3 tiles past the left side; 7014: 3 past the bottom): widen_grown_board.
    const auto& catalog = *base();
    vision::ReaderOptions off, on;
    off.rim_ring_outlines = false, off.widen_grown_board = false;
    on.rim_ring_outlines = true, on.widen_grown_board = true;
    int missed_off = 0, missed_on = 0, misread_off = 0, misread_on = 0;
    for (const std::uint64_t seed : {7006u, 7014u, 7016u}) {
        const vision::Rendering r = test::render_bench_board(seed, vision::Difficulty::Medium);
        const auto before = test::read_back(r, catalog, off);
        const auto after = test::read_back(r, catalog, on);
        const auto missed = test::missed_tiles;
        const auto misread = test::misread_tiles;
        INFO("seed " << seed << ": missed " << missed(before) << " -> " << missed(after) << ", misread " << misread(before) << " -> " << misread(after));
        missed_off += missed(before), missed_on += missed(after), misread_off += misread(before), misread_on += misread(after);
        CHECK(missed(after) <= missed(before));
    }
    INFO("missed " << missed_off << " -> " << missed_on << ", misread " << misread_off << " -> " << misread_on);
    // Measured: missed 13 -> 3 (7006 3 -> 0, 7014 8 -> 2, 7016 2 -> 1), misread 1 -> 2 (a tile
    // 7014 gains is read wrong).
    CHECK(missed_on <= missed_off - 8);
    CHECK(misread_on <= misread_off + 1);
}

TEST_CASE("a tile the colours call a tile is looked for off its cell", "[vision][board-reader][extent][offset-search][scene]") {
    // Medium 13001 (a board half off its lattice, a hand), 13019 and 7019: tiles the table mask
    // or the board's colours call tiles, beside the board, whose outline at their neighbours'
    // offset measured under min_masked_alignment: the tile lies off its cell by more than the
    // outline probe reaches. ReaderOptions::masked_offset_search measures them again at offsets
    // around it, the best kept with its offset.
    const auto& catalog = *base();
    vision::ReaderOptions off, on;
    off.masked_offset_search = 0;
    on.masked_offset_search = 0.15;
    int missed_off = 0, missed_on = 0, wrong_off = 0, wrong_on = 0;
    for (const std::uint64_t seed : {13001u, 13019u, 7019u}) {
        const vision::Rendering r = test::render_bench_board(seed, vision::Difficulty::Medium);
        vision::BoardReading before_reading, after_reading;
        const auto before = test::read_back(r, catalog, off, &before_reading);
        const auto after = test::read_back(r, catalog, on, &after_reading);
        const auto invented = [](const auto& tiles, const vision::BoardReading& reading) {
            return static_cast<int>(reading.tiles.size()) - (static_cast<int>(tiles.size()) - test::missed_tiles(tiles));
        };
        const int m0 = test::missed_tiles(before), m1 = test::missed_tiles(after);
        const int w0 = test::misread_tiles(before) + invented(before, before_reading), w1 = test::misread_tiles(after) + invented(after, after_reading);
        INFO("seed " << seed << ": missed " << m0 << " -> " << m1 << ", misread or invented " << w0 << " -> " << w1);
        missed_off += m0, missed_on += m1, wrong_off += w0, wrong_on += w1;
        CHECK(m1 <= m0);
    }
    INFO("missed " << missed_off << " -> " << missed_on << ", misread or invented " << wrong_off << " -> " << wrong_on);
    // Measured by the bench (hidden tiles counted missed): missed 32 -> 15, misread 2 -> 7, invented 1 -> 2.
    CHECK(missed_on <= missed_off - 10);
    CHECK(missed_on + wrong_on <= missed_off + wrong_off - 6);
}

TEST_CASE("a cell whose found offset its seams refuse is judged at its guessed offset", "[vision][board-reader][extent][offset-search][scene]") {
    // Medium 13001 and 13004: cells the offset search moves whose sides at the found offset do not
    // continue the read tiles' art. ReaderOptions::masked_offset_seams refuses the found offset,
    // not the cell: at 4 (no such cell here continues four read tiles) the board reads as with the
    // search off. Dropping the refused cells outright lost tiles the reader keeps at their guessed
    // offset (the bench: 13001 44 -> 43 tiles, 13004 65 -> 63; 13000- 7.28 -> 7.50 %).
    const auto& catalog = *base();
    vision::ReaderOptions off, searched, refused;
    off.masked_offset_search = 0;
    searched.masked_offset_search = refused.masked_offset_search = 0.15;
    refused.masked_offset_seams = 4;
    const auto cells = [](const vision::BoardReading& reading) {
        std::set<std::tuple<int, int, int, int>> out;
        for (const auto& t : reading.tiles) out.insert({t.col, t.row, t.type, t.rot});
        return out;
    };
    for (const std::uint64_t seed : {13001u, 13004u}) {
        INFO("seed " << seed);
        const vision::Rendering r = test::render_bench_board(seed, vision::Difficulty::Medium);
        const auto read = read_with_each(r.image, catalog, {off, searched, refused});
        const auto& without = read[0];
        CHECK(cells(read[1]) != cells(without));  // the search moves cells here
        CHECK(cells(read[2]) == cells(without));  // its found offsets refused, as without the search
    }
}

TEST_CASE("a board whose tiles few outlines frame surely is cut from a table taken for tiles, not refused", "[vision][board-reader][table][board-seed][scene]") {
    // Hard 7000: a muted board on a muted cloth. Occupancy takes the cloth for tiles (278 cells,
    // more than the game has), and keep_board_colours learnt nothing: under 8 cells of the true
    // lattice were framed 1.5 times, so the cells stayed and the lattice was refused as too many
    // and the board lost. LatticeOptions::board_colour_seed_share lets the most aligned quarter
    // teach the board's colours and the cells under the median the table's.
    const auto& catalog = *base();
    const vision::Rendering r = test::render_bench_board(7000, vision::Difficulty::Hard);
    vision::ReaderOptions off, on;
    off.lattice.board_colour_seed_share = 0;
    on.lattice.board_colour_seed_share = 0.25;
    auto lost = vision::read_board(r.image, catalog, off);
    REQUIRE(lost);
    INFO("off: " << (lost->found ? std::to_string(lost->tiles.size()) + " tiles" : lost->message));
    CHECK_FALSE(lost->found);
    vision::BoardReading reading;
    const auto tiles = test::read_back(r, catalog, on, &reading);  // throws when no board is read
    const int missed = test::missed_tiles(tiles), misread = test::misread_tiles(tiles);
    const int invented = static_cast<int>(reading.tiles.size()) - (static_cast<int>(tiles.size()) - missed);
    INFO("on: " << tiles.size() << " true tiles, " << missed << " missed, " << misread << " misread, " << invented << " invented");
    // Measured: 67 true tiles, 0 missed, 14 misread, 3 invented (off: all 67 missed).
    CHECK(missed + misread <= 20);
    CHECK(invented <= 5);
}

TEST_CASE("a monastery without a road is not read with a road stub", "[vision][board-reader][classify][scene]") {
    // The bench's easy boards 1002, 1003, 1009 and 1019 each read one B (a monastery alone) as A
    // (a road from one side to the monastery): road samples of thin roads fall on grass, so the
    // road's colours include grass and an arm over grass was nearly free.
    int b_tiles = 0, b_as_a = 0, a_tiles = 0, a_right = 0;
    for (const std::uint64_t seed : {1002u, 1009u, 1019u}) {
        for (const auto& t : bench_board_read(seed, vision::Difficulty::Easy)) {
            if (t.truth->id == "B") ++b_tiles, b_as_a += t.read->id == "A";
            if (t.truth->id == "A") ++a_tiles, a_right += t.right;
        }
    }
    INFO(b_as_a << " of " << b_tiles << " B read as A; " << a_right << " of " << a_tiles << " A read right");
    // Measured: 0 of 12 (was 3: one per board); A: 6 of 6.
    REQUIRE(b_tiles >= 6);
    CHECK(b_as_a == 0);
    CHECK(a_right >= a_tiles - 1);
}

TEST_CASE("a decoy whose lattice frames plain cells is no board", "[vision][board-reader][decoy][scene]") {
    // A cake decorated with tile art (real photo test_4 was read as a 40-tile board, its
    // touching sides made to agree by the decoder): the lattice holds the icing's plain cells
    // too, framed by nothing. Half of each rendered cake's cells carry random tile art, the
    // rest is icing. Counted: cakes refused with the tiles' median alignment
    // (ReaderOptions::min_median_alignment) and without it (measured: 3 and 1 of 6 — the
    // side agreement refuses one, the alignment two more; the other three, whose icing cells
    // the reader left out, are read: a known gap, docs/vision-journal.md "Weak (honestly)"); legal boards
    // rendered plainly are still read.
    const auto& catalog = *base();
    vision::ReaderOptions no_alignment;
    no_alignment.min_median_alignment = 0;
    int refused = 0, refused_without = 0;
    for (const std::uint64_t seed : {71u, 72u, 73u, 74u, 75u, 76u, 77u, 78u, 79u, 80u}) {
        const cv::Mat cake = render_cake(0.5, seed);
        auto reading = vision::read_board(cake, catalog);
        REQUIRE(reading);
        UNSCOPED_INFO("seed " << seed << " cake: " << (reading->found ? "read, " + std::to_string(reading->tiles.size()) + " tiles" : reading->message)
                              << ", median alignment " << reading->evidence.median_alignment << " over " << reading->evidence.aligned_cells);
        refused += !reading->found;
        auto without = vision::read_board(cake, catalog, no_alignment);
        REQUIRE(without);
        refused_without += !without->found;
    }
    CHECK(refused >= 3);
    CHECK(refused >= refused_without + 2);
    auto options = vision::RenderOptions::for_difficulty(vision::Difficulty::Easy);
    options.hand_chance = 0;
    for (const std::uint64_t seed : {77u, 78u}) {
        auto legal = vision::render_table(random_board(50, seed), options, seed);
        REQUIRE(legal);
        auto board = vision::read_board(legal->image, catalog);
        REQUIRE(board);
        INFO("seed " << seed << " board: " << board->message << ", median alignment " << board->evidence.median_alignment);
        CHECK(board->found);
        CHECK(board->evidence.median_alignment >= vision::ReaderOptions{}.min_median_alignment);
    }
}

TEST_CASE("the lattice whose cells classify consistently is read when none frames its cells clearly", "[vision][board-reader][lattice-check][scene]") {
    // Steep blurred views: no candidate's outlines frame many cells clearly, and the fold's own
    // wrong choice (13 mm off, hard 1010) or a wrong lattice framing 22 cells sharply (218 mm
    // off, hard 5005) was read while the true lattice was among the candidates (tile contrast
    // 0.83-1.08). Classified, the true lattice's cells each take a best hypothesis whose roads
    // the neighbours' continue on 87-88 % of road sides, the wrong ones' on 33-42 %. Counted: boards read
    // within 3 mm with the choice by classification (ReaderOptions::min_unary_gain) and
    // without it (measured: 2 and 0).
    auto options = vision::RenderOptions::for_difficulty(vision::Difficulty::Hard);
    auto good_boards = [&](double min_unary_gain) {
        return boards_read_within(
            options, {1010u, 5005u}, [](std::uint64_t seed) { return 60 + static_cast<int>(seed % 21); },
            [&](vision::ReaderOptions& r) { r.min_unary_gain = min_unary_gain; }, 3.0, "min_unary_gain " + std::to_string(min_unary_gain));
    };
    const vision::ReaderOptions defaults;
    const int classified = good_boards(defaults.min_unary_gain), outlines_only = good_boards(1.0);
    CHECK(classified == 2);
    CHECK(classified > outlines_only);
}

namespace {
// Missed and invented cells summed over the bench's medium boards `seeds`, read with
// `now_options` ("now") and with `before_options`; `check_now` looks at each board's reading now.
struct NowAndBefore {
    int missed_now = 0, missed_before = 0, invented_now = 0, invented_before = 0;
};
// Reader options as before stop 34's defaults (no tiles across a gap, no lattice searched again
// on its own cells): the ablation tests written before them measure their own feature alone.
vision::ReaderOptions without_stop34_growth(vision::ReaderOptions o = {}) {
    o.min_across_gap_alignment = 0;
    o.reframe.enabled = false;
    return o;
}

NowAndBefore read_now_and_before(const std::vector<std::uint64_t>& seeds, const vision::ReaderOptions& before_options,
                                 const vision::ReaderOptions& now_options = {},
                                 const std::function<void(const vision::BoardReading&)>& check_now = {}) {
    const auto& catalog = *base();
    NowAndBefore t;
    for (const std::uint64_t seed : seeds) {
        const auto r = render_bench_medium(seed);
        auto now = vision::read_board(r.image, catalog, now_options);
        auto before = vision::read_board(r.image, catalog, before_options);
        REQUIRE(now);
        REQUIRE(before);
        REQUIRE(now->found);
        REQUIRE(before->found);
        const auto [m1, i1] = missed_and_invented(*now, r.truth);
        const auto [m0, i0] = missed_and_invented(*before, r.truth);
        t.missed_now += m1, t.invented_now += i1, t.missed_before += m0, t.invented_before += i0;
        if (check_now) check_now(*now);
        UNSCOPED_INFO("seed " << seed << ": missed " << m1 << " now, " << m0 << " before; invented " << i1 << " now, " << i0 << " before");
    }
    return t;
}
}  // namespace

TEST_CASE("tiles under lying followers, walled in by the board and wholly unlike the table, are offered whatever their outline",
          "[vision][board-reader][table][grow][walled][pieces][scene]") {
    // The pieces bench's finished game 5005 (bench/vision --no-tiles --pieces-n 1 --seed 5005): two
    // red followers lie on the middles of two tiles side by side (K and U). The outline check drops
    // both, and the squares half a pitch away, through the followers, outline as well as the tiles'
    // own (cell_alignment 0.89 and 0.70, min_masked_alignment 1.1): the board was read in two and
    // its score not built. The mask calls both wholly not table (1.00).
    const auto rendering = test::render_bench_game(5005);
    REQUIRE_FALSE(rendering.truth.pieces.empty());
    vision::ReaderOptions off;
    off.min_walled_share = 2.0;
    const vision::ReaderOptions on;  // the reader's default
    CHECK(on.min_walled_share <= 1.0);
    const auto before = test::read_back(rendering, *base(), off);
    const auto now = test::read_back(rendering, *base(), on);
    INFO("missed " << test::missed_tiles(before) << " -> " << test::missed_tiles(now) << ", misread " << test::misread_tiles(before) << " -> "
                   << test::misread_tiles(now));
    CHECK(test::missed_tiles(before) >= 2);
    CHECK(test::missed_tiles(now) + 2 <= test::missed_tiles(before));
    CHECK(test::misread_tiles(now) <= test::misread_tiles(before));
}

TEST_CASE("reader options refuse a walled share of zero or less and a walled tile count outside one to four", "[vision][board-reader][walled][bad-input]") {
    vision::ReaderOptions o;
    CHECK(o.check());
    o.min_walled_share = 0.0;
    CHECK_FALSE(o.check());
    o.min_walled_share = 2.0;  // off
    CHECK(o.check());
    o.min_walled_tiles = 0;
    CHECK_FALSE(o.check());
    o.min_walled_tiles = 5;
    CHECK_FALSE(o.check());
}

TEST_CASE("tiles the outline check or the board's group dropped are found again where the mask calls them not table", "[vision][board-reader][table][grow][scene]") {
    // The bench's medium boards 1017 (a cloth in the tiles' green: five corner tiles cut off from
    // the board, the one joining them with a weak outline) and 5014 (glared wood: tiles at the rim).
    auto masked = without_stop34_growth();  // the masked growth alone, without the seams (measured apart below)
    masked.min_seam_pairs = 1000000;
    vision::ReaderOptions outline_only = masked;  // as before: every offered cell needs min_added_alignment, two rounds
    outline_only.min_masked_alignment = outline_only.min_added_alignment;
    outline_only.grow_rounds = 2;
    const auto t = read_now_and_before({1017u, 5014u}, outline_only, masked, [](const vision::BoardReading& now) {
        // The alignment refusal's median leaves out the cells offered on their outline (chosen for
        // standing out, they would raise it) and the hidden ones.
        std::map<std::pair<int, int>, bool> outlined;
        for (const auto& c : now.offered) outlined[{c.col, c.row}] = !c.teaches;
        int measured = 0, grown = 0;
        for (const auto& tile : now.tiles) {
            const bool offered_on_outline = outlined[{tile.col, tile.row}];
            grown += offered_on_outline;
            measured += !tile.hidden && !offered_on_outline;
        }
        CHECK(grown >= 1);
        CHECK(now.evidence.aligned_cells == measured);
    });
    // Measured: 5 + 10 missed outline only, 0 + 5 now; none invented either way.
    CHECK(t.missed_now + 8 <= t.missed_before);
    CHECK(t.invented_now <= t.invented_before);
}

TEST_CASE("holes in the board are told from tiles by their seams: a hole's sides do not continue its neighbours' art",
          "[vision][board-reader][table][seams][scene]") {
    // The bench's medium boards 1013 (holes showing glared wood, read by occupancy as full
    // cities), 1015 (flowers in holes offered on their outline) and 5000 (holes in a busy cloth,
    // both ways). "Before": the board's median seam is never learnt, seams unused.
    vision::ReaderOptions no_seams;
    no_seams.min_seam_pairs = 1000000;
    const auto t = read_now_and_before({1013u, 1015u, 5000u}, no_seams);
    // Measured: invented 3 + 3 + 4 without seams, 0 + 0 + 1 with; missed unchanged.
    CHECK(t.invented_now + 6 <= t.invented_before);
    CHECK(t.missed_now <= t.missed_before);
}

TEST_CASE("tiles with a weak outline are found where their art runs on into their read neighbours'",
          "[vision][board-reader][table][grow][seams][scene]") {
    // The bench's medium boards 1009, 1010 (a tile on wood or cloth whose outline measured
    // 1.1: alignment alone offered it not, nor the masked tiles behind it) and 5018 (a busy cloth
    // in the tiles' colours: 35 of 72 tiles missed on the right lattice). "Before": every offered
    // cell needs its outline.
    auto outline_only = without_stop34_growth();
    outline_only.min_seam_alignment = outline_only.min_added_alignment;
    const auto t = read_now_and_before({1009u, 1010u, 5018u}, outline_only, without_stop34_growth());
    // Measured: missed 2 + 3 + 35 outline only, 0 + 2 + 30 now; invented 0 + 0 + 2 both ways.
    CHECK(t.missed_now + 6 <= t.missed_before);
    CHECK(t.invented_now <= t.invented_before);
}

TEST_CASE("tiles whose colours the mask calls table are offered where the board's own tiles show those colours",
          "[vision][board-reader][table][grow][board-colours][scene]") {
    // The bench's medium boards 5018 (dusk art on a yellow-orange-pink plaid: the mask's coarse
    // lightness calls the dusk fields the plaid's pale stripes) and 1000 (a busy cloth in the
    // contrast style's colours). "Before": no cell is offered on the board's own colours.
    vision::ReaderOptions no_board_colours;
    no_board_colours.min_board_colour_share = 2;
    const auto t = read_now_and_before({5018u, 1000u}, no_board_colours);
    // Measured: missed 30 + 7 without, 27 + 6 now; invented 2 + 0 both ways.
    CHECK(t.missed_now + 3 <= t.missed_before);
    CHECK(t.invented_now <= t.invented_before);
}

TEST_CASE("cells walled in by the board are not offered on a weak outline when the lattice frames its tiles no better than half a pitch away",
          "[vision][board-reader][table][grow][seams][scene]") {
    // The bench's medium board 13012 (a contrast board on wood read on a lattice 34 mm off: its
    // read tiles' median cell_alignment 0.88). Its seams run through the tiles' art and continue,
    // so cells walled in by it look enclosed: offered, they changed the reading (59 -> 62 tiles
    // wrong). min_enclosing_board_alignment keeps the reading as it was without the rule.
    const auto& catalog = *base();
    const auto r = render_bench_medium(13012);
    // Read without reframing (on since stop 34, it mends 13012's lattice): the guard is for a
    // lattice left off, as when the search again finds nothing better.
    const auto as_found = without_stop34_growth();
    auto off = as_found, unguarded = as_found;
    off.min_enclosing_tiles = 0;
    unguarded.min_enclosing_board_alignment = 0;
    const auto read = read_with_each(r.image, catalog, {as_found, off, unguarded});
    const auto &now = read[0], &without = read[1], &loose = read[2];
    const auto cells = [](const vision::BoardReading& b) {
        std::set<std::pair<int, int>> out;
        for (const auto& t : b.tiles) out.insert({t.col, t.row});
        return out;
    };
    CHECK(cells(now) == cells(without));
    CHECK(cells(loose) != cells(without));  // the rule would offer cells here: the guard is what keeps them out
}

TEST_CASE("reader options refuse enclosed-cell bounds out of range", "[vision][board-reader][bad-input]") {
    vision::ReaderOptions o;
    o.min_enclosing_tiles = 5;
    CHECK_FALSE(o.check());
    o.min_enclosing_tiles = -1;
    CHECK_FALSE(o.check());
    o.min_enclosing_tiles = 0;  // off
    CHECK(o.check());
    o.enclosed_alignment_share = -0.1;
    CHECK_FALSE(o.check());
    o.enclosed_alignment_share = 0.6;
    o.min_enclosed_like = 0;
    CHECK_FALSE(o.check());
    o.min_enclosed_like = 2;
    CHECK(o.check());
}

TEST_CASE("reader options refuse a board colour share or ratio out of range", "[vision][board-reader][bad-input]") {
    vision::ReaderOptions o;
    o.min_board_colour_share = 0;
    CHECK_FALSE(o.check());
    o.min_board_colour_share = 0.5;
    o.board_colour_ratio = 0.5;
    CHECK_FALSE(o.check());
    o.board_colour_ratio = 4;
    o.board_colour_reach = -1;
    CHECK_FALSE(o.check());
    o.board_colour_reach = 1;
    CHECK(o.check());
}

TEST_CASE("the masked offset search options are checked", "[vision][board-reader][offset-search][bad-input]") {
    vision::ReaderOptions o;
    CHECK(o.check());
    o.masked_offset_search = -0.1;
    CHECK_FALSE(o.check());
    o.masked_offset_search = 0.6;
    CHECK_FALSE(o.check());
    o.masked_offset_search = 0.15;
    CHECK(o.check());
    o.masked_offset_step = 0;
    CHECK_FALSE(o.check());
    o.masked_offset_step = 0.05;
    o.masked_offset_overlap = -1;
    CHECK_FALSE(o.check());
    o.masked_offset_overlap = 0.05;
    o.masked_offset_neighbours = 5;
    CHECK_FALSE(o.check());
    o.masked_offset_neighbours = 2;
    CHECK(o.check());
    o.masked_offset_seams = -1;
    CHECK_FALSE(o.check());
    o.masked_offset_seams = 5;
    CHECK_FALSE(o.check());
    o.masked_offset_seams = 1;
    o.masked_offset_chain = false;
    CHECK(o.check());
}

TEST_CASE("reader options refuse a masked growth alignment outside [1, min_added_alignment] and seam thresholds out of order",
          "[vision][board-reader][bad-input]") {
    vision::ReaderOptions o;
    o.min_masked_alignment = 0.9;
    CHECK_FALSE(o.check());
    o.min_masked_alignment = o.min_added_alignment + 0.1;
    CHECK_FALSE(o.check());
    o.min_masked_alignment = 1.1;
    CHECK(o.check());
    o.seam_like = 0;
    CHECK_FALSE(o.check());
    o.seam_like = 2.0;
    o.seam_unlike = 1.5;
    CHECK_FALSE(o.check());
    o.seam_unlike = 4.0;
    o.min_seam_alignment = o.min_added_alignment + 0.1;
    CHECK_FALSE(o.check());
    o.min_seam_alignment = 1.0;
    o.min_seam_pairs = 0;
    CHECK_FALSE(o.check());
    o.min_seam_pairs = 16;
    CHECK(o.check());
}

TEST_CASE("searches sharing a frame's line segments, table masks made when checked, find the same lattices", "[vision][board-reader][speed]") {
    // The reader's way (one cache for the searches of a frame, masks deferred) against each
    // search made alone: the same candidates, bit for bit.
    const auto r = render_bench_medium(1003);
    vision::LatticeOptions deferred;
    deferred.defer_table_mask = true;
    deferred.warp_top = false;
    vision::LatticeOptions alone = deferred;
    alone.defer_table_mask = false;
    const auto cache = vision::make_line_search_cache();
    for (const bool whole : {false, true, false}) {
        auto shared = vision::find_lattices(r.image, deferred, whole, cache);
        const auto own = vision::find_lattices(r.image, alone, whole);
        REQUIRE(shared.has_value() == own.has_value());
        if (!own) continue;
        REQUIRE(shared->size() == own->size());
        for (std::size_t i = 0; i < own->size(); ++i) {
            auto& s = (*shared)[i];
            const auto& o = (*own)[i];
            CHECK(s.not_table.empty());
            vision::make_table_mask(s);
            CHECK_FALSE(s.pending_table_mask);
            CHECK(cv::norm(s.image_to_top - o.image_to_top) == 0);
            CHECK((s.cols == o.cols && s.rows == o.rows && s.pitch_px == o.pitch_px && s.score == o.score));
            REQUIRE(s.not_table.size() == o.not_table.size());
            CHECK(cv::countNonZero(s.not_table != o.not_table) == 0);
        }
    }
}

TEST_CASE("a board running off the frame is told from the table though its colours reach the edge band", "[vision][board-reader][table][off-frame]") {
    // Real test_07: a close shot of a 66-tile board touching three sides of the frame. Its grass
    // fills a fifth of the frame's edge band, so "colours rarer along the edge than overall"
    // (not_table_ratio) called it table, and every candidate lattice held at most 18 cells.
    // Drawn here: dark wood, a board of grass with city squares and dark gaps over half the frame,
    // running off its left edge (grass 0.2 of the edge band, 0.5 of the frame: 0.4 of the ratio the
    // table's colours have along the edge, which is 1.65).
    std::mt19937 rng(7);
    std::normal_distribution<double> noise(0, 6);
    cv::Mat frame(360, 480, CV_8UC3);
    const cv::Rect board(0, 50, 320, 280);
    for (int y = 0; y < frame.rows; ++y) {
        for (int x = 0; x < frame.cols; ++x) {
            cv::Vec3d bgr(40, 60, 95);  // wood
            if (board.contains({x, y})) {
                const bool gap = x % 40 < 2 || (y - board.y) % 40 < 2;
                const bool city = (x / 40 + (y - board.y) / 40) % 3 == 0 && x % 40 > 12 && (y - board.y) % 40 > 12;
                bgr = gap ? cv::Vec3d(30, 45, 50) : city ? cv::Vec3d(95, 150, 195) : cv::Vec3d(50, 175, 115);
            }
            for (int k = 0; k < 3; ++k) frame.at<cv::Vec3b>(y, x)[k] = cv::saturate_cast<std::uint8_t>(bgr[k] + noise(rng));
        }
    }
    auto overlap = [&](const cv::Rect& box) { return static_cast<double>((box & board).area()) / static_cast<double>((box | board).area()); };
    vision::LatticeOptions off_frame;
    off_frame.table_share_of_median = vision::ReaderOptions{}.off_frame_table_share;
    const cv::Rect with = vision::board_bounds(frame, off_frame);
    const cv::Rect without = vision::board_bounds(frame, vision::LatticeOptions{});
    INFO("box with the edge band's median " << with << ", without " << without);
    CHECK(overlap(with) >= 0.85);
    CHECK(overlap(without) < 0.5);
}

TEST_CASE("the off-frame search is skipped when its table rule hardly changes the board's colours", "[vision][board-reader][table][off-frame][scene]") {
    // A board wholly inside the frame: the edge band is table, and calling a colour table only
    // when it reaches the band far more often than the band's median colour changes next to
    // nothing in the mask, so the search would check the first search's candidates again (a
    // refit each; on real photos a quarter of the CPU). No lattice is made sure here
    // (sure_tile_contrast out of reach), so without the gate the off-frame search runs.
    const auto catalog = test::base_catalog_for_render();
    auto render_options = vision::RenderOptions::for_difficulty(vision::Difficulty::Easy);
    auto r = vision::render_table(random_board(62, 5), render_options, 5);
    REQUIRE(r);
    vision::ReaderOptions options;
    options.sure_tile_contrast = 1e9;
    auto searches_off_frame = [&](const vision::ReaderOptions& o) {
        auto reading = vision::read_board(r->image, *catalog, o);
        REQUIRE(reading);
        CHECK(reading->found);
        return std::count_if(reading->checked.begin(), reading->checked.end(), [](const auto& c) { return std::string(c.search) == "off frame"; });
    };
    const cv::Mat first = [&] {
        auto cache = vision::make_line_search_cache();
        return vision::board_colour_mask(r->image, vision::LatticeOptions{}, *cache);
    }();
    vision::LatticeOptions off_frame_lattice;
    off_frame_lattice.table_share_of_median = options.off_frame_table_share;
    auto cache = vision::make_line_search_cache();
    cv::Mat changed;
    cv::bitwise_xor(first, vision::board_colour_mask(r->image, off_frame_lattice, *cache), changed);
    const double change = static_cast<double>(cv::countNonZero(changed)) / static_cast<double>(changed.total());
    INFO("mask pixels the off-frame rule changes: " << change);
    REQUIRE(change < options.off_frame_min_mask_change);
    CHECK(searches_off_frame(options) == 0);
    options.off_frame_min_mask_change = 0;
    CHECK(searches_off_frame(options) > 0);
}

namespace {

// The bench's easy board 1015 cut where one column keeps 80-92 % of its tiles' width (the
// photo's right edge), and which of the tiles left in the photo's truth were cut so.
struct CutBoard {
    vision::Rendering cropped;
    std::vector<bool> cut_tiles;  // per tile of cropped.truth.tiles
    double cut = 0;               // the photo's new right edge (px)
    int most = 0;                 // tiles cut to 80-92 %
};

CutBoard cut_through_last_column() {
    const vision::Rendering whole = test::render_bench_board(1015, vision::Difficulty::Easy);
    // Each tile's extent across x (px) in the image.
    std::vector<std::pair<double, double>> span;
    for (const auto& t : whole.truth.tiles) {
        double lo = 1e9, hi = -1e9;
        for (const auto& c : t.corners_px) lo = std::min(lo, c.x), hi = std::max(hi, c.x);
        span.emplace_back(lo, hi);
    }
    auto kept_share = [&](std::size_t i, double cut) { return (cut - span[i].first) / (span[i].second - span[i].first); };
    auto is_cut = [&](std::size_t i, double cut) { return kept_share(i, cut) >= 0.8 && kept_share(i, cut) <= 0.92; };
    // The cut keeping 80-92 % of the most tiles (candidates: each tile's 86 %) losing at most 3 more: the board's last column.
    double cut = 0;
    int most = 0;
    for (std::size_t i = 0; i < span.size(); ++i) {
        const double x = span[i].first + 0.86 * (span[i].second - span[i].first);
        int n = 0, lost = 0;
        for (std::size_t j = 0; j < span.size(); ++j) n += is_cut(j, x), lost += kept_share(j, x) < 0.5;
        if (lost <= 3 && n > most) most = n, cut = x;
    }
    CutBoard out;
    out.cut = cut, out.most = most;
    auto& cropped = out.cropped;
    cropped.image = whole.image(cv::Rect(0, 0, static_cast<int>(cut), whole.image.rows)).clone();
    cropped.truth = whole.truth;
    cropped.truth.tiles.clear();
    for (std::size_t i = 0; i < span.size(); ++i) {
        if (whole.truth.tiles[i].centre_px.x >= cut - 1) continue;  // beyond the photo, or half in it: not expected
        cropped.truth.tiles.push_back(whole.truth.tiles[i]);
        out.cut_tiles.push_back(is_cut(i, cut));
    }
    return out;
}

}  // namespace

TEST_CASE("tiles the photo's edge cuts are read from the part it shows", "[vision][board-reader][grow][off-frame][scene]") {
    // A hand-held shot often cuts the board's last column (real test_2: the right column 0.85-0.95
    // inside the photo, never offered: its outline's cut side read as no edge, the cell as outside the
    // frame). The bench's easy board 1015 is cut here where one column keeps 80-92 % of its tiles'
    // width: a U there is read by occupancy on neither reading (the refit wants four sides), and is
    // offered on its outline when LatticeOptions::min_seen_share of its cell is seen, the outline
    // measured on the sides the photo shows and its samples beyond the edge left out.
    // Measured on easy 1000-1015 cut alike: 1015 is the one tile the offer adds (the rest of the cut
    // tiles occupancy reads, or the refit drops with their neighbours).
    const auto& catalog = *base();
    const CutBoard board = cut_through_last_column();
    const auto& cropped = board.cropped;
    const auto& cut_tiles = board.cut_tiles;
    const double cut = board.cut;
    const int most = board.most;
    REQUIRE(most >= 1);
    auto read_right = [&](const vision::ReaderOptions& options, bool cut_ones) {
        const auto back = test::read_back(cropped, catalog, options);
        int right = 0;
        for (std::size_t i = 0; i < back.size(); ++i) right += cut_tiles[i] == cut_ones && back[i].right;
        return right;
    };
    vision::ReaderOptions whole_cells_only;
    whole_cells_only.lattice.min_seen_share = 1.0;
    const int before = read_right(whole_cells_only, true), after = read_right({}, true);
    const int rest_before = read_right(whole_cells_only, false), rest_after = read_right({}, false);
    INFO("cut at x " << cut << ", " << most << " tiles cut to 80-92 %: read right " << before << " offering whole cells only, " << after
                     << " offering cells seen to min_seen_share; the other " << cropped.truth.tiles.size() - static_cast<std::size_t>(most) << " tiles: "
                     << rest_before << " -> " << rest_after << " right");
    // Measured: 1 tile cut, 0 -> 1 read right; the other 64 tiles 63 -> 63.
    CHECK(after == most);
    CHECK(before < after);
    CHECK(rest_after >= rest_before);
}

TEST_CASE("tiles the photo's edge cuts extend a board but do not make one", "[vision][board-reader][off-frame][scene]") {
    // A cut cell is read from the part the photo shows, its samples beyond the edge left out: a
    // cell of noise so read is a tile as readily as a whole one (the noise frame above: one tile
    // read whole beside one cut was a board of two). ReaderOptions::min_tiles counts the tiles
    // read wholly inside the photo (wholly_seen_tiles): on board 1015 cut through its last column
    // the cut U read is left out of them, on the whole photo none is.
    const vision::Rendering whole = test::render_bench_board(1015, vision::Difficulty::Easy);
    const auto uncut = vision::read_board(whole.image, *base());
    REQUIRE(uncut);
    REQUIRE(uncut->found);
    CHECK(vision::wholly_seen_tiles(uncut->view, uncut->tiles) == static_cast<int>(uncut->tiles.size()));
    const CutBoard board = cut_through_last_column();
    REQUIRE(board.most >= 1);
    const auto cut = vision::read_board(board.cropped.image, *base());
    REQUIRE(cut);
    REQUIRE(cut->found);
    const int counted = vision::wholly_seen_tiles(cut->view, cut->tiles);
    INFO(cut->tiles.size() << " tiles read, " << counted << " wholly inside the photo");
    CHECK(counted == static_cast<int>(cut->tiles.size()) - board.most);  // measured: 64 read, 63 whole (the cut U)
    // The same view with no frame known counts every tile.
    vision::LatticeView frameless = cut->view;
    frameless.frame = {};
    CHECK(vision::wholly_seen_tiles(frameless, cut->tiles) == static_cast<int>(cut->tiles.size()));
}

TEST_CASE("lattice options refuse a seen share of 0 or above 1", "[vision][board-reader][bad-input]") {
    vision::ReaderOptions o;
    o.lattice.min_seen_share = 0;
    CHECK_FALSE(o.check());
    o.lattice.min_seen_share = 1.01;
    CHECK_FALSE(o.check());
    o.lattice.min_seen_share = 1;
    CHECK(o.check());
}

TEST_CASE("a board's tiles beyond a tile the mask and outline missed are read across the gap", "[vision][board-reader][occupancy][across-gap][scene]") {
    // The bench's medium boards 7009 (contrast art on wood), 7011 and 7012 (busy tables): a few
    // tiles lie beyond one tile neither the table mask nor its outline showed (an outline on the
    // lattice's square weaker than half a pitch away), so largest_group dropped them with it and
    // the board was grown only from its neighbours (add_outlined_neighbours). With
    // ReaderOptions::min_across_gap_alignment a cell one empty cell away is offered on a clear
    // outline. Measured (tiles right / true tiles read / invented, without -> with): 7009 67/69/0 ->
    // 68/70/0 (a V beyond an A), 7011 66/67/0 -> 68/69/0, 7012 64/64/3 -> 66/66/3: 197 -> 202 right.
    vision::ReaderOptions off, on;  // on by default since pen34
    off.min_across_gap_alignment = 0;
    on.min_across_gap_alignment = 1.6;
    int right_on = 0, right_off = 0, invented_on = 0, invented_off = 0;
    for (const std::uint64_t seed : {7009u, 7011u, 7012u}) {
        int invented = 0;
        const auto on_tiles = bench_board_read(seed, vision::Difficulty::Medium, &invented, on);
        for (const auto& t : on_tiles) right_on += t.right;
        invented_on += invented;
        const auto off_tiles = bench_board_read(seed, vision::Difficulty::Medium, &invented, off);
        for (const auto& t : off_tiles) right_off += t.right;
        invented_off += invented;
    }
    INFO("tiles right: " << right_off << " without, " << right_on << " with; invented " << invented_off << " -> " << invented_on);
    CHECK(right_on >= right_off + 4);
    CHECK(invented_on <= invented_off);
}

TEST_CASE("the across-gap outline bounds are checked", "[vision][board-reader][options]") {
    vision::ReaderOptions o;
    CHECK(o.check());  // the default, 1.6
    o.min_across_gap_alignment = 0;
    CHECK(o.check());  // off
    o.min_across_gap_alignment = 1.6;
    CHECK(o.check());
    o.min_across_gap_alignment = 0.5;
    CHECK_FALSE(o.check());
    o.min_across_gap_alignment = 2.5;  // over the unmasked bound (2.0)
    CHECK_FALSE(o.check());
}

TEST_CASE("a lattice the table's lines pulled off is searched again on its own cells", "[vision][board-reader][lattice][reframe][scene]") {
    // The bench's medium boards 7004 (dusk art on a tartan cloth, tilt 24) and 13012 (contrast
    // art on wood, a hand): the table's stripes or plank seams run within a family's angle of the
    // tiles' edges, join it and pull its vanishing point off, so the top view came out sheared
    // (7004: rect 65 mm) or turning across the board (13012: 34 mm). Searched again with only the
    // taken cells' edges voting (ReframeOptions), found again on its own cells, the lattice fits
    // (7004: 5.7 mm, 13012: 6.7 mm). Measured over both: 29 -> 60 tiles right, invented 23 -> 0.
    // Medium 7011 (a right lattice whose first search again found a wrong one, not found again on
    // its own cells) keeps its reading.
    vision::ReaderOptions off, on;  // on by default since stop 34
    off.reframe.enabled = false;
    REQUIRE(on.reframe.enabled);
    int right_on = 0, right_off = 0, invented_on = 0, invented_off = 0;
    for (const std::uint64_t seed : {7004u, 13012u}) {
        int invented = 0;
        for (const auto& t : bench_board_read(seed, vision::Difficulty::Medium, &invented, on)) right_on += t.right;
        invented_on += invented;
        for (const auto& t : bench_board_read(seed, vision::Difficulty::Medium, &invented, off)) right_off += t.right;
        invented_off += invented;
    }
    INFO("tiles right: " << right_off << " without, " << right_on << " with; invented " << invented_off << " -> " << invented_on);
    CHECK(right_on >= right_off + 30);
    CHECK(invented_on <= invented_off);
    int kept_on = 0, kept_off = 0;
    for (const auto& t : bench_board_read(7011, vision::Difficulty::Medium, nullptr, on)) kept_on += t.right;
    for (const auto& t : bench_board_read(7011, vision::Difficulty::Medium, nullptr, off)) kept_off += t.right;
    CHECK(kept_on == kept_off);
}

TEST_CASE("a lattice a little off its tiles is searched again until it is found again", "[vision][board-reader][lattice][reframe][scene]") {
    // Hard 1003 (dusk, busy cloth, tilt 31): no candidate shows tiles; the fold's own lattice
    // (66 cells, contrast 1.04, 11 mm off) is searched again on its cells. Its second round finds
    // the tiles' own lattice (72 cells, contrast 1.44, 3.5 mm), but that moved the cells only 0.09
    // pitches ("nothing moved": the search ended) and was never searched once more, so it could
    // not be found again; a wrong lattice was read and refused (median alignment 0.66).
    // ReframeOptions::follow_small_moves_that_show and rounds_while_moving take it.
    const auto& catalog = *base();
    const vision::Rendering r = test::render_bench_board(1003, vision::Difficulty::Hard);
    vision::ReaderOptions off, on;
    off.reframe.follow_small_moves_that_show = false;
    off.reframe.rounds_while_moving = 0;
    REQUIRE(on.reframe.follow_small_moves_that_show);
    REQUIRE(on.reframe.rounds_while_moving >= 1);
    auto lost = vision::read_board(r.image, catalog, off);
    REQUIRE(lost);
    INFO("off: " << (lost->found ? std::to_string(lost->tiles.size()) + " tiles" : lost->message));
    CHECK_FALSE(lost->found);
    auto found = vision::read_board(r.image, catalog, on);
    REQUIRE(found);
    INFO("on: " << (found->found ? std::to_string(found->tiles.size()) + " tiles" : found->message));
    REQUIRE(found->found);
    const double rms = vision::rectification_rms_mm(found->view, r.truth);
    INFO("rectification RMS " << rms << " mm");
    CHECK(rms < 10);  // measured 3.5 mm
}

TEST_CASE("a board whose occupancy cells number the game's tiles, table among them, is still grown", "[vision][board-reader][grow][scene]") {
    // Hard 1003 (dusk, busy cloth): occupancy reads 72 cells, the game's 72 tiles, so the growth on
    // outlines was skipped ("a board holding them all has table among them"); but 14 of those cells
    // are table the classifier drops, and 42 true tiles were missed. With
    // ReaderOptions::grow_below_copies_share 1.1 the board is grown: missed 42 -> 20 on the bench.
    const vision::Rendering r = test::render_bench_board(1003, vision::Difficulty::Hard);
    vision::ReaderOptions off, on;
    REQUIRE(off.grow_below_copies_share == 1.0);
    on.grow_below_copies_share = 1.1;
    const auto before = test::read_back(r, *base(), off);
    const auto now = test::read_back(r, *base(), on);
    const int m0 = test::missed_tiles(before), m1 = test::missed_tiles(now);
    const int e0 = m0 + test::misread_tiles(before), e1 = m1 + test::misread_tiles(now);
    INFO("missed " << m0 << " -> " << m1 << ", missed or misread " << e0 << " -> " << e1);
    CHECK(m1 + 10 <= m0);  // measured 42 -> 20
    CHECK(e1 + 5 <= e0);   // measured 61 -> 48
}

TEST_CASE("reader options refuse a growth share of the game's tiles of zero or over four", "[vision][board-reader][grow][bad-input]") {
    vision::ReaderOptions o;
    CHECK(o.check());
    o.grow_below_copies_share = 0;
    CHECK_FALSE(o.check());
    o.grow_below_copies_share = 4.5;
    CHECK_FALSE(o.check());
    o.grow_below_copies_share = 1.1;
    CHECK(o.check());
}

TEST_CASE("a lattice whose roads cannot be measured is kept over a measured one of fewer cells", "[vision][board-reader][lattice][unary][scene]") {
    // Hard 1005 (glare-washed board on wood): no candidate shows tiles; the fold's lattice is the
    // true one (44 cells, 3.9 mm), but on the washed top view its cells' best hypotheses touch
    // along too few road sides for a road share, and the choice by classification took a 27-cell
    // lattice 120 mm off whose share was measured (0.33).
    const auto& catalog = *base();
    const vision::Rendering r = test::render_bench_board(1005, vision::Difficulty::Hard);
    vision::ReaderOptions off, on;
    off.keep_unmeasured_over_fewer_cells = false;
    REQUIRE(on.keep_unmeasured_over_fewer_cells);
    auto wrong = vision::read_board(r.image, catalog, off);
    auto kept = vision::read_board(r.image, catalog, on);
    REQUIRE(wrong);
    REQUIRE(kept);
    const double rms_off = wrong->found ? vision::rectification_rms_mm(wrong->view, r.truth) : 1e9;
    INFO("off: " << (wrong->found ? std::to_string(rms_off) + " mm" : wrong->message));
    CHECK(rms_off > 50);  // measured 119.6 mm
    REQUIRE(kept->found);
    const double rms_on = vision::rectification_rms_mm(kept->view, r.truth);
    INFO("on: " << rms_on << " mm");
    CHECK(rms_on < 10);  // measured 3.9 mm
}

TEST_CASE("the reframe options are checked", "[vision][board-reader][options]") {
    vision::ReaderOptions o;
    CHECK(o.check());
    o.reframe.cell_margin = -0.1;
    CHECK_FALSE(o.check());
    o.reframe.cell_margin = 0.25;
    o.reframe.rounds = 0;
    CHECK_FALSE(o.check());
    o.reframe.rounds = 2;
    o.reframe.max_step = -1;
    CHECK_FALSE(o.check());
    o.reframe.max_step = 0.2;
    o.reframe.rounds_while_moving = -1;
    CHECK_FALSE(o.check());
}
