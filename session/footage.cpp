#include "session/footage.h"

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <optional>

#include <opencv2/imgcodecs.hpp>

#include "engine/atomic_file.h"
#include "vision/table_renderer.h"
#include "vision/tile_art.h"

namespace meeplecam::session {
namespace {

// One frame to render: what the table shows and where the hand is.
struct Shot {
    vision::Scene scene;
    std::string phase;
    std::optional<Cell> hand_cell;
    double reach = 0;  // 0: no hand
    int events_shown = 0;
    std::vector<int> enter_before;
};

bool same_scene(const vision::Scene& a, const vision::Scene& b) {
    if (a.tiles.size() != b.tiles.size() || a.pieces.size() != b.pieces.size()) return false;
    for (std::size_t i = 0; i < a.tiles.size(); ++i) {
        if (a.tiles[i].type != b.tiles[i].type || a.tiles[i].at != b.tiles[i].at || a.tiles[i].rot != b.tiles[i].rot) return false;
    }
    for (std::size_t i = 0; i < a.pieces.size(); ++i) {
        const auto &p = a.pieces[i], &q = b.pieces[i];
        if (p.at != q.at || p.feature != q.feature || p.colour != q.colour || p.shift_mm != q.shift_mm) return false;
    }
    return true;
}

// Builds the shots of one move: the hand comes in over the old table, leaves over the new, then stills.
class Script {
public:
    Script(const FootageOptions& o, const std::vector<Cell>& layout) : o_(o), layout_(layout) {}

    void stills(const vision::Scene& s, int events, const std::string& phase = "still") {
        for (int k = 0; k < o_.still_frames; ++k) add(s, phase, std::nullopt, 0, events);
    }
    void move(const vision::Scene& before, const vision::Scene& after, std::optional<Cell> at, int events_before, int events_after,
              const std::string& phase) {
        if (at && std::find(layout_.begin(), layout_.end(), *at) == layout_.end()) at.reset();
        for (int k = 0; k < o_.approach_frames; ++k) {
            add(before, phase == "move" ? "hand-in" : phase, at, 0.35 + 0.65 * (k + 1) / o_.approach_frames, events_before);
        }
        for (int k = 0; k < o_.leave_frames; ++k) {
            add(after, phase == "move" ? "hand-out" : phase, at, 0.6 * (1.0 - static_cast<double>(k) / o_.leave_frames), events_after);
        }
        stills(after, events_after);
    }
    void enter(int event) { entered_.push_back(event); }
    std::vector<Shot>& shots() { return shots_; }

private:
    void add(const vision::Scene& s, const std::string& phase, std::optional<Cell> at, double reach, int events) {
        Shot shot{s, phase, at, reach, events, {}};
        shot.enter_before = std::move(entered_);
        entered_.clear();
        shots_.push_back(std::move(shot));
    }
    const FootageOptions& o_;
    std::vector<Cell> layout_;
    std::vector<Shot> shots_;
    std::vector<int> entered_;
};

nlohmann::json matx_json(const cv::Matx33d& m) {
    nlohmann::json j = nlohmann::json::array();
    for (int r = 0; r < 3; ++r) j.push_back({m(r, 0), m(r, 1), m(r, 2)});
    return j;
}

Result<cv::Matx33d> matx_from(const nlohmann::json& j, const std::string& where) {
    if (!j.is_array() || j.size() != 3) return invalid(where, "a 3x3 matrix must be 3 rows of 3 numbers");
    cv::Matx33d m;
    for (int r = 0; r < 3; ++r) {
        const auto& row = j[static_cast<std::size_t>(r)];
        if (!row.is_array() || row.size() != 3) return invalid(where, "a 3x3 matrix must be 3 rows of 3 numbers");
        for (int c = 0; c < 3; ++c) {
            if (!row[static_cast<std::size_t>(c)].is_number()) return invalid(where, "a 3x3 matrix must hold numbers");
            m(r, c) = row[static_cast<std::size_t>(c)].get<double>();
        }
    }
    return m;
}

}  // namespace

bool entered_by_players(const Event& event) { return event.type != "tile" && event.type != "meeple"; }

Status FootageOptions::check() const {
    auto bad = [](const std::string& what) { return invalid("footage options", what); };
    if (width < 160 || width > 4096 || height < 120 || height > 4096) return bad("width and height must be within 160x120..4096x4096");
    if (approach_frames < 1 || approach_frames > 30) return bad("approach_frames must be within [1, 30]");
    if (leave_frames < 1 || leave_frames > 30) return bad("leave_frames must be within [1, 30]");
    if (still_frames < 1 || still_frames > 60) return bad("still_frames must be within [1, 60]");
    if (gap_mm < 0 || gap_mm > 5) return bad("gap_mm must be within [0, 5]");
    if (exposure_drift < 0 || exposure_drift > 0.6) return bad("exposure_drift must be within [0, 0.6]");
    if (colour_drift_k < -3000 || colour_drift_k > 3000) return bad("colour_drift_k must be within [-3000, 3000]");
    if (image_ext != ".jpg" && image_ext != ".png") return bad("image_ext must be .jpg or .png");
    if (auto d = vision::parse_difficulty(preset); !d) return d.error();
    return Ok{};
}

Result<FootageCamera> render_footage(const Record& record, const FootageOptions& fo, const FootageSink& sink) {
    if (auto st = fo.check(); !st) return st.error();
    if (record.events.empty()) return invalid("footage", "the record has no events");
    auto made = new_game_for(record);
    if (!made) return made.error();
    Game game = std::move(made).value();

    std::vector<Cell> layout;
    for (const auto& e : record.events) {
        if (e.type == "tile" && std::find(layout.begin(), layout.end(), e.at) == layout.end()) layout.push_back(e.at);
    }
    Script script(fo, layout);
    const auto where = [](std::size_t i) { return "footage: event " + std::to_string(i); };
    if (auto st = game.apply(record.events[0], 0); !st) return invalid(where(0), st.error().message);
    script.stills(vision::scene_of(game), 1);
    int tiles_seen = 1;
    int tile_events = 0;
    for (const auto& e : record.events) tile_events += e.type == "tile" ? 1 : 0;
    bool knocked = !fo.knock_follower;

    // Ends the open turn; followers that scored are taken off the table in a move of their own.
    auto close_turn = [&](int events) -> Status {
        if (game.turn_player() < 0) return Ok{};
        const vision::Scene before = vision::scene_of(game);
        if (auto st = game.close_turn(); !st) return st;
        const vision::Scene after = vision::scene_of(game);
        if (!same_scene(before, after)) {
            std::optional<Cell> at;
            for (const auto& p : before.pieces) {
                const bool stays = std::any_of(after.pieces.begin(), after.pieces.end(),
                                               [&](const auto& q) { return q.at == p.at && q.feature == p.feature; });
                if (!stays) at = p.at;
            }
            script.move(before, after, at, events, events, "return");
        }
        return Ok{};
    };

    for (std::size_t i = 1; i < record.events.size(); ++i) {
        const Event& e = record.events[i];
        const int shown = static_cast<int>(i);
        if (e.type == "tile" || e.type == "discard") {
            if (auto st = close_turn(shown); !st) return invalid(where(i), st.error().message);
        }
        // Once, halfway through, a follower is knocked aside and put back.
        if (!knocked && e.type == "tile" && 2 * tiles_seen >= tile_events) {
            vision::Scene now = vision::scene_of(game);
            if (!now.pieces.empty()) {
                vision::Scene pushed = now;
                // Pushed 6 mm towards its tile's centre, so it stays on its tile.
                const cv::Point2d port = vision::port_point(pushed.pieces.front().loc, 0.1) - cv::Point2d(0.5, 0.5);
                const double len = cv::norm(port);
                pushed.pieces.front().shift_mm = len > 1e-6 ? port * (-6.0 / len) : cv::Point2d(6.0, 0.0);
                const Cell at = pushed.pieces.front().at;
                script.move(now, pushed, at, shown, shown, "knock");
                script.move(pushed, now, at, shown, shown, "knock");
                knocked = true;
            }
        }
        const vision::Scene before = vision::scene_of(game);
        if (auto st = game.apply(e, static_cast<int>(i)); !st) return invalid(where(i), st.error().message);
        // The follower put on this tile comes down with it.
        int shown_after = shown + 1;
        if (fo.follower_with_tile && e.type == "tile" && i + 1 < record.events.size() && record.events[i + 1].type == "meeple" &&
            record.events[i + 1].at == e.at) {
            ++i;
            if (auto st = game.apply(record.events[i], static_cast<int>(i)); !st) return invalid(where(i), st.error().message);
            shown_after = static_cast<int>(i) + 1;
        }
        const vision::Scene after = vision::scene_of(game);
        std::optional<Cell> at;
        if (e.type == "tile" || e.type == "meeple" || e.raw.contains("at")) at = e.at;
        if (entered_by_players(e)) {
            script.enter(static_cast<int>(i));
            if (!same_scene(before, after)) script.move(before, after, at, shown, shown_after, "move");
        } else {
            script.move(before, after, at, shown, shown_after, "move");
        }
        if (e.type == "tile") ++tiles_seen;
    }
    if (auto st = close_turn(static_cast<int>(record.events.size())); !st) return invalid("footage: last turn", st.error().message);
    // Events entered after the last move ride on one more still frame.
    script.stills(vision::scene_of(game), static_cast<int>(record.events.size()));

    // Render: one fixed scene, light drifting with time.
    auto difficulty = vision::parse_difficulty(fo.preset);
    vision::RenderOptions ro = vision::RenderOptions::for_difficulty(difficulty.value());
    ro.width = fo.width;
    ro.height = fo.height;
    ro.gap_mm = {fo.gap_mm, fo.gap_mm};
    ro.scene_seed = fo.seed;
    ro.layout_cells = layout;
    // Players put a follower in the middle of its feature; the tracker maps a follower to the
    // feature under its middle and does not yet reason about a follower near a border.
    ro.piece_room = 1.0;
    const auto& shots = script.shots();
    FootageCamera camera;
    for (std::size_t k = 0; k < shots.size(); ++k) {
        const Shot& shot = shots[k];
        const double t = shots.size() > 1 ? static_cast<double>(k) / static_cast<double>(shots.size() - 1) : 0.0;
        vision::RenderOptions o = ro;
        o.exposure_gain = 1.0 - fo.exposure_drift * t;
        o.colour_shift_k = -fo.colour_drift_k * t;
        o.hand_chance = shot.reach > 0 ? 1.0 : 0.0;
        o.hand_cell = shot.hand_cell;
        o.hand_reach = std::clamp(shot.reach, 0.0, 1.0);
        auto r = vision::render_table(shot.scene, o, fo.seed * 7919 + k + 1);
        if (!r) return invalid("footage: frame " + std::to_string(k), r.error().message);
        if (k == 0) {
            camera.table_to_image = r->truth.table_to_image;
            const cv::Point2d origin = r->truth.board_origin_mm;
            const cv::Matx33d shift(1, 0, -origin.x, 0, 1, -origin.y, 0, 0, 1);
            camera.image_to_table_mm = shift * r->truth.table_to_image.inv();
            camera.tile_mm = r->truth.tile_mm;
            camera.gap_mm = r->truth.gap_mm;
        }
        FootageFrame frame{static_cast<int>(k), shot.phase, shot.events_shown, shot.enter_before};
        if (auto st = sink(frame, r->image, camera); !st) return st.error();
    }
    return camera;
}

Result<int> write_footage(const Record& record, const FootageOptions& options, const std::string& dir) {
    std::error_code ec;
    std::filesystem::create_directories(dir, ec);
    if (ec) return invalid(dir, "cannot create the folder: " + ec.message());
    nlohmann::json frames = nlohmann::json::array();
    auto sink = [&](const FootageFrame& f, const cv::Mat& image, const FootageCamera&) -> Status {
        char name[32];
        std::snprintf(name, sizeof name, "frame_%05d", f.index);
        const std::string file = std::string(name) + options.image_ext;
        std::vector<std::uint8_t> bytes;
        const std::vector<int> params = options.image_ext == ".jpg" ? std::vector<int>{cv::IMWRITE_JPEG_QUALITY, 92} : std::vector<int>{};
        if (!cv::imencode(options.image_ext, image, bytes, params)) return invalid(file, "cannot encode the frame");
        if (auto st = write_file_atomically(dir + "/" + file, std::string_view(reinterpret_cast<const char*>(bytes.data()), bytes.size()));
            !st) {
            return st;
        }
        frames.push_back({{"file", file}, {"phase", f.phase}, {"events_shown", f.events_shown}, {"enter_before", f.enter_before}});
        return Ok{};
    };
    auto camera = render_footage(record, options, sink);
    if (!camera) return camera.error();
    nlohmann::json truth;
    truth["format"] = "meeplecam-footage";
    truth["version"] = 1;
    truth["seed"] = options.seed;
    truth["preset"] = options.preset;
    truth["table_to_image"] = matx_json(camera->table_to_image);
    truth["image_to_table_mm"] = matx_json(camera->image_to_table_mm);
    truth["tile_mm"] = camera->tile_mm;
    truth["gap_mm"] = camera->gap_mm;
    truth["record"] = record.to_json();
    truth["frames"] = frames;
    if (auto st = write_file_atomically(dir + "/truth.json", truth.dump(1) + "\n"); !st) return st.error();
    return static_cast<int>(frames.size());
}

Result<FootageTruth> read_footage_truth(const std::string& path) {
    auto text = read_whole_file(path);
    if (!text) return text.error();
    nlohmann::json j = nlohmann::json::parse(text.value(), nullptr, false);
    if (j.is_discarded() || !j.is_object()) return invalid(path, "not a JSON object");
    if (j.value("format", std::string()) != "meeplecam-footage") return invalid(path, "format must be \"meeplecam-footage\"");
    FootageTruth out;
    auto h = matx_from(j.value("image_to_table_mm", nlohmann::json()), path + ": image_to_table_mm");
    if (!h) return h.error();
    out.camera.image_to_table_mm = h.value();
    auto t = matx_from(j.value("table_to_image", nlohmann::json()), path + ": table_to_image");
    if (!t) return t.error();
    out.camera.table_to_image = t.value();
    if (!j.contains("tile_mm") || !j["tile_mm"].is_number() || !j.contains("gap_mm") || !j["gap_mm"].is_number()) {
        return invalid(path, "tile_mm and gap_mm must be numbers");
    }
    out.camera.tile_mm = j["tile_mm"].get<double>();
    out.camera.gap_mm = j["gap_mm"].get<double>();
    auto rec = parse_record(j.value("record", nlohmann::json()), path + ": record");
    if (!rec) return rec.error();
    out.record = std::move(rec).value();
    const auto& frames = j.value("frames", nlohmann::json::array());
    for (std::size_t i = 0; i < frames.size(); ++i) {
        const auto& f = frames[i];
        const std::string at = path + ": frames[" + std::to_string(i) + "]";
        if (!f.is_object() || !f.contains("file") || !f["file"].is_string()) return invalid(at, "needs a \"file\" name");
        FootageFrame frame;
        frame.index = static_cast<int>(i);
        frame.phase = f.value("phase", std::string());
        frame.events_shown = f.value("events_shown", 0);
        for (const auto& e : f.value("enter_before", nlohmann::json::array())) {
            if (!e.is_number_integer() || e.get<int>() < 0 || e.get<std::size_t>() >= out.record.events.size()) {
                return invalid(at, "enter_before must list event indices of the record");
            }
            frame.enter_before.push_back(e.get<int>());
        }
        out.files.push_back(f["file"].get<std::string>());
        out.frames.push_back(std::move(frame));
    }
    return out;
}

}  // namespace meeplecam::session
