// The frame's colour cast, from the tiles the reader decoded (vision stage 5, before the piece
// colour gates).
//
// The piece colour models are daylight models: under warm or cold light the pieces move off their
// gates (warm light: blue and grey lose theirs, the grass and the cities pass as red or green).
// The decoded tiles say which terrain each pixel shows, and the art's terrain colours are known
// (the built-in art styles, vision/tile_art.h, under neutral light): the per-channel gain that
// maps the known colours onto the ones measured in the frame is the light's colour. Its
// chromatic part (the gains over their geometric mean: the exposure is left alone) is taken off
// the frame before the gates, so the daylight models see daylight colours again. Art matching no
// reference within `max_residual` (a real tile set unlike the built-in styles) is measured on its
// roads instead: real sets draw them white or pale grey, so their colour is the light's
// (LightCastOptions::road_white, off by default; the cast's `art` then reads "roads").
#pragma once

#include <string>

#include <opencv2/core.hpp>

#include "engine/catalog.h"
#include "engine/error.h"

namespace meeplecam::vision {

// The colour cast found in a frame and the correction taken off it.
struct LightCast {
    cv::Vec3d correction_bgr{1, 1, 1};  // per-channel gain applied to the frame (1, 1, 1: none)
    std::string art;                    // the reference art style the terrains matched best ("" when none was tried)
    double residual = 0;                // how far the measured terrain colours stay from that art under the best gain
                                        // (rms of the per-channel log ratios)
    bool applied = false;               // the match was close enough and the cast large enough to take off
};

// How the cast is estimated and when it is taken off.
struct LightCastOptions {
    double max_residual = 0.08;     // the art must match a reference this well (rms log ratio) for its cast to count
    double min_cast = 0.02;         // casts whose largest chromatic log gain is under this are left (no change)
    double max_gain = 2.0;          // no channel is scaled by more than this (or less than its inverse)
    double min_terrain_share = 0.03;  // a terrain counts when it covers this share of the decoded tiles' pixels
    double inset_mm = 1.0;          // match each terrain's colours (the frame's and the references') only this far inside its
                                    // region: a board read a little off its cells puts a thin road's edges on the grass beside
                                    // (seed 1009 as read: residual 0.123, no cast taken off; 0.074 with 1 mm; 0: the whole region;
                                    // 2 mm lowers every residual so far that the glare board 1004 matches a wrong style)
    double px_per_mm = 3.0;         // scale of the frame and its terrain map (detect_pieces passes its top view's)
    double tile_mm = 45.0;          // a tile's side (the references are rendered at 96 px a tile)
    // Art matching no reference (a real tile set): its roads are taken as the light's white. Real tile sets draw
    // their roads white or a pale grey; under warm or cold light they carry the light's colour.
    bool road_white = false;        // take the cast off the roads' colour when no reference art matched (off: on the renders it
                                    // also fires on glare and dusk frames and costs exact scores; docs/vision-journal.md "Road white")
    double road_top_share = 0.25;   // the road pixels measured: this share of them, the lightest (the label band is wider than a
                                    // real road: grass and the road's edges fill the rest)
    double road_min_value = 110;    // ... when their median (mean of B, G, R, 0..255) is at least this light (a pale road, not art or shade)
    double road_max_cast = 0.35;    // ... and their largest chromatic log gain is at most this (a stronger "cast" is the art's own colour)
    double road_max_veil = 0.4;     // detect_pieces: not after lifting a glare veil stronger than this (the glare whitened the roads
                                    // unevenly: a rendered glare board's veil 0.62; real photos' 0-0.30)
    Status check() const;
};

// Estimates the colour cast of `bgr` (8-bit BGR) whose pixels show the terrains `terrain` says
// (CV_32SC1, a FeatureKind value per pixel; other values are ignored): per terrain the median of
// each channel `options.inset_mm` inside the terrain's region, against each built-in art style's
// medians under neutral light (rendered once from `catalog`'s tiles, measured as far inside, and
// kept); the style fitting best under one per-channel gain is the match.
// The correction is that gain's chromatic part, inverted.
LightCast estimate_light_cast(const cv::Mat& bgr, const cv::Mat& terrain, const Catalog& catalog, const LightCastOptions& options = {});

// Multiplies each channel of `bgr` (8-bit BGR) by the cast's correction, in place, when it was applied.
void remove_light_cast(cv::Mat& bgr, const LightCast& cast);

}  // namespace meeplecam::vision
