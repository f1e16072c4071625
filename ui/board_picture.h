// BoardPicture: what the board view draws, as plain values built from a Game.
#pragma once

#include <QColor>
#include <QImage>
#include <QPointF>
#include <QString>

#include <array>
#include <cstdint>
#include <map>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "engine/game.h"

namespace meeplecam::ui {

struct PictureFollower {
    QPointF where;  // position inside the tile, 0..1 (x east, y south)
    QColor color;
    bool returning = false;  // sent home by a scoring but still on the table: to be taken off
};

struct PictureTile {
    int x = 0;
    int y = 0;
    QString label;  // e.g. "V 90"
    QImage art;     // the tile's art, already turned
    std::vector<PictureFollower> followers;
};

// A cell to mark on the board: a legal placement of the drawn tile (label: its rotations).
struct PictureMarker {
    int x = 0;
    int y = 0;
    QString label;  // e.g. "0 90 180"
};

struct BoardPicture {
    std::vector<PictureTile> tiles;
    std::vector<PictureMarker> markers;              // legal placements of the drawn tile
    std::vector<std::pair<int, int>> highlighted;    // cells of features completed and scored
    int min_x = 0, max_x = 0, min_y = 0, max_y = 0;  // bounds of tiles and markers
};

// Returns the colour a player's pieces are drawn in ("grey" and unknown names get sensible colours).
QColor player_color(const std::string& color);

// Draws tile art from the catalog geometry, once per (type, rotation); values out, no Qt widgets.
// Keyed by what the art depends on, not by the TileType's address: every replay of a record
// builds a new catalog, so addresses would add a copy of the art per move (and a reused
// address would return another type's art).
class TileArtCache {
public:
    explicit TileArtCache(int tile_px = 96) : tile_px_(tile_px) {}
    const QImage& art(const TileType& type, int rot);
    std::size_t size() const { return cache_.size(); }

private:
    using Key = std::tuple<std::string, std::string, int, std::array<std::uint16_t, 4>, std::size_t, int>;
    int tile_px_;
    std::map<Key, QImage> cache_;
};

// Builds the picture of a game's board: every tile with its art and the followers on it, and
// the cells of every completed feature scored during the game.
BoardPicture board_picture(const Game& game, TileArtCache& cache);
// Adds the legal placements of `type` on `game`'s board as markers (one per cell, its rotations
// listed) and widens the bounds to show them.
void add_placement_markers(BoardPicture& picture, const Game& game, const TileType& type);

}  // namespace meeplecam::ui
