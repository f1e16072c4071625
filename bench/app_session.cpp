// A simulated live session of the desktop app, offscreen, with the tracker running: 1080p
// footage of a match (render-footage: hands coming and going, still frames) streams from an
// image folder (the camera stand-in) through the capture thread, the match worker (tracker +
// journal) and the live view, looped for as long as asked (the match restarts with the
// footage). Prints frame-to-screen latency (capture -> the end of the paint that showed the
// frame), capture -> tracker-done latency, the tracker's own time per frame, frames shown,
// moves recorded, and the process memory (RSS) sampled over the run.
//
// usage: app_session [--seconds S] [--fps F] [--sample-every S] [--footage DIR] [--events N]
#include <QApplication>
#include <QDir>
#include <QElapsedTimer>
#include <QFile>
#include <QStandardPaths>
#include <QTimer>

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <string>
#include <vector>

#include "engine/record.h"
#include "session/footage.h"
#include "ui/live_view.h"
#include "ui/live_window.h"
#include "ui/match_worker.h"

using namespace meeplecam;

namespace {

struct Args {
    double seconds = 60;       // length of the session
    double fps = 10;           // camera stand-in frame rate
    double sample_every = 10;  // seconds between memory samples
    int events = 24;           // events of the sample match rendered as footage
    std::string footage;       // footage folder (rendered once when it has no truth.json)
};

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

double percentile(std::vector<double> v, double q) {
    if (v.empty()) return 0;
    std::sort(v.begin(), v.end());
    return v[static_cast<std::size_t>(q * static_cast<double>(v.size() - 1))];
}

}  // namespace

int main(int argc, char** argv) {
    Args a;
    a.footage = std::string(MEEPLECAM_BINARY_DIR) + "/bench/app_session_footage";
    for (int i = 1; i + 1 < argc; i += 2) {
        const std::string k = argv[i], v = argv[i + 1];
        if (k == "--seconds") a.seconds = std::stod(v);
        else if (k == "--fps") a.fps = std::stod(v);
        else if (k == "--sample-every") a.sample_every = std::stod(v);
        else if (k == "--footage") a.footage = v;
        else if (k == "--events") a.events = std::stoi(v);
        else {
            std::cerr << "app_session: unknown argument " << k << "\n";
            return 2;
        }
    }
    if (!std::getenv("QT_QPA_PLATFORM")) setenv("QT_QPA_PLATFORM", "offscreen", 1);
    const std::string truth_path = a.footage + "/truth.json";
    if (!QFile::exists(QString::fromStdString(truth_path))) {
        auto match = read_record(std::string(MEEPLECAM_SOURCE_DIR) + "/samples/matches/sample-2p.json");
        if (!match) {
            std::cerr << match.error().to_string() << "\n";
            return 1;
        }
        match->events.resize(std::min<std::size_t>(match->events.size(), static_cast<std::size_t>(a.events)));
        match->finished = false;
        session::FootageOptions fo;
        fo.width = 1920;
        fo.height = 1080;
        std::cout << "rendering 1920x1080 footage of " << match->events.size() << " events into " << a.footage << " ...\n" << std::flush;
        auto n = session::write_footage(match.value(), fo, a.footage);
        if (!n) {
            std::cerr << n.error().to_string() << "\n";
            return 1;
        }
    }
    auto truth = session::read_footage_truth(truth_path);
    if (!truth) {
        std::cerr << truth.error().to_string() << "\n";
        return 1;
    }
    const std::int64_t footage_frames = static_cast<std::int64_t>(truth->files.size());
    Record setup = truth->record;
    setup.events.resize(1);
    setup.finished = false;

    QApplication app(argc, argv);
    QStandardPaths::setTestModeEnabled(true);
    ui::LiveWindow window;
    window.resize(1400, 900);
    window.show();
    const QString journal = QDir::tempPath() + "/meeplecam_app_session.journal";
    window.set_table_calibration({truth->camera.image_to_table_mm, truth->camera.tile_mm, truth->camera.gap_mm});

    std::vector<double> frame_latency, analysis_latency, tracker_ms;
    std::size_t events_recorded = 0, laps = 0;
    QObject::connect(&window.live_view(), &ui::LiveView::frame_shown, &window,
                     [&](std::int64_t, double ms) { frame_latency.push_back(ms); });
    QObject::connect(window.worker(), &ui::MatchWorker::frame_analysed, &window, [&](const ui::FrameReport& r) {
        analysis_latency.push_back(static_cast<double>(ui::steady_now_ns() - r.captured_ns) / 1e6);
        tracker_ms.push_back(r.analysis_ms);
        events_recorded += static_cast<std::size_t>(r.committed);
    });
    // Each lap of the footage is a new game: when the frames end, a new match starts (a new
    // journal), and once it is open the footage plays again from its first frame.
    ui::FrameSourceOptions source;
    source.path = a.footage;
    source.fps = a.fps;
    QObject::connect(&window, &ui::LiveWindow::match_ready, &window, [&] { window.start_source(source); });
    QTimer lap_watch;
    QObject::connect(&lap_watch, &QTimer::timeout, &window, [&] {
        if (!window.source_status().contains("ended")) return;
        ++laps;
        window.stop_source();
        window.new_match(setup, journal);
    });
    lap_watch.start(200);
    window.new_match(setup, journal);

    QElapsedTimer clock;
    clock.start();
    std::vector<std::pair<double, double>> rss;  // (seconds, MB)
    std::size_t last_frames = 0;
    QTimer sampler;
    QObject::connect(&sampler, &QTimer::timeout, &window, [&] {
        const double t = static_cast<double>(clock.elapsed()) / 1000.0;
        rss.emplace_back(t, rss_mb());
        std::printf("t=%7.1fs rss=%7.1f MB frames shown=%zu (+%zu) median frame->screen=%.1f ms capture->tracked=%.1f ms "
                    "events recorded=%zu laps=%zu\n",
                    t, rss.back().second, frame_latency.size(), frame_latency.size() - last_frames, percentile(frame_latency, 0.5),
                    percentile(analysis_latency, 0.5), events_recorded, laps);
        std::fflush(stdout);
        last_frames = frame_latency.size();
        if (t >= a.seconds) app.quit();
    });
    sampler.start(static_cast<int>(a.sample_every * 1000));
    app.exec();
    window.stop_source();

    std::printf("\nsession %.0f s, footage %lld frames 1920x1080 at %.0f fps, %zu laps, %zu events recorded by the tracker\n", a.seconds,
                static_cast<long long>(footage_frames), a.fps, laps, events_recorded);
    std::printf("frames shown: %zu (%.1f per second)\n", frame_latency.size(), static_cast<double>(frame_latency.size()) / a.seconds);
    std::printf("frame->screen latency: median %.1f ms, p90 %.1f ms, max %.1f ms\n", percentile(frame_latency, 0.5),
                percentile(frame_latency, 0.9), percentile(frame_latency, 1.0));
    std::printf("capture->tracker done: median %.1f ms, p90 %.1f ms (%zu frames tracked)\n", percentile(analysis_latency, 0.5),
                percentile(analysis_latency, 0.9), analysis_latency.size());
    std::printf("tracker time per frame: median %.1f ms, p90 %.1f ms, max %.1f ms\n", percentile(tracker_ms, 0.5),
                percentile(tracker_ms, 0.9), percentile(tracker_ms, 1.0));
    if (rss.size() >= 2) {
        const auto& first = rss.front();
        const auto& last = rss.back();
        double peak = 0;
        for (const auto& s : rss) peak = std::max(peak, s.second);
        std::printf("RSS: first sample %.1f MB at %.0f s, last %.1f MB at %.0f s, peak %.1f MB; change %+.1f MB\n", first.second,
                    first.first, last.second, last.first, peak, last.second - first.second);
    }
    return 0;
}
