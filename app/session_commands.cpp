#include "app/session_commands.h"

#include <algorithm>
#include <charconv>
#include <filesystem>
#include <iostream>
#include <map>
#include <optional>

#include "app/cli_args.h"
#include "engine/atomic_file.h"
#include "engine/catalog.h"
#include "engine/journal.h"
#include "engine/record.h"
#include "engine/score_sheet.h"
#include "calibration/calibrated_frame.h"
#include "calibration/player_colours.h"
#include "calibration/calibration_file.h"
#include "session/footage.h"
#include "session/frame_source.h"
#include "session/start_tile.h"
#include "session/tracker.h"
#include "vision/tile_classifier.h"

namespace meeplecam::cli {
namespace {

constexpr const char* kFootageHelp = R"(usage: meeplecam render-footage RECORD.json -o DIR [--seed N] [--preset easy|medium|hard] [--size WxH]
                               [--png] [--follower-with-tile]

Renders a whole match as the frames a fixed camera would see: for every move a hand
reaching in and leaving, then still frames; the light drifts slowly over the match; once a
follower is knocked aside and put back. Writes DIR/frame_00000.jpg ... and DIR/truth.json
(the record, the camera homographies, and per frame what it shows and which events the
players enter by hand because a camera cannot see them: discards, auctions, castles,
ferries, bridges).

  -o, --output DIR    folder to write (created)
  --seed N            scene and noise seed (default 1)
  --preset P          render preset the scene is drawn from (default easy)
  --size WxH          frame size (default 1280x720)
  --png               write PNG frames instead of JPEG
  --follower-with-tile  a follower comes down in the same move as its tile (one hand, no
                      still frame between) instead of in a move of its own

exit codes: 0 ok; 2 unreadable or invalid input; 3 the record holds an illegal move
)";

constexpr const char* kTrackHelp = R"(usage: meeplecam track (--images DIR | --video FILE) (--truth-camera DIR/truth.json | --calibration C.json)
                       [--game G] [--expansions A,B] [--players red,blue] [--edition E]
                       -o RECORD.json [--journal F] [--enter-from-truth] [--unfinished] [--verbose]
                       [--no-follower-with-tile] [--raw-view-weight W]

Runs the session tracker over camera frames, headless: waits for still frames without
hands, reads each new tile (and the follower on it) against the last confirmed table, has
the rules engine check it and records it. Prints the recorded match and the score sheet.

  --images DIR        frames in file-name order (.jpg, .jpeg, .png)
  --video FILE        a video file
  --truth-camera F    take the camera (and, unless --game is given, the set-up: game,
                      expansions, players, start tile) from a render-footage truth.json
  --calibration F     a calibration file (meeplecam calibrate, or the app's wizard): frames are
                      undistorted as it needs (and white-balanced, when it holds player
                      colours: followers are then read by those colours), and the tracker
                      starts on the first frame that shows the start tile alone on its table
                      plane; or a JSON file
                      {"table_to_image": 3x3 (mm -> px), "start_cell_mm": [x, y]}: the table
                      plane and where the start tile's centre lies on it
  --game, --expansions, --players, --edition   the set-up when not taken from the truth
  -o, --output F      the record to write (atomically)
  --journal F         append every confirmed event to this journal as it happens (fsynced)
  --enter-from-truth  enter the events a camera cannot see (discards, auctions, castles,
                      ferries, bridges) from the footage truth, at the frames it names;
                      stands in for the players typing them
  --unfinished        do not run final scoring at the end of the frames
  --verbose           print every analysed frame
  --no-follower-with-tile  do not look for a follower put down in the same move as its tile
                      (by its player's colour, daylight models)
  --raw-view-weight W  when one is found, rank the tile on the view with the follower painted
                      over and on the view as seen, blending their costs with this weight on
                      the view as seen (0..1, default 0: the painted-over view alone, and the
                      view as seen only when the painted-over one reads an illegal tile)

exit codes: 0 ok; 2 unreadable or invalid input
)";

// Whether `path` is a calibration file (format "meeplecam-calibration") rather than the small
// {"table_to_image", "start_cell_mm"} file; unreadable files are left to the readers' errors.
bool is_calibration_file(const std::string& path) {
    auto text = read_whole_file(path);
    if (!text) return false;
    const auto j = nlohmann::json::parse(text.value(), nullptr, false);
    return j.is_object() && j.contains("format");
}

Result<cv::Matx33d> read_calibration(const std::string& path) {
    auto text = read_whole_file(path);
    if (!text) return text.error();
    const auto j = nlohmann::json::parse(text.value(), nullptr, false);
    if (j.is_discarded() || !j.is_object()) return invalid(path, "not a JSON object");
    const auto& m = j.value("table_to_image", nlohmann::json());
    if (!m.is_array() || m.size() != 3) return invalid(path, "table_to_image must be 3 rows of 3 numbers");
    cv::Matx33d h;
    for (int r = 0; r < 3; ++r) {
        const auto& row = m[static_cast<std::size_t>(r)];
        if (!row.is_array() || row.size() != 3) return invalid(path, "table_to_image must be 3 rows of 3 numbers");
        for (int c = 0; c < 3; ++c) {
            if (!row[static_cast<std::size_t>(c)].is_number()) return invalid(path, "table_to_image must hold numbers");
            h(r, c) = row[static_cast<std::size_t>(c)].get<double>();
        }
    }
    if (std::abs(cv::determinant(h)) < 1e-12) return invalid(path, "table_to_image is singular");
    cv::Point2d start(0, 0);
    if (j.contains("start_cell_mm")) {
        const auto& s = j["start_cell_mm"];
        if (!s.is_array() || s.size() != 2 || !s[0].is_number() || !s[1].is_number()) {
            return invalid(path, "start_cell_mm must be [x, y] in millimetres");
        }
        start = {s[0].get<double>(), s[1].get<double>()};
    }
    const cv::Matx33d shift(1, 0, -start.x, 0, 1, -start.y, 0, 0, 1);
    return cv::Matx33d(shift * h.inv());
}

}  // namespace

int run_render_footage(const std::vector<std::string>& argv) {
    auto args = parse_args(argv, {"output", "seed", "preset", "size"}, {"help", "png", "follower-with-tile"});
    if (!args) return report(args.error());
    if (args->has("help")) {
        std::cout << kFootageHelp;
        return 0;
    }
    if (args->positional.size() != 1) return report(invalid("render-footage", "give exactly one RECORD.json (see --help)"));
    const auto output = args->value("output");
    if (!output) return report(invalid("render-footage", "-o DIR is required (see --help)"));
    session::FootageOptions fo;
    if (auto s = args->value("seed")) {
        auto v = integer_arg(*s, "--seed");
        if (!v) return report(v.error());
        fo.seed = static_cast<std::uint64_t>(v.value());
    }
    if (auto p = args->value("preset")) fo.preset = *p;
    if (auto s = args->value("size")) {
        const auto x = s->find('x');
        auto w = integer_arg(s->substr(0, x), "--size");
        auto h = integer_arg(x == std::string::npos ? "" : s->substr(x + 1), "--size");
        if (!w || !h) return report(invalid("--size", "expected WxH, e.g. 1280x720, not '" + *s + "'"));
        fo.width = static_cast<int>(w.value());
        fo.height = static_cast<int>(h.value());
    }
    if (args->has("png")) fo.image_ext = ".png";
    fo.follower_with_tile = args->has("follower-with-tile");
    auto record = read_record(args->positional[0]);
    if (!record) return report(record.error());
    auto frames = session::write_footage(record.value(), fo, *output);
    if (!frames) return report(frames.error());
    std::cout << "wrote " << *output << ": " << frames.value() << " frames of " << record->events.size() << " events, truth in "
              << *output << "/truth.json\n";
    return 0;
}

int run_track(const std::vector<std::string>& argv) {
    auto args = parse_args(argv,
                           {"images", "video", "truth-camera", "calibration", "game", "expansions", "players", "edition", "output",
                            "journal", "raw-view-weight"},
                           {"help", "enter-from-truth", "unfinished", "verbose", "no-follower-with-tile"});
    if (!args) return report(args.error());
    if (args->has("help")) {
        std::cout << kTrackHelp;
        return 0;
    }
    const auto output = args->value("output");
    if (!output) return report(invalid("track", "-o RECORD.json is required (see --help)"));
    if (args->value("images").has_value() == args->value("video").has_value()) {
        return report(invalid("track", "give exactly one of --images DIR and --video FILE"));
    }
    if (args->value("truth-camera").has_value() == args->value("calibration").has_value()) {
        return report(invalid("track", "give exactly one of --truth-camera F and --calibration F"));
    }
    // Camera and set-up.
    session::TrackerOptions topt;
    if (args->has("no-follower-with-tile")) topt.read_follower_with_tile = false;
    if (auto w = args->value("raw-view-weight")) {
        auto v = number_arg(*w, "--raw-view-weight");
        if (!v) return report(v.error());
        topt.follower_on_tile.raw_view_weight = *v;
        if (auto st = topt.follower_on_tile.check(); !st) return report(st.error());
    }
    cv::Matx33d image_to_table;
    std::optional<calibration::Calibration> calibration_file;  // the tracker waits for the start tile on its plane
    calibration::FrameColours frame_colours;                    // the file's player colours and white balance (daylight, none)
    std::optional<session::FootageTruth> truth;
    Record setup;
    if (auto t = args->value("truth-camera")) {
        auto read = session::read_footage_truth(*t);
        if (!read) return report(read.error());
        truth = std::move(read).value();
        image_to_table = truth->camera.image_to_table_mm;
        topt.tile_mm = truth->camera.tile_mm;
        topt.gap_mm = truth->camera.gap_mm;
        setup = truth->record;
        setup.events.resize(1);
        setup.finished = false;
    } else if (is_calibration_file(*args->value("calibration"))) {
        auto cal = calibration::load_calibration(*args->value("calibration"));
        if (!cal) return report(cal.error());
        if (!cal->table) return report(invalid(*args->value("calibration"), "the calibration has no table plane (calibrate table)"));
        // A plane from the start tile alone drifts away from it: refit it as tiles come down.
        topt.refit_plane = cal->table->source == "start-tile";
        // Calibrated player colours hold after the file's white balance: frames get it too.
        auto found = calibration::frame_colours_of(*cal);
        if (!found) {
            Error e = found.error();
            e.where = *args->value("calibration") + ": " + e.where;
            return report(e);
        }
        frame_colours = std::move(found).value();
        if (frame_colours.calibrated) topt.piece_colours = frame_colours.models;
        calibration_file = std::move(cal).value();
    } else {
        auto h = read_calibration(*args->value("calibration"));
        if (!h) return report(h.error());
        image_to_table = h.value();
    }
    if (args->value("game") || !truth) {
        setup = Record{};
        setup.game = args->value("game").value_or("carcassonne");
        if (auto e = args->value("expansions")) setup.expansions = split_list(*e);
        if (auto e = args->value("edition")) setup.edition = *e;
        for (const auto& c : split_list(args->value("players").value_or("red,blue"))) setup.players.push_back({c, c});
        auto cat = catalog_for(setup);
        if (!cat) return report(cat.error());
        Event start;
        start.type = "tile";
        start.tile = cat.value()->start_tile();
        setup.events.push_back(start);
    }
    if (args->has("enter-from-truth") && !truth) return report(invalid("--enter-from-truth", "needs --truth-camera"));
    std::optional<session::Tracker> tracker;
    std::optional<JournalWriter> journal;
    std::size_t journaled = 0;
    auto start_tracker = [&](const cv::Matx33d& h) -> Status {
        auto t = session::Tracker::create(setup, topt, h);
        if (!t) return t.error();
        tracker.emplace(std::move(t).value());
        journaled = tracker->record().events.size();
        if (auto j = args->value("journal")) {
            auto w = JournalWriter::create(*j, tracker->record());
            if (!w) return w.error();
            journal.emplace(std::move(w).value());
        }
        return Ok{};
    };
    if (!calibration_file) {
        if (auto st = start_tracker(image_to_table); !st) return report(st.error());
    }
    // With a calibration file: the start tile's place, found on the (undistorted) frames.
    std::shared_ptr<const Catalog> catalog;
    std::optional<vision::TileClassifier> classifier;
    std::optional<calibration::FrameUndistorter> undistorter;
    std::string not_found;  // why the start tile was not found on the last frame
    if (calibration_file) {
        auto c = catalog_for(setup);
        if (!c) return report(c.error());
        catalog = c.value();
        auto k = vision::TileClassifier::create(*catalog);
        if (!k) return report(k.error());
        classifier.emplace(std::move(k).value());
    }
    auto source = args->value("images") ? session::open_image_folder(*args->value("images")) : session::open_video_file(*args->value("video"));
    if (!source) return report(source.error());

    auto sync_journal = [&]() -> Status {
        if (!journal) return Ok{};
        const auto& events = tracker->record().events;
        for (; journaled < events.size(); ++journaled) {
            if (auto st = journal->append(events[journaled]); !st) return st;
        }
        return Ok{};
    };
    int frames = 0, analysed = 0, ambiguous = 0, illegal = 0, occluded = 0;
    std::vector<Event> auto_committed;         // what the tracker recorded on its own
    std::vector<session::CandidateMove> picks;  // first candidates taken for ambiguities
    std::vector<double> analysis_ms, frame_ms;
    cv::Mat frame;
    while (true) {
        auto more = source.value()->next(frame);
        if (!more) return report(more.error());
        if (!more.value()) break;
        if (calibration_file && calibration::undistorts_frames(*calibration_file)) {
            if (!undistorter || undistorter->size() != frame.size()) {
                auto u = calibration::FrameUndistorter::create(*calibration_file->camera, frame.size(), source.value()->last_name());
                if (!u) return report(u.error());
                undistorter.emplace(std::move(u).value());
            }
            frame = undistorter->apply(frame);
        }
        frame = frame_colours.balance(frame);
        if (!tracker) {
            ++frames;
            auto fix = session::locate_start_tile(frame, *calibration_file, setup, *catalog, *classifier, {}, source.value()->last_name());
            if (!fix) {
                not_found = fix.error().to_string();
                if (args->has("verbose")) std::cout << not_found << "\n";
                continue;
            }
            std::cout << source.value()->last_name() << ": start tile found at (" << std::lround(fix->centre_mm.x) << ", "
                      << std::lround(fix->centre_mm.y) << ") mm on the calibrated table, turned " << std::lround(fix->turn_deg)
                      << " deg: tracking from here\n";
            if (auto st = start_tracker(fix->image_to_board_mm); !st) return report(st.error());
            continue;
        }
        if (args->has("enter-from-truth") && frames < static_cast<int>(truth->frames.size())) {
            for (const int i : truth->frames[static_cast<std::size_t>(frames)].enter_before) {
                const std::size_t corrections = tracker->corrections().size();
                if (auto st = tracker->record_event(truth->record.events[static_cast<std::size_t>(i)]); !st) {
                    std::cerr << "meeplecam: frame " << frames << ": entering event " << i << " failed: " << st.error().to_string() << "\n";
                }
                // Entering it may have re-read recent tiles (an auction after a tile read as a bazaar's plain twin).
                if (args->has("verbose")) {
                    for (std::size_t k = corrections; k < tracker->corrections().size(); ++k) {
                        std::cout << "frame " << frames << ": entering event " << i << ": " << tracker->corrections()[k] << "\n";
                    }
                }
            }
        }
        const auto up = tracker->on_frame(frame);
        ++frames;
        frame_ms.push_back(up.ms_total);
        auto_committed.insert(auto_committed.end(), up.committed.begin(), up.committed.end());
        if (up.analysed) {
            ++analysed;
            analysis_ms.push_back(up.ms_analysis);
        }
        if (up.state == session::FrameState::Occluded && up.analysed) ++occluded;
        if (args->has("verbose") && up.analysed) {
            std::cout << source.value()->last_name() << ": " << (up.state == session::FrameState::Occluded ? "occluded" : "stable");
            for (const auto& e : up.committed) std::cout << " | " << e.to_json().dump();
            for (const auto& n : up.notes) std::cout << " | " << n;
            std::cout << "\n";
        }
        if (up.illegal) {
            ++illegal;
            std::cout << source.value()->last_name() << ": illegal move: tile " << up.illegal->move.tile << " at "
                      << to_string(up.illegal->move.at) << " rot " << up.illegal->move.rot * 90 << ": " << up.illegal->rule << "\n";
        }
        if (!up.ambiguity.empty() && up.analysed) {
            ++ambiguous;
            // Headless, nobody answers: take the classifier's first choice and say so.
            std::cout << source.value()->last_name() << ": ambiguous (" << up.ambiguity.size() << " candidates, best "
                      << up.ambiguity[0].tile << " " << up.ambiguity[0].rot * 90 << " at " << to_string(up.ambiguity[0].at)
                      << "); headless: taking the best\n";
            if (args->has("verbose")) {
                std::cout << "  candidates:";
                for (const auto& c : up.ambiguity) {
                    std::cout << " " << c.tile << " " << c.rot * 90 << " at " << to_string(c.at) << " (" << static_cast<int>(std::lround(100 * c.confidence)) << " %)";
                }
                std::cout << "\n";
            }
            picks.push_back(up.ambiguity[0]);
            auto chosen = tracker->choose(0);
            if (!chosen) return report(chosen.error());
            if (args->has("verbose")) {
                std::cout << "  taken:";
                for (const auto& e : chosen->committed) std::cout << " " << e.to_json().dump();
                for (const auto& n : chosen->notes) std::cout << " | " << n;
                std::cout << "\n";
            }
        }
        for (const auto& f : up.removed_by_mistake) {
            std::cout << source.value()->last_name() << ": the " << f.colour << " follower at " << to_string(f.at) << " " << f.loc
                      << " is gone without a scoring\n";
        }
        if (auto st = sync_journal(); !st) return report(st.error());
    }
    if (args->has("enter-from-truth")) {
        for (std::size_t k = static_cast<std::size_t>(frames); k < truth->frames.size(); ++k) {
            for (const int i : truth->frames[k].enter_before) (void)tracker->record_event(truth->record.events[static_cast<std::size_t>(i)]);
        }
    }
    if (!tracker) {
        return report(invalid(*args->value("calibration"), "no frame showed the start tile alone on the calibrated table (last frame: " +
                                                                (not_found.empty() ? std::string("no frames") : not_found) + ")"));
    }
    if (!args->has("unfinished")) {
        if (auto st = tracker->finish(); !st) return report(st.error());
    }
    if (auto st = sync_journal(); !st) return report(st.error());
    if (auto st = write_record(tracker->record(), *output); !st) return report(st.error());

    const Record& rec = tracker->record();
    std::cout << "recorded match (" << rec.events.size() << " events):\n";
    for (std::size_t i = 0; i < rec.events.size(); ++i) std::cout << "  " << i << ": " << rec.events[i].to_json().dump() << "\n";
    std::cout << format_score_sheet(tracker->game());
    auto median = [](std::vector<double> v) {
        if (v.empty()) return 0.0;
        std::nth_element(v.begin(), v.begin() + static_cast<std::ptrdiff_t>(v.size() / 2), v.end());
        return v[v.size() / 2];
    };
    const double max_analysis = analysis_ms.empty() ? 0.0 : *std::max_element(analysis_ms.begin(), analysis_ms.end());
    std::cout << "frames " << frames << ", settled frames read " << analysed << " (occluded " << occluded << "), ambiguous "
              << ambiguous << ", illegal " << illegal << "\n"
              << "ms per frame: median " << median(frame_ms) << "; reading a settled frame: median " << median(analysis_ms) << ", max "
              << max_analysis << "\n";
    if (truth) {
        const auto& want = truth->record.events;
        std::size_t same = 0;
        for (std::size_t i = 0; i < std::min(want.size(), rec.events.size()); ++i) {
            if (want[i].to_json() == rec.events[i].to_json()) ++same;
        }
        std::cout << "against the footage truth: " << same << " of " << want.size() << " events equal, recorded "
                  << rec.events.size() << "\n";
        // Per move the camera sees (tiles and followers after the start tile).
        auto in_script = [&](const nlohmann::json& e) {
            return std::any_of(want.begin() + 1, want.end(), [&](const Event& w) { return w.to_json() == e; });
        };
        int visible = 0, missed = 0, right = 0, wrong = 0, pick_right = 0;
        for (std::size_t i = 1; i < want.size(); ++i) {
            if (want[i].type != "tile" && want[i].type != "meeple") continue;
            ++visible;
            const auto j = want[i].to_json();
            if (std::none_of(rec.events.begin(), rec.events.end(), [&](const Event& e) { return e.to_json() == j; })) ++missed;
        }
        for (const auto& e : auto_committed) (in_script(e.to_json()) ? right : wrong)++;
        for (const auto& c : picks) {
            pick_right += std::any_of(want.begin(), want.end(), [&](const Event& w) {
                return w.type == "tile" && w.tile == c.tile && w.at == c.at && w.rot == c.rot;
            });
        }
        std::cout << "moves: " << visible << " seen in the script; committed right " << right << ", wrong " << wrong
                  << "; ambiguous " << picks.size() << " (first candidate right " << pick_right << "); not recorded " << missed
                  << "\n";
        int followers_seen = 0, followers_right = 0, followers_wrong = 0;
        for (std::size_t i = 1; i < want.size(); ++i) followers_seen += want[i].type == "meeple";
        for (const auto& e : rec.events) {
            if (e.type == "meeple") (in_script(e.to_json()) ? followers_right : followers_wrong)++;
        }
        std::cout << "followers: " << followers_seen << " in the script; recorded right " << followers_right << ", wrong "
                  << followers_wrong << ", missed " << followers_seen - followers_right << "\n";
        // Where the correction menu (ranked by the tracker's likelihoods) puts the true tile of
        // each tile committed wrong: its rank among the legal placements other than the one read.
        std::vector<int> ranks;  // 1 = the menu's first choice; 0 = not among the placements judged
        for (const auto& e : auto_committed) {
            if (e.type != "tile" || in_script(e.to_json())) continue;
            const auto truth_tile = std::find_if(want.begin(), want.end(), [&](const Event& w) { return w.type == "tile" && w.at == e.at; });
            if (truth_tile == want.end()) continue;
            const auto judged = tracker->likelihoods().find(e.at);
            const TileType* type = tracker->game().catalog().find(truth_tile->tile);
            int rank = 0, position = 0;
            if (judged != tracker->likelihoods().end() && type) {
                for (const auto& c : judged->second) {
                    if (c.tile == e.tile && c.rot == e.rot) continue;  // the placement read
                    ++position;
                    if (c.tile == truth_tile->tile && vision::same_rotation(*type, c.rot, truth_tile->rot)) {
                        rank = position;
                        break;
                    }
                }
            }
            ranks.push_back(rank);
        }
        if (!ranks.empty()) {
            std::cout << "tiles committed wrong: " << ranks.size() << "; the true tile is the correction menu's choice";
            for (int r : ranks) std::cout << " " << (r > 0 ? std::to_string(r) : std::string("-"));
            std::cout << " (1 = first; - = not judged legal)\n";
        }
    }
    return 0;
}

}  // namespace meeplecam::cli
