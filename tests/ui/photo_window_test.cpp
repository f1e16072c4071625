// Photo mode, offscreen: a rendered finished table (its truth known) is read on the worker
// thread, shown with the reading drawn over it, corrected by clicking, and re-scored.
#include <catch2/catch.hpp>

#include <QAction>
#include <QMenu>
#include <QSignalSpy>
#include <QTableWidget>
#include <QTest>

#include <QFile>
#include <QElapsedTimer>
#include <QFileInfo>

#include <algorithm>
#include <fstream>
#include <functional>
#include <iostream>
#include <memory>
#include <optional>
#include <set>

#include <nlohmann/json.hpp>
#include <opencv2/imgcodecs.hpp>

#include "engine/random_game.h"
#include "tests/ui/qt_app.h"
#include "ui/board_view.h"
#include "ui/final_score.h"
#include "ui/photo_save.h"
#include "ui/photo_window.h"
#include "ui/worker_thread.h"
#include "vision/tile_art.h"
#include "engine/ports.h"
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

TEST_CASE("photo mode reads a rendered finished table, correcting it re-scores, the menus rank by the reader", "[ui][photo][correction]") {
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
    REQUIRE(test::wait_until([&] { return (menu = w.findChild<QMenu*>()) != nullptr; }, 2000));
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

TEST_CASE("closing the photo window while a photo is read never waits for the read", "[ui][photo][threads]") {
    test::qt_app();
    const QString dir = test::fresh_dir("photo_close");
    const std::string path = (dir + "/table.png").toStdString();
    const RandomGame truth = render_finished_table(path);
    auto w = std::make_unique<ui::PhotoWindow>();
    w->show();
    w->open_photo(QString::fromStdString(path), truth.record);
    QTest::qWait(100);  // the worker has begun reading (seconds: the board reader and the piece detector)
    QElapsedTimer clock;
    clock.start();
    w.reset();
    const qint64 close_ms = clock.elapsed();
    WARN("closing the photo window took " << close_ms << " ms while the photo was being read");
    CHECK(close_ms < 200);  // the joining destructor waited for the whole read
    // The thread finishes the read on its own, then the worker and the thread are deleted.
    CHECK(ui::wait_for_stopped_workers(120000));
    WARN("the photo thread finished " << clock.elapsed() << " ms after the window closed");
}

namespace {

// Waits for the window's answer to one asynchronous request; false when it refused.
bool answered(ui::PhotoWindow& w, const std::function<void()>& request) {
    QSignalSpy shown(&w, &ui::PhotoWindow::photo_shown);
    QSignalSpy refused(&w, &ui::PhotoWindow::refused_shown);
    request();
    REQUIRE(QTest::qWaitFor([&] { return !shown.isEmpty() || !refused.isEmpty(); }, 120000));
    if (!refused.isEmpty()) UNSCOPED_INFO("refused: " << refused.first().at(0).toString().toStdString());
    return refused.isEmpty();
}

// The refusal that answers `request` (empty when it was not refused).
QString refusal(ui::PhotoWindow& w, const std::function<void()>& request) {
    QSignalSpy shown(&w, &ui::PhotoWindow::photo_shown);
    QSignalSpy refused(&w, &ui::PhotoWindow::refused_shown);
    request();
    REQUIRE(QTest::qWaitFor([&] { return !shown.isEmpty() || !refused.isEmpty(); }, 120000));
    return refused.isEmpty() ? QString() : refused.first().at(0).toString();
}

Cell board_cell(const ui::PhotoSession& s, int col, int row) { return {col - s.photo().origin.x, row - s.photo().origin.y}; }

}  // namespace

TEST_CASE("photo mode: the players add the tile and followers the reader missed, save, reopen, a bad save is refused",
          "[ui][photo][correction][save]") {
    test::qt_app();
    const QString dir = test::fresh_dir("photo_add");
    const std::string path = (dir + "/table.png").toStdString();
    const RandomGame truth = render_finished_table(path);
    const auto truth_points = vision::final_points(truth.game);
    Record setup = truth.record;
    setup.events.clear();
    setup.finished = false;

    // The reading the window makes, less a tile with a follower on it and one more follower:
    // what the reader would have missed. It goes to a save, which the window opens.
    const cv::Mat image = cv::imread(path);
    auto catalog = catalog_for(setup);
    REQUIRE(catalog);
    auto read = vision::read_photo(image, *catalog.value(), setup.edition, setup.expansions);
    REQUIRE(read);
    REQUIRE(read->board.tiles.size() == truth.game.board().tiles().size());
    const auto& types = catalog.value()->tiles();
    std::optional<vision::DecodedTile> hidden_tile;
    std::vector<vision::DetectedPiece> hidden_pieces;
    vision::PhotoReading partial;
    for (const auto& t : read->board.tiles) {
        auto on_it = [&](const vision::DetectedPiece& p) { return p.col == t.col && p.row == t.row; };
        const auto followers = std::count_if(read->pieces.pieces.begin(), read->pieces.pieces.end(), [&](const auto& p) { return on_it(p) && p.feature >= 0; });
        if (followers != 1) continue;
        vision::PhotoReading trial = read.value();
        std::erase_if(trial.board.tiles, [&](const vision::DecodedTile& x) { return x.col == t.col && x.row == t.row; });
        std::erase_if(trial.pieces.pieces, on_it);
        vision::PhotoOptions whole;  // a tile missed, the rest still one board (no loose tiles left out)
        whole.max_loose_tiles = 0;
        auto built = vision::build_photo_game(setup, catalog.value(), trial.board, trial.pieces.pieces, {}, whole);
        if (!built || vision::final_points(built->game) == truth_points) continue;
        hidden_tile = t;
        hidden_pieces.push_back(*std::find_if(read->pieces.pieces.begin(), read->pieces.pieces.end(), on_it));
        partial = std::move(trial);
        break;
    }
    REQUIRE(hidden_tile);
    // One more follower, on another tile, whose absence changes the score.
    for (std::size_t i = 0; i < partial.pieces.pieces.size(); ++i) {
        if (partial.pieces.pieces[i].feature < 0) continue;
        vision::PhotoReading trial = partial;
        trial.pieces.pieces.erase(trial.pieces.pieces.begin() + static_cast<long>(i));
        auto with = vision::build_photo_game(setup, catalog.value(), partial.board, partial.pieces.pieces);
        auto without = vision::build_photo_game(setup, catalog.value(), trial.board, trial.pieces.pieces);
        REQUIRE(with);
        if (!without || vision::final_points(without->game) == vision::final_points(with->game)) continue;
        hidden_pieces.push_back(partial.pieces.pieces[i]);
        partial = std::move(trial);
        break;
    }
    REQUIRE(hidden_pieces.size() == 2);
    auto missed = ui::PhotoSession::from_reading(image, setup, partial);
    REQUIRE(missed);
    CHECK(vision::final_points(missed->game()) != truth_points);
    const std::string missed_save = (dir + "/missed.photo.json").toStdString();
    REQUIRE(ui::save_photo_session(missed.value(), path, missed_save));

    ui::PhotoWindow w;
    w.resize(1400, 900);
    w.show();
    REQUIRE(answered(w, [&] { w.open_photo(QString::fromStdString(path), setup); }));
    CHECK(w.saved_offer().isEmpty());  // nothing saved next to the photo yet
    REQUIRE(answered(w, [&] { w.restore(QString::fromStdString(missed_save)); }));
    REQUIRE(w.session()->reading().tiles.size() == truth.game.board().tiles().size() - 1);
    CHECK(vision::final_points(w.session()->game()) == vision::final_points(missed->game()));

    // The missed tile: its cell is a free cell beside the board; the true placement is among
    // the choices, ranked by the classifier's likelihood for that square.
    Cell at = board_cell(*w.session(), hidden_tile->col, hidden_tile->row);
    const auto free = w.free_cells();
    REQUIRE(std::find(free.begin(), free.end(), at) != free.end());
    const auto choices = w.add_tile_choices(at);
    const std::string truth_id = types[static_cast<std::size_t>(hidden_tile->type)].id;
    const auto truth_choice = std::find_if(choices.begin(), choices.end(), [&](const ui::TileChoice& c) { return c.tile == truth_id && c.rot == hidden_tile->rot; });
    REQUIRE(truth_choice != choices.end());
    const auto rank = truth_choice - choices.begin();
    std::cout << "photo mode, add a missed tile: the true " << truth_id << " " << hidden_tile->rot * 90 << "° ranked " << rank + 1 << " of "
              << choices.size() << " fitting placements (likelihood " << truth_choice->likelihood << ")\n";
    CHECK(choices.front().likelihood >= 0);                  // the square was judged
    CHECK(choices.front().label.endsWith("%"));
    CHECK(rank < 3);                                         // the truth near the top
    for (std::size_t i = 1; i < choices.size(); ++i) CHECK(choices[i - 1].likelihood >= choices[i].likelihood);
    // A click on that "+" cell pops the add menu without blocking.
    {
        const QRectF cell = w.board_view().cell_rect(at.x, at.y);
        REQUIRE_FALSE(cell.isEmpty());
        QTest::mouseClick(const_cast<ui::BoardView*>(&w.board_view()), Qt::LeftButton, {}, cell.center().toPoint());
        QMenu* menu = nullptr;
        REQUIRE(test::wait_until([&] { return (menu = w.findChild<QMenu*>()) != nullptr; }, 2000));
        CHECK(menu->actions().size() >= 2);  // the section title and at least one tile
        menu->close();
    }
    // A tile that does not match its neighbours is refused, nothing changes.
    const auto misfit = std::find_if(types.begin(), types.end(), [&](const TileType& t) {
        return t.count_in(setup.edition) > 0 && std::none_of(choices.begin(), choices.end(), [&](const ui::TileChoice& c) { return c.tile == t.id; });
    });
    if (misfit != types.end()) {
        CHECK(refusal(w, [&] { w.add_tile(at, ui::TileChoice{misfit->id, 0, -1, 0, {}}); }).contains("does not match"));
        CHECK(w.correction_lines().isEmpty());
    }
    QElapsedTimer add_time;
    add_time.start();
    REQUIRE(answered(w, [&] { w.add_tile(at, *truth_choice); }));
    std::cout << "photo mode, add a missed tile: " << add_time.elapsed() << " ms from the request to the window showing it (worker: rebuild + free cells classified)\n";

    // The missed followers: a click on the feature each stood on offers each player's colour.
    for (const auto& p : hidden_pieces) {
        const ui::PhotoSession& s = *w.session();
        const Cell on = board_cell(s, p.col, p.row);
        const cv::Point2d within = vision::port_point(p.port, /*inset=*/0.18);
        const auto adds = w.add_piece_choices(on, QPointF(within.x, within.y));
        REQUIRE(adds.size() == setup.players.size());
        const auto pick = std::find_if(adds.begin(), adds.end(), [&](const ui::PieceChoice& c) { return c.colour == p.colour; });
        REQUIRE(pick != adds.end());
        const auto tile = std::find_if(s.reading().tiles.begin(), s.reading().tiles.end(), [&](const auto& t) { return t.col == p.col && t.row == p.row; });
        REQUIRE(tile != s.reading().tiles.end());
        CHECK(types[static_cast<std::size_t>(tile->type)].feature_at(*parse_port(pick->loc), tile->rot) == p.feature);  // the feature clicked
        REQUIRE(answered(w, [&] { w.add_piece(on, *pick); }));
    }
    const ui::PhotoSession* s = w.session();
    CHECK(s->reading().tiles.size() == truth.game.board().tiles().size());
    CHECK(vision::final_points(s->game()) == truth_points);
    CHECK(w.score_screen().table().item(0, w.score_screen().table().columnCount() - 1)->text().toInt() == s->game().scores()[0]);
    const QStringList lines = w.correction_lines();
    REQUIRE(lines.size() == 3);
    CHECK(lines[0].startsWith("tile added at"));
    CHECK(lines[1].startsWith("follower added at"));
    for (const QString& line : lines) CHECK(line.endsWith("(players)"));
    if (const char* shots = std::getenv("MEEPLECAM_SCREENSHOTS")) {
        QApplication::processEvents();
        CHECK(w.grab().save(QString::fromUtf8(shots) + "/photo-corrected.png"));
    }

    // The corrected board as a meeplecam-record: replayed, its final scoring is the truth's
    // (or the window says why no record can be made).
    {
        const QString record_path = dir + "/corrected.json";
        QSignalSpy exported(&w, &ui::PhotoWindow::exported_shown);
        QSignalSpy refused(&w, &ui::PhotoWindow::refused_shown);
        w.export_record(record_path);
        REQUIRE(QTest::qWaitFor([&] { return !exported.isEmpty() || !refused.isEmpty(); }, 30000));
        INFO((refused.isEmpty() ? QString() : refused.first().at(0).toString()).toStdString());
        REQUIRE(exported.size() == 1);
        auto record = read_record(record_path.toStdString());
        REQUIRE(record);
        auto replayed = replay(record.value());
        REQUIRE(replayed);
        CHECK(vision::final_points(replayed.value()) == truth_points);
        CHECK(replayed->board().tiles().size() == truth.game.board().tiles().size());
    }
    // Saved next to the photo; reopening the photo offers it, and opening it gives the same board and score.
    QSignalSpy saved(&w, &ui::PhotoWindow::saved_shown);
    w.save();
    REQUIRE(saved.wait(30000));
    const QString save = QString::fromStdString(ui::default_photo_save_path(path));
    CHECK(saved.first().at(0).toString() == save);
    REQUIRE(QFileInfo::exists(save));
    ui::PhotoWindow again;
    REQUIRE(answered(again, [&] { again.open_photo(QString::fromStdString(path), setup); }));
    CHECK(again.saved_offer() == save);
    REQUIRE(answered(again, [&] { again.restore(again.saved_offer()); }));
    CHECK(vision::final_points(again.session()->game()) == truth_points);
    CHECK(again.correction_lines() == lines);
    CHECK(again.session()->reading().tiles.size() == truth.game.board().tiles().size());

    // A truncated save and hand-edited ones: refused, naming the file and where; the photo stays open, unchanged.
    std::ifstream in(save.toStdString(), std::ios::binary);
    const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    auto write = [&](const std::string& name, const std::string& content) {
        const std::string p = (dir + "/").toStdString() + name;
        std::ofstream(p, std::ios::binary) << content;
        return QString::fromStdString(p);
    };
    const QString truncated = write("truncated.photo.json", text.substr(0, text.size() / 2));
    QString why = refusal(again, [&] { again.restore(truncated); });
    CHECK(why.startsWith(truncated + ": byte "));
    nlohmann::json doc = nlohmann::json::parse(text);
    doc["read"]["tiles"][2]["tile"] = "ZZ";
    const QString bad_tile = write("bad-tile.photo.json", doc.dump());
    why = refusal(again, [&] { again.restore(bad_tile); });
    CHECK(why.startsWith(bad_tile + ": read.tiles[2].tile"));
    CHECK(why.contains("unknown tile id 'ZZ'"));
    doc = nlohmann::json::parse(text);
    doc["corrections"][0]["cell"] = {hidden_tile->col + 40, hidden_tile->row};  // no longer beside the board
    const QString bad_edit = write("bad-edit.photo.json", doc.dump());
    why = refusal(again, [&] { again.restore(bad_edit); });
    CHECK(why.startsWith(bad_edit + ": corrections[0]"));
    doc = nlohmann::json::parse(text);
    REQUIRE_FALSE(doc["read"]["followers"].empty());
    doc["read"]["followers"][0]["lying"] = "yes";  // an optional field of the wrong type
    const QString bad_flag = write("bad-flag.photo.json", doc.dump());
    why = refusal(again, [&] { again.restore(bad_flag); });
    CHECK(why.startsWith(bad_flag + ": read.followers[0].lying"));
    CHECK(why.contains("must be true or false"));
    REQUIRE(again.session());
    CHECK(vision::final_points(again.session()->game()) == truth_points);
    CHECK(again.shown_photo().width() == image.cols);
    CHECK(again.status_text().contains("Not changed"));
    CHECK(QFile(save).size() == static_cast<qint64>(text.size()));  // the good save untouched

    // An invented tile goes with the follower on it; one that holds the board together is refused.
    const Cell added = board_cell(*again.session(), hidden_tile->col, hidden_tile->row);
    const auto followers = again.session()->pieces().size();
    REQUIRE(answered(again, [&] { again.remove_tile(added); }));
    CHECK(again.session()->reading().tiles.size() == truth.game.board().tiles().size() - 1);
    CHECK(again.session()->pieces().size() == followers - 1);
    CHECK(again.correction_lines().back().contains("tile removed at"));
    CHECK(again.correction_lines().back().contains("1 follower(s) on it"));
    CHECK(vision::final_points(again.session()->game()) != truth_points);
    std::optional<Cell> bridge;  // a tile whose removal splits the board
    for (const auto& t : again.session()->reading().tiles) {
        ui::PhotoSession trial = *again.session();
        const Cell c = board_cell(trial, t.col, t.row);
        if (!trial.remove_tile(c)) {
            bridge = c;
            break;
        }
    }
    if (bridge) {
        const auto lines_before = again.correction_lines();
        CHECK(refusal(again, [&] { again.remove_tile(*bridge); }).contains("tile removed at " + QString::fromStdString(to_string(*bridge))));
        CHECK(again.correction_lines() == lines_before);
    }
}

TEST_CASE("photo mode ranks the true tile first for most tiles hidden from the reading", "[ui][photo][correction][measure]") {
    // Each tile of the seed-6 render whose removal keeps the board whole is hidden from the
    // reading in turn; the rank of its true placement in the add menu of its cell is counted.
    const QString dir = test::fresh_dir("photo_rank");
    const std::string path = (dir + "/table.png").toStdString();
    const RandomGame truth = render_finished_table(path);
    Record setup = truth.record;
    setup.events.clear();
    const cv::Mat image = cv::imread(path);
    auto catalog = catalog_for(setup);
    REQUIRE(catalog);
    auto read = vision::read_photo(image, *catalog.value(), setup.edition, setup.expansions);
    REQUIRE(read);
    const auto& types = catalog.value()->tiles();
    int hidden = 0, first = 0, top3 = 0, judged = 0;
    std::string ranks;
    for (const auto& t : read->board.tiles) {
        vision::PhotoReading trial = read.value();
        std::erase_if(trial.board.tiles, [&](const vision::DecodedTile& x) { return x.col == t.col && x.row == t.row; });
        std::erase_if(trial.pieces.pieces, [&](const vision::DetectedPiece& p) { return p.col == t.col && p.row == t.row; });
        auto s = ui::PhotoSession::from_reading(image, setup, std::move(trial));
        if (!s) continue;  // the board falls apart without it
        ++hidden;
        const Cell at{t.col - s->photo().origin.x, t.row - s->photo().origin.y};
        const auto choices = s->add_tile_choices(at);
        const auto it = std::find_if(choices.begin(), choices.end(),
                                     [&](const ui::TileChoice& c) { return c.tile == types[static_cast<std::size_t>(t.type)].id && c.rot == t.rot; });
        REQUIRE(it != choices.end());  // the truth always fits its neighbours
        const auto rank = it - choices.begin() + 1;
        judged += it->likelihood >= 0;
        first += rank == 1;
        top3 += rank <= 3;
        ranks += (ranks.empty() ? "" : ", ") + it->tile + " " + std::to_string(rank) + "/" + std::to_string(choices.size()) +
                 (rank > 1 ? " after " + choices.front().tile : std::string());
    }
    std::cout << "photo mode, add a hidden tile (seed 6, 16 tiles): " << hidden << " tiles hidden one at a time; the truth ranked first " << first
              << ", in the top 3 " << top3 << ", judged by the classifier " << judged << "; ranks " << ranks << "\n";
    REQUIRE(hidden >= 4);
    CHECK(judged == hidden);
    CHECK(top3 == hidden);
    CHECK(first * 4 >= hidden * 3);  // at least three in four first (5 of 5 measured)
}
