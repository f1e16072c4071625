// A simulated live session of the desktop app, offscreen: 1080p frames of a game being played
// stream from an image folder (the camera stand-in) through the capture thread, the match
// worker and the live view, while the moves of a random game are entered one by one (a new
// match starts when one ends). Prints frame-to-screen latency (capture -> painted), the
// worker's latency, frames shown, and the process memory (RSS) sampled over the run.
//
// usage: app_session [--seconds S] [--fps F] [--move-every S] [--sample-every S] [--frames-dir DIR]
#include <QApplication>
#include <QDir>
#include <QElapsedTimer>
#include <QStandardPaths>
#include <QTimer>

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <string>
#include <vector>

#include <opencv2/imgcodecs.hpp>

#include "engine/random_game.h"
#include "ui/live_view.h"
#include "ui/live_window.h"
#include "ui/match_worker.h"
#include "vision/table_renderer.h"

using namespace meeplecam;

namespace {

struct Args {
    double seconds = 60;       // length of the session
    double fps = 15;           // camera stand-in frame rate
    double move_every = 2;     // seconds between moves entered
    double sample_every = 10;  // seconds between memory samples
    int frames = 24;           // distinct 1080p frames rendered (looped)
    std::string frames_dir;    // where the frames are cached (default: build dir)
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

// Renders `count` 1080p frames of `game`'s board at evenly spaced moments into `dir` (kept
// between runs: rendering is the slow part).
bool render_frames(const RandomGame& game, int count, const std::string& dir) {
    QDir().mkpath(QString::fromStdString(dir));
    const auto tiles = vision::scene_tiles(game.game.board());
    auto options = vision::RenderOptions::for_difficulty(vision::Difficulty::Medium);
    options.hand_chance = 0.3;
    for (int i = 0; i < count; ++i) {
        const std::string path = dir + "/frame_" + std::to_string(1000 + i) + ".jpg";
        if (QFile::exists(QString::fromStdString(path))) continue;
        const std::size_t n = std::max<std::size_t>(2, tiles.size() * static_cast<std::size_t>(i + 1) / static_cast<std::size_t>(count));
        std::vector<vision::SceneTile> part(tiles.begin(), tiles.begin() + static_cast<std::ptrdiff_t>(n));
        auto r = vision::render_table(part, options, /*seed=*/static_cast<std::uint64_t>(i + 1));
        if (!r) {
            std::cerr << "render: " << r.error().to_string() << "\n";
            return false;
        }
        cv::imwrite(path, r->image, {cv::IMWRITE_JPEG_QUALITY, 90});
    }
    return true;
}

}  // namespace

int main(int argc, char** argv) {
    Args a;
    a.frames_dir = std::string(MEEPLECAM_BINARY_DIR) + "/bench/app_session_frames";
    for (int i = 1; i + 1 < argc; i += 2) {
        const std::string k = argv[i], v = argv[i + 1];
        if (k == "--seconds") a.seconds = std::stod(v);
        else if (k == "--fps") a.fps = std::stod(v);
        else if (k == "--move-every") a.move_every = std::stod(v);
        else if (k == "--sample-every") a.sample_every = std::stod(v);
        else if (k == "--frames-dir") a.frames_dir = v;
        else {
            std::cerr << "app_session: unknown argument " << k << "\n";
            return 2;
        }
    }
    if (!std::getenv("QT_QPA_PLATFORM")) setenv("QT_QPA_PLATFORM", "offscreen", 1);
    auto catalog = Catalog::embedded("carcassonne-base");
    RandomGameOptions rgo;
    rgo.seed = 7;
    auto game = play_random_game(std::make_shared<const Catalog>(std::move(catalog.value())), rgo);
    if (!game) {
        std::cerr << game.error().to_string() << "\n";
        return 1;
    }
    std::cout << "rendering " << a.frames << " frames (1920x1080) into " << a.frames_dir << " ...\n" << std::flush;
    if (!render_frames(game.value(), a.frames, a.frames_dir)) return 1;

    QApplication app(argc, argv);
    QStandardPaths::setTestModeEnabled(true);
    ui::LiveWindow window;
    window.resize(1400, 900);
    window.show();
    const QString journal = QDir::tempPath() + "/meeplecam_app_session.journal";
    Record setup = game->record;
    setup.events.resize(1);
    setup.finished = false;

    std::vector<double> frame_latency, analysis_latency;
    QObject::connect(&window.live_view(), &ui::LiveView::frame_shown, &window,
                     [&](std::int64_t, double ms) { frame_latency.push_back(ms); });
    QObject::connect(window.worker(), &ui::MatchWorker::frame_analysed, &window, [&](const ui::FrameReport& r) {
        analysis_latency.push_back(static_cast<double>(ui::steady_now_ns() - r.captured_ns) / 1e6);
    });
    std::size_t next_event = 1;
    int games = 0, moves = 0;
    window.new_match(setup, journal);

    ui::FrameSourceOptions source;
    source.path = a.frames_dir;
    source.fps = a.fps;
    source.loop = true;
    window.start_source(source);

    // Enter the random game's moves one by one; a new match when it is over.
    QTimer mover;
    QObject::connect(&mover, &QTimer::timeout, &window, [&] {
        const Record& r = game->record;
        if (next_event >= r.events.size()) {
            ++games;
            next_event = 1;
            window.new_match(setup, journal);
            return;
        }
        const Event& e = r.events[next_event++];
        if (e.type == "tile") {
            window.set_drawn_tile(QString::fromStdString(e.tile));
            window.place_tile(e.at.x, e.at.y, e.rot);
        } else if (e.type == "meeple") {
            window.place_follower(QString::fromStdString(e.loc));
        } else {
            return;
        }
        ++moves;
    });
    mover.start(static_cast<int>(a.move_every * 1000));

    QElapsedTimer clock;
    clock.start();
    std::vector<std::pair<double, double>> rss;  // (seconds, MB)
    std::size_t last_frames = 0;
    QTimer sampler;
    QObject::connect(&sampler, &QTimer::timeout, &window, [&] {
        const double t = static_cast<double>(clock.elapsed()) / 1000.0;
        rss.emplace_back(t, rss_mb());
        std::printf("t=%7.1fs rss=%7.1f MB frames=%zu (+%zu) median frame->screen=%.1f ms worker=%.1f ms moves=%d games=%d\n", t,
                    rss.back().second, frame_latency.size(), frame_latency.size() - last_frames,
                    percentile(frame_latency, 0.5), percentile(analysis_latency, 0.5), moves, games);
        std::fflush(stdout);
        last_frames = frame_latency.size();
        if (t >= a.seconds) app.quit();
    });
    sampler.start(static_cast<int>(a.sample_every * 1000));
    app.exec();
    window.stop_source();

    std::printf("\nsession %.0f s at %.0f fps (1920x1080 JPEG frames), %d moves, %d games finished\n", a.seconds, a.fps, moves, games);
    std::printf("frames shown: %zu (%.1f per second)\n", frame_latency.size(), static_cast<double>(frame_latency.size()) / a.seconds);
    std::printf("frame->screen latency: median %.1f ms, p90 %.1f ms, max %.1f ms\n", percentile(frame_latency, 0.5),
                percentile(frame_latency, 0.9), percentile(frame_latency, 1.0));
    std::printf("capture->worker done:  median %.1f ms, p90 %.1f ms (%zu frames analysed)\n", percentile(analysis_latency, 0.5),
                percentile(analysis_latency, 0.9), analysis_latency.size());
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
