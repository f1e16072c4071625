#include "vision/tile_library.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include <nlohmann/json.hpp>
#include <opencv2/imgproc.hpp>

#include "engine/atomic_file.h"
#include "vision/tile_art.h"

namespace meeplecam::vision {
namespace {

cv::Mat float_lab(const cv::Mat& bgr) {
    cv::Mat f, lab;
    bgr.convertTo(f, CV_32F, 1.0 / 255.0);
    cv::cvtColor(f, lab, cv::COLOR_BGR2Lab);
    return lab;
}

// Turns a canonical tile clockwise by `quarter_turns`.
cv::Mat turned(const cv::Mat& img, int quarter_turns) {
    cv::Mat out;
    switch (((quarter_turns % 4) + 4) % 4) {
        case 1: cv::rotate(img, out, cv::ROTATE_90_CLOCKWISE); break;
        case 2: cv::rotate(img, out, cv::ROTATE_180); break;
        case 3: cv::rotate(img, out, cv::ROTATE_90_COUNTERCLOCKWISE); break;
        default: out = img.clone(); break;
    }
    return out;
}

}  // namespace

std::vector<float> tile_thumbnail(const cv::Mat& canonical_bgr, int px) {
    cv::Mat small;
    cv::resize(canonical_bgr, small, cv::Size(px, px), 0, 0, cv::INTER_AREA);
    const cv::Mat lab = float_lab(small);
    // Per-channel mean removed: light level and colour cast change between photos.
    const cv::Scalar mean = cv::mean(lab);
    std::vector<float> out;
    out.reserve(static_cast<std::size_t>(px * px * 3));
    for (int y = 0; y < px; ++y) {
        for (int x = 0; x < px; ++x) {
            const auto& v = lab.at<cv::Vec3f>(y, x);
            out.insert(out.end(), {static_cast<float>(v[0] - mean[0]), static_cast<float>(v[1] - mean[1]),
                                   static_cast<float>(v[2] - mean[2])});
        }
    }
    return out;
}

std::array<std::array<float, 3>, 13> port_colours(const cv::Mat& canonical_bgr) {
    const cv::Mat lab = float_lab(canonical_bgr);
    std::array<std::array<float, 3>, 13> out{};
    const int n = lab.cols;
    const int r = std::max(1, n / 16);
    for (int p = 0; p < kPorts; ++p) {
        const cv::Point2d q = port_point(static_cast<Port>(p), 0.08);
        const int cx = static_cast<int>(q.x * n), cy = static_cast<int>(q.y * n);
        const cv::Rect box = cv::Rect(cx - r, cy - r, 2 * r + 1, 2 * r + 1) & cv::Rect(0, 0, n, lab.rows);
        const cv::Scalar m = cv::mean(lab(box));
        out[static_cast<std::size_t>(p)] = {static_cast<float>(m[0]), static_cast<float>(m[1]), static_cast<float>(m[2])};
    }
    return out;
}

void TileLibrary::add(const TileType& type, int rot, const cv::Mat& canonical, const std::string& source) {
    // The photo shows rotation `rot`; turning it by (r - rot) shows rotation r. All four turns:
    // the art of a symmetric type (a monastery, a pennant) is not symmetric.
    for (int r = 0; r < 4; ++r) {
        const cv::Mat img = turned(canonical, r - rot);
        TileLibraryEntry e;
        e.tile = type.id;
        e.rot = r;
        e.thumb = tile_thumbnail(img, thumb_px);
        e.ports = port_colours(img);
        e.source = source;
        entries.push_back(std::move(e));
    }
}

bool TileLibrary::has_tile(const std::string& tile) const {
    for (const auto& e : entries) {
        if (e.tile == tile) return true;
    }
    return false;
}

double TileLibrary::distance(const std::vector<float>& thumb, const std::string& tile, int rot,
                             double lightness_weight) const {
    // Mean L1 over the overlap, the best of small shifts (the tile square is found only roughly).
    const int n = thumb_px;
    double best = -1;
    for (const auto& e : entries) {
        if (e.tile != tile || e.rot != rot || e.thumb.size() != thumb.size()) continue;
        for (int sy = -1; sy <= 1; ++sy) {
            for (int sx = -1; sx <= 1; ++sx) {
                double d = 0;
                int count = 0;
                for (int y = std::max(0, -sy); y < std::min(n, n - sy); ++y) {
                    for (int x = std::max(0, -sx); x < std::min(n, n - sx); ++x) {
                        const auto i = static_cast<std::size_t>((y * n + x) * 3);
                        const auto j = static_cast<std::size_t>(((y + sy) * n + (x + sx)) * 3);
                        d += lightness_weight * std::abs(thumb[i] - e.thumb[j]) + std::abs(thumb[i + 1] - e.thumb[j + 1]) +
                             std::abs(thumb[i + 2] - e.thumb[j + 2]);
                        ++count;
                    }
                }
                d /= std::max(1, count);
                if (best < 0 || d < best) best = d;
            }
        }
    }
    return best;
}

nlohmann::json TileLibrary::to_json() const {
    nlohmann::json doc = {{"format", kFormat}, {"version", kVersion}, {"game", game}, {"thumb_px", thumb_px}};
    nlohmann::json list = nlohmann::json::array();
    for (const auto& e : entries) {
        nlohmann::json thumb = nlohmann::json::array();
        for (const float v : e.thumb) thumb.push_back(std::round(v * 10.0f) / 10.0f);
        nlohmann::json ports = nlohmann::json::array();
        for (const auto& p : e.ports) ports.push_back({std::round(p[0] * 10) / 10, std::round(p[1] * 10) / 10, std::round(p[2] * 10) / 10});
        list.push_back({{"tile", e.tile}, {"rot", e.rot * 90}, {"source", e.source}, {"ports", ports}, {"thumb", thumb}});
    }
    doc["entries"] = list;
    return doc;
}

Result<TileLibrary> TileLibrary::from_json(const nlohmann::json& doc, const std::string& source) {
    auto bad = [&](const std::string& what) { return invalid(source, what); };
    if (!doc.is_object()) return bad("not a tile library (expected a JSON object)");
    if (!doc.contains("format") || !doc["format"].is_string() || doc["format"].get<std::string>() != kFormat) return bad(std::string("not a tile library (format must be \"") + kFormat + "\")");
    if (!doc.contains("version") || !doc["version"].is_number_integer() || doc["version"].get<int>() != kVersion) {
        return bad("unsupported tile library version (this build reads version " + std::to_string(kVersion) + ")");
    }
    TileLibrary lib;
    if (!doc.contains("thumb_px") || !doc["thumb_px"].is_number_integer()) return bad("thumb_px missing");
    lib.thumb_px = doc["thumb_px"].get<int>();
    if (lib.thumb_px < 4 || lib.thumb_px > 128) return bad("thumb_px must be 4..128");
    if (doc.contains("game") && doc["game"].is_string()) lib.game = doc["game"].get<std::string>();
    if (!doc.contains("entries") || !doc["entries"].is_array()) return bad("entries missing");
    const std::size_t want = static_cast<std::size_t>(lib.thumb_px * lib.thumb_px * 3);
    int i = 0;
    for (const auto& j : doc["entries"]) {
        const std::string where = "entry " + std::to_string(i++);
        if (!j.is_object() || !j.contains("tile") || !j["tile"].is_string()) return bad(where + ": tile missing");
        TileLibraryEntry e;
        e.tile = j["tile"].get<std::string>();
        if (!j.contains("rot") || !j["rot"].is_number_integer()) return bad(where + ": rot missing");
        const int deg = j["rot"].get<int>();
        if (deg != 0 && deg != 90 && deg != 180 && deg != 270) return bad(where + ": rot must be 0, 90, 180 or 270");
        e.rot = deg / 90;
        if (!j.contains("thumb") || !j["thumb"].is_array() || j["thumb"].size() != want) {
            return bad(where + ": thumb must hold " + std::to_string(want) + " numbers");
        }
        for (const auto& v : j["thumb"]) {
            if (!v.is_number()) return bad(where + ": thumb holds a non-number");
            e.thumb.push_back(v.get<float>());
        }
        if (j.contains("ports")) {
            if (!j["ports"].is_array() || j["ports"].size() != 13) return bad(where + ": ports must hold 13 colours");
            for (std::size_t p = 0; p < 13; ++p) {
                const auto& c = j["ports"][p];
                if (!c.is_array() || c.size() != 3 || !c[0].is_number() || !c[1].is_number() || !c[2].is_number()) {
                    return bad(where + ": port colour must be [L, a, b]");
                }
                e.ports[p] = {c[0].get<float>(), c[1].get<float>(), c[2].get<float>()};
            }
        }
        if (j.contains("source") && j["source"].is_string()) e.source = j["source"].get<std::string>();
        lib.entries.push_back(std::move(e));
    }
    return lib;
}

Status TileLibrary::save(const std::string& path) const { return write_file_atomically(path, to_json().dump() + "\n"); }

Result<TileLibrary> TileLibrary::load(const std::string& path) {
    auto text = read_whole_file(path);
    if (!text) return text.error();
    nlohmann::json doc;
    try {
        doc = nlohmann::json::parse(text.value());
    } catch (const nlohmann::json::exception& e) {
        return invalid(path, std::string("not valid JSON: ") + e.what());
    }
    return from_json(doc, path);
}

}  // namespace meeplecam::vision
