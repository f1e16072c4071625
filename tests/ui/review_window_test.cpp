#include <catch2/catch.hpp>

#include <QApplication>
#include <QColor>
#include <QImage>
#include <QSet>

#include <cstdlib>
#include <filesystem>
#include <fstream>

#include <nlohmann/json.hpp>

#include "engine/correction.h"
#include "engine/record.h"
#include "tests/ui/qt_app.h"
#include "ui/board_view.h"
#include "ui/review_window.h"
#include "ui/score_chart.h"
#include "ui/score_table_model.h"

using namespace meeplecam;

namespace {

QApplication& app() { return test::qt_app(); }

// Writes the record of a golden file to a temporary file and returns its path.
QString golden_record(const char* name) {
    std::ifstream in(std::string(MEEPLECAM_SOURCE_DIR) + "/tests/golden/" + name);
    const auto doc = nlohmann::json::parse(in);
    const auto path = std::filesystem::temp_directory_path() / (std::string("ui_") + name);
    std::ofstream(path) << doc.at("record").dump();
    return QString::fromStdString(path.string());
}

int score_of(const ui::ScoreTableModel& m, int row) {
    return m.data(m.index(row, ui::ScoreTableModel::Score)).toInt();
}

}  // namespace

TEST_CASE("review mode replays a record to its hand-checked final score", "[ui]") {
    app();
    ui::ReviewWindow window;
    REQUIRE(window.open_record(golden_record("15_long_mixed_game.json")));
    CHECK(window.event_count() == 30);
    CHECK(window.step() == 30);
    REQUIRE(window.scoreboard().rowCount() == 2);
    CHECK(score_of(window.scoreboard(), 0) == 31);  // red, as hand-checked in the golden file
    CHECK(score_of(window.scoreboard(), 1) == 37);  // blue
    CHECK(window.board_view().picture().tiles.size() == 17);
    CHECK(window.score_lines().size() == 12);
    // The chart ends at the final scores.
    REQUIRE(window.chart().series().size() == 2);
    CHECK(window.chart().series()[0].scores.back() == 31);
    CHECK(window.chart().series()[1].scores.back() == 37);

    // Stepping back to the start tile: one tile, no score.
    window.show_step(1);
    CHECK(window.board_view().picture().tiles.size() == 1);
    CHECK(score_of(window.scoreboard(), 0) == 0);
    CHECK(window.score_lines().isEmpty());
}

TEST_CASE("the review window draws the board with the tile art", "[ui]") {
    app();
    ui::ReviewWindow window;
    REQUIRE(window.open_record(golden_record("15_long_mixed_game.json")));
    window.resize(1280, 800);
    const QImage shot = window.grab().toImage();
    REQUIRE_FALSE(shot.isNull());
    // The board view shows green fields, brown cities and many colours, not a blank or flat image.
    QSet<QRgb> colours;
    int green = 0;
    for (int y = 0; y < shot.height(); y += 4) {
        for (int x = 0; x < shot.width() * 2 / 3; x += 4) {
            const QColor c = shot.pixelColor(x, y);
            colours.insert(c.rgb() & 0xF0F0F0);
            green += (c.green() > c.red() + 30 && c.green() > c.blue() + 30) ? 1 : 0;
        }
    }
    CHECK(colours.size() > 100);
    CHECK(green > 2000);
}

TEST_CASE("a corrupt record is refused and the open match is kept", "[ui][bad-input]") {
    app();
    ui::ReviewWindow window;
    REQUIRE(window.open_record(golden_record("15_long_mixed_game.json")));
    const auto bad = std::filesystem::temp_directory_path() / "ui_corrupt.json";
    std::ofstream(bad) << R"({"format": "meeplecam-record", "version": 1, "players": [)";
    auto st = window.open_record(QString::fromStdString(bad.string()));
    REQUIRE_FALSE(st);
    CHECK_THAT(st.error().to_string(), Catch::Contains("not valid JSON"));
    CHECK(window.event_count() == 30);
    CHECK(score_of(window.scoreboard(), 1) == 37);
    // An illegal record is refused too, naming the event.
    std::ofstream(bad) << R"({"format": "meeplecam-record", "version": 1, "players": [{"color": "red"}],
        "events": [{"type": "tile", "tile": "D", "at": [0, 0], "rot": 0},
                   {"type": "tile", "player": "red", "tile": "U", "at": [1, 0], "rot": 0}]})";
    st = window.open_record(QString::fromStdString(bad.string()));
    REQUIRE_FALSE(st);
    CHECK_THAT(st.error().to_string(), Catch::Contains("event 1"));
    CHECK(window.event_count() == 30);
}

TEST_CASE("review mode shows a correction event as one line and steps through it", "[ui][correction]") {
    app();
    auto record = read_record(golden_record("15_long_mixed_game.json").toStdString());
    REQUIRE(record);
    // Red's Q at [0, -1] was corrected to R, then back to Q: the board ends as the golden one.
    REQUIRE(correct_tile_event(record.value(), {0, -1}, "R", 2));
    REQUIRE(correct_tile_event(record.value(), {0, -1}, "Q", 2));
    const auto path = std::filesystem::temp_directory_path() / "ui_corrected.json";
    REQUIRE(write_record(record.value(), path.string()));
    ui::ReviewWindow window;
    REQUIRE(window.open_record(QString::fromStdString(path.string())));
    CHECK(window.event_count() == 32);
    CHECK(score_of(window.scoreboard(), 0) == 31);
    CHECK(score_of(window.scoreboard(), 1) == 37);
    CHECK(window.step_text() == "event 32 / 32 — correction of event 1 (tile at [0, -1]): R 180° -> Q 180° by the players");
    // Between the two corrections the board is shown too (the first correction's "now" was corrected again later).
    window.show_step(31);
    CHECK(window.step() == 31);
    CHECK(window.step_text() == "event 31 / 32 — correction of event 1 (tile at [0, -1]): Q 180° -> R 180° by the players");
    window.show_step(10);
    CHECK(window.step_text() == "event 10 / 32");
}
