// Measures of a reading against the renderer's ground truth (tests and bench/vision).
#pragma once

#include <vector>

#include <opencv2/core.hpp>

#include "vision/board_reader.h"
#include "vision/table_renderer.h"

namespace meeplecam::vision {

// RMS distance between two matched point sets after the best rigid alignment (turn and
// shift) of the first onto the second, in their units; 0 for fewer than 2 points.
double rigid_alignment_rms(const std::vector<cv::Point2d>& a, const std::vector<cv::Point2d>& b);

// RMS distance (mm) between the true tile centres and their top-view positions after the
// best rigid alignment (the top view's turn and origin are arbitrary); off-grid jitter included.
double rectification_rms_mm(const LatticeView& view, const RenderTruth& truth);

// The board exactly as the render laid it (a perfect lattice and tile reader, so what follows
// is judged alone): a top view of the tile plane at 1 px/mm from the truth's homography, every
// tile on its own cell with its true type, rotation and offset off the cell; cell [0, 0] is the
// board's top-left occupied cell. `catalog` must hold every tile type of the truth.
BoardReading reading_from_truth(const RenderTruth& truth, const Catalog& catalog, cv::Size frame);

}  // namespace meeplecam::vision
