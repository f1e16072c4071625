// Table plane from the lone start tile: the four corners of one known-size square give the
// homography between table millimetres and image pixels, so a match can start without the
// printed markers and without a board big enough for the tile lattice (16+ tiles).
//
// 1. The photo is searched at a working size for convex four-sided outlines (contours of
//    edge maps and of "not table" blobs, the latter also by their rotated rectangle, as a
//    follower on the tile breaks its outline); tile-sized, nearly square ones are kept.
// 2. Each is warped to the tile classifier's square and scored; the start tile is the one
//    the classifier reads as the start tile's type, that stands out from the ring of table
//    around it, with the lowest cost.
// 3. Its sides are refined on the full-resolution photo (edge points fitted with lines) and
//    the plane fitted to the four corners: the tile's NW corner (as the classifier sees its
//    turn) at `origin_mm`, its sides `tile_mm` long along the table's axes.
//
// One tile is a small base: the plane is exact at the tile and drifts with distance (the
// perspective terms rest on four corners ~100 px apart); see docs/calibration.md.
#pragma once

#include <array>
#include <optional>
#include <string>
#include <vector>

#include <opencv2/core.hpp>

#include "calibration/table_plane.h"
#include "engine/catalog.h"
#include "engine/error.h"

namespace meeplecam::vision {
class TileClassifier;
}

namespace meeplecam::calibration {

struct StartTilePlaneOptions {
    double tile_mm = 45.0;                        // the tile's side
    cv::Point2d origin_mm{500, 500};              // where the tile's NW corner lies on the table
    int work_side = 1280;                         // the photo's longer side while searching (px)
    double min_side_share = 0.025;                // tile side at least this share of the working image's shorter side
    double max_side_share = 0.6;                  // and at most this
    double max_side_ratio = 1.5;                  // longest / shortest side of the outline
    double max_corner_error_deg = 35;             // each corner within 90 +- this
    double min_ring_delta_e = 12;                 // the tile's mean colour this far (Lab) from the table ring around it
    double min_confidence = 0.2;                  // the classifier's confidence in the start tile's type
    double refine_reach_px = 6;                   // the sides are looked for this far from the outline (full resolution)
    Status check() const;
};

// What the search found, beside the plane.
struct StartTilePlane {
    TableCalibration table;                       // source "start-tile"
    std::array<cv::Point2d, 4> corners_px{};      // the tile's corners in the photo: NW, NE, SE, SW as its art is turned
    int rot_seen = 0;                             // the start tile's rotation against the photo's quad order
    double confidence = 0;                        // the classifier's confidence in it
    int candidates = 0;                           // four-sided outlines scored
};

// Measures the table plane from the start tile (`start`) lying in `image` (8-bit BGR,
// undistorted when `camera` is given). Errors name `where`: no tile-shaped outline, none read
// as the start tile, options failing check().
Result<StartTilePlane> table_from_start_tile(const cv::Mat& image, const TileType& start, const vision::TileClassifier& classifier,
                                             const StartTilePlaneOptions& options, const CameraIntrinsics* camera,
                                             const std::string& where);

// Moves each side of a tile's outline `corners` (image pixels, clockwise) onto the strongest
// edge within `reach_px` along its normal in `grey` (8-bit), fits lines to those edge points
// (sub-pixel) and returns their corners; nullopt when a side finds too few edge points or a
// corner would move more than 2 * reach_px. The tracker refits its plane with it.
std::optional<std::array<cv::Point2d, 4>> refine_tile_outline(const cv::Mat& grey, const std::array<cv::Point2d, 4>& corners, double reach_px);

// The edge points found along each side of a tile's outline `corners` (image pixels,
// clockwise, side i from corner i to i + 1), as refine_tile_outline finds them; a side with
// no clear straight edge (a neighbour's tile flush against it) gets none.
std::array<std::vector<cv::Point2f>, 4> tile_side_edges(const cv::Mat& grey, const std::array<cv::Point2d, 4>& corners, double reach_px);

}  // namespace meeplecam::calibration
