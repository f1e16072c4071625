#include "ui/app_main.h"

#include <QApplication>
#include <QCoreApplication>
#include <QDir>
#include <QElapsedTimer>
#include <QFileInfo>
#include <QMessageBox>
#include <QSettings>
#include <QStandardPaths>
#include <QTimer>

#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <iostream>

#include "engine/journal.h"
#include "engine/record.h"
#include "engine/score_sheet.h"
#include "session/footage.h"
#include "ui/calibration_wizard.h"
#include "vision/image_io.h"
#include "ui/final_score.h"
#include "ui/live_window.h"
#include "ui/new_game_dialog.h"
#include "ui/photo_session.h"
#include "ui/photo_window.h"
#include "ui/review_window.h"
#include "ui/worker_thread.h"

namespace meeplecam::ui {
namespace {

constexpr const char* kHelp = R"(usage: meeplecam app [options]

The desktop assistant.

Live mode (the default): the camera (or a stand-in) on a capture thread, the match on a
worker thread, the board drawn over the frames, scoreboard, moves, scoring, corrections,
undo, export. Every confirmed event is journaled (fsynced) at once; a match left in the
journal is offered for resuming.
  --camera N          read V4L2 camera N (default: camera 0 when /dev/video0 exists)
  --video FILE        read a video file instead
  --images DIR        read an image folder instead (sorted by name)
  --fps F             pace of a video or image folder (default 10)
  --loop              start a video or folder again at its end
  --no-camera         no frames at all: moves entered from the palette only
  --journal FILE      the journal of the live match (default: the app data folder)
  --resume ask|yes|no resume the match left in the journal (default ask)
  --setup FILE        a record whose set-up (and events) start the new match
  --truth-camera F    the table's place in the image (and the set-up) from a render-footage
                      truth.json: the tracker then reads the moves from the frames
  --calibration C     the calibration file (meeplecam calibrate, or Tools > Calibrate): frames
                      are undistorted, and once a frame shows the start tile alone on the
                      calibrated table the tracker reads the moves (default: the file the
                      calibration wizard saved last; --calibration none: no file)
  --draw-zone-mm R    x,y,w,h: a square of the calibrated table (mm from marker 0) where players
                      show the drawn tile; the tile seen there becomes the drawn tile
                      (default: the zone the calibration wizard saved)
  --drawn-tile ID     the drawn tile at start (its legal placements are shown)

Review mode:
  --record FILE       open a match record and step through it (review mode)

Photo mode:
  --photo IMAGE       read a photo of a finished table (board reader, piece detector), show it
                      with what was read drawn over it, correct tiles and followers by clicking
                      the board, and show the final scoring (updated after each correction)
  --players C,C       the player colours in turn order (default: the set-up's players)

All modes:
  --screenshot F.png  render the window offscreen to F.png and exit (docs, tests)
  --screen S          what to render: live, final, new-game, review, photo (default: the mode's window)
  --frames N          with --screenshot: wait until N frames were shown first (default 3)

With no display (no DISPLAY or WAYLAND_DISPLAY, and QT_QPA_PLATFORM unset) the same pipeline
runs headless (capture thread, match worker with the tracker, journal) until the frames end;
an ambiguous move takes the tracker's first candidate; the recorded match and the score sheet
are printed. With --record and no display, the record is replayed and its score sheet printed.
With --photo and no display, the photo is read and the board and its scoring printed (as
`meeplecam score-photo` does).
)";

bool has_display() {
    return std::getenv("DISPLAY") || std::getenv("WAYLAND_DISPLAY") || std::getenv("QT_QPA_PLATFORM");
}

struct AppArgs {
    std::string record;  // review mode when set
    std::optional<FrameSourceOptions> source;
    bool no_camera = false;
    std::string journal;
    std::string resume = "ask";
    std::string setup;
    std::string truth_camera;
    std::string calibration;
    std::string draw_zone;
    std::string drawn_tile;
    std::string photo;    // photo mode when set
    std::string players;  // photo mode: player colours, comma-separated
    std::string screenshot;
    std::string screen;
    int frames = 3;
};

Result<AppArgs> parse_args(const std::vector<std::string>& argv) {
    AppArgs a;
    double fps = 10;
    bool loop = false;
    for (std::size_t i = 0; i < argv.size(); ++i) {
        const std::string& k = argv[i];
        const bool has_value = i + 1 < argv.size();
        auto value = [&]() -> const std::string& { return argv[++i]; };
        if (k == "--loop") {
            loop = true;
        } else if (k == "--no-camera") {
            a.no_camera = true;
        } else if (!has_value) {
            return invalid("app", "unknown or incomplete argument '" + k + "' (see --help)");
        } else if (k == "--record") {
            a.record = value();
        } else if (k == "--camera" || k == "--video" || k == "--images") {
            FrameSourceOptions o;
            if (k == "--camera") {
                o.kind = FrameSourceOptions::Kind::Camera;
                try {
                    o.camera = std::stoi(value());
                } catch (const std::exception&) {
                    return invalid("app: --camera", "'" + argv[i] + "' is not a camera number");
                }
            } else {
                o.kind = k == "--video" ? FrameSourceOptions::Kind::Video : FrameSourceOptions::Kind::Images;
                o.path = value();
            }
            a.source = o;
        } else if (k == "--fps") {
            try {
                fps = std::stod(value());
            } catch (const std::exception&) {
                return invalid("app: --fps", "'" + argv[i] + "' is not a number");
            }
        } else if (k == "--journal") {
            a.journal = value();
        } else if (k == "--resume") {
            a.resume = value();
            if (a.resume != "ask" && a.resume != "yes" && a.resume != "no") return invalid("app: --resume", "expected ask, yes or no");
        } else if (k == "--setup") {
            a.setup = value();
        } else if (k == "--truth-camera") {
            a.truth_camera = value();
        } else if (k == "--calibration") {
            a.calibration = value();
        } else if (k == "--draw-zone-mm") {
            a.draw_zone = value();
        } else if (k == "--drawn-tile") {
            a.drawn_tile = value();
        } else if (k == "--photo") {
            a.photo = value();
        } else if (k == "--players") {
            a.players = value();
        } else if (k == "--screenshot") {
            a.screenshot = value();
        } else if (k == "--screen") {
            a.screen = value();
        } else if (k == "--frames") {
            try {
                a.frames = std::stoi(value());
            } catch (const std::exception&) {
                return invalid("app: --frames", "'" + argv[i] + "' is not a number");
            }
        } else {
            return invalid("app", "unknown argument '" + k + "' (see --help)");
        }
    }
    if (a.source) {
        a.source->fps = fps;
        a.source->loop = loop;
        if (auto st = a.source->check(); !st) return st.error();
    }
    return a;
}

// At the end of the windowed app, off the event loop: waits for the capture, match and photo
// threads the closed windows left finishing (the camera released, the journal closed) before
// the process ends.
struct WorkerThreadsJoined {
    WorkerThreadsJoined() = default;
    WorkerThreadsJoined(const WorkerThreadsJoined&) = delete;
    WorkerThreadsJoined& operator=(const WorkerThreadsJoined&) = delete;
    ~WorkerThreadsJoined() {
        wait_for_stopped_captures();
        wait_for_stopped_workers(30000);  // a photo being read may take seconds
    }
};

// Runs the event loop until `done()` or `timeout_ms` passed; false on timeout.
bool wait_until(const std::function<bool()>& done, int timeout_ms) {
    QElapsedTimer t;
    t.start();
    while (!done()) {
        if (t.elapsed() > timeout_ms) return false;
        QApplication::processEvents(QEventLoop::AllEvents, 20);
    }
    return true;
}

int save_shot(QWidget& w, const std::string& path) {
    // Let the layouts catch up with the texts set last (the status bar's labels grow with them).
    for (int i = 0; i < 3; ++i) QApplication::processEvents();
    if (!w.grab().save(QString::fromStdString(path))) {
        std::cerr << "meeplecam: cannot write " << path << "\n";
        return 2;
    }
    std::cout << "wrote " << path << "\n";
    return 0;
}

int run_review(const AppArgs& a, const std::string& program) {
    auto record = read_record(a.record);
    if (!record) {
        std::cerr << "meeplecam: " << record.error().to_string() << "\n";
        return 2;
    }
    if (!has_display() && a.screenshot.empty()) {
        auto game = replay(record.value());
        if (!game) {
            std::cerr << "meeplecam: " << a.record << ": " << game.error().to_string() << "\n";
            return static_cast<int>(game.error().kind);
        }
        std::cout << "No display: replaying " << a.record << " headless (" << record->events.size() << " events).\n\n"
                  << format_score_sheet(game.value());
        return 0;
    }
    if (!a.screenshot.empty() && !std::getenv("QT_QPA_PLATFORM")) setenv("QT_QPA_PLATFORM", "offscreen", 1);
    int qt_argc = 1;
    std::string name = program;
    char* qt_argv[] = {name.data(), nullptr};
    QApplication app(qt_argc, qt_argv);
    ReviewWindow window;
    if (auto st = window.open_record(QString::fromStdString(a.record)); !st) {
        std::cerr << "meeplecam: " << st.error().to_string() << "\n";
        return static_cast<int>(st.error().kind);
    }
    if (!a.screenshot.empty()) return save_shot(window, a.screenshot);
    window.show();
    return app.exec();
}

// The match set-up: --setup FILE, else the last new game's (QSettings), else two players, base game.
Result<Record> initial_setup(const AppArgs& a) {
    if (!a.setup.empty()) return read_record(a.setup);
    QSettings settings;
    const QString text = settings.value("new-game/record").toString();
    if (!text.isEmpty()) {
        if (auto r = parse_record_text(text.toStdString(), "settings"); r) return r;
    }
    return make_setup("carcassonne", {}, "C3", {{"Ana", "red"}, {"Ben", "blue"}});
}

// Photo mode's set-up: --setup / the last new game's, with --players' colours when given.
Result<Record> photo_setup(const AppArgs& a) {
    auto setup = initial_setup(a);
    if (!setup) return setup.error();
    setup->events.clear();
    setup->finished = false;
    if (a.players.empty()) return setup;
    std::vector<PlayerInfo> players;
    std::string rest = a.players;
    while (!rest.empty()) {
        const auto comma = rest.find(',');
        const std::string c = rest.substr(0, comma);
        if (c.empty()) return invalid("app: --players", "an empty colour in '" + a.players + "'");
        players.push_back(PlayerInfo{c, c});
        rest = comma == std::string::npos ? std::string() : rest.substr(comma + 1);
    }
    return make_setup(setup->game, setup->expansions, setup->edition, players);
}

// Photo mode: the photo window, or with no display the photo's reading and scoring printed.
int run_photo(const AppArgs& a, const std::string& program) {
    if (!a.screenshot.empty() && !std::getenv("QT_QPA_PLATFORM")) setenv("QT_QPA_PLATFORM", "offscreen", 1);
    int qt_argc = 1;
    std::string name = program;
    char* qt_argv[] = {name.data(), nullptr};
    // QSettings (the last new game's set-up) needs the application's names, not a window.
    QCoreApplication::setOrganizationName("meeplecam");
    QCoreApplication::setApplicationName("meeplecam");
    auto setup = photo_setup(a);
    if (!setup) {
        std::cerr << "meeplecam: " << setup.error().to_string() << "\n";
        return 2;
    }
    if (!has_display() && a.screenshot.empty()) {
        auto image = vision::load_image(a.photo);
        if (!image) {
            std::cerr << "meeplecam: " << image.error().to_string() << "\n";
            return 2;
        }
        auto session = PhotoSession::read(image.value(), setup.value());
        if (!session) {
            Error e = session.error();
            e.where = e.where == "photo" ? a.photo : a.photo + ": " + e.where;
            std::cerr << "meeplecam: " << e.to_string() << "\n";
            return 2;
        }
        std::cout << "No display: reading " << a.photo << " headless.\n\n" << session->score_text(a.photo);
        return 0;
    }
    QApplication app(qt_argc, qt_argv);
    const WorkerThreadsJoined joined;  // destroyed after the window, before the application
    PhotoWindow window;
    bool done = false;
    QString refused;
    QObject::connect(&window, &PhotoWindow::photo_shown, &window, [&] { done = true; });
    QObject::connect(&window, &PhotoWindow::refused_shown, &window, [&](QString why) {
        done = true;
        refused = why;
    });
    window.open_photo(QString::fromStdString(a.photo), setup.value());
    if (!a.screenshot.empty()) {
        window.show();
        if (!wait_until([&] { return done; }, 120000) || !refused.isEmpty()) {
            std::cerr << "meeplecam: " << (refused.isEmpty() ? std::string("the photo was not read in time") : refused.toStdString()) << "\n";
            return 2;
        }
        QApplication::processEvents();
        return save_shot(window, a.screenshot);
    }
    window.show();
    return app.exec();
}

struct LiveInputs {
    Record setup;
    std::optional<TableCalibration> table;
    std::optional<calibration::Calibration> calibration;  // the file's, when no --truth-camera gives the table
    QString calibration_path;
    QString calibration_warning;  // the remembered file could not be used (the app goes on without it)
    QRectF draw_zone_mm;          // empty: none
};

// The calibration: --calibration FILE (its errors stop the app), else the file the wizard
// saved last (its errors are a warning), none with --truth-camera or --calibration none.
Status load_live_calibration(const AppArgs& a, LiveInputs& in) {
    if (!a.truth_camera.empty() || a.calibration == "none") return Ok{};
    const QString path = a.calibration.empty() ? remembered_calibration_path() : QString::fromStdString(a.calibration);
    if (path.isEmpty()) return Ok{};
    auto cal = calibration::load_calibration(path.toStdString());
    if (!cal) {
        if (!a.calibration.empty()) return cal.error();
        in.calibration_warning = QString::fromStdString(cal.error().to_string());
        return Ok{};
    }
    if (!cal->table) {
        const std::string why = path.toStdString() + ": the calibration has no table plane, so the camera cannot read moves (calibrate table)";
        if (!a.calibration.empty()) return invalid("app: --calibration", why);
        in.calibration_warning = QString::fromStdString(why);
        return Ok{};
    }
    in.calibration = cal.value();
    in.calibration_path = path;
    if (!a.draw_zone.empty()) {
        auto zone = parse_draw_zone(QString::fromStdString(a.draw_zone), "app: --draw-zone-mm");
        if (!zone) return zone.error();
        in.draw_zone_mm = zone.value();
    } else {
        in.draw_zone_mm = remembered_draw_zone();
    }
    return Ok{};
}

// The set-up and, with --truth-camera, the table's place in the image (the footage's camera).
Result<LiveInputs> live_inputs(const AppArgs& a) {
    LiveInputs in;
    if (!a.truth_camera.empty()) {
        auto truth = session::read_footage_truth(a.truth_camera);
        if (!truth) return truth.error();
        in.table = TableCalibration{truth->camera.image_to_table_mm, truth->camera.tile_mm, truth->camera.gap_mm};
        in.setup = truth->record;
        in.setup.events.resize(1);
        in.setup.finished = false;
        if (a.setup.empty()) return in;
    }
    auto setup = initial_setup(a);
    if (!setup) return setup.error();
    in.setup = std::move(setup.value());
    if (auto st = load_live_calibration(a, in); !st) return st.error();
    return in;
}

QString default_journal(const AppArgs& a) {
    if (!a.journal.empty()) return QString::fromStdString(a.journal);
    const QString dir = QStandardPaths::writableLocation(QStandardPaths::AppDataLocation);
    QDir().mkpath(dir);
    return dir + "/live.journal";
}

// The live pipeline without a window: capture thread -> match worker (tracker, journal) until
// the frames end; prints the recorded match and its score sheet.
int run_headless(const AppArgs& a, const std::string& program) {
    if (!a.source) {
        // No frames to watch: replay the bundled sample match instead (as review mode does headless).
        AppArgs review = a;
        review.record = MEEPLECAM_SAMPLE_RECORD;
        return run_review(review, program);
    }
    int qt_argc = 1;
    std::string name = program;
    char* qt_argv[] = {name.data(), nullptr};
    QCoreApplication app(qt_argc, qt_argv);
    QCoreApplication::setOrganizationName("meeplecam");
    QCoreApplication::setApplicationName("meeplecam");
    register_meta_types();
    auto in = live_inputs(a);
    if (!in) {
        std::cerr << "meeplecam: " << in.error().to_string() << "\n";
        return 2;
    }
    const QString journal = default_journal(a);
    MatchThread match;
    MatchWorker* w = match.worker();
    FrameSourceOptions source = *a.source;
    source.loop = false;
    CaptureThread capture(source);
    Record recorded = in->setup;
    bool ended = false;
    int frames = 0, analysed = 0, ambiguous = 0;
    std::vector<double> latency;
    QObject::connect(capture.source(), &FrameSource::frame_ready, w, &MatchWorker::analyse_frame, Qt::QueuedConnection);
    QObject::connect(capture.source(), &FrameSource::state_changed, &app, [&](FrameSource::State s, const QString& message) {
        std::cout << message.toStdString() << "\n";
        if (s == FrameSource::State::Ended) QMetaObject::invokeMethod(w, "finish", Qt::QueuedConnection);
    });
    QObject::connect(w, &MatchWorker::frame_analysed, &app, [&](const FrameReport& r) {
        ++frames;
        analysed += r.analysed;
        latency.push_back(static_cast<double>(steady_now_ns() - r.captured_ns) / 1e6);
        if (!r.illegal.isEmpty()) std::cout << "frame " << r.index << ": illegal move: " << r.illegal.toStdString() << "\n";
        if (!r.ambiguity.empty() && r.analysed) {
            ++ambiguous;  // the worker took the first candidate already (set_auto_choose)
            std::cout << "frame " << r.index << ": ambiguous (" << r.ambiguity.size() << " candidates); headless: took the first\n";
        }
    });
    QObject::connect(w, &MatchWorker::match_changed, &app, [&](const Record& r, const QString& what) {
        recorded = r;
        std::cout << what.toStdString() << "\n";
        if (r.finished) {
            ended = true;
            app.quit();
        }
    });
    QObject::connect(w, &MatchWorker::refused, &app, [&](const QString& why) { std::cerr << "meeplecam: " << why.toStdString() << "\n"; });
    QObject::connect(w, &MatchWorker::previous_match_kept, &app, [&](const QString& path, int events) {
        std::cout << "the unfinished match of " << events << " events journaled there before is kept in " << path.toStdString() << "\n";
    });
    QObject::connect(w, &MatchWorker::match_opened, &app, [&](const Record& r, const QString&, const QStringList&) {
        recorded = r;
        capture.start();
    });
    w->set_auto_choose(true);  // before the worker sees any frame
    if (in->table) QMetaObject::invokeMethod(w, "set_table", Qt::QueuedConnection, Q_ARG(meeplecam::ui::TableCalibration, *in->table));
    if (in->calibration) {
        QMetaObject::invokeMethod(w, "set_calibration", Qt::QueuedConnection, Q_ARG(meeplecam::calibration::Calibration, *in->calibration));
        QMetaObject::invokeMethod(w, "set_draw_zone", Qt::QueuedConnection, Q_ARG(QRectF, in->draw_zone_mm));
        std::cout << "calibration " << in->calibration_path.toStdString() << ": waiting for a frame with the start tile alone on the table\n";
    }
    if (!in->calibration_warning.isEmpty()) std::cerr << "meeplecam: warning: " << in->calibration_warning.toStdString() << "\n";
    QObject::connect(w, &MatchWorker::table_found, &app, [&](const TableCalibration&, const QString& what) { std::cout << what.toStdString() << "\n"; });
    QObject::connect(w, &MatchWorker::drawn_tile_seen, &app, [&](const QString& tile, double confidence) {
        if (!tile.isEmpty()) std::cout << "draw zone: " << tile.toStdString() << " (" << std::lround(confidence * 100) << " %)\n";
    });
    QMetaObject::invokeMethod(w, "start_match", Qt::QueuedConnection, Q_ARG(meeplecam::Record, in->setup), Q_ARG(QString, journal));
    std::cout << "No display: running the live pipeline headless on " << source.describe().toStdString()
              << (in->table || in->calibration ? "" : " (no table calibration: nothing can be read from the frames)") << "\n";
    app.exec();
    capture.stop();
    wait_for_stopped_captures();  // headless, after the event loop: the camera is released before the process ends
    match.stop();
    wait_for_stopped_workers();   // and the journal closed
    if (!ended) std::cerr << "meeplecam: the match did not finish\n";
    std::cout << "\nrecorded match (" << recorded.events.size() << " events, journal " << journal.toStdString() << "):\n";
    for (std::size_t i = 0; i < recorded.events.size(); ++i) std::cout << "  " << i << ": " << recorded.events[i].to_json().dump() << "\n";
    auto game = replay(recorded);
    if (!game) {
        std::cerr << "meeplecam: " << game.error().to_string() << "\n";
        return 1;
    }
    std::sort(latency.begin(), latency.end());
    std::cout << format_score_sheet(game.value()) << "frames analysed " << frames << " (settled reads " << analysed << ", ambiguous "
              << ambiguous << "); capture -> tracker done median " << (latency.empty() ? 0 : latency[latency.size() / 2]) << " ms\n";
    return ended ? 0 : 1;
}

int run_live(const AppArgs& a, const std::string& program) {
    if (!a.screenshot.empty() && !std::getenv("QT_QPA_PLATFORM")) setenv("QT_QPA_PLATFORM", "offscreen", 1);
    int qt_argc = 1;
    std::string name = program;
    char* qt_argv[] = {name.data(), nullptr};
    QApplication app(qt_argc, qt_argv);
    QApplication::setOrganizationName("meeplecam");
    QApplication::setApplicationName("meeplecam");
    const WorkerThreadsJoined joined;  // destroyed after the window, before the application

    const QString journal = default_journal(a);
    auto in = live_inputs(a);
    if (!in) {
        std::cerr << "meeplecam: " << in.error().to_string() << "\n";
        return 2;
    }

    LiveWindow window;
    if (in->table) window.set_table_calibration(*in->table);
    if (in->calibration) {
        window.set_calibration(*in->calibration, in->calibration_path);
        QMetaObject::invokeMethod(window.worker(), "set_draw_zone", Qt::QueuedConnection, Q_ARG(QRectF, in->draw_zone_mm));
    }
    if (!in->calibration_warning.isEmpty()) std::cerr << "meeplecam: warning: " << in->calibration_warning.toStdString() << "\n";
    // Resume the match in the journal when there is one worth resuming.
    bool resume = false;
    if (a.resume != "no" && QFileInfo::exists(journal)) {
        auto previous = recover_journal(journal.toStdString());
        if (previous && !previous->record.finished && previous->record.events.size() > 1) {
            resume = a.resume == "yes" ||
                     QMessageBox::question(nullptr, QObject::tr("Resume the match?"),
                                           QObject::tr("A match of %1 events was left in %2%3.\nResume it?")
                                               .arg(previous->record.events.size())
                                               .arg(journal)
                                               .arg(previous->problems.empty() ? QString() : QObject::tr(" (its end was damaged)"))) ==
                         QMessageBox::Yes;
        }
    }
    bool opened = false;
    QObject::connect(&window, &LiveWindow::match_ready, &window, [&](QStringList lost) {
        opened = true;
        for (const QString& l : lost) std::cerr << "meeplecam: journal: " << l.toStdString() << "\n";
    });
    if (resume) {
        window.resume_match(journal);
    } else {
        window.new_match(in->setup, journal);
    }
    if (!a.no_camera) {
        if (a.source) {
            window.start_source(*a.source);
        } else if (std::filesystem::exists("/dev/video0")) {
            FrameSourceOptions cam;
            cam.kind = FrameSourceOptions::Kind::Camera;
            window.start_source(cam);
        }
    }
    if (!wait_until([&] { return opened; }, 10000)) {
        std::cerr << "meeplecam: the match did not open (journal " << journal.toStdString() << ")\n";
        return 2;
    }
    if (!a.drawn_tile.empty()) window.set_drawn_tile(QString::fromStdString(a.drawn_tile));
    if (!a.screenshot.empty()) {
        window.resize(1400, 900);
        window.show();
        if (a.source) wait_until([&] { return window.live_view().shown_index() + 1 >= a.frames; }, 20000);
        // With a calibration the start tile is looked for on the worker (2 s for the first search
        // at load ~12): the picture shows the board drawn over the frame once it is found.
        if (a.source && in->calibration && !in->table) wait_until([&] { return window.table_known(); }, 30000);
        QApplication::processEvents();
        if (a.screen == "final") {
            window.show_final_score();
            return save_shot(*window.final_score_dialog(), a.screenshot);
        }
        if (a.screen == "camera-lost" && a.source) {
            // The camera goes away under the running app: its source is reopened on a path that is not there.
            FrameSourceOptions gone = *a.source;
            gone.path += "/unplugged";
            gone.kind = FrameSourceOptions::Kind::Images;
            window.start_source(gone);
            wait_until([&] { return !window.live_view().banner().isEmpty(); }, 10000);
            QApplication::processEvents();
            return save_shot(window, a.screenshot);
        }
        if (a.screen == "new-game") {
            NewGameDialog dialog;
            dialog.set_setup(window.record());
            dialog.resize(520, 560);
            return save_shot(dialog, a.screenshot);
        }
        return save_shot(window, a.screenshot);
    }
    window.show();
    // A live camera with nothing telling where the table is: offer the calibration wizard.
    const bool camera = !a.no_camera && (a.source ? a.source->kind == FrameSourceOptions::Kind::Camera : std::filesystem::exists("/dev/video0"));
    if (camera && !in->table && !in->calibration) {
        QTimer::singleShot(0, &window, [&window, warning = in->calibration_warning] {
            const QString text = QObject::tr("The camera cannot read moves until the camera and the table are calibrated%1.\n"
                                             "Calibrate now? (Tools > Calibrate camera and table, any time)")
                                     .arg(warning.isEmpty() ? QString() : QObject::tr(" (%1)").arg(warning));
            if (QMessageBox::question(&window, QObject::tr("Calibrate?"), text) == QMessageBox::Yes) window.open_calibration_wizard();
        });
    }
    return app.exec();  // then the window closes without waiting, and `joined` waits for its threads
}

}  // namespace

int run_app(const std::string& program, const std::vector<std::string>& argv) {
    for (const auto& arg : argv) {
        if (arg == "--help") {
            std::cout << kHelp;
            return 0;
        }
    }
    auto args = parse_args(argv);
    if (!args) {
        std::cerr << "meeplecam: " << args.error().to_string() << "\n";
        return 2;
    }
    if (!args->photo.empty() || args->screen == "photo") {
        if (args->photo.empty()) {
            std::cerr << "meeplecam: app: --screen photo needs --photo IMAGE\n";
            return 2;
        }
        return run_photo(args.value(), program);
    }
    if (!args->record.empty() || args->screen == "review") {
        if (args->record.empty()) args->record = MEEPLECAM_SAMPLE_RECORD;
        return run_review(args.value(), program);
    }
    if (!has_display() && args->screenshot.empty()) return run_headless(args.value(), program);
    return run_live(args.value(), program);
}

}  // namespace meeplecam::ui
