// Stage 2c of the board reader: the light evened out over the board's top view.
//
// Glare (light added, colours washed towards white) and gradients (light taken away) change
// a terrain's colour from one side of the board to the other, so one colour model per frame
// would not fit them. The board's mean brightness is taken in a window of a few tiles
// (only tile pixels count); where it is above the board's median, the glare share g is
// removed (c = (c' - g * 255) / (1 - g)); where below, the colour is scaled up.
#include <algorithm>
#include <cmath>

#include <opencv2/core/utility.hpp>
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
    const int p = static_cast<int>(std::lround(view.pitch_px));
    const cv::Rect top_bounds(0, 0, view.top.cols, view.top.rows);
    std::vector<cv::Rect> squares;
    cv::Mat mask(view.top.size(), CV_32F, cv::Scalar(0));
    for (const auto& c : cells) {
        const cv::Point2d centre = view.cell_centre(c.col, c.row) + c.offset_px;
        const cv::Rect r = cv::Rect(static_cast<int>(centre.x) - p / 2, static_cast<int>(centre.y) - p / 2, p, p) & top_bounds;
        if (r.area() <= 0) continue;
        squares.push_back(r);
        mask(r).setTo(1.0f);
    }
    // The light changes slowly: its map is made on a shrunk copy (about 16 px per tile) and
    // only the correction is applied at full resolution.
    const double shrink = std::min(1.0, 16.0 / view.pitch_px);
    cv::Mat grey, weighted;
    cv::cvtColor(view.top, grey, cv::COLOR_BGR2GRAY);
    grey.convertTo(grey, CV_32F);
    cv::multiply(grey, mask, weighted);
    cv::Mat ws, ms;
    cv::resize(weighted, ws, cv::Size(), shrink, shrink, cv::INTER_AREA);
    cv::resize(mask, ms, cv::Size(), shrink, shrink, cv::INTER_AREA);
    if (squares.empty()) return;
    const double sigma = o.window_tiles * view.pitch_px / 2;
    cv::GaussianBlur(ws, ws, cv::Size(), sigma * shrink);
    cv::GaussianBlur(ms, ms, cv::Size(), sigma * shrink);
    const cv::Mat local = ws / cv::max(ms, 1e-3);
    // The board's median brightness, from every other full-resolution tile pixel.
    std::vector<float> values;
    for (const auto& r : squares) {
        for (int y = r.y; y < r.br().y; y += 2) {
            const auto* px = view.top.ptr<cv::Vec3b>(y);
            for (int x = r.x; x < r.br().x; x += 2) values.push_back(0.114f * px[x][0] + 0.587f * px[x][1] + 0.299f * px[x][2]);
        }
    }
    std::nth_element(values.begin(), values.begin() + static_cast<std::ptrdiff_t>(values.size() / 2), values.end());
    const double median = std::max(1.0f, values[values.size() / 2]);
    // v' = gain * v + lift, a function of the local brightness m (tabulated every quarter
    // level): glare removed where the board is brighter than its median, colours lifted where
    // it is darker.
    constexpr int kSteps = 4;
    std::vector<float> gain_of(256 * kSteps + 1, 1.0f), lift_of(gain_of.size(), 0.0f);
    for (std::size_t i = 1; i < gain_of.size(); ++i) {
        const double m = static_cast<double>(i) / kSteps;
        if (m > median) {
            const double g = std::min(o.max_glare, (m - median) / std::max(1.0, 255.0 - median));
            gain_of[i] = static_cast<float>(1 / (1 - g));
            lift_of[i] = static_cast<float>(-g * 255.0 / (1 - g));
        } else {
            gain_of[i] = static_cast<float>(std::min(o.max_gain, median / std::max(1.0, m)));
        }
    }
    cv::Mat local_full;
    cv::resize(local, local_full, view.top.size(), 0, 0, cv::INTER_LINEAR);
    // Per pixel, so the rows are split over the cores.
    cv::parallel_for_(cv::Range(0, view.top.rows), [&](const cv::Range& rows) {
        for (int y = rows.start; y < rows.end; ++y) {
            auto* px = view.top.ptr<std::uint8_t>(y);
            const auto* l = local_full.ptr<float>(y);
            for (int x = 0; x < view.top.cols; ++x) {
                if (l[x] <= 0) continue;
                const auto i = static_cast<std::size_t>(std::min(256.0f * kSteps, l[x] * kSteps + 0.5f));
                const float g = gain_of[i], b = lift_of[i];
                for (int ch = 0; ch < 3; ++ch) {
                    const float v = static_cast<float>(px[3 * x + ch]) * g + b + 0.5f;
                    px[3 * x + ch] = static_cast<std::uint8_t>(std::clamp(v, 0.0f, 255.0f));
                }
            }
        }
    });
}

}  // namespace meeplecam::vision
