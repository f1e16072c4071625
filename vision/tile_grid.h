// Tile grid (vision stage 2): the lattice the tiles lie on and which of its cells hold a tile.
//
// Works on a top view (vision/rectify.h): tiles there are squares of known size, off the
// lattice by a little. The lattice's direction comes from the edge directions of the board,
// its pitch and phase from the periodic gaps between tiles, occupancy from how unlike the
// table a cell looks (the table's colours are sampled along the edge of the view).
#pragma once

#include <array>
#include <vector>

#include <opencv2/core.hpp>

#include "engine/error.h"
#include "vision/rectify.h"

namespace meeplecam::vision {

struct TileGridOptions {
    double tile_mm = 45.0;          // tile side
    double min_gap_mm = 0.0;        // smallest mean gap between tiles the pitch search tries
    double max_gap_mm = 3.0;        // largest mean gap
    double pitch_step_mm = 0.05;    // pitch search step
    double table_ring_mm = 20.0;    // width of the band along the view's edge whose colours are the table's
    double not_table_ratio = 0.4;   // a pixel is "not table" when its colour is this much rarer near the edge than overall
    double occupied_share = 0.5;    // a cell holds a tile when this share of it is not table
    Status check() const;
};

// One occupied lattice cell.
struct GridCell {
    int col = 0;                              // lattice column (along the lattice x axis)
    int row = 0;                              // lattice row
    double occupancy = 0;                     // share of the cell that does not look like table
    cv::Point2d centre_mm;                    // plane mm
    std::array<cv::Point2d, 4> corners_mm{};  // the tile square on the lattice, plane mm
};

struct TileGrid {
    double angle_deg = 0;      // lattice x axis direction in the plane frame, in [-45, 45)
    double pitch_mm = 45;      // lattice spacing (tile + gap)
    cv::Point2d origin_mm;     // centre of cell (0, 0), plane mm
    std::vector<GridCell> cells;
    cv::Mat not_table;         // CV_8UC1 top-view mask of pixels that do not look like table (diagnostics)

    // Returns the centre of any lattice cell in plane mm.
    cv::Point2d cell_centre(int col, int row) const;
};

// Finds the lattice and its occupied cells in a top view. Errors: an empty view, or no
// board found (nothing unlike the table, or no periodic gaps).
Result<TileGrid> find_tile_grid(const TopView& top, const TileGridOptions& options = {});

}  // namespace meeplecam::vision
