// Tile library: the appearance of one user's tile set, learned from photos (learn-tiles).
//
// Per (type, rotation) a small Lab thumbnail of the canonical tile and the mean colour at
// each port. Stored as JSON, format "meeplecam-tile-library", version 1 (docs/vision.md).
#pragma once

#include <array>
#include <string>
#include <vector>

#include <nlohmann/json_fwd.hpp>
#include <opencv2/core.hpp>

#include "engine/catalog.h"
#include "engine/error.h"

namespace meeplecam::vision {

struct TileLibraryEntry {
    std::string tile;
    int rot = 0;                                  // quarter turns clockwise from the catalog orientation
    std::vector<float> thumb;                     // thumb_px x thumb_px x (L, a, b) minus their means, row-major
    std::array<std::array<float, 3>, 13> ports{}; // mean (L, a, b) around each port (NL..WR, C)
    std::string source;                           // the photo it was learned from
};

class TileLibrary {
public:
    static constexpr const char* kFormat = "meeplecam-tile-library";
    static constexpr int kVersion = 1;

    int thumb_px = 16;                 // side of the thumbnails
    std::string game = "carcassonne";  // catalog game the ids belong to
    std::vector<TileLibraryEntry> entries;

    // Adds `canonical` (a BGR canonical tile showing `type` turned by `rot` quarter turns)
    // as four entries, one per rotation (the thumbnail turned). Several photos of a type all count.
    void add(const TileType& type, int rot, const cv::Mat& canonical, const std::string& source);
    // Smallest distance (mean L1 in Lab, L weighted by `lightness_weight`) between `thumb` and
    // the entries of (tile, rot); negative when the library has none.
    double distance(const std::vector<float>& thumb, const std::string& tile, int rot, double lightness_weight) const;
    bool has_tile(const std::string& tile) const;

    nlohmann::json to_json() const;
    static Result<TileLibrary> from_json(const nlohmann::json& doc, const std::string& source);
    // Writes atomically.
    Status save(const std::string& path) const;
    // Errors name the file and the reason (not JSON, wrong format or version, bad entry).
    static Result<TileLibrary> load(const std::string& path);
};

// The Lab thumbnail (px x px x 3 floats, each channel's mean removed) of a canonical BGR tile.
std::vector<float> tile_thumbnail(const cv::Mat& canonical_bgr, int px);
// Mean Lab around each port of a canonical BGR tile.
std::array<std::array<float, 3>, 13> port_colours(const cv::Mat& canonical_bgr);

}  // namespace meeplecam::vision
