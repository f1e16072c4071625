#include "calibration/calibration_file.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <set>

#include "engine/atomic_file.h"
#include "engine/json_text.h"

namespace meeplecam::calibration {
namespace {

using nlohmann::json;

constexpr const char* kFormat = "meeplecam-calibration";
constexpr long long kVersion = 1;
constexpr long long kMaxImageSide = 100000;          // px; larger is surely a typo
constexpr double kMaxMagnitude = 1e12;               // any number beyond this is nonsense here
const std::vector<std::string> kCorners = {"NW", "NE", "SE", "SW"};  // marker id i sits at kCorners[i]

// Walks a JSON document keeping the path of the value being read, so errors say where.
class Reader {
public:
    Reader(std::string source) : source_(std::move(source)) {}

    Error error(const std::string& path, const std::string& message) const {
        return invalid(path.empty() ? source_ : source_ + ": " + path, message);
    }

    // Refuses keys other than `known` (typos would otherwise be silently ignored).
    std::optional<Error> only_keys(const json& j, const std::string& path, std::initializer_list<const char*> known) const {
        for (auto it = j.begin(); it != j.end(); ++it) {
            const bool ok = std::any_of(known.begin(), known.end(), [&](const char* k) { return it.key() == k; });
            if (!ok) {
                std::string list;
                for (const char* k : known) list += (list.empty() ? "" : ", ") + std::string(k);
                return error(join(path, it.key()), "unknown key (expected one of: " + list + ")");
            }
        }
        return std::nullopt;
    }

    Result<const json*> field(const json& j, const std::string& path, const char* key) const {
        if (!j.contains(key)) return error(path, std::string("missing '") + key + "'");
        return &j[key];
    }

    Result<double> number(const json& j, const std::string& path, double lo, double hi, const char* what) const {
        if (!j.is_number()) return error(path, std::string("must be ") + what + ", not " + describe(j));
        const double v = j.get<double>();
        if (!std::isfinite(v)) return error(path, std::string("must be ") + what + ", not a number too large for a double");
        if (v < lo || v > hi) return error(path, std::string("must be ") + what + ", not " + j.dump());
        return v;
    }

    Result<long long> integer(const json& j, const std::string& path, long long lo, long long hi, const char* what) const {
        if (!j.is_number_integer()) return error(path, std::string("must be ") + what + ", not " + describe(j));
        if (j.is_number_unsigned() && j.get<unsigned long long>() > static_cast<unsigned long long>(hi)) {
            return error(path, std::string("must be ") + what + ", not " + j.dump());
        }
        const long long v = j.get<long long>();
        if (v < lo || v > hi) return error(path, std::string("must be ") + what + ", not " + j.dump());
        return v;
    }

    Result<std::vector<double>> numbers(const json& j, const std::string& path, std::size_t min_n, std::size_t max_n,
                                        const char* what) const {
        if (!j.is_array() || j.size() < min_n || j.size() > max_n) {
            return error(path, std::string("must be ") + what + ", not " + describe(j));
        }
        std::vector<double> out;
        for (std::size_t i = 0; i < j.size(); ++i) {
            auto v = number(j[i], index(path, i), -kMaxMagnitude, kMaxMagnitude, "a finite number");
            if (!v) return v.error();
            out.push_back(v.value());
        }
        return out;
    }

    Result<cv::Matx33d> matrix(const json& j, const std::string& path) const {
        if (!j.is_array() || j.size() != 3) return error(path, "must be a 3x3 matrix [[a,b,c],[d,e,f],[g,h,i]], not " + describe(j));
        cv::Matx33d m;
        for (int r = 0; r < 3; ++r) {
            auto row = numbers(j[static_cast<std::size_t>(r)], index(path, static_cast<std::size_t>(r)), 3, 3,
                               "a row of 3 numbers");
            if (!row) return row.error();
            for (int c = 0; c < 3; ++c) m(r, c) = row.value()[static_cast<std::size_t>(c)];
        }
        return m;
    }

    Result<cv::Size> image_size(const json& j, const std::string& path) const {
        if (!j.is_array() || j.size() != 2) return error(path, "must be [width, height] in pixels, not " + describe(j));
        auto w = integer(j[0], index(path, 0), 1, kMaxImageSide, "a width in pixels (1..100000)");
        if (!w) return w.error();
        auto h = integer(j[1], index(path, 1), 1, kMaxImageSide, "a height in pixels (1..100000)");
        if (!h) return h.error();
        return cv::Size(static_cast<int>(w.value()), static_cast<int>(h.value()));
    }

    static std::string join(const std::string& path, const std::string& key) { return path.empty() ? key : path + "." + key; }
    static std::string index(const std::string& path, std::size_t i) { return path + "[" + std::to_string(i) + "]"; }

    static std::string describe(const json& j) {
        switch (j.type()) {
            case json::value_t::null: return "null";
            case json::value_t::boolean: return "a boolean";
            case json::value_t::string: return "a string";
            case json::value_t::array: return "an array of " + std::to_string(j.size());
            case json::value_t::object: return "an object";
            default: return j.dump();
        }
    }

private:
    std::string source_;
};

Result<CameraIntrinsics> parse_camera(const json& j, const Reader& rd) {
    const std::string path = "camera";
    if (!j.is_object()) return rd.error(path, "must be an object, not " + Reader::describe(j));
    if (auto e = rd.only_keys(j, path, {"image_size", "camera_matrix", "distortion", "reprojection_error_px", "views"})) return *e;
    CameraIntrinsics cam;
    auto size = rd.field(j, path, "image_size");
    if (!size) return size.error();
    auto s = rd.image_size(*size.value(), path + ".image_size");
    if (!s) return s.error();
    cam.image_size = s.value();

    auto km = rd.field(j, path, "camera_matrix");
    if (!km) return km.error();
    const std::string kp = path + ".camera_matrix";
    auto k = rd.matrix(*km.value(), kp);
    if (!k) return k.error();
    cam.camera_matrix = k.value();
    const cv::Matx33d& K = cam.camera_matrix;
    if (K(0, 0) <= 0) return rd.error(kp + "[0][0]", "the focal length fx must be positive");
    if (K(1, 1) <= 0) return rd.error(kp + "[1][1]", "the focal length fy must be positive");
    if (K(1, 0) != 0 || K(2, 0) != 0 || K(2, 1) != 0 || K(2, 2) != 1) {
        return rd.error(kp, "must be upper triangular with a last row [0, 0, 1]");
    }

    auto dj = rd.field(j, path, "distortion");
    if (!dj) return dj.error();
    auto d = rd.numbers(*dj.value(), path + ".distortion", 4, 14, "an array of 4, 5, 8, 12 or 14 coefficients");
    if (!d) return d.error();
    const std::size_t n = d.value().size();
    if (n != 4 && n != 5 && n != 8 && n != 12 && n != 14) {
        return rd.error(path + ".distortion", "must hold 4, 5, 8, 12 or 14 coefficients, not " + std::to_string(n));
    }
    cam.distortion = d.value();

    auto ej = rd.field(j, path, "reprojection_error_px");
    if (!ej) return ej.error();
    auto e = rd.number(*ej.value(), path + ".reprojection_error_px", 0, kMaxMagnitude, "a non-negative number");
    if (!e) return e.error();
    cam.reprojection_error_px = e.value();

    if (j.contains("views")) {
        auto v = rd.integer(j["views"], path + ".views", 1, 100000, "a positive integer");
        if (!v) return v.error();
        cam.views = static_cast<int>(v.value());
    }
    return cam;
}

Result<TableCalibration> parse_table(const json& j, const Reader& rd) {
    const std::string path = "table";
    if (!j.is_object()) return rd.error(path, "must be an object, not " + Reader::describe(j));
    if (auto e = rd.only_keys(j, path, {"source", "image_size", "undistorted", "table_to_image", "rms_error_px", "markers_mm"})) return *e;
    TableCalibration table;
    auto src = rd.field(j, path, "source");
    if (!src) return src.error();
    if (!src.value()->is_string() || (*src.value() != "markers" && *src.value() != "tiles" && *src.value() != "start-tile")) {
        return rd.error(path + ".source", "must be \"markers\", \"tiles\" or \"start-tile\", not " + src.value()->dump());
    }
    table.source = src.value()->get<std::string>();

    auto size = rd.field(j, path, "image_size");
    if (!size) return size.error();
    auto s = rd.image_size(*size.value(), path + ".image_size");
    if (!s) return s.error();
    table.image_size = s.value();

    if (j.contains("undistorted")) {
        if (!j["undistorted"].is_boolean()) return rd.error(path + ".undistorted", "must be true or false, not " + j["undistorted"].dump());
        table.undistorted = j["undistorted"].get<bool>();
    }

    auto hj = rd.field(j, path, "table_to_image");
    if (!hj) return hj.error();
    auto h = rd.matrix(*hj.value(), path + ".table_to_image");
    if (!h) return h.error();
    const double scale = cv::norm(h.value());
    if (!(scale > 0) || std::abs(cv::determinant(h.value())) <= 1e-12 * scale * scale * scale) {
        return rd.error(path + ".table_to_image", "is singular: it maps the table onto a line or a point");
    }
    table.plane.table_to_image = h.value();

    if (j.contains("rms_error_px")) {
        auto e = rd.number(j["rms_error_px"], path + ".rms_error_px", 0, kMaxMagnitude, "a non-negative number");
        if (!e) return e.error();
        table.plane.rms_error_px = e.value();
    }

    if (j.contains("markers_mm")) {
        const json& mj = j["markers_mm"];
        const std::string mp = path + ".markers_mm";
        if (!mj.is_array()) return rd.error(mp, "must be an array of {id, corner, centre}, not " + Reader::describe(mj));
        std::set<long long> seen;
        for (std::size_t i = 0; i < mj.size(); ++i) {
            const std::string ip = Reader::index(mp, i);
            const json& m = mj[i];
            if (!m.is_object()) return rd.error(ip, "must be an object {id, corner, centre}, not " + Reader::describe(m));
            if (auto e = rd.only_keys(m, ip, {"id", "corner", "centre"})) return *e;
            auto idj = rd.field(m, ip, "id");
            if (!idj) return idj.error();
            auto id = rd.integer(*idj.value(), ip + ".id", 0, 3, "a marker id 0..3");
            if (!id) return id.error();
            if (!seen.insert(id.value()).second) return rd.error(ip + ".id", "marker " + std::to_string(id.value()) + " is listed twice");
            const std::string& expected_corner = kCorners[static_cast<std::size_t>(id.value())];
            auto cj = rd.field(m, ip, "corner");
            if (!cj) return cj.error();
            if (!cj.value()->is_string() || *cj.value() != expected_corner) {
                return rd.error(ip + ".corner", "marker " + std::to_string(id.value()) + " marks the " + expected_corner +
                                                    " corner, not " + cj.value()->dump());
            }
            auto pj = rd.field(m, ip, "centre");
            if (!pj) return pj.error();
            auto p = rd.numbers(*pj.value(), ip + ".centre", 2, 2, "[x, y] in mm");
            if (!p) return p.error();
            table.markers.push_back({static_cast<int>(id.value()), expected_corner, {p.value()[0], p.value()[1]}});
        }
    }
    if (table.source == "markers" && table.markers.size() != 4) {
        return rd.error(path + ".markers_mm", "a plane from markers needs the 4 markers 0..3, found " +
                                                  std::to_string(table.markers.size()));
    }
    if (table.source != "markers" && !table.markers.empty()) {
        return rd.error(path + ".markers_mm", "a plane from the tiles or the start tile has no markers");
    }
    return table;
}

Result<ColourModel> parse_colour_model(const json& j, const std::string& path, const Reader& rd) {
    if (!j.is_object()) return rd.error(path, "must be an object {lab_mean, lab_covariance, pixels}, not " + Reader::describe(j));
    if (auto e = rd.only_keys(j, path, {"lab_mean", "lab_covariance", "pixels"})) return *e;
    ColourModel model;
    auto mj = rd.field(j, path, "lab_mean");
    if (!mj) return mj.error();
    auto m = rd.numbers(*mj.value(), path + ".lab_mean", 3, 3, "[L, a, b]");
    if (!m) return m.error();
    const auto& v = m.value();
    if (v[0] < 0 || v[0] > 100) return rd.error(path + ".lab_mean[0]", "L must lie in 0..100, not " + std::to_string(v[0]));
    for (std::size_t i = 1; i < 3; ++i) {
        if (v[i] < -128 || v[i] > 128) {
            return rd.error(Reader::index(path + ".lab_mean", i), "a and b must lie in -128..128, not " + std::to_string(v[i]));
        }
    }
    model.lab_mean = cv::Vec3d(v[0], v[1], v[2]);

    auto cj = rd.field(j, path, "lab_covariance");
    if (!cj) return cj.error();
    const std::string cp = path + ".lab_covariance";
    auto c = rd.matrix(*cj.value(), cp);
    if (!c) return c.error();
    const cv::Matx33d& C = c.value();
    const double scale = std::max({std::abs(C(0, 0)), std::abs(C(1, 1)), std::abs(C(2, 2)), 1e-12});
    for (int r = 0; r < 3; ++r) {
        for (int k = r + 1; k < 3; ++k) {
            if (std::abs(C(r, k) - C(k, r)) > 1e-6 * scale) return rd.error(cp, "must be symmetric");
        }
    }
    // Positive definite: every leading minor positive (Sylvester), relative to the scale.
    const double m1 = C(0, 0), m2 = C(0, 0) * C(1, 1) - C(0, 1) * C(1, 0), m3 = cv::determinant(C);
    if (!(m1 > 0) || !(m2 > 1e-12 * scale * scale) || !(m3 > 1e-12 * scale * scale * scale)) {
        return rd.error(cp, "must be positive definite (a colour spread in all three Lab directions)");
    }
    model.lab_covariance = C;

    auto pj = rd.field(j, path, "pixels");
    if (!pj) return pj.error();
    auto p = rd.integer(*pj.value(), path + ".pixels", 1, std::numeric_limits<int>::max(), "a positive integer");
    if (!p) return p.error();
    model.pixels = static_cast<int>(p.value());
    return model;
}

Result<ColourCalibration> parse_colours(const json& j, const Reader& rd) {
    const std::string path = "colours";
    if (!j.is_object()) return rd.error(path, "must be an object, not " + Reader::describe(j));
    if (auto e = rd.only_keys(j, path, {"white_balance_rgb", "players"})) return *e;
    ColourCalibration colours;
    auto wj = rd.field(j, path, "white_balance_rgb");
    if (!wj) return wj.error();
    const std::string wp = path + ".white_balance_rgb";
    if (!wj.value()->is_array() || wj.value()->size() != 3) return rd.error(wp, "must be [gain R, gain G, gain B], not " + Reader::describe(*wj.value()));
    for (std::size_t i = 0; i < 3; ++i) {
        auto g = rd.number((*wj.value())[i], Reader::index(wp, i), 0.01, 100, "a gain in 0.01..100");
        if (!g) return g.error();
        colours.white_balance_rgb[static_cast<int>(i)] = g.value();
    }
    auto pj = rd.field(j, path, "players");
    if (!pj) return pj.error();
    const json& players = *pj.value();
    if (!players.is_object()) return rd.error(path + ".players", "must be an object {colour: model}, not " + Reader::describe(players));
    const auto& names = player_colour_names();
    for (auto it = players.begin(); it != players.end(); ++it) {
        const std::string cp = path + ".players." + it.key();
        if (std::find(names.begin(), names.end(), it.key()) == names.end()) {
            return rd.error(cp, "unknown player colour (use red, blue, green, yellow, black or grey)");
        }
        auto model = parse_colour_model(it.value(), cp, rd);
        if (!model) return model.error();
        colours.players[it.key()] = model.value();
    }
    return colours;
}

json matrix_json(const cv::Matx33d& m) {
    json out = json::array();
    for (int r = 0; r < 3; ++r) out.push_back({m(r, 0), m(r, 1), m(r, 2)});
    return out;
}

}  // namespace

const std::vector<std::string>& player_colour_names() {
    static const std::vector<std::string> names = {"red", "blue", "green", "yellow", "black", "grey"};
    return names;
}

Result<Calibration> parse_calibration(std::string_view text, std::string_view source_view) {
    const std::string source(source_view);
    auto doc = parse_json_text(text, source);
    if (!doc) return doc.error();
    const json& j = doc.value();
    const Reader rd(source);
    if (!j.is_object()) return rd.error("", "a calibration file must be a JSON object, not " + Reader::describe(j));
    if (!j.contains("format") || j["format"] != kFormat) {
        return rd.error("format", std::string("must be \"") + kFormat + "\"" +
                                      (j.contains("format") ? ", not " + j["format"].dump() : " (missing)"));
    }
    if (!j.contains("version")) return rd.error("version", "missing");
    if (!j["version"].is_number_integer()) return rd.error("version", "must be an integer, not " + j["version"].dump());
    if (j["version"].is_number_unsigned() ? j["version"].get<unsigned long long>() != 1ULL
                                          : j["version"].get<long long>() != kVersion) {
        return rd.error("version", "calibration version " + j["version"].dump() + " is not supported (this build reads 1)");
    }
    if (auto e = rd.only_keys(j, "", {"format", "version", "camera", "table", "colours"})) return *e;
    Calibration cal;
    if (j.contains("camera") && !j["camera"].is_null()) {
        auto cam = parse_camera(j["camera"], rd);
        if (!cam) return cam.error();
        cal.camera = cam.value();
    }
    if (j.contains("table") && !j["table"].is_null()) {
        auto table = parse_table(j["table"], rd);
        if (!table) return table.error();
        cal.table = table.value();
    }
    if (j.contains("colours") && !j["colours"].is_null()) {
        auto colours = parse_colours(j["colours"], rd);
        if (!colours) return colours.error();
        cal.colours = colours.value();
    }
    return cal;
}

Result<Calibration> load_calibration(const std::filesystem::path& path) {
    auto text = read_whole_file(path.string());
    if (!text) return text.error();
    return parse_calibration(text.value(), path.string());
}

json calibration_to_json(const Calibration& cal) {
    json j;
    j["format"] = kFormat;
    j["version"] = kVersion;
    if (cal.camera) {
        const CameraIntrinsics& c = *cal.camera;
        j["camera"] = {{"image_size", {c.image_size.width, c.image_size.height}},
                       {"camera_matrix", matrix_json(c.camera_matrix)},
                       {"distortion", c.distortion},
                       {"reprojection_error_px", c.reprojection_error_px}};
        // A file without "views" (written by hand or by another tool) reads as 0: left out
        // again, so what is written reads back.
        if (c.views > 0) j["camera"]["views"] = c.views;
    }
    if (cal.table) {
        const TableCalibration& t = *cal.table;
        json markers = json::array();
        for (const auto& m : t.markers) {
            markers.push_back({{"id", m.id}, {"corner", m.corner}, {"centre", {m.centre_mm.x, m.centre_mm.y}}});
        }
        j["table"] = {{"source", t.source},
                      {"image_size", {t.image_size.width, t.image_size.height}},
                      {"undistorted", t.undistorted},
                      {"table_to_image", matrix_json(t.plane.table_to_image)},
                      {"rms_error_px", t.plane.rms_error_px}};
        if (!markers.empty()) j["table"]["markers_mm"] = markers;
    }
    if (cal.colours) {
        const ColourCalibration& c = *cal.colours;
        json players = json::object();
        for (const auto& [name, m] : c.players) {
            players[name] = {{"lab_mean", {m.lab_mean[0], m.lab_mean[1], m.lab_mean[2]}},
                             {"lab_covariance", matrix_json(m.lab_covariance)},
                             {"pixels", m.pixels}};
        }
        j["colours"] = {{"white_balance_rgb", {c.white_balance_rgb[0], c.white_balance_rgb[1], c.white_balance_rgb[2]}},
                        {"players", players}};
    }
    return j;
}

Status save_calibration(const Calibration& calibration, const std::filesystem::path& path) {
    const std::string text = calibration_to_json(calibration).dump(2) + "\n";
    // Refuse to write a file this build could not read back (NaN, a singular plane, ...).
    if (auto back = parse_calibration(text, path.string()); !back) {
        return invalid(back.error().where, "refusing to write an unreadable calibration: " + back.error().message);
    }
    return write_file_atomically(path.string(), text);
}

}  // namespace meeplecam::calibration
