#include "session/start_tile.h"

#include <algorithm>
#include <cmath>
#include <sstream>
#include <vector>

#include <opencv2/imgproc.hpp>

#include "calibration/calibration_file.h"
#include "calibration/table_plane.h"
#include "session/table_colour.h"
#include "vision/tile_classifier.h"

namespace meeplecam::session {
namespace {

Status in_range(double v, double lo, double hi, const char* name) {
    if (v >= lo && v <= hi && std::isfinite(v)) return Ok{};
    return invalid("start tile options", std::string(name) + " must be within [" + std::to_string(lo) + ", " + std::to_string(hi) +
                                             "], not " + std::to_string(v));
}

std::string mm_text(cv::Point2d p) {
    std::ostringstream s;
    s.precision(0);
    s << std::fixed << "(" << p.x << ", " << p.y << ") mm";
    return s.str();
}

}  // namespace

Status StartTileOptions::check() const {
    for (const Status& st : {in_range(tile_mm, 10, 200, "tile_mm"), in_range(px_per_mm, 0.5, 8, "px_per_mm"),
                             in_range(max_view_mm, 100, 10000, "max_view_mm"), in_range(table_delta_e, 1, 200, "table_delta_e"),
                             in_range(size_tolerance, 0.01, 0.5, "size_tolerance"), in_range(min_fill, 0.1, 1, "min_fill")}) {
        if (!st) return st;
    }
    return Ok{};
}

cv::Rect2d start_search_area(const calibration::Calibration& calibration, const cv::Matx33d& image_to_table_mm, cv::Size frame_size) {
    if (calibration.table && calibration.table->markers.size() == 4) {
        // Inside the marker rectangle (the markers' own squares stay out of it).
        double x0 = 1e18, y0 = 1e18, x1 = -1e18, y1 = -1e18;
        for (const auto& m : calibration.table->markers) {
            x0 = std::min(x0, m.centre_mm.x), y0 = std::min(y0, m.centre_mm.y);
            x1 = std::max(x1, m.centre_mm.x), y1 = std::max(y1, m.centre_mm.y);
        }
        return {x0, y0, x1 - x0, y1 - y0};
    }
    // What the camera sees of the table: the bounding box of the frame's corners on it.
    std::vector<cv::Point2d> corners{{0, 0}, {double(frame_size.width), 0}, {double(frame_size.width), double(frame_size.height)},
                                     {0, double(frame_size.height)}};
    std::vector<cv::Point2d> table;
    cv::perspectiveTransform(corners, table, cv::Mat(image_to_table_mm));
    return cv::boundingRect(std::vector<cv::Point2f>(table.begin(), table.end()));
}

Result<StartTileFix> locate_start_tile(const cv::Mat& frame, const cv::Matx33d& image_to_table_mm, cv::Rect2d search_mm,
                                       const TileType& start, int start_rot, const vision::TileClassifier& classifier,
                                       const StartTileOptions& o, const std::string& where) {
    if (auto st = o.check(); !st) return st.error();
    if (frame.empty() || frame.type() != CV_8UC3) return invalid(where, "expects a non-empty 8-bit BGR frame");
    if (search_mm.width <= 0 || search_mm.height <= 0) return invalid(where, "the table area to search is empty");
    // Crop the area to max_view_mm around its centre (a plane seen at a grazing angle is huge).
    const cv::Point2d mid(search_mm.x + search_mm.width / 2, search_mm.y + search_mm.height / 2);
    const double w = std::min(search_mm.width, o.max_view_mm), h = std::min(search_mm.height, o.max_view_mm);
    const cv::Point2d origin(mid.x - w / 2, mid.y - h / 2);
    const cv::Size view_size(static_cast<int>(std::lround(w * o.px_per_mm)), static_cast<int>(std::lround(h * o.px_per_mm)));
    const TopView view = top_view_of(frame, image_to_table_mm, origin, view_size, o.px_per_mm, cv::INTER_LINEAR);
    const cv::Mat& top = view.image;
    const cv::Mat& seen = view.seen;
    const cv::Matx33d& image_to_view = view.image_to_view;  // camera px -> view px
    if (cv::countNonZero(seen) < 0.25 * view_size.area()) return invalid(where, "the camera sees too little of the play area");

    // Not-table pixels: far from the table's median colour (the tile is a small part of the area).
    cv::Mat mask = unlike_reference(top, seen, seen, o.table_delta_e);
    const int open = std::max(3, static_cast<int>(std::lround(2 * o.px_per_mm)) | 1);
    cv::morphologyEx(mask, mask, cv::MORPH_OPEN, cv::getStructuringElement(cv::MORPH_ELLIPSE, {open, open}));
    const int close = std::max(3, static_cast<int>(std::lround(6 * o.px_per_mm)) | 1);
    cv::morphologyEx(mask, mask, cv::MORPH_CLOSE, cv::getStructuringElement(cv::MORPH_ELLIPSE, {close, close}));

    std::vector<std::vector<cv::Point>> contours;
    cv::findContours(mask, contours, cv::RETR_EXTERNAL, cv::CHAIN_APPROX_NONE);
    const double side_px = o.tile_mm * o.px_per_mm;
    std::vector<cv::RotatedRect> tiles;
    int blobs = 0;
    for (const auto& c : contours) {
        const double area = cv::contourArea(c);
        if (area < 0.25 * side_px * side_px) continue;  // specks
        const cv::RotatedRect r = cv::minAreaRect(c);
        if (o.ignore_mm.area() > 0 && o.ignore_mm.contains(origin + cv::Point2d(r.center.x, r.center.y) / o.px_per_mm)) continue;
        ++blobs;
        const double a = r.size.width, b = r.size.height;
        const bool sized = std::abs(a / side_px - 1) <= o.size_tolerance && std::abs(b / side_px - 1) <= o.size_tolerance;
        if (sized && area >= o.min_fill * a * b) tiles.push_back(r);
    }
    if (tiles.empty()) {
        return invalid(where, "no start tile found in the play area (" + std::to_string(blobs) +
                                  " objects on the table, none a lone tile): put the start tile alone on the table, away from the markers");
    }
    if (tiles.size() > 1) {
        std::string at;
        for (const auto& r : tiles) {
            at += (at.empty() ? "" : ", ") + mm_text(origin + cv::Point2d(r.center.x, r.center.y) / o.px_per_mm);
        }
        return invalid(where, std::to_string(tiles.size()) + " tile-sized objects on the table (at " + at +
                                  "): leave only the start tile on it when the match starts");
    }

    // The tile's square at its measured turn, normalised to (-45, 45] degrees.
    const cv::RotatedRect& r = tiles.front();
    double alpha = r.angle;
    while (alpha > 45) alpha -= 90;
    while (alpha <= -45) alpha += 90;
    const double a = alpha * CV_PI / 180, ca = std::cos(a), sa = std::sin(a);
    const cv::Point2d centre_view(r.center.x, r.center.y);
    const cv::Point2d centre_mm = origin + centre_view / o.px_per_mm;
    // Canonical square (u, v in 0..n) -> view: centre + R(alpha) * (u - n/2, v - n/2) * side/n.
    const int n = classifier.options().canonical_px;
    const double s = side_px / n;
    const cv::Matx33d canon_to_view(s * ca, -s * sa, centre_view.x - s * (ca - sa) * n / 2, s * sa, s * ca,
                                    centre_view.y - s * (sa + ca) * n / 2, 0, 0, 1);
    // Straight from the camera frame (the top view is coarse): canonical -> view -> camera px.
    const cv::Matx33d canon_to_image = image_to_view.inv() * canon_to_view;
    cv::Mat canonical;
    cv::warpPerspective(frame, canonical, cv::Mat(canon_to_image), {n, n}, cv::INTER_AREA | cv::WARP_INVERSE_MAP, cv::BORDER_REPLICATE);
    const auto hyps = classifier.score_canonical(canonical, start.id);
    if (hyps.empty()) return invalid(where, "the start tile " + start.id + " is not in the classifier's catalog");
    const int rot_seen = hyps.front().rot;

    // Board frame = the tile's square frame turned so the tile shows its recorded rotation:
    // content turned k quarter turns clockwise (y down: (x, y) -> (-y, x)) gains k in rot.
    const int k = ((start_rot - rot_seen) % 4 + 4) % 4;
    cv::Matx22d turn = cv::Matx22d::eye();
    for (int i = 0; i < k; ++i) turn = cv::Matx22d(0, -1, 1, 0) * turn;
    const cv::Matx22d rot = turn * cv::Matx22d(ca, sa, -sa, ca);  // R(-alpha) first
    const cv::Vec2d shift = -(rot * cv::Vec2d(centre_mm.x, centre_mm.y));
    const cv::Matx33d table_to_board(rot(0, 0), rot(0, 1), shift[0], rot(1, 0), rot(1, 1), shift[1], 0, 0, 1);

    StartTileFix fix;
    fix.image_to_board_mm = table_to_board * image_to_table_mm;
    fix.centre_mm = centre_mm;
    fix.turn_deg = std::atan2(rot(0, 1), rot(0, 0)) * 180 / CV_PI;  // the board's x axis is rot's first row on the table
    fix.rot_seen = rot_seen;
    fix.cost = hyps.front().cost;
    return fix;
}

Result<StartTileFix> locate_start_tile(const cv::Mat& frame, const calibration::Calibration& calibration, const Record& setup,
                                       const Catalog& catalog, const vision::TileClassifier& classifier, const StartTileOptions& options,
                                       const std::string& where) {
    if (!calibration.table) return invalid(where, "the calibration file has no table plane: measure it first (calibrate table)");
    if (setup.events.empty() || setup.events.front().type != "tile") return invalid(where, "the match has no start tile");
    const Event& start = setup.events.front();
    const TileType* type = catalog.find(start.tile);
    if (!type) return invalid(where, "the start tile " + start.tile + " is not in the match's catalog");
    auto h = calibration::image_to_table_for_size(*calibration.table, frame.size(), where);
    if (!h) return h.error();
    return locate_start_tile(frame, h.value(), start_search_area(calibration, h.value(), frame.size()), *type, start.rot, classifier,
                             options, where);
}

}  // namespace meeplecam::session
