// Board reader (vision stages 1-4, uncalibrated): one frame in, the board's tiles out.
//
// 1. Lattice (vision/lattice.cpp): the plane homography is estimated from the tiles
//    themselves: straight edges near the board fall into two families whose vanishing
//    points give the plane's horizon (affine rectification) and its two orthogonal
//    directions; the periodic gaps between tiles give the pitch along each direction
//    (square tiles fix the aspect) and the lattice phase. The result maps camera pixels to
//    a top view at a fixed scale where lattice cell (c, r) is the square
//    [c, c+1) x [r, r+1) times the pitch.
// 2. Occupancy: the share of each cell whose colour is rare along the frame's edge
//    (the table); cells must also sit in the board's connected blob.
// 3. Classification (vision/cell_classifier.cpp): the board's own colours are clustered
//    (k-means, Lab); each terrain (field, road, city, monastery, water) gets a distribution
//    over the clusters, learned per frame by EM from the tile geometry itself (start:
//    field = the dominant cluster, road = the brightest, city = the rest). Every
//    (type, distinct rotation) of the catalog is scored by the likelihood of the cell's
//    samples under the terrain its feature_labels() expect.
// 4. Decoding (vision/board_reader.cpp): iterated conditional modes over cells: touching
//    sides must show the same edge kind, copies beyond the edition's count are penalised.
//
// Board cells and rotations are reported in the lattice frame of the top view: the
// board's true orientation is known only up to a quarter turn (a photo has no north).
#pragma once

#include <array>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <opencv2/core.hpp>

#include "engine/catalog.h"
#include "engine/error.h"
#include "vision/glare_veil.h"

namespace meeplecam::vision {

// ---- Stage 1-2: lattice and occupancy -------------------------------------------------

struct LatticeOptions {
    int work_side = 960;             // the frame is shrunk to this longer side for lines and colours (px)
    int mask_side = 480;             // ... and to this for the table/board colour mask (px)
    double border_band = 0.06;       // share of the frame along each edge whose colours are taken as table
    double not_table_ratio = 0.35;   // a colour is "not table" when this much rarer along the edge than overall
    int table_lightness_reach = 1;   // ...at its own lightness and this many coarse lightness bins (of 4) either side (glare, gradients)
    double table_share_of_median = 0; // ...and "not table" too when its edge-over-all ratio is under this share of the edge band's median
                                      // (a board running off the frame puts its colours in the edge band; 0: off)
    // When the colours do not tell the board from the table (a cloth in the tiles' colours; the whole frame is searched):
    double table_line_discount = 1.0; // per direction, the line length the frame's edge band (table only) predicts over the rest of the
                                      // frame is taken off the direction histogram, times this (0: off; a cloth's stripes outvote the tiles)
                                      // (the pairs then come best supported first: a cloth's stripes fold more sharply than the gaps)
    double pair_region_reach = 1.0 / 40; // ...and each direction pair's gaps are read, and its cells taken as occupied, within this (share
                                         // of work_side) of its own edges, not over the whole table (0: the whole frame)
    double min_board_share = 0.01;   // below this share of non-table pixels the whole frame is searched
    double min_segment = 1.0 / 40;   // shortest line segment, share of work_side
    double min_board_segment = 1.0 / 80; // ...near the board, when min_segment gives no lattice there (small tiles: their sides are short)
    double family_deg = 18;          // segments within this angle of a family's dominant direction join it
    double inlier_deg = 1.0;         // a segment agrees with a vanishing point within this angle
    int ransac_iterations = 400;     // vanishing point hypotheses per family
    double horizon_margin = 0.1;     // the horizon (through both vanishing points) must miss the board's colours by this much
                                     // (half the work frame's longer side is 1; a steep view has it just above the frame)
    double level_tilt_deg = 50;      // a view whose line families say it is tilted more than this is turned to look straight down
                                     // before the pitches are measured (90: never; tiles foreshortened by over max_aspect otherwise)
    double min_pitch_px = 12;        // smallest tile pitch looked for in the affine view (px)
    double max_pitch_px = 240;       // largest (px)
    double affine_side = 800;        // size of the affine view the pitch is measured in (px)
    double harmonic_share = 0.6;     // the shortest pitch pair correlating this share of the best wins (not a multiple)
    double axis_share = 0.4;         // ... and each of its pitches this share of its own axis's best
    double max_aspect = 1.45;        // largest ratio of the two pitches in the affine view
    double min_lattice_score = 1.6;  // fold peak over mean below this: no periodic gaps (find_lattice: no board)
    double min_candidate_score = 1.3; // ...but lattices folding from this are still candidates the reader checks against the tiles
    int pitch_alternatives = 3;      // other pitch pairs per pair of edge directions kept as candidates (doubled pitches, strong correlations)
    int max_candidates = 8;          // most candidate lattices returned by find_lattices
    double tile_mm = 45;             // tile side
    double gap_mm = 0.8;             // assumed mean gap between tiles (sets the mm scale)
    double px_per_mm = 2.0;          // scale of the top view (2: a 45 mm tile is 90 px, pennants and road stubs stay visible)
    int max_top_side = 4000;         // the top view is cropped to this (px)
    double occupied_share = 0.55;    // a cell holds a tile when this share of its inside is not table
    double cell_inset = 0.15;        // share of the pitch left out along each cell side when reading occupancy
    double min_seen_share = 0.75;    // a cell the photo's edge cuts is offered on its outline beside the board (ReaderOptions::
                                     // min_added_alignment; the view widened to it) when at least this share of its square lies inside
                                     // the photo (LatticeView::seen_share; 1: wholly inside only, as before stop 30). Its outline is measured
                                     // on the sides the photo shows (cell_alignment), its samples beyond the edge are left out of the
                                     // classifier like a piece's. A hand-held shot often cuts the board's last column; three quarters leaves
                                     // two whole sides and most of two more to frame a cell (real test_2's right column lies 0.85-0.95 in).
                                     // The refit's outline check still wants all four sides (counting the seen ones there changed which
                                     // lattice was taken: real test_2, test_7, test_20 lost their boards)
    // A calibrated table plane (calibration/table_plane.h): image px -> table mm. When set it
    // replaces the vanishing-point estimate; the tiles' turn on the table, pitch and phase
    // are still measured.
    std::optional<cv::Matx33d> image_to_table_mm;
    double board_colour_seed_share = 0.25; // keep_board_colours: when too few cells are surely aligned to teach the board's colours, the
                                        // cells this share most aligned (cell_alignment over 1) teach them and those under the median the
                                        // table's (glare-washed wood, a muted cloth: few tiles framed 1.5 times, the cells refused as too
                                        // many). The reader sets it only on lattices with more cells than the game's tiles (a whole-frame
                                        // one within the bound is a board filling the photo: real test_40 lost 3 tiles). Hard 7000- 47.00
                                        // -> 43.13 % (7000 found), hard 1000- 41.81 % (1005 found on a wrong lattice), medium and real
                                        // unchanged (hard36). 0: off (the cells stay as they are)
    bool warp_top = true;            // false: leave LatticeView::top empty (the reader warps it once, after the refit)
    bool defer_table_mask = false;   // true: leave LatticeView::not_table to make_table_mask (the reader checks few of the candidates)
    Status check() const;
};

// How a view's table mask is warped when find_lattices defers it (LatticeOptions::defer_table_mask).
struct PendingTableMask {
    cv::Mat source;       // the search's mask (its own px)
    cv::Matx33d to_top;   // source px -> top-view px
    cv::Size size;        // the top view's
};

// What a view's table mask was warped from, kept so a widened view can warp it again (widen_view).
struct TableMaskSource {
    cv::Mat source;        // the search's mask (its own px)
    cv::Matx33d to_frame;  // source px -> the frame's px (the frame image_to_top maps)
};

struct LatticeView {
    cv::Matx33d image_to_top = cv::Matx33d::eye();  // camera px -> top-view px
    double px_per_mm = 1.0;
    double pitch_px = 45.8;           // lattice pitch in the top view
    double score = 0;                 // fold sharpness of the gaps (higher: clearer lattice)
    bool strong = true;               // the preferred pitch of its edge directions, folding at least min_lattice_score
    int cols = 0, rows = 0;           // lattice cells covered by the top view
    cv::Mat top;                      // CV_8UC3 top view
    bool top_near_cells = false;      // `top` was warped only near the tiles, black beyond (RefineOptions::warp_near_cells)
    cv::Mat not_table;                // CV_8UC1 top view: 255 where the colour is unlike the table
    std::shared_ptr<const PendingTableMask> pending_table_mask;  // while not_table is deferred (make_table_mask makes it)
    std::shared_ptr<const TableMaskSource> table_mask_source;    // once made: what not_table came from (none: widen_view pads it as table)
    bool whole_frame = false;         // the table could not be told from the board (board fills the frame)
    bool table_in_tile_colours = false; // the table's colours could not be told from the tiles' (a cloth in the tiles' own colours:
                                        // LatticeOptions::min_board_share), so the table mask took the cells near the lattice's edges
    cv::Size frame;                   // the camera frame's size

    cv::Point2d cell_centre(int col, int row) const { return {(col + 0.5) * pitch_px, (row + 0.5) * pitch_px}; }
    // Whether the top-view point (x, y), in cells from the view's origin, lies inside the camera frame.
    bool in_frame(double x_cells, double y_cells) const;
    // Whether the top-view point (x, y), in cells, lies inside the camera frame and the top view's own
    // rectangle (cols x rows cells): a pixel there was seen.
    bool seen(double x_cells, double y_cells) const;
    // The share of cell (col, row)'s square, moved by `offset_px` (top-view px), that was seen (`seen`, on a
    // grid of 8 x 8 points): 1 for a cell wholly inside the photo, less where the photo's edge cuts it.
    double seen_share(int col, int row, cv::Point2d offset_px = {0, 0}) const;
};

struct CellObservation {
    int col = 0, row = 0;
    double occupancy = 0;
    cv::Point2d offset_px{0, 0};  // where the tile's centre sits from the cell's centre (top view px; refine_lattice)
    bool teaches = true;          // false: read, but not learnt from (a cell offered on its outline alone; classify_cells)
    bool across_gap = false;      // offered across a one-cell gap (ReaderOptions::min_across_gap_alignment), or grown from such cells alone
};

// The number of lattice cells of side `pitch` from the one holding `lo` to the one holding `hi`,
// at most `max_cells`; 0 when the extent is empty, NaN or starts at infinity (a degenerate
// plane estimate). Never converts an out-of-range double to int.
int lattice_cells(double lo, double hi, double pitch, int max_cells);
// Estimates the plane and lattice from the tiles alone. Errors: empty image, "no board
// found" (no two line families, no periodic gaps).
Result<LatticeView> find_lattice(const cv::Mat& image, const LatticeOptions& options = {});
// The candidate lattices, best first: every pair of edge directions gives its preferred pitch
// pair and up to `pitch_alternatives` others (the pitch doubled per axis, other strong
// correlations); those folding at least min_lattice_score as preferred come first, sharpest
// first, then the rest down to min_candidate_score (when the colours fail: the direction pairs
// the discounted edge lengths support best first, LatticeOptions::table_line_discount). Searched near the board's colours, or in
// the whole frame (`whole_frame`). find_lattice returns the first when it is strong. Errors
// as find_lattice.
// What the searches of one frame share (the reader searches a frame near the board, then maybe
// in the whole frame or with shorter segments): the frame's shrunk copies, table mask and
// line segments, made once per image and options that shape them.
struct LineSearchCache;
Result<std::vector<LatticeView>> find_lattices(const cv::Mat& image, const LatticeOptions& options, bool whole_frame,
                                               std::shared_ptr<LineSearchCache> cache = nullptr);
// The candidate lattices as find_lattices finds them near the board, with `board` (CV_8UC1,
// the image's size; the cells a lattice took, say) as the board: only its edges vote for the
// directions and its gaps for the pitch. The table mask stays the colours' unless they told no
// board; then it is `not_table` (CV_8UC1, the image's size), or `board` when that is empty.
// Errors as find_lattices, and a mask not of the image's size.
Result<std::vector<LatticeView>> find_lattices_within(const cv::Mat& image, const LatticeOptions& options, const cv::Mat& board,
                                                      const cv::Mat& not_table, std::shared_ptr<LineSearchCache> cache = nullptr);
// A cache for find_lattices (empty until a search fills it).
std::shared_ptr<LineSearchCache> make_line_search_cache();
// The board's colours (not-table mask, LatticeOptions::mask_side px on its longer side) as
// find_lattices reads them in `image` with `options`, through `cache` (filled for them).
cv::Mat board_colour_mask(const cv::Mat& image, const LatticeOptions& options, LineSearchCache& cache);
// Makes a view's deferred table mask (LatticeOptions::defer_table_mask); nothing when it has one.
void make_table_mask(LatticeView& view);
// The bounding box (image px) of the board's colours as find_lattices reads them (colours
// rare along the frame's edge; specks under a tenth of the largest blob left out). Empty when
// the colours do not tell a board from the table.
cv::Rect board_bounds(const cv::Mat& image, const LatticeOptions& options = {});
// The occupied cells of a lattice view.
std::vector<CellObservation> occupied_cells(const LatticeView& view, const LatticeOptions& options = {});
// The board's 4-connected groups of cells: the largest, and others of at least 4 cells and a
// fifth of its size (the tiles of a board touch, but occupancy can split a board where tiles
// look like the table).
std::vector<CellObservation> largest_group(std::vector<CellObservation> cells);

// ---- Stage 2a: a candidate's pitch measured again on its own top view -------------------

struct RescaleOptions {
    bool enabled = true;
    double min_change = 0.03;     // an axis whose tile sides fold at a pitch this share off the candidate's is rescaled...
    double max_change = 0.3;      // ...looked for within this share of it (a half or double pitch is another candidate's job)
    double min_fold = 1.5;        // ...when its fold (peak bin over mean) is at least this sharp
    double work_px_per_mm = 1.0;  // measured on a top view at this scale
    double refit_gradient_cap = 0.9; // a rescaled lattice not framed surely is refitted again with RefineOptions::gradient_cap_quantile
                                     // at most this, and taken so when that frames it surely (1: not tried): the candidates measured
                                     // again here often sit on the tiles' middles at first, where followers stand (fin37)
    int max_candidates = 4;       // read_board: when no candidate framed its cells surely, the plausible ones with the most
                                  // evidence are measured again, at most this many, and the first rescaled one framing its cells surely is taken
    bool clear_when_unshown = true; // ...or, when the lattice chosen so far frames no cells (the fold's fallback), the rescaled one with the
                                    // most evidence among those framing theirs clearly (ReaderOptions::min_tile_contrast over
                                    // min_checked_tiles cells; false: sure ones only, as before syn21)
    Status check() const;
};

// A candidate at a multiple of the tiles' pitch (each cell two tiles, or one and a half, along an
// axis): its own top view's tile sides fold as sharply at a fraction of its pitch as at the pitch.
struct SubdivideOptions {
    bool enabled = true;
    double min_share = 0.3;       // finer periods looked for from this share of the candidate's pitch...
    double max_share = 0.8;       // ...to this (a half, a third, two thirds)
    double own_reach = 0.03;      // the candidate's own fold: the sharpest within this share of its pitch (pitches are a little off)
    double min_ratio = 0.8;       // an axis is subdivided when its finer fold is at least this share of its own...
    double min_fold = 1.5;        // ...and at least this sharp (peak bin over mean)
    double work_px_per_mm = 1.0;  // measured on a top view at this scale
    double max_tiles_share = 1.1; // read_board: a subdivided lattice is taken only with at most this share of the game's tiles in cells
                                  // (a true lattice halved along an axis whose tiles' middles carry roads frames them too, on twice the cells;
                                  // candidates over max_share of it are not measured: cut finer they would hold more)...
    double min_covered_share = 0.8; // ...and with a cell's centre in at least this share of the coarser lattice's cells (each held two or
                                    // more tiles: cut finer, every one keeps some; a halved true lattice on part of the board covered 62 %
                                    // of the true one's cells: real test_00)...
    double min_precheck_covered_share = 0.7; // ...this share before its refit, on the cells as subdivided (they drift off the tiles a little)
    bool by_classification = true; // read_board: when the lattice taken is unsure (the choice by classification runs), its subdivided variants
                                   // are checked and offered to that choice too, framed or not (ReaderOptions::min_unary_gain): real tiles' art
                                   // runs across their seams, so the true lattice can frame its cells no more clearly than one 1.5 tiles a row
                                   // (real test_49), while the classifier's roads continue across its cells only (offered only against a
                                   // lattice whose own road share was measured: min_side_pairs road sides)
    Status check() const;
};

// A lattice at half the tiles' pitch along one axis (each tile seen as two cells across): a product
// shot's top view, foreshortened wrongly, squeezes the tiles 1:2 (real test_0). The outlines cannot
// tell it (a half-pitch lattice's squares half its pitch away lie a quarter tile in, where nothing is
// framed, so it frames its cells more clearly than the true one); the classifier's roads can: cells
// cut across tiles fit no catalog tile and their roads stop at the cell sides.
struct CoarsenOptions {
    bool by_classification = true; // read_board: when the lattice taken is unsure (the choice by classification runs and keeps it),
                                   // its coarser variants (pairs of columns or of rows merged, both phases) are checked and one may replace it
    double min_tile_contrast = 1.6; // a variant must frame its cells at least this clearly (tile_contrast; on a true lattice merged, the
                                    // squares half its pitch away lie on tile seams too)...
    double min_held_share = 0.9;   // ...keep this share of the finer lattice's cells inside its own...
    double min_cells_share = 0.35; // ...and at least this share of their count (two fine cells a coarse one: about half)...
    double min_featured_gain = 0.15; // ...and its cells' best hypotheses agree across sides showing a road or city this much more often
                                     // than the finer lattice's...
    int min_side_pairs = 5;          // ...over at least this many such sides each (a dozen tiles laid out in a game touch along few sides)
    Status check() const;
};

// The coarser variants of `view`: pairs of its columns merged (both phases: from column 0 or 1),
// then pairs of its rows; the pitch kept, the table mask warped again, the top view left to the check.
std::vector<LatticeView> coarsened_lattices(const LatticeView& view);

// The candidate lattice `view` with each axis's pitch and phase measured again on its own top
// view: mean |gradient| across the axis over the board's colours (LatticeView::not_table, grown
// by half a tile) folded within max_change of the pitch. A busy cloth in the tiles' colours can
// give find_lattices a pitch several percent off (its stripes fold too), and the cells then drift
// off the tiles faster than the refit follows. nullopt when neither axis changes by min_change
// (or nothing to measure).
std::optional<LatticeView> rescaled_to_tiles(const cv::Mat& image, const LatticeView& view, const RescaleOptions& options = {});

// The candidate lattice `view` subdivided where it sits at a multiple of the tiles' pitch: each
// axis whose tile sides (as rescaled_to_tiles measures them) fold at a finer period about as
// sharply as at its own pitch may take that period. The variants, both such axes first, then
// each alone; none when no axis folds so (the reader checks them against the tiles).
std::vector<LatticeView> subdivided_to_tiles(const cv::Mat& image, const LatticeView& view, const SubdivideOptions& options = {});

// ---- Stage 2b: lattice refined on the tiles -------------------------------------------

struct RefineOptions {
    double search = 0.3;          // farthest a tile's outline is looked for from its cell's centre (share of the pitch)
    int band_px = 3;              // a tile side may lie this many top-view px across its expected line
    double min_side_share = 0.15; // a cell keeps its tile when its weakest side's edges reach this share of the board's median
    int rounds = 3;               // refits of the lattice homography on the tile centres...
    int first_radius = 3;         // ...the first on the cells within this many cells of the board's middle, doubling each round, the last on all
    double max_residual = 0.12;   // RANSAC inlier distance, and the largest offset kept per tile (share of the pitch)
    double min_inlier_share = 0.5;   // a refit is kept when at least this share of the tiles agree with it
    int slower_rounds = 2;           // a refit round (after the first) that too few tiles agree with is tried again on the cells halfway
                                     // out from the last fit, at most this many times per refit (a horizon a little off: cells drift
                                     // past max_residual a few cells out); 0: the refit stops there
    double candidate_share = 0.25;   // after the refit, cells this much unlike the table are candidates...
    double weak_colour_factor = 3.0; // ...and those below LatticeOptions::occupied_share need an outline this many times min_side_share
    double work_px_per_mm = 1.0;     // the refit works on a top view at this scale (from a shrunk frame); the final top view keeps px_per_mm
    double gradient_cap_quantile = 1.0; // the refit rounds' outline search sees |gradient| capped at this quantile of its own (per axis, over
                                        // the cells measured; 1: not capped): a follower's dark, saturated outline on a tile's middle then
                                        // pulls a square no more than a tile side does (kept tiles and tile_contrast read it uncapped)
    bool warp_near_cells = false;    // true: the final top view is warped only within a pitch (and the search) of the tiles kept, black
                                     // beyond (what tile_contrast, cell_alignment and keep_board_colours read; the reader's candidate
                                     // checks, which warp the chosen lattice's view in full); false: all of it
    bool integrate_read_lines_only = true;  // the outline search's edge sums made only on the top view's rows and columns it reads
                                            // (the same doubles there: the same readings; at the default search about 40 % of the
                                            // final view's lines, 75-80 % of the coarse refit's); false: on all
    Status check() const;
};

// Moves the lattice by `shift` top-view px (each cell's square moves with it) and warps the
// top view (when there is one) and its table mask again.
void shift_lattice(const cv::Mat& image, LatticeView& view, cv::Point2d shift);

// Cells a view is widened by on each side (widen_view).
struct ViewMargin {
    int left = 0, top = 0, right = 0, bottom = 0;
    bool empty() const { return left == 0 && top == 0 && right == 0 && bottom == 0; }
};

// Adds `margin` cells to the view on each side (cells keep their squares: a cell's col and row
// grow by margin.left and margin.top). The table mask is kept where the view was and warped
// from its source beyond (LatticeView::table_mask_source; without one the new cells are
// table); the top view, when there is one, is warped again from `image`. Assumes the view's
// lattice is final: the refit is not run.
void widen_view(const cv::Mat& image, LatticeView& view, const ViewMargin& margin);

// Finds each occupied cell's tile outline, refits the plane homography on the tile centres
// (RANSAC) on a coarse top view, stores each tile's residual offset and drops cells whose
// outline is missing on a side (not a tile); then warps the full-resolution top view (also
// when `view.top` was left empty; only near the tiles with RefineOptions::warp_near_cells).
// Errors only for bad options.
Status refine_lattice(const cv::Mat& image, LatticeView& view, std::vector<CellObservation>& cells, const LatticeOptions& lattice,
                      const RefineOptions& options = {});

// A frame and its copy shrunk for refine_lattice's coarse rounds, made on first use and shared
// by every candidate refitted on the frame (the reader checks several). Holds a reference to
// the frame: it must outlive this.
class RefitFrame {
public:
    explicit RefitFrame(const cv::Mat& image) : image_(image) {}
    const cv::Mat& image() const { return image_; }
    // The frame shrunk by `k` (pixel areas averaged), or the frame itself for k >= 1.
    const cv::Mat& shrunk(double k) const;

private:
    const cv::Mat& image_;
    mutable double k_ = 0;  // the scale of shrunk_ (0: none made)
    mutable cv::Mat shrunk_;
};

// refine_lattice on a frame whose shrunk copy is shared with other candidates.
Status refine_lattice(const RefitFrame& frame, LatticeView& view, std::vector<CellObservation>& cells, const LatticeOptions& lattice,
                      const RefineOptions& options = {});

// How the tiles' square outlines sit on a lattice's cells. `sides`: the median over cells of
// the weakest side's edge response of the cell's square (tile offsets included); `shifted`:
// the same for the squares moved half a pitch across x, y and both, the strongest of the
// three (on the true lattice their sides cross the tiles' middles; on a lattice at twice or
// half the pitch, or on table stripes, they are about as strong as the cells'). `best_shift`
// (top-view px) is where the outlines are strongest: (0, 0) when the cells themselves.
struct TileContrast {
    double sides = 0, shifted = 0;
    cv::Point2d best_shift{0, 0};
    double ratio() const { return shifted > 0 ? sides / shifted : 0; }
};
// Measured on view.top (shrunk to about 1 px/mm). An empty result for no cells or no top view.
TileContrast tile_contrast(const LatticeView& view, const std::vector<CellObservation>& cells, const LatticeOptions& lattice);

// Per cell, how much more its tile's square outline stands out than the squares half a
// pitch away (tile_contrast's ratio, cell by cell; 0 without a top view). On a true lattice a
// tile scores well above 1; a cell of table (wood grain, a cloth's stripes, glare) about 1,
// since nothing on the table follows the lattice. A cell the photo's edge cuts (LatticeView::
// seen_share under 1) is measured on the sides the photo shows, two at least (0 otherwise).
std::vector<double> cell_alignment(const LatticeView& view, const std::vector<CellObservation>& cells, const LatticeOptions& lattice);

// The cells whose colours are the board's, when occupancy took table for tiles (glare on
// wood, a cloth of the tiles' colours: more cells than the game has tiles). The board's
// colours are learnt from the cells clearly aligned with the lattice (cell_alignment), the
// table's from those not aligned; each cell goes to the likelier, and the largest group stays.
// Returns the cells unchanged when too few cells teach either.
std::vector<CellObservation> keep_board_colours(const LatticeView& view, const std::vector<CellObservation>& cells, const LatticeOptions& lattice);

// ---- Stage 2c: light evened out ------------------------------------------------------

struct LightOptions {
    bool enabled = true;
    double window_tiles = 3.0;  // the board's local brightness is averaged over about this many tiles
    double max_glare = 0.7;     // largest share of white removed where the board is brighter than its median
    double max_gain = 2.5;      // largest brightening where it is darker
    Status check() const;
};

// Evens out glare and light gradients across the board in the top view (in place).
void even_out_light(LatticeView& view, const std::vector<CellObservation>& cells, const LightOptions& options = {});

// ---- Stage 3: per-cell hypotheses -----------------------------------------------------

// kOther: samples whose terrain the geometry does not pin down (around a monastery,
// junction villages); their model is the frame's overall colour mix.
// kTable: the table between and around the tiles (learnt from the lattice's empty cells).
enum Terrain : int { kField = 0, kRoad, kCity, kCloister, kWater, kOther, kTable, kTerrains };

struct ClassifierOptions {
    int samples = 28;             // samples per tile side (samples^2 per cell)
    double sample_inset = 0.06;   // share of the tile left out along each side (jitter, gaps)
    int clusters = 10;            // k-means colour clusters per frame
    int em_rounds = 16;           // most EM rounds adapting the terrain model to the frame (stops when no cell changes)
    double prior_count = 2.0;     // Dirichlet smoothing of terrain/cluster counts
    double temperature = 0.1;     // log-likelihoods are scaled by this (samples are not independent)
    std::uint64_t seed = 7;       // k-means seed
    int table_reach = 2;          // empty lattice cells within this many cells of a tile teach the table's colours...
    double empty_margin = 0.0;    // ...and a cell whose samples the table explains better than any tile (by this log-likelihood per sample) is dropped;
    double tile_coloured_table_margin = 0.4; // on a view whose table is in the tiles' colours (LatticeView::table_in_tile_colours: occupancy
                                             // took the table's squares there for tiles), already when the table explains them within this
                                             // much less than empty_margin (log-likelihood per sample) of the best tile: a square of a cloth
                                             // in the tiles' field colour with the cloth's other stripes across it (0: as elsewhere)
    double hidden_margin = 1.4;   // a cell whose best layout fits its samples this much worse (mean log-likelihood per sample) than the board's median cell is hidden (a hand, an arm;
                                  // 0.9 reported 20 visible tiles hidden on medium seeds 1000-, 5000-, 1.4 five, and 2 of 4 covered ones)
    double bridge_band = 0.3;     // under a bridge, samples this close (tile fraction) to its axis are left out (the bridge, its shadow and its lean)
    double unbridged_penalty = 12.0; // score lost by reading a cell with a bridge found on it as bare (the bridge found was none, or not there)
    double cover_margin = 0.03;   // around a piece covering art (CoverOnBoard), samples this close (tile fraction) to its outline are left out too (its shadow)
    double min_arm_road = 0.3;    // a road arm whose samples lie in road-like colour clusters less than this share...
    double arm_penalty = 0.0;     // ...costs its layout up to this score (0: off, since the road-side check below took its place; it was 3:
                                  // printed roads wander off the arm, and bushes on the grass pass for road-like)
    double road_side_depth = 0.3; // judge a side by the sample rows this deep from it (tile fraction)...
    double road_side_reach = 0.15; // ...each showing road when a sample of the road's own colour lies this close to the side's middle
                                   // (a tile fraction either way: printed roads wander; cell_classifier.cpp)
    double min_road_side = 0.5;   // a layout's road side showing road on fewer of those rows than this share...
    double max_field_side = 0.8;  // ...or its field side on more...
    double road_side_penalty = 10.0; // ...costs it up to this score per side (0: off)
    double road_arm_colour_spread = 20.0; // one road is printed in one colour: a layout's road arm whose colour (each of its samples' nearest
                                          // to the road's colour within road_arm_slack samples, averaged; Lab, lightness halved) lies
                                          // this far from its other arms' colour...
    double road_arm_colour_weight = 0.0;  // ...costs this score per Lab unit beyond, times sqrt(the arm's share of the cell's samples) (0: off;
                                          // 12 reads the farmstead bends of the rendered test, but costs medium 13011 a junction and real
                                          // sides 2: docs/vision-journal.md, Arm33 round)
    int road_arm_slack = 2;               // ...(samples either way: printed roads wander off the layout's arm)
    bool printed_variants = true; // also fit the printed art's region maps (tile_art.h printed_geometry_variants: thin field caps,
                                  // corner walls bowed to the corner, road bends as two arms to the centre); false: the renderer's only
    double variant_penalty = 1.0; // ...a variant's score gives up this much against the renderer's map (a variant wins only when clearly better)...
    double printed_min_share = 0.25; // ...and the variants stay only when they fit best on this share of the cells whose (type, rotation) has them
                                     // (a printed-like frame; renders: 0-10 %, real photos 34-77 %); the model is learnt without them either way
    bool swapped_restart = true;  // a terrain model whose city is greener than its field is learnt again from the greenest colour
                                  // with the city started on the road's colour too (art whose cities and roads share one colour)
    bool grass_restart = true;    // a learnt city holding a cluster whose chroma is the field's (cell_classifier.cpp, grass_held_by_city) is learnt
                                  // again with that cluster moved to the field, kept when it explains the frame better
    bool grass_nearest_field = true; // of several such clusters, the one whose chroma lies nearest the field against the city's other
                                     // clusters (false: the one the city holds most, which took a grey city for grass on medium 13012)
    Status check() const;
};

// A bridge lying on a cell (Bridges, Castles and Bazaars): it hides the middle of the tile
// along its axis, and the tile's sides at its ends show road to their neighbours.
struct BridgeOnCell {
    int col = 0, row = 0;
    int axis = 0;  // 0: north-south, 1: east-west (reading frame)
};

// A piece lying or standing on the board (a follower, a castle, a ferry) that hides the art
// under it from the camera: the part of the tile plane its silhouette covers, as a polygon in
// the top view (LatticeView pixels).
struct CoverOnBoard {
    std::vector<cv::Point2f> outline_top;
};

struct Hypothesis {
    int type = -1;   // index into Catalog::tiles()
    int rot = 0;     // quarter turns clockwise
    double score = 0;  // tempered log-likelihood (higher is better)
    bool bridged = false;  // the cell's bridge (CellHypotheses::bridge_axis) lies on it: its sides at the bridge's ends show road
};

// One tile type per cell, every distinct rotation, best first.
struct CellHypotheses {
    int col = 0, row = 0;
    cv::Point2d offset_px{0, 0};  // the tile's offset from its cell (CellObservation)
    double fit = 0;               // the best layout's mean log-likelihood per sample
    bool hidden = false;          // no layout explains the cell (something covers the tile): its hypotheses are a guess
    int bridge_axis = -1;         // a bridge was found across the tile (BridgeOnCell::axis); -1: none
    std::vector<Hypothesis> hyps;
};

// Terrain labels (kField..kOther) of a tile type (kPennant: a city sample of a city with
// pennants, read as a mixture of city and pennant colours wherever the pennant sits) at a rotation, samples x samples, row-major.
std::vector<std::uint8_t> terrain_layout(const TileType& type, int rot, int samples, double inset);

// Scores every (type, rotation) of `catalog` for every cell. The frame's colour clusters and
// terrain model are learnt from the cells that teach (CellObservation::teaches) and the table
// around them; the others are only scored (a cell offered on its outline alone leaves the
// model, and so every other cell's reading, as it was). Cells that look like the table
// around the board rather than any tile (a flower on a cloth in a hole of the board, whose
// four sides all show edges) are left out of the result. A cell with a bridge on it
// (`bridges`) is read without the samples under the bridge (ClassifierOptions::bridge_band);
// its (type, rotation)s whose sides at the bridge's ends are field are listed with the bridge,
// and every (type, rotation) without it, less ClassifierOptions::unbridged_penalty. Samples
// under a piece (`covers`, with ClassifierOptions::cover_margin around it) are left out: they
// neither teach the colours nor count for any (type, rotation).
std::vector<CellHypotheses> classify_cells(const LatticeView& view, const std::vector<CellObservation>& cells,
                                           const Catalog& catalog, const ClassifierOptions& options = {},
                                           const std::vector<BridgeOnCell>& bridges = {}, const std::vector<CoverOnBoard>& covers = {});

// ---- Stage 4: joint decoding --------------------------------------------------------

struct DecoderOptions {
    double mismatch_penalty = 12.0; // score lost per touching side whose edge kinds differ
    double excess_penalty = 3.0;    // score lost per copy beyond the edition's count
    double count_prior = 1.0;       // weight of log(copies in the edition): common tiles win ties
    int max_sweeps = 10;            // ICM sweeps
    int pair_moves = 3;             // rounds of pair moves (two touching cells whose sides clash, changed at once) after the sweeps; 0: off
    std::string edition = "C3";     // tile counts
    Status check() const;
};

struct DecodedTile {
    int col = 0, row = 0;
    cv::Point2d offset_px{0, 0};   // the tile's offset from its cell centre in the top view (px)
    int type = -1, rot = 0;        // chosen hypothesis
    double confidence = 0;         // its probability given its neighbours (softmax of scores)
    int runner_type = -1, runner_rot = 0;  // the best other hypothesis
    double runner_confidence = 0;
    bool hidden = false;           // something covers the tile (a hand): type and rotation are a guess from its neighbours
    int bridge_axis = -1;          // the tile was read under a bridge (BridgeOnCell::axis): its sides at the bridge's ends show road; -1: none
    bool teaches_plain_city = true; // false: the pennant reader learns no plain city from it (a cell read across a gap, CellObservation::across_gap)
};

// Chooses one hypothesis per cell; neighbours are cells one lattice step apart. A hidden cell
// is guessed from its neighbours but does not constrain them. A bridged hypothesis
// (Hypothesis::bridged) shows road at the bridge's ends; a cell whose bare hypothesis wins
// gets bridge_axis -1 (the bridge found there fits no tile among its neighbours).
std::vector<DecodedTile> decode_board(const std::vector<CellHypotheses>& cells, const Catalog& catalog,
                                      const DecoderOptions& options = {});

// ---- Stage 4b: pennants -------------------------------------------------------------

// Pennants are too small and sit in too many places (per tile set) for the layouts, so
// types that differ only in pennants (M/N, O/P, ...) are told apart afterwards: the colours
// of plain city in this frame are learnt from the cells read as a pennantless city type;
// a compact blob of colour unlike them inside a cell's city, not far smaller than the
// board's other such blobs, is a pennant. One board's pennants are printed alike, so once
// enough blobs show, their colour is learnt too: a blob far from it is a roof or a follower,
// and a smaller blob of that colour is still a pennant. On a blurred board (few such blobs)
// the twin cells are split by how far their city's most deviating patch stands out from its fill.
struct PennantOptions {
    double wall_margin = 0.06;     // city pixels this close (share of the tile) to another feature or the tile edge are left out
    int lightness_bins = 8;        // Lab histogram of plain city: bins along L (coarse: light gradients)...
    int chroma_bins = 32;          // ...and along a* and b*
    double novel_density = 2e-4;   // a colour is unlike plain city below this share of its pixels (after smoothing the histogram)
    double min_area = 0.0015;      // a pennant: a blob of such colour covering at least this share of the tile...
    double max_area = 0.15;        // ...and at most this (bigger: glare or a hand, undecided)
    int min_reference_cells = 3;   // fewer pennantless city cells: plain city is learnt from every city cell
    double min_fill = 0.25;        // a blob counts only when compact: its pixels fill this share of the square on its longest side
                                   // (pennants 0.4-0.8; the thin band of a wall the art draws off the catalog geometry, under 0.1)
    double size_share = 0.3;       // ...and at least this share of the board's pennant size (the median blob of the cells that reach min_area)...
    int min_sized_pennants = 3;    // ...when at least this many cells reach min_area (fewer: min_area alone)
    double max_pennant_area = 0.05; // a blob above this share of the tile is no printed pennant (about 0.01: a shield of TileStyle::
                                   // pennant_size 0.12; the art's largest, 0.25, about 0.04) but a follower or a patch of city the
                                   // plain-city reference missed: it counts neither toward the board's pennant size nor toward its
                                   // pennant colour, which take each twin cell's largest blob within [min_area, this] instead; a
                                   // cell's own decision still reads its largest blob (covering_size). 0: off, each cell's largest
                                   // blob (0.05 with ReaderOptions::min_across_gap_alignment 1.6: real test_14 27.5 -> 20.0 %, two
                                   // yellow followers of 0.14 had moved the size 0.009 -> 0.136 and the colour to theirs; on alone,
                                   // medium 7000- 9.14 -> 9.21 %, one tile of 7004, a board read off its lattice; pen34 round)
    int min_coloured_pennants = 3;  // the board's pennant colour is learnt (median Lab of the blobs reaching the threshold) when this many do (0: never)...
    double colour_lightness_weight = 0.5;  // ...colour distances weigh L by this against a* and b* (light gradients move L most)...
    double min_colour_radius = 20;  // ...a blob is of the pennants' colour within this distance (Lab units)...
    double colour_radius_spread = 1.5;  // ...or this many times the learnt blobs' median distance from their colour, when larger (real
                                        // test_07: pennants 3-35 units off, specks 77-82; at 3 times, 93 units, the specks passed)...
    double coloured_share = 0.35;  // ...then a blob of that colour reaching this share of the threshold is a pennant, and a blob of
                                   // another colour is not (medium seeds: pennants 0-17 from the colour, roofs and followers 24-74)...
    double covering_size = 2;      // ...unless it is this many times the board's pennant size: something covers the city (a follower
                                   // on the pennant, a hand), and the blob is read by its size alone...
    bool cover_needs_colour = true;  // ...when it is of the pennants' colour: a covering blob of another colour (a follower in a player's
                                     // colour standing in a city) shows no pennant, and the city's blobs of the pennants' colour decide as
                                     // on any cell (false: read by its size whatever its colour, pennant13; real labelled 15.6 -> 15.2 %,
                                     // test_14's yellow follower in a plain N; rendered finished games, the reader alone: medium 1000-
                                     // 79 -> 77 tiles wrong, 5000- 31 -> 24; real35 round)...
    bool follower_hides_spot = false; // ...and the share of the cell's pennant spot (pennant_points: where the art prints a city's first
                                      // pennant) such a follower's blob covers counts as hidden (PennantEvidence::hidden), so
                                      // within_copies may give the tile its pennant twin. Off: real shields are not printed at that spot
                                      // (real labelled 15.2 -> 15.6 %, test_14's N read M again through the counts; rendered finished
                                      // games 77 -> 76 and 24 -> 23 tiles wrong, where the renderer stands followers where it prints pennants)
    bool spot_at_rest = true;        // the pennant spot (PennantEvidence::hidden, follower_hides_spot) is found on the city at rest and
                                     // turned with the tile, as the art prints it (false: found on the turned city: a wide city's ridge
                                     // ties, and the first maximum in raster order falls at its other end on a turned tile, so a
                                     // follower standing on the printed pennant was counted as hiding nothing; twin39 round)
    double max_blurred_share = 0.1;  // a board is blurred when fewer than this share of its twin cells show a blob reaching min_area; then...
    double deviation_box = 0.06;   // ...a city's patches this wide (tile share) are compared with its median chroma...
    int min_split_cells = 8;       // ...and with at least this many twin cells (about half carry pennants: 8 with no blob at all is blur, not chance).
    double min_split_ratio = 1.6;  // ...split in two groups whose mean deviations differ this much: the upper group has pennants
    double min_seen = 0.75;        // a cell on the top view's rim is read when this share of its city shows (else left to the decoder)
    double min_seen_under_piece = 0.25; // a cell whose city the pieces (CoverOnBoard) hide is read on the rest when this share of its city
                                        // shows, else as seen (a follower standing on the pennant read by its size, covering_size). At
                                        // min_seen, as before: a knight over a quarter of a city had it read as seen, its blob a pennant
                                        // (medium 1000-, 5000-: 0.25 and 0.5 measured alike)
    double bridge_band = 0.3;      // in a tile under a bridge (DecodedTile::bridge_axis), pixels this close (tile fraction) to its axis are left out
                                   // (wider than the classifier's: the bridge's shadow on a city is a blob unlike plain city)
    double cover_margin = 0.03;    // around a piece covering art (CoverOnBoard), pixels this close (tile fraction) to its outline are left out too (its shadow)
    bool within_copies = true;     // a twin read on more tiles than the edition holds, its other twin on fewer, gives surplus tiles whose
                                   // evidence is missing to the other (keep_twins_within_copies: a knight hiding a pennant; false: off)
    double min_peeking_share = 0.02; // ...and a tile read without its pennant whose spot's surroundings show at least this share of the
                                     // pennants' colour beside a piece (PennantEvidence::peeking) gives way too, first, even when decided
                                     // (0: off)...
    bool rank_by_silhouette = true; // ...and among tiles whose spots the pieces hide alike, the one whose spot's surroundings the pieces'
                                    // own silhouettes hide most gives way first (PennantEvidence::hidden_around; false: the least sure
                                    // first: a knight beside a plain city's spot and one on a pennant were told apart by confidence only)
    Status check() const;
};

// The pennant evidence read in one cell.
struct PennantEvidence {
    int col = 0, row = 0;
    double blob_area = 0;   // share of the tile covered by the largest blob unlike plain city
    bool decided = false;   // false: no pennant twin, or the blob was too big to trust
    bool pennant = false;
    double deviation = 0;   // a*b* distance of the city's most deviating patch from its median (only on blurred boards, see PennantOptions)
    double coloured_area = -1;  // share of the tile covered by the largest blob of the board's pennant colour (-1: no colour learnt)
    double hidden = 0;      // share of its pennant spot (where the art puts a first pennant, pennant_points) the pieces hide, or a
                            // blob of a follower's size not of the pennants' colour covers (PennantOptions::follower_hides_spot)
    double hidden_around = 0;  // share of a disc 1.5 times the pennant spot's width around it the pieces' silhouettes hide, without
                               // cover_margin (PennantOptions::rank_by_silhouette: which of two wholly hidden spots hides more of a pennant)
    double peeking = 0;        // share of that disc, outside the silhouettes, of the board's pennant colour (only under pieces, with a colour
                               // learnt): a pennant peeking out from under a follower (PennantOptions::min_peeking_share)
};

// Re-chooses, among types that differ only in pennants, the one the pennant evidence of
// each cell supports; updates type, confidence and runner-up in place. Pixels under a piece
// (`covers`, with PennantOptions::cover_margin) are no evidence: a follower in a city is no
// pennant, and a cell whose city it mostly hides is left to the decoder. Returns the evidence.
std::vector<PennantEvidence> decide_pennants(const LatticeView& view, std::vector<DecodedTile>& tiles, const Catalog& catalog,
                                             const PennantOptions& options = {}, const std::vector<CoverOnBoard>& covers = {});

// Keeps each pair of pennant twins within the copies of `edition`: when one twin is read on more
// tiles than the game holds and the other on fewer, the crowded twin's tiles whose pennant
// evidence is missing (undecided, or their pennant spot at least half hidden by pieces) take the
// other twin, the most hidden first (with `rank_by_silhouette`, spots hidden alike by how much of
// their surroundings the silhouettes hide, PennantEvidence::hidden_around), then the undecided, then
// the least sure, as many as both counts allow; a tile whose pennant was seen and decided never
// gives way, unless read without a pennant whose colour peeks out beside a piece (PennantEvidence::peeking
// at least `min_peeking_share`, 0: never; such tiles give way first). `evidence` is decide_pennants's for `tiles` (of another size: every tile may give way,
// the least sure first). Returns the number of tiles changed.
int keep_twins_within_copies(std::vector<DecodedTile>& tiles, const std::vector<PennantEvidence>& evidence, const Catalog& catalog,
                             const std::string& edition, bool rank_by_silhouette = true, double min_peeking_share = 0);

// ---- The whole reader -----------------------------------------------------------------

// What the reader does with a glare spot (vision/glare_veil.h: one fitted spot, falling off on
// every side). Lifted, a spot's washed-out tiles and gaps come back, but on a light plain table
// the lifted table turns tile-brown and passes for tiles (docs/vision-journal.md, "Glare rounds").
enum class GlareLift {
    off,            // read the frame as seen
    always,         // lift a found spot's veil off the frame and read only that
    when_stronger,  // where a spot is found, read the frame as seen and lifted, and keep the stronger reading (lifted_reading_stronger)
};

// The lattice taken searched again on its own cells (find_lattices_within): when the table's lines
// (a cloth's stripes, plank seams) run near one of the tiles' edge directions they join its
// family and pull its vanishing point off, and the board comes out sheared or turned across the
// view. On the cells alone only the tiles' edges vote.
struct ReframeOptions {
    bool enabled = true;        // read_board: when no lattice framed its cells surely (ReaderOptions::sure_tile_contrast)
                                // (on since stop 34: medium 7000- 9.14 -> 6.80 %, 13000- 9.10 -> 9.17 %, real labelled unchanged; lat34)
    double cell_margin = 0.25;  // each cell's square grown by this share of the pitch on each side (the gaps round it)
    double table_margin = 0.25; // ...and by this share for the table mask, where the colours told no board
    int rounds = 2;             // searched again this many times, each on the cells of the last round's best (by evidence)
    int rounds_while_moving = 1; // ...and up to this many rounds more while the last round's best was not found again (its cells
                                // still moved over max_step: a lattice still turning onto the tiles; hard 1003's true lattice came
                                // in the last round and was never searched once more). 0: off, as before hard38
    double min_change = 0.15;   // ...taken only when it moves the taken cells: their centres, mapped onto it, sit this RMS (pitches) off
                                // the best similarity of their old lattice positions (a lattice already right, found again on fewer
                                // edges, only loses: medium 7002, 7014)...
    bool follow_small_moves_that_show = true; // ...or when it moved less but shows tiles (shows_tiles) where the choice showed none
                                // (the choice a little off its tiles; hard 1003: 0.09 pitches, contrast 1.04 -> 1.44). false: as before hard38
    double max_step = 0.2;      // ...found again on its own cells: searched once more on them, its cells move under this (pitches, as min_change)
    double min_gain = 0.85;     // ...and its evidence (contrast x sqrt(cells)) at least the choice's times this
    Status check() const;
};

struct ReaderOptions {
    GlareLift lift_glare = GlareLift::off;  // off: both lifts won on two hard seed sets and lost on a third and on the real photos (docs/vision-journal.md, glare12)
    VeilOptions veil;              // ...how the glare spot and its veil are measured
    LatticeOptions lattice;
    RescaleOptions rescale;
    SubdivideOptions subdivide;
    CoarsenOptions coarsen;
    ReframeOptions reframe;
    RefineOptions refine;
    LightOptions light;
    ClassifierOptions classifier;
    DecoderOptions decoder;
    PennantOptions pennants;
    int min_tiles = 2;             // fewer occupied cells, or fewer tiles read wholly inside the photo (LatticeView::seen_share 1): no board
    bool offer_every_cell_when_masked_out = true; // a whole-frame lattice (the board fills the photo) whose colour mask (not the
                                   // direction pair's region, LatticeView::table_in_tile_colours) leaves fewer than min_tiles cells
                                   // offers every cell wholly in the photo: the table's colours were learnt from
                                   // the frame's edge, where the tiles lie too (a board in a tray filling the photo, real test_35); the
                                   // outline check and the board's colours (keep_board_colours) tell the tiles from the table (false: off)
    double max_tiles_share = 1.5;  // more occupied cells than this share of the catalog's copies (edition): no board
    double min_tile_px = 16;       // tiles narrower than this in the image cannot be read: no board
    bool keep_unmeasured_over_fewer_cells = true; // the choice by classification keeps the lattice taken when its road share could
                                   // not be measured (under min_side_pairs) and the best measured one holds fewer cells (hard 1005: its
                                   // true 44-cell lattice lost to a 27-cell one 120 mm off). false: as before hard38
    int max_lattices = 4;          // candidate lattices refined and checked against the tiles, at most (per search: near the board, whole frame)
    double min_tile_contrast = 1.6; // a lattice is taken when its cells' outlines are this many times stronger than half a pitch away (tile_contrast)...
    int min_checked_tiles = 16;     // ...over at least this many cells (fewer: a median too noisy to overrule the fold)
    double weak_tile_contrast = 1.35; // ...or this contrast over at least twice min_checked_tiles cells (blurred steep views: the true
                                      // lattice measured 1.42-1.53 over 37-80 cells; wrong ones that many cells stayed under 1.35)
    double min_zoom = 1.5;          // with no lattice shown clearly, the board's box is searched again at its own resolution when
                                    // that gives its tiles at least this many times the work image's pixels (small or far boards)
    double zoom_margin = 0.15;      // ...the box grown by this share of its size on each side (the table's colours along its edge)
    double off_frame_table_share = 0.3; // with no lattice framing its cells surely, the board is searched once more near colours whose
                                        // edge-over-all ratio is under this share of the edge band's median (LatticeOptions::
                                        // table_share_of_median: a board running off the frame put its own colours in the edge band;
                                        // 0: off)...
    double off_frame_min_mask_change = 0.05; // ...when that rule changes at least this share of the board-colour mask's pixels (less: its
                                             // candidates are nearly the first search's, each costing a refit again)
    double sure_tile_contrast = 2.5; // of the lattices passing, the highest contrast x sqrt(cells) wins; one reaching this contrast over
                                     // twice min_checked_tiles cells ends the search (the rest cost a refit each)
    double min_side_agreement = 0.8; // a reading whose touching sides match less than this share (after decoding) is no board...
    int min_side_pairs = 8;          // ...when it has at least this many touching sides (tiles laid out apart: a reference sheet)
    double relearn_share = 0.25;     // ...unless, with the tiles whose sides mostly disagree (holes the table mask took for tiles;
                                     // at most this share of those read) teaching the terrain model nothing, the reading made again
                                     // matches and keeps 1 - this share of the tiles at least (0: off; refusal15)...
    int min_relearn_disagreeing = 2; // ...a tile counted so has at least this many touching sides disagreeing, more than agree
    int relearn_rounds = 2;          // ...made again at most this many times while its sides still disagree, each round untaught also the
                                     // tiles of the reading just made disagreeing on as many sides as agree (holes side by side; 1: once,
                                     // as refusal15; syn21)
    double min_unary_gain = 0.1;     // when the lattice taken shows no tiles (the fold's fallback) or holds under 2 min_checked_tiles
                                     // cells, every candidate over min_checked_tiles cells is classified, and one whose cells' best
                                     // hypotheses continue each other's roads on this share of sides more than the choice's replaces it
    double min_median_alignment = 0.76; // a reading whose tiles' median cell_alignment is below this is no board (a decoy: plain cells
                                        // framed by nothing; real boards measured 0.82-2.6, a decorated cake 0.71; ReadingEvidence)...
    int min_aligned_cells = 8;          // ...when it has at least this many tiles (a median over fewer is noise)
    double min_added_alignment = 1.6; // an empty cell beside the board whose outline stands out this much (cell_alignment) is offered
                                      // to the classifier as a tile (one coloured like the table, which occupancy missed)...
    double min_masked_alignment = 1.1; // ...or this much when the table mask calls at least RefineOptions::candidate_share of it
                                       // not table (colours and outline both say tile: a tile the outline check or the group dropped)...
    int grow_rounds = 4;              // ...this many times outward (0: off)
    double grow_below_copies_share = 1.0; // ...only while the board holds fewer cells than this share of the game's tiles (a board already
                                      // holding them all has table among them); the cells read by occupancy still hold table the classifier
                                      // drops later (hard 1003: 72 cells for its 72 tiles, 14 of them table, so nothing was grown).
                                      // 1.1: hard 1000- 39.82 -> 38.87 %, but medium 13000- invented 5 -> 19 and real sides 95.0 ->
                                      // 94.8 %, so off (real39)
    double min_across_gap_alignment = 1.6; // ...and a cell wholly in the photo one empty cell away from the board (two straight or one
                                           // diagonal), beside no tile, is offered when the mask or the board's colours call it a tile
                                           // (candidate_share, min_board_colour_share) and its outline stands out this much, measured
                                           // at the offset of the tiles it is reached from or on the lattice's square, the better: a
                                           // board's tiles linked only through a tile neither the mask nor the outline saw, whose group
                                           // largest_group left out (medium 7009, 7011, 13011). 0: off. With PennantOptions::
                                           // max_pennant_area 0.05 and such cells teaching no plain city (pen34): medium 7000- 9.14 ->
                                           // 8.77 %, 13000- 9.10 -> 8.81 %, 19000- 5.36 -> 5.21 %, real labelled 15.9 -> 15.6 %, real
                                           // sides 2945/3092 -> 2979/3132, hard 1000- 41.59 -> 41.95 % (alone, miss33: real 17.8 %)...
    double min_unmasked_across_gap_alignment = 2.0; // ...or this much when the mask calls it table (a tile coloured like the table)
    bool rim_ring_outlines = true;    // a cell on the view's rim offered on its outline above is measured also on a coarse view grown by a
                                      // cell on every side, the better kept (rim_alignment): the view is cut to the box of the board's
                                      // colours, so a rim tile's outer side lies on its edge with no table beyond to make a step (medium 7016's
                                      // top row on a plain table). Medium 7000- 6.36 -> 5.99 %, 1000- 1.03 -> 0.96 %, 19000- 5.21 -> 5.14 %,
                                      // 13000- unchanged, hard 1000- 41.95 -> 41.81 %, real labelled 15.6 -> 15.2 % (miss35; false: off)
    double masked_offset_search = 0.0; // a cell offered above that the mask or the board's colours call a tile (min_masked_alignment) and
                                       // whose outline at its neighbours' offset falls short is measured again at offsets up to this share
                                       // of the pitch around it (a grid of masked_offset_step), the best kept with its offset: a tile lies
                                       // off its cell where the lattice is off the board's rim (medium 13012, reframed) or the tiles
                                       // drift (search_masked_offsets; 0: off). Off: at 0.15 medium 13000- 7.28 -> 6.04 %, 7000- 5.99 ->
                                       // 5.34 %, 1000- 0.96 -> 0.81 %, real labelled 15.2 -> 14.6 %, but real touching sides 94.9 ->
                                       // 93.6 % (test_33, test_45, test_51 grow 47-94 cells past their boards; med37)...
    double masked_offset_step = 0.05;  // ...(share of the pitch)...
    double masked_offset_overlap = 1.0; // ...where the tile reaches at most this share of the pitch into a neighbour at that neighbour's
                                        // offset (tiles lie side by side; 1 and above: not checked)...
    int masked_offset_neighbours = 0;   // ...for a cell beside a tile read by occupancy and this many tiles in all (0: any cell)...
    int masked_offset_seams = 0;        // ...joining only when at least this many of its sides shared with tiles read by occupancy, and every
                                        // such side, continue their art at the found offset (check_seams; searched_cell_continues; 0: off)...
    bool masked_offset_chain = true;    // ...and growing the board and lending its offset in later rounds (false: a cell the search found
                                        // does neither, so a pattern in the table cannot walk the search outward; seam38)
    int board_margin_cells = 2;       // the chosen lattice's view is widened by this many cells on each side its tiles reach (the box of the
                                      // board's colours it was cut to leaves out tiles coloured like the table, and the refit moves the
                                      // lattice within it), so the cells offered on their outline can lie there (0: off; lost18)...
    bool widen_grown_board = false;   // ...and widened once more where the cells grown on their outlines (add_outlined_neighbours) reach a
                                      // side no cell read by occupancy reached, kept on the same terms. Off: medium 7000- 5.99 -> 5.41 %
                                      // (7006 and 7014 read past their left and bottom sides), 19000- 5.14 -> 5.07 %, but real labelled
                                      // 15.2 -> 15.9 % (test_14's pennant twins flip) and real test_64 reads wood beside the board as full
                                      // cities (43 -> 53 tiles; miss35)
    int min_tiles_beyond = 2;         // ...kept when at least this many tiles are offered beyond the old view (the wider view changes the
                                      // light and the classifier's table cells, so every tile's reading moves a little: one tile gained
                                      // did not pay for that on the real photos)
    double min_board_colour_share = 0.5; // ...an empty cell counts as masked too (min_masked_alignment) when this share of its square has
                                         // colours the board's own read tiles show board_colour_ratio times more often than the frame's edge
                                         // (the mask's coarse lightness calls a field a bin darker than the table's pale stripes table; above 1: off)
    double board_colour_ratio = 4.0;  // ...(counted at 16 lightness bins, the mask's 4)...
    int board_colour_reach = 1;       // ...the edge's colours pooled over this many fine lightness bins (of 16) either side (glare, shade)
    double min_seam_alignment = 1.0;  // ...or this much when every side it shares with a read tile continues that tile's art (seam_like)
    int min_enclosing_tiles = 3;      // ...or enclosed_alignment_share times the read tiles' median cell_alignment when it touches at least
                                      // this many of the board's tiles (read or offered) and its sides shared with read tiles continue
                                      // their art, min_enclosed_like at least and none unlike: a board seldom walls a hole in on three
                                      // sides, while a tile coloured like the table there is common (real test_2's cities on wood; 0: off;
                                      // occ22)...
    double min_walled_share = 0.95;   // an empty cell beside at least min_walled_tiles of the board's tiles (read or offered) that the table
                                      // mask calls at least this share not table is offered on its colours alone, whatever its outline (a
                                      // follower lying on a tile's middle outlines the squares half a pitch away that cell_alignment weighs
                                      // it against: medium pieces 5005's two tiles under red followers, share 1.00, alignment 0.89 and
                                      // 0.70, left the board in two; fin38). The classifier's table model still drops a cell like the
                                      // table. Medium 1000- 0.96 -> 0.81 %, 7000- 5.99 -> 5.63 %, 13000- 7.28 -> 7.13 % (invented +1,
                                      // 0, +1), real labelled 15.2 -> 14.9 %, sides 94.9 -> 95.0 %; pieces 5000- exact 2 -> 3 of 10.
                                      // Above 1: off...
    int min_walled_tiles = 2;         // ...(see min_walled_share)
    double enclosed_alignment_share = 0.6; // ...(a blurred outline on a steep photo frames every tile weakly: test_2's read tiles' median
                                           // about 1, its enclosed cities 0.74-0.79; a hole walled in by a rendered board 0.81 of 1.78)...
    int min_enclosed_like = 2;        // ...(one side alike: test_2 two tiles more, but the real photos' sides matching 94.9 -> 94.8 %)...
    double min_enclosing_board_alignment = 1.0; // ...and only when the read tiles' median cell_alignment reaches this (a lattice off the
                                                // tiles, rendered medium 13012 at 0.88, continues every seam; test_2 1.09)
    double seam_like = 1.5;           // a side continues its neighbour's art when the colours along the seam differ at most this many
                                      // times the board's median seam (Lab, segment by segment, strips just inside each tile's side)...
    double seam_unlike = 4.0;         // ...and shows a hole when above this many times: a read cell with two thirds of its sides (at least
                                      // 2) unlike is dropped, an empty cell with any is not offered
    int min_seam_pairs = 16;          // the board's median seam needs this many touching sides of read tiles (fewer: seams not used)
    bool cover_pieces = false;      // detect_pieces_rereading (photo_score.h): the tiles under followers, castles and ferries are read again
                                    // without the art the pieces hide (reread_under_pieces). Off: on medium finished games it mends the
                                    // tiles under followers (read wrong 62 -> 48 on 1000-, 14 -> 6 on 5000-, 36 -> 27 on 9000-; exact scores
                                    // unchanged), but on the six hand-labelled real photos after the pieces' reread 267 -> 264 tiles right
                                    // (test_0 10 -> 8: a corner city under a follower read closed; docs/vision-journal.md, "Fin36 round",
                                    // "Tiles under followers")
    bool pennants_under_pieces = true; // detect_pieces_rereading: with cover_pieces off, the pennant twins are decided again without the
                                       // pixels the followers, castles and ferries found hide (decide_pennants_under_pieces; a knight's
                                       // blob is no pennant), the classifier's reading kept
    int max_frame_side = 8192;      // a larger image is shrunk to this longer side first (px). Not lower by default: on the real
                                    // photos (up to 5750 px) shrinking to 2560 saved no CPU (the work is sized by the top view, in mm)
                                    // and changed which boards were read (docs/vision-journal.md, Speed)
    Status check() const;
};

// Time spent per stage of one reading: wall ms and process CPU ms (all threads, std::clock;
// on a shared machine the CPU time stays honest when the wall time does not).
struct StageTime {
    double wall_ms = 0, cpu_ms = 0;
};
struct ReaderStages {
    StageTime veil;      // the glare spot's fit and lift on the frame (both readings' stages are summed when it is read twice)
    StageTime lines;     // find_lattices: table mask, line segments, vanishing points, pitch and phase (both searches); a large image's shrinking
    StageTime refit;     // every candidate checked: occupancy, phase check, refine_lattice, tile_contrast
    StageTime light;     // even_out_light
    StageTime classify;  // classify_cells
    StageTime decode;    // decode_board
    StageTime pennants;  // decide_pennants
    StageTime total;
    int candidates = 0;  // candidate lattices refitted and checked
};

// One candidate lattice the reader refitted and checked against the tiles (for diagnosis:
// bench/vision --dump prints each one's rectification against the truth).
struct CheckedCandidate {
    const char* search = "";               // "near board", "whole frame", "zoomed" (ReaderOptions::min_zoom), "off frame", "subdivided", "coarsened" or "rescaled"
    cv::Matx33d image_to_top = cv::Matx33d::eye();  // frame read (after max_frame_side shrinking) -> top view px, after the refit
    double px_per_mm = 1.0;
    int cells = 0;                         // cells kept after the refit
    double contrast = 0;                   // tile_contrast ratio
    double unary_agreement = -1;           // of touching sides where its cells' best hypotheses show a road, the share where both do
                                           // (ReaderOptions::min_unary_gain); -1: not measured
    std::string refusal;                   // empty: a plausible board
};

// What the read tiles say of whether a board was read at all (the refusals in read_board;
// bench/vision --dump prints it). A decoy (a cake decorated with tile art, a poster) can pass
// the lattice check: cells framed by something square, touching sides made to agree by the decoder.
struct ReadingEvidence {
    int side_pairs = 0, sides_agreeing = 0;     // touching sides of the decoded tiles (hidden left out), and how many match
    int unary_pairs = 0, unary_agreeing = 0;    // the same for each cell's best hypothesis alone, before the decoder
    int aligned_cells = 0;                      // decoded tiles (hidden ones and those offered on their outline left out) whose alignment was measured...
    double median_alignment = 0;                // ...and the median of their cell_alignment: how much more each cell's square
                                                // outline stands out than the squares half a pitch away
};

struct BoardReading {
    bool found = false;
    bool glare_lifted = false;            // read on the frame with a glare spot's veil lifted off (ReaderOptions::lift_glare)
    ReadingEvidence evidence;             // filled when tiles were decoded
    std::string message;                  // why no board was found
    LatticeView view;
    std::vector<DecodedTile> tiles;
    std::vector<CellHypotheses> hypotheses; // every decoded cell's scored (type, rotation)s, best first: what the decoder chose
                                            // among (a later step bound by the rules, such as the photo score, may choose again)
    double ms_lattice = 0, ms_classify = 0, ms_decode = 0, ms_total = 0;
    ReaderStages stages;                  // the finer split (bench/vision prints it)
    std::vector<CheckedCandidate> checked; // every candidate lattice checked, in the order tried
    std::vector<CellObservation> offered;  // the cells handed to classification (occupancy, outline check, outlined neighbours;
                                           // teaches false: offered on its outline alone), for diagnosis (bench/vision --dump)
};

// Counts the tiles of a reading that lie wholly inside the photo (LatticeView::seen_share 1; all
// of them when the view has no frame). A tile the photo's edge cuts is read from the part shown, so it may
// extend a board but not make one: read_board wants ReaderOptions::min_tiles of these.
int wholly_seen_tiles(const LatticeView& view, const std::vector<DecodedTile>& tiles);

// Reads a board from one frame. Errors only for bad input or options; "no board" is a
// reading with found == false and a message.
Result<BoardReading> read_board(const cv::Mat& image, const Catalog& catalog, const ReaderOptions& options = {});

// Whether the reading of the frame with its glare spot lifted beats the reading of the frame as
// seen (GlareLift::when_stronger): a board found beats none; then fewer touching sides that do
// not match (the decoder makes a board agree where its cells are read right); then the higher
// median alignment (the cells' outlines framing them); a tie keeps the frame as seen.
bool lifted_reading_stronger(const BoardReading& seen, const BoardReading& lifted);

// Reads the tiles of a found board again (stages 3-4b on the same top view) now that the
// pieces on it are known (the piece detector finds them): a tile under a bridge is read as
// the printed tile without the art the bridge hides, and its bridged sides show road to its
// neighbours; the art under every other piece (`covers`: followers, castles, ferries) is left
// out of its tile's reading. Replaces reading.tiles (cells stay as read). Errors: options
// failing check(), a reading without a board, a bridge on no read cell or with an axis other than 0 or 1.
Status reread_under_pieces(BoardReading& reading, const std::vector<BridgeOnCell>& bridges, const std::vector<CoverOnBoard>& covers,
                           const Catalog& catalog, const ReaderOptions& options = {});

// Decides the pennant twins of a found board's tiles again (stage 4b alone) without the pixels
// the pieces on it hide (`covers`): a follower in a city is a blob unlike plain city, and one
// larger than the board's pennants was read as a pennant by its size. Only a tile whose twin
// changes is replaced (type, confidence, runner-up; its sides and features are its twin's);
// returns how many changed. Errors: options failing check(), a reading without a board.
Result<int> decide_pennants_under_pieces(BoardReading& reading, const std::vector<CoverOnBoard>& covers, const Catalog& catalog,
                                         const ReaderOptions& options = {});

}  // namespace meeplecam::vision
