#include "session/draw_zone.h"

#include <cmath>

#include <opencv2/imgproc.hpp>

#include "session/table_colour.h"
#include "vision/tile_classifier.h"

namespace meeplecam::session {

Status DrawZoneOptions::check() const {
    const auto bad = [](const std::string& what) { return invalid("draw zone", what); };
    if (!(tile_mm >= 10 && tile_mm <= 200)) return bad("tile_mm must be within [10, 200]");
    if (!(px_per_mm >= 0.5 && px_per_mm <= 8)) return bad("px_per_mm must be within [0.5, 8]");
    if (!(margin_mm >= 2 && margin_mm <= 200)) return bad("margin_mm must be within [2, 200]");
    if (!(table_delta_e >= 1 && table_delta_e <= 200)) return bad("table_delta_e must be within [1, 200]");
    if (!(min_tile_share > 0 && min_tile_share <= 1)) return bad("min_tile_share must be within (0, 1]");
    if (!(std::isfinite(zone_mm.x) && std::isfinite(zone_mm.y) && zone_mm.width >= tile_mm && zone_mm.height >= tile_mm)) {
        return bad("the zone must be at least one tile (" + std::to_string(static_cast<int>(tile_mm)) + " mm) on each side");
    }
    if (zone_mm.width > 500 || zone_mm.height > 500) return bad("the zone must be at most 500 mm on each side");
    return Ok{};
}

Result<std::optional<DrawnTile>> read_draw_zone(const cv::Mat& frame, const cv::Matx33d& image_to_table_mm,
                                                const vision::TileClassifier& classifier, const DrawZoneOptions& o,
                                                const std::string& where) {
    if (auto st = o.check(); !st) return st.error();
    if (frame.empty() || frame.type() != CV_8UC3) return invalid(where, "expects a non-empty 8-bit BGR frame");
    // The zone and its margin, in view px.
    const cv::Point2d origin(o.zone_mm.x - o.margin_mm, o.zone_mm.y - o.margin_mm);
    const cv::Size size(static_cast<int>(std::lround((o.zone_mm.width + 2 * o.margin_mm) * o.px_per_mm)),
                        static_cast<int>(std::lround((o.zone_mm.height + 2 * o.margin_mm) * o.px_per_mm)));
    const TopView top = top_view_of(frame, image_to_table_mm, origin, size, o.px_per_mm, cv::INTER_AREA);
    const cv::Mat& view = top.image;
    const cv::Mat& seen = top.seen;
    if (cv::countNonZero(seen) < size.area()) return invalid(where, "the draw zone is not wholly in the camera's view");
    const cv::Rect zone(static_cast<int>(std::lround(o.margin_mm * o.px_per_mm)), static_cast<int>(std::lround(o.margin_mm * o.px_per_mm)),
                        static_cast<int>(std::lround(o.zone_mm.width * o.px_per_mm)), static_cast<int>(std::lround(o.zone_mm.height * o.px_per_mm)));
    cv::Mat ring(size, CV_8UC1, cv::Scalar(255));
    ring(zone).setTo(0);
    const cv::Mat unlike = unlike_reference(view, ring, seen, o.table_delta_e);
    const double tile_px = o.tile_mm * o.px_per_mm * o.tile_mm * o.px_per_mm;
    if (cv::countNonZero(unlike(zone)) < o.min_tile_share * tile_px) return std::optional<DrawnTile>();
    // The classifier finds the tile's square in a crop it fills well: a square of 1.6 tiles
    // around the unlike pixels' centre in the zone.
    const cv::Moments m = cv::moments(unlike(zone), /*binaryImage=*/true);
    const cv::Point2d centre(zone.x + m.m10 / m.m00, zone.y + m.m01 / m.m00);
    const int side = static_cast<int>(std::lround(1.6 * o.tile_mm * o.px_per_mm));
    const cv::Rect crop = cv::Rect(static_cast<int>(std::lround(centre.x - side / 2.0)), static_cast<int>(std::lround(centre.y - side / 2.0)), side, side) &
                          cv::Rect(0, 0, size.width, size.height);
    auto c = classifier.classify(view(crop));
    if (!c) return invalid(where, "the draw zone: " + c.error().message);
    DrawnTile t;
    t.tile = c->best.tile;
    t.rot = c->best.rot;
    t.confidence = c->best.confidence;
    for (const auto& alt : c->alternatives) {
        if (alt.tile != t.tile) {
            t.runner_up = alt.tile;
            t.runner_up_confidence = alt.confidence;
            break;
        }
    }
    return std::optional<DrawnTile>(t);
}

}  // namespace meeplecam::session
