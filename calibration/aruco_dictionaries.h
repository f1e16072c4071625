// The ArUco dictionaries of the printed targets (one place, so printing and detection agree).
#pragma once

#include <opencv2/aruco.hpp>

namespace meeplecam::calibration {

// The ChArUco board's markers: DICT_5X5_100 (never confused with the table markers).
inline cv::Ptr<cv::aruco::Dictionary> charuco_dictionary() {
    return cv::aruco::getPredefinedDictionary(cv::aruco::DICT_5X5_100);
}
// The table-corner markers: DICT_4X4_50, ids 0..3.
inline cv::Ptr<cv::aruco::Dictionary> table_marker_dictionary() {
    return cv::aruco::getPredefinedDictionary(cv::aruco::DICT_4X4_50);
}

}  // namespace meeplecam::calibration
