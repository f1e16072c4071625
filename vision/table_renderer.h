// Table renderer: a board state rendered as a photograph of tiles on a table, with the
// ground truth (where every tile is in the image) written beside it. The test oracle of
// the vision pipeline.
//
// Frames: the table plane is z = 0 with x east and y south in millimetres (the board's own
// axes; the board is centred on the origin); z grows into the table, so the camera sits at
// negative z and tile tops lie at z = -thickness. Image pixels follow OpenCV: the centre
// of pixel (0, 0) is at (0, 0).
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>
#include <opencv2/core.hpp>

#include "engine/board.h"
#include "engine/game.h"
#include "engine/error.h"
#include "vision/table_surface.h"

namespace meeplecam::vision {

// A tile to render: its type, cell and rotation (quarter turns clockwise).
struct SceneTile {
    const TileType* type = nullptr;
    Cell at;
    int rot = 0;
    const TileType* printed = nullptr;  // the art, when `type` is a variant of it (a tile with a bridge); null: `type`
};

// How a follower sits on its feature: upright, or lying flat (a farmer, as the rules have it).
enum class PiecePose : std::uint8_t { Auto, Standing, Lying };

// A follower (meeple) on a feature of a placed tile.
struct ScenePiece {
    Cell at;             // the tile it stands on
    int feature = 0;     // index into that tile type's features
    std::string colour;  // player colour: red, blue, green, yellow, black, grey
    Port loc = 0;        // the board port named in the record (recorded in the truth)
    cv::Point2d shift_mm{0, 0};  // pushed this far off its spot (a knocked follower), table mm
    PiecePose pose = PiecePose::Auto;  // Auto: lying on a field when RenderOptions::farmers_lie, else standing
};

// A bridge (Bridges, Castles and Bazaars): a wooden arch across a tile from the middle of one
// field side to the middle of the opposite one.
struct SceneBridge {
    Cell at;
    int axis = 0;  // board orientation: 0 north-south, 1 east-west
};

// A ferry (Ferries): a small boat on a lake tile joining two of its jetties.
struct SceneFerry {
    Cell at;
    Port a = 0, b = 0;  // the two jetties' board ports
};

// A castle token (Bridges, Castles and Bazaars) across the side shared by the two halves of a
// small city; while it waits to score its owner's follower stands on it.
struct SceneCastle {
    std::array<Cell, 2> cells{};  // the two city tiles (neighbours)
    std::string colour;           // its owner's colour
    bool occupied = true;         // the follower still stands on it (it has not scored)
};

// What to render: tiles and the pieces on them.
struct Scene {
    std::vector<SceneTile> tiles;
    std::vector<ScenePiece> pieces;
    std::vector<SceneBridge> bridges;
    std::vector<SceneFerry> ferries;
    std::vector<SceneCastle> castles;
};

// Returns the tiles of a board, in placement order.
std::vector<SceneTile> scene_tiles(const Board& board);
// Returns a game's tiles and the followers still on the board, with its bridges, ferries and
// castles when its rule modules have them.
Scene scene_of(const Game& game);

// The meeple's outline (its side view), counter-clockwise, in units of its height: x across
// (-0.5..0.5), y up (0..1). The renderer extrudes it to a slab 0.44 of its height thick; the
// piece detector matches the silhouettes it casts (standing or lying) against what it finds.
const std::vector<cv::Point2d>& meeple_outline();
constexpr double kMeepleThickness = 0.44;  // the slab's thickness, in units of the height

// Sizes of the expansion pieces (mm), shared by the renderer and the piece detector.
struct TokenSizes {
    double bridge_length = 40, bridge_width = 11, bridge_height = 7;  // the arch; a follower stands on its deck
    double ferry_length = 17, ferry_width = 7.5, ferry_height = 4;
    double castle_length = 24, castle_width = 18, castle_height = 12;  // length across the shared side
    double ferry_offset = 0.14;  // share of the tile side a ferry between two neighbouring jetties sits towards their corner
};

enum class Difficulty : std::uint8_t { Easy, Medium, Hard };
std::string_view difficulty_name(Difficulty d);
// Parses "easy", "medium" or "hard"; the error lists them.
Result<Difficulty> parse_difficulty(std::string_view name);

// A closed interval a scene parameter is drawn from uniformly (lo == hi: a fixed value).
struct Span {
    double lo = 0;
    double hi = 0;
};

// Everything the renderer may vary, with the defaults of the medium preset.
struct RenderOptions {
    std::string preset = "medium";  // name of the preset these options started from (recorded in the truth)
    int width = 1920;               // image width (pixels)
    int height = 1080;              // image height (pixels)
    std::string style;              // tile art style (vision/tile_art.h); empty: a built-in style at random
    std::vector<TableSurface> surfaces = {TableSurface::Wood, TableSurface::Cloth, TableSurface::Plain,
                                          TableSurface::Busy};  // table looks to pick from

    // Tiles.
    double tile_mm = 45.0;           // tile side
    double tile_thickness_mm = 2.0;  // cardboard thickness; the side faces show under a tilted camera
    Span gap_mm{0.3, 1.5};           // nominal gap between neighbouring tiles (one value per scene)
    double jitter_mm = 2.0;          // largest offset of a tile from its grid position (per axis)
    double jitter_deg = 3.0;         // largest turn of a tile off the grid
    double meeple_mm = 16.0;         // height (and width) of a follower
    bool farmers_lie = true;         // followers on fields lie flat (the rules' farmers); others stand
    double piece_room = 0.7;         // a piece stands at a random spot of its feature with at least this share of the
                                     // feature's widest room (1: always the widest spot, where pennants are printed)

    // Camera.
    Span tilt_deg{0, 25};            // angle between the optical axis and the table normal
    Span roll_deg{-180, 180};        // turn of the image about the optical axis
    Span fov_deg{50, 70};            // horizontal field of view
    Span fill{0.7, 0.93};            // share of the frame the board spans along its tighter axis
    double off_centre = 0.6;         // how far the board may sit off the frame centre (share of the room left)

    // Light.
    Span light_gradient{0.0, 0.3};       // brightness change from one side of the frame to the other
    Span colour_temperature_k{3200, 7500};  // colour of the light the white balance missed (6500 = neutral)
    Span exposure{0.85, 1.1};            // overall gain
    Span vignette{0.0, 0.2};             // darkening of the frame corners
    double glare_chance = 0.35;          // probability of a specular glare spot on the board
    Span glare_strength{0.25, 0.55};     // glare peak: share of the way to white
    Span glare_radius{0.05, 0.14};       // glare radius, share of the image diagonal
    Span shadow_strength{0.2, 0.45};     // darkening of the table under a tile's shadow

    // Sensor.
    Span noise_sigma{1.0, 3.0};      // per-pixel noise (8-bit levels)
    Span blur_sigma{0.0, 0.8};       // defocus blur (pixels)
    Span jpeg_quality{80, 93};       // JPEG re-encoding quality (0..0: none)

    // Occluder.
    double hand_chance = 0.15;       // probability of a hand reaching over the board

    // Footage of one match (a fixed camera over many frames). When scene_seed is set, the
    // style, table, camera, light, glare and tile layout come from it (and layout_cells), and
    // the per-frame seed drives only the hand, the piece poses' noise and the sensor.
    std::optional<std::uint64_t> scene_seed;  // seed of everything that stays put across frames
    std::vector<Cell> layout_cells;   // cells laid out and framed (every cell of the match); needs scene_seed
    double exposure_gain = 1.0;       // multiplies the drawn exposure (slow light drift)
    double colour_shift_k = 0.0;      // added to the drawn colour temperature (slow light drift)
    std::optional<Cell> hand_cell;    // the hand reaches for this cell (a layout cell) instead of a rim tile
    double hand_reach = 1.0;          // how far the hand has come in: 1 at the target, 0 just outside the frame

    // Checks every field; the error names the field and the allowed range.
    Status check() const;
    // Returns the options of a difficulty preset.
    static RenderOptions for_difficulty(Difficulty d);
    nlohmann::json to_json() const;
};

// Where one tile ended up.
struct TileTruth {
    std::string tile;                        // type id
    Cell at;                                 // board cell
    int rot_deg = 0;                         // rotation as in records (0, 90, 180, 270)
    cv::Point2d centre_mm;                   // tile centre on the table (after jitter)
    double turn_deg = 0;                     // off-grid turn, clockwise
    std::array<cv::Point2d, 4> corners_px{}; // top-face corners in the image: the cell's NW, NE, SE, SW corner
    cv::Point2d centre_px;                   // top-face centre in the image
    double visible = 1.0;                    // share of the top face not hidden by the hand
};

struct CameraTruth {
    cv::Matx33d intrinsics = cv::Matx33d::eye();  // K (no lens distortion)
    cv::Matx33d rotation = cv::Matx33d::eye();    // world -> camera
    cv::Vec3d translation;                         // world -> camera
    double tilt_deg = 0, roll_deg = 0, azimuth_deg = 0, fov_deg = 0, distance_mm = 0;
};

// Where one piece ended up.
struct PieceTruth {
    std::string colour;
    Cell at;
    Port loc = 0;
    std::string feature;     // kind of the feature it stands on ("road", "city", ...)
    cv::Point2d base_mm;     // where it stands on the tile top (table mm)
    cv::Point2d base_px;     // that point in the image
    cv::Point2d head_px;     // the top of its head in the image
    std::string kind = "follower";  // what the piece is
    bool lying = false;      // lying flat (base_* is then the middle of its body)
    double visible = 1.0;    // share of its silhouette not hidden by nearer pieces or the hand
};

// Where one bridge, ferry or castle token ended up.
struct TokenTruth {
    std::string kind;            // "bridge", "ferry" or "castle"
    Cell at;                     // its tile (a castle: the first of its two)
    Cell other;                  // a castle's second tile (else `at`)
    std::array<Port, 2> ports{}; // bridge: the two middle ports it joins; ferry: the two jetties; castle: the city's port on each tile
    std::string colour;          // a castle's owner; empty for bridges and ferries
    bool occupied = false;       // a castle with its owner's follower on it
    cv::Point2d centre_mm;       // its middle on the table
    cv::Point2d centre_px;       // that point (on the tile tops) in the image
};

// The ground truth of one render.
struct RenderTruth {
    int width = 0, height = 0;
    std::uint64_t seed = 0;
    std::string style, surface;
    double tile_mm = 45, thickness_mm = 2, gap_mm = 0;
    CameraTruth camera;
    cv::Matx33d table_to_image = cv::Matx33d::eye();  // homography: table plane (z = 0), mm -> px
    cv::Matx33d tiles_to_image = cv::Matx33d::eye();  // homography: plane of the tile tops, mm -> px
    std::vector<TileTruth> tiles;                      // in the order given
    std::vector<PieceTruth> pieces;                    // in the order given
    std::vector<TokenTruth> tokens;                    // bridges, then ferries, then castles, in the order given
    bool glare = false;
    cv::Point2d glare_px;
    double glare_radius_px = 0;
    bool hand = false;
    std::vector<cv::Point> hand_outline;  // outline of the hand (and arm) in the image, when present
    cv::Point2d board_origin_mm;          // nominal centre of cell (0, 0) on the table (before jitter)
    RenderOptions options;                // the options used

    nlohmann::json to_json() const;
};

struct Rendering {
    cv::Mat image;  // CV_8UC3, options.width x options.height
    RenderTruth truth;
};

// Renders the tiles as a photograph. Deterministic for a given seed, options and build.
// Errors (Invalid): no tiles, a null type, two tiles on one cell, options failing check().
Result<Rendering> render_table(const std::vector<SceneTile>& tiles, const RenderOptions& options, std::uint64_t seed);
// Renders tiles and pieces. Errors also for a piece off the board, on a feature its tile
// lacks, or of an unknown colour.
Result<Rendering> render_table(const Scene& scene, const RenderOptions& options, std::uint64_t seed);

// Renders the photo a player takes to calibrate colours (calibration/player_colours.h): one
// standing follower of each of `colours` on a white sheet on the table, lit as render_table lights
// a scene with the same options (colour temperature, exposure; a fixed span gives the same cast),
// with sensor noise. Followers stand in rows of three, 60 mm apart, in the order given.
// Errors (Invalid): no colours, an unknown colour, options failing check().
Result<cv::Mat> render_colour_shot(const std::vector<std::string>& colours, const RenderOptions& options, std::uint64_t seed);

// Returns the truth file for an image: "out/scene.png" -> "out/scene.truth.json".
std::string truth_path_for(const std::string& image_path);
// Writes the image (.png, .jpg or .jpeg, by extension) and its truth JSON, each atomically.
Status write_rendering(const Rendering& rendering, const std::string& image_path);

}  // namespace meeplecam::vision
