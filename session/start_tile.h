// Start tile: where the match's start tile lies on a calibrated table, which turns the
// calibration's table plane (table mm, origin at the NW marker) into the tracker's table
// frame (origin at the start tile's centre, x along the board's east, see tracker.h).
//
// 1. The search area of the table (the marker rectangle, or what the camera sees) is warped
//    to a top view; pixels far (Lab) from the table's median colour are "not table".
// 2. The not-table blob whose rotated rectangle is tile-sized and square is the start tile
//    (the printed markers, 60 mm with their white margin, are too big to pass).
// 3. Its square is warped to the tile classifier's canonical square and scored at every
//    rotation of the start tile's type: the rotation seen fixes the board's north.
#pragma once

#include <string>

#include <opencv2/core.hpp>

#include "engine/catalog.h"
#include "engine/error.h"
#include "engine/record.h"

namespace meeplecam::calibration {
struct Calibration;
}
namespace meeplecam::vision {
class TileClassifier;
}

namespace meeplecam::session {

struct StartTileOptions {
    double tile_mm = 45.0;          // tile side
    double px_per_mm = 1.0;         // resolution of the top view the tile is looked for in (its rotation is read on the frame itself)
    double max_view_mm = 1600;      // the top view is cropped to this side around the search area's centre
    double table_delta_e = 18.0;    // a top-view pixel is not table when this far (Lab) from the table's median colour
    double size_tolerance = 0.2;    // the blob's rectangle sides within this share of tile_mm
    double min_fill = 0.6;          // blob area / rectangle area at least this (city parts may look like the table)
    cv::Rect2d ignore_mm{0, 0, 0, 0};  // a table area whose objects are not the start tile (the draw zone); empty: none
    Status check() const;
};

// Where the start tile was found.
struct StartTileFix {
    cv::Matx33d image_to_board_mm = cv::Matx33d::eye();  // camera px -> tracker frame (start tile's centre at 0)
    cv::Point2d centre_mm;   // the start tile's centre on the calibrated table (mm)
    double turn_deg = 0;     // the board's x axis turned from the table's x axis (degrees, clockwise in the top view)
    int rot_seen = 0;        // the start tile's rotation as it lies against the table's axes (quarter turns)
    double cost = 0;         // the classifier's cost of that rotation (lower is better)
};

// The table area to search (mm, on the calibrated table): the marker rectangle when the
// plane came from markers, else what a `frame_size` image shows of the table.
cv::Rect2d start_search_area(const calibration::Calibration& calibration, const cv::Matx33d& image_to_table_mm, cv::Size frame_size);

// Finds the start tile (type `start`, recorded at `start_rot` quarter turns) in `frame`
// (8-bit BGR, already undistorted when the plane is for undistorted pixels). Errors name
// `where`: no tile-sized blob in the area, more than one, options failing check().
Result<StartTileFix> locate_start_tile(const cv::Mat& frame, const cv::Matx33d& image_to_table_mm, cv::Rect2d search_mm,
                                       const TileType& start, int start_rot, const vision::TileClassifier& classifier,
                                       const StartTileOptions& options, const std::string& where);

// The same from a calibration file's table plane and a match's set-up (its first event is
// the start tile): `frame` is the camera frame as the plane expects it (undistorted when
// calibration::undistorts_frames). Errors name `where`: no table plane in the file, a frame
// size the plane does not fit, a set-up without a start tile, and the errors above.
Result<StartTileFix> locate_start_tile(const cv::Mat& frame, const calibration::Calibration& calibration, const Record& setup,
                                       const Catalog& catalog, const vision::TileClassifier& classifier,
                                       const StartTileOptions& options, const std::string& where);

}  // namespace meeplecam::session
