#include "calibration/player_colours.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <functional>
#include <map>

#include <opencv2/imgproc.hpp>

namespace meeplecam::calibration {
namespace {

constexpr double kPaperTarget = 235;  // the white-balanced paper's level in each channel (8-bit)
constexpr int kMaxBlobs = 12;         // more blobs on the paper than this: a cluttered shot, refused
constexpr double kCoreQuantile = 0.4; // a blob's core: its pixels at least this quantile away from the paper

// Reference colours of wooden followers on a white-balanced photo (paper at L* about 94).
const std::map<std::string, cv::Vec3d>& references() {
    static const std::map<std::string, cv::Vec3d> refs = {
        {"red", {45, 62, 42}},    {"blue", {38, 12, -48}}, {"green", {50, -45, 28}},
        {"yellow", {82, 2, 78}}, {"black", {14, 0, 0}},   {"grey", {58, 0, -2}},
    };
    return refs;
}

std::string point_text(cv::Point2d p) {
    char buf[48];
    std::snprintf(buf, sizeof(buf), "(%d, %d)", static_cast<int>(std::lround(p.x)), static_cast<int>(std::lround(p.y)));
    return buf;
}

std::string joined(const std::vector<std::string>& names) {
    std::string out;
    for (const auto& n : names) out += (out.empty() ? "" : ", ") + n;
    return out;
}

struct Blob {
    cv::Point2d centre;
    std::vector<cv::Vec3f> core_lab;  // the pixels measured
    cv::Vec3d median_lab;
};

double delta_e(const cv::Vec3d& a, const cv::Vec3d& b) { return cv::norm(a - b); }

// The name of the reference colour nearest to `lab` among all player colours.
std::string nearest_reference(const cv::Vec3d& lab) {
    std::string best;
    double best_d = 1e18;
    for (const auto& [name, ref] : references()) {
        if (delta_e(lab, ref) < best_d) best_d = delta_e(lab, ref), best = name;
    }
    return best;
}

cv::Vec3d median_of(std::vector<cv::Vec3f> px) {
    cv::Vec3d m;
    for (int c = 0; c < 3; ++c) {
        auto mid = px.begin() + static_cast<std::ptrdiff_t>(px.size() / 2);
        std::nth_element(px.begin(), mid, px.end(), [c](const cv::Vec3f& a, const cv::Vec3f& b) { return a[c] < b[c]; });
        m[c] = (*mid)[c];
    }
    return m;
}

// Assigns blobs to colours one-to-one minimising the total distance; assignment[colour] is
// a blob index or -1 when there are fewer blobs than colours.
std::vector<int> best_assignment(const std::vector<std::vector<double>>& cost, std::size_t n_blobs) {
    const std::size_t m = cost.size();
    std::vector<int> current(m, -1), best(m, -1);
    std::vector<bool> used(n_blobs, false);
    double best_total = 1e18;
    const std::size_t assignable = std::min(m, n_blobs);
    std::function<void(std::size_t, std::size_t, double)> search = [&](std::size_t colour, std::size_t assigned, double total) {
        if (total >= best_total) return;
        if (colour == m) {
            if (assigned == assignable) best_total = total, best = current;
            return;
        }
        // Leave this colour without a blob only when blobs are short.
        if (m - colour > assignable - assigned) search(colour + 1, assigned, total);
        for (std::size_t b = 0; b < n_blobs; ++b) {
            if (used[b]) continue;
            used[b] = true;
            current[colour] = static_cast<int>(b);
            search(colour + 1, assigned + 1, total + cost[colour][b]);
            current[colour] = -1;
            used[b] = false;
        }
    };
    search(0, 0, 0);
    return best;
}

}  // namespace

Status ColourCalibrationOptions::check() const {
    auto bad = [](const char* what) { return Status(invalid("colour calibration options", what)); };
    if (!(min_paper_share > 0 && min_paper_share < 1)) return bad("min_paper_share must be within (0, 1)");
    if (!(min_paper_solidity > 0 && min_paper_solidity <= 1)) return bad("min_paper_solidity must be within (0, 1]");
    if (!(follower_delta_e > 0 && follower_delta_e < 100)) return bad("follower_delta_e must be within (0, 100)");
    if (!(min_blob_share > 0 && min_blob_share < 0.1)) return bad("min_blob_share must be within (0, 0.1)");
    if (!(paper_margin >= 0 && paper_margin < 0.2)) return bad("paper_margin must be within [0, 0.2)");
    if (!(core_erosion >= 0 && core_erosion < 0.8)) return bad("core_erosion must be within [0, 0.8)");
    if (!(max_match_delta_e > 0)) return bad("max_match_delta_e must be positive");
    if (!(covariance_floor > 0)) return bad("covariance_floor must be positive");
    return Ok{};
}

std::optional<cv::Vec3d> reference_lab(const std::string& colour) {
    const auto it = references().find(colour);
    if (it == references().end()) return std::nullopt;
    return it->second;
}

cv::Mat apply_white_balance(const cv::Mat& bgr, const cv::Vec3d& gains_rgb) {
    MEEPLECAM_CHECK(bgr.type() == CV_8UC3, "an 8-bit BGR image");
    cv::Mat out;
    cv::multiply(bgr, cv::Scalar(gains_rgb[2], gains_rgb[1], gains_rgb[0]), out);  // saturates at 255
    return out;
}

Result<ColourShot> calibrate_colours(const cv::Mat& image, const std::vector<std::string>& players, const std::string& where,
                                     const ColourCalibrationOptions& o) {
    if (auto st = o.check(); !st) return st.error();
    if (image.empty() || image.type() != CV_8UC3) return invalid(where, "expects a non-empty 8-bit colour image");
    if (players.empty()) return invalid("--players", "name at least one player colour");
    for (std::size_t i = 0; i < players.size(); ++i) {
        if (!reference_lab(players[i])) {
            return invalid("--players", "unknown colour '" + players[i] + "' (use red, blue, green, yellow, black or grey)");
        }
        if (std::find(players.begin(), players.begin() + static_cast<std::ptrdiff_t>(i), players[i]) != players.begin() + static_cast<std::ptrdiff_t>(i)) {
            return invalid("--players", "colour '" + players[i] + "' is listed twice");
        }
    }
    const double total_px = static_cast<double>(image.total());

    // 1. The paper: the largest bright, nearly convex region.
    cv::Mat grey, bright;
    cv::cvtColor(image, grey, cv::COLOR_BGR2GRAY);
    cv::threshold(grey, bright, 0, 255, cv::THRESH_BINARY | cv::THRESH_OTSU);
    const int k = std::max(3, static_cast<int>(std::sqrt(total_px) / 200)) | 1;
    cv::morphologyEx(bright, bright, cv::MORPH_OPEN, cv::getStructuringElement(cv::MORPH_ELLIPSE, cv::Size(k, k)));
    std::vector<std::vector<cv::Point>> contours;
    cv::findContours(bright.clone(), contours, cv::RETR_EXTERNAL, cv::CHAIN_APPROX_SIMPLE);
    const std::string no_paper = "no sheet of white paper found: lay the followers on a plain white sheet that fills at least " +
                                 std::to_string(static_cast<int>(std::lround(o.min_paper_share * 100))) + " % of the photo, on a darker table";
    if (contours.empty()) return invalid(where, no_paper);
    const auto largest = std::max_element(contours.begin(), contours.end(),
                                          [](const auto& a, const auto& b) { return cv::contourArea(a) < cv::contourArea(b); });
    const double paper_area = cv::contourArea(*largest);
    std::vector<cv::Point> hull;
    cv::convexHull(*largest, hull);
    const double hull_area = cv::contourArea(hull);
    if (paper_area < o.min_paper_share * total_px) return invalid(where, no_paper);
    if (paper_area < o.min_paper_solidity * hull_area) {
        return invalid(where, "no sheet of white paper found: the brightest region is not a sheet (it is ragged, " +
                                  std::to_string(static_cast<int>(std::lround(100 * paper_area / hull_area))) + " % of its hull)");
    }
    cv::Mat paper(image.size(), CV_8UC1, cv::Scalar(0));
    cv::fillConvexPoly(paper, hull, cv::Scalar(255));
    const int margin = std::max(1, static_cast<int>(o.paper_margin * std::sqrt(hull_area)));
    cv::erode(paper, paper, cv::getStructuringElement(cv::MORPH_ELLIPSE, cv::Size(2 * margin + 1, 2 * margin + 1)));

    // 2. White balance: the paper's median colour becomes neutral at kPaperTarget.
    cv::Mat paper_px = paper & bright;
    std::vector<cv::Vec3f> samples;
    for (int y = 0; y < image.rows; y += 2) {
        for (int x = 0; x < image.cols; x += 2) {
            if (paper_px.at<std::uint8_t>(y, x)) samples.push_back(image.at<cv::Vec3b>(y, x));
        }
    }
    if (samples.size() < 50) return invalid(where, no_paper);
    const cv::Vec3d paper_bgr = median_of(samples);
    cv::Vec3d gains_rgb;
    for (int c = 0; c < 3; ++c) gains_rgb[2 - c] = std::clamp(kPaperTarget / std::max(paper_bgr[c], 1.0), 0.01, 100.0);
    const cv::Mat balanced = apply_white_balance(image, gains_rgb);
    cv::Mat lab;
    balanced.convertTo(lab, CV_32FC3, 1.0 / 255);
    cv::cvtColor(lab, lab, cv::COLOR_BGR2Lab);
    std::vector<cv::Vec3f> paper_lab_px;
    for (int y = 0; y < image.rows; y += 2) {
        for (int x = 0; x < image.cols; x += 2) {
            if (paper_px.at<std::uint8_t>(y, x)) paper_lab_px.push_back(lab.at<cv::Vec3f>(y, x));
        }
    }
    const cv::Vec3d paper_lab = median_of(paper_lab_px);

    // 3. Followers: blobs on the paper far from its colour.
    cv::Mat far(image.size(), CV_8UC1, cv::Scalar(0)), distance(image.size(), CV_32FC1, cv::Scalar(0));
    for (int y = 0; y < image.rows; ++y) {
        for (int x = 0; x < image.cols; ++x) {
            if (!paper.at<std::uint8_t>(y, x)) continue;
            const float d = static_cast<float>(delta_e(lab.at<cv::Vec3f>(y, x), paper_lab));
            distance.at<float>(y, x) = d;
            if (d > o.follower_delta_e) far.at<std::uint8_t>(y, x) = 255;
        }
    }
    cv::morphologyEx(far, far, cv::MORPH_OPEN, cv::getStructuringElement(cv::MORPH_ELLIPSE, cv::Size(k, k)));
    cv::Mat labels, stats, centroids;
    const int n = cv::connectedComponentsWithStats(far, labels, stats, centroids, 8);
    std::vector<Blob> blobs;
    for (int i = 1; i < n; ++i) {
        const int area = stats.at<int>(i, cv::CC_STAT_AREA);
        if (area < o.min_blob_share * total_px) continue;
        if (static_cast<int>(blobs.size()) == kMaxBlobs) {
            return invalid(where, "more than " + std::to_string(kMaxBlobs) + " objects on the paper: put one follower of each colour on it, nothing else");
        }
        cv::Mat mask = labels == i, core;
        const int r = static_cast<int>(o.core_erosion * std::sqrt(area / 3.14159));
        if (r > 0) cv::erode(mask, core, cv::getStructuringElement(cv::MORPH_ELLIPSE, cv::Size(2 * r + 1, 2 * r + 1)));
        if (r == 0 || cv::countNonZero(core) < 20) core = mask;
        std::vector<float> d;
        std::vector<cv::Point> pts;
        cv::findNonZero(core, pts);
        for (const auto& p : pts) d.push_back(distance.at<float>(p));
        auto q = d.begin() + static_cast<std::ptrdiff_t>(kCoreQuantile * static_cast<double>(d.size()));
        std::nth_element(d.begin(), q, d.end());
        const float cut = *q;
        Blob blob;
        blob.centre = {centroids.at<double>(i, 0), centroids.at<double>(i, 1)};
        for (const auto& p : pts) {
            if (distance.at<float>(p) >= cut) blob.core_lab.push_back(lab.at<cv::Vec3f>(p));
        }
        blob.median_lab = median_of(blob.core_lab);
        blobs.push_back(std::move(blob));
    }
    if (blobs.empty()) return invalid(where, "no followers found on the paper: stand one follower of each colour (" + joined(players) + ") on it");

    // 4. One blob per listed colour.
    std::vector<std::vector<double>> cost(players.size(), std::vector<double>(blobs.size()));
    for (std::size_t c = 0; c < players.size(); ++c) {
        for (std::size_t b = 0; b < blobs.size(); ++b) cost[c][b] = delta_e(blobs[b].median_lab, *reference_lab(players[c]));
    }
    const std::vector<int> assignment = best_assignment(cost, blobs.size());
    std::vector<int> colour_of_blob(blobs.size(), -1);
    for (std::size_t c = 0; c < players.size(); ++c) {
        if (assignment[c] >= 0 && cost[c][static_cast<std::size_t>(assignment[c])] <= o.max_match_delta_e) {
            colour_of_blob[static_cast<std::size_t>(assignment[c])] = static_cast<int>(c);
        }
    }
    // Blobs left over: a second follower of a listed colour, or something else.
    for (std::size_t b = 0; b < blobs.size(); ++b) {
        if (colour_of_blob[b] >= 0) continue;
        const std::string looks = nearest_reference(blobs[b].median_lab);
        const auto listed = std::find(players.begin(), players.end(), looks);
        if (listed != players.end()) {
            const int other = assignment[static_cast<std::size_t>(listed - players.begin())];
            if (other >= 0 && colour_of_blob[static_cast<std::size_t>(other)] >= 0) {
                return invalid(where, "two blobs look " + looks + " (at " + point_text(blobs[static_cast<std::size_t>(other)].centre) + " and " +
                                          point_text(blobs[b].centre) + "): put exactly one follower of each colour on the paper");
            }
        }
    }
    std::vector<std::string> missing;
    for (std::size_t c = 0; c < players.size(); ++c) {
        const int b = assignment[c];
        if (b < 0 || colour_of_blob[static_cast<std::size_t>(b)] != static_cast<int>(c)) missing.push_back(players[c]);
    }
    if (!missing.empty()) {
        std::string msg = (missing.size() == 1 ? "no " + missing[0] + " follower" : "no followers of the colours " + joined(missing)) +
                          " found on the paper (found " + std::to_string(blobs.size()) + " blob" + (blobs.size() == 1 ? "" : "s") + ")";
        for (std::size_t b = 0; b < blobs.size(); ++b) {
            if (colour_of_blob[b] < 0) msg += "; the blob at " + point_text(blobs[b].centre) + " looks " + nearest_reference(blobs[b].median_lab);
        }
        return invalid(where, msg);
    }
    for (std::size_t b = 0; b < blobs.size(); ++b) {
        if (colour_of_blob[b] < 0) {
            return invalid(where, "the blob at " + point_text(blobs[b].centre) + " looks " + nearest_reference(blobs[b].median_lab) +
                                      ", which is not among the players (" + joined(players) + "): remove it or list its colour");
        }
    }

    ColourShot shot;
    shot.calibration.white_balance_rgb = gains_rgb;
    shot.paper_outline = hull;
    for (std::size_t c = 0; c < players.size(); ++c) {
        const Blob& blob = blobs[static_cast<std::size_t>(assignment[c])];
        cv::Mat samples_mat(static_cast<int>(blob.core_lab.size()), 3, CV_64F);
        for (std::size_t i = 0; i < blob.core_lab.size(); ++i) {
            for (int ch = 0; ch < 3; ++ch) samples_mat.at<double>(static_cast<int>(i), ch) = blob.core_lab[i][ch];
        }
        cv::Mat covar, mean;
        cv::calcCovarMatrix(samples_mat, covar, mean, cv::COVAR_NORMAL | cv::COVAR_ROWS | cv::COVAR_SCALE, CV_64F);
        ColourModel model;
        model.lab_mean = cv::Vec3d(mean.at<double>(0), mean.at<double>(1), mean.at<double>(2));
        model.lab_covariance = cv::Matx33d(covar) + o.covariance_floor * cv::Matx33d::eye();
        model.pixels = static_cast<int>(blob.core_lab.size());
        shot.calibration.players[players[c]] = model;
        shot.followers.push_back({players[c], blob.centre, model.pixels});
    }
    return shot;
}

Result<vision::ColourModels> colour_models_of(const ColourCalibration& calibration) {
    vision::ColourModels out;
    for (const auto& [name, model] : calibration.players) {
        auto m = vision::colour_model_from_lab(name, model.lab_mean, model.lab_covariance);
        if (!m) return m.error();
        out.colours.push_back(m.value());
    }
    if (auto st = out.colours.empty() ? Status(invalid("colour calibration", "holds no player colours")) : out.check(); !st) return st.error();
    return out;
}

cv::Mat FrameColours::balance(const cv::Mat& bgr) const {
    if (white_balance_rgb == cv::Vec3d(1, 1, 1) || bgr.empty()) return bgr;
    return apply_white_balance(bgr, white_balance_rgb);
}

Result<FrameColours> frame_colours_of(const Calibration& calibration) {
    FrameColours out;
    if (!calibration.colours) return out;
    auto models = colour_models_of(*calibration.colours);
    if (!models) return models.error();
    out.models = std::move(models).value();
    out.white_balance_rgb = calibration.colours->white_balance_rgb;
    out.calibrated = true;
    return out;
}

}  // namespace meeplecam::calibration
