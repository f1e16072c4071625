// classify-tile and learn-tiles, called like the command line does (exit codes, files).
#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>
#include <random>

#include <opencv2/imgcodecs.hpp>
#include <opencv2/imgproc.hpp>

#include "app/tile_commands.h"
#include "engine/catalog.h"
#include "vision/tile_art.h"
#include "vision/tile_classifier.h"
#include "vision/tile_library.h"

using namespace meeplecam;
using namespace meeplecam::vision;

namespace {

std::string temp_path(const std::string& name) { return (std::filesystem::temp_directory_path() / name).string(); }

const Catalog& base_catalog() {
    static const Catalog cat = Catalog::embedded("carcassonne-base").value();
    return cat;
}

// A photo-like crop: the art on a table margin, slightly turned and shifted, light, blur, noise.
cv::Mat photo(const cv::Mat& art, std::mt19937_64& rng) {
    std::uniform_real_distribution<double> u(0, 1);
    const int n = art.cols, margin = n / 6;
    cv::Mat img(n + 2 * margin, n + 2 * margin, CV_8UC3, cv::Scalar(70, 80, 90));
    const std::vector<cv::Point2f> src = {{0, 0}, {static_cast<float>(n), 0}, {static_cast<float>(n), static_cast<float>(n)}, {0, static_cast<float>(n)}};
    std::vector<cv::Point2f> dst;
    for (const auto& p : src) {
        dst.push_back(p + cv::Point2f(static_cast<float>(margin + (u(rng) - 0.5) * 0.08 * n),
                                      static_cast<float>(margin + (u(rng) - 0.5) * 0.08 * n)));
    }
    const cv::Mat h = cv::getPerspectiveTransform(src, dst);
    cv::Mat warped, mask;
    cv::warpPerspective(art, warped, h, img.size());
    cv::warpPerspective(cv::Mat(n, n, CV_8U, cv::Scalar(255)), mask, h, img.size());
    warped.copyTo(img, mask);
    cv::Mat f;
    img.convertTo(f, CV_32F, 0.8 + 0.35 * u(rng));
    cv::GaussianBlur(f, f, cv::Size(0, 0), 0.5 + u(rng));
    cv::Mat noise(f.size(), CV_32FC3);
    cv::randn(noise, 0, 4.0);
    f += noise;
    f.convertTo(img, CV_8U);
    return img;
}

}  // namespace

TEST_CASE("learn-tiles learns a reference grid / classify-tile uses the library", "[cli][tiles]") {
    const TileStyle style = find_tile_style("contrast").value();
    std::mt19937_64 rng(3);
    // The 24 base types in catalog order, 6 x 4, upright, on a table.
    const int cell = 140, n = 110;
    cv::Mat sheet(4 * cell, 6 * cell, CV_8UC3, cv::Scalar(70, 80, 90));
    const auto& tiles = base_catalog().tiles();
    for (std::size_t i = 0; i < tiles.size(); ++i) {
        const cv::Mat art = render_tile(tiles[i], 0, n, style, rng);
        const int x = static_cast<int>(i % 6) * cell + (cell - n) / 2 + static_cast<int>(rng() % 7) - 3;
        const int y = static_cast<int>(i / 6) * cell + (cell - n) / 2 + static_cast<int>(rng() % 7) - 3;
        art.copyTo(sheet(cv::Rect(x, y, n, n)));
    }
    const auto sheet_path = temp_path("meeplecam_reference_sheet.png");
    const auto lib_path = temp_path("meeplecam_learned_tiles.json");
    REQUIRE(cv::imwrite(sheet_path, sheet));
    std::filesystem::remove(lib_path);
    REQUIRE(cli::run_learn_tiles({sheet_path, "--layout", "reference", "-o", lib_path}) == 0);
    auto lib = TileLibrary::load(lib_path);
    REQUIRE(lib);
    CHECK(lib->entries.size() == 96);  // every (type, rotation) of the base game

    // Tiles of the learned style, turned, with degradations: the library reads them.
    auto with = TileClassifier::create(base_catalog(), {}, &lib.value());
    auto without = TileClassifier::create(base_catalog());
    REQUIRE(with);
    REQUIRE(without);
    int ok_with = 0, ok_without = 0, total = 0;
    for (const TileType& type : tiles) {
        for (int k = 0; k < 2; ++k) {
            const int rot = static_cast<int>(rng() % 4);
            const cv::Mat img = photo(render_tile(type, rot, 130, style, rng), rng);
            ++total;
            auto a = with->classify(img);
            auto b = without->classify(img);
            ok_with += a && a->best.tile == type.id && same_rotation(type, a->best.rot, rot);
            ok_without += b && b->best.tile == type.id && same_rotation(type, b->best.rot, rot);
        }
    }
    INFO("contrast style: with its library " << ok_with << "/" << total << ", default model " << ok_without << "/" << total);
    CHECK(ok_with >= total * 95 / 100);
    CHECK(ok_with > ok_without);  // the default model misses this style's red pennants

    // The command itself, on one photo, with and without the library.
    const auto one = temp_path("meeplecam_one_tile.png");
    REQUIRE(cv::imwrite(one, photo(render_tile(*base_catalog().find("K"), 1, 130, style, rng), rng)));
    CHECK(cli::run_classify_tile({one, "--game", "carcassonne", "--json"}) == 0);
    CHECK(cli::run_classify_tile({one, "--game", "carcassonne", "--library", lib_path}) == 0);
    CHECK(cli::run_classify_tile({one, "--game", "carcassonne", "--expansions", "bridges-castles-bazaars,ferries"}) == 0);
}

TEST_CASE("learn-tiles with names and a layout file", "[cli][tiles]") {
    const TileStyle style = find_tile_style("dusk").value();
    std::mt19937_64 rng(4);
    const auto dir = temp_path("meeplecam_named_tiles");
    std::filesystem::create_directories(dir);
    std::vector<std::string> args;
    for (const char* id : {"D", "J", "V"}) {
        const std::string p = dir + "/" + id + "_1.png";
        REQUIRE(cv::imwrite(p, photo(render_tile(*base_catalog().find(id), 3, 120, style, rng), rng)));
        args.push_back(p);
    }
    const auto lib_path = temp_path("meeplecam_named_library.json");
    args.insert(args.end(), {"--layout", "names", "-o", lib_path});
    REQUIRE(cli::run_learn_tiles(args) == 0);
    auto lib = TileLibrary::load(lib_path);
    REQUIRE(lib);
    // The rotation of each photo was found: the rotation-0 entry of J looks like J at rotation 0.
    const cv::Mat j0 = render_tile(*base_catalog().find("J"), 0, 96, style, rng);
    const auto thumb = tile_thumbnail(j0, lib->thumb_px);
    const double d0 = lib->distance(thumb, "J", 0, 0.5);
    const double d2 = lib->distance(thumb, "J", 2, 0.5);
    CHECK(d0 >= 0);
    CHECK(d0 < d2);

    const auto layout = temp_path("meeplecam_layout.json");
    { std::ofstream(layout) << R"({"grid": [2, 1], "tiles": ["E", "Z"]})"; }
    CHECK(cli::run_learn_tiles({args[0], "--layout", layout, "-o", lib_path}) == 2);  // unknown tile Z
    { std::ofstream(layout) << R"({"grid": [2, 1], "tiles": ["E", null], "rot": [90, 0]})"; }
    CHECK(cli::run_learn_tiles({args[0], "--layout", layout, "-o", lib_path}) == 0);
}

TEST_CASE("classify-tile and learn-tiles refuse bad input with exit code 2", "[cli][tiles][bad-input]") {
    const auto tiny = temp_path("meeplecam_tiny_tile.png");
    const auto blank = temp_path("meeplecam_blank_tile.png");
    const auto corrupt = temp_path("meeplecam_corrupt_library.json");
    REQUIRE(cv::imwrite(tiny, cv::Mat(1, 1, CV_8UC3, cv::Scalar(1, 2, 3))));
    REQUIRE(cv::imwrite(blank, cv::Mat(300, 300, CV_8UC3, cv::Scalar(90, 160, 60))));
    { std::ofstream(corrupt) << "{\"format\": \"meeplecam-tile-library\", \"vers"; }
    CHECK(cli::run_classify_tile({"--help"}) == 0);
    CHECK(cli::run_classify_tile({"/nonexistent/tile.png", "--game", "carcassonne"}) == 2);
    CHECK(cli::run_classify_tile({tiny, "--game", "carcassonne"}) == 2);
    CHECK(cli::run_classify_tile({blank, "--game", "carcassonne"}) == 2);
    CHECK(cli::run_classify_tile({blank}) == 2);                                         // no --game
    CHECK(cli::run_classify_tile({blank, "--game", "chess"}) == 2);                      // unknown game
    CHECK(cli::run_classify_tile({blank, "--game", "carcassonne", "--expansions", "nope"}) == 2);
    CHECK(cli::run_classify_tile({blank, "--game", "carcassonne", "--library", corrupt}) == 2);
    CHECK(cli::run_learn_tiles({blank, "--layout", "reference"}) == 2);                  // no -o
    CHECK(cli::run_learn_tiles({blank, "--layout", "reference", "--grid", "2x2", "-o", temp_path("x.json")}) == 2);
    CHECK(cli::run_learn_tiles({"/nonexistent/a.png", "--layout", "names", "-o", temp_path("x.json")}) == 2);
}
