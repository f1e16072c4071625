#include "session/table_colour.h"

#include <algorithm>
#include <vector>

#include <opencv2/imgproc.hpp>

namespace meeplecam::session {

TopView top_view_of(const cv::Mat& frame, const cv::Matx33d& image_to_table_mm, cv::Point2d origin_mm, cv::Size size,
                    double px_per_mm, int interpolation) {
    TopView v;
    const cv::Matx33d table_to_view(px_per_mm, 0, -origin_mm.x * px_per_mm, 0, px_per_mm, -origin_mm.y * px_per_mm, 0, 0, 1);
    v.image_to_view = table_to_view * image_to_table_mm;
    cv::warpPerspective(frame, v.image, cv::Mat(v.image_to_view), size, interpolation, cv::BORDER_CONSTANT);
    cv::warpPerspective(cv::Mat(frame.size(), CV_8UC1, cv::Scalar(255)), v.seen, cv::Mat(v.image_to_view), size, cv::INTER_NEAREST,
                        cv::BORDER_CONSTANT, cv::Scalar(0));
    return v;
}

cv::Mat unlike_reference(const cv::Mat& bgr, const cv::Mat& reference, const cv::Mat& valid, double delta_e) {
    cv::Mat f, lab;
    bgr.convertTo(f, CV_32F, 1.0 / 255);
    cv::cvtColor(f, lab, cv::COLOR_BGR2Lab);
    cv::Vec3f median(0, 0, 0);
    std::vector<cv::Mat> channels;
    cv::split(lab, channels);
    // Every 4th pixel of every 4th row is plenty for a median (at least 1 when the reference is tiny).
    const int step = cv::countNonZero(reference) > 4096 ? 4 : 1;
    for (int c = 0; c < 3; ++c) {
        std::vector<float> v;
        for (int y = 0; y < lab.rows; y += step) {
            const float* p = channels[static_cast<std::size_t>(c)].ptr<float>(y);
            const std::uint8_t* m = reference.ptr<std::uint8_t>(y);
            for (int x = 0; x < lab.cols; x += step) {
                if (m[x]) v.push_back(p[x]);
            }
        }
        if (v.empty()) return cv::Mat::zeros(bgr.size(), CV_8UC1);
        std::nth_element(v.begin(), v.begin() + static_cast<std::ptrdiff_t>(v.size() / 2), v.end());
        median[c] = v[v.size() / 2];
    }
    cv::Mat distance(lab.size(), CV_32F);
    lab.forEach<cv::Vec3f>([&](const cv::Vec3f& p, const int* pos) { distance.at<float>(pos[0], pos[1]) = static_cast<float>(cv::norm(p - median)); });
    return (distance > delta_e) & valid;
}

}  // namespace meeplecam::session
