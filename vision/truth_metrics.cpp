#include "vision/truth_metrics.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <optional>
#include <set>
#include <tuple>

#include "engine/atomic_file.h"
#include "engine/json_text.h"
#include "vision/tile_classifier.h"

namespace meeplecam::vision {

double rigid_alignment_rms(const std::vector<cv::Point2d>& a, const std::vector<cv::Point2d>& b) {
    if (a.size() < 2 || a.size() != b.size()) return 0;
    cv::Point2d ca(0, 0), cb(0, 0);
    for (std::size_t i = 0; i < a.size(); ++i) ca += a[i], cb += b[i];
    const double n = static_cast<double>(a.size());
    ca *= 1.0 / n, cb *= 1.0 / n;
    double sxx = 0, sxy = 0;
    for (std::size_t i = 0; i < a.size(); ++i) {
        const cv::Point2d p = a[i] - ca, q = b[i] - cb;
        sxx += p.x * q.x + p.y * q.y;
        sxy += p.x * q.y - p.y * q.x;
    }
    const double th = std::atan2(sxy, sxx), c = std::cos(th), s = std::sin(th);
    double e = 0;
    for (std::size_t i = 0; i < a.size(); ++i) {
        const cv::Point2d p = a[i] - ca, q = b[i] - cb;
        const cv::Point2d r(c * p.x - s * p.y, s * p.x + c * p.y);
        e += (r - q).dot(r - q);
    }
    return std::sqrt(e / n);
}

double rectification_rms_mm(const LatticeView& view, const RenderTruth& truth) {
    std::vector<cv::Point2d> a, b;
    for (const auto& t : truth.tiles) {
        const cv::Vec3d v = view.image_to_top * cv::Vec3d(t.centre_px.x, t.centre_px.y, 1);
        a.emplace_back(v[0] / v[2] / view.px_per_mm, v[1] / v[2] / view.px_per_mm);
        b.push_back(t.centre_mm);
    }
    return rigid_alignment_rms(a, b);
}

BoardReading reading_from_truth(const RenderTruth& truth, const Catalog& catalog, cv::Size frame) {
    BoardReading out;
    out.found = true;
    const double pitch = truth.tile_mm + truth.gap_mm;
    int min_x = truth.tiles.front().at.x, min_y = truth.tiles.front().at.y, max_x = min_x, max_y = min_y;
    for (const auto& t : truth.tiles) {
        min_x = std::min(min_x, t.at.x), min_y = std::min(min_y, t.at.y), max_x = std::max(max_x, t.at.x), max_y = std::max(max_y, t.at.y);
    }
    // Cell (x, y)'s centre lies at board_origin_mm + (x, y) * pitch on the table.
    const cv::Point2d shift = cv::Point2d((0.5 - min_x) * pitch, (0.5 - min_y) * pitch) - truth.board_origin_mm;
    out.view.px_per_mm = 1.0;
    out.view.pitch_px = pitch;
    out.view.image_to_top = cv::Matx33d(1, 0, shift.x, 0, 1, shift.y, 0, 0, 1) * truth.tiles_to_image.inv();
    out.view.cols = max_x - min_x + 1, out.view.rows = max_y - min_y + 1;
    out.view.frame = frame;
    for (const auto& t : truth.tiles) {
        DecodedTile d;
        d.col = t.at.x - min_x, d.row = t.at.y - min_y;
        d.type = catalog.find(t.tile)->index;
        d.rot = t.rot_deg / 90;
        d.offset_px = t.centre_mm - (truth.board_origin_mm + cv::Point2d(t.at.x * pitch, t.at.y * pitch));
        d.confidence = 1;
        out.tiles.push_back(d);
    }
    return out;
}

Result<LayoutLabels> load_layout_labels(const std::string& path, const Catalog& catalog) {
    auto text = read_whole_file(path);
    if (!text) return text.error();
    auto doc = parse_json_text(text.value(), path);
    if (!doc) return doc.error();
    const nlohmann::json& j = doc.value();
    if (!j.is_object() || !j.contains("tiles") || !j["tiles"].is_array()) return invalid(path, "needs a \"tiles\" array");
    LayoutLabels out;
    std::set<std::pair<int, int>> cells;
    for (std::size_t i = 0; i < j["tiles"].size(); ++i) {
        const nlohmann::json& t = j["tiles"][i];
        const std::string where = path + ": tiles[" + std::to_string(i) + "]";
        if (!t.is_object() || !t.contains("at") || !t["at"].is_array() || t["at"].size() != 2 || !t["at"][0].is_number_integer() ||
            !t["at"][1].is_number_integer() || !t.contains("tile") || !t["tile"].is_string() || !t.contains("rot") || !t["rot"].is_number_integer()) {
            return invalid(where, "needs \"at\": [col, row], \"tile\" and \"rot\"");
        }
        LabelledTile tile{t["at"][0].get<int>(), t["at"][1].get<int>(), t["tile"].get<std::string>(), 0};
        const int degrees = t["rot"].get<int>();
        if (degrees % 90 != 0 || degrees < 0 || degrees >= 360) return invalid(where, "rot must be 0, 90, 180 or 270, got " + std::to_string(degrees));
        tile.rot = degrees / 90;
        if (tile.tile != kUnlabelled && catalog.find(tile.tile) == nullptr) return invalid(where, "tile " + tile.tile + " is not in the catalog");
        if (!cells.insert({tile.col, tile.row}).second) return invalid(where, "a second tile on cell " + std::to_string(tile.col) + "," + std::to_string(tile.row));
        out.tiles.push_back(std::move(tile));
    }
    const nlohmann::json laid_wrong = j.value("sides_laid_wrong", nlohmann::json::array());
    if (!laid_wrong.is_array()) return invalid(path, "\"sides_laid_wrong\" must be an array of [[col, row], [col, row]] pairs");
    auto cell_of = [](const nlohmann::json& c) -> std::optional<cv::Point> {
        if (!c.is_array() || c.size() != 2 || !c[0].is_number_integer() || !c[1].is_number_integer()) return std::nullopt;
        return cv::Point(c[0].get<int>(), c[1].get<int>());
    };
    for (std::size_t i = 0; i < laid_wrong.size(); ++i) {
        const nlohmann::json& pair = laid_wrong[i];
        const std::string where = path + ": sides_laid_wrong[" + std::to_string(i) + "]";
        const auto a = pair.is_array() && pair.size() == 2 ? cell_of(pair[0]) : std::nullopt;
        const auto b = pair.is_array() && pair.size() == 2 ? cell_of(pair[1]) : std::nullopt;
        if (!a || !b) return invalid(where, "needs [[col, row], [col, row]]");
        if (std::abs(a->x - b->x) + std::abs(a->y - b->y) != 1) return invalid(where, "its two cells do not touch");
        out.sides_laid_wrong.emplace_back(*a, *b);
    }
    return out;
}

LayoutScore score_against_layout(const std::vector<DecodedTile>& read, const Catalog& catalog, const std::vector<LabelledTile>& labels) {
    const auto& types = catalog.tiles();
    std::map<std::pair<int, int>, const LabelledTile*> truth;
    for (const auto& l : labels) truth[{l.col, l.row}] = &l;
    const auto unlabelled = static_cast<int>(std::count_if(labels.begin(), labels.end(), [](const LabelledTile& l) { return l.tile == kUnlabelled; }));
    // Turns a read cell clockwise by `turn` quarter turns: (x, y) -> (-y, x) per turn.
    auto turned = [](int col, int row, int turn) {
        for (int q = 0; q < turn; ++q) std::tie(col, row) = std::pair{-row, col};
        return cv::Point(col, row);
    };
    auto is_right = [&](const DecodedTile& t, int turn, const LabelledTile& l) {
        const TileType& type = types[static_cast<std::size_t>(t.type)];
        return type.id == l.tile && same_rotation(type, (t.rot + turn) % 4, l.rot);
    };
    LayoutScore best;
    best.right = -1;
    std::vector<const DecodedTile*> shown;
    for (const auto& t : read) {
        if (!t.hidden && t.type >= 0 && t.type < static_cast<int>(types.size())) shown.push_back(&t);
    }
    for (int turn = 0; turn < 4; ++turn) {
        // Every shift that puts some read tile on some labelled one.
        std::set<std::pair<int, int>> shifts;
        for (const auto* t : shown) {
            const cv::Point p = turned(t->col, t->row, turn);
            for (const auto& l : labels) {
                if (l.tile != kUnlabelled) shifts.insert({l.col - p.x, l.row - p.y});
            }
        }
        for (const auto& [dx, dy] : shifts) {
            LayoutScore s;
            s.turn = turn, s.shift = cv::Point(dx, dy);
            for (const auto* t : shown) {
                const cv::Point p = turned(t->col, t->row, turn) + s.shift;
                const auto it = truth.find({p.x, p.y});
                if (it == truth.end()) ++s.invented;
                else if (it->second->tile == kUnlabelled) continue;
                else if (is_right(*t, turn, *it->second)) ++s.right;
                else ++s.wrong;
            }
            if (s.right > best.right || (s.right == best.right && s.wrong + s.invented < best.wrong + best.invented)) best = s;
        }
    }
    if (best.right < 0) best = LayoutScore{};
    best.labelled = static_cast<int>(labels.size()) - unlabelled;
    best.missed = best.labelled - best.right - best.wrong;
    for (const auto* t : shown) {
        const cv::Point p = turned(t->col, t->row, best.turn) + best.shift;
        const auto it = truth.find({p.x, p.y});
        if (it != truth.end() && it->second->tile != kUnlabelled && !is_right(*t, best.turn, *it->second)) best.confusions.push_back(it->second->tile + "->" + types[static_cast<std::size_t>(t->type)].id);
    }
    return best;
}

}  // namespace meeplecam::vision
