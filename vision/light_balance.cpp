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
    // The light changes slowly: its map is made on a shrunk copy (about 16 px per tile) and
    // only the correction is applied at full resolution.
    const double shrink = std::min(1.0, 16.0 / view.pitch_px);
    cv::Mat small_top;
    cv::resize(view.top, small_top, cv::Size(), shrink, shrink, cv::INTER_AREA);
    cv::Mat grey, mask(small_top.size(), CV_32F, cv::Scalar(0));
    cv::cvtColor(small_top, grey, cv::COLOR_BGR2GRAY);
    grey.convertTo(grey, CV_32F);
    // Tile pixels of the board (full-resolution squares, and the same squares shrunk).
    const int p = static_cast<int>(std::lround(view.pitch_px));
    const cv::Rect top_bounds(0, 0, view.top.cols, view.top.rows);
    std::vector<cv::Rect> squares;
    for (const auto& c : cells) {
        const cv::Point2d centre = view.cell_centre(c.col, c.row) + c.offset_px;
        const cv::Rect r = cv::Rect(static_cast<int>(centre.x) - p / 2, static_cast<int>(centre.y) - p / 2, p, p) & top_bounds;
        if (r.area() <= 0) continue;
        squares.push_back(r);
        const cv::Rect rs = cv::Rect(cv::Point(static_cast<int>(std::lround(r.x * shrink)), static_cast<int>(std::lround(r.y * shrink))),
                                     cv::Point(static_cast<int>(std::lround(r.br().x * shrink)), static_cast<int>(std::lround(r.br().y * shrink)))) &
                             cv::Rect(0, 0, mask.cols, mask.rows);
        mask(rs).setTo(1.0f);
    }
    if (squares.empty()) return;
    cv::Mat ws, ms;
    cv::multiply(grey, mask, ws);
    const double sigma = o.window_tiles * view.pitch_px / 2;
    cv::GaussianBlur(ws, ws, cv::Size(), sigma * shrink);
    cv::GaussianBlur(mask, ms, cv::Size(), sigma * shrink);
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
    // Per (shrunk) pixel, v' = gain * v + lift: glare removed where the board is brighter
    // than its median, colours lifted where it is darker.
    cv::Mat gain(local.size(), CV_32F, cv::Scalar(1)), lift(local.size(), CV_32F, cv::Scalar(0));
    for (int y = 0; y < local.rows; ++y) {
        const auto* l = local.ptr<float>(y);
        auto* g_row = gain.ptr<float>(y);
        auto* b_row = lift.ptr<float>(y);
        for (int x = 0; x < local.cols; ++x) {
            const double m = l[x];
            if (m <= 0) continue;
            if (m > median) {
                const double g = std::min(o.max_glare, (m - median) / std::max(1.0, 255.0 - median));
                g_row[x] = static_cast<float>(1 / (1 - g));
                b_row[x] = static_cast<float>(-g * 255.0 / (1 - g));
            } else {
                g_row[x] = static_cast<float>(std::min(o.max_gain, median / std::max(1.0, m)));
            }
        }
    }
    cv::resize(gain, gain, view.top.size(), 0, 0, cv::INTER_LINEAR);
    cv::resize(lift, lift, view.top.size(), 0, 0, cv::INTER_LINEAR);
    for (int y = 0; y < view.top.rows; ++y) {
        auto* px = view.top.ptr<std::uint8_t>(y);
        const auto* g_row = gain.ptr<float>(y);
        const auto* b_row = lift.ptr<float>(y);
        for (int x = 0; x < view.top.cols; ++x) {
            const float g = g_row[x], b = b_row[x];
            for (int ch = 0; ch < 3; ++ch) {
                const float v = static_cast<float>(px[3 * x + ch]) * g + b + 0.5f;
                px[3 * x + ch] = static_cast<std::uint8_t>(std::clamp(v, 0.0f, 255.0f));
            }
        }
    }
}

}  // namespace meeplecam::vision
