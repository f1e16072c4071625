#include "ui/board_picture.h"

#include <algorithm>
#include <random>

#include <opencv2/imgproc.hpp>

#include "vision/tile_art.h"

namespace meeplecam::ui {

QColor player_color(const std::string& color) {
    if (color == "grey" || color == "gray") return QColor(150, 150, 150);
    if (color == "yellow") return QColor(240, 200, 30);
    if (color == "green") return QColor(40, 160, 60);
    if (color == "blue") return QColor(40, 90, 220);
    if (color == "red") return QColor(220, 40, 40);
    if (color == "black") return QColor(20, 20, 20);
    const QColor named(QString::fromStdString(color));
    return named.isValid() ? named : QColor(255, 0, 255);
}

const QImage& TileArtCache::art(const TileType& type, int rot) {
    const Key key{type.set, type.id, type.index, type.signature, type.features.size(), rot};
    auto it = cache_.find(key);
    if (it != cache_.end()) return it->second;
    std::mt19937_64 rng(static_cast<std::uint64_t>(type.index) * 4 + static_cast<std::uint64_t>(rot));
    cv::Mat bgr = vision::render_tile(type, rot, tile_px_, vision::builtin_tile_styles().front(), rng);
    cv::Mat rgb;
    cv::cvtColor(bgr, rgb, cv::COLOR_BGR2RGB);
    QImage image(rgb.data, rgb.cols, rgb.rows, static_cast<int>(rgb.step), QImage::Format_RGB888);
    return cache_.emplace(key, image.copy()).first->second;  // copy: own the pixels
}

BoardPicture board_picture(const Game& game, TileArtCache& cache) {
    BoardPicture pic;
    const Board& board = game.board();
    bool first = true;
    for (std::size_t i = 0; i < board.tiles().size(); ++i) {
        const PlacedTile& t = board.tiles()[i];
        PictureTile tile;
        tile.x = t.at.x;
        tile.y = t.at.y;
        tile.label = QString::fromStdString(t.type->id) + " " + QString::number(t.rot * 90);
        tile.art = cache.art(*t.type, t.rot);
        pic.tiles.push_back(std::move(tile));
        pic.min_x = first ? t.at.x : std::min(pic.min_x, t.at.x);
        pic.max_x = first ? t.at.x : std::max(pic.max_x, t.at.x);
        pic.min_y = first ? t.at.y : std::min(pic.min_y, t.at.y);
        pic.max_y = first ? t.at.y : std::max(pic.max_y, t.at.y);
        first = false;
    }
    for (const Follower& f : board.followers()) {
        if (!f.on_board) continue;
        const int ti = board.tile_at(f.at);
        if (ti < 0) continue;
        // port_point works in catalog orientation; a follower's loc is already in board orientation.
        const cv::Point2d p = vision::port_point(f.loc, /*inset=*/0.18);
        pic.tiles[static_cast<std::size_t>(ti)].followers.push_back(
            {QPointF(p.x, p.y), player_color(game.players()[static_cast<std::size_t>(f.player)].color)});
    }
    for (const ScoreEvent& ev : game.score_events()) {
        if (!ev.completed) continue;
        for (const Cell& c : ev.tiles) {
            if (board.tile_at(c) >= 0) pic.highlighted.emplace_back(c.x, c.y);
        }
    }
    return pic;
}

void add_placement_markers(BoardPicture& picture, const Game& game, const TileType& type) {
    std::map<std::pair<int, int>, QString> by_cell;
    for (const Placement& p : game.legal_placements(type)) {
        QString& label = by_cell[{p.at.x, p.at.y}];
        label += (label.isEmpty() ? "" : " ") + QString::number(p.rot * 90);
    }
    const bool empty = picture.tiles.empty() && picture.markers.empty();
    for (const auto& [cell, label] : by_cell) {
        picture.markers.push_back({cell.first, cell.second, label});
        const bool first = empty && picture.markers.size() == 1;
        picture.min_x = first ? cell.first : std::min(picture.min_x, cell.first);
        picture.max_x = first ? cell.first : std::max(picture.max_x, cell.first);
        picture.min_y = first ? cell.second : std::min(picture.min_y, cell.second);
        picture.max_y = first ? cell.second : std::max(picture.max_y, cell.second);
    }
}

}  // namespace meeplecam::ui
