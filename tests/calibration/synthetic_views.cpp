#include "synthetic_views.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <string>

#include <opencv2/calib3d.hpp>
#include <opencv2/imgproc.hpp>

#include "calibration/printed_targets.h"

namespace meeplecam::testing {
namespace {

// True follower colours (BGR, as painted wood photographed under neutral light).
const std::map<std::string, cv::Vec3d> kPaint = {
    {"red", {35, 40, 195}},    {"blue", {165, 85, 30}},    {"green", {55, 140, 25}},
    {"yellow", {25, 200, 235}}, {"black", {32, 32, 34}}, {"grey", {140, 138, 136}},
};

// Draws a shaded follower silhouette (head, arms, legs) of `colour` centred at `at`, `size` px tall,
// with a soft shadow cast to the lower right.
void draw_follower(cv::Mat& image, cv::Point2d at, double size, const cv::Vec3d& colour) {
    const double s = size / 16;  // the silhouette's unit
    std::vector<cv::Point> body;
    const double pts[][2] = {{-2.2, -5}, {2.2, -5}, {2.5, -3}, {7.5, -1.5}, {7.5, 1.0}, {3.0, 1.0}, {5.5, 8},  {1.5, 8},
                             {0, 4},     {-1.5, 8}, {-5.5, 8}, {-3.0, 1.0}, {-7.5, 1.0}, {-7.5, -1.5}, {-2.5, -3}};
    for (const auto& p : pts) body.emplace_back(static_cast<int>(at.x + p[0] * s), static_cast<int>(at.y + p[1] * s));
    // Shadow: the silhouette offset, darkened, blurred.
    cv::Mat shadow(image.size(), CV_8UC1, cv::Scalar(0));
    std::vector<cv::Point> shifted = body;
    for (auto& p : shifted) p += cv::Point(static_cast<int>(2.5 * s), static_cast<int>(2 * s));
    cv::fillPoly(shadow, std::vector<std::vector<cv::Point>>{shifted}, cv::Scalar(255));
    cv::circle(shadow, cv::Point(static_cast<int>(at.x + 2.5 * s), static_cast<int>(at.y - 6.5 * s + 2 * s)), static_cast<int>(2.6 * s), cv::Scalar(255),
               cv::FILLED);
    cv::GaussianBlur(shadow, shadow, cv::Size(), 2 * s);
    for (int y = 0; y < image.rows; ++y) {
        for (int x = 0; x < image.cols; ++x) {
            const double a = 0.35 * shadow.at<std::uint8_t>(y, x) / 255.0;
            if (a > 0) image.at<cv::Vec3b>(y, x) = image.at<cv::Vec3b>(y, x) * (1 - a);
        }
    }
    // Body with a shading gradient (light from the upper left) and a highlight on the head.
    cv::Mat mask(image.size(), CV_8UC1, cv::Scalar(0));
    cv::fillPoly(mask, std::vector<std::vector<cv::Point>>{body}, cv::Scalar(255), cv::LINE_AA);
    cv::circle(mask, cv::Point(static_cast<int>(at.x), static_cast<int>(at.y - 6.5 * s)), static_cast<int>(2.6 * s), cv::Scalar(255), cv::FILLED,
               cv::LINE_AA);
    for (int y = 0; y < image.rows; ++y) {
        for (int x = 0; x < image.cols; ++x) {
            const double m = mask.at<std::uint8_t>(y, x) / 255.0;
            if (m <= 0) continue;
            const double shade = 1.08 - 0.25 * ((x - at.x) + (y - at.y)) / (10 * s);
            const cv::Vec3d c = colour * std::clamp(shade, 0.7, 1.2);
            const cv::Vec3d old = image.at<cv::Vec3b>(y, x);
            const cv::Vec3d mixed = m * c + (1 - m) * old;
            image.at<cv::Vec3b>(y, x) = cv::Vec3b(cv::saturate_cast<std::uint8_t>(mixed[0]), cv::saturate_cast<std::uint8_t>(mixed[1]),
                                                  cv::saturate_cast<std::uint8_t>(mixed[2]));
        }
    }
}

}  // namespace


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

// A wooden table, a sheet of paper turned a little, the followers on it; then the light's
// colour cast (gains per B, G, R), blur and noise.
cv::Mat paper_shot(const std::vector<std::string>& colours, cv::Vec3d cast_bgr, std::uint64_t seed) {
    cv::Mat image(900, 1200, CV_8UC3);
    cv::RNG rng(seed);
    cv::Mat grain(900, 80, CV_32FC1);
    rng.fill(grain, cv::RNG::NORMAL, 0, 1);
    cv::resize(grain, grain, image.size());
    cv::GaussianBlur(grain, grain, cv::Size(), 6, 1);
    for (int y = 0; y < image.rows; ++y) {
        for (int x = 0; x < image.cols; ++x) {
            const float g = grain.at<float>(y, x);
            image.at<cv::Vec3b>(y, x) = cv::Vec3b(cv::saturate_cast<std::uint8_t>(55 + 25 * g), cv::saturate_cast<std::uint8_t>(95 + 30 * g),
                                                  cv::saturate_cast<std::uint8_t>(140 + 30 * g));
        }
    }
    const cv::RotatedRect paper(cv::Point2f(600, 450), cv::Size2f(700, 495), 8);
    cv::Point2f corners[4];
    paper.points(corners);
    std::vector<cv::Point> poly(corners, corners + 4);
    cv::fillConvexPoly(image, poly, cv::Scalar(238, 240, 242), cv::LINE_AA);
    for (std::size_t i = 0; i < colours.size(); ++i) {
        const double col = static_cast<double>(i % 3), row = static_cast<double>(i / 3);
        draw_follower(image, {390 + 200 * col + rng.uniform(-15.0, 15.0), 360 + 190 * row + rng.uniform(-15.0, 15.0)}, 110, kPaint.at(colours[i]));
    }
    cv::Mat f;
    image.convertTo(f, CV_32FC3);
    cv::multiply(f, cv::Scalar(cast_bgr[0], cast_bgr[1], cast_bgr[2]), f);
    cv::GaussianBlur(f, f, cv::Size(), 0.8);
    cv::Mat noise(f.size(), CV_32FC3);
    rng.fill(noise, cv::RNG::NORMAL, 0, 2.5);
    f += noise;
    f.convertTo(image, CV_8UC3);
    return image;
}

// Views of the printed ChArUco board from varied camera positions (tilts 15-45 degrees).
std::vector<cv::Mat> charuco_views(const PinholeCamera& camera, const calibration::CharucoSpec& spec, int n, std::uint64_t seed) {
    PlaneTexture board;
    board.px_per_mm = 5;
    const int square_px = static_cast<int>(spec.square_mm * board.px_per_mm);
    const cv::Mat grey = calibration::charuco_board_image(spec, square_px);
    // A white margin of one square around the board, as on the printed sheet.
    cv::Mat padded;
    cv::copyMakeBorder(grey, padded, square_px, square_px, square_px, square_px, cv::BORDER_CONSTANT, cv::Scalar(255));
    cv::cvtColor(padded, board.image, cv::COLOR_GRAY2BGR);
    board.origin_mm = {-spec.square_mm, -spec.square_mm};
    const cv::Vec3d centre(spec.squares_x * spec.square_mm / 2, spec.squares_y * spec.square_mm / 2, 0);
    cv::RNG rng(seed);
    std::vector<cv::Mat> views;
    for (int i = 0; i < n; ++i) {
        const double tilt = (15 + 30.0 * i / std::max(1, n - 1)) * CV_PI / 180;
        const double azimuth = (i * 137.5 + rng.uniform(-20.0, 20.0)) * CV_PI / 180;
        const double distance = rng.uniform(380.0, 520.0);
        const cv::Vec3d eye = centre + cv::Vec3d(distance * std::sin(tilt) * std::cos(azimuth), distance * std::sin(tilt) * std::sin(azimuth),
                                                 -distance * std::cos(tilt));
        // Aim off the board centre a little so the board sits in different parts of the frame.
        const cv::Vec3d aim = centre + cv::Vec3d(rng.uniform(-50.0, 50.0), rng.uniform(-35.0, 35.0), 0);
        const Pose pose = look_at(eye, aim, rng.uniform(-180.0, 180.0));
        views.push_back(render_plane(board, camera, pose, /*blur_sigma=*/0.7, /*noise_sigma=*/2.5, seed + static_cast<std::uint64_t>(i)));
    }
    return views;
}

TableScene table_scene(std::uint64_t seed) {
    TableScene scene;
    scene.centres_mm = {cv::Point2d(0, 0), cv::Point2d(700, 0), cv::Point2d(700, 500), cv::Point2d(0, 500)};
    scene.texture = table_texture(-150, -150, 1000, 800, 3, seed);
    const double turns[4] = {0, 12, -25, 90};
    for (int id = 0; id < 4; ++id) {
        const int px = static_cast<int>(scene.marker_mm * scene.texture.px_per_mm);
        const cv::Mat marker = calibration::table_marker_image(id, px);
        paste_on_plane(scene.texture, marker, scene.centres_mm[static_cast<std::size_t>(id)], scene.marker_mm * marker.cols / px,
                       turns[id]);
    }
    return scene;
}

Pose table_pose() {
    const cv::Vec3d centre(350, 250, 0);
    const double tilt = 35 * CV_PI / 180, distance = 1000;
    return look_at(centre + cv::Vec3d(0, distance * std::sin(tilt), -distance * std::cos(tilt)), centre, /*roll_deg=*/4);
}

}  // namespace meeplecam::testing
