// The real tile scans (../shared/realdata/dev/tiles_AX: one photo per base type, NAME.png)
// through the classifier `meeplecam classify-tile` uses, each turned by 0/90/180/270.
// Shared by bench/vision (issue 4's real-photo report) and bench/vision_tiles.
#pragma once

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

}  // namespace meeplecam::bench
