#include "synthetic_views.h"

#include <cmath>

#include <opencv2/calib3d.hpp>
#include <opencv2/imgproc.hpp>

namespace meeplecam::testing {

Pose look_at(cv::Vec3d eye, cv::Vec3d target, double roll_deg) {
    const cv::Vec3d z = cv::normalize(target - eye);
    const cv::Vec3d south(0, 1, 0);
    cv::Vec3d y = south - south.dot(z) * z;
    if (cv::norm(y) < 1e-6) y = cv::Vec3d(0, 0, 1).cross(z);
    y = cv::normalize(y);
    const cv::Vec3d x = y.cross(z);
    const double a = roll_deg * CV_PI / 180;
    const cv::Vec3d xr = std::cos(a) * x + std::sin(a) * y, yr = -std::sin(a) * x + std::cos(a) * y;
    Pose pose;
    pose.R = cv::Matx33d(xr[0], xr[1], xr[2], yr[0], yr[1], yr[2], z[0], z[1], z[2]);
    pose.t = -(pose.R * eye);
    return pose;
}

cv::Matx33d plane_to_image(const PinholeCamera& camera, const Pose& pose) {
    const cv::Matx33d rt(pose.R(0, 0), pose.R(0, 1), pose.t[0], pose.R(1, 0), pose.R(1, 1), pose.t[1], pose.R(2, 0), pose.R(2, 1), pose.t[2]);
    return camera.K * rt;
}

cv::Mat render_plane(const PlaneTexture& texture, const PinholeCamera& camera, const Pose& pose, double blur_sigma, double noise_sigma,
                     std::uint64_t seed, cv::Scalar background) {
    // Pixel -> ideal normalised coordinates (undoing the lens) -> plane mm -> texture px.
    std::vector<cv::Point2d> px;
    px.reserve(camera.size.area());
    for (int y = 0; y < camera.size.height; ++y) {
        for (int x = 0; x < camera.size.width; ++x) px.emplace_back(x, y);
    }
    std::vector<cv::Point2d> normalised;
    if (camera.distortion.empty()) {
        const cv::Matx33d Ki = camera.K.inv();
        for (const auto& p : px) {
            const cv::Vec3d v = Ki * cv::Vec3d(p.x, p.y, 1);
            normalised.emplace_back(v[0] / v[2], v[1] / v[2]);
        }
    } else {
        cv::undistortPoints(px, normalised, cv::Mat(camera.K), camera.distortion, cv::noArray(), cv::noArray(),
                            cv::TermCriteria(cv::TermCriteria::COUNT + cv::TermCriteria::EPS, 30, 1e-10));
    }
    const cv::Matx33d Hn = cv::Matx33d(pose.R(0, 0), pose.R(0, 1), pose.t[0], pose.R(1, 0), pose.R(1, 1), pose.t[1], pose.R(2, 0),
                                       pose.R(2, 1), pose.t[2]).inv();
    cv::Mat map_x(camera.size, CV_32FC1), map_y(camera.size, CV_32FC1);
    for (int y = 0; y < camera.size.height; ++y) {
        for (int x = 0; x < camera.size.width; ++x) {
            const cv::Point2d n = normalised[static_cast<std::size_t>(y) * camera.size.width + x];
            const cv::Vec3d w = Hn * cv::Vec3d(n.x, n.y, 1);
            const bool in_front = w[2] > 0;  // the plane point lies in front of the camera
            const double mx = (w[0] / w[2] - texture.origin_mm.x) * texture.px_per_mm;
            const double my = (w[1] / w[2] - texture.origin_mm.y) * texture.px_per_mm;
            map_x.at<float>(y, x) = in_front ? static_cast<float>(mx) : -1e6f;
            map_y.at<float>(y, x) = in_front ? static_cast<float>(my) : -1e6f;
        }
    }
    cv::Mat out;
    cv::remap(texture.image, out, map_x, map_y, cv::INTER_LINEAR, cv::BORDER_CONSTANT, background);
    if (blur_sigma > 0) cv::GaussianBlur(out, out, cv::Size(), blur_sigma);
    cv::Mat noise(out.size(), CV_32FC3);
    cv::RNG rng(seed);
    rng.fill(noise, cv::RNG::NORMAL, 0, noise_sigma);
    cv::Mat f;
    out.convertTo(f, CV_32FC3);
    f += noise;
    f.convertTo(out, CV_8UC3);
    return out;
}

PlaneTexture table_texture(double x0_mm, double y0_mm, double width_mm, double height_mm, double px_per_mm, std::uint64_t seed) {
    PlaneTexture t;
    t.px_per_mm = px_per_mm;
    t.origin_mm = {x0_mm, y0_mm};
    const cv::Size size(static_cast<int>(width_mm * px_per_mm), static_cast<int>(height_mm * px_per_mm));
    // Wood: a brown base with long grain streaks along x.
    cv::Mat grain(cv::Size(size.width / 16 + 1, size.height), CV_32FC1);
    cv::RNG rng(seed);
    rng.fill(grain, cv::RNG::NORMAL, 0, 1);
    cv::resize(grain, grain, size, 0, 0, cv::INTER_LINEAR);
    cv::GaussianBlur(grain, grain, cv::Size(), 2.0 * px_per_mm, 0.4 * px_per_mm);
    cv::normalize(grain, grain, -1, 1, cv::NORM_MINMAX);
    t.image = cv::Mat(size, CV_8UC3);
    for (int y = 0; y < size.height; ++y) {
        for (int x = 0; x < size.width; ++x) {
            const float g = grain.at<float>(y, x);
            t.image.at<cv::Vec3b>(y, x) = cv::Vec3b(cv::saturate_cast<std::uint8_t>(60 + 18 * g), cv::saturate_cast<std::uint8_t>(100 + 22 * g),
                                                    cv::saturate_cast<std::uint8_t>(150 + 25 * g));
        }
    }
    return t;
}

void paste_on_plane(PlaneTexture& texture, const cv::Mat& marker_grey, cv::Point2d centre_mm, double side_mm, double turn_deg) {
    const double scale = side_mm * texture.px_per_mm / marker_grey.cols;
    const cv::Point2d centre_px = (centre_mm - texture.origin_mm) * texture.px_per_mm;
    // marker px -> texture px: turn about the marker centre, scale, move to the centre.
    cv::Mat a = cv::getRotationMatrix2D(cv::Point2f(static_cast<float>(marker_grey.cols / 2.0), static_cast<float>(marker_grey.rows / 2.0)),
                                        -turn_deg, scale);
    a.at<double>(0, 2) += centre_px.x - marker_grey.cols / 2.0;
    a.at<double>(1, 2) += centre_px.y - marker_grey.rows / 2.0;
    cv::Mat bgr, warped, mask, warped_mask;
    cv::cvtColor(marker_grey, bgr, cv::COLOR_GRAY2BGR);
    cv::warpAffine(bgr, warped, a, texture.image.size(), cv::INTER_LINEAR);
    cv::warpAffine(cv::Mat(marker_grey.size(), CV_8UC1, cv::Scalar(255)), warped_mask, a, texture.image.size(), cv::INTER_NEAREST);
    warped.copyTo(texture.image, warped_mask);
}

}  // namespace meeplecam::testing
