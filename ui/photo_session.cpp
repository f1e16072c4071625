#include "ui/photo_session.h"

#include <QObject>

#include <algorithm>
#include <cmath>
#include <set>

#include "engine/ports.h"
#include "vision/homography.h"
#include "vision/pennant_twins.h"
#include "vision/tile_art.h"

namespace meeplecam::ui {
namespace {

std::string tile_text(const TileType& t, int rot) { return t.id + " " + std::to_string(rot * 90) + "°"; }

// Where the feature point `uv` (0..1 in the tile) of reading cell (col, row) lies in the photo.
cv::Point2d image_point(const vision::LatticeView& view, int col, int row, cv::Point2d uv) {
    return vision::apply_homography(view.image_to_top.inv(), cv::Point2d((col + uv.x) * view.pitch_px, (row + uv.y) * view.pitch_px));
}

}  // namespace

Result<PhotoSession> PhotoSession::read(const cv::Mat& bgr, Record setup, const vision::ColourModels& colours) {
    if (bgr.empty() || bgr.type() != CV_8UC3) return invalid("photo", "the photo must be an 8-bit colour image");
    auto catalog = catalog_for(setup);
    if (!catalog) return catalog.error();
    auto read = vision::read_photo(bgr, *catalog.value(), setup.edition, setup.expansions, colours);
    if (!read) return read.error();
    return from_reading(bgr, std::move(setup), std::move(read.value()));
}

Result<PhotoSession> PhotoSession::from_reading(const cv::Mat& bgr, Record setup, vision::PhotoReading as_read, const std::vector<PhotoEdit>& edits,
                                                const std::string& where) {
    if (bgr.empty() || bgr.type() != CV_8UC3) return invalid(where, "the photo must be an 8-bit colour image");
    auto catalog = catalog_for(setup);
    if (!catalog) return catalog.error();
    PhotoSession s;
    s.image_ = bgr;
    s.setup_ = std::move(setup);
    s.catalog_ = catalog.value();
    s.as_read_ = as_read;
    if (auto st = s.rebuild(std::move(as_read), /*tiles_changed=*/true); !st) {
        return where == "photo" ? st.error() : Error{st.error().kind, where + ": " + st.error().where, st.error().message};
    }
    for (std::size_t i = 0; i < edits.size(); ++i) {
        if (auto st = s.apply(edits[i]); !st) {
            return Error{st.error().kind, where + ": corrections[" + std::to_string(i) + "] (" + edits[i].op + ")",
                         st.error().where + ": " + st.error().message};
        }
    }
    return s;
}

Status PhotoSession::rebuild(vision::PhotoReading next, bool tiles_changed) {
    auto built = vision::build_photo_game(setup_, catalog_, next.board, next.pieces.pieces, next.pieces.tokens);
    if (!built) return built.error();
    read_ = std::move(next);
    photo_ = std::make_shared<const vision::PhotoGame>(std::move(built.value()));
    if (tiles_changed) classify_free_cells();
    return Ok{};
}

void PhotoSession::log(PhotoEdit edit) {
    edit.text += " (" + edit.by + ")";
    edits_.push_back(std::move(edit));
}

std::vector<std::string> PhotoSession::corrections() const {
    std::vector<std::string> out;
    for (const auto& e : edits_) out.push_back(e.text);
    return out;
}

Status PhotoSession::apply(const PhotoEdit& e) {
    const Cell at{e.col - photo_->origin.x, e.row - photo_->origin.y};
    if (e.op == "tile") return correct_tile(at, e.tile, e.rot, e.by);
    if (e.op == "add tile") return add_tile(at, e.tile, e.rot, e.by);
    if (e.op == "remove tile") return remove_tile(at, e.by);
    if (e.op == "add follower") return add_piece(at, e.colour, e.loc, e.by);
    if (e.op == "follower") {
        for (std::size_t i = 0; i < pieces().size(); ++i) {
            const auto& p = pieces()[i];
            if (p.col == e.col && p.row == e.row && p.colour == e.was_colour && port_name(p.port) == e.was_loc) {
                return correct_piece(static_cast<int>(i), e.colour, e.loc, e.by);
            }
        }
        return invalid("follower at " + to_string(at), "no " + e.was_colour + " follower on port " + e.was_loc + " there to change");
    }
    return invalid("edit", "unknown op '" + e.op + "' (tile, add tile, remove tile, follower, add follower)");
}

const vision::DecodedTile* PhotoSession::tile_at(Cell at) const {
    for (const auto& t : read_.board.tiles) {
        if (photo_ && t.col - photo_->origin.x == at.x && t.row - photo_->origin.y == at.y) return &t;
    }
    return nullptr;
}

Status PhotoSession::correct_tile(Cell at, const std::string& tile, int rot, const std::string& by) {
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
    const int col = current->col, row = current->row;
    if (auto st = rebuild(std::move(next), /*tiles_changed=*/true); !st) return Error{st.error().kind, where, st.error().message};
    log({"tile", col, row, tile, rot, {}, {}, {}, {}, by, "tile at " + to_string(at) + ": " + was + " -> " + tile_text(*type, rot)});
    return Ok{};
}

Status PhotoSession::correct_piece(int piece, const std::string& colour, const std::string& loc, const std::string& by) {
    if (piece < 0 || piece >= static_cast<int>(pieces().size())) return invalid("correction", "no such follower");
    const vision::DetectedPiece& p = pieces()[static_cast<std::size_t>(piece)];
    const Cell at{p.col - photo_->origin.x, p.row - photo_->origin.y};
    const std::string where = "correction of the follower at " + to_string(at);
    const std::string before = p.colour + " on " + (p.feature >= 0 ? std::string(port_name(p.port)) : std::string("no feature"));
    PhotoEdit edit{"follower", p.col, p.row, {}, 0, p.colour, std::string(port_name(p.port)), colour, loc, by, {}};
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
    edit.text = "follower at " + to_string(at) + ": " + before + " -> " + (colour.empty() ? std::string("removed") : colour + " on " + loc);
    log(std::move(edit));
    return Ok{};
}

Status PhotoSession::add_tile(Cell at, const std::string& tile, int rot, const std::string& by) {
    const std::string where = "tile added at " + to_string(at);
    if (tile_at(at)) return invalid(where, "a tile was read there already (correct it instead)");
    const auto free = free_cells();
    if (std::find(free.begin(), free.end(), at) == free.end()) return invalid(where, "no tile lies beside it: a tile is added next to the board");
    const TileType* type = catalog_->find(tile);
    if (!type) return invalid(where, "unknown tile id '" + tile + "'");
    rot = ((rot % 4) + 4) % 4;
    if (!fits_beside(at, *type, rot)) return invalid(where, tile_text(*type, rot) + " does not match the sides of the tiles beside it");
    vision::DecodedTile added;
    added.col = at.x + photo_->origin.x;
    added.row = at.y + photo_->origin.y;
    added.type = type->index;
    added.rot = rot;
    for (const TileOdds& o : free_cell_odds(at)) {
        if (o.tile == tile && o.rot == rot) added.confidence = o.share;
    }
    const int col = added.col, row = added.row;
    vision::PhotoReading next = read_;
    next.board.tiles.push_back(added);
    if (auto st = rebuild(std::move(next), /*tiles_changed=*/true); !st) return Error{st.error().kind, where, st.error().message};
    log({"add tile", col, row, tile, rot, {}, {}, {}, {}, by, "tile added at " + to_string(at) + ": " + tile_text(*type, rot)});
    return Ok{};
}

Status PhotoSession::remove_tile(Cell at, const std::string& by) {
    const std::string where = "tile removed at " + to_string(at);
    const vision::DecodedTile* current = tile_at(at);
    if (!current) return invalid(where, "no tile was read there");
    if (read_.board.tiles.size() < 2) return invalid(where, "it is the board's last tile");
    const int col = current->col, row = current->row;
    const std::string was = tile_text(catalog_->tiles()[static_cast<std::size_t>(current->type)], current->rot);
    vision::PhotoReading next = read_;
    std::erase_if(next.board.tiles, [&](const vision::DecodedTile& t) { return t.col == col && t.row == row; });
    const auto on_it = [&](const vision::DetectedPiece& p) { return p.col == col && p.row == row; };
    const auto followers = std::erase_if(next.pieces.pieces, on_it);
    std::erase_if(next.pieces.tokens, [&](const vision::DetectedPiece& p) { return on_it(p) || (p.col2 == col && p.row2 == row && p.kind != "bridge"); });
    if (auto st = rebuild(std::move(next), /*tiles_changed=*/true); !st) return Error{st.error().kind, where, st.error().message};
    log({"remove tile", col, row, {}, 0, {}, {}, {}, {}, by,
         "tile removed at " + to_string(at) + ": " + was + (followers ? " and " + std::to_string(followers) + " follower(s) on it" : std::string())});
    return Ok{};
}

Status PhotoSession::add_piece(Cell at, const std::string& colour, const std::string& loc, const std::string& by) {
    const std::string where = "follower added at " + to_string(at);
    const vision::DecodedTile* t = tile_at(at);
    if (!t) return invalid(where, "no tile was read there");
    if (std::none_of(setup_.players.begin(), setup_.players.end(), [&](const PlayerInfo& p) { return p.color == colour; })) {
        return invalid(where, "no player plays " + (colour.empty() ? std::string("that colour") : colour));
    }
    const auto port = parse_port(loc);
    if (!port) return invalid(where, "unknown feature port '" + loc + "'");
    const TileType& type = catalog_->tiles()[static_cast<std::size_t>(t->type)];
    vision::DetectedPiece p;
    p.colour = colour;
    p.col = t->col;
    p.row = t->row;
    p.on_tile = true;
    p.port = *port;
    p.feature = type.feature_at(*port, t->rot);
    if (p.feature < 0) return invalid(where, "no feature of " + type.id + " owns port " + loc);
    p.feature_kind = type.features[static_cast<std::size_t>(p.feature)].kind;
    p.confidence = 1;  // added by hand
    const vision::LatticeView& view = read_.board.view;
    const cv::Point2d uv = vision::port_point(*port, /*inset=*/0.18);
    p.top_px = cv::Point2d((t->col + uv.x) * view.pitch_px + t->offset_px.x, (t->row + uv.y) * view.pitch_px + t->offset_px.y);
    p.table_mm = p.top_px * (1.0 / view.px_per_mm);
    p.image_px = image_point(view, t->col, t->row, uv + t->offset_px * (1.0 / view.pitch_px));
    vision::PhotoReading next = read_;
    next.pieces.pieces.push_back(p);
    if (auto st = rebuild(std::move(next)); !st) return Error{st.error().kind, where, st.error().message};
    log({"add follower", p.col, p.row, {}, 0, {}, {}, colour, loc, by,
         "follower added at " + to_string(at) + ": " + colour + " on " + loc + " (" + std::string(feature_kind_name(p.feature_kind)) + ")"});
    return Ok{};
}

bool PhotoSession::fits_beside(Cell at, const TileType& type, int r) const {
    const auto& types = catalog_->tiles();
    for (int side = 0; side < 4; ++side) {
        const Cell n{at.x + kSideDx[static_cast<std::size_t>(side)], at.y + kSideDy[static_cast<std::size_t>(side)]};
        const vision::DecodedTile* other = tile_at(n);
        if (!other) continue;
        const TileType& b = types[static_cast<std::size_t>(other->type)];
        if (type.edge_at(r, side) != b.edge_at(other->rot, side + 2)) return false;
    }
    return true;
}

std::vector<Cell> PhotoSession::free_cells() const {
    std::set<Cell> taken, out;
    for (const auto& t : read_.board.tiles) taken.insert(Cell{t.col - photo_->origin.x, t.row - photo_->origin.y});
    for (const Cell& c : taken) {
        for (int side = 0; side < 4; ++side) {
            const Cell n{c.x + kSideDx[static_cast<std::size_t>(side)], c.y + kSideDy[static_cast<std::size_t>(side)]};
            if (!taken.count(n)) out.insert(n);
        }
    }
    return {out.begin(), out.end()};
}

void PhotoSession::classify_free_cells() {
    free_odds_.clear();
    const vision::LatticeView& view = read_.board.view;
    if (view.top.empty()) return;
    std::vector<vision::CellObservation> cells;
    for (const auto& t : read_.board.tiles) cells.push_back({t.col, t.row, 1.0, t.offset_px});
    const std::size_t board_cells = cells.size();
    for (const Cell& c : free_cells()) {
        const int col = c.x + photo_->origin.x, row = c.y + photo_->origin.y;
        if (col >= 0 && row >= 0 && col < view.cols && row < view.rows) cells.push_back({col, row, 1.0, {0, 0}});
    }
    if (cells.size() == board_cells) return;
    const auto& types = catalog_->tiles();
    const vision::ClassifierOptions options = vision::ReaderOptions{}.classifier;
    // Two passes: the free cells that look like bare table are dropped by the first; the
    // second scores the rest with the board alone, since many table cells taken for tiles
    // would skew the colours the classifier learns from the board.
    std::set<std::pair<int, int>> board;
    for (const auto& t : read_.board.tiles) board.insert({t.col, t.row});
    std::vector<vision::CellObservation> kept(cells.begin(), cells.begin() + static_cast<long>(board_cells));
    for (const vision::CellHypotheses& h : vision::classify_cells(view, cells, *catalog_, options)) {
        if (!board.count({h.col, h.row}) && !h.hidden) kept.push_back({h.col, h.row, 1.0, {0, 0}});
    }
    if (kept.size() == board_cells) return;
    for (const vision::CellHypotheses& h : vision::classify_cells(view, kept, *catalog_, options)) {
        if (board.count({h.col, h.row}) || h.hidden || h.hyps.empty()) continue;
        // Softmax of the tempered scores (as the reader's confidences).
        double top = h.hyps.front().score;
        for (const auto& y : h.hyps) top = std::max(top, y.score);
        double sum = 0;
        for (const auto& y : h.hyps) sum += std::exp(y.score - top);
        std::vector<TileOdds>& odds = free_odds_[Cell{h.col, h.row}];
        for (const auto& y : h.hyps) odds.push_back({types[static_cast<std::size_t>(y.type)].id, y.rot, std::exp(y.score - top) / sum});
        std::stable_sort(odds.begin(), odds.end(), [](const TileOdds& a, const TileOdds& b) { return a.share > b.share; });
    }
    order_pennant_twins();
}

void PhotoSession::order_pennant_twins() {
    const auto& types = catalog_->tiles();
    const auto twins = vision::pennant_twins(*catalog_);
    const auto has_pennant = [](const TileType& t) {
        return std::any_of(t.features.begin(), t.features.end(), [](const FeatureDef& f) { return f.kind == FeatureKind::City && f.pennants > 0; });
    };
    for (auto& [cell, odds] : free_odds_) {
        // The likeliest placement that has a twin, put on the cell, tells where its city lies.
        const auto guess = std::find_if(odds.begin(), odds.end(), [&](const TileOdds& o) { return twins[static_cast<std::size_t>(catalog_->find(o.tile)->index)] >= 0; });
        if (guess == odds.end()) continue;
        std::vector<vision::DecodedTile> tiles = read_.board.tiles;
        vision::DecodedTile t;
        t.col = cell.x, t.row = cell.y, t.type = catalog_->find(guess->tile)->index, t.rot = guess->rot;
        tiles.push_back(t);
        const auto evidence = vision::decide_pennants(read_.board.view, tiles, *catalog_);
        const auto ev = std::find_if(evidence.begin(), evidence.end(), [&](const vision::PennantEvidence& e) { return e.col == cell.x && e.row == cell.y; });
        if (ev == evidence.end() || !ev->decided) continue;
        // Of each twin pair at one rotation, the one the evidence supports takes the higher share.
        for (TileOdds& a : odds) {
            const TileType& ta = *catalog_->find(a.tile);
            const int twin = twins[static_cast<std::size_t>(ta.index)];
            if (twin < 0 || has_pennant(ta) != ev->pennant) continue;
            for (TileOdds& b : odds) {
                if (b.tile == types[static_cast<std::size_t>(twin)].id && b.rot == a.rot && b.share > a.share) std::swap(a.share, b.share);
            }
        }
        std::stable_sort(odds.begin(), odds.end(), [](const TileOdds& a, const TileOdds& b) { return a.share > b.share; });
    }
}

std::vector<TileOdds> PhotoSession::free_cell_odds(Cell at) const {
    const auto it = free_odds_.find(Cell{at.x + photo_->origin.x, at.y + photo_->origin.y});
    return it == free_odds_.end() ? std::vector<TileOdds>{} : it->second;
}

std::vector<TileChoice> PhotoSession::add_tile_choices(Cell at) const {
    std::vector<TileChoice> out;
    const auto free = free_cells();
    if (std::find(free.begin(), free.end(), at) == free.end()) return out;
    std::map<int, int> read_copies;  // per type: copies on the board
    for (const auto& t : read_.board.tiles) ++read_copies[t.type];
    for (const TileType& type : catalog_->tiles()) {
        if (type.count_in(setup_.edition) <= 0) continue;
        for (int r : type.distinct_rotations) {
            if (fits_beside(at, type, r)) out.push_back({type.id, r, -1, type.count_in(setup_.edition) - read_copies[type.index], {}});
        }
    }
    const auto judged = free_cell_odds(at);
    rank_tile_choices(out, judged.empty() ? nullptr : &judged, std::string());
    return out;
}

std::vector<PieceChoice> PhotoSession::add_piece_choices(Cell at, double within_x, double within_y) const {
    std::vector<PieceChoice> out;
    const vision::DecodedTile* t = tile_at(at);
    if (!t) return out;
    const TileType& type = catalog_->tiles()[static_cast<std::size_t>(t->type)];
    const int feature = vision::feature_at_point(type, t->rot, cv::Point2d(within_x, within_y), /*search=*/0.1, vision::FeaturePreference::Any);
    if (feature < 0) return out;
    const auto& def = type.features[static_cast<std::size_t>(feature)];
    const std::string loc(port_name(rotate_port(def.ports.front(), t->rot)));
    const QString kind = QString::fromStdString(std::string(feature_kind_name(def.kind)));
    for (const PlayerInfo& player : setup_.players) {
        out.push_back({player.color, loc,
                       QObject::tr("add a %1 follower: %2 (%3)").arg(QString::fromStdString(player.color), kind, QString::fromStdString(loc))});
    }
    return out;
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
            if (!fits_beside(at, type, r)) continue;  // every touching side must still match (the board as read is otherwise kept)
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
