#include "real_scans.h"

#include <chrono>
#include <cstdio>
#include <filesystem>

#include <opencv2/core.hpp>

#include "vision/image_io.h"

namespace meeplecam::bench {
namespace {

cv::Mat turned(const cv::Mat& img, int quarter_turns) {
    cv::Mat out = img.clone();
    switch (((quarter_turns % 4) + 4) % 4) {
        case 1: cv::rotate(img, out, cv::ROTATE_90_CLOCKWISE); break;
        case 2: cv::rotate(img, out, cv::ROTATE_180); break;
        case 3: cv::rotate(img, out, cv::ROTATE_90_COUNTERCLOCKWISE); break;
        default: break;
    }
    return out;
}

}  // namespace

std::optional<RealScanTally> run_real_scans(const vision::TileClassifier& classifier, const Catalog& catalog, const std::string& dir) {
    if (!std::filesystem::is_directory(dir)) {
        std::printf("real tile scans: %s not found, skipped\n", dir.c_str());
        return std::nullopt;
    }
    std::printf("real tile scans (%s; each turned 0/90/180/270 through classify-tile's classifier; rotation judged by consistency)\n", dir.c_str());
    std::printf("%-5s %s\n", "scan", "predicted (tile rot confidence) for turns 0/90/180/270");
    RealScanTally t;
    for (const TileType& type : catalog.tiles()) {
        const std::string path = dir + "/" + type.id + ".png";
        if (!std::filesystem::exists(path)) continue;
        auto img = vision::load_image(path);
        if (!img) {
            std::printf("%-5s %s\n", type.id.c_str(), img.error().to_string().c_str());
            continue;
        }
        ++t.scans;
        std::printf("%-5s", type.id.c_str());
        int rot0 = -1;
        bool right0 = false;
        for (int q = 0; q < 4; ++q) {
            const cv::Mat im = turned(img.value(), q);
            const auto t0 = std::chrono::steady_clock::now();
            auto r = classifier.classify(im);
            t.ms += std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
            ++t.classifications;
            if (!r) {
                std::printf(" error: %s |", r.error().to_string().c_str());
                continue;
            }
            std::printf(" %s %3d %.2f |", r->best.tile.c_str(), r->best.rot * 90, r->best.confidence);
            const bool right = r->best.tile == type.id;
            if (right) ++t.type_right;
            else t.confusions.push_back(type.id + "(turn " + std::to_string(q * 90) + ")->" + r->best.tile);
            if (q == 0) {
                rot0 = r->best.rot;
                right0 = right;
            } else if (right0 && right) {
                ++t.consistent_of;
                if (vision::same_rotation(type, r->best.rot, rot0 + q)) ++t.consistent;
            }
        }
        std::printf("\n");
    }
    return t;
}

void print_real_scan_summary(const RealScanTally& t) {
    const int n = t.classifications;
    std::printf("real scans: %d, classifications: %d\n", t.scans, n);
    std::printf("type accuracy:        %d/%d = %.1f%%\n", t.type_right, n, n ? 100.0 * t.type_right / n : 0.0);
    std::printf("rotation consistency: %d/%d = %.1f%% (turned images vs the unturned one, both typed right, modulo symmetry)\n",
                t.consistent, t.consistent_of, t.consistent_of ? 100.0 * t.consistent / t.consistent_of : 0.0);
    std::printf("time: %.2f ms/tile\n", n ? t.ms / n : 0.0);
    std::printf("confusions (truth->predicted):");
    for (const auto& c : t.confusions) std::printf(" %s", c.c_str());
    std::printf("\n");
}

}  // namespace meeplecam::bench
