// The calibration file: one versioned JSON document holding what a camera set-up needs
// (camera intrinsics, the table plane, the player colours); every part is optional.
//
//   {"format": "meeplecam-calibration", "version": 1,
//    "camera": {"image_size": [w, h], "camera_matrix": [[fx,0,cx],[0,fy,cy],[0,0,1]],
//               "distortion": [k1, k2, p1, p2, k3], "reprojection_error_px": e, "views": n},
//    "table":  {"source": "markers" | "tiles", "image_size": [w, h], "undistorted": bool,
//               "table_to_image": [[...],[...],[...]], "rms_error_px": e,
//               "markers_mm": [{"id": 0, "corner": "NW", "centre": [x, y]}, ...]},
//    "colours": {"white_balance_rgb": [gr, gg, gb],
//                "players": {"red": {"lab_mean": [L, a, b], "lab_covariance": [[..],[..],[..]],
//                                    "pixels": n}, ...}}}
//
// Lab is CIE L*a*b* in OpenCV's float convention (L 0..100, a and b about -128..127) of
// white-balanced pixels. See docs/calibration.md.
#pragma once

#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>
#include <opencv2/core.hpp>

#include "calibration/table_plane.h"
#include "engine/error.h"

namespace meeplecam::calibration {

// The pinhole camera and its lens distortion (OpenCV's model and coefficient order).
struct CameraIntrinsics {
    cv::Size image_size;                          // the image size the intrinsics hold for (px)
    cv::Matx33d camera_matrix = cv::Matx33d::eye();
    std::vector<double> distortion;               // 4, 5, 8, 12 or 14 coefficients (k1 k2 p1 p2 [k3 ...])
    double reprojection_error_px = 0;             // rms over all board corners of all views
    int views = 0;                                // calibration views used
};

// One player colour: the Lab distribution of its followers' pixels.
struct ColourModel {
    cv::Vec3d lab_mean;
    cv::Matx33d lab_covariance = cv::Matx33d::eye();  // symmetric positive definite
    int pixels = 0;                                    // pixels the model was measured on
};

struct ColourCalibration {
    cv::Vec3d white_balance_rgb{1, 1, 1};    // gains that make the white paper grey (R, G, B)
    std::map<std::string, ColourModel> players;  // by colour name: red, blue, green, yellow, black, grey
};

struct Calibration {
    std::optional<CameraIntrinsics> camera;
    std::optional<TableCalibration> table;
    std::optional<ColourCalibration> colours;
};

// The player colour names a calibration file may hold.
const std::vector<std::string>& player_colour_names();

// Parses a calibration file's text. Errors name `source`, the JSON path and the reason,
// e.g. "c.json: camera.camera_matrix[0][0]: must be a positive number".
Result<Calibration> parse_calibration(std::string_view text, std::string_view source);
// Reads and parses a calibration file; errors name the path.
Result<Calibration> load_calibration(const std::filesystem::path& path);
// The JSON document of a calibration (what save_calibration writes).
nlohmann::json calibration_to_json(const Calibration& calibration);
// Writes a calibration file atomically (a crash leaves the old file or the new one).
Status save_calibration(const Calibration& calibration, const std::filesystem::path& path);

}  // namespace meeplecam::calibration
