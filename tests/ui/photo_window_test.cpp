// Photo mode, offscreen: a rendered finished table (its truth known) is read on the worker
// thread, shown with the reading drawn over it, corrected by clicking, and re-scored.
#include <catch2/catch.hpp>

#include <QAction>
#include <QMenu>
#include <QSignalSpy>
#include <QTableWidget>
#include <QTest>

#include <algorithm>
#include <set>

#include <opencv2/imgcodecs.hpp>

#include "engine/random_game.h"
#include "tests/ui/qt_app.h"
#include "ui/board_view.h"
#include "ui/final_score.h"
#include "ui/photo_window.h"
#include "vision/photo_score.h"
#include "vision/table_renderer.h"

using namespace meeplecam;

namespace {

// The scene: seed 6, 16 tiles. Of the 17 two-player scenes tried (seeds 1, 2, 4-9 with 12 and 16
// tiles, seed 3 with 14) it is the only one read exactly: in most the score differs (a follower
// missed or put on another feature), seed 4 reads as an impossible board, seeds 6 (12 tiles) and
// 8 miss tiles — what photo mode's corrections are for. This test checks photo mode, not the reader.
constexpr std::uint64_t kSeed = 6;
constexpr int kTiles = 16;

// A finished two-player game of kTiles tiles with a follower wherever one could go, rendered in
// calm daylight (classic art, plain table, a little tilt) to `path`.
RandomGame render_finished_table(const std::string& path) {
    Record setup;
    setup.players = {{"red", "red"}, {"blue", "blue"}};
    auto catalog = catalog_for(setup);
    REQUIRE(catalog);
    RandomGameOptions options;
    options.seed = kSeed;
    options.players = 2;
    options.max_tiles = kTiles;
    options.follower_chance = 1.0;
    auto game = play_random_game(catalog.value(), options);
    REQUIRE(game);
    vision::RenderOptions ro = vision::RenderOptions::for_difficulty(vision::Difficulty::Easy);
    ro.style = "classic";
    ro.surfaces = {vision::TableSurface::Plain};
    ro.tilt_deg = {12, 12};
    ro.colour_temperature_k = {6000, 6000};
    auto rendering = vision::render_table(vision::scene_of(game->game), ro, kSeed);
    REQUIRE(rendering);
    REQUIRE(cv::imwrite(path, rendering->image));
    return std::move(game.value());
}

// Pixels of `image` within `tolerance` (per channel) of `colour`.
int count_near(const QImage& image, QColor colour, int tolerance) {
    int n = 0;
    for (int y = 0; y < image.height(); ++y) {
        for (int x = 0; x < image.width(); ++x) {
            const QColor c = image.pixelColor(x, y);
            n += std::abs(c.red() - colour.red()) <= tolerance && std::abs(c.green() - colour.green()) <= tolerance &&
                 std::abs(c.blue() - colour.blue()) <= tolerance;
        }
    }
    return n;
}

// Distinct colours in a grid sample of the image (a blank screen has one or two).
int distinct_colours(const QImage& image) {
    std::set<QRgb> seen;
    for (int y = 0; y < image.height(); y += 4) {
        for (int x = 0; x < image.width(); x += 4) seen.insert(image.pixel(x, y));
    }
    return static_cast<int>(seen.size());
}

// Total final-scoring points of `colour`.
int points_of(const Game& game, const std::string& colour) { return vision::final_points(game).at(colour); }

}  // namespace

TEST_CASE("photo mode reads a rendered finished table; correcting it re-scores; the menus rank by the reader", "[ui][photo][correction]") {
    test::qt_app();
    const QString dir = test::fresh_dir("photo_mode");
    const std::string path = (dir + "/table.png").toStdString();
    const RandomGame truth = render_finished_table(path);

    ui::PhotoWindow w;
    w.resize(1400, 900);
    w.show();
    QSignalSpy shown(&w, &ui::PhotoWindow::photo_shown);
    QSignalSpy refused(&w, &ui::PhotoWindow::refused_shown);
    w.open_photo(QString::fromStdString(path), truth.record);
    REQUIRE(QTest::qWaitFor([&] { return !shown.isEmpty() || !refused.isEmpty(); }, 120000));
    REQUIRE(refused.isEmpty());
    const ui::PhotoSession* s = w.session();
    REQUIRE(s);

    // It read the table: every tile, and the score the truth gives (final scoring as if the game ended now).
    CHECK(s->reading().tiles.size() == truth.game.board().tiles().size());
    CHECK(vision::final_points(s->game()) == vision::final_points(truth.game));
    CHECK(s->photo().warnings.empty());
    // The final-score screen shows each player's total.
    const QTableWidget& table = w.score_screen().table();
    REQUIRE(table.rowCount() == 2);
    CHECK(table.item(0, table.columnCount() - 1)->text().toInt() == s->game().scores()[0]);

    // Screenshot checked for content: not blank, the photo shown is the overlay (the photo with
    // marks on it), the board view has tile art.
    const QImage shot = w.grab().toImage();
    CHECK(distinct_colours(shot) > 500);
    const cv::Mat raw = cv::imread(path);
    const QImage& overlay = w.shown_photo();
    REQUIRE(overlay.width() == raw.cols);
    int marked = 0;
    for (int y = 0; y < raw.rows; y += 2) {
        for (int x = 0; x < raw.cols; x += 2) {
            const cv::Vec3b p = raw.at<cv::Vec3b>(y, x);
            const QColor q = overlay.pixelColor(x, y);
            marked += std::abs(q.red() - p[2]) + std::abs(q.green() - p[1]) + std::abs(q.blue() - p[0]) > 60;
        }
    }
    CHECK(marked > 2000);
    // What scored is outlined in its winner's colour (draw_photo_score: red = BGR 40, 40, 220).
    CHECK(count_near(overlay, QColor(220, 40, 40), 12) > 200);
    CHECK(w.board_view().picture().tiles.size() == truth.game.board().tiles().size());

    // The tile menu: the reader's runner-up first wherever it still fits, with its likelihood.
    int ranked_cells = 0;
    for (const auto& t : s->reading().tiles) {
        const Cell at{t.col - s->photo().origin.x, t.row - s->photo().origin.y};
        const auto choices = w.tile_choices(at);
        const auto odds = s->odds(at);
        if (odds.size() < 2) continue;
        const bool runner_fits = std::any_of(choices.begin(), choices.end(), [&](const ui::TileChoice& c) {
            return c.tile == odds[1].tile && c.rot == odds[1].rot;
        });
        if (!runner_fits) continue;
        ++ranked_cells;
        CHECK(choices.front().tile == odds[1].tile);
        CHECK(choices.front().rot == odds[1].rot);
        CHECK(choices.front().label.endsWith("%"));
        if (choices.size() > 1) CHECK(choices[1].likelihood < 0);  // the rest are not judged
    }
    CHECK(ranked_cells > 0);

    // Remove a follower that alone holds a road, city or monastery: its owner loses exactly that
    // feature's final points.
    int piece = -1;
    int lost = 0;
    std::string owner;
    const Board& board = s->game().board();
    for (std::size_t i = 0; i < s->pieces().size() && piece < 0; ++i) {
        const auto& p = s->pieces()[i];
        if (p.feature < 0) continue;
        const Cell at{p.col - s->photo().origin.x, p.row - s->photo().origin.y};
        const int node = board.node_at(at, p.port);
        if (node < 0) continue;
        const Structure& st = board.structure(board.find(node));
        if (st.kind == FeatureKind::Field) continue;
        int holders = 0;
        for (const Follower& f : board.followers()) {
            if (f.on_board && board.node_at(f.at, f.loc) >= 0 && board.find(board.node_at(f.at, f.loc)) == board.find(node)) ++holders;
        }
        if (holders != 1) continue;
        for (const ScoreEvent& ev : s->game().score_events()) {
            if (ev.phase != ScoreEvent::Phase::Final || ev.feature == "farm") continue;
            if (std::find(ev.tiles.begin(), ev.tiles.end(), at) == ev.tiles.end()) continue;
            if (ev.winners.size() == 1 && s->game().players()[static_cast<std::size_t>(ev.winners[0])].color == p.colour &&
                ev.feature == std::string(feature_kind_name(st.kind))) {
                piece = static_cast<int>(i);
                lost = ev.points;
                owner = p.colour;
            }
        }
    }
    REQUIRE(piece >= 0);
    REQUIRE(lost > 0);
    const int before = points_of(s->game(), owner);
    const auto pieces = w.piece_choices(piece);
    REQUIRE_FALSE(pieces.empty());
    CHECK(pieces.back().colour.empty());  // "remove the follower" last
    shown.clear();
    w.correct_piece(piece, pieces.back());
    REQUIRE(shown.wait(30000));
    s = w.session();
    CHECK(points_of(s->game(), owner) == before - lost);
    const auto on_table = std::count_if(truth.game.board().followers().begin(), truth.game.board().followers().end(),
                                        [](const Follower& f) { return f.on_board; });
    CHECK(static_cast<long>(s->pieces().size()) == on_table - 1);
    REQUIRE(w.correction_lines().size() == 1);
    CHECK(w.correction_lines().front().contains("removed"));
    CHECK(w.score_screen().table().item(0, w.score_screen().table().columnCount() - 1)->text().toInt() == s->game().scores()[0]);

    // A click on a tile away from its followers pops the tile menu without blocking.
    const auto& first = s->reading().tiles.front();
    const Cell at{first.col - s->photo().origin.x, first.row - s->photo().origin.y};
    const QRectF cell = w.board_view().cell_rect(at.x, at.y);
    REQUIRE_FALSE(cell.isEmpty());
    QTest::mouseClick(const_cast<ui::BoardView*>(&w.board_view()), Qt::LeftButton, {},
                      QPoint(static_cast<int>(cell.center().x()), static_cast<int>(cell.center().y())));
    QMenu* menu = nullptr;
    QTRY_VERIFY_WITH_TIMEOUT((menu = w.findChild<QMenu*>()) != nullptr, 2000);
    CHECK_FALSE(menu->actions().isEmpty());
    menu->close();
}

TEST_CASE("photo mode refuses a photo without a board and says why", "[ui][photo][bad-input]") {
    test::qt_app();
    const QString dir = test::fresh_dir("photo_blank");
    const std::string path = (dir + "/blank.png").toStdString();
    REQUIRE(cv::imwrite(path, cv::Mat(480, 640, CV_8UC3, cv::Scalar(90, 120, 150))));
    ui::PhotoWindow w;
    QSignalSpy refused(&w, &ui::PhotoWindow::refused_shown);
    Record setup;
    setup.players = {{"red", "red"}, {"blue", "blue"}};
    w.open_photo(QString::fromStdString(path), setup);
    REQUIRE(refused.wait(60000));
    CHECK(refused.first().at(0).toString().startsWith(QString::fromStdString(path) + ": "));
    CHECK(w.session() == nullptr);
    CHECK(w.status_text().contains("Not changed"));
}
