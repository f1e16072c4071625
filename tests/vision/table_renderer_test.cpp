#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>
#include <map>
#include <thread>

#include <opencv2/imgcodecs.hpp>
#include <opencv2/imgproc.hpp>

#include "engine/atomic_file.h"
#include "engine/random_game.h"
#include "vision/homography.h"
#include "vision/table_renderer.h"
#include "vision/tile_art.h"

using namespace meeplecam;
using vision::RenderOptions;

namespace {

std::shared_ptr<const Catalog> base() {
    static const auto catalog = std::make_shared<const Catalog>(Catalog::embedded("carcassonne-base").value());
    return catalog;
}

// A block of `w` x `h` tiles of one type (the renderer does not check legality).
std::vector<vision::SceneTile> block(const char* id, int w, int h) {
    std::vector<vision::SceneTile> tiles;
    for (int y = 0; y < h; ++y) {
        for (int x = 0; x < w; ++x) tiles.push_back({base()->find(id), Cell{x, y}, (x + y) % 4, nullptr});
    }
    return tiles;
}

// The tiles of a legal random game cut to `n` tiles.
std::vector<vision::SceneTile> random_board(int n, std::uint64_t seed) {
    RandomGameOptions options;
    options.seed = seed;
    options.max_tiles = n;
    static std::vector<RandomGame> keep;  // scene tiles point into the game's catalog
    keep.push_back(play_random_game(base(), options).value());
    return vision::scene_tiles(keep.back().game.board());
}

// Options without light, sensor or placement effects: what is drawn is exactly where the truth says.
RenderOptions clean_options() {
    RenderOptions o = RenderOptions::for_difficulty(vision::Difficulty::Easy);
    o.width = 960;
    o.height = 720;
    o.style = "classic";
    o.surfaces = {vision::TableSurface::Plain};
    o.tilt_deg = {0, 0};
    o.fill = {0.6, 0.6};
    o.off_centre = 0;
    o.light_gradient = {0, 0};
    o.colour_temperature_k = {6500, 6500};
    o.exposure = {1, 1};
    o.vignette = {0, 0};
    o.shadow_strength = {0, 0};
    o.noise_sigma = {0, 0};
    o.blur_sigma = {0, 0};
    o.jpeg_quality = {0, 0};
    return o;
}

cv::Vec3d at(const cv::Mat& img, cv::Point2d p) {
    const cv::Vec3b v = img.at<cv::Vec3b>(static_cast<int>(std::lround(p.y)), static_cast<int>(std::lround(p.x)));
    return {static_cast<double>(v[0]), static_cast<double>(v[1]), static_cast<double>(v[2])};
}

double distance(const cv::Vec3d& a, const cv::Vec3d& b) { return cv::norm(a - b); }

// Mask of the tile top faces (dilated by `grow` pixels).
cv::Mat tiles_mask(const vision::Rendering& r, int grow) {
    cv::Mat mask(r.image.size(), CV_8UC1, cv::Scalar(0));
    for (const auto& t : r.truth.tiles) {
        std::vector<cv::Point> q;
        for (const auto& p : t.corners_px) q.emplace_back(cv::Point2d(p));
        cv::fillConvexPoly(mask, q, cv::Scalar(255));
    }
    if (grow > 0) cv::dilate(mask, mask, cv::getStructuringElement(cv::MORPH_ELLIPSE, cv::Size(2 * grow + 1, 2 * grow + 1)));
    return mask;
}

// Mean colour of a tile's top face, shrunk towards its centre so edges do not count.
cv::Scalar face_mean(const vision::Rendering& r, const vision::TileTruth& t, double keep) {
    cv::Mat mask(r.image.size(), CV_8UC1, cv::Scalar(0));
    std::vector<cv::Point> q;
    for (const auto& p : t.corners_px) q.emplace_back(cv::Point2d(t.centre_px + (p - t.centre_px) * keep));
    cv::fillConvexPoly(mask, q, cv::Scalar(255));
    return cv::mean(r.image, mask);
}

}  // namespace

TEST_CASE("truth corners lie on the tile edges, to a few pixels", "[vision][renderer]") {
    // B tiles show grass along every edge: the colour just inside an edge is grass, just outside is table.
    const auto tiles = block("B", 3, 3);
    for (const std::uint64_t seed : {1u, 2u, 3u}) {
        auto r = vision::render_table(tiles, clean_options(), seed);
        REQUIRE(r);
        const auto& truth = r->truth;
        REQUIRE(truth.tiles.size() == 9);
        const cv::Vec3d table = at(r->image, {4, 4});  // a frame corner: the board is centred and fills 60%
        const double side = cv::norm(truth.tiles[0].corners_px[1] - truth.tiles[0].corners_px[0]);
        const double inside = 0.02 * side + 2.5, outside = 2.5;
        int probes = 0;
        for (const auto& t : truth.tiles) {
            for (std::size_t k = 0; k < 4; ++k) {
                // Only edges on the board's rim have table beyond them: side k faces N, E, S, W.
                const int dx = k == 1 ? 1 : (k == 3 ? -1 : 0), dy = k == 2 ? 1 : (k == 0 ? -1 : 0);
                if (t.at.x + dx >= 0 && t.at.x + dx < 3 && t.at.y + dy >= 0 && t.at.y + dy < 3) continue;
                const cv::Point2d a = t.corners_px[k], b = t.corners_px[(k + 1) % 4];
                const cv::Point2d edge = b - a;
                const cv::Point2d out_normal = cv::Point2d(edge.y, -edge.x) * (1.0 / cv::norm(edge));
                for (const double s : {0.3, 0.7}) {
                    const cv::Point2d p = a + edge * s;
                    INFO("seed " << seed << " tile at " << to_string(t.at) << " edge " << k << " s " << s);
                    CHECK(distance(at(r->image, p - out_normal * inside), table) > 40);
                    CHECK(distance(at(r->image, p + out_normal * outside), table) < 25);
                    ++probes;
                }
            }
        }
        CHECK(probes == 24);
    }
}

TEST_CASE("the truth homographies and camera agree with the tile positions", "[vision][renderer]") {
    RenderOptions o = RenderOptions::for_difficulty(vision::Difficulty::Hard);
    o.hand_chance = 0;
    const auto tiles = random_board(30, 4);
    auto r = vision::render_table(tiles, o, 11);
    REQUIRE(r);
    const auto& truth = r->truth;
    CHECK(truth.camera.tilt_deg >= 25);
    const double half = truth.tile_mm / 2;
    for (const auto& t : truth.tiles) {
        INFO("tile at " << to_string(t.at));
        CHECK(cv::norm(vision::apply_homography(truth.tiles_to_image, t.centre_mm) - t.centre_px) < 1.0);
        // The camera model projects the tile top (z = -thickness) to the same place.
        const cv::Vec3d cam = truth.camera.rotation * cv::Vec3d(t.centre_mm.x, t.centre_mm.y, -truth.thickness_mm) +
                              truth.camera.translation;
        const cv::Vec3d px = truth.camera.intrinsics * cam;
        CHECK(cv::norm(cv::Point2d(px[0] / px[2], px[1] / px[2]) - t.centre_px) < 1.0);
        // The NW corner is the cell's NW corner turned by the off-grid turn.
        const double a = t.turn_deg * CV_PI / 180;
        const cv::Point2d nw = t.centre_mm + cv::Point2d(-half * std::cos(a) + half * std::sin(a), -half * std::sin(a) - half * std::cos(a));
        CHECK(cv::norm(vision::apply_homography(truth.tiles_to_image, nw) - t.corners_px[0]) < 1.0);
        // The tile sits on its grid cell, within the jitter.
        const double pitch = truth.tile_mm + truth.gap_mm;
        const cv::Point2d first = truth.tiles[0].centre_mm - cv::Point2d(truth.tiles[0].at.x, truth.tiles[0].at.y) * pitch;
        const cv::Point2d grid = first + cv::Point2d(t.at.x, t.at.y) * pitch;
        CHECK(cv::norm(t.centre_mm - grid) <= 2 * std::sqrt(2.0) * o.jitter_mm + 1e-9);
        CHECK(std::abs(t.turn_deg) <= o.jitter_deg + 1e-9);
        // Inside the frame.
        for (const auto& c : t.corners_px) {
            CHECK((c.x >= 0 && c.y >= 0 && c.x < truth.width && c.y < truth.height));
        }
    }
    // The tile tops are nearer the camera than the table: the same mm point lands elsewhere.
    CHECK(cv::norm(vision::apply_homography(truth.table_to_image, {0, 0}) - vision::apply_homography(truth.tiles_to_image, {0, 0})) > 0.1);
}

TEST_CASE("tiles differ in colour from the table they lie on", "[vision][renderer][scene]") {
    const auto tiles = random_board(40, 8);
    for (const auto preset : {vision::Difficulty::Easy, vision::Difficulty::Medium}) {
        for (const std::uint64_t seed : {21u, 22u, 23u}) {
            RenderOptions o = RenderOptions::for_difficulty(preset);
            o.hand_chance = 0;
            o.glare_chance = 0;
            auto r = vision::render_table(tiles, o, seed);
            REQUIRE(r);
            cv::Mat table = tiles_mask(r.value(), 6) == 0;
            const cv::Scalar table_mean = cv::mean(r->image, table);
            for (const auto& t : r->truth.tiles) {
                INFO(vision::difficulty_name(preset) << " seed " << seed << " surface " << r->truth.surface << " tile "
                                                    << t.tile << " at " << to_string(t.at));
                const cv::Scalar m = face_mean(r.value(), t, 0.8);
                CHECK(cv::norm(m - table_mean) > 30);
            }
        }
    }
}

TEST_CASE("the same seed gives the same image, another seed another", "[vision][renderer]") {
    const auto tiles = random_board(20, 3);
    RenderOptions o = RenderOptions::for_difficulty(vision::Difficulty::Hard);
    o.width = 800;
    o.height = 600;
    auto a = vision::render_table(tiles, o, 99);
    auto b = vision::render_table(tiles, o, 99);
    auto c = vision::render_table(tiles, o, 100);
    REQUIRE((a && b && c));
    std::vector<std::uint8_t> pa, pb;
    cv::imencode(".png", a->image, pa);
    cv::imencode(".png", b->image, pb);
    CHECK(pa == pb);
    CHECK(a->truth.to_json() == b->truth.to_json());
    CHECK(cv::norm(a->image, c->image, cv::NORM_L1) > 0);
}

TEST_CASE("a fixed scene's frames are the same whether its table was kept from the last frame or drawn anew", "[vision][renderer]") {
    // Frames of one fixed scene reuse the table drawn for the previous frame on the same thread;
    // another scene, another surface or a one-off render in between must not leak into them.
    const auto tiles = random_board(12, 5);
    auto fixed_options = [](std::uint64_t scene, std::vector<vision::TableSurface> surfaces) {
        RenderOptions o = RenderOptions::for_difficulty(vision::Difficulty::Medium);
        o.width = 480;
        o.height = 320;
        o.scene_seed = scene;
        o.surfaces = std::move(surfaces);
        return o;
    };
    const RenderOptions wood = fixed_options(11, {vision::TableSurface::Wood});
    const RenderOptions cloth = fixed_options(11, {vision::TableSurface::Cloth});  // same scene seed, another table
    const RenderOptions other = fixed_options(12, {vision::TableSurface::Wood});
    RenderOptions one_off = RenderOptions::for_difficulty(vision::Difficulty::Medium);
    one_off.width = 480;
    one_off.height = 320;
    auto png = [](const cv::Mat& image) {
        std::vector<std::uint8_t> bytes;
        cv::imencode(".png", image, bytes);
        return bytes;
    };
    // Each frame drawn on a thread of its own: nothing kept.
    auto fresh = [&](const RenderOptions& o, std::uint64_t seed) {
        std::vector<std::uint8_t> bytes;
        std::thread([&] { bytes = png(vision::render_table(tiles, o, seed).value().image); }).join();
        return bytes;
    };
    // The same frames drawn in a row on this thread, the table kept between them.
    std::vector<std::pair<const RenderOptions*, std::uint64_t>> sequence = {{&wood, 1}, {&wood, 2}, {&cloth, 3}, {&wood, 4}, {&other, 5},
                                                                            {&one_off, 6}, {&wood, 7}, {&wood, 8}};
    for (const auto& [o, seed] : sequence) {
        INFO("frame seed " << seed);
        auto kept = vision::render_table(tiles, *o, seed);
        REQUIRE(kept.has_value());
        CHECK(png(kept->image) == fresh(*o, seed));
    }
    // The kept table is the scene's own: frames of two scenes differ.
    CHECK(fresh(wood, 9) != fresh(other, 9));
}

TEST_CASE("styles give visibly different tiles", "[vision][renderer]") {
    const auto tiles = block("R", 2, 2);
    RenderOptions o = clean_options();
    std::vector<cv::Scalar> means;
    for (const auto* style : {"classic", "muted", "contrast", "dusk"}) {
        o.style = style;
        auto r = vision::render_table(tiles, o, 5);
        REQUIRE(r);
        CHECK(r->truth.style == style);
        means.push_back(face_mean(r.value(), r->truth.tiles[0], 0.9));
    }
    for (std::size_t i = 0; i < means.size(); ++i) {
        for (std::size_t j = i + 1; j < means.size(); ++j) CHECK(cv::norm(means[i] - means[j]) > 15);
    }
}

TEST_CASE("presets change the difficulty", "[vision][renderer]") {
    const auto tiles = random_board(50, 6);
    auto easy = vision::render_table(tiles, RenderOptions::for_difficulty(vision::Difficulty::Easy), 7);
    auto hard = vision::render_table(tiles, RenderOptions::for_difficulty(vision::Difficulty::Hard), 7);
    REQUIRE((easy && hard));
    CHECK(easy->truth.camera.tilt_deg <= 10);
    CHECK(hard->truth.camera.tilt_deg >= 25);
    CHECK_FALSE(easy->truth.glare);
    CHECK_FALSE(easy->truth.hand);
    CHECK(hard->truth.glare);
    CHECK(hard->truth.hand);
    CHECK(hard->truth.hand_outline.size() >= 3);
    // The hand hides part of the board.
    int hidden = 0;
    for (const auto& t : hard->truth.tiles) hidden += t.visible < 0.99;
    CHECK(hidden >= 1);
    for (const auto& t : easy->truth.tiles) CHECK(t.visible == 1.0);
    // Hard images are blurrier: less Laplacian energy over the board.
    auto sharpness = [](const vision::Rendering& r) {
        cv::Mat grey, lap;
        cv::cvtColor(r.image, grey, cv::COLOR_BGR2GRAY);
        cv::Laplacian(grey, lap, CV_64F);
        cv::Scalar mean, dev;
        cv::meanStdDev(lap, mean, dev, tiles_mask(r, 0));
        return dev[0];
    };
    CHECK(sharpness(hard.value()) < 0.8 * sharpness(easy.value()));
}

TEST_CASE("bad render options are refused with the field named", "[vision][renderer][bad-input]") {
    CHECK(RenderOptions{}.check().has_value());
    for (const auto d : {vision::Difficulty::Easy, vision::Difficulty::Medium, vision::Difficulty::Hard}) {
        CHECK(RenderOptions::for_difficulty(d).check().has_value());
    }
    auto refused = [](const RenderOptions& o, const char* needle) {
        auto st = o.check();
        REQUIRE_FALSE(st);
        CHECK_THAT(st.error().message, Catch::Contains(needle));
    };
    RenderOptions o;
    o.width = 10;
    refused(o, "width");
    o = {};
    o.tilt_deg = {30, 10};
    refused(o, "tilt_deg");
    o = {};
    o.tilt_deg = {0, 70};
    refused(o, "tilt_deg");
    o = {};
    o.jpeg_quality = {0, 50};
    refused(o, "jpeg_quality");
    o = {};
    o.style = "cubist";
    refused(o, "cubist");
    o = {};
    o.surfaces.clear();
    refused(o, "surfaces");
    o = {};
    o.jitter_mm = 12;
    refused(o, "jitter_mm");
    o = {};
    o.noise_sigma = {-1, 2};
    refused(o, "noise_sigma");

    CHECK(vision::parse_difficulty("hard").has_value());
    auto bad = vision::parse_difficulty("nightmare");
    REQUIRE_FALSE(bad);
    CHECK_THAT(bad.error().message, Catch::Contains("easy, medium or hard"));

    // A render refuses bad options too.
    o = {};
    o.fill = {0.9, 0.5};
    auto r = vision::render_table(block("E", 1, 1), o, 1);
    REQUIRE_FALSE(r);
    CHECK_THAT(r.error().message, Catch::Contains("fill"));
}

TEST_CASE("boards that cannot be rendered give a clear error", "[vision][renderer][bad-input]") {
    auto empty = vision::render_table(std::vector<vision::SceneTile>{}, RenderOptions{}, 1);
    REQUIRE_FALSE(empty);
    CHECK_THAT(empty.error().message, Catch::Contains("no tiles"));

    auto twice = block("E", 2, 1);
    twice[1].at = twice[0].at;
    auto doubled = vision::render_table(twice, RenderOptions{}, 1);
    REQUIRE_FALSE(doubled);
    CHECK_THAT(doubled.error().message, Catch::Contains("two tiles at [0, 0]"));

    auto nothing = block("E", 1, 1);
    nothing[0].type = nullptr;
    REQUIRE_FALSE(vision::render_table(nothing, RenderOptions{}, 1));

    // One tile renders: seen from straight above, its top face fills its share of the frame.
    RenderOptions o = clean_options();
    auto single = vision::render_table(block("C", 1, 1), o, 1);
    REQUIRE(single);
    const auto& t = single->truth.tiles.at(0);
    double x0 = 1e9, x1 = -1e9, y0 = 1e9, y1 = -1e9;
    for (const auto& c : t.corners_px) {
        x0 = std::min(x0, c.x), x1 = std::max(x1, c.x), y0 = std::min(y0, c.y), y1 = std::max(y1, c.y);
    }
    CHECK(std::max((x1 - x0) / o.width, (y1 - y0) / o.height) == Approx(0.6).epsilon(0.01));
}

TEST_CASE("a rendering is written with its truth beside it", "[vision][renderer]") {
    const auto dir = std::filesystem::temp_directory_path() / "meeplecam_render_test";
    std::filesystem::create_directories(dir);
    const std::string image = (dir / "scene.png").string();
    CHECK(vision::truth_path_for(image) == (dir / "scene.truth.json").string());
    RenderOptions o = clean_options();
    auto r = vision::render_table(block("D", 2, 2), o, 3);
    REQUIRE(r);
    REQUIRE(vision::write_rendering(r.value(), image).has_value());
    const cv::Mat back = cv::imread(image);
    REQUIRE_FALSE(back.empty());
    CHECK(cv::norm(back, r->image, cv::NORM_INF) == 0);
    auto text = read_whole_file(vision::truth_path_for(image));
    REQUIRE(text);
    const auto j = nlohmann::json::parse(text.value());
    CHECK(j.at("format") == "meeplecam-render-truth");
    CHECK(j.at("image") == "scene.png");
    REQUIRE(j.at("cells").size() == 4);
    CHECK(j.at("cells")[1].at("tile") == "D");
    CHECK(j.at("cells")[1].at("at") == nlohmann::json::array({1, 0}));
    CHECK(j.at("cells")[1].at("rot") == 90);
    CHECK(j.at("cells")[1].at("corners_px")[2][0].get<double>() == Approx(r->truth.tiles[1].corners_px[2].x));
    CHECK(j.at("options").at("preset") == "easy");

    auto wrong = vision::write_rendering(r.value(), (dir / "scene.bmp").string());
    REQUIRE_FALSE(wrong);
    CHECK_THAT(wrong.error().message, Catch::Contains(".png"));
}

TEST_CASE("pieces stand on their feature and show their colour", "[vision][renderer]") {
    RandomGameOptions options;
    options.seed = 12;
    options.max_tiles = 25;
    options.follower_chance = 1.0;
    const auto game = play_random_game(base(), options).value();
    const auto scene = vision::scene_of(game.game);
    REQUIRE(scene.pieces.size() >= 3);
    RenderOptions o = clean_options();
    o.width = 1280;
    o.height = 960;
    o.tilt_deg = {20, 20};
    auto r = vision::render_table(scene, o, 4);
    REQUIRE(r);
    REQUIRE(r->truth.pieces.size() == scene.pieces.size());
    const auto j = r->truth.to_json();
    REQUIRE(j.at("pieces").size() == scene.pieces.size());
    for (std::size_t k = 0; k < scene.pieces.size(); ++k) {
        const auto& piece = scene.pieces[k];
        const auto& truth = r->truth.pieces[k];
        INFO("piece " << k << " " << piece.colour << " at " << to_string(piece.at) << " on " << truth.feature);
        CHECK(truth.colour == piece.colour);
        CHECK(j.at("pieces")[k].at("loc") == std::string(port_name(piece.loc)));
        // On its tile, on the feature it was placed on.
        const auto tile = std::find_if(r->truth.tiles.begin(), r->truth.tiles.end(), [&](const auto& t) { return t.at == piece.at; });
        REQUIRE(tile != r->truth.tiles.end());
        const cv::Point2d d = truth.base_mm - tile->centre_mm;
        const double a = -tile->turn_deg * CV_PI / 180;
        const cv::Point2d local(d.x * std::cos(a) - d.y * std::sin(a), d.x * std::sin(a) + d.y * std::cos(a));
        CHECK(std::abs(local.x) < r->truth.tile_mm / 2);
        CHECK(std::abs(local.y) < r->truth.tile_mm / 2);
        const auto& placed = game.game.board().tiles()[static_cast<std::size_t>(game.game.board().tile_at(piece.at))];
        const cv::Mat labels = vision::feature_labels(*placed.type, placed.rot, 90);
        const int px = static_cast<int>((local.x / r->truth.tile_mm + 0.5) * 90), py = static_cast<int>((local.y / r->truth.tile_mm + 0.5) * 90);
        CHECK(labels.at<int>(py, px) == piece.feature);
        CHECK(truth.feature == std::string(feature_kind_name(placed.type->features[static_cast<std::size_t>(piece.feature)].kind)));
        // Its body, between base and head, shows the player's colour (lit somewhere between 45 % and 100 %).
        const cv::Vec3d body = at(r->image, truth.base_px * 0.6 + truth.head_px * 0.4);
        const std::map<std::string, cv::Vec3d> colours = {{"red", {40, 40, 200}}, {"blue", {180, 90, 30}}, {"green", {50, 150, 40}},
                                                          {"yellow", {30, 200, 230}}, {"black", {35, 35, 38}}, {"grey", {140, 140, 140}}};
        const cv::Vec3d expected = colours.at(piece.colour);
        const cv::Vec3d unit_expected = expected * (1.0 / std::max(1.0, cv::norm(expected)));
        const cv::Vec3d unit_body = body * (1.0 / std::max(1.0, cv::norm(body)));
        if (piece.colour != "black" && piece.colour != "grey") CHECK(unit_body.dot(unit_expected) > 0.97);
        CHECK(cv::norm(body) <= cv::norm(expected) * 1.05 + 10);
    }
}

TEST_CASE("pieces that cannot be placed give a clear error", "[vision][renderer][bad-input]") {
    vision::Scene scene;
    scene.tiles = block("D", 2, 1);
    scene.pieces = {{Cell{5, 5}, 0, "red", 0}};
    auto off = vision::render_table(scene, RenderOptions{}, 1);
    REQUIRE_FALSE(off);
    CHECK_THAT(off.error().message, Catch::Contains("no tile under it"));
    scene.pieces = {{Cell{0, 0}, 9, "red", 0}};
    auto missing = vision::render_table(scene, RenderOptions{}, 1);
    REQUIRE_FALSE(missing);
    CHECK_THAT(missing.error().message, Catch::Contains("feature 9"));
    scene.pieces = {{Cell{0, 0}, 0, "purple", 0}};
    auto colour = vision::render_table(scene, RenderOptions{}, 1);
    REQUIRE_FALSE(colour);
    CHECK_THAT(colour.error().message, Catch::Contains("purple"));
}
