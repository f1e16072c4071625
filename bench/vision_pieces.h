// Pieces section of bench/vision: followers found on rendered finished games (precision and
// recall per kind and colour, colour and feature accuracy, exact final score), and follower
// overlays on the real development photos.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "engine/catalog.h"
#include "vision/board_reader.h"
#include "vision/table_renderer.h"

namespace meeplecam::bench {

// Prints the pieces table for one preset: `n` finished games from `seed` on. With a
// non-empty `dump_dir`, writes an overlay of every board with a mistake there.
// With `expansions` (rule modules, e.g. bridges, castles, ferries) the games use them and the
// table adds bridges, ferries and castle tokens per kind.
struct PiecesBenchOptions {
    bool true_board_only = false;  // score the true board only (the reader is not run: the pieces alone, quickly)
    bool width_pose = false;       // the width rule's pose and base, not the fitted silhouette's (before and after)
    bool veil = true;              // --no-veil: no glare veil lifted (PieceDetectorOptions::lift_veil, on by default; --veil: on)
    double min_veil = 0;           // --min-veil S: the detector's min_veil (0: its default)
    bool adapt = true;             // --no-adapt: the light's colour cast is not taken off (PieceDetectorOptions::adapt_to_light, on by default)
    bool shade = true;             // --no-shade: a grey blob takes in no dark achromatic pixels (PieceDetectorOptions::achromatic_shade_mm 0)
    bool grey_grow = true;         // --no-grey-grow: a grey blob does not grow over a grey road's pixels (PieceDetectorOptions::grey_grow_mm 0)
    bool road_white = false;       // --road-white: on art no reference matches, the roads are taken as the light's white (LightCastOptions::road_white)
    double cast_inset_mm = -1;     // --cast-inset MM: the light cast's terrains measured this far inside their regions (LightCastOptions::inset_mm;
                                   // negative: the default)
    bool ferry_cover = true;       // --no-ferry-cover: a ferry's whole footprint is judged (PieceDetectorOptions::ferry_seen_share 1)
    bool split = true;             // --no-split: no blob is cut into two touching followers (PieceDetectorOptions::split_below_fit 0)
    bool refit = false;            // --refit: a tile still clashing is taken as its best reading that fits (PhotoOptions::refit_clashing)
    bool runner_up = true;         // --no-runner-up: a clashing tile is not taken as the reader's second choice (PhotoOptions::take_runner_up)
    bool pennant_cover = true;     // --no-pennant-cover: the pennant twins are not decided again without the pieces' pixels (ReaderOptions::pennants_under_pieces)
    double min_seen_under_piece = -1; // --min-seen-under-piece S: PennantOptions::min_seen_under_piece (negative: the default)
    bool cover = vision::ReaderOptions{}.cover_pieces; // --cover / --no-cover: tiles under followers, castles and ferries are read again without the art they hide (ReaderOptions::cover_pieces)
    bool cover_needs_colour = vision::PennantOptions{}.cover_needs_colour; // --cover-by-size: the board reader reads a blob far above the board's pennants by its
                                                                           // size whatever its colour (PennantOptions::cover_needs_colour false)
    bool follower_hides_spot = vision::PennantOptions{}.follower_hides_spot; // --follower-hides-spot: PennantOptions::follower_hides_spot
    bool spot_at_rest = vision::PennantOptions{}.spot_at_rest;  // --spot-turned: PennantOptions::spot_at_rest false
    bool rank_by_silhouette = vision::PennantOptions{}.rank_by_silhouette;  // --rank-by-confidence: PennantOptions::rank_by_silhouette false
    double min_peeking_share = vision::PennantOptions{}.min_peeking_share;  // --min-peeking S: PennantOptions::min_peeking_share
    double walled_share = -1;       // --walled-share S: the board reader's ReaderOptions::min_walled_share (negative: the default)
    double rescaled_refit_cap = -1; // --rescaled-refit-cap Q: the board reader's RescaleOptions::refit_gradient_cap (negative: the default)
    double refit_cap = -1;         // --refit-cap Q: the board reader's RefineOptions::gradient_cap_quantile (negative: the default)
};
void pieces_synthetic(const std::shared_ptr<const Catalog>& catalog, vision::Difficulty preset, int n, std::uint64_t seed,
                      const std::string& dump_dir, const std::vector<std::string>& expansions = {}, const PiecesBenchOptions& bench = {});
// Prints colour accuracy under a colour cast (the light at `kelvin`, which the camera's white
// balance corrects only half-way): the daylight colour models on the raw photo, against a
// calibration (render_colour_shot under the same light, calibrate_colours) whose white balance
// and models are used, and against the daylight models adapted to the frame's own light
// (PieceDetectorOptions::adapt_to_light: the cast measured on the decoded terrains, no calibration
// shot). The tiles are the truth's (the colour stage judged apart from the reader).
void pieces_colour_cast(const std::shared_ptr<const Catalog>& catalog, vision::Difficulty preset, int n, std::uint64_t seed, double kelvin);
// Draws the followers found on every photo of `dir`/boards and `dir`/webcam_sequence into
// `out_dir` (PNG) and prints per-photo counts (and the glare veil lifted), each folder summed
// apart; skips cleanly a folder that is absent.
void pieces_real(const std::shared_ptr<const Catalog>& catalog, const std::string& dir, const std::string& out_dir, const PiecesBenchOptions& bench = {});

}  // namespace meeplecam::bench
