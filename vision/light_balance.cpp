// Stage 2c of the board reader: the light evened out over the board's top view.
//
// Glare (light added, colours washed towards white) and gradients (light taken away) change
// a terrain's colour from one side of the board to the other, so one colour model per frame
// would not fit them. The board's mean brightness is taken in a window of a few tiles
// (only tile pixels count); where it is above the board's median, the glare share g is
// removed (c = (c' - g * 255) / (1 - g)); where below, the colour is scaled up.
#include <algorithm>
#include <cmath>

#include <opencv2/imgproc.hpp>

#include "vision/board_reader.h"

namespace meeplecam::vision {

Status LightOptions::check() const {
    auto bad = [](const char* what) { return Status(invalid("light options", what)); };
    if (!(window_tiles > 0 && window_tiles <= 20)) return bad("window_tiles must be within (0, 20]");
    if (!(max_glare >= 0 && max_glare < 1)) return bad("max_glare must be within [0, 1)");
    if (!(max_gain >= 1)) return bad("max_gain must be at least 1");
    return Ok{};
}

void even_out_light(LatticeView& view, const std::vector<CellObservation>& cells, const LightOptions& o) {
    if (!o.enabled || cells.size() < 4 || view.top.empty() || !o.check()) return;
    // Tile pixels of the board.
    cv::Mat mask(view.top.size(), CV_32F, cv::Scalar(0));
    const int p = static_cast<int>(std::lround(view.pitch_px));
    for (const auto& c : cells) {
        const cv::Point2d centre = view.cell_centre(c.col, c.row) + c.offset_px;
        cv::Rect r(static_cast<int>(centre.x) - p / 2, static_cast<int>(centre.y) - p / 2, p, p);
        r &= cv::Rect(0, 0, mask.cols, mask.rows);
        mask(r).setTo(1.0f);
    }
    cv::Mat grey, weighted, local_sum, local_n;
    cv::cvtColor(view.top, grey, cv::COLOR_BGR2GRAY);
    grey.convertTo(grey, CV_32F);
    cv::multiply(grey, mask, weighted);
    const double sigma = o.window_tiles * view.pitch_px / 2;
    // Blur a shrunk copy: the window is wide, and the light changes slowly.
    const double shrink = std::min(1.0, 16.0 / view.pitch_px);
    cv::Mat ws, ms;
    cv::resize(weighted, ws, cv::Size(), shrink, shrink, cv::INTER_AREA);
    cv::resize(mask, ms, cv::Size(), shrink, shrink, cv::INTER_AREA);
    cv::GaussianBlur(ws, ws, cv::Size(), sigma * shrink);
    cv::GaussianBlur(ms, ms, cv::Size(), sigma * shrink);
    cv::Mat local = ws / cv::max(ms, 1e-3);
    cv::resize(local, local, view.top.size(), 0, 0, cv::INTER_LINEAR);
    // The board's median brightness.
    std::vector<float> values;
    for (int y = 0; y < grey.rows; y += 2) {
        const auto* g = grey.ptr<float>(y);
        const auto* m = mask.ptr<float>(y);
        for (int x = 0; x < grey.cols; x += 2) {
            if (m[x] > 0) values.push_back(g[x]);
        }
    }
    if (values.empty()) return;
    std::nth_element(values.begin(), values.begin() + static_cast<std::ptrdiff_t>(values.size() / 2), values.end());
    const double median = std::max(1.0f, values[values.size() / 2]);
    for (int y = 0; y < view.top.rows; ++y) {
        auto* px = view.top.ptr<cv::Vec3b>(y);
        const auto* l = local.ptr<float>(y);
        for (int x = 0; x < view.top.cols; ++x) {
            const double m = l[x];
            if (m <= 0) continue;
            for (int ch = 0; ch < 3; ++ch) {
                double v = px[x][ch];
                if (m > median) {
                    const double g = std::min(o.max_glare, (m - median) / std::max(1.0, 255.0 - median));
                    v = (v - g * 255.0) / (1 - g);
                } else {
                    v *= std::min(o.max_gain, median / std::max(1.0, m));
                }
                px[x][ch] = cv::saturate_cast<std::uint8_t>(v);
            }
        }
    }
}

}  // namespace meeplecam::vision
