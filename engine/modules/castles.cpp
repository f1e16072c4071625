#include "engine/modules/castles.h"

#include <algorithm>
#include <bit>
#include <functional>

#include "engine/game.h"

namespace meeplecam {
namespace {

// Returns the feature node of the tile at `at` owning `port`; an Illegal error names what is missing.
Result<int> node_named(const Board& b, Cell at, Port port, const std::string& where) {
    const int tile = b.tile_at(at);
    if (tile < 0) return illegal(where, "there is no tile at " + to_string(at));
    const int node = b.node_at(at, port);
    if (node < 0) {
        return illegal(where, "tile " + b.tiles()[tile].type->id + " at " + to_string(at) + " has no feature at port " +
                                  std::string(port_name(port)));
    }
    return node;
}

std::string plural(std::size_t n, const char* one, const char* many) {
    return std::to_string(n) + " " + (n == 1 ? one : many);
}

// Reads a cell field ("at", "castle") of a module event.
Result<Cell> parse_cell_field(const Event& e, const char* field, const std::string& where) {
    const auto& j = e.raw;
    if (!j.contains(field)) return invalid(where, std::string("missing '") + field + "'");
    const auto& v = j[field];
    if (!v.is_array() || v.size() != 2 || !v[0].is_number_integer() || !v[1].is_number_integer()) {
        return invalid(where, std::string("'") + field + "' must be [x, y] with two integers");
    }
    constexpr long long kLimit = 1'000'000;
    const long long x = v[0].get<long long>(), y = v[1].get<long long>();
    if (x < -kLimit || x > kLimit || y < -kLimit || y > kLimit) {
        return invalid(where, std::string("'") + field + "' is out of range (|x|, |y| <= 1000000)");
    }
    return Cell{static_cast<int>(x), static_cast<int>(y)};
}

// Reads a port field ("loc", "castle_loc"); nullopt when absent and not required.
Result<std::optional<Port>> parse_port_field(const Event& e, const char* field, const std::string& where,
                                             bool required) {
    const auto& j = e.raw;
    if (!j.contains(field)) {
        if (required) return invalid(where, std::string("missing '") + field + "'");
        return std::optional<Port>{};
    }
    if (!j[field].is_string()) return invalid(where, std::string("'") + field + "' must be a port name such as \"S\"");
    const std::string name = j[field].get<std::string>();
    const auto p = parse_port(name);
    if (!p) return invalid(where, "unknown port '" + name + "' in '" + field + "' (use N, NL, NR, E, ..., WR or C)");
    return std::optional<Port>{*p};
}

std::string feature_text(const Board& b, Cell at, Port p) {
    const PlacedTile& t = b.tiles()[b.tile_at(at)];
    return "the " + std::string(feature_kind_name(b.node_def(b.node_at(at, p)).kind)) + " at " + to_string(at) + " " +
           std::string(port_name(p)) + " (tile " + t.type->id + ")";
}

bool contains(const std::vector<Cell>& cells, Cell c) { return std::find(cells.begin(), cells.end(), c) != cells.end(); }

bool touches(const std::vector<Cell>& a, const std::vector<Cell>& fief) {
    return std::any_of(a.begin(), a.end(), [&](Cell c) { return contains(fief, c); });
}

}  // namespace

// --- Queries ---------------------------------------------------------------------------------

std::vector<Cell> CastlesModule::fief(const Castle& castle) {
    const Cell a = castle.cells[0], b = castle.cells[1];
    const bool side_by_side = a.y == b.y;  // the castle lies east-west: its long sides face north and south
    std::vector<Cell> out = {a, b};
    for (const Cell c : {a, b}) {
        if (side_by_side) {
            out.push_back(Cell{c.x, c.y - 1});
            out.push_back(Cell{c.x, c.y + 1});
        } else {
            out.push_back(Cell{c.x - 1, c.y});
            out.push_back(Cell{c.x + 1, c.y});
        }
    }
    std::sort(out.begin(), out.end());
    return out;
}

int CastlesModule::tokens_left(const Game& game, int player) const {
    const int used = player < static_cast<int>(tokens_used_.size()) ? tokens_used_[player] : 0;
    return tokens_per_player(static_cast<int>(game.players().size())) - used;
}

int CastlesModule::followers_in_castles(int player) const {
    int n = 0;
    for (const Castle& c : castles_) {
        if (c.scored) continue;
        auto it = c.followers.find(player);
        if (it != c.followers.end()) n += it->second;
    }
    return n;
}

std::string CastlesModule::small_city_problem(const Game& game, int root) {
    const Board& b = game.board();
    const Structure& st = b.structure(root);
    if (st.kind != FeatureKind::City) {
        return "it is a " + std::string(feature_kind_name(st.kind)) + ", not a city";
    }
    const auto cells = b.structure_cells(root);
    if (st.nodes.size() != 2 || cells.size() != 2) {
        return "it is not a small city: a castle needs a city of exactly two semicircular segments on two tiles "
               "(this city has " +
               plural(st.nodes.size(), "segment", "segments") + " on " + plural(cells.size(), "tile", "tiles") + ")";
    }
    for (int node : st.nodes) {
        const FeatureDef& def = b.node_def(node);
        const PlacedTile& t = b.tiles()[b.node_tile(node)];
        const int sides = std::popcount(static_cast<unsigned>(def.side_mask));
        if (sides != 1) {
            return "it is not a small city: the segment of tile " + t.type->id + " at " + to_string(t.at) + " spans " +
                   plural(static_cast<std::size_t>(sides), "side", "sides") +
                   " (a castle needs two one-side semicircular segments)";
        }
        if (def.has_tag("no-castle")) {
            return "the city segment of tile " + t.type->id + " at " + to_string(t.at) +
                   " may not hold a castle (it is not a semicircular segment; tagged no-castle)";
        }
    }
    return "";
}

std::vector<int> CastlesModule::occupants(const Game& game, int root) const {
    const Board& b = game.board();
    std::map<int, int> count;
    for (int id : b.structure(root).follower_ids) ++count[b.followers()[id].player];
    int most = 0;
    for (const auto& [p, n] : count) most = std::max(most, n);
    std::vector<int> out;
    for (const auto& [p, n] : count) {
        if (n == most) out.push_back(p);
    }
    return out;
}

int CastlesModule::castle_of_node(const Game& game, int node) const {
    const Board& b = game.board();
    const int root = b.find(node);
    for (std::size_t i = 0; i < castles_.size(); ++i) {
        if (b.find(castles_[i].nodes[0]) == root) return static_cast<int>(i);
    }
    return -1;
}

std::string CastlesModule::castle_name(int castle) const {
    const Castle& c = castles_[castle];
    return "castle at " + to_string(c.cells[0]) + "-" + to_string(c.cells[1]);
}

bool CastlesModule::eligible(const Game& game, int castle) const {
    const Castle& c = castles_[castle];
    return !c.scored && c.built_turn != game.turn_event();
}

CastlesModule::Completion CastlesModule::completion_of(const Game& game, int root, int points) {
    const Board& b = game.board();
    const Structure& st = b.structure(root);
    Completion c;
    c.root = root;
    c.points = points;
    if (st.kind == FeatureKind::Monastery) {
        // A monastery counts only when the monastery itself stands in the fief.
        c.cells = {b.tiles()[b.node_tile(st.nodes.front())].at};
        c.what = "monastery at " + to_string(c.cells.front());
    } else {
        c.cells = b.structure_cells(root);
        c.what = std::string(feature_kind_name(st.kind)) + " at " + to_string(c.cells.front()) + " (" +
                 plural(c.cells.size(), "tile", "tiles") + ")";
    }
    return c;
}

std::vector<CastlesModule::Completion> CastlesModule::pending_completions(const Game& game, int skip_root) {
    const Board& b = game.board();
    std::vector<int> roots;
    std::vector<Completion> out;
    for (int r : game.pending_completions()) {
        const int root = b.find(r);
        if (std::find(roots.begin(), roots.end(), root) != roots.end()) continue;
        roots.push_back(root);
        if (root == skip_root || b.structure(root).scored || !b.is_complete(root)) continue;
        out.push_back(completion_of(game, root, game.completed_value(root).first));
    }
    return out;
}

// --- Resolution: which castles score this turn, and what ------------------------------------

Result<std::vector<CastlesModule::Outcome>> CastlesModule::resolve(const Game& game,
                                                                   const std::vector<Completion>& completions,
                                                                   const std::map<int, Choice>& choices) const {
    const Board& b = game.board();
    const int n = static_cast<int>(castles_.size());
    std::vector<char> can(static_cast<std::size_t>(n), 0);
    std::vector<std::vector<int>> direct(static_cast<std::size_t>(n)), incoming(static_cast<std::size_t>(n));
    for (int c = 0; c < n; ++c) {
        can[c] = eligible(game, c) ? 1 : 0;
        if (!can[c]) continue;
        const auto f = fief(castles_[c]);
        for (std::size_t k = 0; k < completions.size(); ++k) {
            if (touches(completions[k].cells, f)) direct[c].push_back(static_cast<int>(k));
        }
    }
    for (int c = 0; c < n; ++c) {
        if (!can[c]) continue;
        const auto f = fief(castles_[c]);
        for (int d = 0; d < n; ++d) {
            if (d != c && can[d] && (contains(f, castles_[d].cells[0]) || contains(f, castles_[d].cells[1]))) {
                incoming[c].push_back(d);
            }
        }
    }
    // Each choice must name something this castle can score from.
    std::map<int, int> chosen_completion;  // castle -> completion index
    for (const auto& [c, ch] : choices) {
        if (!can[c]) return illegal(ch.where, "the " + castle_name(c) + " cannot score this turn");
        if (ch.target_castle >= 0) {
            if (std::find(incoming[c].begin(), incoming[c].end(), ch.target_castle) == incoming[c].end()) {
                return illegal(ch.where, "the " + castle_name(ch.target_castle) + " is not a castle in the fief of the " +
                                             castle_name(c) + " that may score this turn");
            }
            continue;
        }
        const int root = b.find(ch.target_node);
        int found = -1;
        for (int k : direct[c]) {
            if (completions[k].root == root) found = k;
        }
        if (found < 0) {
            return illegal(ch.where, "the structure chosen for the " + castle_name(c) +
                                         " is not scored in its fief this turn (was it turned into a castle?)");
        }
        chosen_completion[c] = found;
    }
    std::vector<Outcome> best(static_cast<std::size_t>(n));
    for (int c = 0; c < n; ++c) {
        best[c].castle = c;
        best[c].points = -1;
    }
    // Castles scoring each other: iterate to a fixed point. Values only grow (a default castle
    // takes the highest option; a chosen one copies its choice), so this terminates.
    for (bool changed = true; changed;) {
        changed = false;
        for (int c = 0; c < n; ++c) {
            if (!can[c]) continue;
            Outcome cand = best[c];
            if (auto it = choices.find(c); it != choices.end()) {
                if (it->second.target_castle >= 0) {
                    const int d = it->second.target_castle;
                    if (best[d].points >= 0) cand = Outcome{c, best[d].points, -1, d};
                } else {
                    const int k = chosen_completion[c];
                    cand = Outcome{c, completions[k].points, k, -1};
                }
            } else {
                for (int k : direct[c]) {
                    if (completions[k].points > cand.points) cand = Outcome{c, completions[k].points, k, -1};
                }
                for (int d : incoming[c]) {
                    if (best[d].points > cand.points) cand = Outcome{c, best[d].points, -1, d};
                }
            }
            if (cand.points != best[c].points || cand.from_castle != best[c].from_castle ||
                cand.from_completion != best[c].from_completion) {
                best[c] = cand;
                changed = true;
            }
        }
    }
    for (const auto& [c, ch] : choices) {
        if (best[c].points < 0) {
            return illegal(ch.where, "the " + castle_name(c) + " chose the scoring of the " +
                                         castle_name(ch.target_castle) + ", which does not score this turn");
        }
    }
    // Order: a castle after the castle it copies.
    std::vector<Outcome> out;
    std::vector<char> done(static_cast<std::size_t>(n), 0);
    std::function<void(int)> emit = [&](int c) {
        if (done[c] || best[c].points < 0) return;
        done[c] = 1;
        if (best[c].from_castle >= 0) emit(best[c].from_castle);
        out.push_back(best[c]);
    };
    for (int c = 0; c < n; ++c) emit(c);
    return out;
}

// --- Events ----------------------------------------------------------------------------------

Status CastlesModule::apply_event(Game& game, const Event& event, const std::string& where) {
    if (event.player.empty()) return invalid(where, "missing 'player'");
    const int player = game.player_index(event.player);
    if (player < 0) return invalid(where, "unknown player colour '" + event.player + "'");
    if (tokens_used_.empty()) tokens_used_.assign(game.players().size(), 0);
    return event.type == "castle" ? build_castle(game, event, player, where) : choose(game, event, player, where);
}

Status CastlesModule::restore_castle(Game& game, Cell at, Port loc, int player, int followers, const std::string& where) {
    Board& b = game.mutable_board();
    const int node = b.node_at(at, loc);
    if (node < 0) return illegal(where, "no feature at " + to_string(at) + " " + std::string(port_name(loc)));
    const std::string what = feature_text(b, at, loc);
    if (b.node_def(node).kind != FeatureKind::City) return illegal(where, what + " is not a city; a castle stands on a small city");
    if (castle_of_node(game, node) >= 0) return illegal(where, what + " is already a castle");
    const int root = b.find(node);
    if (!b.is_complete(root)) return illegal(where, what + " is not completed; a castle stands on a completed small city");
    if (auto problem = small_city_problem(game, root); !problem.empty()) return illegal(where, what + " cannot be a castle: " + problem);
    if (tokens_used_.empty()) tokens_used_.assign(game.players().size(), 0);
    if (player < 0 || player >= static_cast<int>(game.players().size())) return illegal(where, "the castle's owner is no player");
    if (tokens_left(game, player) <= 0) return illegal(where, game.players()[player].color + " has no castle token left");
    Castle castle;
    const Structure& st = b.structure(root);
    castle.nodes = {st.nodes[0], st.nodes[1]};
    if (b.tiles()[b.node_tile(castle.nodes[1])].at < b.tiles()[b.node_tile(castle.nodes[0])].at) std::swap(castle.nodes[0], castle.nodes[1]);
    for (int i = 0; i < 2; ++i) castle.cells[i] = b.tiles()[b.node_tile(castle.nodes[i])].at;
    castle.builder = player;
    castle.built_turn = -1;
    if (followers > 0) castle.followers[player] = followers;
    b.structure(root).scored = true;
    ++tokens_used_[player];
    castles_.push_back(std::move(castle));
    return Ok{};
}

Status CastlesModule::build_castle(Game& game, const Event& e, int player, const std::string& where) {
    auto at = parse_cell_field(e, "at", where);
    if (!at) return at.error();
    auto loc = parse_port_field(e, "loc", where, true);
    if (!loc) return loc.error();
    Board& b = game.mutable_board();
    if (game.turn_tile() < 0) {
        return illegal(where, "a castle is built only during the turn that completes its small city (no turn is open)");
    }
    const Port port = *loc.value();
    auto named = node_named(b, at.value(), port, where);
    if (!named) return named.error();
    const int node = named.value();
    const std::string what = feature_text(b, at.value(), port);
    if (b.node_def(node).kind != FeatureKind::City) {
        return illegal(where, what + " is not a city; only a small city may become a castle");
    }
    const int root = b.find(node);
    if (castle_of_node(game, node) >= 0) return illegal(where, what + " is already a castle");
    if (!b.is_complete(root)) return illegal(where, what + " is not completed; only a completed small city may become a castle");
    const auto& pending = game.pending_completions();
    const bool this_turn = std::any_of(pending.begin(), pending.end(), [&](int r) { return b.find(r) == root; });
    if (!this_turn || b.structure(root).scored) {
        return illegal(where, what + " was not completed this turn (a castle is built only in the turn that completes "
                                     "its small city, instead of scoring it)");
    }
    if (auto problem = small_city_problem(game, root); !problem.empty()) {
        return illegal(where, what + " cannot become a castle: " + problem);
    }
    const auto majority = occupants(game, root);
    if (majority.empty()) {
        return illegal(where, what + " has no follower: only its occupant may turn it into a castle");
    }
    if (std::find(majority.begin(), majority.end(), player) == majority.end()) {
        return illegal(where, e.player + " is not the occupant of " + what + " (" +
                                  game.players()[majority.front()].color + " has the majority)");
    }
    if (tokens_left(game, player) <= 0) {
        return illegal(where, e.player + " has no castle token left (all " +
                                  std::to_string(tokens_per_player(static_cast<int>(game.players().size()))) +
                                  " are used)");
    }
    for (const auto& [c, ch] : choices_) {
        if (ch.target_castle < 0 && b.find(ch.target_node) == root) {
            return illegal(where, what + " is the structure that the " + castle_name(c) +
                                      " chose to score this turn; it cannot also become a castle");
        }
    }
    if (!choices_.empty()) {
        auto check = resolve(game, pending_completions(game, root), choices_);
        if (!check) return illegal(where, "turning " + what + " into a castle breaks a castle choice: " + check.error().message);
    }

    Castle castle;
    const Structure& st = b.structure(root);
    castle.nodes = {st.nodes[0], st.nodes[1]};
    if (b.tiles()[b.node_tile(castle.nodes[1])].at < b.tiles()[b.node_tile(castle.nodes[0])].at) {
        std::swap(castle.nodes[0], castle.nodes[1]);
    }
    for (int i = 0; i < 2; ++i) castle.cells[i] = b.tiles()[b.node_tile(castle.nodes[i])].at;
    castle.builder = player;
    castle.built_turn = game.turn_event();
    for (int id : b.release_followers(root)) {
        const int owner = b.followers()[id].player;
        if (std::find(majority.begin(), majority.end(), owner) != majority.end()) {
            ++castle.followers[owner];  // moves into the castle: off the board, not in the supply
        } else {
            game.return_follower_to_supply(owner);  // a minority follower goes home unscored
        }
    }
    b.structure(root).scored = true;  // the core will not score it; a castle is not a completed city
    ++tokens_used_[player];
    castles_.push_back(std::move(castle));
    acted_ = true;
    return Ok{};
}

Status CastlesModule::choose(Game& game, const Event& e, int player, const std::string& where) {
    auto castle_cell = parse_cell_field(e, "castle", where);
    if (!castle_cell) return castle_cell.error();
    auto castle_loc = parse_port_field(e, "castle_loc", where, false);
    if (!castle_loc) return castle_loc.error();
    auto at = parse_cell_field(e, "at", where);
    if (!at) return at.error();
    auto loc = parse_port_field(e, "loc", where, true);
    if (!loc) return loc.error();
    const Board& b = game.board();
    if (game.turn_tile() < 0) return illegal(where, "a castle choice is made during the turn that scores it (no turn is open)");

    std::vector<int> here;
    for (std::size_t i = 0; i < castles_.size(); ++i) {
        const Castle& c = castles_[i];
        for (int k = 0; k < 2; ++k) {
            if (c.cells[k] != castle_cell.value()) continue;
            if (!castle_loc.value() || b.node_at(c.cells[k], *castle_loc.value()) == c.nodes[k]) {
                here.push_back(static_cast<int>(i));
            }
        }
    }
    if (here.empty()) return illegal(where, "there is no castle at " + to_string(castle_cell.value()));
    if (here.size() > 1) {
        return invalid(where, "two castles stand on the tile at " + to_string(castle_cell.value()) +
                                  ": name one with 'castle_loc' (a port of its city)");
    }
    const int c = here.front();
    if (castles_[c].scored) return illegal(where, "the " + castle_name(c) + " has already scored");
    if (castles_[c].built_turn == game.turn_event()) {
        return illegal(where, "the " + castle_name(c) + " was built this turn; it scores only from a later turn");
    }
    if (!castles_[c].followers.count(player)) {
        return illegal(where, e.player + " does not occupy the " + castle_name(c));
    }
    if (choices_.count(c)) return illegal(where, "the " + castle_name(c) + " already has a choice this turn");

    const Port port = *loc.value();
    auto named = node_named(b, at.value(), port, where);
    if (!named) return named.error();
    const int node = named.value();
    const auto f = fief(castles_[c]);
    Choice ch;
    ch.where = where;
    if (const int d = castle_of_node(game, node); d >= 0) {
        if (d == c) return illegal(where, "a castle cannot score its own scoring");
        if (!contains(f, castles_[d].cells[0]) && !contains(f, castles_[d].cells[1])) {
            return illegal(where, "the " + castle_name(d) + " is not in the fief of the " + castle_name(c));
        }
        if (!eligible(game, d)) {
            return illegal(where, "the " + castle_name(d) + " cannot score this turn (it " +
                                      (castles_[d].scored ? "has already scored)" : "was built this turn)"));
        }
        ch.target_castle = d;
    } else {
        const int root = b.find(node);
        const std::string what = feature_text(b, at.value(), port);
        const auto comps = pending_completions(game);
        auto it = std::find_if(comps.begin(), comps.end(), [&](const Completion& k) { return k.root == root; });
        if (it == comps.end()) return illegal(where, what + " is not a structure completed this turn");
        if (!touches(it->cells, f)) {
            return illegal(where, what + " is not in the fief of the " + castle_name(c) +
                                      (b.structure(root).kind == FeatureKind::Monastery
                                           ? " (a monastery counts only when it stands on a fief tile)"
                                           : ""));
        }
        ch.target_node = node;
    }
    std::map<int, Choice> trial = choices_;
    trial[c] = ch;
    if (auto check = resolve(game, pending_completions(game), trial); !check) return check.error();
    choices_[c] = ch;
    acted_ = true;
    return Ok{};
}

Status CastlesModule::before_core_event(Game& /*game*/, const Event& event, const std::string& where) {
    if (event.type == "meeple" && acted_) {
        return illegal(where, "a follower must be placed before castles are built or chosen (turn order: tile, "
                              "follower, castles)");
    }
    return Ok{};
}

void CastlesModule::on_tile_placed(Game& game) {
    if (tokens_used_.empty()) tokens_used_.assign(game.players().size(), 0);
    turn_completions_.clear();
    choices_.clear();
    acted_ = false;
}

Status CastlesModule::check_turn_end(const Game& game, const std::string& where) const {
    if (choices_.empty()) return Ok{};
    auto check = resolve(game, pending_completions(game), choices_);
    if (!check) {
        Error e = check.error();
        e.message += " (found when the turn ended: " + where + ")";
        return e;
    }
    return Ok{};
}

// --- Scoring ---------------------------------------------------------------------------------

void CastlesModule::on_structure_completed(Game& game, int root, int points) {
    turn_completions_.push_back(completion_of(game, root, points));
}

void CastlesModule::on_turn_scored(Game& game) {
    if (!castles_.empty()) {
        auto outcomes = resolve(game, turn_completions_, choices_);
        if (!outcomes) outcomes = resolve(game, turn_completions_, {});  // check_turn_end refused this already
        for (const Outcome& o : outcomes.value()) {
            Castle& c = castles_[o.castle];
            ScoreEvent ev;
            ev.phase = ScoreEvent::Phase::Turn;
            ev.event_index = game.turn_event();
            ev.feature = "castle";
            ev.points = o.points;
            ev.followers = c.followers;
            for (const auto& [p, n] : c.followers) ev.winners.push_back(p);
            ev.tiles = {c.cells[0], c.cells[1]};
            ev.completed = true;
            ev.explanation = "Castle at " + to_string(c.cells[0]) + "-" + to_string(c.cells[1]) + ": " +
                             (o.from_castle >= 0
                                  ? "the " + castle_name(o.from_castle) + " in its fief scored"
                                  : "first structure completed in its fief, the " + turn_completions_[o.from_completion].what) +
                             " = " + std::to_string(o.points) + " points";
            game.add_score(std::move(ev));
            for (const auto& [p, n] : c.followers) {
                for (int i = 0; i < n; ++i) game.return_follower_to_supply(p);
            }
            c.scored = true;
            c.points = o.points;
        }
    }
    turn_completions_.clear();
    choices_.clear();
    acted_ = false;
}

std::optional<int> CastlesModule::farm_city_value(const Game& game, int city_root) const {
    for (const Castle& c : castles_) {
        if (game.board().find(c.nodes[0]) == city_root) return 4;  // scored or not (footnote 41)
    }
    return std::nullopt;
}

void CastlesModule::on_final_scoring(Game& game) {
    for (std::size_t i = 0; i < castles_.size(); ++i) {
        const Castle& c = castles_[i];
        if (c.scored) continue;
        ScoreEvent ev;
        ev.phase = ScoreEvent::Phase::Final;
        ev.feature = "castle";
        ev.points = 0;
        ev.followers = c.followers;
        for (const auto& [p, n] : c.followers) ev.winners.push_back(p);
        ev.tiles = {c.cells[0], c.cells[1]};
        ev.explanation = "Open castle at " + to_string(c.cells[0]) + "-" + to_string(c.cells[1]) +
                         ": nothing completed in its fief = 0 points (its follower is removed)";
        game.add_score(std::move(ev));
    }
}

// --- Options ---------------------------------------------------------------------------------

std::vector<Event> CastlesModule::options(const Game& game) const {
    std::vector<Event> out;
    if (game.turn_tile() < 0) return out;
    const Board& b = game.board();
    auto make = [&](const std::string& type, int player, nlohmann::json fields) {
        Event e;
        e.type = type;
        e.player = game.players()[player].color;
        fields["type"] = type;
        fields["player"] = e.player;
        e.raw = std::move(fields);
        return e;
    };
    auto cell_json = [](Cell c) { return nlohmann::json::array({c.x, c.y}); };

    // Conversions: every small city completed this turn, by each occupant with a token left.
    std::vector<int> roots;
    for (int r : game.pending_completions()) {
        const int root = b.find(r);
        if (std::find(roots.begin(), roots.end(), root) != roots.end()) continue;
        roots.push_back(root);
        const Structure& st = b.structure(root);
        if (st.kind != FeatureKind::City || st.scored || !b.is_complete(root) || st.follower_ids.empty()) continue;
        if (!small_city_problem(game, root).empty()) continue;
        bool chosen = false;
        for (const auto& [c, ch] : choices_) chosen = chosen || (ch.target_castle < 0 && b.find(ch.target_node) == root);
        if (chosen) continue;
        if (!choices_.empty() && !resolve(game, pending_completions(game, root), choices_)) continue;
        const int node = std::min(st.nodes[0], st.nodes[1]);
        const Cell at = b.tiles()[b.node_tile(node)].at;
        for (int p : occupants(game, root)) {
            if (tokens_left(game, p) <= 0) continue;
            out.push_back(make("castle", p, {{"at", cell_json(at)}, {"loc", std::string(port_name(b.node_port(node)))}}));
        }
    }

    // Choices: castles that may score this turn from two or more structures or castles.
    std::vector<int> open;
    for (std::size_t c = 0; c < castles_.size(); ++c) {
        if (eligible(game, static_cast<int>(c)) && !choices_.count(static_cast<int>(c))) open.push_back(static_cast<int>(c));
    }
    if (open.empty()) return out;
    const auto comps = pending_completions(game);
    for (int c : open) {
        const Castle& castle = castles_[c];
        const auto f = fief(castle);
        std::vector<std::pair<Choice, int>> cands;  // choice, node to name it by
        for (const Completion& k : comps) {
            if (!touches(k.cells, f)) continue;
            int node = -1;
            for (int m : b.structure(k.root).nodes) {
                if (node < 0 && contains(f, b.tiles()[b.node_tile(m)].at)) node = m;
            }
            Choice ch;
            ch.target_node = node;
            cands.emplace_back(ch, node);
        }
        for (std::size_t d = 0; d < castles_.size(); ++d) {
            const Castle& other = castles_[d];
            if (static_cast<int>(d) == c || !eligible(game, static_cast<int>(d))) continue;
            for (int k = 0; k < 2; ++k) {
                if (!contains(f, other.cells[k])) continue;
                Choice ch;
                ch.target_castle = static_cast<int>(d);
                cands.emplace_back(ch, other.nodes[k]);
                break;
            }
        }
        if (cands.size() < 2) continue;
        bool shared_tile = false;
        for (std::size_t d = 0; d < castles_.size(); ++d) {
            if (static_cast<int>(d) == c) continue;
            for (const Cell cell : castles_[d].cells) shared_tile = shared_tile || cell == castle.cells[0];
        }
        for (const auto& [ch, node] : cands) {
            std::map<int, Choice> trial = choices_;
            trial[c] = ch;
            if (!resolve(game, comps, trial)) continue;
            nlohmann::json fields = {{"castle", cell_json(castle.cells[0])},
                                     {"at", cell_json(b.tiles()[b.node_tile(node)].at)},
                                     {"loc", std::string(port_name(b.node_port(node)))}};
            if (shared_tile) fields["castle_loc"] = std::string(port_name(b.node_port(castle.nodes[0])));
            out.push_back(make("castle-choice", castle.followers.begin()->first, std::move(fields)));
        }
    }
    return out;
}

}  // namespace meeplecam
