// A live session of the desktop app, offscreen, with the tracker running: 1080p footage of a
// match (render-footage: hands coming and going, still frames) streams from an image folder
// (the camera stand-in) through the capture thread, the match worker (tracker + journal) and
// the live view, looped for as long as asked (the match restarts with the footage; the loop
// itself is tests/ui/looped_session.h).
//
// Default: a simulated clock — every frame of the camera stand-in is fed as soon as the last
// one was tracked and painted (none skipped) and stands for 1/fps seconds of session time, so
// hours of session run in less wall time. --real-time: frames on the camera's timer, the
// pipeline drops a backlog as live; prints latencies (capture -> painted, capture -> tracked,
// the tracker's own time).
//
// Prints RSS against session time, the slope after warm-up, frames and events; --plot writes
// a PNG of RSS over the run, --csv the samples.
//
// --calibration FILE: the table's place from a calibration file (its plane; the start tile is
// looked for on each lap's first frames, as the app does live) instead of the footage's true
// camera; --calibration footage: a file holding the footage's true plane and nothing else.
// With --real-time the latencies are printed for the tracking frames too (captured after the
// table was found), with the time each lap took to find it, and the load average.
//
// usage: app_session [--seconds S] [--fps F] [--sample-every S] [--warmup S] [--footage DIR]
//                    [--events N] [--real-time] [--calibration FILE|footage] [--plot FILE.png] [--csv FILE]
//        app_session --plot-from FILE.csv --plot FILE.png [--warmup S]   (redraw an earlier run)
#include <QApplication>
#include <QDir>
#include <QFile>
#include <QStandardPaths>

#include <algorithm>
#include <cmath>
#include <csignal>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include <opencv2/imgcodecs.hpp>
#include <opencv2/imgproc.hpp>

#include "calibration/calibration_file.h"
#include "engine/record.h"
#include "session/footage.h"
#include "tests/ui/looped_session.h"
#include "ui/frame_source.h"
#include "ui/match_worker.h"
#include "ui/worker_thread.h"

using namespace meeplecam;

namespace {

volatile std::sig_atomic_t g_stop = 0;  // SIGINT / SIGTERM: end the session, print and plot what was run

struct Args {
    double seconds = 60;       // session time
    double fps = 10;           // camera stand-in frame rate
    double sample_every = 10;  // session seconds between memory samples
    double warmup = 600;       // session seconds before the slope is fitted
    int events = 24;           // events of the sample match rendered as footage
    bool real_time = false;
    std::string footage;       // footage folder (rendered once when it has no truth.json)
    std::string plot, csv;
    std::string plot_from;     // draw --plot from this CSV (an earlier run's --csv) and stop
    std::string calibration;   // a calibration file, or "footage" (the footage's true plane); empty: the footage's camera
};

// The 1-, 5- and 15-minute load averages (/proc/loadavg).
std::string load_average() {
    std::ifstream in("/proc/loadavg");
    std::string a, b, c;
    in >> a >> b >> c;
    return a + " " + b + " " + c;
}

// Reads the samples of an earlier run's --csv (columns by header name).
std::vector<test::SessionSample> read_csv(const std::string& path) {
    std::ifstream in(path);
    std::string line;
    std::vector<std::string> names;
    std::vector<test::SessionSample> out;
    auto split = [](const std::string& l) {
        std::vector<std::string> f;
        std::stringstream ss(l);
        for (std::string x; std::getline(ss, x, ',');) f.push_back(x);
        return f;
    };
    if (std::getline(in, line)) names = split(line);
    while (std::getline(in, line)) {
        const auto f = split(line);
        test::SessionSample s;
        for (std::size_t i = 0; i < f.size() && i < names.size(); ++i) {
            const double v = std::stod(f[i]);
            if (names[i] == "session_s") s.session_s = v;
            else if (names[i] == "wall_s") s.wall_s = v;
            else if (names[i] == "rss_mb") s.rss_mb = v;
            else if (names[i] == "heap_mb") s.heap_mb = v;
            else if (names[i] == "frames") s.frames = static_cast<std::int64_t>(v);
            else if (names[i] == "events") s.events = static_cast<std::size_t>(v);
            else if (names[i] == "laps") s.laps = static_cast<std::size_t>(v);
            else if (names[i] == "lap_start") s.lap_start = v != 0;
        }
        out.push_back(s);
    }
    return out;
}

double percentile(std::vector<double> v, double q) {
    if (v.empty()) return 0;
    std::sort(v.begin(), v.end());
    return v[static_cast<std::size_t>(q * static_cast<double>(v.size() - 1))];
}

// Draws RSS (MB) against session time (minutes) with axes, gridlines and the warm-up mark.
void write_plot(const std::vector<test::SessionSample>& samples, double warmup_s, const std::string& title, const std::string& path) {
    const int w = 1200, h = 600, left = 90, right = 30, top = 50, bottom = 70;
    cv::Mat img(h, w, CV_8UC3, cv::Scalar(255, 255, 255));
    double t_max = 1, r_max = 1;
    for (const auto& s : samples) {
        t_max = std::max(t_max, s.session_s / 60.0);
        r_max = std::max(r_max, s.rss_mb);
    }
    r_max = std::ceil(r_max * 1.15 / 50.0) * 50.0;
    auto px = [&](double t_min, double mb) {
        return cv::Point(left + static_cast<int>((w - left - right) * t_min / t_max),
                         h - bottom - static_cast<int>((h - top - bottom) * mb / r_max));
    };
    const auto grey = cv::Scalar(200, 200, 200), black = cv::Scalar(0, 0, 0);
    const double t_step = t_max > 60 ? 15 : t_max > 20 ? 5 : 1;
    for (double t = 0; t <= t_max + 1e-9; t += t_step) {
        cv::line(img, px(t, 0), px(t, r_max), grey);
        cv::putText(img, std::to_string(static_cast<int>(t)), px(t, 0) + cv::Point(-10, 22), cv::FONT_HERSHEY_SIMPLEX, 0.5, black);
    }
    for (double r = 0; r <= r_max + 1e-9; r += 50) {
        cv::line(img, px(0, r), px(t_max, r), grey);
        cv::putText(img, std::to_string(static_cast<int>(r)), px(0, r) + cv::Point(-50, 5), cv::FONT_HERSHEY_SIMPLEX, 0.5, black);
    }
    cv::line(img, px(0, 0), px(t_max, 0), black, 2);
    cv::line(img, px(0, 0), px(0, r_max), black, 2);
    if (warmup_s / 60.0 < t_max) cv::line(img, px(warmup_s / 60.0, 0), px(warmup_s / 60.0, r_max), cv::Scalar(0, 160, 0), 1);
    // Grey dots: samples at any point of a lap (a 6 MB frame more or less in flight); the line:
    // the samples at each match restart (the same point of every lap).
    const test::SessionSample* prev = nullptr;
    for (const auto& s : samples) {
        if (!s.lap_start) {
            cv::circle(img, px(s.session_s / 60.0, s.rss_mb), 2, cv::Scalar(150, 150, 150), cv::FILLED);
            continue;
        }
        if (prev) cv::line(img, px(prev->session_s / 60.0, prev->rss_mb), px(s.session_s / 60.0, s.rss_mb), cv::Scalar(200, 60, 20), 2, cv::LINE_AA);
        prev = &s;
    }
    cv::putText(img, "session time (minutes)", cv::Point(w / 2 - 100, h - 20), cv::FONT_HERSHEY_SIMPLEX, 0.6, black);
    cv::putText(img, "RSS (MB)", cv::Point(10, top - 15), cv::FONT_HERSHEY_SIMPLEX, 0.6, black);
    cv::putText(img, title, cv::Point(left + 120, top - 15), cv::FONT_HERSHEY_SIMPLEX, 0.6, black);
    cv::imwrite(path, img);
}

}  // namespace

int main(int argc, char** argv) {
    Args a;
    a.footage = std::string(MEEPLECAM_BINARY_DIR) + "/bench/app_session_footage";
    for (int i = 1; i < argc; ++i) {
        const std::string k = argv[i];
        if (k == "--real-time") {
            a.real_time = true;
            continue;
        }
        if (i + 1 >= argc) {
            std::cerr << "app_session: " << k << " needs a value\n";
            return 2;
        }
        const std::string v = argv[++i];
        if (k == "--seconds") a.seconds = std::stod(v);
        else if (k == "--fps") a.fps = std::stod(v);
        else if (k == "--sample-every") a.sample_every = std::stod(v);
        else if (k == "--warmup") a.warmup = std::stod(v);
        else if (k == "--footage") a.footage = v;
        else if (k == "--events") a.events = std::stoi(v);
        else if (k == "--plot") a.plot = v;
        else if (k == "--csv") a.csv = v;
        else if (k == "--plot-from") a.plot_from = v;
        else if (k == "--calibration") a.calibration = v;
        else {
            std::cerr << "app_session: unknown argument " << k << "\n";
            return 2;
        }
    }
    if (!a.plot_from.empty()) {
        const auto samples = read_csv(a.plot_from);
        if (samples.size() < 2 || a.plot.empty()) {
            std::cerr << "app_session: --plot-from needs --plot and a CSV with samples\n";
            return 2;
        }
        std::vector<test::SessionSample> restarts;
        for (const auto& x : samples) {
            if (x.lap_start) restarts.push_back(x);
        }
        const double slope = test::rss_slope_mb_per_hour(restarts, a.warmup);
        char title[200];
        std::snprintf(title, sizeof title, "app_session: RSS over %.0f min simulated, slope after warm-up %+.1f MB/h",
                      samples.back().session_s / 60, slope);
        write_plot(samples, a.warmup, title, a.plot);
        std::printf("plot: %s (%zu samples, %zu at match restarts; slope after warm-up %+.1f MB/hour)\n", a.plot.c_str(), samples.size(),
                    restarts.size(), slope);
        return 0;
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

    std::optional<calibration::Calibration> calibration;
    if (a.calibration == "footage") {
        auto truth = session::read_footage_truth(truth_path);
        if (!truth || truth->files.empty()) {
            std::cerr << (truth ? truth_path + ": no frames" : truth.error().to_string()) << "\n";
            return 2;
        }
        const cv::Mat first = cv::imread(a.footage + "/" + truth->files.front(), cv::IMREAD_COLOR);
        if (first.empty()) {
            std::cerr << a.footage << "/" << truth->files.front() << ": unreadable frame\n";
            return 2;
        }
        calibration = test::footage_calibration(truth->camera.table_to_image, first.size());
    } else if (!a.calibration.empty()) {
        auto c = calibration::load_calibration(a.calibration);
        if (!c) {
            std::cerr << c.error().to_string() << "\n";
            return 2;
        }
        calibration = c.value();
    }

    QApplication app(argc, argv);
    QStandardPaths::setTestModeEnabled(true);
    ui::register_meta_types();
    test::LoopedSessionOptions o;
    o.footage = a.footage;
    o.fps = a.fps;
    o.simulated_clock = !a.real_time;
    o.session_seconds = a.seconds;
    o.sample_every_s = a.sample_every;
    o.journal = QDir::tempPath() + "/meeplecam_app_session.journal";
    o.stop = &g_stop;
    o.calibration = calibration;
    const std::string load_before = load_average();
    std::signal(SIGINT, [](int) { g_stop = 1; });
    std::signal(SIGTERM, [](int) { g_stop = 1; });
    std::ofstream csv;
    if (!a.csv.empty()) {
        csv.open(a.csv);
        csv << "session_s,wall_s,rss_mb,heap_mb,frames,events,laps,lap_start\n";
    }
    auto r = test::run_looped_session(
        o,
        [&](const test::SessionSample& s) {
            if (csv.is_open()) {
                csv << s.session_s << ',' << s.wall_s << ',' << s.rss_mb << ',' << s.heap_mb << ',' << s.frames << ',' << s.events << ',' << s.laps << ','
                    << (s.lap_start ? 1 : 0) << '\n' << std::flush;
            }
            if (s.lap_start) return;
            std::printf("session t=%7.1fs (wall %6.1fs) rss=%7.1f MB heap=%6.1f MB frames=%lld events=%zu laps=%zu\n", s.session_s, s.wall_s,
                        s.rss_mb, s.heap_mb, static_cast<long long>(s.frames), s.events, s.laps);
            std::fflush(stdout);
        },
        /*keep_latencies=*/a.real_time);
    // The window is gone; its capture and match threads finish on their own: wait for them.
    ui::wait_for_stopped_captures();
    ui::wait_for_stopped_workers();
    if (!r) {
        std::cerr << r.error().to_string() << "\n";
        return 1;
    }
    std::printf("\n%s session: %.0f s of session time in %.0f s wall, footage at %.0f fps%s\n", a.real_time ? "real-time" : "simulated",
                r->session_s, r->wall_s, a.fps, r->stopped_early ? " (stopped early by a signal)" : "");
    std::printf("frames sent %lld, tracked %lld, shown %lld, skipped by the worker %lld\n", static_cast<long long>(r->frames_sent),
                static_cast<long long>(r->frames_tracked), static_cast<long long>(r->frames_shown), static_cast<long long>(r->frames_skipped));
    std::printf("laps %zu, events recorded by the tracker %zu (%zu per lap in the footage)\n", r->laps, r->events, r->events_per_lap);
    if (a.real_time) {
        std::printf("frame->screen latency: median %.1f ms, p90 %.1f ms, max %.1f ms\n", percentile(r->frame_to_screen_ms, 0.5),
                    percentile(r->frame_to_screen_ms, 0.9), percentile(r->frame_to_screen_ms, 1.0));
        std::printf("capture->tracker done: median %.1f ms, p90 %.1f ms\n", percentile(r->capture_to_tracked_ms, 0.5),
                    percentile(r->capture_to_tracked_ms, 0.9));
        std::printf("tracker time per frame: median %.1f ms, p90 %.1f ms, max %.1f ms\n", percentile(r->tracker_ms, 0.5),
                    percentile(r->tracker_ms, 0.9), percentile(r->tracker_ms, 1.0));
        if (calibration) {
            std::printf("table found (start tile) per lap: %zu laps, median %.0f ms, max %.0f ms after the lap's source started\n",
                        r->table_found_ms.size(), percentile(r->table_found_ms, 0.5), percentile(r->table_found_ms, 1.0));
            std::printf("start-tile searches on the worker: %zu, median %.0f ms, max %.0f ms each\n", r->search_ms.size(),
                        percentile(r->search_ms, 0.5), percentile(r->search_ms, 1.0));
        }
        std::printf("while tracking (%zu frames shown, %zu tracked): frame->screen median %.1f ms, p90 %.1f ms; capture->tracker done "
                    "median %.1f ms, p90 %.1f ms\n",
                    r->tracking_frame_to_screen_ms.size(), r->tracking_capture_to_tracked_ms.size(),
                    percentile(r->tracking_frame_to_screen_ms, 0.5), percentile(r->tracking_frame_to_screen_ms, 0.9),
                    percentile(r->tracking_capture_to_tracked_ms, 0.5), percentile(r->tracking_capture_to_tracked_ms, 0.9));
        std::printf("load average (1, 5, 15 min): %s at the start, %s at the end\n", load_before.c_str(), load_average().c_str());
    }
    const auto& s = r->samples;
    if (s.size() >= 2) {
        double peak = 0, after_warmup = 0;
        for (const auto& x : s) {
            peak = std::max(peak, x.rss_mb);
            if (after_warmup == 0 && x.session_s >= a.warmup) after_warmup = x.rss_mb;
        }
        std::vector<test::SessionSample> restarts;
        for (const auto& x : s) {
            if (x.lap_start) restarts.push_back(x);
        }
        const double slope = test::rss_slope_mb_per_hour(restarts, a.warmup);
        const double slope_all = test::rss_slope_mb_per_hour(s, a.warmup);
        std::printf("RSS: start %.1f MB, after warm-up (%.0f s) %.1f MB, end %.1f MB, peak %.1f MB; slope after warm-up %+.1f MB/hour "
                    "at match restarts (%zu), %+.1f MB/hour over every sample\n",
                    s.front().rss_mb, a.warmup, after_warmup, s.back().rss_mb, peak, slope, restarts.size(), slope_all);
        std::printf("heap in use: start %.1f MB, end %.1f MB\n", s.front().heap_mb, s.back().heap_mb);
        if (!a.plot.empty()) {
            char title[200];
            std::snprintf(title, sizeof title, "app_session: RSS over %.0f min %s, slope after warm-up %+.1f MB/h", r->session_s / 60,
                          a.real_time ? "real time" : "simulated", slope);
            write_plot(s, a.warmup, title, a.plot);
            std::printf("plot: %s\n", a.plot.c_str());
        }
    }
    return 0;
}
