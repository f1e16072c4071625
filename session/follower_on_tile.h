// A follower put down in the same move as its tile: found on the new tile's square by its
// player's colour, so that the tile can be read without it (the follower is painted over from
// its surroundings) and the follower then placed on the feature under it.
//
// The colour gate is the piece detector's (vision/piece_detector.h ColourModel): hue and chroma
// for colourful players, lightness at low chroma for black and grey. Art of the player's colour
// (a blue pennant, red roofs) is too small or too ragged to pass as a follower; when the art
// itself is largely of that colour (a green follower on green grass) nothing is found.
#pragma once

#include <optional>

#include <opencv2/core.hpp>

#include "engine/error.h"
#include "vision/piece_detector.h"

namespace meeplecam::session {

struct FollowerOnTileOptions {
    double min_tile_px = 40;         // tiles narrower than this in the camera frame (a whole table from afar) are not looked at:
                                     // a follower there is a few pixels, as large as the art's houses
    double min_share = 0.03;         // a follower covers at least this share of the tile square (60 mm² of a 45 mm tile)...
    double max_share = 0.25;         // ...and at most this
    double max_colour_share = 0.35;  // more of the square than this in the player's colour: the art is that colour, nothing is found
    double min_solidity = 0.6;       // blob area over its convex hull's (ragged art is less)
    double open_share = 0.03;        // opening radius (share of the square's side) that removes thin art lines
    double art_max_share = 0.05;     // once the tile is known, a blob mostly on its centre building or a pennant and smaller
                                     // than this is that art (a red roof), not a follower standing there
    double art_margin = 1.5;         // a follower put down with its tile covers this many times the largest blob of its colour
                                     // found in the art of placed tiles without followers (red roofs): the tracker learns those
    double clear_share = 0.06;       // the blob is grown by this (share of the side) before it is painted over (rim, shadow)
    bool raw_view_if_illegal = true; // painting over leaves its own marks: when the painted-over view reads an illegal tile, the
                                     // view as seen is read instead (an illegal move stands only when both read one)
    double raw_view_weight = 0;      // >0: every placement costs this blend of its costs on the view as seen and the painted-over
                                     // view (measured: 0.5 loses a third of the rendered moves a follower came with)

    // Checks every field; the error names it.
    Status check() const;
};

// A follower-coloured blob on a tile square.
struct FollowerBlob {
    cv::Mat mask;             // CV_8U, the square's size: 255 on the follower
    cv::Point2d centroid;     // in the square's pixels
    int area = 0;             // pixels
    double share = 0;         // of the square
    double solidity = 0;
};

// Finds the largest follower-sized blob of `colour` on `lab_square` (float Lab, L 0..100, as
// cv::cvtColor gives for float BGR in 0..1); nullopt when there is none, or when the art is
// itself largely of that colour. `also` (CV_8U, the square's size, may be empty) further
// limits the pixels looked at (e.g. those unlike their terrain once the tile is known).
std::optional<FollowerBlob> find_follower_by_colour(const cv::Mat& lab_square, const vision::ColourModel& colour,
                                                    const FollowerOnTileOptions& options = {}, const cv::Mat& also = {});

// Returns `mask` grown by options.clear_share of the side (the follower's rim and shadow):
// what clear_follower paints over.
cv::Mat cleared_area(const cv::Mat& mask, const FollowerOnTileOptions& options = {});

// Returns a copy of `bgr_square` (8-bit BGR) with `mask` (grown by options.clear_share of the
// side) painted over from the pixels around it.
cv::Mat clear_follower(const cv::Mat& bgr_square, const cv::Mat& mask, const FollowerOnTileOptions& options = {});

}  // namespace meeplecam::session
