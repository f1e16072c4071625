// The tracker's changed-pixel mask against OpenCV's whole-image expression it replaced: the
// same bits on random views and on distances that fall exactly on the threshold.
#include <catch2/catch.hpp>

#include <cmath>
#include <vector>

#include <opencv2/core.hpp>

#include "session/lab_change.h"

using namespace meeplecam::session;

namespace {

// The expression the tracker used before (per-pixel Lab distance, then compared).
cv::Mat changed_by_whole_image_operations(const cv::Mat& a, const cv::Mat& b, double threshold) {
    cv::Mat d = a - b, sq, dist;
    cv::multiply(d, d, sq);
    std::vector<cv::Mat> ch;
    cv::split(sq, ch);
    cv::sqrt(ch[0] + ch[1] + ch[2], dist);
    return dist > threshold;
}

bool same_bits(const cv::Mat& x, const cv::Mat& y) {
    return x.size() == y.size() && x.type() == y.type() && cv::countNonZero(x != y) == 0;
}

}  // namespace

TEST_CASE("the changed-pixel mask equals the whole-image Lab distance compared", "[session][lab]") {
    cv::RNG rng(39);
    for (const cv::Size size : {cv::Size(1, 1), cv::Size(37, 5), cv::Size(640, 360)}) {
        cv::Mat bgr_a(size, CV_8UC3), bgr_b(size, CV_8UC3);
        rng.fill(bgr_a, cv::RNG::UNIFORM, 0, 256);
        bgr_b = bgr_a.clone();
        cv::Mat noise(size, CV_8UC3);
        rng.fill(noise, cv::RNG::UNIFORM, 0, 40);
        bgr_b += noise;  // small changes everywhere, some over the threshold
        const cv::Mat a = to_lab(bgr_a), b = to_lab(bgr_b);
        for (const double threshold : {20.0, 10.0, 12.3, 0.5}) {
            INFO(size << " threshold " << threshold);
            const cv::Mat mask = changed_beyond(a, b, threshold);
            CHECK(same_bits(mask, changed_by_whole_image_operations(a, b, threshold)));
            const int changed = cv::countNonZero(mask);
            if (size.area() > 1000) CHECK((changed > 0 && changed < size.area()));  // the case has both kinds
        }
    }
}

TEST_CASE("a distance on the threshold is compared as a float, as OpenCV compares", "[session][lab]") {
    // 12.3 is no float: the float nearest it, at distance exactly that float, is not over it.
    const float on = 12.3f;
    const std::vector<float> distances = {on, std::nextafter(on, 0.0f), std::nextafter(on, 100.0f), 20.0f, 0.0f};
    cv::Mat a(1, static_cast<int>(distances.size()), CV_32FC3, cv::Scalar(50, 0, 0)), b = a.clone();
    for (std::size_t i = 0; i < distances.size(); ++i) b.at<cv::Vec3f>(0, static_cast<int>(i))[1] = distances[i];
    for (const double threshold : {12.3, static_cast<double>(on), 20.0}) {
        INFO("threshold " << threshold);
        const cv::Mat mask = changed_beyond(a, b, threshold);
        CHECK(same_bits(mask, changed_by_whole_image_operations(a, b, threshold)));
    }
    CHECK(changed_beyond(a, b, 12.3).at<unsigned char>(0, 0) == 0);
    CHECK(changed_beyond(a, b, 12.3).at<unsigned char>(0, 2) == 255);
}
