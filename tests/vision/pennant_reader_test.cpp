// Stage 4b (decide_pennants) on top views built from rendered tiles: every built-in style,
// sharp and blurred, with the pennant twins all handed over as the wrong twin.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <random>
#include <string>
#include <vector>

#include <opencv2/imgproc.hpp>

#include "vision/board_reader.h"
#include "vision/pennant_twins.h"
#include "vision/tile_art.h"
#include "render_fixtures.h"

using namespace meeplecam;

namespace {

bool has_pennant(const TileType& t) {
    for (const auto& f : t.features) {
        if (f.kind == FeatureKind::City && f.pennants > 0) return true;
    }
    return false;
}

struct TwinBoard {
    vision::LatticeView view;
    std::vector<vision::DecodedTile> tiles;  // as the decoder might hand them over: every twin read as its twin
    std::vector<int> truth;                  // the true type per tile
};

// A top view of the types `laid` (indices into the catalog) at rotations `rots`, `px` per tile,
// 9 to a row, no gaps, in one style; each cell handed over as its own type.
TwinBoard laid_board(const Catalog& catalog, const vision::TileStyle& style, const std::vector<int>& laid, const std::vector<int>& rots, int px,
                     std::uint64_t seed) {
    const auto& types = catalog.tiles();
    const int n = static_cast<int>(laid.size()), cols = 9, rows = (n + cols - 1) / cols;
    TwinBoard b;
    b.view.pitch_px = px;
    b.view.cols = cols, b.view.rows = rows;
    b.view.top = cv::Mat(rows * px, cols * px, CV_8UC3, cv::Scalar(60, 90, 120));
    std::mt19937_64 rng(seed);
    for (int i = 0; i < n; ++i) {
        const int type = laid[static_cast<std::size_t>(i)], rot = rots[static_cast<std::size_t>(i)];
        const int col = i % cols, row = i / cols;
        vision::render_tile(types[static_cast<std::size_t>(type)], rot, px, style, rng).copyTo(b.view.top(cv::Rect(col * px, row * px, px, px)));
        vision::DecodedTile t;
        t.col = col, t.row = row, t.rot = rot, t.confidence = 0.9, t.type = type;
        b.tiles.push_back(t);
        b.truth.push_back(type);
    }
    return b;
}

// A top view of `copies` of every base type (rotations cycling), `px` per tile, no gaps, in
// one style; `blur` (Gaussian sigma, px) after assembling. Each twin cell is handed over as
// its pennant twin (the wrong one); every other cell as itself.
TwinBoard twin_board(const Catalog& catalog, const vision::TileStyle& style, int copies, int px, double blur, std::uint64_t seed) {
    const auto twin = vision::pennant_twins(catalog);
    const int kinds = static_cast<int>(catalog.tiles().size()), n = kinds * copies;
    std::vector<int> laid, rots;
    for (int i = 0; i < n; ++i) laid.push_back(i % kinds), rots.push_back((i / kinds + i) % 4);
    TwinBoard b = laid_board(catalog, style, laid, rots, px, seed);
    for (auto& t : b.tiles) {
        if (twin[static_cast<std::size_t>(t.type)] >= 0) t.type = twin[static_cast<std::size_t>(t.type)];
    }
    if (blur > 0) cv::GaussianBlur(b.view.top, b.view.top, cv::Size(), blur);
    return b;
}

struct TwinScore {
    int twins = 0, right = 0, invented = 0, missed = 0;
};

// The innermost pixel of a tile's city (the point farthest from its walls and the tile's edge).
cv::Point innermost_city_pixel(const TileType& type, int rot, int px) {
    const cv::Mat labels = vision::feature_labels(type, rot, px);
    cv::Mat city(labels.size(), CV_8UC1, cv::Scalar(0));
    for (int y = 0; y < px; ++y) {
        for (int x = 0; x < px; ++x) {
            const int f = labels.at<int>(y, x);
            if (f >= 0 && type.features[static_cast<std::size_t>(f)].kind == FeatureKind::City) city.at<std::uint8_t>(y, x) = 255;
        }
    }
    cv::Mat framed, depth;
    cv::copyMakeBorder(city, framed, 1, 1, 1, 1, cv::BORDER_CONSTANT, cv::Scalar(0));
    cv::distanceTransform(framed, depth, cv::DIST_L2, 3);
    cv::Point inner;
    cv::minMaxLoc(depth, nullptr, nullptr, nullptr, &inner);
    return inner - cv::Point(1, 1);
}

// The board's twin cells (their true type one of a pennant twin pair) whose true type shows a
// pennant (`with_pennant`) or not, in board order.
std::vector<std::size_t> twin_cells(const Catalog& catalog, const TwinBoard& b, bool with_pennant) {
    const auto twin = vision::pennant_twins(catalog);
    std::vector<std::size_t> out;
    for (std::size_t i = 0; i < b.tiles.size(); ++i) {
        const auto truth = static_cast<std::size_t>(b.truth[i]);
        if (twin[truth] >= 0 && has_pennant(catalog.tiles()[truth]) == with_pennant) out.push_back(i);
    }
    return out;
}

// The innermost city pixel of the board's i-th tile (its true type) in the board's top view.
cv::Point city_centre_in_view(const Catalog& catalog, const TwinBoard& b, std::size_t i, int px) {
    const auto& tile = b.tiles[i];
    return innermost_city_pixel(catalog.tiles()[static_cast<std::size_t>(b.truth[i])], tile.rot, px) + cv::Point(tile.col * px, tile.row * px);
}

TwinScore score(const Catalog& catalog, const TwinBoard& b, const std::vector<vision::DecodedTile>& read) {
    const auto twin = vision::pennant_twins(catalog);
    TwinScore s;
    for (std::size_t i = 0; i < read.size(); ++i) {
        if (twin[static_cast<std::size_t>(b.truth[i])] < 0) continue;
        ++s.twins;
        const bool want = has_pennant(catalog.tiles()[static_cast<std::size_t>(b.truth[i])]);
        const bool got = has_pennant(catalog.tiles()[static_cast<std::size_t>(read[i].type)]);
        s.right += read[i].type == b.truth[i];
        s.invented += got && !want;
        s.missed += want && !got;
    }
    return s;
}

// Decides the pennants of the board's tiles as they lie (each read as its true type or its twin)
// and scores the twins.
TwinScore decide_and_score(const Catalog& catalog, const TwinBoard& b, const vision::PennantOptions& options = {}) {
    auto read = b.tiles;
    vision::decide_pennants(b.view, read, catalog, options);
    return score(catalog, b, read);
}

}  // namespace

TEST_CASE("pennant twins are told apart in every built-in style", "[vision][board-reader][pennants]") {
    // The contrast style's cities overlap the catalog geometry's walls (no corner bulge): the
    // wall's light band is a thin strip unlike plain city, not a pennant (main read 3 of its
    // 15 plain twins as pennant tiles here).
    const auto& catalog = *test::base_catalog_for_render();
    for (const auto& style : vision::builtin_tile_styles()) {
        const TwinBoard b = twin_board(catalog, style, 3, 90, 0.0, 7);
        auto read = b.tiles;
        const auto evidence = vision::decide_pennants(b.view, read, catalog);
        REQUIRE(evidence.size() == read.size());
        const TwinScore s = score(catalog, b, read);
        INFO("style " << style.name << ": " << s.right << " of " << s.twins << " twins right, " << s.invented << " pennants invented, " << s.missed << " missed");
        CHECK(s.twins == 30);
        CHECK(s.right == s.twins);
    }
}

TEST_CASE("blurred pennants are found by the patch standing out of the city", "[vision][board-reader][pennants]") {
    // A blur like the hard preset's mixes the pennant's colours with the city's, so few cells
    // show a blob unlike plain city; the board's twin cells then split by how far their
    // city's most deviating patch stands out from its fill.
    const auto& catalog = *test::base_catalog_for_render();
    int twins = 0, right = 0;
    for (const auto& style : vision::builtin_tile_styles()) {
        const TwinBoard b = twin_board(catalog, style, 3, 90, 4.5, 8);
        const TwinScore s = decide_and_score(catalog, b);
        UNSCOPED_INFO("style " << style.name << ", blur 4.5 px: " << s.right << " of " << s.twins << " twins right, " << s.invented << " invented, " << s.missed << " missed");
        twins += s.twins, right += s.right;
    }
    INFO(right << " of " << twins << " twins right");
    // Measured: 113 of 120 (muted, dusk: a few pennants missed); by the colour blob alone
    // (main before this cue) 93 of 120: muted 15 of 30, contrast 24, dusk 24.
    CHECK(right >= 0.9 * twins);
}

TEST_CASE("a twin cell on the top view's rim is still read", "[vision][board-reader][pennants]") {
    // The view ends 3 px inside the last column's tiles (a tile whose offset pushes it over the
    // view's edge): those cells were left to the decoder before.
    const auto& catalog = *test::base_catalog_for_render();
    const auto& classic = vision::builtin_tile_styles().front();
    TwinBoard b = twin_board(catalog, classic, 3, 90, 0.0, 9);
    b.view.top = b.view.top(cv::Rect(0, 0, b.view.top.cols - 3, b.view.top.rows)).clone();
    auto read = b.tiles;
    vision::decide_pennants(b.view, read, catalog);
    int rim = 0, rim_right = 0;
    for (std::size_t i = 0; i < read.size(); ++i) {
        if (read[i].col != b.view.cols - 1 || vision::pennant_twins(catalog)[static_cast<std::size_t>(b.truth[i])] < 0) continue;
        ++rim, rim_right += read[i].type == b.truth[i];
    }
    INFO(rim_right << " of " << rim << " twin cells in the cut column right");
    REQUIRE(rim >= 2);
    CHECK(rim_right == rim);
}

TEST_CASE("a blob unlike the board's pennant colour is no pennant, though as large", "[vision][board-reader][pennants]") {
    // One board's pennants are printed alike. A roof, a speck of the table or a follower's
    // patch inside a plain city can be as large as a pennant and of a colour plain city lacks,
    // but not of the pennants' colour (medium seeds 1000: three plain cities read as pennant
    // tiles so, blobs 27-48 Lab units from the board's pennant colour).
    const auto& catalog = *test::base_catalog_for_render();
    const auto& classic = vision::builtin_tile_styles().front();
    TwinBoard b = twin_board(catalog, classic, 3, 90, 0.0, 10);
    int painted = 0;
    for (const std::size_t i : twin_cells(catalog, b, false)) {
        if (painted == 5) break;
        // A magenta disc (about 1 % of the tile, as large as the classic style's shields) on
        // the city's innermost pixel.
        cv::circle(b.view.top, city_centre_in_view(catalog, b, i, 90), 5, cv::Scalar(200, 40, 190), cv::FILLED, cv::LINE_AA);
        ++painted;
    }
    REQUIRE(painted == 5);
    const TwinScore s = decide_and_score(catalog, b);
    INFO(s.right << " of " << s.twins << " twins right, " << s.invented << " pennants invented, " << s.missed << " missed");
    CHECK(s.invented == 0);
    CHECK(s.right == s.twins);
    // Without the colour the discs pass for pennants.
    vision::PennantOptions by_size;
    by_size.min_coloured_pennants = 0;
    CHECK(decide_and_score(catalog, b, by_size).invented == 5);
}

TEST_CASE("a knight over much of a plain city is left out, not read as a pennant by its size", "[vision][board-reader][pennants][cover]") {
    // A follower standing in a city is a blob unlike plain city, far larger than the board's
    // pennants: read by its size (covering_size) it made a pennant (medium seeds 1000- and
    // 5000-: 42 plain cities under a follower read as their pennant twin, 3 without one). Here
    // a blue disc (a standing knight seen from above, 5 % of the tile) lies on the innermost
    // pixel of every plain twin city; handed over as the pieces found (CoverOnBoard), its
    // pixels are no evidence and the rest of the city is read.
    const auto& catalog = *test::base_catalog_for_render();
    const auto& classic = vision::builtin_tile_styles().front();
    constexpr int kPx = 90;
    TwinBoard b = twin_board(catalog, classic, 3, kPx, 0.0, 12);
    for (std::size_t i = 0; i < b.tiles.size(); ++i) b.tiles[i].type = b.truth[i];  // handed over right: a pennant the knight makes is invented
    std::vector<vision::CoverOnBoard> knights;
    for (const std::size_t i : twin_cells(catalog, b, false)) {
        const cv::Point at = city_centre_in_view(catalog, b, i, kPx);
        const int radius = 11;
        cv::circle(b.view.top, at, radius, cv::Scalar(170, 70, 20), cv::FILLED, cv::LINE_AA);
        vision::CoverOnBoard knight;
        for (int k = 0; k < 16; ++k) {
            const double angle = 2 * CV_PI * k / 16;
            knight.outline_top.emplace_back(static_cast<float>(at.x + radius * std::cos(angle)), static_cast<float>(at.y + radius * std::sin(angle)));
        }
        knights.push_back(std::move(knight));
    }
    REQUIRE(knights.size() == 15);
    // Read as seen by size whatever its colour (PennantOptions::cover_needs_colour off, as before
    // real35), the knights make pennants. By default a blob that large must be of the pennants'
    // colour to make one: the blue knights are not, and the board reads right even as seen.
    vision::PennantOptions by_size;
    by_size.cover_needs_colour = false;
    const TwinScore as_seen = decide_and_score(catalog, b, by_size);
    INFO("as seen, by size: " << as_seen.invented << " pennants invented, " << as_seen.missed << " missed");
    REQUIRE(as_seen.invented > 0);  // else this test proves nothing (measured: 15 invented, 15 missed)
    const TwinScore as_seen_by_colour = decide_and_score(catalog, b);
    INFO("as seen, by colour: " << as_seen_by_colour.invented << " pennants invented, " << as_seen_by_colour.missed << " missed");
    CHECK(as_seen_by_colour.invented == 0);
    CHECK(as_seen_by_colour.missed == 0);
    auto read = b.tiles;
    vision::decide_pennants(b.view, read, catalog, {}, knights);
    const TwinScore without_knights = score(catalog, b, read);
    INFO("the knights left out: " << without_knights.right << " of " << without_knights.twins << " twins right, " << without_knights.invented
                                  << " invented, " << without_knights.missed << " missed");
    CHECK(without_knights.invented == 0);
    CHECK(without_knights.right == without_knights.twins);
    // The same through the reading of a found board (detect_pieces_rereading's pass): every tile
    // whose twin changes is replaced, the rest kept as read.
    vision::BoardReading reading;
    reading.found = true;
    reading.view = b.view;
    reading.tiles = b.tiles;
    vision::decide_pennants(reading.view, reading.tiles, catalog, by_size);  // as read_board left them by size: knights taken for pennants
    auto changed = vision::decide_pennants_under_pieces(reading, knights, catalog);
    REQUIRE(changed);
    CHECK(changed.value() == as_seen.invented + as_seen.missed);  // the knights' blobs also raise the board's pennant size: true ones missed
    CHECK(score(catalog, b, reading.tiles).right == without_knights.twins);
    // A reading without a board is refused.
    vision::BoardReading no_board;
    CHECK_FALSE(vision::decide_pennants_under_pieces(no_board, knights, catalog));
}

TEST_CASE("a pennant a knight hides is read back from the tile counts", "[vision][board-reader][pennants][cover][counts]") {
    // A knight standing on a city's pennant hides it: the rest of the city shows none and the
    // tile is read as its plain twin (rendered medium 1000-: 8 of 10 games, 3 lost their exact
    // score to this alone). The edition's counts tell it back when the plain twin is then read
    // on more tiles than the game holds: here every base type once and two more N (all 3 of the
    // C3 edition's), the one M (of 2) with a knight on its pennant. The N whose pennant spot the
    // pieces hide most takes the M back; with within_copies off it stays an N.
    const auto& catalog = *test::base_catalog_for_render();
    const auto& classic = vision::builtin_tile_styles().front();
    const auto& types = catalog.tiles();
    constexpr int kPx = 90;
    int m = -1, n = -1;
    for (std::size_t t = 0; t < types.size(); ++t) {
        if (types[t].id == "M") m = static_cast<int>(t);
        if (types[t].id == "N") n = static_cast<int>(t);
    }
    REQUIRE(m >= 0);
    REQUIRE(n >= 0);
    REQUIRE(types[static_cast<std::size_t>(n)].count_in("C3") == 3);
    std::vector<int> laid, rots;
    for (std::size_t t = 0; t < types.size(); ++t) laid.push_back(static_cast<int>(t));
    laid.push_back(n), laid.push_back(n);
    for (std::size_t i = 0; i < laid.size(); ++i) rots.push_back(static_cast<int>(i) % 4);
    TwinBoard b = laid_board(catalog, classic, laid, rots, kPx, 31);
    // The knight on the M's pennant (the art prints it at the city's innermost pixel).
    std::vector<vision::CoverOnBoard> knight(1);
    for (const auto& t : b.tiles) {
        if (t.type != m) continue;
        const cv::Point at = innermost_city_pixel(types[static_cast<std::size_t>(m)], t.rot, kPx) + cv::Point(t.col * kPx, t.row * kPx);
        const int radius = 12;
        cv::circle(b.view.top, at, radius, cv::Scalar(40, 40, 200), cv::FILLED, cv::LINE_AA);
        for (int k = 0; k < 16; ++k) {
            const double angle = 2 * CV_PI * k / 16;
            knight[0].outline_top.emplace_back(static_cast<float>(at.x + radius * std::cos(angle)), static_cast<float>(at.y + radius * std::sin(angle)));
        }
    }
    const auto m_at = static_cast<std::size_t>(std::find(b.truth.begin(), b.truth.end(), m) - b.truth.begin());
    auto read = b.tiles;
    const auto evidence = vision::decide_pennants(b.view, read, catalog, {}, knight);
    REQUIRE(evidence.size() == read.size());
    INFO("the M under the knight read as " << types[static_cast<std::size_t>(read[m_at].type)].id << ", its pennant spot " << evidence[m_at].hidden << " hidden");
    REQUIRE(read[m_at].type == n);  // else this test proves nothing: the hidden pennant is lost
    CHECK(evidence[m_at].hidden > 0.9);
    const int changed = vision::keep_twins_within_copies(read, evidence, catalog, "C3");
    CHECK(changed == 1);
    CHECK(read[m_at].type == m);
    CHECK(score(catalog, b, read).right == score(catalog, b, read).twins);
    // Within the counts nothing moves: a second pass changes no tile.
    CHECK(vision::keep_twins_within_copies(read, evidence, catalog, "C3") == 0);
    // Through a found board's reading (detect_pieces_rereading's pass), with the option on and off.
    vision::BoardReading reading;
    reading.found = true;
    reading.view = b.view;
    reading.tiles = b.tiles;
    REQUIRE(vision::decide_pennants_under_pieces(reading, knight, catalog));
    CHECK(reading.tiles[m_at].type == m);
    vision::ReaderOptions off;
    off.pennants.within_copies = false;
    reading.tiles = b.tiles;
    REQUIRE(vision::decide_pennants_under_pieces(reading, knight, catalog, off));
    CHECK(reading.tiles[m_at].type == n);
}

namespace {

// The BGR colour of an 8-bit OpenCV Lab one.
cv::Scalar bgr_of_lab(double l, double a, double b) {
    cv::Mat lab(1, 1, CV_8UC3, cv::Scalar(l, a, b)), bgr;
    cv::cvtColor(lab, bgr, cv::COLOR_Lab2BGR);
    const auto p = bgr.at<cv::Vec3b>(0, 0);
    return cv::Scalar(p[0], p[1], p[2]);
}

}  // namespace

TEST_CASE("a speck far from pennants printed in a spread of colours is no pennant", "[vision][board-reader][pennants]") {
    // On a photo the pennants of one board lie 3-35 Lab units from their median colour (light,
    // blur, print; real test_07), and the colour radius was 3 times their median distance (93
    // units there): specks of a roof or a wall's shadow 77-82 units off, under a tenth of a
    // pennant's size, passed as pennants (3 plain cities read as pennant tiles). Here every
    // pennant is a disc 25 units from a purple, on a circle, and 5 plain cities hold a speck 60
    // units off (a grey blue): pennants within the radius the spread gives, specks beyond it.
    const auto& catalog = *test::base_catalog_for_render();
    const auto& classic = vision::builtin_tile_styles().front();
    TwinBoard b = twin_board(catalog, classic, 3, 90, 0.0, 11);
    const auto twin = vision::pennant_twins(catalog);
    const double l = 120, a = 175, bb = 105;  // the pennants' centre colour (8-bit Lab: a purple; the ring and the speck stay in sRGB)
    int discs = 0, specks = 0;
    for (std::size_t i = 0; i < b.tiles.size(); ++i) {
        const auto& type = catalog.tiles()[static_cast<std::size_t>(b.truth[i])];
        if (twin[static_cast<std::size_t>(b.truth[i])] < 0) continue;
        const cv::Point at = city_centre_in_view(catalog, b, i, 90);
        if (has_pennant(type)) {
            const double angle = 2 * CV_PI * discs / 5;
            cv::circle(b.view.top, at, 6, bgr_of_lab(l, a + 25 * std::cos(angle), bb + 25 * std::sin(angle)), cv::FILLED);
            ++discs;
        } else if (specks < 5) {
            cv::circle(b.view.top, at, 2, bgr_of_lab(l, a - 60, bb), cv::FILLED);
            ++specks;
        }
    }
    REQUIRE(discs == 15);
    REQUIRE(specks == 5);
    const TwinScore s = decide_and_score(catalog, b);
    INFO(s.right << " of " << s.twins << " twins right, " << s.invented << " pennants invented, " << s.missed << " missed");
    CHECK(s.invented == 0);
    CHECK(s.missed == 0);
    // At the radius before (3 times the pennants' median distance) the specks pass for pennants.
    vision::PennantOptions wide;
    wide.colour_radius_spread = 3;
    CHECK(decide_and_score(catalog, b, wide).invented > 0);
}

TEST_CASE("followers far larger than a pennant do not set the board's pennant size", "[vision][board-reader][pennants][pennant-size]") {
    // The board's pennant size was the median of every twin cell's largest blob, and its pennant
    // colour the median of those blobs: where blobs far above a printed pennant's area (about 1 %
    // of the tile) outnumber the pennants, both were theirs (real test_14 read with
    // ReaderOptions::min_across_gap_alignment: two yellow followers of 14 % of the tile moved the
    // size 0.009 -> 0.136 and the colour to theirs, and pennants were lost). Here a yellow disc (a
    // standing follower seen from above, about 10 % of the tile) lies on the innermost pixel of 10
    // of the 15 pennant cities: with PennantOptions::max_pennant_area each cell offers its largest
    // blob of a pennant's size instead, and the 5 bare pennants are read too.
    const auto& catalog = *test::base_catalog_for_render();
    const auto& classic = vision::builtin_tile_styles().front();
    constexpr int kPx = 90;
    TwinBoard b = twin_board(catalog, classic, 3, kPx, 0.0, 13);
    int followers = 0;
    for (const std::size_t i : twin_cells(catalog, b, true)) {
        if (followers == 10) break;
        const cv::Point at = city_centre_in_view(catalog, b, i, kPx);
        cv::circle(b.view.top, at, 16, cv::Scalar(20, 200, 235), cv::FILLED, cv::LINE_AA);
        ++followers;
    }
    REQUIRE(followers == 10);
    // The discs lie on the pennants: read by their size, as followers standing on a pennant
    // (PennantOptions::cover_needs_colour off).
    vision::PennantOptions capped;
    capped.max_pennant_area = 0.05;
    capped.cover_needs_colour = false;
    const TwinScore s = decide_and_score(catalog, b, capped);
    INFO(s.right << " of " << s.twins << " twins right, " << s.invented << " pennants invented, " << s.missed << " missed");
    CHECK(s.twins == 30);
    CHECK(s.right == s.twins);
    // By default a yellow disc is no pennant (not of the board's blue): the 10 pennants under them
    // are missed and the 5 bare ones read; with follower_hides_spot their pennant spots count as
    // hidden (the tile counts may give them back, keep_twins_within_copies).
    {
        auto read = b.tiles;
        vision::PennantOptions hides;
        hides.follower_hides_spot = true;
        const auto evidence = vision::decide_pennants(b.view, read, catalog, hides);
        const TwinScore by_colour = score(catalog, b, read);
        int missed_hidden = 0;
        for (std::size_t i = 0; i < read.size(); ++i) {
            const bool want = has_pennant(catalog.tiles()[static_cast<std::size_t>(b.truth[i])]);
            missed_hidden += want && !has_pennant(catalog.tiles()[static_cast<std::size_t>(read[i].type)]) && evidence[i].hidden >= 0.5;
        }
        INFO("by colour: " << by_colour.right << " of " << by_colour.twins << " right, " << by_colour.missed << " missed, " << missed_hidden
                           << " of them with the pennant spot hidden");
        CHECK(by_colour.invented == 0);
        CHECK(by_colour.missed == 10);
        // (measured 8: F's city has two equally deep lobes, and the spot taken is the one the disc leaves bare)
        CHECK(missed_hidden >= 8);
    }
    // With every blob counted (off) the followers set the size and the colour, and the bare
    // pennants are missed (measured: 25 of 30 right, 5 missed).
    vision::PennantOptions off;
    off.max_pennant_area = 0;
    off.cover_needs_colour = false;
    const TwinScore every_blob = decide_and_score(catalog, b, off);
    INFO("every blob counted: " << every_blob.right << " of " << every_blob.twins << " right, " << every_blob.missed << " missed");
    CHECK(every_blob.missed >= 5);
}

TEST_CASE("a follower standing in a plain city is no pennant", "[vision][board-reader][pennants][followers][scene]") {
    // A follower standing in a city is a compact blob unlike plain city, far larger than the
    // board's pennants (real test_14: a yellow follower of 14 % of the tile in a plain N, read M).
    // Read by its size (PennantOptions::covering_size) it made a pennant whatever its colour; with
    // cover_needs_colour, once the board's pennant colour is learnt, a covering blob of another
    // colour shows none and the city's blobs of that colour decide. A rendered board (classic art,
    // its pennants blue shields) with a standing follower in a player's colour on the city of
    // every plain twin tile (N, P, R, T, G), read whole; nothing else on the board.
    const auto catalog = test::base_catalog_for_render();
    const auto twin = vision::pennant_twins(*catalog);
    vision::Scene scene;
    scene.tiles = test::random_board(60, 21);
    const char* colours[] = {"yellow", "red", "black", "green"};
    int plain_cities = 0;
    for (const auto& t : scene.tiles) {
        if (twin[static_cast<std::size_t>(t.type->index)] < 0 || has_pennant(*t.type)) continue;
        for (std::size_t f = 0; f < t.type->features.size(); ++f) {
            if (t.type->features[f].kind != FeatureKind::City) continue;
            scene.pieces.push_back({t.at, static_cast<int>(f), colours[plain_cities++ % 4]});
            break;
        }
    }
    REQUIRE(plain_cities >= 6);
    auto rendering = vision::render_table(scene, test::daylight_options(), 21);
    REQUIRE(rendering);
    // Plain twins read as their pennant twin, and pennant twins read right, over the tiles read as either twin.
    auto tally = [&](const vision::ReaderOptions& options, int& invented, int& pennants_right) {
        invented = pennants_right = 0;
        for (const auto& r : test::read_back(*rendering, *catalog, options)) {
            if (!r.read || twin[static_cast<std::size_t>(r.truth->index)] < 0) continue;
            const bool pair = r.read == r.truth || twin[static_cast<std::size_t>(r.truth->index)] == r.read->index;
            if (!pair) continue;
            if (!has_pennant(*r.truth) && has_pennant(*r.read)) ++invented;
            if (has_pennant(*r.truth) && has_pennant(*r.read)) ++pennants_right;
        }
    };
    int invented = 0, pennants_right = 0;
    tally({}, invented, pennants_right);
    INFO(plain_cities << " followers in plain cities: " << invented << " pennants invented, " << pennants_right << " pennant tiles read right");
    vision::ReaderOptions by_size;
    by_size.pennants.cover_needs_colour = false;
    int invented_by_size = 0, pennants_right_by_size = 0;
    tally(by_size, invented_by_size, pennants_right_by_size);
    INFO("read by size: " << invented_by_size << " invented, " << pennants_right_by_size << " pennant tiles right");
    CHECK(invented <= 1);
    CHECK(invented_by_size >= invented + 3);
    CHECK(pennants_right >= pennants_right_by_size);
}

TEST_CASE("pennant options are checked", "[vision][board-reader][pennants][bad-input]") {
    vision::PennantOptions o;
    CHECK(o.check());
    o.min_fill = 1.5;
    CHECK_FALSE(o.check());
    o = {};
    o.size_share = 1.0;
    CHECK_FALSE(o.check());
    o = {};
    o.min_split_ratio = 1.0;
    CHECK_FALSE(o.check());
    o = {};
    o.min_seen = 0;
    CHECK_FALSE(o.check());
    o = {};
    o.min_seen_under_piece = 0;
    CHECK_FALSE(o.check());
    o.min_seen_under_piece = 1.5;
    CHECK_FALSE(o.check());
    o = {};
    o.coloured_share = 0;
    CHECK_FALSE(o.check());
    o = {};
    o.covering_size = 0.5;
    CHECK_FALSE(o.check());
    o = {};
    o.max_pennant_area = o.min_area;
    CHECK_FALSE(o.check());
    o.max_pennant_area = 0.05;
    CHECK(o.check());
}
