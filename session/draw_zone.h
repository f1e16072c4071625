// Draw zone: a square of the calibrated table where the player shows the drawn tile to the
// camera (issue 6). The zone (table mm, the calibration's frame) is warped to a top view with
// a margin of table around it; a tile is there when enough of the zone is unlike the table
// around it; then vision::TileClassifier finds the tile's square in that view and names its
// type (the rotation in the zone means nothing: the player turns the tile when placing it).
#pragma once

#include <optional>
#include <string>

#include <opencv2/core.hpp>

#include "engine/error.h"

namespace meeplecam::vision {
class TileClassifier;
}

namespace meeplecam::session {

struct DrawZoneOptions {
    cv::Rect2d zone_mm{0, 0, 0, 0};  // the zone on the calibrated table (mm); a tile is shown inside it
    double tile_mm = 45.0;           // tile side
    double px_per_mm = 3.0;          // resolution of the zone's top view
    double margin_mm = 15.0;         // table around the zone taken as the table's colour
    double table_delta_e = 18.0;     // a pixel is not table when this far (Lab) from the margin's median colour
    double min_tile_share = 0.5;     // a tile is present when this share of a tile's area in the zone is not table
    Status check() const;            // the zone must hold a tile (each side at least tile_mm) and be at most 500 mm
};

struct DrawnTile {
    std::string tile;       // type id
    int rot = 0;            // as it lies in the zone (quarter turns against the table's axes)
    double confidence = 0;  // the classifier's softmax confidence, 0..1
    double runner_up_confidence = 0;
    std::string runner_up;  // the next best other type
};

// Reads the draw zone of `frame` (8-bit BGR, as the plane expects: undistorted when it was
// measured so). nullopt when the zone is empty. Errors name `where`: the zone outside what the
// camera sees, options failing check().
Result<std::optional<DrawnTile>> read_draw_zone(const cv::Mat& frame, const cv::Matx33d& image_to_table_mm,
                                                const vision::TileClassifier& classifier, const DrawZoneOptions& options,
                                                const std::string& where);

}  // namespace meeplecam::session
