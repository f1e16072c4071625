// Tile art: procedural pictures of catalog tile types, and the region of each feature.
//
// The art is drawn from the catalog geometry alone (which feature owns which ports), so
// every tile type of every catalog gets a picture. Several styles change the palette, the
// line widths, textures and how roads, cities, monasteries and pennants look, so that a
// reader trained on renders cannot overfit one look. The same geometry gives per-feature
// masks, reused by the reader (what terrain to expect where) and by piece placement.
#pragma once

#include <cstdint>
#include <random>
#include <string>
#include <string_view>
#include <vector>

#include <opencv2/core.hpp>

#include "engine/catalog.h"
#include "engine/error.h"

namespace meeplecam::vision {

// How a city's pennant (coat of arms) is drawn.
enum class PennantShape : std::uint8_t { Shield, Banner, Disc };

// One art style. Colours are BGR (0..255); lengths are fractions of the tile side.
struct TileStyle {
    std::string name = "classic";

    // Palette.
    cv::Scalar field{40, 190, 120};          // grass
    cv::Scalar field_shade{30, 140, 90};     // darker grass the mottling mixes in
    cv::Scalar tuft{25, 105, 60};            // grass tufts and small bushes
    cv::Scalar road{225, 232, 236};          // road surface
    cv::Scalar road_edge{95, 110, 120};      // road border line
    cv::Scalar city{95, 170, 215};           // city ground
    cv::Scalar city_shade{70, 130, 185};     // darker city ground the mottling mixes in
    cv::Scalar wall{175, 205, 225};          // city wall
    cv::Scalar wall_edge{60, 85, 110};       // outer line of the wall
    cv::Scalar house{200, 225, 240};         // house walls
    cv::Scalar roof{50, 70, 200};            // house and monastery roofs
    cv::Scalar monastery{165, 200, 225};     // monastery walls
    cv::Scalar pennant{170, 80, 30};         // pennant field
    cv::Scalar pennant_mark{250, 250, 250};  // pennant emblem
    cv::Scalar lake{190, 140, 60};           // lake water
    cv::Scalar outline{40, 50, 55};          // feature outlines (when outline_width > 0)

    // Shapes.
    double road_width = 0.085;        // road band width
    double road_edge_width = 0.012;   // dark border on each side of a road
    double road_wobble = 0.025;       // sideways meander of a road's centre line
    double city_depth = 0.30;         // how far a one-side city reaches into the tile
    double field_depth = 0.30;        // depth of the field left by a 3-side city, or beside a 2-side band
    double corner_bulge = 0.07;       // how far a 2-side corner city bulges past the diagonal
    double edge_wobble = 0.02;        // waviness of city borders
    double wall_width = 0.035;        // city wall band (0: no wall)
    double house_size = 0.085;        // side of a house
    double house_density = 14.0;      // houses per unit of city area (tile area = 1)
    double monastery_size = 0.30;     // width of the monastery building
    double pennant_size = 0.12;       // height of a pennant
    PennantShape pennant_shape = PennantShape::Shield;
    double outline_width = 0.0;       // dark line between features (0: none)

    // Surface.
    double mottle = 0.55;             // strength of the low-frequency colour mottling (0..1)
    double mottle_scale = 0.25;       // size of mottles
    double grain = 6.0;               // per-pixel grain (standard deviation, 8-bit levels)
    double tuft_density = 40.0;       // grass tufts per tile
    double softness = 0.0;            // blur of the finished art (painted look)
    double print_variation = 0.03;    // random colour gain per rendered copy (0..0.2)

    // Checks ranges; errors name the style and the field.
    Status check() const;
};

// The built-in styles: "classic", "muted", "contrast", "dusk". At least three, all valid.
const std::vector<TileStyle>& builtin_tile_styles();
// Finds a built-in style by name; an Invalid error lists the known names.
Result<TileStyle> find_tile_style(std::string_view name);

// Returns the port's reference point in tile coordinates (0..1, x east, y south) at
// rotation 0, pulled `inset` (tile fraction) inside the tile; the centre for kCentre.
cv::Point2d port_point(Port port, double inset = 0.0);

// Labels every tile pixel with the index of the feature it shows (-1: a decoration that
// belongs to no feature, e.g. the little village at a road junction). CV_32SC1, size_px
// square, the tile turned clockwise by `rot` quarter turns. Assumes size_px >= 16.
cv::Mat feature_labels(const TileType& type, int rot, int size_px, const TileStyle& style = builtin_tile_styles().front());

// Returns one mask (CV_8UC1, 255 inside) per feature of `type`, indexed like type.features,
// in the same frame as feature_labels(). Masks are disjoint.
std::vector<cv::Mat> feature_masks(const TileType& type, int rot, int size_px,
                                   const TileStyle& style = builtin_tile_styles().front());

// Returns where the art puts a city's `count` pennants: the points of `city` (CV_8UC1, 255 in
// the city, square) farthest from its wall and the tile border, each next one at least 1.2
// pennant heights (`pennant_px`) from those before. The tracker looks for pennants there.
std::vector<cv::Point> pennant_points(const cv::Mat& city, int count, double pennant_px);

// Returns where the art draws an inn beside each road tagged "inn" (tile fractions, x east,
// y south, at rotation 0): a box in the field on the road's right as one walks from its port
// to the centre, a little over halfway along. The box's pixels belong to no feature in
// feature_labels(); the reader expects a building there. Empty for a tile without inns.
std::vector<cv::Rect2d> inn_boxes(const TileType& type);

// The region maps a tile reader fits a type with, as (type, style) pairs for feature_labels():
// the renderer's own first, then where printed art is known to draw otherwise, a variant (each
// a hypothesis of the same type and rotation; the best fit stands for it). Printed cities on two
// opposite or three sides leave thinner field caps than the renderer's (real scans: G's band read
// as a 3-side city). Printed corner cities end in a wall bowed towards their corner, or straight
// from corner to corner (real N read as two caps, I, with either of the others). Printed road
// bends turn near the centre (K read as L, V as a junction): a 2-port road on adjacent sides is
// also drawn as two arms meeting at the centre (the second arm a feature of its own, appended).
std::vector<std::pair<TileType, TileStyle>> printed_geometry_variants(const TileType& type);

// Draws the tile's art (CV_8UC3, size_px square) turned clockwise by `rot` quarter turns.
// The geometry and houses depend only on the type and style; `rng` adds per-copy texture
// and print variation. Assumes size_px >= 16 and a style that passed check().
cv::Mat render_tile(const TileType& type, int rot, int size_px, const TileStyle& style, std::mt19937_64& rng);

}  // namespace meeplecam::vision
