#include "session/follower_on_tile.h"

#include <algorithm>
#include <cmath>
#include <vector>

#include <opencv2/imgproc.hpp>
#include <opencv2/photo.hpp>

namespace meeplecam::session {

Status FollowerOnTileOptions::check() const {
    auto bad = [](const std::string& what) { return invalid("follower-on-tile options", what); };
    if (!(min_share > 0 && min_share < max_share && max_share <= 1)) return bad("need 0 < min_share < max_share <= 1");
    if (!(max_colour_share > 0 && max_colour_share <= 1)) return bad("max_colour_share must be within (0, 1]");
    if (!(min_solidity >= 0 && min_solidity <= 1)) return bad("min_solidity must be within [0, 1]");
    if (!(open_share >= 0 && open_share <= 0.2)) return bad("open_share must be within [0, 0.2]");
    if (!(clear_share >= 0 && clear_share <= 0.2)) return bad("clear_share must be within [0, 0.2]");
    if (!(art_max_share >= 0 && art_max_share <= 1)) return bad("art_max_share must be within [0, 1]");
    if (!(min_tile_px >= 0 && min_tile_px <= 1000)) return bad("min_tile_px must be within [0, 1000]");
    if (!(art_margin >= 1 && art_margin <= 10)) return bad("art_margin must be within [1, 10]");
    if (!(raw_view_weight >= 0 && raw_view_weight <= 1)) return bad("raw_view_weight must be within [0, 1]");
    return Ok{};
}

std::optional<FollowerBlob> find_follower_by_colour(const cv::Mat& lab_square, const vision::ColourModel& colour,
                                                    const FollowerOnTileOptions& o, const cv::Mat& also) {
    if (lab_square.empty() || lab_square.type() != CV_32FC3) return std::nullopt;
    cv::Mat gate(lab_square.size(), CV_8UC1, cv::Scalar(0));
    int gated = 0;
    for (int y = 0; y < lab_square.rows; ++y) {
        const auto* px = lab_square.ptr<cv::Vec3f>(y);
        auto* g = gate.ptr<std::uint8_t>(y);
        for (int x = 0; x < lab_square.cols; ++x) {
            if (vision::colour_matches(colour, px[x])) {
                g[x] = 255;
                ++gated;
            }
        }
    }
    const double total = static_cast<double>(lab_square.total());
    if (gated > o.max_colour_share * total) return std::nullopt;  // the art is this colour: no telling a follower
    if (!also.empty()) gate &= also;
    const int side = std::min(lab_square.cols, lab_square.rows);
    const int open_px = static_cast<int>(std::lround(2 * o.open_share * side)) | 1;
    if (open_px > 1) {
        cv::morphologyEx(gate, gate, cv::MORPH_OPEN, cv::getStructuringElement(cv::MORPH_ELLIPSE, cv::Size(open_px, open_px)));
    }
    cv::Mat labels, stats, centroids;
    const int n = cv::connectedComponentsWithStats(gate, labels, stats, centroids, 8, CV_32S);
    std::optional<FollowerBlob> best;
    for (int i = 1; i < n; ++i) {
        const int area = stats.at<int>(i, cv::CC_STAT_AREA);
        const double share = area / total;
        if (share < o.min_share || share > o.max_share) continue;
        if (best && area <= best->area) continue;
        const cv::Mat mask = labels == i;
        std::vector<std::vector<cv::Point>> contours;
        cv::findContours(mask.clone(), contours, cv::RETR_EXTERNAL, cv::CHAIN_APPROX_SIMPLE);
        std::vector<cv::Point> all;
        for (const auto& c : contours) all.insert(all.end(), c.begin(), c.end());
        std::vector<cv::Point> hull;
        if (!all.empty()) cv::convexHull(all, hull);
        const double hull_area = hull.size() >= 3 ? cv::contourArea(hull) : 0.0;
        const double solidity = hull_area > 0 ? std::min(1.0, area / hull_area) : 0.0;
        if (solidity < o.min_solidity) continue;
        best = FollowerBlob{mask, {centroids.at<double>(i, 0), centroids.at<double>(i, 1)}, area, share, solidity};
    }
    return best;
}

cv::Mat cleared_area(const cv::Mat& mask, const FollowerOnTileOptions& o) {
    cv::Mat grown = mask.clone();
    const int grow_px = static_cast<int>(std::lround(2 * o.clear_share * std::min(mask.cols, mask.rows))) | 1;
    if (grow_px > 1 && !grown.empty()) cv::dilate(grown, grown, cv::getStructuringElement(cv::MORPH_ELLIPSE, cv::Size(grow_px, grow_px)));
    return grown;
}

cv::Mat clear_follower(const cv::Mat& bgr_square, const cv::Mat& mask, const FollowerOnTileOptions& o) {
    if (bgr_square.empty() || mask.empty() || mask.size() != bgr_square.size()) return bgr_square.clone();
    cv::Mat out;
    cv::inpaint(bgr_square, cleared_area(mask, o), out, 3.0, cv::INPAINT_TELEA);
    return out;
}

}  // namespace meeplecam::session
