#include "real_scans.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>

#include <opencv2/core.hpp>

#include "engine/atomic_file.h"
#include "engine/json_text.h"
#include "vision/image_io.h"
#include "vision/truth_metrics.h"

namespace meeplecam::bench {
namespace {

cv::Mat turned(const cv::Mat& img, int quarter_turns) {
    cv::Mat out = img.clone();
    switch (((quarter_turns % 4) + 4) % 4) {
        case 1: cv::rotate(img, out, cv::ROTATE_90_CLOCKWISE); break;
        case 2: cv::rotate(img, out, cv::ROTATE_180); break;
        case 3: cv::rotate(img, out, cv::ROTATE_90_COUNTERCLOCKWISE); break;
        default: break;
    }
    return out;
}

// One sheet scan and its labels, row by row; a duplicate is another scan of a labelled sheet.
struct SheetLabels {
    std::string image;
    std::vector<std::string> tiles;  // type ids, or "?"
    std::vector<int> rots;           // quarter turns clockwise, as records
    bool duplicate = false;
};

struct SheetLabelFile {
    std::string labelled;
    int cols = 0, rows = 0;
    std::vector<SheetLabels> sheets;  // the labelled sheets, then the duplicates
};

// Loads the tile-sheet label file (format "meeplecam-tile-sheet-labels", version 1; see the
// file's note). Errors name the file and the entry.
Result<SheetLabelFile> load_sheet_labels(const std::string& path, const Catalog& catalog) {
    auto text = read_whole_file(path);
    if (!text) return text.error();
    auto doc = parse_json_text(text.value(), path);
    if (!doc) return doc.error();
    const nlohmann::json& j = doc.value();
    if (!j.is_object() || j.value("format", "") != "meeplecam-tile-sheet-labels") return invalid(path, "needs \"format\": \"meeplecam-tile-sheet-labels\"");
    if (j.value("version", 0) != 1) return invalid(path, "needs \"version\": 1");
    SheetLabelFile out;
    out.labelled = j.value("labelled", "?");
    const auto& grid = j.value("grid", nlohmann::json());
    if (!grid.is_array() || grid.size() != 2 || !grid[0].is_number_integer() || !grid[1].is_number_integer() || grid[0].get<int>() < 1 ||
        grid[1].get<int>() < 1) {
        return invalid(path, "needs \"grid\": [columns, rows]");
    }
    out.cols = grid[0].get<int>(), out.rows = grid[1].get<int>();
    const std::size_t cells = static_cast<std::size_t>(out.cols * out.rows);
    if (!j.contains("sheets") || !j["sheets"].is_array()) return invalid(path, "needs a \"sheets\" array");
    for (std::size_t i = 0; i < j["sheets"].size(); ++i) {
        const nlohmann::json& sheet = j["sheets"][i];
        const std::string where = path + ": sheets[" + std::to_string(i) + "]";
        if (!sheet.is_object() || !sheet.contains("image") || !sheet["image"].is_string() || !sheet.contains("tiles") || !sheet["tiles"].is_array()) {
            return invalid(where, "needs \"image\" and a \"tiles\" array");
        }
        if (sheet["tiles"].size() != cells) return invalid(where, "needs " + std::to_string(cells) + " tiles (the grid), has " + std::to_string(sheet["tiles"].size()));
        SheetLabels labels{sheet["image"].get<std::string>(), {}, {}, false};
        for (std::size_t k = 0; k < cells; ++k) {
            const nlohmann::json& t = sheet["tiles"][k];
            const std::string at = where + ".tiles[" + std::to_string(k) + "]";
            if (!t.is_object() || !t.contains("tile") || !t["tile"].is_string() || !t.contains("rot") || !t["rot"].is_number_integer()) {
                return invalid(at, "needs \"tile\" and \"rot\"");
            }
            const std::string id = t["tile"].get<std::string>();
            const int degrees = t["rot"].get<int>();
            if (id != vision::kUnlabelled && catalog.find(id) == nullptr) return invalid(at, "tile " + id + " is not in the catalog");
            if (degrees % 90 != 0 || degrees < 0 || degrees >= 360) return invalid(at, "rot must be 0, 90, 180 or 270, got " + std::to_string(degrees));
            labels.tiles.push_back(id);
            labels.rots.push_back(degrees / 90);
        }
        out.sheets.push_back(std::move(labels));
    }
    const std::size_t labelled = out.sheets.size();
    const nlohmann::json duplicates = j.value("duplicates", nlohmann::json::array());
    for (std::size_t i = 0; i < duplicates.size(); ++i) {
        const nlohmann::json& d = duplicates[i];
        const std::string where = path + ": duplicates[" + std::to_string(i) + "]";
        if (!d.is_object() || !d.contains("image") || !d["image"].is_string() || !d.contains("same_as") || !d["same_as"].is_string()) {
            return invalid(where, "needs \"image\" and \"same_as\"");
        }
        const std::string same_as = d["same_as"].get<std::string>();
        const auto it = std::find_if(out.sheets.begin(), out.sheets.begin() + static_cast<std::ptrdiff_t>(labelled),
                                     [&](const SheetLabels& s) { return s.image == same_as; });
        if (it == out.sheets.begin() + static_cast<std::ptrdiff_t>(labelled)) return invalid(where, "same_as " + same_as + " is no labelled sheet");
        SheetLabels copy = *it;
        copy.image = d["image"].get<std::string>();
        copy.duplicate = true;
        out.sheets.push_back(std::move(copy));
    }
    return out;
}

// Cuts `sheet` into an equal grid of `cols` x `rows` cells, row by row (cell edges rounded down).
std::vector<cv::Mat> cut_grid(const cv::Mat& sheet, int cols, int rows) {
    std::vector<cv::Mat> cells;
    for (int r = 0; r < rows; ++r) {
        for (int c = 0; c < cols; ++c) {
            const int x0 = c * sheet.cols / cols, x1 = (c + 1) * sheet.cols / cols;
            const int y0 = r * sheet.rows / rows, y1 = (r + 1) * sheet.rows / rows;
            cells.push_back(sheet(cv::Rect(x0, y0, x1 - x0, y1 - y0)));
        }
    }
    return cells;
}

// Classifies one sheet's labelled cells, each turned four ways, into `t`; returns the sheet's
// own line (counts, cell size, misses).
std::string classify_sheet(const vision::TileClassifier& classifier, const Catalog& catalog, const SheetLabels& labels, const cv::Mat& sheet, int cols,
                           int rows, RealSheetTally& t) {
    const std::vector<cv::Mat> cells = cut_grid(sheet, cols, rows);
    int tiles = 0, n = 0, type_right = 0, rot_right = 0, squares = 0;
    double ms = 0;
    std::string misses;
    for (std::size_t k = 0; k < cells.size(); ++k) {
        const std::string& truth = labels.tiles[k];
        if (truth == vision::kUnlabelled) continue;
        const TileType& type = *catalog.find(truth);
        const std::string label = truth + std::to_string(labels.rots[k] * 90);
        ++tiles;
        for (int q = 0; q < 4; ++q) {
            const cv::Mat im = turned(cells[k], q);
            const auto t0 = std::chrono::steady_clock::now();
            auto r = classifier.classify(im);
            ms += std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
            ++n;
            const std::string at = " " + std::to_string(k + 1) + ":" + label + "(turn " + std::to_string(q * 90) + ")->";
            if (!r) {
                misses += at + "error";
                ++t.confusions[truth + "->error"];
                continue;
            }
            squares += r->found_square;
            const std::string& read = r->best.tile;
            if (read != truth) {
                misses += at + read + std::to_string(r->best.rot * 90);
                ++t.confusions[truth + "->" + read];
                continue;
            }
            ++type_right;
            if (vision::same_rotation(type, r->best.rot, labels.rots[k] + q)) {
                ++rot_right;
            } else {
                misses += at + read + std::to_string(r->best.rot * 90);
                t.rot_misses.push_back(labels.image + " " + std::to_string(k + 1) + ":" + label + "(turn " + std::to_string(q * 90) + ")->" + read +
                                       std::to_string(r->best.rot * 90));
            }
        }
    }
    ++t.sheets;
    t.tiles += tiles, t.classifications += n, t.type_right += type_right, t.rot_right += rot_right, t.square_found += squares, t.ms += ms;
    char head[240];
    std::snprintf(head, sizeof head, "%-15s %2d tiles, cells %dx%d px: type %d/%d, type+rot %d/%d, square found %d/%d, %.1f ms/tile; misses (cell:truth(turn)->read):",
                  labels.image.c_str(), tiles, sheet.cols / cols, sheet.rows / rows, type_right, n, rot_right, n, squares, n, n ? ms / n : 0.0);
    return head + (misses.empty() ? std::string(" none") : misses);
}

void print_sheet_tally(const char* what, const RealSheetTally& t) {
    const int n = t.classifications;
    std::printf("%s: %d sheets, %d tiles, %d classifications\n", what, t.sheets, t.tiles, n);
    std::printf("  type accuracy:     %d/%d = %.1f%%\n", t.type_right, n, n ? 100.0 * t.type_right / n : 0.0);
    std::printf("  rotation accuracy: %d/%d = %.1f%% of the typed right (against the labels + the turn, modulo symmetry); type+rot %d/%d = %.1f%%\n",
                t.rot_right, t.type_right, t.type_right ? 100.0 * t.rot_right / t.type_right : 0.0, t.rot_right, n, n ? 100.0 * t.rot_right / n : 0.0);
    std::printf("  tile square found in the cell: %d/%d (else the whole cell was read as the tile)\n", t.square_found, n);
    std::printf("  time: %.2f ms/tile (wall, classification only)\n", n ? t.ms / n : 0.0);
    std::vector<std::pair<int, std::string>> list;
    for (const auto& [key, v] : t.confusions) list.emplace_back(v, key);
    std::sort(list.begin(), list.end(), [](const auto& a, const auto& b) { return a.first != b.first ? a.first > b.first : a.second < b.second; });
    std::printf("  confusions (truth->read x count):");
    for (const auto& [v, key] : list) std::printf(" %s x%d", key.c_str(), v);
    std::printf("%s\n", list.empty() ? " none" : "");
    std::printf("  rotation misses (sheet cell:truth(turn)->read):");
    for (const auto& m : t.rot_misses) std::printf(" %s;", m.c_str());
    std::printf("%s\n", t.rot_misses.empty() ? " none" : "");
}

}  // namespace

std::optional<RealScanTally> run_real_scans(const vision::TileClassifier& classifier, const Catalog& catalog, const std::string& dir) {
    if (!std::filesystem::is_directory(dir)) {
        std::printf("real tile scans: %s not found, skipped\n", dir.c_str());
        return std::nullopt;
    }
    std::printf("real tile scans (%s; each turned 0/90/180/270 through classify-tile's classifier; rotation judged by consistency)\n", dir.c_str());
    std::printf("%-5s %s\n", "scan", "predicted (tile rot confidence) for turns 0/90/180/270");
    RealScanTally t;
    for (const TileType& type : catalog.tiles()) {
        const std::string path = dir + "/" + type.id + ".png";
        if (!std::filesystem::exists(path)) continue;
        auto img = vision::load_image(path);
        if (!img) {
            std::printf("%-5s %s\n", type.id.c_str(), img.error().to_string().c_str());
            continue;
        }
        ++t.scans;
        std::printf("%-5s", type.id.c_str());
        int rot0 = -1;
        bool right0 = false;
        for (int q = 0; q < 4; ++q) {
            const cv::Mat im = turned(img.value(), q);
            const auto t0 = std::chrono::steady_clock::now();
            auto r = classifier.classify(im);
            t.ms += std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
            ++t.classifications;
            if (!r) {
                std::printf(" error: %s |", r.error().to_string().c_str());
                continue;
            }
            std::printf(" %s %3d %.2f |", r->best.tile.c_str(), r->best.rot * 90, r->best.confidence);
            const bool right = r->best.tile == type.id;
            if (right) ++t.type_right;
            else t.confusions.push_back(type.id + "(turn " + std::to_string(q * 90) + ")->" + r->best.tile);
            if (q == 0) {
                rot0 = r->best.rot;
                right0 = right;
            } else if (right0 && right) {
                ++t.consistent_of;
                if (vision::same_rotation(type, r->best.rot, rot0 + q)) ++t.consistent;
            }
        }
        std::printf("\n");
    }
    return t;
}

void print_real_scan_summary(const RealScanTally& t) {
    const int n = t.classifications;
    std::printf("real scans: %d, classifications: %d\n", t.scans, n);
    std::printf("type accuracy:        %d/%d = %.1f%%\n", t.type_right, n, n ? 100.0 * t.type_right / n : 0.0);
    std::printf("rotation consistency: %d/%d = %.1f%% (turned images vs the unturned one, both typed right, modulo symmetry)\n",
                t.consistent, t.consistent_of, t.consistent_of ? 100.0 * t.consistent / t.consistent_of : 0.0);
    std::printf("time: %.2f ms/tile\n", n ? t.ms / n : 0.0);
    std::printf("confusions (truth->predicted):");
    for (const auto& c : t.confusions) std::printf(" %s", c.c_str());
    std::printf("\n");
}

std::optional<RealSheetReport> run_real_sheets(const vision::TileClassifier& classifier, const Catalog& catalog, const std::string& dir,
                                               const std::string& labels_path) {
    if (!std::filesystem::is_directory(dir)) {
        std::printf("real tile sheets: %s not found, skipped\n", dir.c_str());
        return std::nullopt;
    }
    if (!std::filesystem::exists(labels_path)) {
        std::printf("real tile sheets: no label file %s, skipped\n", labels_path.c_str());
        return std::nullopt;
    }
    auto labels = load_sheet_labels(labels_path, catalog);
    if (!labels) {
        std::printf("real tile sheets: %s, skipped\n", labels.error().to_string().c_str());
        return std::nullopt;
    }
    RealSheetReport report;
    report.labelled = labels->labelled;
    std::printf("real tile sheets (labelled %s; the classifier was not tuned on them, only its paper-strip cut and its square from the tile's edges were made after seeing their misses; %s, labels %s; each sheet cut into an equal %dx%d grid, each cell turned 0/90/180/270 "
                "through classify-tile's classifier)\n",
                report.labelled.c_str(), dir.c_str(), labels_path.c_str(), labels->cols, labels->rows);
    for (const SheetLabels& sheet : labels->sheets) {
        const std::string path = dir + "/" + sheet.image;
        if (!std::filesystem::exists(path)) {
            std::printf("%-15s not found, skipped\n", sheet.image.c_str());
            continue;
        }
        auto img = vision::load_image(path);
        if (!img) {
            std::printf("%-15s %s, skipped\n", sheet.image.c_str(), img.error().to_string().c_str());
            continue;
        }
        RealSheetTally& tally = sheet.duplicate ? report.duplicates : report.held_out;
        const std::string line = classify_sheet(classifier, catalog, sheet, img.value(), labels->cols, labels->rows, tally);
        std::printf("%s%s\n", line.c_str(), sheet.duplicate ? " [duplicate scan, not in the totals]" : "");
    }
    return report;
}

void print_real_sheet_summary(const RealSheetReport& report) {
    const std::string head = "real tile sheets (labelled " + report.labelled + "; paper-strip cut and edge square made after seeing them)";
    print_sheet_tally(head.c_str(), report.held_out);
    if (report.duplicates.sheets > 0) print_sheet_tally("duplicate scans of those sheets (trimmed; same tiles, not in the totals)", report.duplicates);
}

}  // namespace meeplecam::bench
