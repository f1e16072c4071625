#include "session/lab_change.h"

#include <cmath>

#include <opencv2/imgproc.hpp>

namespace meeplecam::session {

cv::Mat to_lab(const cv::Mat& bgr) {
    cv::Mat f, lab;
    bgr.convertTo(f, CV_32FC3, 1.0 / 255.0);
    cv::cvtColor(f, lab, cv::COLOR_BGR2Lab);
    return lab;
}

cv::Mat changed_beyond(const cv::Mat& lab_a, const cv::Mat& lab_b, double threshold) {
    CV_Assert(lab_a.type() == CV_32FC3 && lab_b.type() == CV_32FC3 && lab_a.size() == lab_b.size());
    // cv::compare turns a scalar into the image's depth before comparing.
    const float limit = static_cast<float>(threshold);
    cv::Mat out(lab_a.size(), CV_8UC1);
    for (int y = 0; y < lab_a.rows; ++y) {
        const float* a = lab_a.ptr<float>(y);
        const float* b = lab_b.ptr<float>(y);
        auto* o = out.ptr<unsigned char>(y);
        for (int x = 0; x < lab_a.cols; ++x, a += 3, b += 3) {
            // One rounding per operation, as the whole-image operations round (this file is
            // compiled with -ffp-contract=off: no fused multiply-add even where the target has one).
            const float d0 = a[0] - b[0], d1 = a[1] - b[1], d2 = a[2] - b[2];
            const float sum = (d0 * d0 + d1 * d1) + d2 * d2;
            o[x] = std::sqrt(sum) > limit ? 255 : 0;
        }
    }
    return out;
}

}  // namespace meeplecam::session
