// The real tile scans (../shared/realdata/dev/tiles_AX: one photo per base type, NAME.png)
// and the labelled tile sheets (../shared/realdata/dev/tile_sheets: all 72 base tiles, 12 per
// scan) through the classifier `meeplecam classify-tile` uses, each turned by 0/90/180/270.
// Shared by bench/vision (issue 4's real-photo report) and bench/vision_tiles.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "engine/catalog.h"
#include "vision/tile_classifier.h"

namespace meeplecam::bench {

struct RealScanTally {
    int scans = 0;            // scan files found
    int classifications = 0;  // scans x turns classified
    int type_right = 0;
    int consistent = 0;        // turned answers whose rotation = unturned answer + turn (mod symmetry)
    int consistent_of = 0;     // turned answers compared (the unturned and the turned one typed right)
    double ms = 0;             // wall time of the classifications
    std::vector<std::string> confusions;  // "truth(turn 90)->predicted"
};

// Classifies every catalog type's scan found in `dir`, printing one row per scan (the answer
// for each turn); nullopt, with a line saying so, when `dir` is not a directory.
std::optional<RealScanTally> run_real_scans(const vision::TileClassifier& classifier, const Catalog& catalog, const std::string& dir);

// Prints the tally's summary lines (type accuracy, rotation consistency, time, confusions).
void print_real_scan_summary(const RealScanTally& tally);

// The hand labels of the tile sheets (bench/real_labels/), read by run_real_sheets.
inline constexpr const char* kTileSheetLabels = "tile_sheets.labels.json";

struct RealSheetTally {
    int sheets = 0;            // sheet scans read
    int tiles = 0;             // labelled tiles cut from them ('?' cells left out)
    int classifications = 0;   // tiles x turns classified
    int type_right = 0;
    int rot_right = 0;         // typed right with the rotation = label + turn (modulo symmetry)
    int square_found = 0;      // classifications that found the tile square in the cell (else the whole cell was the tile)
    double ms = 0;             // wall time of the classifications (not of the cutting)
    std::map<std::string, int> confusions;  // "truth->read" x count, type misses
    std::vector<std::string> rot_misses;    // "K0(turn 90)->K180": typed right, turned wrong
};

struct RealSheetReport {
    std::string labelled;      // the label file's "labelled" date
    RealSheetTally held_out;   // the label file's sheets: every base tile once
    RealSheetTally duplicates; // other scans of those sheets (trimmed): reported apart, never in the totals
};

// Cuts every labelled sheet in `dir` into the label file's equal grid, classifies each labelled
// cell turned by 0/90/180/270 and scores type and rotation against the labels, printing one
// line per sheet; nullopt, with a line saying so, when `dir` or `labels_path` is absent or the
// label file is bad (the line names the file and entry).
std::optional<RealSheetReport> run_real_sheets(const vision::TileClassifier& classifier, const Catalog& catalog, const std::string& dir,
                                               const std::string& labels_path);

// Prints the report's summary lines (type and rotation accuracy, time, confusions), the
// held-out sheets first, the duplicate scans apart.
void print_real_sheet_summary(const RealSheetReport& report);

}  // namespace meeplecam::bench
