// Tile classification benchmark: prints tables (not a Google benchmark).
//
//   ./build/bench/vision_tiles [--k N] [--seed N] [--real DIR] [--sheets DIR] [--sheet-labels FILE] [--no-edge-square]
//
// (a) synthetic: per art style, K rendered tiles per base type at random rotations, with
//     photo-like degradations (background margin, perspective, light, blur, noise, JPEG);
//     type and type+rotation accuracy of the default model, and of a library learned from
//     clean renders of the "classic" style.
// (b) real, when ../shared/realdata/dev/tiles_AX exists (skipped cleanly otherwise): the 24
//     scans turned by 0/90/180/270: type accuracy, rotation consistency, confusions, time.
// (c) real, held out, when ../shared/realdata/dev/tile_sheets and its label file
//     (bench/real_labels/tile_sheets.labels.json) exist: the 72 base tiles cut from their
//     sheets, turned the same way: type and rotation accuracy against the labels, confusions.
#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <cstdio>
#include <filesystem>
#include <map>
#include <random>
#include <string>
#include <vector>

#include <opencv2/imgcodecs.hpp>
#include <opencv2/imgproc.hpp>

#include "engine/catalog.h"
#include "real_scans.h"
#include "vision/image_io.h"
#include "vision/tile_art.h"
#include "vision/tile_classifier.h"
#include "vision/tile_library.h"

using namespace meeplecam;
using namespace meeplecam::vision;

namespace {

// A rendered tile as a rough photo crop: margin of table, perspective, light, blur, noise, JPEG.
cv::Mat degrade(const cv::Mat& tile, std::mt19937_64& rng) {
    std::uniform_real_distribution<double> u(0, 1);
    const int n = tile.cols;
    const int margin = static_cast<int>(n * (0.05 + 0.2 * u(rng)));
    const int out = n + 2 * margin;
    const cv::Scalar table(40 + 150 * u(rng), 40 + 150 * u(rng), 40 + 150 * u(rng));
    cv::Mat img(out, out, CV_8UC3, table);
    std::vector<cv::Point2f> src = {{0, 0}, {static_cast<float>(n), 0}, {static_cast<float>(n), static_cast<float>(n)}, {0, static_cast<float>(n)}};
    std::vector<cv::Point2f> dst;
    const double j = 0.06 * n;
    const double ang = (u(rng) - 0.5) * 0.2;  // a small turn
    const cv::Point2f c(static_cast<float>(out) / 2.0f, static_cast<float>(out) / 2.0f);
    for (const auto& p : src) {
        cv::Point2f q = p - cv::Point2f(static_cast<float>(n) / 2.0f, static_cast<float>(n) / 2.0f);
        q = cv::Point2f(static_cast<float>(q.x * std::cos(ang) - q.y * std::sin(ang)), static_cast<float>(q.x * std::sin(ang) + q.y * std::cos(ang)));
        dst.push_back(c + q + cv::Point2f(static_cast<float>((u(rng) - 0.5) * j), static_cast<float>((u(rng) - 0.5) * j)));
    }
    cv::Mat mask(n, n, CV_8U, cv::Scalar(255)), warped, wmask;
    const cv::Mat h = cv::getPerspectiveTransform(src, dst);
    cv::warpPerspective(tile, warped, h, img.size());
    cv::warpPerspective(mask, wmask, h, img.size());
    warped.copyTo(img, wmask);
    // Light: gain, colour cast, gradient.
    cv::Mat f;
    img.convertTo(f, CV_32F);
    const double gain = 0.75 + 0.45 * u(rng);
    const cv::Scalar cast(gain * (0.9 + 0.2 * u(rng)), gain * (0.93 + 0.14 * u(rng)), gain * (0.9 + 0.2 * u(rng)));
    const double gx = (u(rng) - 0.5) * 0.4;
    for (int y = 0; y < f.rows; ++y) {
        for (int x = 0; x < f.cols; ++x) {
            const double g = 1.0 + gx * (x / static_cast<double>(f.cols) - 0.5);
            auto& p = f.at<cv::Vec3f>(y, x);
            for (int ch = 0; ch < 3; ++ch) p[ch] = static_cast<float>(p[ch] * cast[ch] * g);
        }
    }
    const double blur = 0.3 + 1.2 * u(rng);
    cv::GaussianBlur(f, f, cv::Size(0, 0), blur);
    cv::Mat noise(f.size(), CV_32FC3);
    cv::randn(noise, 0, 1.0 + 5.0 * u(rng));
    f += noise;
    f.convertTo(img, CV_8U);
    std::vector<uchar> buf;
    cv::imencode(".jpg", img, buf, {cv::IMWRITE_JPEG_QUALITY, 60 + static_cast<int>(35 * u(rng))});
    return cv::imdecode(buf, cv::IMREAD_COLOR);
}

struct Tally {
    int n = 0, type_ok = 0, rot_ok = 0;
    double ms = 0;
};

Tally run_synthetic(const TileClassifier& clf, const Catalog& cat, const TileStyle& style, int k, std::uint64_t seed,
                    std::map<std::string, int>* confusions) {
    Tally t;
    std::mt19937_64 rng(seed);
    for (const TileType& type : cat.tiles()) {
        for (int i = 0; i < k; ++i) {
            const int rot = static_cast<int>(rng() % 4);
            const int px = 110 + static_cast<int>(rng() % 100);
            const cv::Mat art = render_tile(type, rot, px, style, rng);
            const cv::Mat photo = degrade(art, rng);
            const auto t0 = std::chrono::steady_clock::now();
            auto r = clf.classify(photo);
            t.ms += std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
            ++t.n;
            if (!r) continue;
            if (r->best.tile == type.id) {
                ++t.type_ok;
                if (same_rotation(type, r->best.rot, rot)) ++t.rot_ok;
            } else if (confusions) {
                (*confusions)[type.id + "->" + r->best.tile]++;
            }
            if (std::getenv("VT_VERBOSE") && r->best.tile != type.id) {
                std::printf("  %s/%s rot %d -> %s %d (cost %.2f) square %d pennant %d; alts:", style.name.c_str(),
                            type.id.c_str(), rot, r->best.tile.c_str(), r->best.rot, r->best.cost, r->found_square,
                            r->pennant_seen);
                for (const auto& a : r->alternatives) std::printf(" %s%d %.2f", a.tile.c_str(), a.rot, a.cost);
                std::printf("\n");
                if (const char* dir = std::getenv("VT_DUMP")) {
                    cv::imwrite(std::string(dir) + "/" + style.name + "_" + type.id + "_" + std::to_string(i) + ".png", photo);
                    cv::imwrite(std::string(dir) + "/" + style.name + "_" + type.id + "_" + std::to_string(i) + "_tile.png", r->tile);
                }
            }
        }
    }
    return t;
}

}  // namespace

int main(int argc, char** argv) {
    int k = 6;
    std::uint64_t seed = 7;
    std::string real_dir = "../shared/realdata/dev/tiles_AX";
    std::string sheets_dir = "../shared/realdata/dev/tile_sheets";
    std::string sheet_labels = std::string(MEEPLECAM_SOURCE_DIR "/bench/real_labels/") + bench::kTileSheetLabels;
    TileClassifierOptions base_options;
    for (int i = 1; i < argc; ++i) {
        const std::string a = argv[i];
        if (a == "--no-edge-square") {  // without the square from the tile's four edges (the A/B of sheet35)
            base_options.edge_square = false;
            continue;
        }
        if (i + 1 >= argc) break;
        ++i;
        if (a == "--k") k = std::max(1, std::atoi(argv[i]));
        if (a == "--seed") seed = static_cast<std::uint64_t>(std::atoll(argv[i]));
        if (a == "--real") real_dir = argv[i];
        if (a == "--sheets") sheets_dir = argv[i];
        if (a == "--sheet-labels") sheet_labels = argv[i];
    }
    auto catalog = Catalog::embedded("carcassonne-base");
    if (!catalog) {
        std::fprintf(stderr, "%s\n", catalog.error().to_string().c_str());
        return 2;
    }
    const Catalog& cat = catalog.value();
    auto clf_r = TileClassifier::create(cat, base_options);
    if (!clf_r) return 2;
    const TileClassifier& clf = clf_r.value();

    // Libraries learned from clean renders of each style, at rotation 0 (as learn-tiles would).
    std::map<std::string, TileLibrary> libraries;
    for (const TileStyle& style : builtin_tile_styles()) {
        std::mt19937_64 rng(seed + 1000);
        TileLibrary& library = libraries[style.name];
        for (const TileType& type : cat.tiles()) {
            const cv::Mat art = render_tile(type, 0, clf.options().canonical_px, style, rng);
            library.add(type, 0, art, "render:" + style.name);
        }
    }
    TileClassifierOptions lib_options = base_options;
    if (const char* w = std::getenv("VT_LIBRARY_WEIGHT")) lib_options.library_weight = std::atof(w);

    std::printf("== synthetic: %d rendered tiles per base type (24 types), random rotation, photo-like degradations ==\n", k);
    std::printf("%-10s %-16s %6s %10s %14s %10s\n", "style", "model", "tiles", "type acc", "type+rot acc", "ms/tile");
    std::map<std::string, int> confusions;
    const std::string cross = builtin_tile_styles().front().name;
    for (const TileStyle& style : builtin_tile_styles()) {
        std::vector<std::string> models = {"default", style.name};
        if (style.name != cross) models.push_back(cross);
        for (const std::string& model : models) {
            const bool lib = model != "default";
            auto lib_clf = TileClassifier::create(cat, lib_options, lib ? &libraries[model] : nullptr);
            if (!lib_clf) return 2;
            const Tally t = run_synthetic(lib_clf.value(), cat, style, k, seed, lib ? nullptr : &confusions);
            std::printf("%-10s %-16s %6d %9.1f%% %13.1f%% %10.2f\n", style.name.c_str(),
                        lib ? ("library:" + model).c_str() : "default", t.n, 100.0 * t.type_ok / t.n,
                        100.0 * t.rot_ok / t.n, t.ms / t.n);
        }
    }
    // The base game with both shipped expansions: more hypotheses, new features (bazaars, lakes).
    {
        Catalog all = cat;
        bool ok = true;
        for (const char* extra : {"carcassonne-bridges-castles-bazaars", "carcassonne-ferries"}) {
            auto more = Catalog::embedded(extra);
            ok = ok && more && all.merge(more.value());
        }
        auto all_clf = TileClassifier::create(all, base_options);
        if (ok && all_clf) {
            std::printf("-- base + bridges-castles-bazaars + ferries catalog (%zu types), default model --\n", all.tiles().size());
            std::map<std::string, int> all_conf;
            for (const TileStyle& style : builtin_tile_styles()) {
                const Tally t = run_synthetic(all_clf.value(), all, style, std::max(1, k / 2), seed + 1, &all_conf);
                std::printf("%-10s %-16s %6d %9.1f%% %13.1f%% %10.2f\n", style.name.c_str(), "default (all)", t.n,
                            100.0 * t.type_ok / t.n, 100.0 * t.rot_ok / t.n, t.ms / t.n);
            }
            std::vector<std::pair<int, std::string>> list;
            for (const auto& [key, v] : all_conf) list.emplace_back(v, key);
            std::sort(list.rbegin(), list.rend());
            std::printf("confusions:");
            for (std::size_t i = 0; i < list.size() && i < 16; ++i) std::printf(" %s x%d", list[i].second.c_str(), list[i].first);
            std::printf("\n");
        }
    }
    std::vector<std::pair<int, std::string>> conf;
    for (const auto& [key, v] : confusions) conf.emplace_back(v, key);
    std::sort(conf.rbegin(), conf.rend());
    std::printf("default-model confusions (all styles, truth->predicted x count):");
    for (std::size_t i = 0; i < conf.size() && i < 16; ++i) std::printf(" %s x%d", conf[i].second.c_str(), conf[i].first);
    std::printf("\n\n");

    // (b) Real scans.
    if (auto real = bench::run_real_scans(clf, cat, real_dir)) bench::print_real_scan_summary(*real);
    // (c) Real tile sheets, held out.
    std::printf("\n");
    if (auto sheets = bench::run_real_sheets(clf, cat, sheets_dir, sheet_labels)) bench::print_real_sheet_summary(*sheets);
    return 0;
}
