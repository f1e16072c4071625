// Measures of a reading against the renderer's ground truth (tests and bench/vision).
#pragma once

#include <string>
#include <utility>
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

// One tile of a hand-labelled layout: the true board of a real photo (bench/real_labels).
struct LabelledTile {
    int col = 0, row = 0;
    std::string tile;  // type id, or kUnlabelled
    int rot = 0;       // quarter turns clockwise, as records
};
// A cell holding a tile nobody could label (mostly outside the photo): a reading there is
// neither scored nor invented.
inline constexpr const char* kUnlabelled = "?";

// A labelled layout: its tiles, and the touching sides the players themselves laid wrong on
// the table (each a pair of neighbouring cells, checked by eye on the photo): a legal board
// matches on every other side.
struct LayoutLabels {
    std::vector<LabelledTile> tiles;
    std::vector<std::pair<cv::Point, cv::Point>> sides_laid_wrong;
};

// Loads a layout label file: {"tiles": [{"at": [col, row], "tile": "B", "rot": 90}, ...],
// "sides_laid_wrong": [[[col, row], [col, row]], ...]} (rot in degrees, as records; "tile": "?"
// marks a cell with a tile nobody could label; "sides_laid_wrong" may be left out). Errors name
// the file and the entry: unreadable, not JSON, a type not in `catalog`, a rotation not a
// multiple of 90, two tiles on one cell, a laid-wrong side whose cells do not touch.
Result<LayoutLabels> load_layout_labels(const std::string& path, const Catalog& catalog);

// A reading scored against a labelled layout. The reading's board frame is arbitrary (a photo
// has no north), so it is turned by quarter turns and shifted onto the labels first: the turn
// and shift placing the most read tiles right are taken. A tile is right when its type matches
// and its rotation does modulo the type's symmetry; hidden tiles count as missed.
struct LayoutScore {
    int labelled = 0, right = 0, wrong = 0, missed = 0, invented = 0;
    int turn = 0;                          // quarter turns clockwise applied to the reading
    cv::Point shift{0, 0};                 // then this shift (cells)
    std::vector<std::string> confusions;   // per wrong tile, "truth->read" (e.g. "N->I")
};
LayoutScore score_against_layout(const std::vector<DecodedTile>& read, const Catalog& catalog, const std::vector<LabelledTile>& labels);

}  // namespace meeplecam::vision
