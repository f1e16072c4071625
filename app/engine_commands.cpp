#include "app/engine_commands.h"

#include <charconv>
#include <iostream>

#include "app/cli_args.h"
#include "engine/correction.h"
#include "engine/random_game.h"
#include "engine/record.h"
#include "engine/score_sheet.h"

namespace meeplecam::cli {
namespace {

constexpr const char* kScoreHelp = R"(usage: meeplecam score RECORD.json [--json] [--catalog FILE]

Replays a match record and prints the score sheet: every player's total and each
scoring with its explanation. When the record says "finished": true, final scoring
(open features and farms) is included.

  --json          print {"scores": {"red": 12, ...}, "events": [...]}
  --catalog FILE  use this tile catalog instead of the shipped one

exit codes: 0 ok; 2 unreadable or invalid record; 3 an illegal move (event index and rule)
)";

constexpr const char* kLegalHelp = R"(usage: meeplecam legal RECORD.json --tile ID [--at X,Y --rot R] [--json] [--catalog FILE]

Lists where tile ID may be placed after the record's events: one entry per distinct
result (rotations of symmetric tiles listed once). With --at and --rot, lists where the
player to move may put a follower after that placement (ports in board orientation).

  --tile ID       tile type id, e.g. V
  --at X,Y        a cell (x east, y south)
  --rot R         rotation in degrees clockwise: 0, 90, 180 or 270
  --json          print JSON: [{"at": [x, y], "rot": r[, "bridge": {...}]}, ...] or, with --at/--rot,
                  {"at", "rot", "player", "followers": [{"loc", "feature"}], "actions": [events]}
                  (actions: the expansions' options for that placement: bridges, ferries, ...)
  --catalog FILE  use this tile catalog instead of the shipped one

exit codes: 0 ok; 2 invalid input; 3 the record holds an illegal move, or --at/--rot is illegal
)";

// Loads the record and replays it, with an optional --catalog override.
Result<Game> load_game(const Args& args, const std::string& command, bool apply_finish) {
    if (args.positional.size() != 1) return invalid(command, "expects exactly one RECORD file (see --help)");
    const std::string path = args.positional[0];
    auto record = read_record(path);
    if (!record) return record.error();
    ReplayOptions options;
    options.apply_finish = apply_finish;
    if (auto catalog_path = args.value("catalog")) {
        auto catalog = Catalog::load_file(*catalog_path);
        if (!catalog) return catalog.error();
        options.catalog = std::make_shared<const Catalog>(std::move(catalog.value()));
    }
    auto game = replay(record.value(), options);
    if (!game) {
        Error e = game.error();
        e.where = path + ": " + e.where;
        return e;
    }
    return game;
}

Result<Cell> parse_cell_arg(const std::string& text) {
    const auto comma = text.find(',');
    int x = 0, y = 0;
    if (comma != std::string::npos) {
        const char* b = text.data();
        const auto rx = std::from_chars(b, b + comma, x);
        const auto ry = std::from_chars(b + comma + 1, b + text.size(), y);
        if (rx.ec == std::errc() && rx.ptr == b + comma && ry.ec == std::errc() && ry.ptr == b + text.size()) {
            return Cell{x, y};
        }
    }
    return invalid("--at", "expected X,Y with two integers, got '" + text + "'");
}

}  // namespace

int run_score(const std::vector<std::string>& argv) {
    auto args = parse_args(argv, {"catalog"}, {"json", "help"});
    if (!args) return report(args.error());
    if (args->has("help")) {
        std::cout << kScoreHelp;
        return 0;
    }
    auto game = load_game(args.value(), "score", /*apply_finish=*/true);
    if (!game) return report(game.error());
    // The record's corrections, one line each (the record replayed above, so it reads).
    std::vector<std::string> corrections;
    if (auto record = read_record(args->positional[0])) {
        for (const Event& e : record->events) {
            if (e.type == "correction") corrections.push_back(describe_correction(e));
        }
    }
    if (args->has("json")) {
        nlohmann::json sheet = score_sheet_json(game.value());
        if (!corrections.empty()) sheet["corrections"] = corrections;
        std::cout << sheet.dump(2) << "\n";
    } else {
        std::cout << format_score_sheet(game.value());
        if (!corrections.empty()) std::cout << "\nCorrections\n";
        for (const auto& line : corrections) std::cout << "  " << line << "\n";
    }
    return 0;
}

int run_legal(const std::vector<std::string>& argv) {
    auto args = parse_args(argv, {"catalog", "tile", "at", "rot"}, {"json", "help"});
    if (!args) return report(args.error());
    if (args->has("help")) {
        std::cout << kLegalHelp;
        return 0;
    }
    const auto tile_id = args->value("tile");
    if (!tile_id) return report(invalid("legal", "--tile ID is required (see --help)"));
    if (args->value("at").has_value() != args->value("rot").has_value()) {
        return report(invalid("legal", "--at and --rot go together"));
    }
    auto game = load_game(args.value(), "legal", /*apply_finish=*/false);
    if (!game) return report(game.error());
    const TileType* type = game->catalog().find(*tile_id);
    if (!type) return report(invalid("--tile", "unknown tile id '" + *tile_id + "'"));
    const bool json_out = args->has("json");

    if (auto at_text = args->value("at")) {
        auto at = parse_cell_arg(*at_text);
        if (!at) return report(at.error());
        const std::string rot_text = *args->value("rot");
        long long degrees = -1;
        const auto rr = std::from_chars(rot_text.data(), rot_text.data() + rot_text.size(), degrees);
        const auto q = quarter_turns_from_degrees(rr.ec == std::errc() && rr.ptr == rot_text.data() + rot_text.size()
                                                      ? degrees
                                                      : -1);
        if (!q) return report(invalid("--rot", "must be 0, 90, 180 or 270, not '" + rot_text + "'"));
        // Play the placement on the replayed game (with a module's help when it needs one, e.g. a
        // bridge), then ask the core for follower spots and every module for its options.
        const std::string player = game->players()[game->next_player()].color;
        Event placed;
        placed.type = "tile";
        placed.player = player;
        placed.tile = type->id;
        placed.at = at.value();
        placed.rot = *q;
        placed.raw = placed.to_json();
        if (!game->board().check_placement(*type, Placement{at.value(), *q}).ok) {
            for (const auto& m : game->modules()) {
                for (const auto& h : m->extra_placements(game.value(), *type)) {
                    if (h.placement == Placement{at.value(), *q} && !placed.raw.contains("bridge")) placed.raw.update(h.extra);
                }
            }
        }
        if (auto st = game->apply(placed, -1); !st) {
            Error e = st.error();
            e.where = "--at/--rot";
            return report(e);
        }
        const auto followers = game->current_follower_options();
        nlohmann::json actions = nlohmann::json::array();
        for (const auto& m : game->modules()) {
            for (const auto& ev : m->options(game.value())) actions.push_back(ev.to_json());
        }
        if (json_out) {
            nlohmann::json j;
            j["at"] = {at->x, at->y};
            j["rot"] = *q * 90;
            j["player"] = player;
            nlohmann::json extra = placed.raw;
            for (const char* key : {"type", "player", "tile", "at", "rot"}) extra.erase(key);
            if (!extra.empty()) j["with"] = extra;
            j["followers"] = nlohmann::json::array();
            for (const auto& o : followers) {
                j["followers"].push_back({{"loc", port_name(o.loc)}, {"feature", feature_kind_name(o.kind)}});
            }
            j["actions"] = actions;
            std::cout << j.dump(2) << "\n";
        } else {
            nlohmann::json extra = placed.raw;
            for (const char* key : {"type", "player", "tile", "at", "rot"}) extra.erase(key);
            std::cout << "Tile " << type->id << " at " << to_string(at.value()) << " rot " << *q * 90
                      << (extra.empty() ? "" : " with " + extra.dump()) << ": " << followers.size()
                      << " follower location(s) for " << player << "\n";
            for (const auto& o : followers) {
                std::cout << "  " << port_name(o.loc) << "  " << feature_kind_name(o.kind) << "\n";
            }
            if (!actions.empty()) std::cout << "Expansion actions (" << actions.size() << "):\n";
            for (const auto& a : actions) std::cout << "  " << a.dump() << "\n";
        }
        return 0;
    }

    const auto moves = game->legal_placements(*type);
    std::vector<PlacementOption> helped;  // legal only with a rule module's help (e.g. a bridge)
    for (const auto& m : game->modules()) {
        auto more = m->extra_placements(game.value(), *type);
        helped.insert(helped.end(), more.begin(), more.end());
    }
    if (json_out) {
        nlohmann::json j = nlohmann::json::array();
        for (const auto& m : moves) j.push_back({{"at", {m.at.x, m.at.y}}, {"rot", m.rot * 90}});
        for (const auto& h : helped) {
            nlohmann::json entry = {{"at", {h.placement.at.x, h.placement.at.y}}, {"rot", h.placement.rot * 90}};
            entry.update(h.extra);
            j.push_back(entry);
        }
        std::cout << j.dump(2) << "\n";
    } else {
        std::cout << "Tile " << type->id << ": " << moves.size() + helped.size() << " legal placement(s)"
                  << (moves.empty() ? " (it may be discarded)" : "") << "\n";
        for (const auto& m : moves) std::cout << "  at " << to_string(m.at) << " rot " << m.rot * 90 << "\n";
        for (const auto& h : helped) {
            std::cout << "  at " << to_string(h.placement.at) << " rot " << h.placement.rot * 90 << " with "
                      << h.extra.dump() << "\n";
        }
    }
    return 0;
}

namespace {

constexpr const char* kRandomHelp = R"(usage: meeplecam random-game [--seed N] [--players N] [--followers P] -o OUT.json

Plays a whole legal base game with random moves (seeded: the same seed gives the same
game) and writes it as a finished match record. For demos, tests and benchmarks.

  --seed N        random seed (default 1)
  --players N     1..6 players (default 2)
  --followers P   chance 0..1 of placing a follower when one may be placed (default 0.6)
  --expansions L  comma-separated rule modules to play with, e.g. ferries
  --game G        carcassonne (default), city or amazonas (The City / Amazonas: provisional catalogs)
  --max-tiles N   stop after N tiles (the start tile counts), e.g. for short scripted footage
  -o, --output F  where to write the record (written atomically)
)";

Result<long long> parse_integer(const std::string& text, const std::string& what) {
    long long v = 0;
    const auto r = std::from_chars(text.data(), text.data() + text.size(), v);
    if (r.ec != std::errc() || r.ptr != text.data() + text.size()) {
        return invalid(what, "expected an integer, got '" + text + "'");
    }
    return v;
}

}  // namespace

int run_random_game(const std::vector<std::string>& argv) {
    auto args = parse_args(argv, {"seed", "players", "followers", "output", "expansions", "game", "max-tiles"}, {"help"});
    if (!args) return report(args.error());
    if (args->has("help")) {
        std::cout << kRandomHelp;
        return 0;
    }
    const auto output = args->value("output");
    if (!output) return report(invalid("random-game", "-o OUT.json is required (see --help)"));
    RandomGameOptions opt;
    if (auto s = args->value("seed")) {
        auto v = parse_integer(*s, "--seed");
        if (!v) return report(v.error());
        opt.seed = static_cast<std::uint64_t>(v.value());
    }
    if (auto s = args->value("players")) {
        auto v = parse_integer(*s, "--players");
        if (!v) return report(v.error());
        if (v.value() < 1 || v.value() > 6) return report(invalid("--players", "must be 1..6"));
        opt.players = static_cast<int>(v.value());
    }
    if (auto s = args->value("followers")) {
        try {
            std::size_t used = 0;
            opt.follower_chance = std::stod(*s, &used);
            if (used != s->size() || opt.follower_chance < 0 || opt.follower_chance > 1) throw std::invalid_argument(*s);
        } catch (const std::exception&) {
            return report(invalid("--followers", "must be a number 0..1, not '" + *s + "'"));
        }
    }
    if (auto list = args->value("expansions")) {
        std::string rest = *list;
        while (!rest.empty()) {
            const auto comma = rest.find(',');
            if (comma != 0) opt.expansions.push_back(rest.substr(0, comma));
            rest = comma == std::string::npos ? "" : rest.substr(comma + 1);
        }
    }
    if (auto g = args->value("game")) {
        if (*g != "carcassonne" && *g != "city" && *g != "amazonas") {
            return report(invalid("--game", "must be carcassonne, city or amazonas"));
        }
        opt.game = *g;
    }
    if (auto s = args->value("max-tiles")) {
        auto v = parse_integer(*s, "--max-tiles");
        if (!v) return report(v.error());
        if (v.value() < 1 || v.value() > 100000) return report(invalid("--max-tiles", "must be 1..100000"));
        opt.max_tiles = static_cast<int>(v.value());
    }
    auto game = play_random_game(nullptr, opt);
    if (!game) return report(game.error());
    if (auto st = write_record(game->record, *output); !st) return report(st.error());
    std::cout << "wrote " << *output << ": " << game->record.events.size() << " events, "
              << game->game.board().size() << " tiles\n";
    return 0;
}

}  // namespace meeplecam::cli
