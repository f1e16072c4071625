#include "app/photo_commands.h"

#include <algorithm>
#include <iostream>

#include <opencv2/imgcodecs.hpp>

#include "app/cli_args.h"
#include "calibration/calibration_file.h"
#include "calibration/player_colours.h"
#include "engine/atomic_file.h"
#include "engine/record.h"
#include "engine/score_sheet.h"
#include "vision/board_reader.h"
#include "vision/image_io.h"
#include "vision/photo_score.h"
#include "vision/piece_detector.h"

namespace meeplecam::cli {
namespace {

constexpr const char* kScorePhotoHelp = R"(usage: meeplecam score-photo IMAGE --players red,blue,... [--game carcassonne] [--expansions A,B]
                             [--edition C3] [--json] [--overlay OUT.png] [--calibration C.json] [--fit-clashing]

Reads a photo of a finished game: the tiles (as `recognize`), the followers on them (colour,
standing or lying, the feature under each), bridges, ferries and castle tokens (with
--expansions bridges,castles,ferries), builds the board with the rules engine (touching
sides must match) and prints the final scoring as if the game ended now: every open road,
city and monastery and every farm with followers, with its explanation, and each player's
final-scoring points (points scored during the game are not on the photo).

Cells are the reader's: the board's top-left occupied cell is [0, 0], in the photo's frame
(a photo has no north).

  --players C,C       the player colours in turn order: red, blue, green, yellow, black, grey
  --game G            carcassonne (default)
  --expansions A,B    expansions whose tiles may be on the table
  --edition E         tile counts (default C3)
  --json              print {"scores": {"red": 31, ...}, "events": [...], "tiles": n, "followers": [{"colour": "red", "counted": true, "left_out": "", ...}], "tokens": [...], "warnings": [...]}
  --overlay OUT.png   write the photo with the tiles read, the followers found and what scored
  --calibration C     a calibration file (meeplecam-calibration): its white balance and
                      per-player colour models replace the daylight defaults
  --fit-clashing      where touching sides still clash (a misread tile), take each clashing
                      tile as its best reading that fits its neighbours, so the board can be
                      scored at all: the score is then approximate (each tile so taken is a
                      warning; measured on rendered games most of them are still wrong)

A follower of a colour not among --players is a false one (art or a table of that colour): it
is left out of the score with a warning (in the text, in the JSON: "counted": false and
"left_out" with the reason; crossed out on the overlay).

exit codes: 0 ok; 2 unreadable image, no board, an impossible board (the cells named; see
--fit-clashing), bad --players, a bad calibration file
)";

}  // namespace

int run_score_photo(const std::vector<std::string>& argv) {
    auto args = parse_args(argv, {"game", "expansions", "edition", "players", "overlay", "calibration"}, {"help", "json", "fit-clashing"});
    if (!args) return report(args.error());
    if (args->has("help")) {
        std::cout << kScorePhotoHelp;
        return 0;
    }
    if (args->positional.size() != 1) return report(invalid("score-photo", "expects exactly one IMAGE (see --help)"));
    const std::string path = args->positional[0];
    Record setup;
    setup.game = args->value("game").value_or("carcassonne");
    if (setup.game != "carcassonne") return report(invalid("--game", "score-photo reads carcassonne boards only, not '" + setup.game + "'"));
    if (auto e = args->value("expansions")) setup.expansions = split_list(*e);
    setup.edition = args->value("edition").value_or("C3");
    const auto players = args->value("players");
    if (!players) return report(invalid("score-photo", "--players red,blue,... is required: the player colours in turn order"));
    const std::vector<std::string> known = {"red", "blue", "green", "yellow", "black", "grey"};
    for (const auto& c : split_list(*players)) {
        if (std::find(known.begin(), known.end(), c) == known.end()) {
            return report(invalid("--players", "unknown colour '" + c + "' (red, blue, green, yellow, black, grey)"));
        }
        for (const auto& p : setup.players) {
            if (p.color == c) return report(invalid("--players", "colour '" + c + "' is listed twice"));
        }
        setup.players.push_back(PlayerInfo{c, c});
    }
    if (setup.players.empty()) return report(invalid("--players", "name at least one player colour"));

    calibration::FrameColours colours;
    if (auto c = args->value("calibration")) {
        auto calibration = calibration::load_calibration(*c);
        if (!calibration) return report(calibration.error());
        if (!calibration->colours) return report(invalid(*c, "holds no player colours (\"colours\"): calibrate them first"));
        auto found = calibration::frame_colours_of(*calibration);
        if (!found) {
            Error e = found.error();
            e.where = *c + ": " + e.where;
            return report(e);
        }
        colours = std::move(found).value();
    }
    auto catalog = catalog_for(setup);
    if (!catalog) return report(catalog.error());
    auto image = vision::load_image(path);
    if (!image) return report(image.error());
    const cv::Mat frame = colours.balance(image.value());
    auto read = vision::read_photo(frame, *catalog.value(), setup.edition, setup.expansions, colours.models);
    if (!read) {
        Error e = read.error();
        e.where = e.where == "photo" ? path : path + ": " + e.where;
        return report(e);
    }
    const vision::BoardReading* reading = &read->board;
    const vision::PieceDetection* detection = &read->pieces;
    vision::PhotoOptions photo_options;
    photo_options.refit_clashing = args->has("fit-clashing");
    auto photo = vision::build_photo_game(setup, catalog.value(), *reading, detection->pieces, detection->tokens, photo_options);
    if (!photo) {
        Error e = photo.error();
        e.where = path + ": " + e.where;
        return report(e);
    }
    const Game& game = photo->game;
    if (auto out = args->value("overlay")) {
        const cv::Mat overlay = vision::draw_photo_score(image.value(), *reading, *detection, photo.value());
        std::vector<std::uint8_t> bytes;
        if (!cv::imencode(".png", overlay, bytes)) return report(invalid(*out, "cannot encode the overlay"));
        if (auto st = write_file_atomically(*out, std::string_view(reinterpret_cast<const char*>(bytes.data()), bytes.size())); !st) {
            return report(st.error());
        }
    }
    const auto points = vision::final_points(game);
    if (args->has("json")) {
        nlohmann::json j;
        j["scores"] = nlohmann::json::object();
        for (const auto& p : game.players()) j["scores"][p.color] = points.at(p.color);
        j["events"] = nlohmann::json::array();
        for (const auto& ev : game.score_events()) {
            if (ev.phase == ScoreEvent::Phase::Final) j["events"].push_back(score_event_json(game, ev));
        }
        j["tiles"] = reading->tiles.size();
        j["followers"] = nlohmann::json::array();
        for (std::size_t i = 0; i < detection->pieces.size(); ++i) {
            const auto& d = detection->pieces[i];
            const std::string left_out = i < photo->left_out.size() ? photo->left_out[i] : std::string();
            j["followers"].push_back({{"colour", d.colour},
                                      {"counted", left_out.empty()},
                                      {"left_out", left_out},
                                      {"at", {d.col - photo->origin.x, d.row - photo->origin.y}},
                                      {"loc", d.feature >= 0 ? std::string(port_name(d.port)) : std::string()},
                                      {"feature", d.feature >= 0 ? std::string(feature_kind_name(d.feature_kind)) : std::string()},
                                      {"lying", d.lying},
                                      {"image_px", {d.image_px.x, d.image_px.y}}});
        }
        j["tokens"] = nlohmann::json::array();
        for (const auto& d : detection->tokens) {
            j["tokens"].push_back({{"kind", d.kind},
                                   {"at", {d.col - photo->origin.x, d.row - photo->origin.y}},
                                   {"other", {d.col2 - photo->origin.x, d.row2 - photo->origin.y}},
                                   {"ports", {std::string(port_name(d.port)), std::string(port_name(d.port2))}},
                                   {"colour", d.colour},
                                   {"image_px", {d.image_px.x, d.image_px.y}}});
        }
        j["warnings"] = photo->warnings;
        std::cout << j.dump(2) << "\n";
        return 0;
    }
    std::cout << vision::photo_score_text(path, photo.value(), reading->tiles.size(), *detection);
    return 0;
}

}  // namespace meeplecam::cli
