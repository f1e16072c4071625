// Tile classification (vision stage 3): one rough crop of a tile -> scored (type, rotation).
//
// The tile square is found in the crop (or the crop itself is used), warped to a canonical
// square, and every (type, rotation) of the catalog is fitted to it as a piecewise-constant
// colour picture: the hypothesis' terrain map (from the catalog geometry, `feature_labels`)
// says which pixels should be field, road, city, centre building or lake; each terrain gets
// the mean colour of its pixels in THIS tile (so no palette is assumed), and the hypothesis
// costs the residual plus priors (terrains must differ from the field, the field is the
// greenest terrain, pennants show as a small blue patch in the city). An optional learned
// tile library (vision/tile_library.h) adds a nearest-thumbnail term. See docs/vision.md.
#pragma once

#include <array>
#include <string>
#include <vector>

#include <opencv2/core.hpp>

#include "engine/catalog.h"
#include "engine/error.h"

namespace meeplecam::vision {

class TileLibrary;

struct TileClassifierOptions {
    int canonical_px = 96;            // side of the warped tile square (pixels)
    int model_px = 32;                // side of the terrain grid hypotheses are fitted on
    // Finding the tile square in the crop.
    double border_ring = 0.04;        // width of the crop's outer ring read as background (fraction of the side)
    double background_spread = 14.0;  // ring colours (Lab, 90th percentile) within this are one background
    double min_quad_area = 0.2;       // a found square covers at least this share of the crop...
    double max_quad_area = 0.97;      // ...and at most this (else the crop itself is the tile)
    double min_quad_fill = 0.85;      // contour area / its rotated rectangle area
    double min_quad_aspect = 0.75;    // short side / long side of that rectangle
    // Without one background all round (a sheet cell with paper on some sides and a neighbour's
    // art on others, a tile on a cluttered table): the square from the tile's four straight
    // edges. Each edge is sought as a near-axis line within edge_band of its side of the crop
    // (leaning at most edge_max_tilt of the side over its length) along whose middle 80 % the
    // lightness steps across the line (a cut edge, a printed cut line, a seam to a neighbour);
    // of up to 6 such lines per side, the four whose square's sides agree and whose weakest
    // edge steps most. A tight crop (its edges at its own border) finds none.
    bool edge_square = true;
    double edge_band = 0.2;           // an edge lies within this share of the crop from its side
    double edge_max_tilt = 0.03;      // its ends differ by at most this share of the side
    double edge_min_cover = 0.8;      // this share of the edge's middle (each point within 1 px across) must step...
    double edge_min_step = 10.0;      // ...by at least this (Lab L of the pixels 1 px either side, at <= 256 px)...
    double edge_contrast = 4.0;       // ...and this many times the crop's median step in that direction
    double edge_min_aspect = 0.9;     // the four edges' square: short side / long side
    // Without a square: strips of paper or table along some sides of the crop (a scan's margin,
    // the gap to the next tile) are cut off. A line of the crop is such a strip when this share
    // of its pixels is paper-like: achromatic and white or black (printed art is coloured along
    // its rim; a grey stone city is achromatic but mid-grey)...
    double margin_line_share = 0.6;
    double margin_max_chroma = 12.0;  // ...below this Lab chroma...
    double margin_light = 75.0;       // ...and Lab lightness at least this...
    double margin_dark = 25.0;        // ...or at most this
    double max_margin = 0.25;         // at most this share of the crop is cut per side
    // Fitting.
    double lightness_weight = 0.5;    // weight of L against a*, b* in colour distances
    int road_slack_px = 2;            // a road pixel may match the best pixel this far away (model pixels)
    double boundary_weight = 0.3;     // weight of pixels next to a region boundary (art differs there)
    double road_min_cover = 0.6;      // share of a road arm's pixels that must look more like road than field (a band along its length)...
    double road_cover_weight = 10.0;  // ...else this cost per missing unit, times the arm's area share^0.5
    // All arms of a hypothesis' roads show one road colour: an arm's colour (its pixels' slack
    // matches, averaged) may lie this far (Lab, lightness weighted) from the other arms' colour...
    double road_arm_spread = 20.0;
    double road_arm_weight = 2.0;     // ...else this cost per Lab unit beyond, times the arm's area share^0.5
    double contrast_margin = 14.0;    // a non-field terrain must differ from the field by this (Lab)
    double contrast_weight = 0.6;     // cost per Lab unit missing from the margin, times the terrain's area share^0.5
    double green_weight = 0.25;       // cost per a* unit a non-field terrain is greener than the field
    double field_max_a = -5.0;        // grass is green: the field's mean a* should be below this...
    double field_green_weight = 1.0;  // ...else this cost per a* unit above it
    double pennant_blue = 10.0;       // a pixel is pennant-blue when b* < -this...
    double pennant_contrast = 25.0;   // ...and b* is this much below the city's mean b*
    double pennant_area = 0.004;      // share of the tile the blue patch in the city must reach
    double pennant_weight = 3.0;      // cost of a pennant missing / present where none is expected
    double min_texture = 2.0;         // an image whose colour spread (Lab std) is below this is not a tile
    double temperature = 1.5;         // softmax temperature (cost units) for the confidences
    double library_weight = 2.0;      // weight of the learned library's thumbnail distance (when given)
    int max_alternatives = 4;         // alternatives listed after the best

    // Checks ranges; errors name the field.
    Status check() const;
};

// One scored (type, rotation). `rot` is quarter turns clockwise from the catalog orientation,
// the smallest of the rotations that look the same (distinct_rotations).
struct TileHypothesis {
    std::string tile;
    int rot = 0;
    double cost = 0;        // lower is better
    double confidence = 0;  // softmax over all hypotheses, in 0..1
};

// Terrain read at one port after the fit: the share of the evidence for each terrain.
struct PortEvidence {
    double field = 0, road = 0, city = 0, other = 0;  // sum to 1
};

struct TileClassification {
    TileHypothesis best;
    std::vector<TileHypothesis> alternatives;     // next best, best first (other types or rotations)
    bool found_square = false;                    // false: the whole crop was taken as the tile
    std::array<cv::Point2f, 4> corners{};         // tile corners in the input (TL, TR, BR, BL of the image)
    std::array<PortEvidence, 13> ports{};         // per port (NL..WR, C), image orientation
    bool pennant_seen = false;                    // a blue patch inside the best hypothesis' city
    cv::Mat tile;                                 // the canonical warped tile (BGR, canonical_px square)
};

// Classifies tiles of one catalog (merge expansions into it first). Thread-compatible:
// classify() is const and may run on several threads.
class TileClassifier {
public:
    // Precomputes the terrain maps of every (type, distinct rotation). `library` (may be
    // null) must outlive the classifier.
    static Result<TileClassifier> create(const Catalog& catalog, const TileClassifierOptions& options = {},
                                         const TileLibrary* library = nullptr);
    // The same for a list of types outside any catalog (e.g. a tile with a bridge built on it,
    // engine/catalog.h with_bridge), scored with the same costs as the catalog's types.
    static Result<TileClassifier> create(std::vector<TileType> types, const TileClassifierOptions& options = {},
                                         const TileLibrary* library = nullptr);

    // Classifies one crop (8-bit BGR, BGRA or grey). Errors: empty or tiny images, and
    // crops without any structure (a blank image is not a tile).
    Result<TileClassification> classify(const cv::Mat& image) const;

    // Finds the tile square in the crop and warps it to canonical_px (BGR). `found` tells
    // whether a square was found (else the whole crop is used). Same errors as classify().
    Result<cv::Mat> extract_tile(const cv::Mat& image, bool* found = nullptr,
                                 std::array<cv::Point2f, 4>* corners = nullptr) const;

    // Scores an already canonical tile (as from extract_tile), restricted to `only_type`
    // when not empty. Hypotheses best first.
    std::vector<TileHypothesis> score_canonical(const cv::Mat& tile, const std::string& only_type = {}) const;

    const TileClassifierOptions& options() const { return options_; }
    // The types it tells apart, in the order given.
    const std::vector<TileType>& types() const { return types_; }

private:
    struct Hypothesis {
        int type = 0;        // index in catalog tiles
        int rot = 0;         // quarter turns
        std::vector<std::int8_t> kind;  // per model pixel: terrain (0 field, 1 road, 2 city, 3 building, 4 lake), -1 ignore
        std::vector<float> weight;      // per model pixel
        std::vector<std::int8_t> part;  // per model pixel: which non-field feature (0..parts-1), -1 none
        int parts = 0;
        std::vector<int> part_kind;     // terrain of each part
        bool pennant = false;
        int kinds_present = 0;          // bit mask
    };
    struct Scored;
    std::vector<Scored> score_all(const cv::Mat& tile, const std::string& only_type) const;
    double road_band_cost(const Hypothesis& h, const std::vector<cv::Vec3f>& px, const std::vector<int>& road_src, const cv::Vec3f& road,
                          const cv::Vec3f& field, double total_w) const;
    double road_arm_colour_cost(const Hypothesis& h, const std::vector<cv::Vec3f>& px, const std::vector<int>& road_src, double total_w) const;

    std::vector<TileType> types_;
    TileClassifierOptions options_;
    const TileLibrary* library_ = nullptr;
    std::vector<Hypothesis> hyps_;
};

// Whether two rotations (quarter turns) of a type show the same placed tile.
bool same_rotation(const TileType& type, int rot_a, int rot_b);

}  // namespace meeplecam::vision
