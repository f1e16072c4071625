// A looped live session of the app, offscreen: rendered footage streams from an image folder
// (the camera stand-in) through the capture thread, the match worker (tracker + journal) and
// the live window; when the footage ends a new match starts and the footage plays again. Used
// by bench/app_session (long runs, latency, memory) and the memory test of ui_tests.
//
// Simulated clock: the source sends the next frame only when the worker has tracked the last
// one and the live view has painted it, so no frame is skipped and the run goes as fast as the
// pipeline allows; frame i stands for i / fps seconds of session time (the camera's rate).
// Real time: the source's timer sends frames at fps and the pipeline drops a backlog, as live.
#pragma once

#include <QString>

#include <csignal>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "calibration/calibration_file.h"
#include "engine/error.h"

namespace meeplecam::test {

struct LoopedSessionOptions {
    std::string footage;          // folder written by session::write_footage (truth.json inside)
    double fps = 10;              // camera rate: one frame is 1/fps seconds of session time
    bool simulated_clock = true;  // frames on request (none skipped) instead of on the camera's timer
    double session_seconds = 60;  // stop after this much session time (simulated or real)...
    int laps = 0;                 // ...or after this many whole laps of the footage when > 0
    double sample_every_s = 10;   // session seconds between memory samples (also one at every lap start)
    QString journal;              // where each lap's match is journaled (rewritten every lap)
    // The table's place: the footage's true camera (default), or this calibration file's plane,
    // the start tile looked for on the first frames of every lap as the app does live.
    std::optional<calibration::Calibration> calibration;
    const volatile std::sig_atomic_t* stop = nullptr;  // when set and non-zero: end now (a signal handler's flag)

    // Refuses impossible values (an Invalid error naming the field).
    Status check() const;
};

struct SessionSample {
    double session_s = 0;     // session time (frames sent / fps when simulated)
    double wall_s = 0;        // wall time since the start
    double rss_mb = 0;        // resident set size of the process
    double heap_mb = 0;       // bytes allocated and not freed (see heap_in_use_mb())
    std::int64_t frames = 0;  // frames sent by the source so far
    std::size_t events = 0;   // events the tracker recorded so far
    std::size_t laps = 0;     // laps of the footage finished so far
    bool lap_start = false;   // taken as a new match opened (the same point of every lap)
};

struct LoopedSessionResult {
    std::vector<SessionSample> samples;
    std::int64_t frames_sent = 0;
    std::int64_t frames_tracked = 0;  // frames the worker reported on
    std::int64_t frames_shown = 0;    // frames the live view painted
    std::int64_t frames_skipped = 0;  // frames the worker dropped for a newer one
    std::size_t events = 0;           // events recorded by the tracker
    std::size_t laps = 0;
    std::size_t events_per_lap = 0;   // the footage's events after the setup (what one lap should record)
    bool stopped_early = false;       // ended by options.stop before its time or laps
    double session_s = 0, wall_s = 0;
    std::vector<double> frame_to_screen_ms, capture_to_tracked_ms, tracker_ms;  // only when keep_latencies
    // With a calibration: per lap, ms from the lap's first frame captured to the table found
    // (the start-tile search), and the latencies of the frames captured after it (tracking).
    std::vector<double> table_found_ms;
    std::vector<double> search_ms;  // each start-tile search's time on the worker (one a frame at most)
    std::vector<double> tracking_frame_to_screen_ms, tracking_capture_to_tracked_ms;
};

// Returns the process's resident set size in MB (/proc/self/status), 0 when unknown.
double rss_mb();
// Returns the heap in use in MB: malloc's allocated bytes over every arena (mallinfo2), or
// under AddressSanitizer its allocator's (RSS there is mostly the quarantine of freed blocks).
double heap_in_use_mb();

// The calibration a footage folder's truth stands for: its true table plane (table mm, the
// renderer's own origin) and nothing else, as a file made from the tiles would hold.
calibration::Calibration footage_calibration(const cv::Matx33d& table_to_image, cv::Size image_size);

// Runs the session (needs a QApplication); `on_sample` sees each sample as it is taken. With
// keep_latencies every frame's latencies are kept (memory grows with the run: benchmarks only).
Result<LoopedSessionResult> run_looped_session(const LoopedSessionOptions& options,
                                               const std::function<void(const SessionSample&)>& on_sample = {},
                                               bool keep_latencies = false);

// Slope of RSS against session time by least squares over the samples with session_s >=
// from_s (MB per hour); 0 with fewer than two.
double rss_slope_mb_per_hour(const std::vector<SessionSample>& samples, double from_s);

}  // namespace meeplecam::test
