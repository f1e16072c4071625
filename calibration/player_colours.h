// Player colours and white balance from one photo: one follower of each player's colour
// standing or lying on a sheet of white paper.
//
// 1. Paper: the largest bright region with a nearly convex outline (holes where followers
//    stand are filled).
// 2. White balance: per-channel gains that make the paper's median colour neutral grey.
// 3. Followers: blobs on the paper whose white-balanced colour is far from the paper's
//    (their own shadows, grey and dim, are left out by the distance and a core erosion).
// 4. Colours: blobs are matched one-to-one to the listed player colours by the nearest
//    reference colour (Lab, after white balance), choosing the assignment with the least
//    total distance; each colour's model is the Lab mean and covariance of its blob's core.
#pragma once

#include <string>
#include <vector>

#include <opencv2/core.hpp>

#include "calibration/calibration_file.h"
#include "engine/error.h"
#include "vision/piece_detector.h"

namespace meeplecam::calibration {

struct ColourCalibrationOptions {
    double min_paper_share = 0.04;     // the paper covers at least this share of the photo
    double min_paper_solidity = 0.85;  // paper area / its convex hull area at least this (a sheet, not a splash)
    double follower_delta_e = 22;      // a pixel belongs to a follower when this far (Lab) from the paper
    double min_blob_share = 0.0004;    // a follower blob covers at least this share of the photo
    double paper_margin = 0.02;        // share of the paper's size left out along its edge (shadows, table)
    double core_erosion = 0.2;         // share of a blob's equivalent radius eroded before measuring it
    double max_match_delta_e = 60;     // a blob farther than this from every listed colour is no follower of them
    double covariance_floor = 1.0;     // added to the covariance diagonal (Lab units^2): always positive definite
    Status check() const;
};

// One follower found on the paper.
struct FoundFollower {
    std::string colour;     // the player colour it was assigned
    cv::Point2d centre_px;  // blob centroid
    int pixels = 0;         // core pixels measured
};

struct ColourShot {
    ColourCalibration calibration;
    std::vector<FoundFollower> followers;
    std::vector<cv::Point> paper_outline;  // convex hull of the paper in the photo
};

// The reference Lab colour (after white balance) of a player colour name; nullopt if unknown.
std::optional<cv::Vec3d> reference_lab(const std::string& colour);

// The piece detector's colour models of a colour calibration (one per player colour, from its
// Lab mean and covariance: vision::colour_model_from_lab). Errors name the colour.
Result<vision::ColourModels> colour_models_of(const ColourCalibration& calibration);

// Applies white-balance gains (R, G, B) to an 8-bit BGR image.
cv::Mat apply_white_balance(const cv::Mat& bgr, const cv::Vec3d& gains_rgb);

// What a reader of followers needs from a calibration file: its player colour models and the
// white balance frames must get before those models apply; the daylight models and no
// balance when the file holds no colours.
struct FrameColours {
    vision::ColourModels models = vision::ColourModels::daylight();
    cv::Vec3d white_balance_rgb{1, 1, 1};
    bool calibrated = false;  // from the file's colour shot (else daylight)

    // Returns `bgr` white-balanced (`bgr` itself when there is nothing to balance).
    cv::Mat balance(const cv::Mat& bgr) const;
};

// The file's frame colours; errors name the colour whose model cannot be built.
Result<FrameColours> frame_colours_of(const Calibration& calibration);

// Calibrates the listed player colours from one photo. Errors name `where`: no paper
// found, a colour missing (named), two blobs of one colour, a blob of no listed colour.
Result<ColourShot> calibrate_colours(const cv::Mat& image, const std::vector<std::string>& players, const std::string& where,
                                     const ColourCalibrationOptions& options = {});

}  // namespace meeplecam::calibration
