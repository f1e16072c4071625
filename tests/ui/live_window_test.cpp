// The live window, offscreen: moves from the palette with legal placements shown, the
// correction flow by clicking, resuming after a crash, a camera that disappears, a corrupt
// journal, an illegal move.
#include <catch2/catch.hpp>

#include <QAction>
#include <QDir>
#include <QElapsedTimer>
#include <QListWidget>
#include <QScrollBar>
#include <QFile>
#include <QMenu>
#include <QPointer>
#include <QSignalSpy>
#include <QTableWidget>
#include <QTest>
#include <QThread>

#include <atomic>
#include <fstream>
#include <memory>
#include <optional>

#include <nlohmann/json.hpp>
#include <opencv2/imgcodecs.hpp>

#include "engine/journal.h"
#include "engine/ports.h"
#include "session/footage.h"
#include "tests/ui/qt_app.h"
#include "ui/board_view.h"
#include "ui/final_score.h"
#include "ui/live_window.h"
#include "ui/score_chart.h"
#include "ui/score_table_model.h"
#include "ui/worker_thread.h"

using namespace meeplecam;

namespace {

Record golden(const char* name) {
    std::ifstream in(std::string(MEEPLECAM_SOURCE_DIR) + "/tests/golden/" + name);
    auto r = parse_record(nlohmann::json::parse(in).at("record"), name);
    REQUIRE(r);
    return r.value();
}

Record prefix(const Record& r, std::size_t events) {
    Record out = r;
    out.events.resize(events);
    out.finished = false;
    return out;
}

bool same_events(const Record& a, const Record& b) {
    if (a.events.size() != b.events.size()) return false;
    for (std::size_t i = 0; i < a.events.size(); ++i) {
        if (a.events[i].to_json() != b.events[i].to_json()) return false;
    }
    return true;
}

int score_of(const ui::ScoreTableModel& m, int row) { return m.data(m.index(row, ui::ScoreTableModel::Score)).toInt(); }

// Opens a match in `w` and waits until the window shows it.
void open_match(ui::LiveWindow& w, const Record& setup, const QString& journal) {
    QSignalSpy ready(&w, &ui::LiveWindow::match_ready);
    w.new_match(setup, journal);
    REQUIRE(ready.wait(5000));
}

// Plays record events [from, to) through the window as a player would: the drawn tile picked
// in the palette and placed, followers from the follower list; waits for each to show.
void play_through_window(ui::LiveWindow& w, const Record& r, std::size_t from, std::size_t to) {
    for (std::size_t i = from; i < to; ++i) {
        const Event& e = r.events[i];
        QSignalSpy shown(&w, &ui::LiveWindow::record_shown);
        if (e.type == "tile") {
            w.set_drawn_tile(QString::fromStdString(e.tile));
            // The legal placements of the drawn tile are marked on the board, this cell among them.
            const auto& markers = w.board_view().picture().markers;
            CHECK(std::any_of(markers.begin(), markers.end(), [&](const ui::PictureMarker& m) { return m.x == e.at.x && m.y == e.at.y; }));
            w.place_tile(e.at.x, e.at.y, e.rot);
        } else {
            REQUIRE(e.type == "meeple");
            w.place_follower(QString::fromStdString(e.loc));
        }
        REQUIRE(shown.wait(5000));
    }
}

// Asks the window for the correction choices at (x, y) and waits until they arrive from the worker.
ui::CorrectionChoices choices_at(ui::LiveWindow& w, int x, int y, bool follower) {
    QSignalSpy shown(&w, &ui::LiveWindow::choices_shown);
    w.request_choices(x, y, follower);
    REQUIRE(shown.wait(20000));
    return w.last_choices();
}

// Counts pixels of `image` close to `colour` (each channel within `tolerance`).
int count_near(const QImage& image, QColor colour, int tolerance) {
    int n = 0;
    for (int y = 0; y < image.height(); y += 2) {
        for (int x = 0; x < image.width(); x += 2) {
            const QColor c = image.pixelColor(x, y);
            n += std::abs(c.red() - colour.red()) <= tolerance && std::abs(c.green() - colour.green()) <= tolerance &&
                 std::abs(c.blue() - colour.blue()) <= tolerance;
        }
    }
    return n;
}

// The three-event script of tests/ui/data rendered as 960x540 footage into DIR/footage, with
// the footage's truth (its camera gives the live window the table).
struct ThreeEventFootage {
    Record script;
    session::FootageTruth truth;
};

ThreeEventFootage render_three_event_footage(const QString& dir) {
    std::ifstream in(std::string(MEEPLECAM_SOURCE_DIR) + "/tests/ui/data/footage-3-events.json");
    auto script = parse_record(nlohmann::json::parse(in), "footage-3-events.json");
    REQUIRE(script);
    session::FootageOptions fo;
    fo.width = 960;
    fo.height = 540;
    REQUIRE(session::write_footage(script.value(), fo, (dir + "/footage").toStdString()));
    auto truth = session::read_footage_truth((dir + "/footage/truth.json").toStdString());
    REQUIRE(truth);
    return {std::move(script.value()), std::move(truth.value())};
}

// Shows `w`, gives it the footage's table, opens the match at the start tile (journaled in
// DIR/m.journal) and plays the footage frame by frame: the next frame is sent once the
// tracker has analysed the last one, so no still frame is skipped however slow the machine
// (a timer-paced source skips frames under sanitizers on a loaded machine, and the last
// move's still frames may all be skipped).
void play_three_event_footage(ui::LiveWindow& w, const QString& dir, const ThreeEventFootage& footage) {
    w.resize(1400, 900);
    w.show();
    const auto& camera = footage.truth.camera;
    w.set_table_calibration({camera.image_to_table_mm, camera.tile_mm, camera.gap_mm});
    open_match(w, prefix(footage.script, 1), dir + "/m.journal");
    ui::FrameSourceOptions source;
    source.path = (dir + "/footage").toStdString();
    source.fps = 5;  // session time: each frame stands for 0.2 s
    source.on_request = true;
    QObject::connect(w.worker(), &ui::MatchWorker::frame_analysed, &w, [&w](const ui::FrameReport&) {
        if (ui::FrameSource* src = w.frame_source()) QMetaObject::invokeMethod(src, &ui::FrameSource::next_frame, Qt::QueuedConnection);
    });
    w.start_source(source);
    QMetaObject::invokeMethod(w.frame_source(), &ui::FrameSource::next_frame, Qt::QueuedConnection);
}

}  // namespace

TEST_CASE("a whole game played in the live window reaches the hand-checked score", "[ui][live]") {
    test::qt_app();
    const Record full = golden("15_long_mixed_game.json");
    const QString dir = test::fresh_dir("live_whole_game");
    ui::LiveWindow w;
    w.resize(1400, 900);
    w.show();
    open_match(w, prefix(full, 1), dir + "/match.journal");
    play_through_window(w, full, 1, full.events.size());
    CHECK(same_events(w.record(), full));
    // Before the end: the scoreboard counts the turns' scores (red 14 + 4 + 4, blue 5 + 3 + 2).
    CHECK(score_of(w.scoreboard(), 0) == 22);
    CHECK(score_of(w.scoreboard(), 1) == 10);
    QSignalSpy shown(&w, &ui::LiveWindow::record_shown);
    w.finish_game();
    REQUIRE(shown.wait(5000));
    CHECK(score_of(w.scoreboard(), 0) == 31);
    CHECK(score_of(w.scoreboard(), 1) == 37);
    CHECK(w.score_lines().size() == 12);
    // The final-score screen: per player breakdown and totals, the chart ending at them.
    ui::FinalScoreDialog* final_screen = w.final_score_dialog();
    REQUIRE(final_screen);
    CHECK(final_screen->isVisible());
    const QTableWidget& t = final_screen->table();
    REQUIRE(t.rowCount() == 2);
    CHECK(t.item(0, t.columnCount() - 1)->text() == "31");
    CHECK(t.item(1, t.columnCount() - 1)->text() == "37");
    CHECK(final_screen->chart().series()[1].scores.back() == 37);
    // The journal on disk holds the finished match.
    auto on_disk = recover_journal((dir + "/match.journal").toStdString());
    REQUIRE(on_disk);
    CHECK(on_disk->record.finished);
    CHECK(same_events(on_disk->record, full));
    // Export writes the record atomically; importing it gives the same game.
    QSignalSpy exported(w.worker(), &ui::MatchWorker::exported);
    w.export_record(dir + "/export.json");
    REQUIRE(exported.wait(5000));
    auto back = read_record((dir + "/export.json").toStdString());
    REQUIRE(back);
    CHECK(back->finished);
    CHECK(same_events(back.value(), full));
}

TEST_CASE("the drawn tile's legal placements are drawn on the board", "[ui][live]") {
    test::qt_app();
    const Record full = golden("15_long_mixed_game.json");
    ui::LiveWindow w;
    w.resize(1400, 900);
    w.show();
    open_match(w, prefix(full, 5), test::fresh_dir("live_markers") + "/m.journal");
    const QImage before = const_cast<ui::BoardView&>(w.board_view()).grab().toImage();
    w.set_drawn_tile("V");
    const QImage after = const_cast<ui::BoardView&>(w.board_view()).grab().toImage();
    const auto& markers = w.board_view().picture().markers;
    // V (a curve) fits in many open cells; every marker lists its rotations.
    CHECK(markers.size() >= 5);
    // The translucent green squares show up: the marker fill over the table colour,
    // (60, 220, 60) at 35 % over (196, 170, 130), absent before.
    const QColor fill(148, 188, 105);
    CHECK(count_near(before, fill, 8) < 50);
    CHECK(count_near(after, fill, 8) > 2000);
}

TEST_CASE("correction flow: click a tile, pick another type / click a follower, remove it", "[ui][live][correction]") {
    test::qt_app();
    const Record full = golden("15_long_mixed_game.json");
    const QString dir = test::fresh_dir("live_correction");
    ui::LiveWindow w;
    w.resize(1400, 900);
    w.show();
    REQUIRE(QTest::qWaitForWindowExposed(&w));
    open_match(w, prefix(full, 1), dir + "/m.journal");
    play_through_window(w, full, 1, 5);

    // The choices for red's Q at [0, -1]: other rotations of Q first (the type read), then R.
    const auto choices = choices_at(w, 0, -1, false).tiles;
    REQUIRE_FALSE(choices.empty());
    CHECK(choices.front().tile == "Q");
    auto r180 = std::find_if(choices.begin(), choices.end(), [](const ui::TileChoice& c) { return c.tile == "R" && c.rot == 2; });
    REQUIRE(r180 != choices.end());
    // No choice breaks the rules: each one replays.
    for (const auto& c : choices) CHECK(c.tile != "B");

    // Click on the tile (away from the follower): a menu of choices pops up without blocking.
    const QRectF cell = w.board_view().cell_rect(0, -1);
    REQUIRE_FALSE(cell.isEmpty());
    QTest::mouseClick(const_cast<ui::BoardView*>(&w.board_view()), Qt::LeftButton, {},
                      QPoint(static_cast<int>(cell.left() + cell.width() * 0.5), static_cast<int>(cell.top() + cell.height() * 0.2)));
    QMenu* menu = nullptr;
    REQUIRE(test::wait_until([&] { return (menu = w.findChild<QMenu*>()) != nullptr; }, 2000));
    // It fills when the choices come from the match worker.
    const auto offers_r180 = [menu] {
        const QList<QAction*> actions = menu->actions();
        return std::any_of(actions.begin(), actions.end(), [](QAction* a) { return a->text().startsWith("R 180°"); });
    };
    REQUIRE(test::wait_until([&] { return offers_r180(); }, 20000));
    QAction* pick = nullptr;
    for (QAction* a : menu->actions()) {
        if (a->text().startsWith("R 180°")) pick = a;
    }
    REQUIRE(pick);
    QSignalSpy shown(&w, &ui::LiveWindow::record_shown);
    pick->trigger();
    menu->close();
    REQUIRE(shown.wait(5000));
    CHECK(w.record().events[1].tile == "R");
    CHECK(w.record().events[1].rot == 2);
    // The record keeps the correction as an event, and the move list shows it as one line.
    REQUIRE(w.record().events.size() == 6);
    CHECK(w.record().events[5].type == "correction");
    CHECK(w.move_lines().last() == "5.    correction of event 1 (tile at [0, -1]): Q 180° -> R 180° by the players");
    // The correction is in the journal at once.
    CHECK(recover_journal((dir + "/m.journal").toStdString())->record.events[1].tile == "R");

    // The follower on blue's V at [1, 0]: remove it (the last choice).
    const auto pieces = choices_at(w, 1, 0, true).pieces;
    REQUIRE_FALSE(pieces.empty());
    CHECK(pieces.back().colour.empty());
    w.correct_piece(1, 0, pieces.back());
    REQUIRE(shown.wait(5000));
    CHECK(w.record().events.size() == 6);  // the follower's event gone, its correction added
    CHECK(w.open_game()->followers_left(1) == 7);
    CHECK(same_events(recover_journal((dir + "/m.journal").toStdString())->record, w.record()));

    // Undo the last move (blue's V).
    w.undo_last_move();
    REQUIRE(shown.wait(5000));
    REQUIRE(w.record().events.size() == 4);  // D, R, red's follower, and the correction of R (the V's went with it)
    CHECK(w.record().events[3].type == "correction");
}

TEST_CASE("an illegal move is shown with the rule it breaks and not recorded", "[ui][live]") {
    test::qt_app();
    const Record full = golden("15_long_mixed_game.json");
    ui::LiveWindow w;
    w.resize(1400, 900);
    w.show();
    open_match(w, prefix(full, 3), test::fresh_dir("live_illegal") + "/m.journal");
    QSignalSpy refused(&w, &ui::LiveWindow::refused_shown);
    w.set_drawn_tile("E");  // a city cap
    w.place_tile(1, 0, 0);  // its N city side would face nothing, its W field faces D's road
    REQUIRE(refused.wait(5000));
    const QString why = refused.first().at(0).toString();
    CHECK(why.contains("road"));
    CHECK(w.panel_text().contains("Not recorded"));
    CHECK(w.record().events.size() == 3);
}

TEST_CASE("reopening after a crash mid-game resumes with nothing lost", "[ui][live][journal]") {
    test::qt_app();
    const Record full = golden("15_long_mixed_game.json");
    const QString dir = test::fresh_dir("live_crash");
    const QString crashed = dir + "/crashed.journal";
    {
        ui::LiveWindow first;
        first.show();
        open_match(first, prefix(full, 1), dir + "/m.journal");
        play_through_window(first, full, 1, 16);
        // The crash: the journal is taken as it is on disk while the app still runs.
        REQUIRE(QFile::copy(dir + "/m.journal", crashed));
    }
    ui::LiveWindow second;
    second.show();
    QSignalSpy ready(&second, &ui::LiveWindow::match_ready);
    second.resume_match(crashed);
    REQUIRE(ready.wait(5000));
    CHECK(ready.first().at(0).toStringList().isEmpty());  // nothing lost
    CHECK(same_events(second.record(), prefix(full, 16)));
    play_through_window(second, full, 16, full.events.size());
    QSignalSpy shown(&second, &ui::LiveWindow::record_shown);
    second.finish_game();
    REQUIRE(shown.wait(5000));
    CHECK(score_of(second.scoreboard(), 0) == 31);
    CHECK(score_of(second.scoreboard(), 1) == 37);
}

// Whether the last row of `list` shows (at least its upper half) and the list is scrolled to its end.
bool last_row_visible(const QListWidget& list) {
    if (list.count() == 0) return false;
    const QRect row = list.visualItemRect(list.item(list.count() - 1));
    const QScrollBar* bar = list.verticalScrollBar();
    return row.isValid() && row.top() >= 0 && row.top() + row.height() / 2 < list.viewport()->height() && bar->value() == bar->maximum();
}

TEST_CASE("a resumed match's move list shows its last move, shown before or after the resume", "[ui][live][journal]") {
    test::qt_app();
    const Record full = golden("15_long_mixed_game.json");
    const QString dir = test::fresh_dir("live_scroll");
    {
        ui::LiveWindow first;
        first.show();
        open_match(first, prefix(full, 1), dir + "/m.journal");
        play_through_window(first, full, 1, full.events.size() - 1);
    }
    for (const bool show_first : {true, false}) {
        INFO((show_first ? "shown, then resumed" : "resumed, then shown"));
        ui::LiveWindow w;
        w.resize(1000, 640);
        if (show_first) w.show();
        QSignalSpy ready(&w, &ui::LiveWindow::match_ready);
        w.resume_match(dir + "/m.journal");
        REQUIRE(ready.wait(5000));
        if (!show_first) w.show();
        auto* moves = w.findChild<QListWidget*>("moves");
        REQUIRE(moves != nullptr);
        REQUIRE(moves->count() == static_cast<int>(full.events.size()) - 1);
        // More moves than rows: the list scrolls, and must end at the last move.
        REQUIRE(test::wait_until([&] { return moves->verticalScrollBar()->maximum() > 0; }, 2000));
        const bool visible = test::wait_until([&] { return last_row_visible(*moves); }, 2000);
        INFO("last row " << moves->visualItemRect(moves->item(moves->count() - 1)).top() << ".."
                         << moves->visualItemRect(moves->item(moves->count() - 1)).bottom() << ", viewport height "
                         << moves->viewport()->height() << ", scroll " << moves->verticalScrollBar()->value() << " of "
                         << moves->verticalScrollBar()->maximum());
        CHECK(visible);
    }
}

TEST_CASE("a corrupt journal is resumed with every intact event and the loss is shown", "[ui][live][journal]") {
    test::qt_app();
    const Record full = golden("15_long_mixed_game.json");
    const QString dir = test::fresh_dir("live_corrupt");
    const std::string path = (dir + "/m.journal").toStdString();
    {
        auto writer = JournalWriter::create(path, prefix(full, 10));
        REQUIRE(writer);
    }
    // A torn tail: the last line is cut in the middle (power lost while writing).
    std::string text;
    {
        std::ifstream in(path, std::ios::binary);
        text.assign(std::istreambuf_iterator<char>(in), {});
    }
    text.resize(text.size() - 20);
    std::ofstream(path, std::ios::binary | std::ios::trunc) << text;

    ui::LiveWindow w;
    w.resize(1400, 900);
    w.show();
    QSignalSpy ready(&w, &ui::LiveWindow::match_ready);
    w.resume_match(dir + "/m.journal");
    REQUIRE(ready.wait(5000));
    const QStringList lost = ready.first().at(0).toStringList();
    REQUIRE(lost.size() == 1);
    CHECK(lost.front().contains("line 11"));
    CHECK(same_events(w.record(), prefix(full, 9)));
    CHECK(w.panel_text().contains("Recovered 9 events"));
    // The screen says it: the panel is on screen, in its alarm colour.
    const QImage shot = w.grab().toImage();
    CHECK(count_near(shot, QColor(0xff, 0xe0, 0xe0), 6) > 200);
}

TEST_CASE("the camera disappears mid-game: the match is kept, the view says so, and it reconnects", "[ui][live][capture]") {
    test::qt_app();
    const Record full = golden("15_long_mixed_game.json");
    const QString dir = test::fresh_dir("live_camera_lost");
    const QString frames = dir + "/camera";
    QDir().mkpath(frames);
    for (int i = 0; i < 400; ++i) {
        cv::Mat img(180, 320, CV_8UC3, cv::Scalar(40, 120 + (i % 50), 40));
        cv::imwrite(QString("%1/f%2.png").arg(frames).arg(i, 4, 10, QChar('0')).toStdString(), img);
    }
    ui::LiveWindow w;
    w.resize(1400, 900);
    w.show();
    REQUIRE(QTest::qWaitForWindowExposed(&w));
    open_match(w, prefix(full, 1), dir + "/m.journal");
    ui::FrameSourceOptions source;
    source.path = frames.toStdString();
    source.fps = 40;
    source.reconnect_ms = 50;
    source.lost_after_failures = 1;
    w.start_source(source);
    REQUIRE(test::wait_until([&] { return w.live_view().shown_index() >= 5; }, 5000));
    play_through_window(w, full, 1, 5);

    REQUIRE(QDir().rename(frames, frames + "_unplugged"));
    REQUIRE(test::wait_until([&] { return w.source_status().contains("camera lost — reconnecting"); }, 5000));
    CHECK(w.live_view().banner().contains("camera lost — reconnecting"));
    const QImage lost_shot = const_cast<ui::LiveView&>(w.live_view()).grab().toImage();
    CHECK(count_near(lost_shot, QColor(180, 0, 0), 60) > 300);  // the red banner
    // The match goes on while the camera is away.
    play_through_window(w, full, 5, 7);
    CHECK(w.record().events.size() == 7);

    const auto shown_before = w.live_view().shown_index();
    REQUIRE(QDir().rename(frames + "_unplugged", frames));
    REQUIRE(test::wait_until([&] { return w.live_view().shown_index() > shown_before + 3; }, 5000));
    CHECK(w.live_view().banner().isEmpty());
    CHECK(w.source_status().contains("back"));
    CHECK(same_events(w.record(), prefix(full, 7)));
    CHECK(w.fps() > 0);
    w.stop_source();
}

TEST_CASE("the tracker reads the moves from the camera frames into the live window and the journal", "[ui][live][tracker]") {
    test::qt_app();
    const QString dir = test::fresh_dir("live_tracker");
    const ThreeEventFootage footage = render_three_event_footage(dir);
    const Record& script = footage.script;

    ui::LiveWindow w;
    play_three_event_footage(w, dir, footage);
    REQUIRE(test::wait_until([&] { return w.record().events.size() == 3; }, 240000));  // minutes under sanitizers on a loaded machine
    CHECK(same_events(w.record(), script));
    CHECK(same_events(recover_journal((dir + "/m.journal").toStdString())->record, script));
    // The overlay is on the frame: the tile labels of the live view name the tiles seen.
    const auto& tiles = w.board_view().picture().tiles;
    REQUIRE(tiles.size() == 2);
    CHECK(tiles[1].label == "V 270");
    CHECK(w.median_analysis_latency_ms() > 0);
    w.stop_source();

    // The correction menu of the tile the camera read ranks by the classifier's likelihood: the
    // tile read is the likeliest, so the first choice is its runner-up among those that fit.
    const auto odds = w.likelihoods().find(Cell{-1, 0});
    REQUIRE(odds != w.likelihoods().end());
    REQUIRE(odds->second.size() >= 2);
    CHECK(odds->second.front().tile == "V");
    CHECK(odds->second.front().rot == 3);
    const auto choices = choices_at(w, -1, 0, false).tiles;
    REQUIRE_FALSE(choices.empty());
    std::optional<ui::TileOdds> runner_up;  // a copy: the window's likelihoods are replaced after each change
    for (std::size_t i = 1; i < odds->second.size() && !runner_up; ++i) {
        for (const auto& c : choices) {
            if (c.tile == odds->second[i].tile && c.rot == odds->second[i].rot) runner_up = odds->second[i];
        }
    }
    REQUIRE(runner_up);
    CHECK(choices.front().tile == runner_up->tile);
    CHECK(choices.front().rot == runner_up->rot);
    CHECK(choices.front().likelihood == Approx(runner_up->share));
    CHECK(choices.front().label.endsWith("%"));

    // Picking it records a correction event (through the tracker), journaled at once.
    QSignalSpy shown(&w, &ui::LiveWindow::record_shown);
    w.correct_tile(-1, 0, choices.front());
    REQUIRE(shown.wait(10000));
    REQUIRE(w.record().events.size() == 4);
    const nlohmann::json correction = w.record().events[3].to_json();
    CHECK(correction["type"] == "correction");
    CHECK(correction["event"] == 1);
    CHECK(correction["was"] == nlohmann::json({{"tile", "V"}, {"rot", 270}}));
    CHECK(correction["now"] == nlohmann::json({{"tile", runner_up->tile}, {"rot", runner_up->rot * 90}}));
    CHECK(correction["by"] == "players");
    CHECK(same_events(recover_journal((dir + "/m.journal").toStdString())->record, w.record()));
}

TEST_CASE("the follower menu ranks owners and features by what the tracker saw", "[ui][live][tracker][correction]") {
    test::qt_app();
    const QString dir = test::fresh_dir("live_tracker_follower");
    const ThreeEventFootage footage = render_three_event_footage(dir);
    const Record& script = footage.script;
    ui::LiveWindow w;
    play_three_event_footage(w, dir, footage);
    REQUIRE(test::wait_until([&] { return w.record().events.size() == 3; }, 240000));  // minutes under sanitizers on a loaded machine
    w.stop_source();
    // The truth: red's follower on V's field at NL.
    const Event truth_event = script.events[2];
    REQUIRE(same_events(w.record(), script));
    const Cell at = truth_event.at;
    const auto catalog = catalog_for(script).value();  // the window's games are replaced with each change
    const TileType* type = catalog->find(script.events[1].tile);
    REQUIRE(type);
    const int rot = script.events[1].rot;
    const auto feature_of = [&](const std::string& loc) { return type->feature_at(*parse_port(loc), rot); };
    const int true_feature = feature_of(truth_event.loc);

    // Judged: every choice but "remove" carries a likelihood, highest first.
    const auto read = choices_at(w, at.x, at.y, true).pieces;
    REQUIRE(read.size() >= 3);
    for (std::size_t i = 0; i + 1 < read.size(); ++i) {
        CHECK(read[i].likelihood >= 0);
        CHECK(read[i].label.endsWith("%"));
        if (i > 0) CHECK(read[i - 1].likelihood >= read[i].likelihood);
    }
    CHECK(read.back().colour.empty());

    QSignalSpy shown(&w, &ui::LiveWindow::record_shown);
    // As if the tracker had put it on the wrong feature: the true feature comes first.
    const auto wrong = std::find_if(read.rbegin() + 1, read.rend(), [&](const ui::PieceChoice& c) {
        return c.colour == truth_event.player && feature_of(c.loc) != true_feature;
    });
    REQUIRE(wrong != read.rend());
    w.correct_piece(at.x, at.y, *wrong);
    REQUIRE(shown.wait(10000));
    const auto after_wrong_feature = choices_at(w, at.x, at.y, true).pieces;
    REQUIRE_FALSE(after_wrong_feature.empty());
    CHECK(after_wrong_feature.front().colour == truth_event.player);
    CHECK(feature_of(after_wrong_feature.front().loc) == true_feature);
    w.correct_piece(at.x, at.y, after_wrong_feature.front());
    REQUIRE(shown.wait(10000));

    // No other owner is offered: in a live record the follower is the turn player's, and the
    // engine refuses any other (the colour the tracker measured only weighs the ports).
    const auto back = choices_at(w, at.x, at.y, true).pieces;
    for (const auto& c : back) CHECK((c.colour.empty() || c.colour == truth_event.player));
    REQUIRE(w.record().events[2].type == "meeple");
    CHECK(feature_of(w.record().events[2].loc) == true_feature);
}

TEST_CASE("opening the correction menu costs the GUI thread no replay: the choices come from the match worker",
          "[ui][live][correction]") {
    test::qt_app();
    // A long match: the first 60 events of the sample match, so ~100 replays of it are visible in time.
    auto sample = read_record(std::string(MEEPLECAM_SOURCE_DIR) + "/samples/matches/sample-2p.json");
    REQUIRE(sample);
    const Record match = prefix(sample.value(), 60);
    ui::LiveWindow w;
    w.resize(1400, 900);
    w.show();
    REQUIRE(QTest::qWaitForWindowExposed(&w));
    open_match(w, match, test::fresh_dir("live_menu_cost") + "/m.journal");
    // The latest tile with no follower on it that another tile could replace (a click there
    // opens the tile's menu). What the click did before, on the GUI thread: every choice tried
    // as a correction and replayed.
    Cell at;
    std::vector<ui::TileChoice> direct;
    for (std::size_t i = match.events.size(); i-- > 1 && direct.empty();) {
        const Event& e = match.events[i];
        if (e.type != "tile" ||
            std::any_of(match.events.begin(), match.events.end(), [&](const Event& m) { return m.type == "meeple" && m.at == e.at; })) {
            continue;
        }
        at = e.at;
        direct = ui::record_tile_choices(w.record(), *w.open_game(), at, nullptr);
    }
    REQUIRE_FALSE(direct.empty());
    double replay_ms = 1e9, click_ms = 1e9;
    for (int i = 0; i < 3; ++i) {
        QElapsedTimer t;
        t.start();
        direct = ui::record_tile_choices(w.record(), *w.open_game(), at, nullptr);
        replay_ms = std::min(replay_ms, static_cast<double>(t.nsecsElapsed()) / 1e6);
    }
    REQUIRE(test::wait_until([&] { return !w.board_view().cell_rect(at.x, at.y).isEmpty(); }, 5000));  // laid out when painted
    const QRectF cell = w.board_view().cell_rect(at.x, at.y);
    const QPoint click(static_cast<int>(cell.left() + cell.width() * 0.5), static_cast<int>(cell.top() + cell.height() * 0.5));
    for (int i = 0; i < 3; ++i) {
        QSignalSpy shown(&w, &ui::LiveWindow::choices_shown);
        QElapsedTimer t;
        t.start();
        QTest::mouseClick(const_cast<ui::BoardView*>(&w.board_view()), Qt::LeftButton, {}, click);
        click_ms = std::min(click_ms, static_cast<double>(t.nsecsElapsed()) / 1e6);
        // The menu is open at once, waiting for the choices (the click returned before any replay).
        QMenu* menu = w.correction_menu();
        REQUIRE(menu);
        REQUIRE(menu->actions().size() == 1);
        CHECK_FALSE(menu->actions().front()->isEnabled());
        REQUIRE(shown.wait(20000));
        // Then it holds the same choices as computed here, in the same order.
        REQUIRE(menu == w.correction_menu());
        const auto actions = menu->actions();
        REQUIRE(actions.size() == static_cast<int>(std::min<std::size_t>(direct.size(), 16)));
        for (int k = 0; k < actions.size(); ++k) CHECK(actions[k]->text() == direct[static_cast<std::size_t>(k)].label);
        menu->close();
    }
    WARN("GUI thread per menu opening: " << click_ms << " ms (click to open menu), vs " << replay_ms << " ms for the "
                                         << direct.size() << " choices' replays the click used to run (60 events)");
    CHECK(click_ms < replay_ms);
}

TEST_CASE("closing the live window never waits for the match thread", "[ui][live][threads]") {
    test::qt_app();
    const Record full = golden("15_long_mixed_game.json");
    const QString dir = test::fresh_dir("live_close");
    auto w = std::make_unique<ui::LiveWindow>();
    w->show();
    open_match(*w, prefix(full, 1), dir + "/m.journal");
    const QPointer<ui::MatchWorker> worker = w->worker();
    const QPointer<QThread> thread = worker->thread();
    REQUIRE(thread);
    // The match thread is busy for a second (a slow frame analysis: a start-tile search on a
    // big frame takes up to 1 s on this machine): closing must not wait for it.
    std::atomic<bool> busy{false};
    QMetaObject::invokeMethod(
        worker.data(),
        [&busy] {
            busy = true;
            QThread::msleep(1000);
        },
        Qt::QueuedConnection);
    REQUIRE(test::wait_until([&] { return busy.load(); }, 5000));
    // A move sent just before closing, queued behind the busy analysis.
    const Event& move = full.events[1];
    REQUIRE(move.type == "tile");
    w->set_drawn_tile(QString::fromStdString(move.tile));
    w->place_tile(move.at.x, move.at.y, move.rot);
    QElapsedTimer clock;
    clock.start();
    w.reset();
    const qint64 close_ms = clock.elapsed();
    WARN("closing the live window took " << close_ms << " ms with the match thread busy for 1 s");
    CHECK(close_ms < 200);  // the joining destructor waited out the rest of the second
    // The thread finishes on its own: the move is journaled, the worker and the thread deleted.
    REQUIRE(test::wait_until([&] { return thread.isNull(); }, 5000));
    CHECK(worker.isNull());
    CHECK(clock.elapsed() >= 500);
    CHECK(ui::wait_for_stopped_workers(1000));
    auto journal = recover_journal((dir + "/m.journal").toStdString());
    REQUIRE(journal);
    CHECK(same_events(journal->record, prefix(full, 2)));
}

TEST_CASE("a new game started mid-game keeps the unfinished match's journal aside", "[ui][live][journal]") {
    test::qt_app();
    const Record full = golden("15_long_mixed_game.json");
    const QString dir = test::fresh_dir("live_new_game_mid_game");
    const QString journal = dir + "/m.journal";
    ui::LiveWindow w;
    w.show();
    open_match(w, prefix(full, 1), journal);
    play_through_window(w, full, 1, 4);
    // Ctrl+N, confirmed: a new match on the same journal.
    QSignalSpy kept(w.worker(), &ui::MatchWorker::previous_match_kept);
    open_match(w, prefix(full, 1), journal);
    REQUIRE(kept.size() == 1);
    CHECK(kept.first().at(0).toString() == journal + ".previous");
    CHECK(kept.first().at(1).toInt() == 4);
    CHECK(w.record().events.size() == 1);
    auto now = recover_journal(journal.toStdString());
    REQUIRE(now);
    CHECK(same_events(now->record, prefix(full, 1)));
    auto previous = recover_journal((journal + ".previous").toStdString());
    REQUIRE(previous);
    CHECK(same_events(previous->record, prefix(full, 4)));
    // A match with nothing played yet is simply replaced: the kept one stays as it was.
    open_match(w, prefix(full, 1), journal);
    CHECK(kept.size() == 1);
    CHECK(same_events(recover_journal((journal + ".previous").toStdString())->record, prefix(full, 4)));
}
