#include "engine/modules/city.h"

#include <algorithm>
#include <map>

#include "engine/cell_neighbour.h"
#include "engine/game.h"
#include "engine/plural.h"

namespace meeplecam {
namespace {



}  // namespace

int city_stack_of_draw(int n) {
    if (n <= kCityStackSizes[0]) return 1;
    if (n <= kCityStackSizes[0] + kCityStackSizes[1]) return 2;
    return 3;
}

Status CityModule::configure(const nlohmann::json& options) {
    if (!options.is_object() || !options.empty()) {
        return invalid("options", "the City has no rule options yet (got " + options.dump() + ")");
    }
    return Ok{};
}

int CityModule::tiles_drawn(const Game& game) {
    int total = 0;
    for (const TileType& t : game.catalog().tiles()) total += t.count_in(game.options().edition);
    return total - game.tiles_left();
}

int CityModule::current_stack(const Game& game) {
    const int drawn = tiles_drawn(game);
    return city_stack_of_draw(game.turn_tile() >= 0 ? drawn : drawn + 1);
}

std::set<std::string> CityModule::goods_of(const Board& board, int root) {
    std::set<std::string> goods;
    for (int node : board.structure(root).nodes) {
        for (const auto& tag : board.node_def(node).tags) {
            if (std::find(kCityGoods.begin(), kCityGoods.end(), tag) != kCityGoods.end()) goods.insert(tag);
        }
    }
    return goods;
}

std::set<int> CityModule::markets_adjacent(const Board& board, int residential_root) {
    std::set<int> markets;
    for (int node : board.structure(residential_root).nodes) {
        const PlacedTile& t = board.tiles()[board.node_tile(node)];
        const FeatureDef& def = board.node_def(node);
        for (int m : def.cities) markets.insert(board.find(t.node(m)));  // same tile ("markets")
        for (Port p : def.ports) {
            if (p == kCentre) continue;
            const Port bp = rotate_port(p, t.rot);
            const int other = board.tile_at(neighbour(t.at, side_of(bp)));
            if (other < 0) continue;
            const int facing = board.node_at(board.tiles()[other].at, facing_port(bp));
            if (facing >= 0 && board.node_def(facing).kind == FeatureKind::Market) markets.insert(board.find(facing));
        }
    }
    return markets;
}

std::optional<std::pair<int, std::string>> CityModule::completed_value(const Game& game, int root) const {
    const Board& board = game.board();
    const Structure& st = board.structure(root);
    const int tiles = static_cast<int>(board.structure_cells(root).size());
    if (st.kind == FeatureKind::Street) {
        if (tiles >= 4) return std::make_pair(2 * tiles, "Completed street of " + plural(tiles, "tile", "tiles") + " (4 or more) x 2");
        return std::make_pair(tiles, "Completed street of " + plural(tiles, "tile", "tiles") + " (1-3) x 1");
    }
    if (st.kind == FeatureKind::Market) {
        const auto goods = goods_of(board, root);
        std::string names;
        for (const auto& g : goods) names += (names.empty() ? "" : ", ") + g;
        const int n = static_cast<int>(goods.size());
        return std::make_pair(tiles * n, "Completed market of " + plural(tiles, "tile", "tiles") + " x " +
                                             plural(n, "good", "goods") + " (" + names + ")");
    }
    return std::nullopt;
}

std::optional<std::string> CityModule::refuse_follower(const Game& /*game*/, const Board& board, int tile_index,
                                                       int root) const {
    const Structure& st = board.structure(root);
    if (st.kind != FeatureKind::Street && st.kind != FeatureKind::Market) return std::nullopt;
    if (tile_index != static_cast<int>(board.tiles().size()) - 1) return std::nullopt;
    for (int done : board.last_completed()) {
        if (board.find(done) == root) {
            return "the " + std::string(feature_kind_name(st.kind)) +
                   " was completed by this very tile; the City allows no follower on it";
        }
    }
    return std::nullopt;
}

void CityModule::on_final_scoring(Game& game) {
    close_city(game);  // the wall closes around the city; what that completes scores now
    Board& board = game.mutable_board();
    // Stable order: by kind (streets, markets, residential areas), then first cell.
    std::vector<int> roots;
    for (int node = 0; node < board.node_count(); ++node) {
        if (board.find(node) == node && !board.structure(node).follower_ids.empty()) roots.push_back(node);
    }
    auto rank = [](FeatureKind k) { return k == FeatureKind::Street ? 0 : k == FeatureKind::Market ? 1 : 2; };
    std::stable_sort(roots.begin(), roots.end(), [&](int a, int b) {
        const auto& sa = board.structure(a);
        const auto& sb = board.structure(b);
        if (rank(sa.kind) != rank(sb.kind)) return rank(sa.kind) < rank(sb.kind);
        return board.structure_cells(a).front() < board.structure_cells(b).front();
    });
    for (int root : roots) {
        const Structure& st = board.structure(root);
        ScoreEvent ev;
        ev.phase = ScoreEvent::Phase::Final;
        ev.feature = std::string(feature_kind_name(st.kind));
        for (int id : st.follower_ids) ++ev.followers[board.followers()[id].player];
        int most = 0;
        for (const auto& [p, n] : ev.followers) most = std::max(most, n);
        for (const auto& [p, n] : ev.followers) {
            if (n == most) ev.winners.push_back(p);
        }
        ev.tiles = board.structure_cells(root);
        if (st.kind == FeatureKind::Street || st.kind == FeatureKind::Market) {
            // Unfinished (finished ones were scored and emptied): followers leave with nothing.
            ev.points = 0;
            ev.explanation = "Unfinished " + ev.feature + ": followers removed, 0 points";
            for (int id : board.release_followers(root)) game.return_follower_to_supply(board.followers()[id].player);
        } else if (st.kind == FeatureKind::Residential) {
            const int markets = static_cast<int>(markets_adjacent(board, root).size());
            ev.points = 2 * markets;
            ev.cities = markets;
            ev.explanation = "Residential area touching " + plural(markets, "market", "markets") + " x 2 = " +
                             std::to_string(ev.points) + " points";
        } else {
            continue;
        }
        game.add_score(std::move(ev));
    }
    score_guards(game);
}

std::unique_ptr<RuleModule> make_city_module() { return std::make_unique<CityModule>(); }

CityCatalogTotals city_catalog_totals(const Catalog& catalog) {
    CityCatalogTotals t;
    for (const TileType& type : catalog.tiles()) {
        const int copies = type.count;
        t.tiles += copies;
        t.designs += copies > 0 ? 1 : 0;
        bool street = false;
        for (const FeatureDef& f : type.features) {
            street = street || f.kind == FeatureKind::Street;
            if (f.kind != FeatureKind::Market) continue;
            for (const auto& tag : f.tags) {
                if (std::find(kCityGoods.begin(), kCityGoods.end(), tag) != kCityGoods.end()) t.goods.insert(tag);
            }
        }
        t.street_tiles += street ? copies : 0;
        for (const auto& tag : type.tags) {
            if (tag == "public") t.public_buildings += copies;
            if (tag.rfind("historic:", 0) == 0) {
                t.historic.insert(tag.substr(9));
                t.historic_copies += copies;
            }
        }
    }
    auto expect = [&](const char* what, int got, int want) {
        if (got != want) {
            t.differences.push_back(std::string(what) + ": " + std::to_string(got) + ", the published game has " +
                                    std::to_string(want));
        }
    };
    if (catalog.game() != "city") t.differences.push_back("game: '" + catalog.game() + "', not 'city'");
    expect("tiles", t.tiles, 75);
    expect("designs", t.designs, 64);
    expect("public buildings", t.public_buildings, 32);
    expect("historic buildings", t.historic_copies, 7);
    expect("distinct historic buildings", static_cast<int>(t.historic.size()), 7);
    expect("goods", static_cast<int>(t.goods.size()), 3);
    return t;
}

}  // namespace meeplecam
