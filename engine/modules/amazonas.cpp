#include "engine/modules/amazonas.h"

#include <algorithm>
#include <map>
#include <set>

#include "engine/game.h"
#include "engine/plural.h"

namespace meeplecam {
namespace {

constexpr int kRiverY = 0;

int tag_count(const std::vector<std::string>& tags, std::string_view tag) {
    return static_cast<int>(std::count(tags.begin(), tags.end(), tag));
}

bool is_amazon_river(const FeatureDef& def) { return def.kind == FeatureKind::Road && def.has_tag("amazon"); }

// Cells a "cell:x,y" tag names (start-board tiles).
std::optional<Cell> tagged_cell(const TileType& t) {
    for (const auto& tag : t.tags) {
        if (tag.rfind("cell:", 0) != 0) continue;
        const auto comma = tag.find(',');
        if (comma == std::string::npos) return std::nullopt;
        return Cell{std::stoi(tag.substr(5, comma - 5)), std::stoi(tag.substr(comma + 1))};
    }
    return std::nullopt;
}


}  // namespace

AmazonasCatalogTotals amazonas_catalog_totals(const Catalog& catalog) {
    AmazonasCatalogTotals t;
    std::set<std::string> doubles;
    for (const TileType& type : catalog.tiles()) {
        int features_fruit = 0, features_boats = 0, features_animals = 0;
        for (const FeatureDef& f : type.features) {
            features_fruit += tag_count(f.tags, "fruit");
            features_boats += tag_count(f.tags, "boat");
            features_animals += tag_count(f.tags, "animal");
        }
        if (type.has_tag("amazon-double")) {
            for (const auto& tag : type.tags) {
                if (tag.rfind("double:", 0) == 0) doubles.insert(tag.substr(7));
            }
        } else if (type.has_tag("amazon")) {
            t.amazon += type.count;
            t.exclaim += type.has_tag("exclaim") ? type.count : 0;
        } else if (type.has_tag("start-board")) {
            t.start_cells += type.count;
        } else if (type.has_tag("mouth")) {
            t.mouths += type.count;
        } else if (!type.has_tag("set-aside")) {
            t.standard += type.count;
            t.boats += type.count * features_boats;
            t.fruit += type.count * features_fruit;
            t.animals += type.count * features_animals;
        }
        t.caimans += type.count * tag_count(type.tags, "caiman");
        t.piranhas += type.count * tag_count(type.tags, "piranha");
    }
    t.doubles = static_cast<int>(doubles.size());
    auto want = [&](const char* what, int have, int published) {
        if (have != published) {
            t.differences.push_back(std::string(what) + ": " + std::to_string(have) + ", the published game has " +
                                    std::to_string(published));
        }
    };
    want("standard land tiles", t.standard, 65);
    want("Amazon tiles", t.amazon, 15);
    want("Amazon tiles with \"!\"", t.exclaim, 3);
    want("Amazon doubles", t.doubles, 4);
    want("start-board cells (2x4)", t.start_cells, 8);
    want("river mouths", t.mouths, 1);
    if (catalog.start_tile().empty()) t.differences.push_back("no start_tile (the start board's source cell)");
    return t;
}

void AmazonasModule::on_start_placed(Game& game) {
    const int n = static_cast<int>(game.players().size());
    spaces_ = n <= 3 ? 16 : 8;  // the start board's side for 2-3 players has 16 river spaces, for 4-5 players 8
    end_x_ = 3;
    boats_.assign(n, 0);
    camps_left_.assign(n, kCampsPerPlayer);
    started_ = true;
    Board& board = game.mutable_board();
    for (const TileType& t : game.catalog().tiles()) {  // the rest of the 2x4 start board
        if (!t.has_tag("start-board") || t.id == game.catalog().start_tile()) continue;
        const auto cell = tagged_cell(t);
        MEEPLECAM_CHECK(cell.has_value(), "start-board tile " + t.id + " has no cell:x,y tag");
        const PlacementCheck check = board.check_placement(t, Placement{*cell, 0});
        MEEPLECAM_CHECK(check.ok, "start-board tile " + t.id + " does not fit: " + check.reason);
        board.place(t, Placement{*cell, 0});
    }
}

Status AmazonasModule::before_core_event(Game& game, const Event& e, const std::string& where) {
    if (e.type == "tile" && e.player.empty()) {
        const int n = static_cast<int>(game.players().size());
        if (n < 2 || n > 5) return illegal(where, "Amazonas is played by 2 to 5 players, not " + std::to_string(n));
        if (e.at != Cell{0, 0} || e.rot != 0) {
            return illegal(where, "the start board's source tile goes at [0, 0] rot 0 (the river runs east along y = 0)");
        }
        return Ok{};
    }
    if (e.type == "tile" || e.type == "discard") {
        const TileType* t = game.catalog().find(e.tile);
        if (t && t->has_tag("set-aside")) {
            return illegal(where, "tile " + e.tile + " is set aside (start board, double or mouth); doubles are placed by a "
                                  "'double' event after a \"!\" tile");
        }
        if (t && e.type == "discard" && t->has_tag("amazon")) {
            return illegal(where, "an Amazon tile always fits at the river's end and may not be discarded");
        }
        return Ok{};
    }
    if (e.type == "meeple" && game.turn_player() >= 0) {
        if (owe_double_ || (exclaim_turn_ && std::none_of(double_tiles_.begin(), double_tiles_.end(), [&](int t) {
                                return game.board().tiles()[t].at == e.at;
                            }))) {
            return illegal(where, "after a \"!\" tile a meeple or camp may go only on the double (place it first)");
        }
        if (piece_placed(game)) return illegal(where, "a meeple or a camp per turn, not both");
        const auto port = parse_port(e.loc);
        const int node = port ? game.board().node_at(e.at, *port) : -1;
        if (node >= 0) {
            const FeatureDef& def = game.board().node_def(node);
            if (is_amazon_river(def)) return illegal(where, "the Amazon is for boats: no meeple may stand on it");
            if (def.kind == FeatureKind::Field) {
                return illegal(where, "meeples go on tributaries or villages; jungle takes a camp (a 'camp' event)");
            }
        }
    }
    return Ok{};
}

std::optional<std::string> AmazonasModule::refuse_placement(const Game& /*game*/, const TileType& type,
                                                            Placement p) const {
    if (type.has_tag("set-aside")) return "the tile is set aside (start board, double or mouth)";
    if (type.has_tag("amazon")) {
        if (p.at != Cell{end_x_ + 1, kRiverY}) {
            return "an Amazon tile must extend the river at its end, " + to_string(Cell{end_x_ + 1, kRiverY});
        }
        if (p.rot != 0 && p.rot != 2) return "an Amazon tile lies along the river (rot 0 or 180)";
        return std::nullopt;
    }
    if (p.at.x > end_x_) {
        return "land tiles may not go beyond the river's current end (x <= " + std::to_string(end_x_) + ")";
    }
    return std::nullopt;
}

std::optional<std::vector<int>> AmazonasModule::follower_tiles(const Game& /*game*/) const {
    if (exclaim_turn_) return double_tiles_;  // empty until the double is placed
    return std::nullopt;
}

bool AmazonasModule::follower_allowed(const Game& /*game*/, const FeatureDef& def) const {
    return def.kind == FeatureKind::City || (def.kind == FeatureKind::Road && !is_amazon_river(def));
}

std::optional<FeatureValue> AmazonasModule::feature_value(const Game& game, int root, bool final) const {
    const Board& board = game.board();
    const Structure& st = board.structure(root);
    int fruit = 0, animals = 0;
    for (int node : st.nodes) {
        const FeatureDef& def = board.node_def(node);
        if (is_amazon_river(def)) return std::nullopt;
        fruit += tag_count(def.tags, "fruit");
        animals += tag_count(def.tags, "animal");
    }
    const int tiles = static_cast<int>(board.structure_cells(root).size());
    const std::string fruits = " + " + plural(fruit, "fruit", "fruit") + " x 1";
    FeatureValue v;
    switch (st.kind) {
        case FeatureKind::Road:
            v.feature = "tributary";
            v.points = tiles + fruit;
            v.explanation = std::string(final ? "Open" : "Completed") + " tributary of " +
                            plural(tiles, "tile", "tiles") + " x 1" + fruits;
            break;
        case FeatureKind::City:
            v.feature = "village";
            v.points = (final ? 1 : 2) * tiles + fruit;
            v.explanation = std::string(final ? "Open" : "Completed") + " village of " + plural(tiles, "tile", "tiles") +
                            (final ? " x 1" : " x 2") + fruits;
            break;
        case FeatureKind::Field:
            if (!final) return std::nullopt;
            v.feature = "camp";
            v.points = animals;
            v.explanation = "Camp in a jungle with " + plural(animals, "animal", "animals") + " x 1";
            break;
        default: return std::nullopt;
    }
    return v;  // the core appends " = N points"
}

bool AmazonasModule::piece_placed(const Game& game) const {
    return game.follower_placed() || game.board().followers().size() > followers_at_start_;
}

void AmazonasModule::advance(Game& game, int player, int by, const std::string& reason) {
    const int from = boats_[player];
    const int to = std::min(spaces_ - 1, from + by);  // boats stop on the last space
    moves_.push_back(BoatMove{game.turn_event(), player, from, to, reason});
    boats_[player] = to;
}

void AmazonasModule::boat_icons_joined(Game& game, int tile_index) {
    // Icons on the new tile that joined a tributary where a player already has a meeple move that
    // player's boat, 1 per icon, however many meeples they have there.
    const Board& board = game.board();
    const PlacedTile& t = board.tiles()[tile_index];
    std::map<int, int> gain;
    for (std::size_t f = 0; f < t.type->features.size(); ++f) {
        const FeatureDef& def = t.type->features[f];
        const int icons = tag_count(def.tags, "boat");
        if (def.kind != FeatureKind::Road || icons == 0) continue;
        std::set<int> players;
        for (int id : board.structure(board.find(t.node(static_cast<int>(f)))).follower_ids) {
            players.insert(board.followers()[id].player);
        }
        for (int p : players) gain[p] += icons;
    }
    for (const auto& [p, n] : gain) advance(game, p, n, "boat icons joined to a tributary with its meeple");
}

void AmazonasModule::on_tile_placed(Game& game) {
    const int ti = game.turn_tile();
    const TileType& type = *game.board().tiles()[ti].type;
    followers_at_start_ = game.board().followers().size();
    exclaim_turn_ = owe_double_ = false;
    double_tiles_.clear();
    amazon_this_turn_.clear();
    if (type.has_tag("amazon")) {
        ++end_x_;
        ++spaces_;
        amazon_this_turn_.push_back({ti});
        exclaim_turn_ = owe_double_ = type.has_tag("exclaim");
    }
    boat_icons_joined(game, ti);
}

Status AmazonasModule::apply_event(Game& game, const Event& e, const std::string& where) {
    if (e.type == "double") return place_double(game, e, where);
    if (e.type == "camp") return place_camp(game, e, where);
    return RuleModule::apply_event(game, e, where);
}

Status AmazonasModule::place_double(Game& game, const Event& e, const std::string& where) {
    if (game.turn_player() < 0 || game.players()[game.turn_player()].color != e.player) {
        return illegal(where, "a double is placed by the player who just placed a \"!\" tile, in the same turn");
    }
    if (!owe_double_) return illegal(where, "a double may only follow a \"!\" Amazon tile (one per \"!\")");
    if (!e.raw.contains("tile") || !e.raw["tile"].is_string()) return invalid(where, "missing 'tile' (D1..D4)");
    const std::string id = e.raw["tile"].get<std::string>();
    const TileType* half1 = game.catalog().find(id + "-1");
    const TileType* half2 = game.catalog().find(id + "-2");
    if (!half1 || !half2 || !half1->has_tag("amazon-double")) {
        return invalid(where, "unknown double '" + id + "' (the catalog's doubles have halves " + id + "-1, " + id + "-2)");
    }
    if (doubles_used_.count(id)) return illegal(where, "double " + id + " is already on the board");
    const Cell first{end_x_ + 1, kRiverY};
    if (e.raw.contains("at")) {
        const auto& a = e.raw["at"];
        if (!a.is_array() || a.size() != 2 || !a[0].is_number_integer() || !a[1].is_number_integer() ||
            Cell{a[0].get<int>(), a[1].get<int>()} != first) {
            return illegal(where, "a double extends the river at its end: 'at' must be " + to_string(first));
        }
    }
    int rot = 0;
    if (e.raw.contains("rot")) {
        if (!e.raw["rot"].is_number_integer() || (e.raw["rot"] != 0 && e.raw["rot"] != 180)) {
            return invalid(where, "'rot' of a double must be 0 or 180 (it lies along the river)");
        }
        rot = e.raw["rot"].get<int>() / 90;
    }
    // rot 0: half 1 at the river's end + 1, half 2 beyond; rot 180: turned, half 2 first.
    const TileType* west = rot == 0 ? half1 : half2;
    const TileType* east = rot == 0 ? half2 : half1;
    Board& board = game.mutable_board();
    for (const auto& [type, at] : {std::pair{west, first}, std::pair{east, Cell{first.x + 1, first.y}}}) {
        const PlacementCheck check = board.check_placement(*type, Placement{at, rot});
        if (!check.ok) return illegal(where, "double half " + type->id + " cannot go at " + to_string(at) + ": " + check.reason);
        const int ti = board.place(*type, Placement{at, rot});
        double_tiles_.push_back(ti);
        for (int r : board.last_completed()) game.add_pending_completion(r);
    }
    end_x_ += 2;
    spaces_ += 2;  // a double carries 2 river spaces
    doubles_used_.insert(id);
    owe_double_ = false;
    amazon_this_turn_.push_back(double_tiles_);
    for (int ti : double_tiles_) boat_icons_joined(game, ti);
    if (game.options().check_consistency) board.check_consistency();
    return Ok{};
}

Status AmazonasModule::place_camp(Game& game, const Event& e, const std::string& where) {
    const int player = game.player_index(e.player);
    if (player < 0) return invalid(where, "unknown player colour '" + e.player + "'");
    if (game.turn_player() != player) return illegal(where, "a camp goes on the tile its player just placed, in that turn");
    if (owe_double_) return illegal(where, "after a \"!\" tile a camp may go only on the double (place it first)");
    if (piece_placed(game)) return illegal(where, "a meeple or a camp per turn, not both");
    if (camps_left_[player] <= 0) return illegal(where, e.player + " has no camp left (2 per player)");
    if (!e.raw.contains("at") || !e.raw["at"].is_array() || e.raw["at"].size() != 2 || !e.raw["at"][0].is_number_integer() ||
        !e.raw["at"][1].is_number_integer()) {
        return invalid(where, "'at' must be [x, y] with two integers");
    }
    const Cell at{e.raw["at"][0].get<int>(), e.raw["at"][1].get<int>()};
    const auto tiles = game.follower_tiles();
    if (std::none_of(tiles.begin(), tiles.end(), [&](int t) { return game.board().tiles()[t].at == at; })) {
        return illegal(where, "a camp goes on the tile just placed (after a \"!\": on the double), not at " + to_string(at));
    }
    if (!e.raw.contains("loc") || !e.raw["loc"].is_string()) return invalid(where, "missing 'loc' (a port name)");
    const auto port = parse_port(e.raw["loc"].get<std::string>());
    if (!port) return invalid(where, "unknown port '" + e.raw["loc"].get<std::string>() + "'");
    const int node = game.board().node_at(at, *port);
    if (node < 0 || game.board().node_def(node).kind != FeatureKind::Field) {
        return illegal(where, "a camp goes on jungle; the tile has no jungle at port " + e.raw["loc"].get<std::string>());
    }
    const Structure& st = game.board().structure(game.board().find(node));
    if (!st.follower_ids.empty()) {
        const Follower& other = game.board().followers()[st.follower_ids.front()];
        return illegal(where, "that jungle already has a camp (" + game.players()[other.player].color + " at " +
                                  to_string(other.at) + ")");
    }
    --camps_left_[player];
    camp_ids_.insert(game.mutable_board().add_follower(player, node, at, *port));
    return Ok{};
}

Status AmazonasModule::check_turn_end(const Game& game, const std::string& where) const {
    if (owe_double_ && game.turn_player() >= 0) {
        return illegal(where, "a \"!\" Amazon tile must be followed at once by a 'double' event (" +
                                  game.players()[game.turn_player()].color + "'s turn)");
    }
    return Ok{};
}

void AmazonasModule::on_turn_end(Game& game) {
    const int player = game.turn_player();
    if (player < 0 || game.turn_tile() < 0) return;
    const Board& board = game.board();
    // Step 2: a meeple placed on a tributary moves its boat 1 per boat icon along the tributary;
    // no meeple and no camp: the boat advances 1.
    if (!piece_placed(game)) {
        advance(game, player, 1, "no meeple or camp placed");
    } else {
        for (std::size_t id = followers_at_start_; id < board.followers().size(); ++id) {
            if (camp_ids_.count(static_cast<int>(id))) continue;
            const int root = board.find(board.followers()[id].node);
            if (board.structure(root).kind != FeatureKind::Road) continue;
            int icons = 0;
            for (int node : board.structure(root).nodes) icons += tag_count(board.node_def(node).tags, "boat");
            if (icons > 0) advance(game, player, icons, "meeple placed on a tributary with boat icons");
        }
    }
    // Step 3: an Amazon scoring for each Amazon tile placed this turn (a "!" tile, then its double).
    for (const auto& tiles : amazon_this_turn_) amazon_scoring(game, tiles);
    amazon_this_turn_.clear();
    exclaim_turn_ = false;
    double_tiles_.clear();
}

void AmazonasModule::amazon_scoring(Game& game, const std::vector<int>& tiles) {
    const Board& board = game.board();
    int caimans = 0, piranhas = 0;
    ScoreEvent base;
    base.phase = ScoreEvent::Phase::Turn;
    base.event_index = game.turn_event();
    base.feature = "amazon";
    for (int ti : tiles) {
        caimans += tag_count(board.tiles()[ti].type->tags, "caiman");
        piranhas += tag_count(board.tiles()[ti].type->tags, "piranha");
        base.tiles.push_back(board.tiles()[ti].at);
    }
    const int n = static_cast<int>(boats_.size());
    std::vector<int> positions(boats_.begin(), boats_.end());
    std::sort(positions.begin(), positions.end(), std::greater<>());
    positions.erase(std::unique(positions.begin(), positions.end()), positions.end());
    std::vector<int> points(n, 0);
    const int lead = positions[0];
    const bool second_scores = positions.size() > 1 && (n != 2 || positions[1] == lead - 1);
    ScoreEvent first = base, second = base;
    for (int p = 0; p < n; ++p) {
        if (boats_[p] == lead) {
            first.winners.push_back(p);
            points[p] = caimans + piranhas;
        } else if (second_scores && boats_[p] == positions[1]) {
            second.winners.push_back(p);
            points[p] = piranhas;
        }
    }
    const std::string what = "Amazon scoring (" + plural(caimans, "caiman", "caimans") + ", " +
                             plural(piranhas, "piranha", "piranhas") + ")";
    first.points = caimans + piranhas;
    first.explanation = what + ": first boat(s) at space " + std::to_string(lead) + " score caimans + piranhas = " +
                        std::to_string(first.points) + " points";
    if (first.points > 0) game.add_score(std::move(first));
    if (second_scores && piranhas > 0) {
        second.points = piranhas;
        second.explanation = what + ": second boat(s) at space " + std::to_string(positions[1]) +
                             " score piranhas = " + std::to_string(piranhas) + " points";
        game.add_score(std::move(second));
    }
    for (int p = 0; p < n; ++p) {  // everyone who scored nothing advances 1
        if (points[p] == 0) advance(game, p, 1, "Amazon scoring: no points");
    }
}

void AmazonasModule::on_final_scoring(Game& game) {
    if (!started_) return;
    // The river race: the mouth ranks boats by distance (tied boats share a place); 4-5 players
    // 7/4/1, 2-3 players 6/3; with 2 players the second scores only directly behind the first.
    const int n = static_cast<int>(boats_.size());
    const std::vector<int> prizes = n >= 4 ? std::vector<int>{7, 4, 1} : std::vector<int>{6, 3};
    std::vector<int> positions(boats_.begin(), boats_.end());
    std::sort(positions.begin(), positions.end(), std::greater<>());
    positions.erase(std::unique(positions.begin(), positions.end()), positions.end());
    for (std::size_t place = 0; place < prizes.size() && place < positions.size(); ++place) {
        if (n == 2 && place == 1 && positions[1] != positions[0] - 1) break;
        ScoreEvent ev;
        ev.phase = ScoreEvent::Phase::Final;
        ev.feature = "river";
        ev.points = prizes[place];
        for (int p = 0; p < n; ++p) {
            if (boats_[p] == positions[place]) ev.winners.push_back(p);
        }
        ev.explanation = "River race: place " + std::to_string(place + 1) + " (space " + std::to_string(positions[place]) +
                         ") = " + std::to_string(prizes[place]) + " points";
        game.add_score(std::move(ev));
    }
}

nlohmann::json AmazonasModule::sheet_state(const Game& game) const {
    if (!started_) return nullptr;
    nlohmann::json j;
    j["spaces"] = spaces_;
    j["river_end"] = end_x_;
    j["boats"] = nlohmann::json::object();
    j["camps_left"] = nlohmann::json::object();
    for (std::size_t p = 0; p < boats_.size(); ++p) {
        j["boats"][game.players()[p].color] = boats_[p];
        j["camps_left"][game.players()[p].color] = camps_left_[p];
    }
    j["boat_moves"] = nlohmann::json::array();
    for (const auto& m : moves_) {
        j["boat_moves"].push_back({{"event", m.event_index}, {"player", game.players()[m.player].color},
                                   {"from", m.from}, {"to", m.to}, {"reason", m.reason}});
    }
    return j;
}

std::string AmazonasModule::sheet_line(const Game& game) const {
    if (!started_) return {};
    std::string out = "Amazon: " + std::to_string(spaces_) + " river spaces (last " + std::to_string(spaces_ - 1) +
                      "); boats:";
    for (std::size_t p = 0; p < boats_.size(); ++p) {
        out += (p ? ", " : " ") + game.players()[p].color + " " + std::to_string(boats_[p]);
    }
    return out;
}

std::vector<Event> AmazonasModule::options(const Game& game) const {
    std::vector<Event> out;
    const int player = game.turn_player();
    if (player < 0) return out;
    const std::string color = game.players()[player].color;
    if (owe_double_) {
        for (const TileType& t : game.catalog().tiles()) {
            if (!t.has_tag("amazon-double") || !t.has_tag("half:1")) continue;
            const std::string id = t.id.substr(0, t.id.size() - 2);
            if (doubles_used_.count(id)) continue;
            for (int rot : {0, 180}) {
                Event e;
                e.type = "double";
                e.player = color;
                e.raw = {{"type", "double"}, {"player", color}, {"tile", id}, {"at", {end_x_ + 1, kRiverY}}, {"rot", rot}};
                out.push_back(std::move(e));
            }
        }
        return out;
    }
    if (piece_placed(game) || camps_left_[player] <= 0) return out;
    const Board& board = game.board();
    for (int ti : game.follower_tiles()) {
        const PlacedTile& t = board.tiles()[ti];
        for (std::size_t f = 0; f < t.type->features.size(); ++f) {
            if (t.type->features[f].kind != FeatureKind::Field) continue;
            const int node = t.node(static_cast<int>(f));
            if (!board.structure(board.find(node)).follower_ids.empty()) continue;
            Event e;
            e.type = "camp";
            e.player = color;
            const std::string loc(port_name(board.node_port(node)));
            e.raw = {{"type", "camp"}, {"player", color}, {"at", {t.at.x, t.at.y}}, {"loc", loc}};
            out.push_back(std::move(e));
        }
    }
    return out;
}

}  // namespace meeplecam
