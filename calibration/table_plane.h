// Table plane: the mapping between table millimetres and image pixels, measured from the
// four printed corner markers or from the tiles themselves.
#pragma once

#include <array>
#include <optional>
#include <string>
#include <vector>

#include <opencv2/core.hpp>

#include "engine/error.h"
#include "vision/board_reader.h"

namespace meeplecam::calibration {

struct CameraIntrinsics;  // calibration/calibration_file.h

struct TablePlane {
    cv::Matx33d table_to_image = cv::Matx33d::eye();  // homography: mm on the table -> pixels
    double rms_error_px = 0.0;                        // reprojection error of the fit

    cv::Point2d to_image(cv::Point2d table_mm) const;
    cv::Point2d to_table(cv::Point2d image_px) const;
};

// Fits the table plane from >= 4 correspondences (table mm, image px); refuses degenerate input.
Result<TablePlane> fit_table_plane(const std::vector<cv::Point2d>& table_mm, const std::vector<cv::Point2d>& image_px);

// A printed ArUco marker lying on the table: its id and where its centre is in table mm.
struct MarkerPlacement {
    int id = 0;
    std::string corner;      // "NW", "NE", "SE" or "SW"
    cv::Point2d centre_mm;
};

// The table plane as one camera sees it.
struct TableCalibration {
    std::string source = "markers";       // "markers" (printed ArUco markers), "tiles" (the tile lattice) or "start-tile" (calibration/start_tile_plane.h)
    cv::Size image_size;                  // the image the homography was measured in (px)
    bool undistorted = false;             // the homography maps table mm to *undistorted* pixels
    TablePlane plane;                     // table mm -> image px, with its rms fit error
    std::vector<MarkerPlacement> markers; // empty for source "tiles"
};

// ---- From the four printed markers ---------------------------------------------------------

struct TableMarkerOptions {
    double marker_mm = 60;                    // printed marker side (calibrate print-markers)
    std::array<cv::Point2d, 4> centres_mm{};  // marker centres of ids 0..3 (NW, NE, SE, SW) in table mm
    double max_size_error = 0.15;             // refuse when a marker's measured side is off by this share (wrong mm given)
    Status check() const;
};

// Marker centres at the corners of a width x height mm rectangle: NW (0,0), NE (w,0), SE (w,h), SW (0,h).
std::array<cv::Point2d, 4> rectangle_centres(double width_mm, double height_mm);

// One table marker found in a photo.
struct FoundMarker {
    int id = 0;
    std::array<cv::Point2d, 4> corners_px{};  // in the detector's order (the marker's own TL, TR, BR, BL)
    cv::Point2d centre_px;                    // where the diagonals cross (the true projected centre)
};

// Finds the table markers 0..3. Errors name `where` and every missing id with its corner.
Result<std::array<FoundMarker, 4>> find_table_markers(const cv::Mat& image, const std::string& where);

// Measures the table plane from the four markers. With `camera`, marker corners are
// undistorted first and the plane maps to undistorted pixels. Errors: missing markers,
// degenerate placement, marker sizes that disagree with the given mm (wrong positions).
Result<TableCalibration> table_from_markers(const cv::Mat& image, const TableMarkerOptions& options, const CameraIntrinsics* camera,
                                            const std::string& where);

struct TilePlaneOptions {
    vision::LatticeOptions lattice;  // the lattice search (its image_to_table_mm is ignored)
    int min_tiles = 16;              // fewer occupied cells: too little board to trust the plane (small boards lock on half the pitch)
    int max_tiles = 100;             // more: the lattice was misread (a pitch harmonic)
    Status check() const;
};

// Measures the table plane from the tiles (vision::find_lattice; the mm scale assumes the
// lattice pitch tile_mm + gap_mm). `image` must already be undistorted when `camera` is given.
// Errors: no board, too few tiles, a misread lattice.
Result<TableCalibration> table_from_tiles(const cv::Mat& image, const TilePlaneOptions& options, const CameraIntrinsics* camera,
                                          const std::string& where);

// The image px -> table mm homography for an image of `size` (a uniform rescale of the
// calibrated image); errors name `where`.
Result<cv::Matx33d> image_to_table_for_size(const TableCalibration& table, cv::Size size, const std::string& where);

}  // namespace meeplecam::calibration
