#include "engine/game.h"

#include <algorithm>
#include <set>

#include "engine/plural.h"

namespace meeplecam {

Status GameOptions::check() const {
    if (edition.empty()) return invalid("options", "edition must name an edition such as C3");
    if (followers_per_player < 0 || followers_per_player > 100) {
        return invalid("options", "followers_per_player must be 0..100");
    }
    return Ok{};
}

Result<Game> Game::create(std::shared_ptr<const Catalog> catalog, std::vector<PlayerInfo> players,
                          const GameOptions& options, std::vector<std::unique_ptr<RuleModule>> modules) {
    if (!catalog) return invalid("game", "no catalog");
    if (players.empty()) return invalid("players", "a game needs at least one player");
    if (players.size() > 6) return invalid("players", "at most 6 players can play");
    std::set<std::string> colors;
    for (const auto& p : players) {
        if (p.color.empty()) return invalid("players", "every player needs a colour");
        if (!colors.insert(p.color).second) return invalid("players", "colour '" + p.color + "' is used twice");
    }
    if (auto st = options.check(); !st) return st.error();
    Game g;
    g.catalog_ = std::move(catalog);
    g.modules_ = std::move(modules);
    g.players_ = std::move(players);
    g.options_ = options;
    g.scores_.assign(g.players_.size(), 0);
    g.followers_left_.assign(g.players_.size(), options.followers_per_player);
    g.drawn_.assign(g.catalog_->tiles().size(), 0);
    return g;
}

int Game::player_index(std::string_view color) const {
    for (std::size_t i = 0; i < players_.size(); ++i) {
        if (players_[i].color == color) return static_cast<int>(i);
    }
    return -1;
}

int Game::next_player() const {
    for (const auto& m : modules_) {
        if (auto p = m->next_player(*this)) return *p;
    }
    return turn_open_ ? (turn_player_ + 1) % static_cast<int>(players_.size()) : next_player_;
}

int Game::supply_left(const TileType& type) const {
    return type.count_in(options_.edition) - drawn_[type.index];
}

Result<const TileType*> Game::draw(const std::string& id, const std::string& where) {
    const TileType* type = catalog_->find(id);
    if (!type) return invalid(where, "unknown tile id '" + id + "' (not in the game's catalog)");
    if (supply_left(*type) <= 0) {
        return illegal(where, "tile " + id + " used more often than the " + options_.edition + " edition has (" +
                                  std::to_string(type->count_in(options_.edition)) +
                                  (type->count_in(options_.edition) == 1 ? " copy)" : " copies)"));
    }
    ++drawn_[type->index];
    return type;
}

Status Game::apply(const Event& e, int index) {
    const std::string where = "event " + std::to_string(index) + " (" + e.type + ")";
    if (e.type == "correction") return Ok{};  // the audit trail of an edit: the record checks it (engine/correction.h)
    if (finished_) return illegal(where, "the game is already over");
    Status st = Ok{};
    if (e.type == "tile" || e.type == "meeple" || e.type == "discard") {
        for (auto& m : modules_) {
            if (auto veto = m->before_core_event(*this, e, where); !veto) return veto;
        }
    }
    if (e.type == "tile") {
        st = apply_tile(e, index, where);
        if (st) turn_event_ = index;
    } else if (e.type == "meeple") {
        st = apply_meeple(e, where);
    } else if (e.type == "discard") {
        st = apply_discard(e, where);
    } else {
        for (auto& m : modules_) {
            const auto types = m->event_types();
            if (std::find(types.begin(), types.end(), e.type) != types.end()) return m->apply_event(*this, e, where);
        }
        return invalid(where, "unknown event type '" + e.type + "'");
    }
    return st;
}

Result<Game::Mover> Game::check_turn_and_tile(const Event& e, const std::string& where) const {
    const int player = player_index(e.player);
    if (player < 0) return invalid(where, "unknown player colour '" + e.player + "'");
    const int expected = next_player();
    if (player != expected) {
        return illegal(where, "it is " + players_[expected].color + "'s turn, not " + e.player + "'s");
    }
    const TileType* type = catalog_->find(e.tile);
    if (!type) return invalid(where, "unknown tile id '" + e.tile + "' (not in the game's catalog)");
    return Mover{player, type};
}

Status Game::apply_tile(const Event& e, int index, const std::string& where) {
    if (!started_) {
        // The City: the first player places the first tile as a turn and may put a follower on it.
        const bool start_turn = std::any_of(modules_.begin(), modules_.end(),
                                            [](const auto& m) { return m->start_tile_is_turn(); });
        if (start_turn) {
            if (e.player != players_[0].color) {
                return illegal(where, "the first tile is placed by the first player, " + players_[0].color);
            }
        } else if (!e.player.empty()) {
            return illegal(where, "the first event must be the start tile, placed by no player");
        }
        if (!catalog_->start_tile().empty() && e.tile != catalog_->start_tile()) {
            return illegal(where, "the start tile must be " + catalog_->start_tile() + ", not " + e.tile);
        }
        auto type = draw(e.tile, where);
        if (!type) return type.error();
        board_.place_start(*type.value(), Placement{e.at, e.rot});
        started_ = true;
        for (auto& m : modules_) m->on_start_placed(*this);  // e.g. the rest of a multi-cell start board
        if (start_turn) {
            turn_open_ = true;
            meeple_placed_ = false;
            turn_player_ = 0;
            turn_tile_ = 0;
            turn_event_ = index;
            pending_completed_.clear();
            for (auto& m : modules_) m->on_tile_placed(*this);
        }
        return Ok{};
    }
    if (e.player.empty()) return invalid(where, "only the start tile is placed without a 'player'");
    if (turn_open_) {  // a new tile ends the previous turn (its scoring and module follow-ups) first
        if (auto st = end_turn(where); !st) return st;
    }
    auto mover = check_turn_and_tile(e, where);
    if (!mover) return mover.error();
    const int player = mover->player;
    const TileType* known = mover->type;
    for (auto& m : modules_) {
        auto placed = m->placed_type(*this, e, *known, where);
        if (!placed) return placed.error();
        known = placed.value();
    }
    if (auto refusal = module_refusal(*known, Placement{e.at, e.rot})) {  // a family's limits first (Amazonas)
        return illegal(where, "tile " + e.tile + " cannot go at " + to_string(e.at) + " rot " +
                                  std::to_string(e.rot * 90) + ": " + *refusal);
    }
    const PlacementCheck check = board_.check_placement(*known, Placement{e.at, e.rot});
    if (!check.ok) return illegal(where, "tile " + e.tile + " cannot go at " + to_string(e.at) + " rot " +
                                             std::to_string(e.rot * 90) + ": " + check.reason);
    auto type = draw(e.tile, where);
    if (!type) return type.error();
    turn_open_ = true;
    meeple_placed_ = false;
    turn_player_ = player;
    turn_tile_ = board_.place(*known, Placement{e.at, e.rot});
    pending_completed_ = board_.last_completed();
    turn_event_ = index;  // after the previous turn's end (its scores carry its own index), before the hooks
    for (auto& m : modules_) m->on_tile_placed(*this);
    if (options_.check_consistency) board_.check_consistency();
    return Ok{};
}

Status Game::apply_meeple(const Event& e, const std::string& where) {
    if (!turn_open_) return illegal(where, "a follower can only be placed right after its player placed a tile");
    const int player = player_index(e.player);
    if (player < 0) return invalid(where, "unknown player colour '" + e.player + "'");
    if (player != turn_player_) {
        return illegal(where, "it is " + players_[turn_player_].color + "'s turn, not " + e.player + "'s");
    }
    if (meeple_placed_) return illegal(where, "only one follower may be placed per turn");
    const PlacedTile& tile = board_.tiles()[turn_tile_];
    const std::vector<int> allowed = follower_tiles();
    if (std::none_of(allowed.begin(), allowed.end(), [&](int t) { return board_.tiles()[t].at == e.at; })) {
        if (allowed.size() == 1 && allowed.front() == turn_tile_) {
            return illegal(where, "a follower may only go on the tile just placed, at " + to_string(tile.at) +
                                      ", not at " + to_string(e.at));
        }
        return illegal(where, "a follower may not go on a tile at " + to_string(e.at) + " this turn");
    }
    const auto port = parse_port(e.loc);
    if (!port) return invalid(where, "unknown port '" + e.loc + "' (use N, NL, NR, E, ..., WR or C)");
    const int node = board_.node_at(e.at, *port);
    if (node < 0) return illegal(where, "tile at " + to_string(e.at) + " has no feature at port " + e.loc);
    const int root = board_.find(node);
    const Structure& st = board_.structure(root);
    if (!st.follower_ids.empty()) {
        const Follower& other = board_.followers()[st.follower_ids.front()];
        return illegal(where, "the " + std::string(feature_kind_name(st.kind)) + " at " + e.loc +
                                  " already has a follower (" + players_[other.player].color + " at " +
                                  to_string(other.at) + ")");
    }
    for (const auto& m : modules_) {  // family rules (the City: not on a street/market this tile completed)
        if (auto reason = m->refuse_follower(*this, board_, turn_tile_, root)) return illegal(where, *reason);
    }
    if (followers_left_[player] <= 0) {
        return illegal(where, e.player + " has no follower left (all " +
                                  std::to_string(options_.followers_per_player) + " are on the board)");
    }
    --followers_left_[player];
    board_.add_follower(player, node, e.at, *port);
    meeple_placed_ = true;
    return Ok{};
}

Status Game::apply_discard(const Event& e, const std::string& where) {
    if (!started_) return illegal(where, "the start tile must come first");
    if (turn_open_) {
        if (auto st = end_turn(where); !st) return st;
    }
    auto mover = check_turn_and_tile(e, where);
    if (!mover) return mover.error();
    const int player = mover->player;
    const TileType* known = mover->type;
    if (const auto legal = legal_placements(*known); !legal.empty()) {
        const Placement p = legal.front();
        return illegal(where, "tile " + e.tile + " may not be discarded: it fits, e.g. at " + to_string(p.at) +
                                  " rot " + std::to_string(p.rot * 90));
    }
    auto type = draw(e.tile, where);
    if (!type) return type.error();
    next_player_ = player;  // the same player draws again
    for (auto& m : modules_) m->on_tile_discarded(*this, player, *type.value());
    return Ok{};
}

Status Game::end_turn(const std::string& where) {
    if (!turn_open_) return Ok{};
    for (auto& m : modules_) {
        if (auto st = m->check_turn_end(*this, where); !st) return st;
    }
    for (auto& m : modules_) m->on_turn_end(*this);
    std::vector<int> roots;
    for (int r : pending_completed_) {
        const int root = board_.find(r);
        if (std::find(roots.begin(), roots.end(), root) == roots.end()) roots.push_back(root);
    }
    for (int root : roots) score_completed(root);
    pending_completed_.clear();
    for (auto& m : modules_) m->on_turn_scored(*this);
    next_player_ = (turn_player_ + 1) % static_cast<int>(players_.size());
    turn_open_ = false;
    return Ok{};
}

Status Game::close_turn() { return end_turn("end of record"); }

ScoreEvent Game::make_score(int root, ScoreEvent::Phase phase, int points) const {
    const Structure& st = board_.structure(root);
    ScoreEvent ev;
    ev.phase = phase;
    ev.event_index = phase == ScoreEvent::Phase::Turn ? turn_event_ : -1;
    ev.feature = st.kind == FeatureKind::Field ? "farm" : std::string(feature_kind_name(st.kind));
    for (const auto& m : modules_) {  // a family may rename features (Amazonas: tributary, village, camp)
        if (auto v = m->feature_value(*this, root, phase == ScoreEvent::Phase::Final); v && !v->feature.empty()) {
            ev.feature = v->feature;
            break;
        }
    }
    ev.points = points;
    ev.pennants = st.pennants;
    for (int id : st.follower_ids) ++ev.followers[board_.followers()[id].player];
    int most = 0;
    for (const auto& [p, n] : ev.followers) most = std::max(most, n);
    for (const auto& [p, n] : ev.followers) {
        if (n == most) ev.winners.push_back(p);
    }
    if (st.kind == FeatureKind::Monastery) {
        const Cell c = board_.tiles()[board_.node_tile(st.nodes.front())].at;
        for (int dy = -1; dy <= 1; ++dy) {
            for (int dx = -1; dx <= 1; ++dx) {
                if (board_.tile_at(Cell{c.x + dx, c.y + dy}) >= 0) ev.tiles.push_back(Cell{c.x + dx, c.y + dy});
            }
        }
    } else {
        ev.tiles = board_.structure_cells(root);
    }
    return ev;
}

std::pair<int, std::string> Game::completed_value(int root) const {
    for (const auto& m : modules_) {  // a game family's own values (Amazonas, the City's streets and markets)
        if (auto v = m->feature_value(*this, root, false)) return {v->points, v->explanation};
        if (auto value = m->completed_value(*this, root)) return *value;
    }
    const Structure& st = board_.structure(root);
    const int tiles = static_cast<int>(board_.structure_cells(root).size());
    switch (st.kind) {
        case FeatureKind::Road:
            return {tiles, "Completed road of " + plural(tiles, "tile", "tiles") + " x 1"};
        case FeatureKind::City:
            return {2 * tiles + 2 * st.pennants, "Completed city of " + plural(tiles, "tile", "tiles") + " x 2 + " +
                                                     plural(st.pennants, "pennant", "pennants") + " x 2"};
        case FeatureKind::Monastery: return {9, "Completed monastery (9 tiles)"};
        default: return {0, ""};
    }
}

void Game::add_score(ScoreEvent event) {
    for (int p : event.winners) scores_[p] += event.points;
    score_events_.push_back(std::move(event));
}

int Game::tiles_left() const {
    int n = 0;
    for (const TileType& t : catalog_->tiles()) n += supply_left(t);
    return n;
}

void Game::score_completed(int root) {
    Structure& st = board_.structure(root);
    if (st.scored || !board_.is_complete(root)) return;  // a module may have re-opened it
    st.scored = true;
    const auto [points, what] = completed_value(root);
    if (!st.follower_ids.empty()) {
        ScoreEvent ev = make_score(root, ScoreEvent::Phase::Turn, points);
        ev.completed = true;
        ev.explanation = what + " = " + std::to_string(points) + " points";
        for (int id : board_.release_followers(root)) ++followers_left_[board_.followers()[id].player];
        add_score(std::move(ev));
    }
    for (auto& m : modules_) m->on_structure_completed(*this, root, points);
}

void Game::score_final() {
    // Collect the occupied, unscored structures in a stable order: by kind, then first cell.
    std::vector<int> roots;
    for (int node = 0; node < board_.node_count(); ++node) {
        if (board_.find(node) == node && !board_.structure(node).follower_ids.empty() && !board_.structure(node).scored) {
            roots.push_back(node);
        }
    }
    auto rank = [](FeatureKind k) {
        switch (k) {
            case FeatureKind::Road: return 0;
            case FeatureKind::City: return 1;
            case FeatureKind::Monastery: return 2;
            case FeatureKind::Field: return 3;
            default: return 4;
        }
    };
    std::stable_sort(roots.begin(), roots.end(), [&](int a, int b) {
        const auto& sa = board_.structure(a);
        const auto& sb = board_.structure(b);
        if (rank(sa.kind) != rank(sb.kind)) return rank(sa.kind) < rank(sb.kind);
        return board_.structure_cells(a).front() < board_.structure_cells(b).front();
    });
    for (int root : roots) {
        const Structure& st = board_.structure(root);
        const int tiles = static_cast<int>(board_.structure_cells(root).size());
        int points = 0;
        int cities = 0;
        std::string what;
        std::optional<FeatureValue> family;  // a family's own final values (Amazonas)
        for (const auto& m : modules_) {
            if (!family) family = m->feature_value(*this, root, true);
        }
        if (family) {
            points = family->points;
            what = family->explanation;
        } else switch (st.kind) {
            case FeatureKind::Road:
                points = tiles;
                what = "Open road of " + plural(tiles, "tile", "tiles") + " x 1";
                break;
            case FeatureKind::City:
                points = tiles + st.pennants;
                what = "Open city of " + plural(tiles, "tile", "tiles") + " + " +
                       plural(st.pennants, "pennant", "pennants");
                break;
            case FeatureKind::Monastery: {
                const Cell c = board_.tiles()[board_.node_tile(st.nodes.front())].at;
                points = board_.block_tiles(c);
                what = "Open monastery: itself + " + plural(points - 1, "neighbour", "neighbours");
                break;
            }
            case FeatureKind::Field: {
                std::set<int> touched;
                for (int node : st.nodes) {
                    const PlacedTile& t = board_.tiles()[board_.node_tile(node)];
                    for (int c : board_.node_def(node).cities) touched.insert(board_.find(t.node(c)));
                }
                int special = 0, special_points = 0;  // cities a rule module values (e.g. castles)
                for (int city : touched) {
                    std::optional<int> value;
                    for (const auto& m : modules_) {
                        if (!value) value = m->farm_city_value(*this, city);
                    }
                    if (value) {
                        points += *value;
                        special_points += *value;
                        special += *value > 0 ? 1 : 0;
                    } else if (board_.is_complete(city)) {
                        points += 3;
                        ++cities;
                    }
                }
                what = "Farm touching " + plural(cities, "completed city", "completed cities") + " x 3";
                if (special > 0) {
                    what += " + " + plural(special, "city", "cities") + " valued by expansion rules (" +
                            std::to_string(special_points) + ")";
                }
                cities += special;
                break;
            }
            default: continue;
        }
        ScoreEvent ev = make_score(root, ScoreEvent::Phase::Final, points);
        ev.cities = cities;
        ev.explanation = what + " = " + std::to_string(points) + " points";
        for (int p : ev.winners) scores_[p] += points;
        score_events_.push_back(std::move(ev));
    }
}

Status Game::finish() {
    if (finished_) return Ok{};
    if (auto st = end_turn("end of game"); !st) return st;
    score_final();
    for (auto& m : modules_) m->on_final_scoring(*this);
    finished_ = true;
    return Ok{};
}

std::vector<Placement> Game::legal_placements(const TileType& type) const {
    std::vector<Placement> out = board_.legal_placements(type);
    if (modules_.empty()) return out;
    std::erase_if(out, [&](const Placement& p) { return module_refusal(type, p).has_value(); });
    return out;
}

std::optional<std::string> Game::module_refusal(const TileType& type, Placement p) const {
    for (const auto& m : modules_) {
        if (auto r = m->refuse_placement(*this, type, p)) return r;
    }
    return std::nullopt;
}

std::vector<int> Game::follower_tiles() const {
    for (const auto& m : modules_) {
        if (auto tiles = m->follower_tiles(*this)) return *tiles;
    }
    return {turn_tile_};
}

std::vector<FollowerOption> Game::free_features(const Board& board, int tile_index) const {
    std::vector<FollowerOption> out;
    const PlacedTile& t = board.tiles()[tile_index];
    for (std::size_t f = 0; f < t.type->features.size(); ++f) {
        const int node = t.node(static_cast<int>(f));
        const FeatureKind kind = t.type->features[f].kind;
        if (kind == FeatureKind::Lake) continue;
        if (std::any_of(modules_.begin(), modules_.end(),
                        [&](const auto& m) { return !m->follower_allowed(*this, t.type->features[f]); })) {
            continue;
        }
        if (!board.structure(board.find(node)).follower_ids.empty()) continue;
        out.push_back(FollowerOption{board.node_port(node), kind});
    }
    std::sort(out.begin(), out.end(), [](const FollowerOption& a, const FollowerOption& b) { return a.loc < b.loc; });
    return out;
}

std::vector<FollowerOption> Game::current_follower_options() const {
    if (!turn_open_ || meeple_placed_ || followers_left_[turn_player_] <= 0) return {};
    const std::vector<int> tiles = follower_tiles();
    if (tiles.size() == 1 && tiles.front() == turn_tile_) return allowed_features(board_, turn_tile_);
    std::vector<FollowerOption> out;  // several tiles (a module's): options of the first that has any
    for (int t : tiles) {
        out = allowed_features(board_, t);
        if (!out.empty()) break;
    }
    return out;
}

Result<std::vector<FollowerOption>> Game::follower_options(const TileType& type, Placement p) const {
    const PlacementCheck check = board_.check_placement(type, p);
    if (!check.ok) {
        return illegal("placement", "tile " + type.id + " cannot go at " + to_string(p.at) + " rot " +
                                        std::to_string(p.rot * 90) + ": " + check.reason);
    }
    if (followers_left_[next_player()] <= 0) return std::vector<FollowerOption>{};
    Board copy = board_;
    const int ti = copy.place(type, p);
    return allowed_features(copy, ti);
}

std::vector<FollowerOption> Game::allowed_features(const Board& board, int tile_index) const {
    std::vector<FollowerOption> out = free_features(board, tile_index);
    if (modules_.empty()) return out;
    std::erase_if(out, [&](const FollowerOption& o) {
        const int root = board.find(board.node_at(board.tiles()[tile_index].at, o.loc));
        for (const auto& m : modules_) {
            if (m->refuse_follower(*this, board, tile_index, root)) return true;
        }
        return false;
    });
    return out;
}

}  // namespace meeplecam
