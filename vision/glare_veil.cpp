// Stage 0b of the board reader: a glare veil measured on the frame and lifted off it
// (vision/glare_veil.h).
#include "vision/glare_veil.h"

#include <algorithm>
#include <cmath>
#include <vector>

#include <opencv2/core/utility.hpp>
#include <opencv2/imgproc.hpp>

namespace meeplecam::vision {

Status VeilOptions::check() const {
    auto bad = [](const char* what) { return Status(invalid("veil options", what)); };
    if (work_side < 64 || work_side > 4096) return bad("work_side must be within [64, 4096]");
    if (block_px < 4 || block_px > work_side / 4) return bad("block_px must be within [4, work_side / 4]");
    if (!(dark_quantile > 0 && dark_quantile < 1)) return bad("dark_quantile must be within (0, 1)");
    if (!(common_quantile > 0 && common_quantile < 1)) return bad("common_quantile must be within (0, 1)");
    if (!(colour_reach > 0)) return bad("colour_reach must be positive");
    if (!(min_common_dark >= 1 && min_common_dark < 255)) return bad("min_common_dark must be within [1, 255)");
    if (min_alike_blocks < 1) return bad("min_alike_blocks must be at least 1");
    if (!(smooth_blocks >= 0 && smooth_blocks <= 20)) return bad("smooth_blocks must be within [0, 20]");
    if (!(max_veil >= 0 && max_veil < 1)) return bad("max_veil must be within [0, 1)");
    if (!(min_peak >= 0 && min_peak <= 1)) return bad("min_peak must be within [0, 1]");
    return Ok{};
}

namespace {

constexpr double kWhiteDamping = 8;  // added to the distance to white in the colour measure (sensor noise on near-white pixels)

// The q-quantile of a list of byte values (the list is reordered).
double quantile_of(std::vector<std::uint8_t>& values, double q) {
    if (values.empty()) return 0;
    const auto at = values.begin() + static_cast<std::ptrdiff_t>(std::min(values.size() - 1, static_cast<std::size_t>(q * static_cast<double>(values.size()))));
    std::nth_element(values.begin(), at, values.end());
    return *at;
}

// What one block of the frame shows, measured so glare does not change it: its dark level
// (the `q`-quantile of 255 minus the brightest channel: glare shrinks it by (1 - s)) and its
// colour (the mean opponent chroma R - G, (R + G) / 2 - B over the distance to white of the
// darkest channel: glare shrinks both by the same factor, so their ratio is its own).
struct Block {
    double dark = 0;
    cv::Point2d colour;
};

std::vector<Block> measure_blocks(const cv::Mat& work, int bw, int bh, double q) {
    std::vector<Block> blocks(static_cast<std::size_t>(bw * bh));
    std::vector<std::uint8_t> values;
    for (int by = 0; by < bh; ++by) {
        for (int bx = 0; bx < bw; ++bx) {
            values.clear();
            cv::Point2d colour(0, 0);
            const int x0 = bx * work.cols / bw, x1 = (bx + 1) * work.cols / bw, y0 = by * work.rows / bh, y1 = (by + 1) * work.rows / bh;
            for (int y = y0; y < y1; ++y) {
                const auto* px = work.ptr<cv::Vec3b>(y);
                for (int x = x0; x < x1; ++x) {
                    const int b = px[x][0], g = px[x][1], r = px[x][2];
                    values.push_back(static_cast<std::uint8_t>(255 - std::max({b, g, r})));
                    const double to_white = 255 - std::min({b, g, r}) + kWhiteDamping;
                    colour += cv::Point2d((r - g) / to_white, ((r + g) / 2.0 - b) / to_white);
                }
            }
            auto& block = blocks[static_cast<std::size_t>(by * bw + bx)];
            block.dark = quantile_of(values, q);
            block.colour = colour / std::max(1, (x1 - x0) * (y1 - y0));
        }
    }
    return blocks;
}

}  // namespace

cv::Mat estimate_glare_veil(const cv::Mat& bgr, const VeilOptions& o) {
    if (bgr.empty() || bgr.type() != CV_8UC3 || !o.check()) return {};
    const double scale = std::min(1.0, static_cast<double>(o.work_side) / std::max(bgr.cols, bgr.rows));
    cv::Mat work;
    cv::resize(bgr, work, cv::Size(), scale, scale, scale < 1 ? cv::INTER_AREA : cv::INTER_LINEAR);
    if (work.cols < 2 * o.block_px || work.rows < 2 * o.block_px) return {};
    const int bw = std::max(1, work.cols / o.block_px), bh = std::max(1, work.rows / o.block_px);
    const auto blocks = measure_blocks(work, bw, bh, o.dark_quantile);
    // The veil per block: how far its dark level fell below the common dark level of the blocks
    // of its colour (a white table is compared with the table, the tiles' art with the art).
    cv::Mat veil(bh, bw, CV_32FC1, cv::Scalar(0));
    std::vector<std::uint8_t> alike;
    for (std::size_t i = 0; i < blocks.size(); ++i) {
        alike.clear();
        for (const auto& other : blocks) {
            if (cv::norm(other.colour - blocks[i].colour) <= o.colour_reach) alike.push_back(static_cast<std::uint8_t>(other.dark));
        }
        if (static_cast<int>(alike.size()) < o.min_alike_blocks) continue;
        const double common = quantile_of(alike, o.common_quantile);
        if (common < o.min_common_dark) continue;  // a light plain table: a gradient across it would pass for a veil
        veil.at<float>(static_cast<int>(i) / bw, static_cast<int>(i) % bw) = static_cast<float>(std::clamp(1.0 - blocks[i].dark / common, 0.0, o.max_veil));
    }
    if (o.smooth_blocks > 0) cv::GaussianBlur(veil, veil, cv::Size(), o.smooth_blocks, o.smooth_blocks, cv::BORDER_REPLICATE);
    double peak = 0;
    cv::minMaxLoc(veil, nullptr, &peak);
    if (peak < o.min_peak) return {};
    cv::Mat full;
    cv::resize(veil, full, bgr.size(), 0, 0, cv::INTER_LINEAR);
    return full;
}

bool lift_glare_veil(cv::Mat& bgr, const VeilOptions& o) {
    const cv::Mat veil = estimate_glare_veil(bgr, o);
    if (veil.empty()) return false;
    // c = 255 - (255 - c') / (1 - s), per pixel; the rows are split over the cores.
    cv::parallel_for_(cv::Range(0, bgr.rows), [&](const cv::Range& rows) {
        for (int y = rows.start; y < rows.end; ++y) {
            auto* px = bgr.ptr<std::uint8_t>(y);
            const auto* s = veil.ptr<float>(y);
            for (int x = 0; x < bgr.cols; ++x) {
                if (s[x] <= 0) continue;
                const float k = 1.0f / (1.0f - s[x]);
                for (int ch = 0; ch < 3; ++ch) {
                    const float v = 255.0f - (255.0f - static_cast<float>(px[3 * x + ch])) * k + 0.5f;
                    px[3 * x + ch] = static_cast<std::uint8_t>(std::clamp(v, 0.0f, 255.0f));
                }
            }
        }
    });
    return true;
}

}  // namespace meeplecam::vision
