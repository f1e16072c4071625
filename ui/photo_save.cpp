#include "ui/photo_save.h"

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <algorithm>
#include <map>
#include <set>
#include <filesystem>
#include <optional>

#include <opencv2/imgproc.hpp>

#include "engine/atomic_file.h"
#include "engine/ports.h"
#include "vision/image_io.h"

namespace meeplecam::ui {
namespace {

using nlohmann::json;
namespace fs = std::filesystem;

constexpr const char* kFormat = "meeplecam-photo";
constexpr int kVersion = 1;

std::string fnv1a64(std::string_view bytes) {
    std::uint64_t h = 1469598103934665603ULL;
    for (const char c : bytes) {
        h ^= static_cast<unsigned char>(c);
        h *= 1099511628211ULL;
    }
    char text[17];
    std::snprintf(text, sizeof text, "%016llx", static_cast<unsigned long long>(h));
    return text;
}

json point(cv::Point2d p) { return json::array({p.x, p.y}); }

// Reads fields of the save, each error naming the file and the field's JSON path.
class Fields {
public:
    explicit Fields(std::string file) : file_(std::move(file)) {}

    Error bad(const std::string& path, const std::string& why) const { return invalid(file_ + ": " + path, why); }

    Result<const json*> member(const json& j, const std::string& path, const std::string& key) const {
        if (!j.is_object()) return bad(path, "must be an object, not " + std::string(j.type_name()));
        const auto it = j.find(key);
        if (it == j.end()) return bad(path.empty() ? key : path + "." + key, "is missing");
        return &*it;
    }
    Result<std::string> text(const json& j, const std::string& path, const std::string& key) const {
        auto m = member(j, path, key);
        if (!m) return m.error();
        if (!m.value()->is_string()) return bad(join(path, key), "must be a string, not " + m.value()->dump());
        return m.value()->get<std::string>();
    }
    Result<double> number(const json& j, const std::string& path, const std::string& key) const {
        auto m = member(j, path, key);
        if (!m) return m.error();
        if (!m.value()->is_number() || !std::isfinite(m.value()->get<double>())) return bad(join(path, key), "must be a number, not " + m.value()->dump());
        return m.value()->get<double>();
    }
    Result<int> integer(const json& j, const std::string& path, const std::string& key, int lo, int hi) const {
        auto m = member(j, path, key);
        if (!m) return m.error();
        if (!m.value()->is_number_integer() || m.value()->get<long long>() < lo || m.value()->get<long long>() > hi) {
            return bad(join(path, key), "must be an integer in " + std::to_string(lo) + ".." + std::to_string(hi) + ", not " + m.value()->dump());
        }
        return static_cast<int>(m.value()->get<long long>());
    }
    Result<cv::Point2d> pair(const json& j, const std::string& path, const std::string& key) const {
        auto m = member(j, path, key);
        if (!m) return m.error();
        const json& a = *m.value();
        if (!a.is_array() || a.size() != 2 || !a[0].is_number() || !a[1].is_number()) return bad(join(path, key), "must be two numbers [x, y], not " + a.dump());
        return cv::Point2d(a[0].get<double>(), a[1].get<double>());
    }
    Result<cv::Point> cell(const json& j, const std::string& path, const std::string& key) const {
        auto m = member(j, path, key);
        if (!m) return m.error();
        const json& a = *m.value();
        if (!a.is_array() || a.size() != 2 || !a[0].is_number_integer() || !a[1].is_number_integer() || std::abs(a[0].get<long long>()) > 100000 ||
            std::abs(a[1].get<long long>()) > 100000) {
            return bad(join(path, key), "must be a lattice cell [col, row] of integers, not " + a.dump());
        }
        return cv::Point(static_cast<int>(a[0].get<long long>()), static_cast<int>(a[1].get<long long>()));
    }
    // Reads an optional field: `fallback` when absent, an error naming the field when of the wrong type.
    Result<bool> flag_or(const json& j, const std::string& path, const std::string& key, bool fallback) const {
        if (!j.is_object() || !j.contains(key)) return fallback;
        if (!j[key].is_boolean()) return bad(join(path, key), "must be true or false, not " + j[key].dump());
        return j[key].get<bool>();
    }
    Result<double> number_or(const json& j, const std::string& path, const std::string& key, double fallback) const {
        if (!j.is_object() || !j.contains(key)) return fallback;
        return number(j, path, key);
    }
    Result<std::string> text_or(const json& j, const std::string& path, const std::string& key, const std::string& fallback) const {
        if (!j.is_object() || !j.contains(key)) return fallback;
        return text(j, path, key);
    }
    Result<const json*> array(const json& j, const std::string& path, const std::string& key) const {
        auto m = member(j, path, key);
        if (!m) return m.error();
        if (!m.value()->is_array()) return bad(join(path, key), "must be an array, not " + std::string(m.value()->type_name()));
        return m.value();
    }
    static std::string join(const std::string& path, const std::string& key) { return path.empty() ? key : path + "." + key; }
    static std::string at(const std::string& path, std::size_t i) { return path + "[" + std::to_string(i) + "]"; }

private:
    std::string file_;
};

#define MEEPLECAM_TAKE(var, expr)         \
    auto var##_r = (expr);                \
    if (!var##_r) return var##_r.error(); \
    const auto var = var##_r.value()

// The photo as the save names it: relative to the save's folder when it lies there.
std::string photo_reference(const std::string& photo_path, const std::string& save_path) {
    std::error_code ec;
    const fs::path photo = fs::absolute(photo_path, ec);
    const fs::path folder = fs::absolute(save_path, ec).parent_path();
    const fs::path rel = photo.lexically_relative(folder);
    if (!rel.empty() && *rel.begin() != "..") return rel.generic_string();
    return photo.generic_string();
}

}  // namespace

std::string default_photo_save_path(const std::string& photo_path) { return photo_path + ".photo.json"; }

Result<json> photo_save_json(const PhotoSession& s, const std::string& photo_path, const std::string& save_path) {
    auto bytes = read_whole_file(photo_path);
    if (!bytes) return bytes.error();
    const auto& types = s.game().catalog().tiles();
    const auto type_id = [&](int t) { return types.at(static_cast<std::size_t>(t)).id; };
    json doc;
    doc["format"] = kFormat;
    doc["version"] = kVersion;
    doc["photo"] = photo_reference(photo_path, save_path);
    doc["photo_bytes"] = bytes->size();
    doc["photo_fnv1a64"] = fnv1a64(bytes.value());
    doc["setup"] = s.setup().to_json();
    const vision::LatticeView& view = s.as_read().board.view;
    json h = json::array();
    for (int r = 0; r < 3; ++r) h.push_back({view.image_to_top(r, 0), view.image_to_top(r, 1), view.image_to_top(r, 2)});
    doc["lattice"] = {{"image_to_top", h}, {"pitch_px", view.pitch_px}, {"px_per_mm", view.px_per_mm}, {"cols", view.cols}, {"rows", view.rows}};
    json tiles = json::array(), followers = json::array(), tokens = json::array();
    for (const auto& t : s.as_read().board.tiles) {
        json runner = nullptr;
        if (t.runner_type >= 0) runner = {{"tile", type_id(t.runner_type)}, {"rot", t.runner_rot}, {"confidence", t.runner_confidence}};
        tiles.push_back({{"cell", {t.col, t.row}},
                         {"tile", type_id(t.type)},
                         {"rot", t.rot},
                         {"offset_px", point(t.offset_px)},
                         {"confidence", t.confidence},
                         {"runner", runner},
                         {"hidden", t.hidden}});
    }
    for (const auto& p : s.as_read().pieces.pieces) {
        followers.push_back({{"colour", p.colour},
                             {"cell", {p.col, p.row}},
                             {"loc", std::string(port_name(p.port))},
                             {"on_feature", p.feature >= 0},
                             {"lying", p.lying},
                             {"image_px", point(p.image_px)},
                             {"top_px", point(p.top_px)},
                             {"confidence", p.confidence}});
    }
    for (const auto& p : s.as_read().pieces.tokens) {
        tokens.push_back({{"kind", p.kind},
                          {"colour", p.colour},
                          {"cell", {p.col, p.row}},
                          {"cell2", {p.col2, p.row2}},
                          {"ports", {std::string(port_name(p.port)), std::string(port_name(p.port2))}},
                          {"image_px", point(p.image_px)},
                          {"top_px", point(p.top_px)},
                          {"confidence", p.confidence}});
    }
    doc["read"] = {{"tiles", tiles}, {"followers", followers}, {"tokens", tokens}};
    json edits = json::array();
    for (const PhotoEdit& e : s.edits()) {
        json j = {{"op", e.op}, {"cell", {e.col, e.row}}, {"by", e.by}, {"text", e.text}};
        if (e.op == "tile" || e.op == "add tile") j["tile"] = e.tile, j["rot"] = e.rot;
        if (e.op == "follower") j["was"] = {{"colour", e.was_colour}, {"loc", e.was_loc}};
        if (e.op == "follower" || e.op == "add follower") j["colour"] = e.colour, j["loc"] = e.loc;
        edits.push_back(std::move(j));
    }
    doc["corrections"] = std::move(edits);
    return doc;
}

Status save_photo_session(const PhotoSession& session, const std::string& photo_path, const std::string& save_path) {
    auto doc = photo_save_json(session, photo_path, save_path);
    if (!doc) return doc.error();
    return write_file_atomically(save_path, doc->dump(1) + "\n");
}

Result<OpenedPhotoSave> open_photo_save(const std::string& save_path) {
    auto text = read_whole_file(save_path);
    if (!text) return text.error();
    json doc;
    try {
        doc = json::parse(text.value());
    } catch (const json::parse_error& e) {
        return invalid(save_path + ": byte " + std::to_string(e.byte), "not a complete JSON document (truncated or hand-edited?): " + std::string(e.what()));
    }
    const Fields f(save_path);
    MEEPLECAM_TAKE(format, f.text(doc, "", "format"));
    if (format != kFormat) return f.bad("format", std::string("must be \"") + kFormat + "\", not \"" + format + "\"");
    MEEPLECAM_TAKE(version, f.integer(doc, "", "version", 0, 1000000));
    if (version != kVersion) return f.bad("version", std::to_string(version) + " is not supported (this build reads " + std::to_string(kVersion) + ")");

    // The setup (a record with no events), and the catalog its tile ids are read with.
    MEEPLECAM_TAKE(setup_json, f.member(doc, "", "setup"));
    auto setup = parse_record(*setup_json, save_path + ": setup");
    if (!setup) return setup.error();
    if (!setup->events.empty()) return f.bad("setup.events", "must be empty (a photo has no moves)");
    auto catalog = catalog_for(setup.value());
    if (!catalog) return catalog.error();

    // The photo: the same file as when saved.
    MEEPLECAM_TAKE(photo_ref, f.text(doc, "", "photo"));
    const fs::path ref(photo_ref);
    const std::string photo_path = ref.is_absolute() ? ref.string() : (fs::path(save_path).parent_path() / ref).string();
    MEEPLECAM_TAKE(hash, f.text(doc, "", "photo_fnv1a64"));
    auto bytes = read_whole_file(photo_path);
    if (!bytes) return invalid(save_path + ": photo", "the photo it was saved for cannot be read: " + bytes.error().to_string());
    if (fnv1a64(bytes.value()) != hash) {
        return invalid(save_path + ": photo", photo_path + " is not the photo these corrections were saved for (its content changed)");
    }
    auto image = vision::load_image(photo_path);
    if (!image) return image.error();

    // The lattice: the top view is warped again from the photo and its light evened out, as the reader did.
    vision::PhotoReading reading;
    vision::LatticeView& view = reading.board.view;
    MEEPLECAM_TAKE(lattice, f.member(doc, "", "lattice"));
    MEEPLECAM_TAKE(h, f.member(*lattice, "lattice", "image_to_top"));
    if (!h->is_array() || h->size() != 3) return f.bad("lattice.image_to_top", "must be a 3x3 matrix");
    for (std::size_t r = 0; r < 3; ++r) {
        const json& row = (*h)[r];
        if (!row.is_array() || row.size() != 3) return f.bad(Fields::at("lattice.image_to_top", r), "must be a row of 3 numbers");
        for (std::size_t c = 0; c < 3; ++c) {
            if (!row[c].is_number()) return f.bad(Fields::at(Fields::at("lattice.image_to_top", r), c), "must be a number, not " + row[c].dump());
            view.image_to_top(static_cast<int>(r), static_cast<int>(c)) = row[c].get<double>();
        }
    }
    if (!(std::abs(cv::determinant(view.image_to_top)) > 1e-12)) return f.bad("lattice.image_to_top", "is singular");
    MEEPLECAM_TAKE(pitch, f.number(*lattice, "lattice", "pitch_px"));
    MEEPLECAM_TAKE(px_per_mm, f.number(*lattice, "lattice", "px_per_mm"));
    MEEPLECAM_TAKE(cols, f.integer(*lattice, "lattice", "cols", 1, 4000));
    MEEPLECAM_TAKE(rows, f.integer(*lattice, "lattice", "rows", 1, 4000));
    if (!(pitch >= 4 && pitch <= 4000)) return f.bad("lattice.pitch_px", "must lie in 4..4000");
    if (!(px_per_mm > 0 && px_per_mm <= 100)) return f.bad("lattice.px_per_mm", "must lie in (0, 100]");
    if (cols * pitch > 20000 || rows * pitch > 20000) return f.bad("lattice", "the top view would exceed 20000 px");
    view.pitch_px = pitch;
    view.px_per_mm = px_per_mm;
    view.cols = cols;
    view.rows = rows;
    view.frame = image->size();
    const cv::Size top_size(static_cast<int>(std::ceil(cols * pitch)), static_cast<int>(std::ceil(rows * pitch)));
    cv::warpPerspective(image.value(), view.top, view.image_to_top, top_size, cv::INTER_LINEAR, cv::BORDER_CONSTANT, cv::Scalar(0, 0, 0));
    reading.board.found = true;

    // The reading as read.
    MEEPLECAM_TAKE(read, f.member(doc, "", "read"));
    auto type_of = [&](const std::string& id, const std::string& path) -> Result<int> {
        const TileType* t = catalog.value()->find(id);
        if (!t) return f.bad(path, "unknown tile id '" + id + "'");
        return t->index;
    };
    MEEPLECAM_TAKE(tiles, f.array(*read, "read", "tiles"));
    std::vector<vision::CellObservation> cells;
    for (std::size_t i = 0; i < tiles->size(); ++i) {
        const json& j = (*tiles)[i];
        const std::string path = Fields::at("read.tiles", i);
        vision::DecodedTile t;
        MEEPLECAM_TAKE(cell, f.cell(j, path, "cell"));
        MEEPLECAM_TAKE(id, f.text(j, path, "tile"));
        MEEPLECAM_TAKE(type, type_of(id, path + ".tile"));
        MEEPLECAM_TAKE(rot, f.integer(j, path, "rot", 0, 3));
        MEEPLECAM_TAKE(offset, f.pair(j, path, "offset_px"));
        MEEPLECAM_TAKE(confidence, f.number(j, path, "confidence"));
        t.col = cell.x, t.row = cell.y, t.type = type, t.rot = rot, t.offset_px = offset, t.confidence = confidence;
        MEEPLECAM_TAKE(runner, f.member(j, path, "runner"));
        if (!runner->is_null()) {
            MEEPLECAM_TAKE(rid, f.text(*runner, path + ".runner", "tile"));
            MEEPLECAM_TAKE(rtype, type_of(rid, path + ".runner.tile"));
            MEEPLECAM_TAKE(rrot, f.integer(*runner, path + ".runner", "rot", 0, 3));
            MEEPLECAM_TAKE(rconf, f.number(*runner, path + ".runner", "confidence"));
            t.runner_type = rtype, t.runner_rot = rrot, t.runner_confidence = rconf;
        }
        if (j.contains("hidden")) t.hidden = j["hidden"].is_boolean() && j["hidden"].get<bool>();
        for (const auto& other : reading.board.tiles) {
            if (other.col == t.col && other.row == t.row) return f.bad(path + ".cell", "a second tile on cell " + j["cell"].dump());
        }
        reading.board.tiles.push_back(t);
        cells.push_back({t.col, t.row, 1.0, t.offset_px});
    }
    if (reading.board.tiles.empty()) return f.bad("read.tiles", "holds no tile");
    vision::even_out_light(view, cells, vision::ReaderOptions{}.light);
    auto port_of = [&](const json& j, const std::string& path, const std::string& key) -> Result<Port> {
        MEEPLECAM_TAKE(name, f.text(j, path, key));
        const auto p = parse_port(name);
        if (!p) return f.bad(Fields::join(path, key), "unknown port '" + name + "'");
        return *p;
    };
    auto tile_on = [&](cv::Point c) -> const vision::DecodedTile* {
        for (const auto& t : reading.board.tiles) {
            if (t.col == c.x && t.row == c.y) return &t;
        }
        return nullptr;
    };
    MEEPLECAM_TAKE(followers, f.array(*read, "read", "followers"));
    for (std::size_t i = 0; i < followers->size(); ++i) {
        const json& j = (*followers)[i];
        const std::string path = Fields::at("read.followers", i);
        vision::DetectedPiece p;
        MEEPLECAM_TAKE(colour, f.text(j, path, "colour"));
        MEEPLECAM_TAKE(cell, f.cell(j, path, "cell"));
        MEEPLECAM_TAKE(port, port_of(j, path, "loc"));
        MEEPLECAM_TAKE(image_px, f.pair(j, path, "image_px"));
        MEEPLECAM_TAKE(top_px, f.pair(j, path, "top_px"));
        const vision::DecodedTile* t = tile_on(cell);
        if (!t) return f.bad(path + ".cell", "no tile was read on cell " + j["cell"].dump());
        p.colour = colour, p.col = cell.x, p.row = cell.y, p.port = port, p.image_px = image_px, p.top_px = top_px, p.on_tile = true;
        p.table_mm = top_px * (1.0 / view.px_per_mm);
        MEEPLECAM_TAKE(lying, f.flag_or(j, path, "lying", false));
        MEEPLECAM_TAKE(confidence, f.number_or(j, path, "confidence", 0.0));
        MEEPLECAM_TAKE(on_feature, f.flag_or(j, path, "on_feature", true));
        p.lying = lying;
        p.confidence = confidence;
        if (on_feature) {
            const TileType& type = catalog.value()->tiles()[static_cast<std::size_t>(t->type)];
            p.feature = type.feature_at(port, t->rot);
            if (p.feature < 0) return f.bad(path + ".loc", "no feature of " + type.id + " owns port " + std::string(port_name(port)));
            p.feature_kind = type.features[static_cast<std::size_t>(p.feature)].kind;
        }
        reading.pieces.pieces.push_back(p);
    }
    MEEPLECAM_TAKE(tokens, f.array(*read, "read", "tokens"));
    for (std::size_t i = 0; i < tokens->size(); ++i) {
        const json& j = (*tokens)[i];
        const std::string path = Fields::at("read.tokens", i);
        vision::DetectedPiece p;
        MEEPLECAM_TAKE(kind, f.text(j, path, "kind"));
        if (kind != "bridge" && kind != "ferry" && kind != "castle") return f.bad(path + ".kind", "must be bridge, ferry or castle, not '" + kind + "'");
        MEEPLECAM_TAKE(cell, f.cell(j, path, "cell"));
        MEEPLECAM_TAKE(cell2, f.cell(j, path, "cell2"));
        MEEPLECAM_TAKE(ports, f.array(j, path, "ports"));
        std::optional<Port> ends[2];
        for (std::size_t k = 0; k < 2 && ports->size() == 2; ++k) {
            if ((*ports)[k].is_string()) ends[k] = parse_port((*ports)[k].get<std::string>());
        }
        if (!ends[0] || !ends[1]) return f.bad(path + ".ports", "must name two ports, not " + ports->dump());
        p.kind = kind, p.col = cell.x, p.row = cell.y, p.col2 = cell2.x, p.row2 = cell2.y, p.on_tile = true;
        p.port = *ends[0];
        p.port2 = *ends[1];
        MEEPLECAM_TAKE(token_colour, f.text_or(j, path, "colour", std::string()));
        p.colour = token_colour;
        MEEPLECAM_TAKE(image_px, f.pair(j, path, "image_px"));
        p.image_px = image_px;
        if (j.contains("top_px")) {
            MEEPLECAM_TAKE(top_px, f.pair(j, path, "top_px"));
            p.top_px = top_px;
        }
        reading.pieces.tokens.push_back(p);
    }

    // The corrections, replayed in order.
    MEEPLECAM_TAKE(list, f.array(doc, "", "corrections"));
    std::vector<PhotoEdit> edits;
    for (std::size_t i = 0; i < list->size(); ++i) {
        const json& j = (*list)[i];
        const std::string path = Fields::at("corrections", i);
        PhotoEdit e;
        MEEPLECAM_TAKE(op, f.text(j, path, "op"));
        MEEPLECAM_TAKE(cell, f.cell(j, path, "cell"));
        MEEPLECAM_TAKE(by, f.text(j, path, "by"));
        e.op = op, e.col = cell.x, e.row = cell.y, e.by = by;
        if (op == "tile" || op == "add tile") {
            MEEPLECAM_TAKE(tile, f.text(j, path, "tile"));
            MEEPLECAM_TAKE(rot, f.integer(j, path, "rot", 0, 3));
            e.tile = tile, e.rot = rot;
        } else if (op == "follower" || op == "add follower") {
            MEEPLECAM_TAKE(colour, f.text(j, path, "colour"));
            MEEPLECAM_TAKE(loc, f.text(j, path, "loc"));
            e.colour = colour, e.loc = loc;
            if (op == "follower") {
                MEEPLECAM_TAKE(was, f.member(j, path, "was"));
                MEEPLECAM_TAKE(was_colour, f.text(*was, path + ".was", "colour"));
                MEEPLECAM_TAKE(was_loc, f.text(*was, path + ".was", "loc"));
                e.was_colour = was_colour, e.was_loc = was_loc;
            }
        } else if (op != "remove tile") {
            return f.bad(path + ".op", "unknown correction '" + op + "' (tile, add tile, remove tile, follower, add follower)");
        }
        edits.push_back(std::move(e));
    }
    auto session = PhotoSession::from_reading(image.value(), std::move(setup.value()), std::move(reading), edits, save_path);
    if (!session) return session.error();
    return OpenedPhotoSave{photo_path, std::move(session.value())};
}

Result<Record> photo_record(const PhotoSession& session) {
    const std::string where = "record export";
    const Game& photo = session.game();
    const Board& board = photo.board();
    if (!session.as_read().pieces.tokens.empty()) {
        return invalid(where, "bridges, ferries and castle tokens on the photo are not exported (their record events need the turn that placed them)");
    }
    Record record = session.setup();
    record.events.clear();
    record.finished = false;
    const std::string& start_id = photo.catalog().start_tile();
    const auto start = std::find_if(board.tiles().begin(), board.tiles().end(), [&](const PlacedTile& t) { return t.type->id == start_id; });
    if (start == board.tiles().end()) return invalid(where, "no start tile (" + start_id + ") on the board: a record begins with it");
    // Per tile: the follower on it (the photo's followers left out on completed features are not on the board).
    std::map<Cell, const Follower*> follower_on;
    for (const Follower& f : board.followers()) {
        if (!f.on_board) continue;
        if (follower_on.count(f.at)) return invalid(where, "two followers on the tile at " + to_string(f.at) + ": a turn places one");
        follower_on[f.at] = &f;
    }
    auto game = new_game_for(record);
    if (!game) return game.error();
    int index = 0;
    auto play = [&](const nlohmann::json& j) -> Status {
        auto e = parse_record_event(j, where + ": event " + std::to_string(index));
        if (!e) return e.error();
        if (auto st = game->apply(e.value(), index); !st) return st;
        record.events.push_back(e.value());
        ++index;
        return Ok{};
    };
    auto tile_json = [](const PlacedTile& t) { return nlohmann::json{{"type", "tile"}, {"tile", t.type->id}, {"at", {t.at.x, t.at.y}}, {"rot", t.rot * 90}}; };
    if (auto st = play(tile_json(*start)); !st) return st.error();
    if (follower_on.count(start->at)) return invalid(where, "a follower on the start tile: no turn places it");
    std::set<Cell> placed = {start->at};
    const std::size_t players = record.players.size();
    for (std::size_t turn = 0; placed.size() < board.tiles().size(); ++turn) {
        const int player = static_cast<int>(turn % players);
        const std::string& colour = record.players[static_cast<std::size_t>(player)].color;
        const PlacedTile* plain = nullptr;
        const PlacedTile* with_follower = nullptr;
        for (const PlacedTile& t : board.tiles()) {
            if (placed.count(t.at)) continue;
            bool beside = false;
            for (std::size_t side = 0; side < 4; ++side) beside = beside || placed.count(Cell{t.at.x + kSideDx[side], t.at.y + kSideDy[side]}) > 0;
            if (!beside) continue;
            const auto f = follower_on.find(t.at);
            if (f == follower_on.end()) {
                if (!plain) plain = &t;
                continue;
            }
            if (f->second->player != player || with_follower) continue;
            auto options = game->follower_options(*t.type, {t.at, t.rot});
            if (!options) continue;
            const int feature = t.type->feature_at(f->second->loc, t.rot);
            for (const FollowerOption& o : options.value()) {
                if (t.type->feature_at(o.loc, t.rot) == feature) with_follower = &t;
            }
        }
        const PlacedTile* next = with_follower ? with_follower : plain;
        if (!next) {
            return invalid(where, "no turn order found: in turn " + std::to_string(turn + 1) + " " + colour +
                                      " has no tile to place (each tile left beside the board carries another player's follower, or its feature is taken)");
        }
        nlohmann::json tj = tile_json(*next);
        tj["player"] = colour;
        if (auto st = play(tj); !st) return Error{st.error().kind, where, "the tile at " + to_string(next->at) + ": " + st.error().message};
        if (next == with_follower) {
            const Follower& f = *follower_on.at(next->at);
            const nlohmann::json mj = {{"type", "meeple"}, {"player", colour}, {"at", {f.at.x, f.at.y}}, {"loc", std::string(port_name(f.loc))}};
            if (auto st = play(mj); !st) return Error{st.error().kind, where, "the follower at " + to_string(f.at) + ": " + st.error().message};
        }
        placed.insert(next->at);
    }
    record.finished = true;
    auto replayed = replay(record);
    if (!replayed) return replayed.error();
    const auto want = vision::final_points(photo), got = vision::final_points(replayed.value());
    if (want != got) return invalid(where, "the record's final scoring differs from the photo's (an order of turns changed what is complete)");
    return record;
}

}  // namespace meeplecam::ui
