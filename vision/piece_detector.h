// Piece detector (vision stage 5): the wooden followers, bridges, ferries and castle tokens on a
// board the reader has read.
//
// 1. Top view: the frame is warped onto the plane of the tile tops (the reading's
//    homography) at a finer scale, over the decoded cells and a margin around them.
// 2. Colour: every pixel is gated by each player's colour model (Lab: hue and chroma for
//    the colourful players, lightness at low chroma for black and grey), then compared with
//    the colours the decoded tiles are expected to show there (each terrain's common colours,
//    learned from the frame by k-means, over the board and per tile neighbourhood, as the light
//    varies; the table's around the board and in the gaps): a pixel nearer a terrain colour than
//    the piece colour is background, so grass, city and road do not pass as followers (small
//    art such as roofs is left to the size filters).
// 3. Blobs: pixels of one colour are joined; a blob must have a follower's size (in mm on
//    the plane), be solid and not a thin strip, and its base must lie on a decoded tile
//    (a follower on the table beside the board is no follower in play). A blob grown over the
//    pixels its colour passes that a terrain explained (a grey follower's faces on a grey road)
//    replaces the blobs in it when a meeple's silhouette fits it better.
// 4. Pose and base: the blob is matched against the silhouettes a meeple casts on the plane,
//    standing or lying, turned every way, each corner of its slab projected along the ray from
//    the camera (the foot point and the camera's height come from the homography, the focal
//    length from the plane's orthogonality; a standing follower smears away from the foot
//    point); the best overlap gives the pose and the base (feet, or the body's middle). A blob no
//    silhouette fits is art. (The older rule, `silhouette_pose = false`: a lying follower is as
//    wide as it is tall and less solid; base at the blob's end nearest the foot point.)
// 5. Feature: the base falls in a cell; the decoded tile type and rotation give each
//    feature's region (vision/tile_art.h feature_labels); a lying follower goes on the
//    nearest field within a few mm, a standing one on the nearest road, city or monastery
//    (the rules: farmers lie), else on whatever lies under its base.
// 6. Bridges, ferries, castle tokens (before the blobs of step 3): where the rules allow one, the
//    share of its footprint of wood or stone colour that no terrain explains; their shadows
//    are then explained by darkened terrain colours. A follower on a castle gives it its
//    colour; a standing follower on a bridge's deck stands on the bridge.
//
// Everything is in the reading's frame (cells and ports as the top view has them: the
// board's true orientation is only known up to a quarter turn).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include <opencv2/core.hpp>

#include "engine/catalog.h"
#include "engine/error.h"
#include "vision/board_reader.h"
#include "vision/light_cast.h"

namespace meeplecam::vision {

// One player's colour as the camera sees it, in CIE Lab (L 0..100, a and b signed).
// Colourful pieces are told apart by hue (the angle of (a, b)) and chroma; black and grey by
// lightness at low chroma. Shading changes L and chroma but keeps the hue.
struct ColourModel {
    std::string name;               // player colour: red, blue, green, yellow, black, grey
    cv::Vec3d lab{50, 0, 0};        // mean of the lit faces
    double hue_tolerance_deg = 22;  // colourful: largest hue distance from the mean
    double min_chroma = 18;         // colourful: least chroma (sqrt(a^2 + b^2)); achromatic: unused
    double max_chroma = 14;         // achromatic (black, grey): most chroma
    double min_l = 0, max_l = 100;  // lightness range of the piece's faces (lit to shaded)
    bool achromatic = false;        // black or grey: told by lightness, not hue
};

// The colours to look for; the app passes the per-table calibration here.
struct ColourModels {
    std::vector<ColourModel> colours;
    // Returns the models of the six base-game colours under daylight (white balance roughly right).
    static ColourModels daylight();
    // Returns the model of `name`, or nullptr.
    const ColourModel* find(const std::string& name) const;
    // Checks names (non-empty, distinct) and ranges; the error names the colour and field.
    Status check() const;
};

// Whether a Lab pixel (L 0..100) could be a face of a piece of colour `model`, lit or in shade.
bool colour_matches(const ColourModel& model, const cv::Vec3f& lab);

// Builds a model from a calibrated Lab mean and covariance (of the lit follower's pixels):
// achromatic below a chroma of 12, else hue and chroma limits from the spread; the
// lightness range is widened for shaded faces. Errors: non-finite or negative variances.
Result<ColourModel> colour_model_from_lab(const std::string& name, const cv::Vec3d& mean, const cv::Matx33d& covariance);

struct PieceDetectorOptions {
    double px_per_mm = 3.0;          // scale of the detection top view
    double tile_mm = 45.0;           // tile side (the reading's pitch is tile + gap)
    double meeple_mm = 16.0;         // a follower's height (and width)
    double margin_tiles = 0.35;      // the top view reaches this far (in tiles) beyond the decoded cells
    double min_area_mm2 = 75;        // smallest blob that may be a follower (about half its outline seen from above: roofs are smaller)
    double max_area_mm2 = 900;       // larger blobs are not followers (nor any group of them)
    double min_solidity = 0.72;      // blob area over its convex hull's area (rendered meeples: 0.8 and more in 99 %; ragged art is less)
    double min_solidity_rim = 0.55;  // the same for a blob a tenth of which lies off the cells (the table cuts or joins its outline)
    double min_width_mm = 4.5;       // narrowest a blob may be (its smallest enclosing rectangle's short side): no strips
    double min_interior_share = 0.5; // share of a blob's pixels on the cells inside their interiors (not on the gaps between tiles)
    double min_on_board_share = 0.25;  // share of a whole blob on the cells' interiors (a follower at the board's rim leans over the table)
    double open_mm = 1.2;            // radius of the opening that removes thin lines (outlines, road borders)
    double piece_bias = 1.5;         // a pixel is background when a common colour of a terrain nearby is closer than
    double terrain_margin = 3.0;     // ... piece_bias x its distance to the piece colour + terrain_margin (Lab units)
    double common_share = 0.15;      // a terrain colour is common (explains pixels) above this share of the terrain
    double terrain_piece_share = 0.3;  // a terrain this much of whose pixels look like one piece colour learns that colour too ...
    double own_colour_tile_share = 0.75;  // ... when the colour is that share of the terrain on at least this share of the tiles showing
                                          // it (at least own_colour_min_mm2 of it), or on more tiles than a player has followers
                                          // (max_followers_per_colour): the print's colour is on every copy, followers stand on some
                                          // (seed 5012's four green followers on four of its six monasteries taught them green); 0: any
    double own_colour_min_mm2 = 40;    // ... a tile shows a terrain when this much of it is seen
    bool local_terrain = true;       // also learn each terrain's colours per tile from it and its 8 neighbours (light and print vary over a board)
    double local_min_mm2 = 1500;     // ... when the neighbourhood shows this much of the terrain (a few followers on it stay uncommon)
    double grow_mm = 0.0;            // what is left of a piece grows this far over pixels its colour's gate passes and a terrain explained (0: no growth;
                                     // 8 finds grey followers on grey roads in renders, but on the real photos it found 221 followers
                                     // where 184 were found, the new ones checked by eye false: off by default)
    double grow_fit_gain = 0.02;     // ... and the grown blob replaces the pieces in it when its silhouette fits this much better
    double achromatic_shade_mm = 5;  // a grey follower's shaded faces are darker than the grey gate (black's or no gate's): a grey
                                     // blob also grows this far over dark achromatic pixels no terrain explains, kept as growth is
                                     // (grow_fit_gain; 0: never) ...
    double shade_lit_share = 0.4;    // ... when at least this share of the grown blob is the grey gate's own pixels (and it took in
                                     // less than half a follower of another colour's pixels: a black follower beside)
    double grey_grow_mm = 8;         // a grey blob also grows this far over the grey gate's pixels that a road with a common grey colour
                                     // explained (or its shade beside a bridge: a grey follower's lit faces on a light grey road), kept as
                                     // the shade is (0: never; over every terrain with a grey colour it invented a grey on a held-out city)
    double own_colour_lightness = 0.6;  // weight of lightness (else 0.25) when a terrain whose own colour is the piece's explains a pixel
    double achromatic_lightness = 0.6;  // weight of lightness (else 0.25) when a grey terrain colour on the tiles (chroma within
                                        // the gate's) explains a pixel a black or grey gate passed (lightness is all that tells a
                                        // grey follower from a light grey road)
    double terrain_reach_mm = 2.5;   // terrains this near a pixel may explain it (tiles lie a little off their cells)
    double gap_band_mm = 2.0;        // the table may show this far either side of a cell's sides (gaps, jitter)
    double feature_search_mm = 5.0;  // a base takes the nearest feature its pose allows within this distance
    double lying_width = 0.95;       // lying when the blob's narrowest width, less 0.94 x height x (solidity - 0.9), exceeds this x height
    double pose_doubt = 0.1;         // less than this (x height) over that threshold "lying" is a guess: the base takes the feature under it
    double default_fov_deg = 60;     // horizontal field of view assumed when the plane cannot give the focal length
    bool silhouette_pose = true;     // pose and base from the meeple silhouette that fits the blob best (else the width rule)
    int standing_yaws = 12;          // turns tried for a standing silhouette (over a half turn)
    int lying_yaws = 24;             // turns tried for a lying one (over a full turn)
    double lying_fit_bias = 0.03;    // lying when the lying silhouette's overlap is at least the standing one's less this
    double pose_fit_doubt = 0.03;    // an overlap less than this from that threshold is a guess ("lying": the feature under the base decides)
    double field_pose_slack = 0.09;  // a standing silhouette on a field (nobody stands there) is a lying follower when the lying one
                                     // fits at most this much worse
    double pose_tie_fit = 0.12;      // when the two silhouettes' overlaps differ by less than this, where each pose's base sits may
                                     // decide: players put a follower well inside the feature it claims (a road's middle, inside a city)
    double pose_room_gap = 0.3;      // ... the pose whose base lies deeper in a feature that pose may take (its distance from the
                                     // feature's edge as a share of the feature's deepest point on the tile) by at least this wins
    double min_fit = 0.4;            // a blob no meeple silhouette overlaps this well (intersection over union) is no follower
                                     // (not applied at the board's rim, where the table cuts or joins the outline)
    double split_below_fit = 0.6;    // two touching followers of one colour are one blob that one silhouette fits badly: a follower's blob of
                                     // at least twice min_area_mm2 whose best silhouette overlaps it less than this is cut in two (k-means of
                                     // its pixels' positions; 0: never) ...
    double split_fit_gain = 0.2;     // ... and kept as two followers when each part is one whose silhouette fits this much better than the
                                     // whole's (seed 1007's pair: 0.52 -> 0.78 and 0.82; false grey blobs cut in two gained 0.10-0.19)
    double rim_cut_off_share = 0.25;  // a follower at the board's rim beside a patch of the table in its colour (a tartan's red beside
                                      // a red follower) makes one blob reaching off the tiles, rejected whole: such a rejected blob with at
                                      // least this share of its pixels off the tiles is judged again cut to the tiles' cells (> 1: never)
    int max_followers_per_colour = 7;  // a player owns this many followers (castles' included): more blobs of one colour are
                                       // art of that colour (a misread board), and the least sure of them go; 0: no limit
    double owned_confidence_weight = 0.25;  // ... sureness: the meeple silhouette's best fit + this x confidence (the colour's closeness)
    // Bridges, ferries and castle tokens: where the rules allow one (a bridge across two opposite
    // field sides, a ferry between two jetties of a lake, a castle across the shared side of a
    // small city), the share of its footprint whose pixels are of its colour and unlike the tiles.
    bool find_bridges = false;           // look for bridges (Bridges, Castles and Bazaars in play): on any tile
    bool find_castles = false;           // look for castle tokens (Castles in play); ferries are looked for on read lake tiles
    cv::Scalar wood_bgr{55, 100, 150};   // bridges and ferries (stained wood) under daylight
    cv::Scalar stone_bgr{168, 174, 178}; // castle tokens (stone)
    double wood_hue_deg = 28;            // wood pixels lie this close in hue to wood_bgr
    double token_share = 0.3;            // least share of a footprint's pixels of the piece's colour
    double needed_bridge_share = 0.15;   // where the tiles say a bridge must lie (a road meets a field side), this share is enough
    double ferry_seen_share = 0.25;      // a ferry's share is taken over the footprint's pixels no follower may cover (a follower
                                         // standing on the boat hides its wood), when at least this much of it is seen (1: the whole footprint)
    double lake_bridge_share = 0.6;      // on a tile read as a lake tile, a bridge needs this much (a ferry covers about half a bridge's footprint)
    // A glare spot mixes white into the board (colours wash out: reds lose their chroma, black turns grey): its veil is
    // estimated from how far each terrain's darkest art rose off its own dark level, per block, and taken off the top view first.
    // Only a spot is lifted (veil_spot_sides): without that rule the real photos showed veils of 0-0.2 on most boards and 0.53
    // on one hazy photo rising to the board's rim (test_38), where lifting it invented about 8 followers; with it, that photo
    // is left alone and the real boards' counts are those without any veil but 3 false followers fewer (docs/vision-journal.md, "Glare spots only").
    bool lift_veil = true;
    double veil_block_mm = 22.5;         // block side (half a tile)
    double veil_percentile = 0.05;       // a block's dark level: this percentile of its pixels' darkest channel
    double min_veil = 0.06;              // veils under this are the light's gradient and the print's variation (none lifted)
    int veil_spot_sides = 3;             // lifted only when it is a spot: from its peak the veil falls under half on this many of
                                         // the four axis directions within the board (a haze or a gradient rising to the rim is left; 0: always)
    int veil_inner_spot_sides = 2;       // ...or on this many, when the veil peaks inside the board (tiles on the peak's four sides) and
    double veil_inner_min_peak = 0.3;    // ...reaches this there: a glare wider than the board runs off it (medium 1014); a haze or a
                                         // gradient peaks at the rim (0 sides: this rule off)
    // The frame's colour cast (vision/light_cast.h): the decoded terrains' colours against the known art's under neutral
    // light give the light's colour, whose chromatic part is taken off the top view (after the veil) before the gates,
    // so the daylight models see daylight colours under warm or cold light. Art unlike every reference is left alone.
    bool adapt_to_light = true;
    LightCastOptions light_cast;         // ... how closely the art must match and how large a cast is taken off
    bool keep_rejected = false;          // keep the blobs that are no follower, with why (PieceDetection::rejected: the bench's --dump)
    Status check() const;
};

// A piece found in the frame: a follower, or (in PieceDetection::tokens) a bridge, a ferry or a castle token.
struct DetectedPiece {
    std::string kind = "follower";  // "follower", "bridge", "ferry", "castle"
    std::string colour;
    bool lying = false;
    cv::Point2d image_px;       // its base in the frame (a lying follower: the middle of its body)
    cv::Point2d top_px;         // that point in the reading's top view (LatticeView pixels)
    cv::Point2d table_mm;       // that point on the tile plane, mm from the top view's origin
    int col = 0, row = 0;       // the cell it stands on (reading frame); valid when on_tile
    bool on_tile = false;       // its base lies on a decoded tile
    int feature = -1;           // index into that tile type's features; -1 when none
    FeatureKind feature_kind = FeatureKind::Field;
    Port port = 0;              // a board port (reading frame) of that feature; kCentre for a monastery
    double area_mm2 = 0;        // blob area on the plane
    double length_mm = 0;       // blob extent along the ray from the camera's foot point (standing pieces smear along it)
    double width_mm = 0;        // blob extent across that ray
    double solidity = 0;        // blob area over its convex hull's
    double rect_short_mm = 0, rect_long_mm = 0;  // sides of the blob's smallest enclosing rectangle
    double smear_mm = 0;        // how far a standing follower's head would smear here (from the camera's height and distance)
    double confidence = 0;      // 0..1: how clearly the blob's pixels are of its colour
    double fit_standing = 0;    // overlap (intersection over union) of the blob and the best standing meeple's silhouette
    double fit_lying = 0;       // ... and the best lying one's
    std::vector<cv::Point> outline_px;  // the blob's outline in the frame (overlays)
    // Bridges, ferries and castles: `port` and `port2` are a bridge's two ends (middle ports of
    // opposite sides), a ferry's two jetties, a castle's city port on its first and second tile
    // (col, row and col2, row2); `colour` is a castle's owner (the follower on it; empty when
    // none stands there); `confidence` the share of its footprint of its colour.
    Port port2 = 0;
    int col2 = 0, row2 = 0;
};

struct PieceDetection {
    std::vector<DetectedPiece> pieces;   // followers (a follower on a castle is the castle's colour, not here)
    std::vector<DetectedPiece> tokens;   // bridges, ferries, castle tokens
    cv::Point2d foot_top_px;    // the camera's foot point in the top view (standing pieces point away from it)
    double focal_px = 0;        // the focal length the foot point was computed with
    double ms = 0;
    double veil_peak = 0;       // the largest glare veil lifted (share of white mixed in; 0: none)
    LightCast light_cast;       // the colour cast found and taken off (adapt_to_light)
    std::vector<DetectedPiece> rejected;  // with keep_rejected: blobs that are no follower, `kind` saying why ("small", "not solid",
                                          // "on the gaps", "thin", "no silhouette fits", "off the tiles", "over the colour's count", ...)
};

// Finds the followers, bridges, ferries and castle tokens on a board `reading` (found == true)
// read from `image`. A standing follower on a bridge's deck goes on the bridge (feature index:
// the tile type's feature count, as the engine's bridge variant numbers it). Errors: an empty
// image, a reading without a board, options or colour models failing check().
Result<PieceDetection> detect_pieces(const cv::Mat& image, const BoardReading& reading, const Catalog& catalog,
                                     const ColourModels& colours = ColourModels::daylight(),
                                     const PieceDetectorOptions& options = {});

// Returns a copy of `image` with each follower's outline, base and colour name drawn on it, and each
// bridge, ferry and castle token's footprint with its kind (and a castle's owner).
cv::Mat draw_pieces(const cv::Mat& image, const PieceDetection& detection);

// Which features a follower may stand on, by its pose: the rules have farmers lie on fields,
// and knights, thieves and monks stand.
enum class FeaturePreference : std::uint8_t { Any, Field, NotField };

// Returns the feature of `type` at rotation `rot` under the tile-fraction point `uv` (0..1,
// x east, y south, reading frame); the nearest within `search` (tile fraction) when the point
// is on no feature; -1 when none is that near. With a preference, the nearest preferred
// feature within `search` wins over what lies under the point (a road is narrower than the
// base's uncertainty); the point's own feature when no preferred one is that near. A lake
// takes no follower: a point on one gives the nearest feature that does (anywhere on the tile).
int feature_at_point(const TileType& type, int rot, cv::Point2d uv, double search,
                     FeaturePreference prefer = FeaturePreference::Any);

// Returns how deep the tile-fraction point `uv` lies in the feature of `type` at rotation `rot`
// under it: its distance from that feature's edge on the tile as a share of the feature's
// deepest point (1: the feature's middle, 0 at its edge); 0 when the feature under the point
// is not one `prefer` allows, takes no follower, or there is none.
double feature_room_share(const TileType& type, int rot, cv::Point2d uv, FeaturePreference prefer);

}  // namespace meeplecam::vision
