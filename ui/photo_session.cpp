#include "ui/photo_session.h"

#include <QObject>

#include <algorithm>
#include <cmath>
#include <set>

#include "engine/ports.h"
#include "vision/tile_art.h"

namespace meeplecam::ui {
namespace {

std::string tile_text(const TileType& t, int rot) { return t.id + " " + std::to_string(rot * 90) + "°"; }

}  // namespace

Result<PhotoSession> PhotoSession::read(const cv::Mat& bgr, Record setup, const vision::ColourModels& colours) {
    if (bgr.empty() || bgr.type() != CV_8UC3) return invalid("photo", "the photo must be an 8-bit colour image");
    auto catalog = catalog_for(setup);
    if (!catalog) return catalog.error();
    auto read = vision::read_photo(bgr, *catalog.value(), setup.edition, setup.expansions, colours);
    if (!read) return read.error();
    PhotoSession s;
    s.image_ = bgr;
    s.setup_ = std::move(setup);
    s.catalog_ = catalog.value();
    if (auto st = s.rebuild(std::move(read.value())); !st) return st.error();
    return s;
}

Status PhotoSession::rebuild(vision::PhotoReading next) {
    auto built = vision::build_photo_game(setup_, catalog_, next.board, next.pieces.pieces, next.pieces.tokens);
    if (!built) return built.error();
    read_ = std::move(next);
    photo_ = std::make_shared<const vision::PhotoGame>(std::move(built.value()));
    return Ok{};
}

const vision::DecodedTile* PhotoSession::tile_at(Cell at) const {
    for (const auto& t : read_.board.tiles) {
        if (photo_ && t.col - photo_->origin.x == at.x && t.row - photo_->origin.y == at.y) return &t;
    }
    return nullptr;
}

Status PhotoSession::correct_tile(Cell at, const std::string& tile, int rot) {
    const std::string where = "correction of the tile at " + to_string(at);
    const vision::DecodedTile* current = tile_at(at);
    if (!current) return invalid(where, "no tile was read there");
    const TileType* type = catalog_->find(tile);
    if (!type) return invalid(where, "unknown tile id '" + tile + "'");
    rot = ((rot % 4) + 4) % 4;
    const TileType& before = catalog_->tiles()[static_cast<std::size_t>(current->type)];
    if (before.id == tile && current->rot == rot) return invalid(where, "the tile is already " + tile_text(before, rot));
    const std::string was = tile_text(before, current->rot);
    vision::PhotoReading next = read_;
    for (auto& t : next.board.tiles) {
        if (t.col != current->col || t.row != current->row) continue;
        t.type = type->index;
        t.rot = rot;
    }
    // Followers on it stand on whatever feature of the new tile lies under them.
    for (auto& p : next.pieces.pieces) {
        if (!p.on_tile || p.col != current->col || p.row != current->row) continue;
        p.feature = type->feature_at(p.port, rot);
        if (p.feature >= 0) p.feature_kind = type->features[static_cast<std::size_t>(p.feature)].kind;
    }
    if (auto st = rebuild(std::move(next)); !st) return Error{st.error().kind, where, st.error().message};
    corrections_.push_back("tile at " + to_string(at) + ": " + was + " -> " + tile_text(*type, rot));
    return Ok{};
}

Status PhotoSession::correct_piece(int piece, const std::string& colour, const std::string& loc) {
    if (piece < 0 || piece >= static_cast<int>(pieces().size())) return invalid("correction", "no such follower");
    const vision::DetectedPiece& p = pieces()[static_cast<std::size_t>(piece)];
    const Cell at{p.col - photo_->origin.x, p.row - photo_->origin.y};
    const std::string where = "correction of the follower at " + to_string(at);
    const std::string before = p.colour + " on " + (p.feature >= 0 ? std::string(port_name(p.port)) : std::string("no feature"));
    vision::PhotoReading next = read_;
    if (colour.empty()) {
        next.pieces.pieces.erase(next.pieces.pieces.begin() + piece);
    } else {
        const auto port = parse_port(loc);
        if (!port) return invalid(where, "unknown feature port '" + loc + "'");
        const vision::DecodedTile* t = tile_at(at);
        if (!t) return invalid(where, "the follower stands on no tile read");
        const TileType& type = catalog_->tiles()[static_cast<std::size_t>(t->type)];
        auto& q = next.pieces.pieces[static_cast<std::size_t>(piece)];
        q.colour = colour;
        q.port = *port;
        q.feature = type.feature_at(*port, t->rot);
        if (q.feature < 0) return invalid(where, "no feature of " + type.id + " owns port " + loc);
        q.feature_kind = type.features[static_cast<std::size_t>(q.feature)].kind;
        q.on_tile = true;
    }
    if (auto st = rebuild(std::move(next)); !st) return Error{st.error().kind, where, st.error().message};
    corrections_.push_back("follower at " + to_string(at) + ": " + before + " -> " + (colour.empty() ? std::string("removed") : colour + " on " + loc));
    return Ok{};
}

std::vector<TileOdds> PhotoSession::odds(Cell at) const {
    std::vector<TileOdds> out;
    const vision::DecodedTile* t = tile_at(at);
    if (!t) return out;
    const auto& types = catalog_->tiles();
    out.push_back({types[static_cast<std::size_t>(t->type)].id, t->rot, t->confidence});
    if (t->runner_type >= 0) out.push_back({types[static_cast<std::size_t>(t->runner_type)].id, t->runner_rot, t->runner_confidence});
    return out;
}

std::vector<TileChoice> PhotoSession::tile_choices(Cell at) const {
    std::vector<TileChoice> out;
    const vision::DecodedTile* current = tile_at(at);
    if (!current) return out;
    const auto& types = catalog_->tiles();
    std::map<int, int> read_copies;  // per type: copies on the board as read
    for (const auto& t : read_.board.tiles) ++read_copies[t.type];
    for (const TileType& type : types) {
        for (int r : type.distinct_rotations) {
            if (type.index == current->type && r == current->rot) continue;
            // Every touching side must still match (the board as read is otherwise kept).
            bool fits = true;
            for (int side = 0; side < 4 && fits; ++side) {
                const Cell n{at.x + kSideDx[static_cast<std::size_t>(side)], at.y + kSideDy[static_cast<std::size_t>(side)]};
                const vision::DecodedTile* other = tile_at(n);
                if (!other) continue;
                const TileType& b = types[static_cast<std::size_t>(other->type)];
                fits = type.edges[static_cast<std::size_t>((side - r + 8) % 4)] == b.edges[static_cast<std::size_t>((side + 2 - other->rot + 8) % 4)];
            }
            if (!fits) continue;
            const int left = type.count_in(setup_.edition) - read_copies[type.index] + (type.index == current->type ? 1 : 0);
            out.push_back({type.id, r, -1, left, {}});
        }
    }
    const auto judged = odds(at);
    rank_tile_choices(out, &judged, types[static_cast<std::size_t>(current->type)].id);
    return out;
}

std::vector<PieceChoice> PhotoSession::piece_choices(int piece) const {
    std::vector<PieceChoice> out;
    if (piece < 0 || piece >= static_cast<int>(pieces().size())) return out;
    const vision::DetectedPiece& p = pieces()[static_cast<std::size_t>(piece)];
    const std::string loc = p.feature >= 0 ? std::string(port_name(p.port)) : std::string();
    for (const PlayerInfo& player : setup_.players) {
        if (player.color != p.colour && !loc.empty()) {
            out.push_back({player.color, loc, QObject::tr("owner: %1 (%2)").arg(QString::fromStdString(player.color), QString::fromStdString(player.name))});
        }
    }
    const Cell at{p.col - photo_->origin.x, p.row - photo_->origin.y};
    if (const vision::DecodedTile* t = tile_at(at)) {
        const TileType& type = catalog_->tiles()[static_cast<std::size_t>(t->type)];
        std::set<int> offered = {p.feature};
        for (int port = 0; port <= kCentre; ++port) {
            const int feature = type.feature_at(static_cast<Port>(port), t->rot);
            if (feature < 0 || !offered.insert(feature).second) continue;
            const std::string name(port_name(static_cast<Port>(port)));
            out.push_back({p.colour, name,
                           QObject::tr("feature: %1 (%2)")
                               .arg(QString::fromStdString(name),
                                    QString::fromStdString(std::string(feature_kind_name(type.features[static_cast<std::size_t>(feature)].kind))))});
        }
    }
    out.push_back({"", loc, QObject::tr("remove the follower")});
    return out;
}

int PhotoSession::piece_at(Cell at, double within_x, double within_y) const {
    int best = -1;
    double best_d = 1e9;
    for (std::size_t i = 0; i < pieces().size(); ++i) {
        const auto& p = pieces()[i];
        if (p.col - photo_->origin.x != at.x || p.row - photo_->origin.y != at.y) continue;
        const cv::Point2d q = vision::port_point(p.feature >= 0 ? p.port : kCentre, /*inset=*/0.18);
        const double d = std::hypot(q.x - within_x, q.y - within_y);
        if (d < best_d) best = static_cast<int>(i), best_d = d;
    }
    return best;
}

cv::Mat PhotoSession::overlay() const { return vision::draw_photo_score(image_, read_.board, read_.pieces, *photo_); }

std::string PhotoSession::score_text(const std::string& title) const {
    return vision::photo_score_text(title, *photo_, read_.board.tiles.size(), read_.pieces);
}

}  // namespace meeplecam::ui
