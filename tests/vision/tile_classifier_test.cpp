#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>
#include <random>

#include <opencv2/imgproc.hpp>

#include "engine/catalog.h"
#include "vision/tile_art.h"
#include "vision/tile_classifier.h"
#include "vision/tile_library.h"

using namespace meeplecam;
using namespace meeplecam::vision;

namespace {

const Catalog& base_catalog() {
    static const Catalog cat = Catalog::embedded("carcassonne-base").value();
    return cat;
}

std::string temp_path(const char* name) { return (std::filesystem::temp_directory_path() / name).string(); }

// A rendered tile on a plain table with a margin, turned a little, with light, blur and noise.
cv::Mat photo_of(const TileType& type, int rot, const TileStyle& style, std::mt19937_64& rng, bool degrade) {
    std::uniform_real_distribution<double> u(0, 1);
    const int n = 120;
    const cv::Mat art = render_tile(type, rot, n, style, rng);
    const int margin = 18;
    cv::Mat img(n + 2 * margin, n + 2 * margin, CV_8UC3, cv::Scalar(60 + 100 * u(rng), 50 + 60 * u(rng), 40 + 60 * u(rng)));
    const double ang = degrade ? (u(rng) - 0.5) * 8.0 : 0.0;
    const cv::Mat m = cv::getRotationMatrix2D(cv::Point2f(n / 2.0f, n / 2.0f), ang, 1.0);
    cv::Mat turned, mask;
    cv::Mat shift = m.clone();
    shift.at<double>(0, 2) += margin;
    shift.at<double>(1, 2) += margin;
    cv::warpAffine(art, turned, shift, img.size());
    cv::warpAffine(cv::Mat(n, n, CV_8U, cv::Scalar(255)), mask, shift, img.size());
    turned.copyTo(img, mask);
    if (degrade) {
        cv::Mat f;
        img.convertTo(f, CV_32F, 0.8 + 0.35 * u(rng));
        cv::GaussianBlur(f, f, cv::Size(0, 0), 0.5 + 0.7 * u(rng));
        cv::Mat noise(f.size(), CV_32FC3);
        cv::randn(noise, 0, 3.0);
        f += noise;
        f.convertTo(img, CV_8U);
    }
    return img;
}

struct Score {
    int n = 0, ok = 0;
    double rate() const { return n ? static_cast<double>(ok) / n : 0.0; }
};

// Every base type at every distinct rotation; counts type and rotation both right.
Score score_style(const TileClassifier& clf, const TileStyle& style, bool degrade, std::uint64_t seed) {
    Score s;
    std::mt19937_64 rng(seed);
    for (const TileType& type : base_catalog().tiles()) {
        for (const int rot : type.distinct_rotations) {
            auto r = clf.classify(photo_of(type, rot, style, rng, degrade));
            ++s.n;
            if (r && r->best.tile == type.id && same_rotation(type, r->best.rot, rot)) {
                ++s.ok;
            } else {
                UNSCOPED_INFO(style.name << ": " << type.id << " rot " << rot << " read as "
                                         << (r ? r->best.tile + " rot " + std::to_string(r->best.rot) : r.error().to_string()));
            }
        }
    }
    return s;
}

// `type` with its first two-port road split into its two arms, drawn as meeting at the centre
// (as printed art draws a bend; the renderer then draws a small village where they meet).
TileType bend_as_two_arms(TileType type) {
    for (std::size_t f = 0; f < type.features.size(); ++f) {
        if (type.features[f].kind != FeatureKind::Road || type.features[f].ports.size() != 2) continue;
        FeatureDef arm = type.features[f];
        arm.ports = {type.features[f].ports[1]};
        type.features[f].ports = {type.features[f].ports[0]};
        type.features.push_back(arm);
        break;
    }
    return type;
}

}  // namespace

TEST_CASE("rendered tiles of every base type and rotation are classified", "[vision][tile-classifier][scene]") {
    auto clf = TileClassifier::create(base_catalog());
    REQUIRE(clf);
    // Measured: 79/79 (type, rotation) right in each of these styles, clean and degraded. The
    // "contrast" style draws red pennants, which the blue-pennant cue misses (F/G, M/N, ...).
    for (const char* name : {"classic", "muted", "dusk"}) {
        const TileStyle style = find_tile_style(name).value();
        const Score clean = score_style(clf.value(), style, false, 11);
        const Score noisy = score_style(clf.value(), style, true, 12);
        INFO(name << ": clean " << clean.ok << "/" << clean.n << ", degraded " << noisy.ok << "/" << noisy.n);
        CHECK(clean.rate() >= 0.97);
        CHECK(noisy.rate() >= 0.95);
    }
}

TEST_CASE("a crop with paper along two sides is read without the paper", "[vision][tile-classifier][margin]") {
    // A cell cut from a scanned sheet: white paper along the left and bottom sides, the art cut
    // at the other two (no background all round, so no square is found). The paper is cut off
    // (TileClassifierOptions::max_margin); read whole, it passes for a city cap or a road.
    auto with_paper = [](const cv::Mat& art, int left, int bottom) {
        cv::Mat img(art.rows + bottom, art.cols + left, CV_8UC3, cv::Scalar(246, 248, 250));
        art.copyTo(img(cv::Rect(left, 0, art.cols, art.rows)));
        return img;
    };
    TileClassifierOptions no_trim;
    no_trim.max_margin = 0;
    const auto trimmed = TileClassifier::create(base_catalog()).value();
    const auto whole = TileClassifier::create(base_catalog(), no_trim).value();
    std::mt19937_64 rng(11);
    int n = 0, right_trimmed = 0, right_whole = 0, right_clean = 0;
    for (const auto& style : builtin_tile_styles()) {
        for (const TileType& type : base_catalog().tiles()) {
            const int rot = static_cast<int>(rng() % 4);
            const cv::Mat art = render_tile(type, rot, 120, style, rng);
            const cv::Mat img = with_paper(art, 14, 10);
            const auto a = trimmed.classify(img).value();
            const auto c = trimmed.classify(art).value();  // the art alone, no paper
            const auto b = whole.classify(img).value();
            CHECK_FALSE(a.found_square);
            ++n;
            right_trimmed += a.best.tile == type.id && same_rotation(type, a.best.rot, rot);
            right_whole += b.best.tile == type.id && same_rotation(type, b.best.rot, rot);
            right_clean += c.best.tile == type.id && same_rotation(type, c.best.rot, rot);
            if (!(a.best.tile == type.id && same_rotation(type, a.best.rot, rot))) {
                UNSCOPED_INFO(style.name << ": " << type.id << " rot " << rot << " read as " << a.best.tile << " rot " << a.best.rot << " (art alone: "
                                         << c.best.tile << " rot " << c.best.rot << ")");
            }
        }
    }
    INFO("right with the paper cut off " << right_trimmed << "/" << n << ", read whole " << right_whole << "/" << n << ", the art alone " << right_clean << "/" << n);
    CHECK(right_trimmed >= right_clean - n / 20);
    CHECK(right_trimmed >= right_whole + n / 10);
}

TEST_CASE("a tile in a rough crop with paper and its neighbours' edges is read from its own square", "[vision][tile-classifier][margin]") {
    // A rough crop around one tile, as a cell cut from a sheet or a photo of a tile among others:
    // white paper along the left and bottom, the next tiles' art along the top and right across a
    // 2 px dark seam (a cut line, the gap between laid tiles). No one background all round, so no
    // square against it; the paper is cut off, but the neighbours' art stays and passes for a city
    // cap or a road (real sheets: V read as K, B as A). The tile's four straight edges give its
    // square (TileClassifierOptions::edge_square).
    const int paper = 14, strip = 12, seam = 2, n = 120;
    auto rough_crop = [&](const cv::Mat& art, const cv::Mat& north, const cv::Mat& east) {
        cv::Mat img(n + strip + seam + paper, paper + n + seam + strip, CV_8UC3, cv::Scalar(246, 248, 250));
        img(cv::Rect(paper, 0, n + seam + strip, strip + seam)).setTo(cv::Scalar(40, 40, 40));
        img(cv::Rect(paper + n, 0, seam + strip, n + strip + seam)).setTo(cv::Scalar(40, 40, 40));
        north(cv::Rect(0, n - strip, n, strip)).copyTo(img(cv::Rect(paper, 0, n, strip)));
        east(cv::Rect(0, 0, strip, n)).copyTo(img(cv::Rect(paper + n + seam, strip + seam, strip, n)));
        art.copyTo(img(cv::Rect(paper, strip + seam, n, n)));
        return img;
    };
    TileClassifierOptions no_edges;
    no_edges.edge_square = false;
    const auto edges = TileClassifier::create(base_catalog()).value();
    const auto cell = TileClassifier::create(base_catalog(), no_edges).value();
    const auto& tiles = base_catalog().tiles();
    std::mt19937_64 rng(21);
    int count = 0, squares = 0, right_edges = 0, right_cell = 0, right_clean = 0;
    double worst_corner = 0;
    for (const auto& style : builtin_tile_styles()) {
        for (const TileType& type : tiles) {
            const int rot = static_cast<int>(rng() % 4);
            const cv::Mat art = render_tile(type, rot, n, style, rng);
            const cv::Mat north = render_tile(tiles[rng() % tiles.size()], static_cast<int>(rng() % 4), n, style, rng);
            const cv::Mat east = render_tile(tiles[rng() % tiles.size()], static_cast<int>(rng() % 4), n, style, rng);
            const cv::Mat img = rough_crop(art, north, east);
            const auto a = edges.classify(img).value();
            const auto b = cell.classify(img).value();
            const auto c = edges.classify(art).value();  // the art alone
            ++count;
            if (a.found_square) {
                ++squares;
                const std::array<cv::Point2f, 4> truth = {cv::Point2f(paper, strip + seam), cv::Point2f(paper + n, strip + seam),
                                                          cv::Point2f(paper + n, strip + seam + n), cv::Point2f(paper, strip + seam + n)};
                for (std::size_t i = 0; i < 4; ++i) worst_corner = std::max(worst_corner, static_cast<double>(cv::norm(a.corners[i] - truth[i])));
            }
            const auto right = [&](const TileClassification& r) { return r.best.tile == type.id && same_rotation(type, r.best.rot, rot); };
            right_edges += right(a);
            right_cell += right(b);
            right_clean += right(c);
            if (!right(a)) UNSCOPED_INFO(style.name << ": " << type.id << " rot " << rot << " read as " << a.best.tile << " rot " << a.best.rot);
        }
    }
    // Measured: squares 96/96, the worst corner 3.6 px off (an edge may lie on either side of the
    // seam; 3 % of the side); right 91/96 from the edges' square, 68/96
    // with the whole crop less its paper, 91/96 from the art alone.
    INFO("squares " << squares << "/" << count << " (worst corner " << worst_corner << " px); right from the edges' square " << right_edges << "/" << count
                    << ", the crop less its paper " << right_cell << "/" << count << ", the art alone " << right_clean << "/" << count);
    CHECK(squares >= count - count / 20);
    CHECK(worst_corner <= 4.0);
    CHECK(right_edges >= right_clean - count / 20);
    CHECK(right_edges >= right_cell + count / 10);
}

TEST_CASE("turning the photo turns the answer", "[vision][tile-classifier]") {
    auto clf = TileClassifier::create(base_catalog());
    REQUIRE(clf);
    std::mt19937_64 rng(5);
    const TileType& j = *base_catalog().find("J");  // no symmetry: every turn is distinct
    const cv::Mat img = photo_of(j, 0, builtin_tile_styles().front(), rng, false);
    cv::Mat turned;
    cv::rotate(img, turned, cv::ROTATE_90_CLOCKWISE);
    auto a = clf->classify(img);
    auto b = clf->classify(turned);
    REQUIRE(a);
    REQUIRE(b);
    CHECK(a->best.tile == "J");
    CHECK(b->best.tile == "J");
    CHECK(a->best.rot == 0);
    CHECK(b->best.rot == 1);
    CHECK(a->found_square);
    CHECK(a->best.confidence > 0.5);
    CHECK(a->best.confidence <= 1.0);
}

TEST_CASE("the pennant cue separates F from G", "[vision][tile-classifier]") {
    // Without the pennant term the pairs that differ only by a pennant (F/G, M/N, ...) tie.
    TileClassifierOptions blind;
    blind.pennant_weight = 0;
    auto with = TileClassifier::create(base_catalog());
    auto without = TileClassifier::create(base_catalog(), blind);
    REQUIRE(with);
    REQUIRE(without);
    std::mt19937_64 rng(9);
    const TileStyle& style = builtin_tile_styles().front();
    int ok_with = 0, ok_without = 0, n = 0;
    for (const char* id : {"F", "G", "M", "N", "O", "P", "Q", "R", "S", "T"}) {
        for (int rot = 0; rot < 4; ++rot) {
            const cv::Mat img = photo_of(*base_catalog().find(id), rot, style, rng, false);
            ++n;
            ok_with += with->classify(img).value().best.tile == id;
            ok_without += without->classify(img).value().best.tile == id;
        }
    }
    CHECK(ok_with == n);
    CHECK(ok_without < n);
}

TEST_CASE("bad tile images give clear errors", "[vision][tile-classifier][bad-input]") {
    auto clf = TileClassifier::create(base_catalog());
    REQUIRE(clf);
    SECTION("empty") {
        auto r = clf->classify(cv::Mat());
        REQUIRE_FALSE(r);
        CHECK_THAT(r.error().message, Catch::Contains("empty"));
    }
    SECTION("1x1") {
        auto r = clf->classify(cv::Mat(1, 1, CV_8UC3, cv::Scalar(10, 20, 30)));
        REQUIRE_FALSE(r);
        CHECK_THAT(r.error().message, Catch::Contains("too small"));
    }
    SECTION("blank") {
        auto r = clf->classify(cv::Mat(200, 200, CV_8UC3, cv::Scalar(128, 128, 128)));
        REQUIRE_FALSE(r);
        CHECK_THAT(r.error().message, Catch::Contains("does not show a tile"));
    }
    SECTION("16-bit") {
        auto r = clf->classify(cv::Mat(100, 100, CV_16UC3, cv::Scalar(1, 2, 3)));
        REQUIRE_FALSE(r);
        CHECK_THAT(r.error().message, Catch::Contains("8-bit"));
    }
    SECTION("bad options") {
        TileClassifierOptions o;
        o.model_px = 2;
        auto c = TileClassifier::create(base_catalog(), o);
        REQUIRE_FALSE(c);
        CHECK_THAT(c.error().message, Catch::Contains("model_px"));
        o = {};
        o.temperature = -1;
        CHECK_THAT(o.check().error().message, Catch::Contains("temperature"));
    }
}

TEST_CASE("a learned library reads its own style, and round-trips", "[vision][tile-classifier][library][scene]") {
    const TileStyle style = find_tile_style("muted").value();
    TileLibrary lib;
    std::mt19937_64 rng(21);
    for (const TileType& type : base_catalog().tiles()) lib.add(type, 0, render_tile(type, 0, 96, style, rng), "render");
    CHECK(lib.entries.size() == 4 * base_catalog().tiles().size());

    const auto path = temp_path("meeplecam_tile_library.json");
    REQUIRE(lib.save(path));
    auto back = TileLibrary::load(path);
    REQUIRE(back);
    REQUIRE(back->entries.size() == lib.entries.size());
    CHECK(back->thumb_px == lib.thumb_px);
    CHECK(back->entries[5].tile == lib.entries[5].tile);
    CHECK(back->entries[5].rot == lib.entries[5].rot);
    CHECK(std::abs(back->entries[5].thumb[17] - lib.entries[5].thumb[17]) < 0.06);

    auto clf = TileClassifier::create(base_catalog(), {}, &back.value());
    REQUIRE(clf);
    const Score s = score_style(clf.value(), style, true, 22);
    INFO("muted with a muted library: " << s.ok << "/" << s.n);
    CHECK(s.rate() >= 0.97);

    SECTION("corrupt file") {
        { std::ofstream(path) << "{\"format\": \"meeplecam-tile-library\", \"version\": 1, \"thumb_px\": 16, \"entries\": [{\"tile\": "; }
        auto r = TileLibrary::load(path);
        REQUIRE_FALSE(r);
        CHECK_THAT(r.error().to_string(), Catch::Contains(path));
        CHECK_THAT(r.error().message, Catch::Contains("not valid JSON"));
    }
    SECTION("wrong version") {
        { std::ofstream(path) << "{\"format\": \"meeplecam-tile-library\", \"version\": 7, \"thumb_px\": 16, \"entries\": []}"; }
        auto r = TileLibrary::load(path);
        REQUIRE_FALSE(r);
        CHECK_THAT(r.error().message, Catch::Contains("version"));
    }
    SECTION("format not a string") {
        { std::ofstream(path) << "{\"format\": 7, \"version\": 1, \"thumb_px\": 16, \"entries\": []}"; }
        auto r = TileLibrary::load(path);
        REQUIRE_FALSE(r);
        CHECK_THAT(r.error().message, Catch::Contains("not a tile library"));
    }
    SECTION("short thumbnail") {
        { std::ofstream(path) << "{\"format\": \"meeplecam-tile-library\", \"version\": 1, \"thumb_px\": 16, \"entries\": [{\"tile\": \"A\", \"rot\": 0, \"thumb\": [1, 2]}]}"; }
        auto r = TileLibrary::load(path);
        REQUIRE_FALSE(r);
        CHECK_THAT(r.error().message, Catch::Contains("entry 0"));
    }
    SECTION("missing file") {
        auto r = TileLibrary::load("/nonexistent/lib.json");
        REQUIRE_FALSE(r);
        CHECK_THAT(r.error().to_string(), Catch::Contains("/nonexistent/lib.json"));
    }
}

TEST_CASE("the inn tells CB11 from CB10, and its side gives the turn", "[vision][tile-classifier]") {
    // CB10 and CB11 differ only by the inn on CB11's S road (the rules treat them alike), so
    // only the drawn inn can tell which tile lies on the table, and which way CB11 is turned.
    const Catalog bcb = Catalog::embedded("carcassonne-bridges-castles-bazaars").value();
    auto clf = TileClassifier::create(bcb);
    REQUIRE(clf);
    CHECK(inn_boxes(*bcb.find("CB10")).empty());
    REQUIRE(inn_boxes(*bcb.find("CB11")).size() == 1);
    std::mt19937_64 rng(21);
    int n = 0, ok = 0;
    for (const TileStyle& style : builtin_tile_styles()) {
        for (const char* id : {"CB9", "CB10", "CB11"}) {
            const TileType& type = *bcb.find(id);
            for (const int rot : type.distinct_rotations) {
                for (const bool degrade : {false, true}) {
                    const cv::Mat img = photo_of(type, rot, style, rng, degrade);
                    auto r = clf->classify(img);
                    ++n;
                    const bool right = r && r->best.tile == type.id && same_rotation(type, r->best.rot, rot);
                    ok += right;
                    if (!right) {
                        UNSCOPED_INFO(style.name << ": " << id << " rot " << rot << (degrade ? " degraded" : "") << " read as "
                                                 << (r ? r->best.tile + " rot " + std::to_string(r->best.rot) : r.error().to_string()));
                    }
                }
            }
        }
    }
    INFO(ok << " of " << n << " right");
    CHECK(ok == n);
}

TEST_CASE("tiles drawn with printed art's shapes read as their type", "[vision][tile-classifier][variants]") {
    // Printed tile sets draw other region shapes than the renderer's: thinner field caps beside a
    // band or 3-side city (a real G read as R), and road bends turning at the centre (a real K
    // read as L, V as a junction). Drawn here with the renderer itself, so the truth is known.
    auto clf = TileClassifier::create(base_catalog());
    REQUIRE(clf);
    const TileStyle& classic = builtin_tile_styles().front();
    TileStyle thin_caps = classic;
    thin_caps.field_depth = 0.17;
    std::mt19937_64 rng(5);
    int n = 0, ok = 0;
    std::string misses;
    auto check = [&](const TileType& drawn, const std::string& want, int rot, const TileStyle& style) {
        const cv::Mat img = photo_of(drawn, rot, style, rng, true);
        const auto res = clf->classify(img);
        REQUIRE(res);
        ++n;
        const bool right = res->best.tile == want && same_rotation(*base_catalog().find(want), res->best.rot, rot);
        ok += right;
        if (!right) misses += " " + want + std::to_string(rot) + "->" + res->best.tile + std::to_string(res->best.rot);
    };
    for (const char* id : {"G", "F", "R", "Q"}) {
        for (int rot = 0; rot < 4; ++rot) check(*base_catalog().find(id), id, rot, thin_caps);
    }
    // A bend as two arms meeting at the centre: the road split into its two arms (the art then
    // draws a small village where they meet).
    for (const char* id : {"K", "V", "J"}) {
        const TileType elbow = bend_as_two_arms(*base_catalog().find(id));
        for (int rot = 0; rot < 4; ++rot) check(elbow, id, rot, classic);
    }
    INFO(ok << " of " << n << " right; misses:" << misses);
    // Measured: 28 of 28 (15 of 28 with the renderer's shapes alone: K read as L, V as W, ...).
    CHECK(ok >= n - 2);
}

TEST_CASE("corner cities walled straight from corner to corner read as corner cities and not as two caps", "[vision][tile-classifier][variants]") {
    // The 2nd edition walls most corner cities along the diagonal, between the renderer's wall
    // (bulging 0.07 past it) and the bowed map (0.08 short of it), and the two caps of an I fitted
    // such a city better (real scans and sheets: N read as I in every turn; real test_00: M, N as
    // I), so a straight-walled map was added (tile_art.h printed_geometry_variants). Renders walled
    // straight read right without it too (16 of 16: the renderer's art is cleaner than print), so
    // this guards what the wider choice risks: caps (I, E) read as corner cities.
    auto clf = TileClassifier::create(base_catalog());
    REQUIRE(clf);
    TileStyle straight = builtin_tile_styles().front();
    straight.corner_bulge = 0.0;
    std::mt19937_64 rng(11);
    int corners = 0, corners_right = 0, others = 0, others_right = 0;
    std::string misses;
    for (const char* id : {"N", "M", "P", "O", "I", "E"}) {
        const TileType& type = *base_catalog().find(id);
        const bool corner = std::string(id) != "I" && std::string(id) != "E";
        for (int rot = 0; rot < 4; ++rot) {
            const auto res = clf->classify(photo_of(type, rot, straight, rng, true));
            REQUIRE(res);
            const bool right = res->best.tile == type.id && same_rotation(type, res->best.rot, rot);
            (corner ? corners : others) += 1;
            (corner ? corners_right : others_right) += right ? 1 : 0;
            if (!right) misses += " " + type.id + std::to_string(rot) + "->" + res->best.tile + std::to_string(res->best.rot);
        }
    }
    INFO(corners_right << " of " << corners << " corner cities, " << others_right << " of " << others << " caps right; misses:" << misses);
    CHECK(corners_right >= corners - 1);
    CHECK(others_right == others);
}

TEST_CASE("a road arm over plain grass costs its hypothesis", "[vision][tile-classifier][variants]") {
    // U (a straight road N-S) drawn clean: the junction W (arms E, S, W) and the crossing X fit its
    // road as well along N-S only where their arms lie on it; an arm over grass shows no road band.
    const TileType& u = *base_catalog().find("U");
    std::mt19937_64 rng(9);
    const cv::Mat art = render_tile(u, 1, 96, builtin_tile_styles().front(), rng);  // the road runs E-W
    TileClassifierOptions with, without;
    without.road_cover_weight = 0;
    auto a = TileClassifier::create(base_catalog(), with);
    auto b = TileClassifier::create(base_catalog(), without);
    REQUIRE(a);
    REQUIRE(b);
    auto cost_of = [](const TileClassifier& clf, const cv::Mat& tile, const std::string& id, int rot) {
        for (const auto& h : clf.score_canonical(tile, id)) {
            if (same_rotation(*base_catalog().find(id), h.rot, rot)) return h.cost;
        }
        return -1.0;
    };
    // W at rotation 0 has arms E, S, W: its S arm lies on grass.
    const double w_with = cost_of(*a, art, "W", 0), w_without = cost_of(*b, art, "W", 0);
    const double u_with = cost_of(*a, art, "U", 1), u_without = cost_of(*b, art, "U", 1);
    INFO("W: " << w_without << " -> " << w_with << ", U: " << u_without << " -> " << u_with);
    CHECK(w_with > w_without + 0.5);
    CHECK(u_with == Approx(u_without).margin(1e-9));
    CHECK_FALSE([] {
        TileClassifierOptions bad;
        bad.road_min_cover = 1.5;
        return static_cast<bool>(bad.check());
    }());
}

TEST_CASE("field art beside a road bend is not read as a third road arm", "[vision][tile-classifier][variants]") {
    // Real scans: the V (a road bend W-S) read as the junction W in every turn. Its art prints a
    // farmstead (a house, a wooden fence) in the field where W's third arm would run; the arm's
    // road slack picks the farmstead up, which passes the road band test (it is less green than
    // the grass), while its colour is the farmstead's and not the road's. Drawn here: the bend as
    // two arms meeting at the centre (as printed) and a farmstead east of the centre.
    const TileType elbow = bend_as_two_arms(*base_catalog().find("V"));
    TileClassifierOptions without_arm_colour;
    without_arm_colour.road_arm_weight = 0;
    auto with = TileClassifier::create(base_catalog());
    auto without = TileClassifier::create(base_catalog(), without_arm_colour);
    REQUIRE(with);
    REQUIRE(without);
    const TileStyle& classic = builtin_tile_styles().front();
    const int n = 120;
    const auto at = [n](double x, double y) { return cv::Point(static_cast<int>(x * n), static_cast<int>(y * n)); };
    int tiles = 0, right_with = 0, right_without = 0;
    std::string misses_with, misses_without;
    for (std::uint64_t seed = 1; seed <= 3; ++seed) {
        std::mt19937_64 rng(seed);
        cv::Mat art = render_tile(elbow, 0, n, classic, rng);  // arms W and S
        // The bend as printed: no village where the arms meet (grass over it, the road drawn through).
        cv::rectangle(art, at(0.36, 0.36), at(0.64, 0.64), classic.field, cv::FILLED);
        const int road_px = static_cast<int>(classic.road_width * n);
        cv::line(art, at(0.0, 0.5), at(0.5, 0.5), classic.road, road_px);
        cv::line(art, at(0.5, 0.5), at(0.5, 1.0), classic.road, road_px);
        // The farmstead: a fenced yard of brown wood around a brown house with a darker roof.
        const std::vector<cv::Point> yard = {at(0.64, 0.44), at(0.80, 0.40), at(0.94, 0.46), at(0.90, 0.60), at(0.70, 0.62)};
        cv::polylines(art, yard, true, cv::Scalar(45, 85, 125), 2, cv::LINE_AA);
        cv::rectangle(art, at(0.74, 0.45), at(0.85, 0.55), cv::Scalar(70, 110, 150), cv::FILLED);   // walls
        cv::rectangle(art, at(0.74, 0.45), at(0.85, 0.49), cv::Scalar(40, 70, 130), cv::FILLED);    // roof
        for (int rot = 0; rot < 4; ++rot) {
            cv::Mat turned = art.clone();
            for (int q = 0; q < rot; ++q) cv::rotate(turned, turned, cv::ROTATE_90_CLOCKWISE);
            const auto a = with->classify(turned);
            const auto b = without->classify(turned);
            REQUIRE(a);
            REQUIRE(b);
            ++tiles;
            const auto is_v = [&](const TileClassification& c) { return c.best.tile == "V" && same_rotation(elbow, c.best.rot, rot); };
            right_with += is_v(*a);
            right_without += is_v(*b);
            if (!is_v(*a)) misses_with += " " + a->best.tile + std::to_string(a->best.rot);
            if (!is_v(*b)) misses_without += " " + b->best.tile + std::to_string(b->best.rot);
        }
    }
    INFO("V read right " << right_with << " of " << tiles << " (misses:" << misses_with << "), without the arm colour term "
                         << right_without << " (misses:" << misses_without << ")");
    CHECK(right_with == tiles);
    CHECK(right_without < tiles / 2);  // the drawing reproduces the real confusion
}
