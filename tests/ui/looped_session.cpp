#include "tests/ui/looped_session.h"

#include <QElapsedTimer>
#include <QEventLoop>
#include <QMetaObject>
#include <QTimer>

#include <malloc.h>

#include <fstream>
#include <optional>

#if defined(__SANITIZE_ADDRESS__)
// From libasan (sanitizer/allocator_interface.h, which GCC does not install).
extern "C" std::size_t __sanitizer_get_current_allocated_bytes();
#endif

#include "session/footage.h"
#include "ui/frame_source.h"
#include "ui/live_view.h"
#include "ui/live_window.h"
#include "ui/match_worker.h"

namespace meeplecam::test {

Status LoopedSessionOptions::check() const {
    if (footage.empty()) return invalid("looped session", "footage folder is empty");
    if (!(fps > 0 && fps <= 240)) return invalid("looped session", "fps must be in (0, 240]");
    if (laps < 0) return invalid("looped session", "laps must be >= 0");
    if (laps == 0 && !(session_seconds > 0)) return invalid("looped session", "session_seconds must be positive (or laps > 0)");
    if (!(sample_every_s > 0)) return invalid("looped session", "sample_every_s must be positive");
    if (journal.isEmpty()) return invalid("looped session", "journal path is empty");
    return Ok{};
}

calibration::Calibration footage_calibration(const cv::Matx33d& table_to_image, cv::Size image_size) {
    calibration::TableCalibration table;
    table.source = "tiles";
    table.image_size = image_size;
    table.plane.table_to_image = table_to_image;
    calibration::Calibration out;
    out.table = table;
    return out;
}

double rss_mb() {
    std::ifstream in("/proc/self/status");
    std::string key;
    while (in >> key) {
        if (key == "VmRSS:") {
            double kb = 0;
            in >> kb;
            return kb / 1024.0;
        }
        std::getline(in, key);
    }
    return 0;
}

double heap_in_use_mb() {
#if defined(__SANITIZE_ADDRESS__)
    return static_cast<double>(__sanitizer_get_current_allocated_bytes()) / (1024.0 * 1024.0);
#else
    const struct mallinfo2 m = mallinfo2();
    return static_cast<double>(m.uordblks + m.hblkhd) / (1024.0 * 1024.0);
#endif
}

double rss_slope_mb_per_hour(const std::vector<SessionSample>& samples, double from_s) {
    double n = 0, sx = 0, sy = 0, sxx = 0, sxy = 0;
    for (const SessionSample& s : samples) {
        if (s.session_s < from_s) continue;
        const double x = s.session_s / 3600.0;
        n += 1;
        sx += x;
        sy += s.rss_mb;
        sxx += x * x;
        sxy += x * s.rss_mb;
    }
    const double den = n * sxx - sx * sx;
    if (n < 2 || den <= 0) return 0;
    return (n * sxy - sx * sy) / den;
}

Result<LoopedSessionResult> run_looped_session(const LoopedSessionOptions& options,
                                               const std::function<void(const SessionSample&)>& on_sample, bool keep_latencies) {
    if (auto st = options.check(); !st) return st.error();
    const std::string truth_path = options.footage + "/truth.json";
    auto truth = session::read_footage_truth(truth_path);
    if (!truth) return truth.error();
    Record setup = truth->record;
    setup.events.resize(1);
    setup.finished = false;

    LoopedSessionResult out;
    out.events_per_lap = truth->record.events.size() - 1;
    ui::LiveWindow window;
    window.resize(1400, 900);
    window.show();
    if (options.calibration) {
        window.set_calibration(*options.calibration, QString::fromStdString(options.footage));
    } else {
        window.set_table_calibration({truth->camera.image_to_table_mm, truth->camera.tile_mm, truth->camera.gap_mm});
    }

    ui::FrameSourceOptions source;
    source.path = options.footage;
    source.fps = options.fps;
    source.on_request = options.simulated_clock;

    QEventLoop loop;
    QElapsedTimer clock;
    std::optional<Error> failure;
    std::int64_t lap_requested = 0;     // simulated: frames of this lap asked for (the last one is in flight)
    std::int64_t frames_done = 0;       // simulated: frames tracked and shown (session time = frames_done / fps)
    std::int64_t frames_before_lap = 0; // frames the sources of the finished laps sent
    bool analysed = false, shown = false, finishing = false;
    double next_sample_s = 0;
    qint64 last_progress_ms = 0;
    std::int64_t lap_started_ns = 0;    // when this lap's source started
    std::int64_t tracking_since_ns = 0; // frames captured from then on are tracked (the table is known); 0: not yet

    auto session_s = [&] {
        return options.simulated_clock ? static_cast<double>(frames_done) / options.fps : static_cast<double>(clock.elapsed()) / 1000.0;
    };
    auto frames_sent = [&] {
        const ui::FrameSource* src = window.frame_source();
        return frames_before_lap + (src ? src->frames_sent() : 0);
    };
    auto take_sample = [&](bool lap_start) {
        SessionSample s;
        s.session_s = session_s();
        s.wall_s = static_cast<double>(clock.elapsed()) / 1000.0;
        s.rss_mb = rss_mb();
        s.heap_mb = heap_in_use_mb();
        s.frames = frames_sent();
        s.events = out.events;
        s.laps = out.laps;
        s.lap_start = lap_start;
        out.samples.push_back(s);
        if (on_sample) on_sample(s);
    };
    auto finish = [&] {
        finishing = true;
        loop.quit();
    };
    auto time_is_up = [&] { return options.laps == 0 && session_s() >= options.session_seconds; };
    auto check_periodic = [&] {
        if (session_s() >= next_sample_s) {
            take_sample(false);
            next_sample_s += options.sample_every_s;
        }
        if (time_is_up()) finish();
    };
    // Simulated clock: one frame in flight; the next is asked for once it is tracked and shown.
    auto request_frame = [&] {
        if (finishing) return;
        ui::FrameSource* src = window.frame_source();
        if (!src) return;
        analysed = shown = false;
        ++lap_requested;
        QMetaObject::invokeMethod(src, &ui::FrameSource::next_frame, Qt::QueuedConnection);
    };
    auto frame_done = [&] {
        last_progress_ms = clock.elapsed();
        if (!options.simulated_clock || !analysed || !shown) return;
        ++frames_done;
        check_periodic();
        request_frame();
    };

    QObject::connect(&window.live_view(), &ui::LiveView::frame_shown, &window, [&](std::int64_t index, double ms) {
        ++out.frames_shown;
        if (keep_latencies) {
            out.frame_to_screen_ms.push_back(ms);
            const auto captured_ns = ui::steady_now_ns() - static_cast<std::int64_t>(ms * 1e6);
            if (tracking_since_ns > 0 && captured_ns >= tracking_since_ns) out.tracking_frame_to_screen_ms.push_back(ms);
        }
        if (index == lap_requested - 1) shown = true;
        frame_done();
    });
    QObject::connect(window.worker(), &ui::MatchWorker::frame_analysed, &window, [&](const ui::FrameReport& r) {
        ++out.frames_tracked;
        out.events += static_cast<std::size_t>(r.committed);
        out.frames_skipped = r.skipped;
        if (keep_latencies) {
            out.capture_to_tracked_ms.push_back(static_cast<double>(ui::steady_now_ns() - r.captured_ns) / 1e6);
            out.tracker_ms.push_back(r.analysis_ms);
            if (r.search_ms > 0) out.search_ms.push_back(r.search_ms);
            if (tracking_since_ns > 0 && r.captured_ns >= tracking_since_ns) {
                out.tracking_capture_to_tracked_ms.push_back(static_cast<double>(ui::steady_now_ns() - r.captured_ns) / 1e6);
            }
        }
        if (r.index == lap_requested - 1) analysed = true;
        frame_done();
    });
    // Each lap of the footage is a new match: when the frames end, a new match opens (a new
    // journal), and once it is open the footage plays again from its first frame.
    QObject::connect(&window, &ui::LiveWindow::match_ready, &window, [&] {
        if (finishing) return;
        take_sample(true);
        lap_started_ns = ui::steady_now_ns();
        tracking_since_ns = options.calibration ? 0 : lap_started_ns;
        window.start_source(source);
        lap_requested = 0;
        QObject::connect(window.frame_source(), &ui::FrameSource::state_changed, &window, [&](ui::FrameSource::State state, const QString& message) {
            if (finishing) return;
            if (state == ui::FrameSource::State::Lost) {
                failure = invalid(options.footage, "the footage source was lost: " + message.toStdString());
                return finish();
            }
            if (state != ui::FrameSource::State::Ended) return;
            ++out.laps;
            frames_before_lap = frames_sent();
            window.stop_source();
            if (options.laps > 0 && out.laps >= static_cast<std::size_t>(options.laps)) return finish();
            window.new_match(setup, options.journal);
        });
        if (options.simulated_clock) request_frame();
    });
    QObject::connect(window.worker(), &ui::MatchWorker::table_found, &window, [&] {
        if (tracking_since_ns > 0 || lap_started_ns == 0) return;
        tracking_since_ns = ui::steady_now_ns();
        out.table_found_ms.push_back(static_cast<double>(tracking_since_ns - lap_started_ns) / 1e6);
    });
    QObject::connect(window.worker(), &ui::MatchWorker::refused, &window, [&](const QString& why) {
        if (out.laps == 0 && out.frames_tracked == 0) {
            failure = invalid(options.journal.toStdString(), "the match did not open: " + why.toStdString());
            finish();
        }
    });
    // Real time: the samples and the end on a timer. Both: a stalled pipeline is an error.
    QTimer watch;
    QObject::connect(&watch, &QTimer::timeout, &window, [&] {
        if (finishing) return;
        if (options.stop && *options.stop) {
            out.stopped_early = true;
            return finish();
        }
        if (!options.simulated_clock) check_periodic();
        if (clock.elapsed() - last_progress_ms > 120'000) {
            failure = invalid(options.footage, "the session stalled: no frame for 120 s at frame " +
                                                   std::to_string(frames_sent()));
            finish();
        }
    });
    watch.start(100);

    clock.start();
    window.new_match(setup, options.journal);
    loop.exec();
    out.frames_sent = frames_sent();
    take_sample(false);
    window.stop_source();
    if (failure) return *failure;
    out.session_s = session_s();
    out.wall_s = static_cast<double>(clock.elapsed()) / 1000.0;
    return out;
}

}  // namespace meeplecam::test
