#include "engine/score_sheet.h"

#include <algorithm>
#include <sstream>

namespace meeplecam {
namespace {

std::string winners_text(const Game& game, const ScoreEvent& ev) {
    std::string out;
    for (int p : ev.winners) out += (out.empty() ? "" : ", ") + game.players()[p].color;
    return out;
}

std::string followers_text(const Game& game, const ScoreEvent& ev) {
    std::string out;
    for (const auto& [p, n] : ev.followers) {
        out += (out.empty() ? "" : ", ") + game.players()[p].color + " " + std::to_string(n);
    }
    return out;
}

}  // namespace

nlohmann::json score_event_json(const Game& game, const ScoreEvent& ev) {
    nlohmann::json j;
    j["phase"] = ev.phase == ScoreEvent::Phase::Turn ? "turn" : "final";
    if (ev.phase == ScoreEvent::Phase::Turn) j["event"] = ev.event_index;
    j["feature"] = ev.feature;
    j["points"] = ev.points;
    j["winners"] = nlohmann::json::array();
    for (int p : ev.winners) j["winners"].push_back(game.players()[p].color);
    j["followers"] = nlohmann::json::object();
    for (const auto& [p, n] : ev.followers) j["followers"][game.players()[p].color] = n;
    j["tiles"] = nlohmann::json::array();
    for (const Cell& c : ev.tiles) j["tiles"].push_back({c.x, c.y});
    j["tile_count"] = ev.tiles.size();
    if (ev.feature == "city") j["pennants"] = ev.pennants;
    if (ev.feature == "farm") j["cities"] = ev.cities;
    if (ev.feature == "residential") j["markets"] = ev.cities;  // the City: adjacent markets
    j["completed"] = ev.completed;
    j["explanation"] = ev.explanation;
    return j;
}

nlohmann::json score_sheet_json(const Game& game) {
    nlohmann::json j;
    j["scores"] = nlohmann::json::object();
    for (std::size_t i = 0; i < game.players().size(); ++i) j["scores"][game.players()[i].color] = game.scores()[i];
    j["events"] = nlohmann::json::array();
    for (const auto& ev : game.score_events()) j["events"].push_back(score_event_json(game, ev));
    j["finished"] = game.finished();
    for (const auto& m : game.modules()) {  // module state (Amazonas: boats), only when a module has some
        nlohmann::json state = m->sheet_state(game);
        if (!state.is_null()) j["modules"][std::string(m->name())] = std::move(state);
    }
    if (game.catalog().provisional()) j["provisional_catalog"] = true;  // e.g. the City: not the official tiles
    return j;
}

std::string format_score_sheet(const Game& game) {
    std::ostringstream out;
    out << (game.finished() ? "Final score" : "Score so far (game not finished)") << " after "
        << game.board().size() << " tiles\n\n";
    if (game.catalog().provisional()) {
        out << "Tile catalog: PROVISIONAL (invented designs meeting the published totals, not the official tiles)\n\n";
    }
    std::vector<int> order(game.players().size());
    for (std::size_t i = 0; i < order.size(); ++i) order[i] = static_cast<int>(i);
    std::stable_sort(order.begin(), order.end(), [&](int a, int b) { return game.scores()[a] > game.scores()[b]; });
    std::size_t width = 0;
    for (const auto& p : game.players()) width = std::max(width, p.color.size() + p.name.size() + 3);
    for (int i : order) {
        const auto& p = game.players()[i];
        std::string label = p.color + (p.name != p.color ? " (" + p.name + ")" : "");
        out << "  " << label << std::string(width + 2 - std::min(width + 1, label.size()), ' ') << game.scores()[i]
            << "\n";
    }
    for (const auto& m : game.modules()) {
        if (const std::string line = m->sheet_line(game); !line.empty()) out << "\n" << line << "\n";
    }
    out << "\nScoring events:\n";
    if (game.score_events().empty()) out << "  (none)\n";
    for (const auto& ev : game.score_events()) {
        out << "  "
            << (ev.phase == ScoreEvent::Phase::Turn ? "turn of event " + std::to_string(ev.event_index) : "final")
            << ": " << ev.explanation << " -> " << winners_text(game, ev);
        out << "  [followers: " << followers_text(game, ev) << "; tiles:";
        for (const Cell& c : ev.tiles) out << " " << to_string(c);
        out << "]\n";
    }
    return out.str();
}

}  // namespace meeplecam
