// Scripted footage: a whole recorded match rendered as the frames a fixed camera would see —
// hands reaching in and leaving for every move, still frames between, light drifting slowly,
// once a follower knocked aside and put back — with the truth of every frame. The test oracle
// of the session tracker (docs/session.md).
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>
#include <opencv2/core.hpp>

#include "engine/error.h"
#include "engine/record.h"

namespace meeplecam::session {

struct FootageOptions {
    std::uint64_t seed = 1;        // scene (camera, table, style, light) and per-frame noise
    std::string preset = "easy";   // render preset the scene is drawn from (easy, medium, hard)
    int width = 1280;              // frame size (pixels)
    int height = 720;
    double gap_mm = 1.0;           // gap between tiles (fixed for the match)
    int approach_frames = 2;       // frames of a hand coming in before each move
    int leave_frames = 1;          // frames of the hand leaving after it
    int still_frames = 4;          // still frames after each move
    double exposure_drift = 0.12;  // exposure falls by this share from the first frame to the last
    double colour_drift_k = 500;   // the light's colour temperature falls this much (kelvin) over the match
    bool knock_follower = true;    // once per match a follower is knocked aside and put back
    bool follower_with_tile = false;  // a follower comes down in the same move as its tile (one hand, no
                                      // still frame between), as players often do; else in a move of its own
    std::string image_ext = ".jpg";  // .jpg or .png (write_footage)

    // Checks every field; the error names it.
    Status check() const;
};

// One rendered frame and what it shows.
struct FootageFrame {
    int index = 0;
    std::string phase;                  // "still", "hand-in", "hand-out", "knock", "return" (followers going back)
    int events_shown = 0;               // record events whose effect the frame shows
    std::vector<int> enter_before;      // record events the players enter (the camera cannot see them)
                                        // before this frame is read: discards, auctions, castles, ferries, bridges
};

// What stays the same across the footage: the camera and the grid.
struct FootageCamera {
    cv::Matx33d table_to_image = cv::Matx33d::eye();     // the renderer's truth (table plane, mm -> px)
    cv::Matx33d image_to_table_mm = cv::Matx33d::eye();  // px -> tracker table frame (start cell centred at 0)
    double tile_mm = 45, gap_mm = 1;
};

// Receives every frame in order, with the (fixed) camera.
using FootageSink = std::function<Status(const FootageFrame& frame, const cv::Mat& image, const FootageCamera& camera)>;

// Renders `record` (finished or not; events applied in order) frame by frame, handing each to
// `sink`. Returns the camera. Errors: options failing check(), a record that does not replay,
// a render error, or whatever the sink returns.
Result<FootageCamera> render_footage(const Record& record, const FootageOptions& options, const FootageSink& sink);

// Writes the footage of `record` into `dir` (frame_00000.jpg ... and truth.json, each
// atomically); returns the number of frames.
Result<int> write_footage(const Record& record, const FootageOptions& options, const std::string& dir);

// Reads a footage truth file: the record, the camera and the frames.
struct FootageTruth {
    Record record;
    FootageCamera camera;
    std::vector<FootageFrame> frames;
    std::vector<std::string> files;  // frame file names, relative to the truth file's folder
};
Result<FootageTruth> read_footage_truth(const std::string& path);

// Returns the events of a record the camera cannot see (the players enter them).
bool entered_by_players(const Event& event);

}  // namespace meeplecam::session
