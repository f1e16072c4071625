// Glare veil (vision stage 0b): a glare spot lifted off the camera frame before the lattice
// is looked for.
//
// Glare adds white light: a colour c is seen as c' = c + (255 - c) s, s the glare's share
// at that point, so the distance to white (255 - c) shrinks by the factor (1 - s) for every
// colour alike. Washed-out tiles lose their gaps and their colours (the table mask takes the
// glared table for tiles, the classifier's colour clusters split each terrain by glare level).
// The art and the table hold dark pixels everywhere, so the local dark level (a high
// percentile of the distance to white in a block of the frame) falls where glare lies on them
// and stays at the frame's common level elsewhere; their ratio gives (1 - s), and the veil is
// undone: c = 255 - (255 - c') / (1 - s).
#pragma once

#include <opencv2/core.hpp>

#include "engine/error.h"

namespace meeplecam::vision {

struct VeilOptions {
    int work_side = 480;           // the veil is measured on the frame shrunk to this longer side (px)...
    int block_px = 16;             // ...in square blocks of this side (work px; ~64 px of a 1920 px frame)
    double dark_quantile = 0.9;    // a block's dark level: this quantile of its pixels' distance to white
    double common_quantile = 0.75; // a block's unveiled dark level: this quantile of the dark levels of the blocks of its colour (glare covers fewer)...
    double colour_reach = 0.3;     // ...those whose glare-free colour (opponent chroma over the distance to white) lies this near
    int min_alike_blocks = 12;     // ...when at least this many (fewer: the block is left as it is)
    double min_common_dark = 64;   // ...and when that level reaches this (a light plain table's dark level is a few units: a light
                                   // gradient across it moves the ratio as much as glare, and glare on it changes little)
    double smooth_blocks = 1.5;    // the veil map is smoothed by a Gaussian of this many blocks (glare changes slowly)
    double max_veil = 0.7;         // largest glare share removed (the distance to white grows at most 1 / (1 - max_veil) times)
    double min_peak = 0.3;         // a frame whose strongest veil (or fitted spot) stays under this is left as it is (no glare spot)
    // A glare spot is a bump of white light that falls off on every side (a specular highlight);
    // a light gradient or a light table is not. With `spot_only` the block veils are fitted with
    // one smooth spot (an elliptical Gaussian: centre, size, stretch, strength) and only that
    // spot is lifted, and only when the veil around it falls off on every side; off: every
    // block's own veil is lifted (the veil map as measured, smoothed).
    bool spot_only = true;
    double min_spot_blocks = 1.5;  // the spot's size (Gaussian sigma along its short axis) is searched from this many blocks...
    double max_spot_blocks = 7;    // ...up to this many (a specular spot, not the frame's light)
    double max_ring_share = 0.35;  // the spot falls off: around it (where the fitted spot is 5-25 % of its peak) the mean veil of
                                   // each quarter seen must stay under this share of the spot's strength
    int min_ring_quarters = 3;     // ...and at least this many quarters around it must be seen (in the frame, with a reference level)
    Status check() const;
};

// One glare spot fitted to the frame's block veils (frame pixels).
struct GlareSpot {
    bool found = false;       // the fit passed: strong enough (min_peak) and falling off on every side
    cv::Point2d centre_px;
    double sigma_px = 0;      // the Gaussian's sigma along its short axis...
    double stretch = 1;       // ...and along its long axis this many times more
    double angle_rad = 0;     // the long axis' direction (image x towards y)
    double strength = 0;      // the glare share at the centre
    double ring_share = 0;    // the highest quarter mean veil around the spot over its strength
    int ring_quarters = 0;    // quarters around the spot seen
    // The glare share at a frame point.
    double share_at(cv::Point2d p) const;
};

// Fits one glare spot to the frame's block veils (also when it fails the tests: `found` says).
GlareSpot fit_glare_spot(const cv::Mat& bgr, const VeilOptions& options = {});

// The glare share s per frame pixel (CV_32FC1, frame size; 0 where no veil), or an empty
// matrix when the frame shows no glare spot (its peak under min_peak) or the options fail check().
cv::Mat estimate_glare_veil(const cv::Mat& bgr, const VeilOptions& options = {});

// Lifts the veil estimate_glare_veil finds off `bgr` (in place). Returns whether it changed
// the frame.
bool lift_glare_veil(cv::Mat& bgr, const VeilOptions& options = {});

// Lifts a veil estimate_glare_veil measured (of `bgr`'s size) off `bgr`, in place:
// c = 255 - (255 - c') / (1 - s) per pixel and channel. Nothing happens for an empty veil.
void lift_veil(cv::Mat& bgr, const cv::Mat& veil);

}  // namespace meeplecam::vision
