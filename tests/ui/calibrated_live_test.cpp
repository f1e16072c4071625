// The live match worker with a calibration file: it finds the start tile on the calibrated
// table (the tracker starts), a move put down while it looked is recorded, and it names the
// tile shown in the draw zone (rendered frames, the renderer's true plane as the file's table
// plane).
#include <catch2/catch.hpp>

#include <QSignalSpy>
#include <QTest>

#include <fstream>

#include <nlohmann/json.hpp>
#include <opencv2/imgcodecs.hpp>

#include "engine/journal.h"
#include "engine/record.h"
#include "session/footage.h"
#include "tests/ui/looped_session.h"
#include "tests/ui/qt_app.h"
#include "ui/match_worker.h"
#include "ui/new_game_dialog.h"
#include "vision/table_renderer.h"

using namespace meeplecam;

TEST_CASE("the match worker takes the table from a calibration file and reads the draw zone", "[ui][calibration][draw-zone]") {
    test::qt_app();
    ui::register_meta_types();
    const QString dir = test::fresh_dir("calibrated_live");
    auto setup = ui::make_setup("carcassonne", {}, "C3", {{"Ana", "red"}, {"Ben", "blue"}});
    REQUIRE(setup);
    const auto catalog = catalog_for(setup.value()).value();
    auto options = vision::RenderOptions::for_difficulty(vision::Difficulty::Easy);
    options.width = 1280;
    options.height = 720;
    options.hand_chance = 0;
    options.scene_seed = 8;
    for (int y = -2; y <= 2; ++y) {
        for (int x = -3; x <= 3; ++x) options.layout_cells.push_back({x, y});
    }
    // The start tile on the board, and V shown in the draw zone three cells east (out of the tracker's reach).
    const std::vector<vision::SceneTile> tiles{{catalog->find("D"), {0, 0}, 0}, {catalog->find("V"), {3, 1}, 2}};
    auto r = vision::render_table(tiles, options, 8);
    REQUIRE(r);
    calibration::Calibration cal;
    calibration::TableCalibration table;
    table.source = "tiles";
    table.image_size = r->image.size();
    table.plane.table_to_image = r->truth.table_to_image;
    cal.table = table;
    const cv::Point2d zone_centre = r->truth.tiles[1].centre_mm;

    ui::MatchThread thread;
    ui::MatchWorker* w = thread.worker();
    QSignalSpy found(w, &ui::MatchWorker::table_found);
    QSignalSpy drawn(w, &ui::MatchWorker::drawn_tile_seen);
    QSignalSpy opened(w, &ui::MatchWorker::match_opened);
    QMetaObject::invokeMethod(w, "start_match", Qt::QueuedConnection, Q_ARG(meeplecam::Record, setup.value()), Q_ARG(QString, dir + "/j.journal"));
    QMetaObject::invokeMethod(w, "set_calibration", Qt::QueuedConnection, Q_ARG(meeplecam::calibration::Calibration, cal));
    QMetaObject::invokeMethod(w, "set_draw_zone", Qt::QueuedConnection,
                              Q_ARG(QRectF, QRectF(zone_centre.x - 40, zone_centre.y - 40, 80, 80)));
    REQUIRE(opened.wait(10000));
    // Still frames, 0.6 s apart on the capture clock.
    for (int i = 0; i < 8; ++i) {
        ui::Frame f{r->image, i, 1'000'000'000LL + i * 600'000'000LL};
        QMetaObject::invokeMethod(w, "analyse_frame", Qt::QueuedConnection, Q_ARG(meeplecam::ui::Frame, f));
    }
    REQUIRE((found.size() > 0 || found.wait(20000)));
    // The tracker's frame: the start tile's centre at the origin.
    const auto t = found.first().at(0).value<ui::TableCalibration>();
    std::vector<cv::Point2d> in{r->truth.tiles[0].centre_px}, out;
    cv::perspectiveTransform(in, out, cv::Mat(t.image_to_table_mm));
    CHECK(cv::norm(out[0]) < 2.0);
    REQUIRE((drawn.size() > 0 || drawn.wait(20000)));
    CHECK(drawn.first().at(0).toString() == "V");
    thread.stop();
}

TEST_CASE("a move put down while the start tile is looked for is recorded", "[ui][calibration][tracker]") {
    test::qt_app();
    ui::register_meta_types();
    const QString dir = test::fresh_dir("calibrated_first_move");
    std::ifstream in(std::string(MEEPLECAM_SOURCE_DIR) + "/tests/ui/data/footage-3-events.json");
    auto script = parse_record(nlohmann::json::parse(in), "footage-3-events.json");
    REQUIRE(script);
    session::FootageOptions fo;
    fo.width = 960;
    fo.height = 540;
    const std::string footage = (dir + "/footage").toStdString();
    REQUIRE(session::write_footage(script.value(), fo, footage));
    auto truth = session::read_footage_truth(footage + "/truth.json");
    REQUIRE(truth);
    REQUIRE(truth->frames.front().events_shown == 1);  // the first frame: the start tile alone
    // The frames the worker gets: the first (the start tile is looked for, and found, on it),
    // then the newest frame each time it is free again. A search takes ~0.6 s on 1080p, the
    // footage's first tile comes down within a second: the worker's next frame already shows
    // it lying there, so it is given every frame from the first one showing V on the table.
    std::vector<std::size_t> given{0};
    for (std::size_t i = 1; i < truth->frames.size(); ++i) {
        if (truth->frames[i].events_shown >= 2) given.push_back(i);
    }
    REQUIRE(given.size() > 1);
    REQUIRE(given[1] > 1);  // frames were skipped: the hand putting V down was never seen
    Record setup = script.value();
    setup.events.resize(1);

    ui::MatchThread thread;
    ui::MatchWorker* w = thread.worker();
    QSignalSpy found(w, &ui::MatchWorker::table_found);
    QSignalSpy opened(w, &ui::MatchWorker::match_opened);
    // The worker reports from its own thread: take the reports on this (the GUI) thread, queued,
    // rather than a QSignalSpy, which appends in the emitting thread while this one reads it.
    QObject gui_side;
    std::int64_t last_analysed = -1;
    QObject::connect(
        w, &ui::MatchWorker::frame_analysed, &gui_side, [&last_analysed](const ui::FrameReport& r) { last_analysed = r.index; },
        Qt::QueuedConnection);
    QMetaObject::invokeMethod(w, "set_calibration", Qt::QueuedConnection,
                              Q_ARG(meeplecam::calibration::Calibration, test::footage_calibration(truth->camera.table_to_image, {960, 540})));
    QMetaObject::invokeMethod(w, "start_match", Qt::QueuedConnection, Q_ARG(meeplecam::Record, setup), Q_ARG(QString, dir + "/m.journal"));
    REQUIRE(opened.wait(10000));
    for (std::size_t i : given) {
        const cv::Mat image = cv::imread(footage + "/" + truth->files[i], cv::IMREAD_COLOR);
        REQUIRE_FALSE(image.empty());
        ui::Frame f{image, static_cast<std::int64_t>(i), 1'000'000'000LL + static_cast<std::int64_t>(i) * 100'000'000LL};
        QMetaObject::invokeMethod(w, "analyse_frame", Qt::QueuedConnection, Q_ARG(meeplecam::ui::Frame, f));
    }
    REQUIRE((found.size() > 0 || found.wait(20000)));
    // Every frame analysed: the journal holds what the tracker recorded.
    const auto all_analysed = [&] { return last_analysed == static_cast<std::int64_t>(given.back()); };
    REQUIRE(test::wait_until([&] { return all_analysed(); }, 60000));
    thread.stop();
    auto journal = recover_journal((dir + "/m.journal").toStdString());
    REQUIRE(journal);
    REQUIRE(journal->record.events.size() >= 2);
    CHECK(journal->record.events[1].to_json() == script->events[1].to_json());  // V at [-1, 0], 270°
    CHECK(journal->record.events.size() == script->events.size());
}
