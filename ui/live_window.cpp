#include "ui/live_window.h"

#include <QAction>
#include <QApplication>
#include <QComboBox>
#include <QFileDialog>
#include <QGroupBox>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QKeySequence>
#include <QLabel>
#include <QListWidget>
#include <QMenu>
#include <QMenuBar>
#include <QMessageBox>
#include <QPushButton>
#include <QSettings>
#include <QStatusBar>
#include <QTableView>
#include <QTimer>
#include <QVBoxLayout>

#include <algorithm>
#include <cmath>

#include "engine/correction.h"
#include "engine/ports.h"
#include "ui/board_view.h"
#include "ui/calibration_wizard.h"
#include "ui/final_score.h"
#include "ui/new_game_dialog.h"
#include "ui/photo_window.h"
#include "ui/score_table_model.h"
#include "ui/tile_library_wizard.h"
#include "vision/tile_art.h"

namespace meeplecam::ui {
namespace {

// Shows a list's last row: now, and again once pending layouts (the items', the window's on
// first show) are done, since until then the list does not know how far it scrolls.
void scroll_to_end(QListWidget* list) {
    list->scrollToBottom();
    QTimer::singleShot(0, list, [list] { list->scrollToBottom(); });
}

constexpr std::size_t kLatencyWindow = 240;  // recent frames the medians are taken over

double median(std::deque<double> values) {
    if (values.empty()) return 0;
    auto mid = values.begin() + static_cast<std::ptrdiff_t>(values.size() / 2);
    std::nth_element(values.begin(), mid, values.end());
    return *mid;
}

void push_bounded(std::deque<double>& values, double v) {
    values.push_back(v);
    if (values.size() > kLatencyWindow) values.pop_front();
}

QString event_line(int index, const Event& e) {
    const QString who = e.player.empty() ? QObject::tr("start") : QString::fromStdString(e.player);
    if (e.type == "tile") {
        return QObject::tr("%1. %2: tile %3 at [%4, %5] %6°")
            .arg(index)
            .arg(who, QString::fromStdString(e.tile))
            .arg(e.at.x)
            .arg(e.at.y)
            .arg(e.rot * 90);
    }
    if (e.type == "meeple") {
        return QObject::tr("%1.    %2: follower on %3 at [%4, %5]")
            .arg(index)
            .arg(who, QString::fromStdString(e.loc))
            .arg(e.at.x)
            .arg(e.at.y);
    }
    if (e.type == "correction") return QObject::tr("%1.    %2").arg(index).arg(QString::fromStdString(describe_correction(e)));
    return QObject::tr("%1.    %2").arg(index).arg(QString::fromStdString(e.to_json().dump()));
}

}  // namespace

LiveWindow::LiveWindow(QWidget* parent) : QMainWindow(parent), art_(96) {
    register_meta_types();
    setWindowTitle(tr("meeplecam — live"));
    live_ = new LiveView;
    board_ = new BoardView;
    scores_ = new ScoreTableModel(this);
    score_table_ = new QTableView;
    score_table_->setModel(scores_);
    score_table_->horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
    score_table_->verticalHeader()->hide();
    moves_ = new QListWidget;
    moves_->setObjectName("moves");
    score_events_ = new QListWidget;
    score_events_->setWordWrap(true);
    palette_ = new QComboBox;
    followers_ = new QComboBox;
    auto* place_follower_button = new QPushButton(tr("Place follower"));

    panel_ = new QGroupBox;
    panel_label_ = new QLabel;
    panel_label_->setWordWrap(true);
    panel_buttons_ = new QVBoxLayout;
    auto* panel_layout = new QVBoxLayout(panel_);
    panel_layout->addWidget(panel_label_);
    panel_layout->addLayout(panel_buttons_);
    panel_->hide();

    auto* side = new QWidget;
    auto* side_layout = new QVBoxLayout(side);
    side_layout->addWidget(panel_);
    side_layout->addWidget(new QLabel(tr("Scoreboard")));
    side_layout->addWidget(score_table_, 1);
    auto* drawn = new QHBoxLayout;
    drawn->addWidget(new QLabel(tr("Drawn tile")));
    drawn->addWidget(palette_, 1);
    side_layout->addLayout(drawn);
    auto* follower_row = new QHBoxLayout;
    follower_row->addWidget(followers_, 1);
    follower_row->addWidget(place_follower_button);
    side_layout->addLayout(follower_row);
    side_layout->addWidget(new QLabel(tr("Moves")));
    side_layout->addWidget(moves_, 2);
    side_layout->addWidget(new QLabel(tr("Scoring")));
    side_layout->addWidget(score_events_, 2);

    setCentralWidget(picture_board_and_side(live_, board_, side));

    source_label_ = new QLabel(tr("no camera"));
    fps_label_ = new QLabel;
    latency_label_ = new QLabel;
    statusBar()->addPermanentWidget(source_label_);
    statusBar()->addPermanentWidget(fps_label_);
    statusBar()->addPermanentWidget(latency_label_);

    connect(palette_, &QComboBox::currentIndexChanged, this, [this] { set_drawn_tile(palette_->currentData().toString()); });
    connect(place_follower_button, &QPushButton::clicked, this, [this] {
        if (followers_->currentIndex() >= 0) place_follower(followers_->currentData().toString());
    });
    connect(board_, &BoardView::cell_clicked, this, &LiveWindow::on_board_click);
    connect(live_, &LiveView::frame_shown, this, [this](std::int64_t, double latency_ms) {
        push_bounded(frame_latency_ms_, latency_ms);
        const std::int64_t now = steady_now_ns();
        shown_ns_.push_back(now);
        while (!shown_ns_.empty() && now - shown_ns_.front() > 1'000'000'000) shown_ns_.pop_front();
        fps_ = static_cast<double>(shown_ns_.size());
        update_status();
    });

    MatchWorker* w = match_.worker();
    connect(w, &MatchWorker::match_opened, this, [this](Record record, QString journal, QStringList lost) {
        journal_ = journal;
        adopt(std::move(record));
        if (!lost.isEmpty()) {
            show_panel(tr("The journal was damaged"),
                       tr("Recovered %1 events from %2. Lost:\n%3").arg(record_.events.size()).arg(journal, lost.join("\n")), true);
        } else {
            clear_panel();
        }
        statusBar()->showMessage(tr("match journaled at %1").arg(journal), 5000);
        emit match_ready(lost);
    });
    connect(w, &MatchWorker::match_changed, this, [this](Record record, QString what) {
        clear_panel();
        adopt(std::move(record));
        statusBar()->showMessage(what, 5000);
        emit record_shown();
    });
    connect(w, &MatchWorker::previous_match_kept, this, [this](QString path, int events) {
        statusBar()->showMessage(tr("the unfinished match before it (%1 events) is kept in %2").arg(events).arg(path), 10000);
    });
    connect(w, &MatchWorker::refused, this, [this](QString why) {
        show_panel(tr("Not recorded"), why, true);
        emit refused_shown(why);
    });
    connect(w, &MatchWorker::frame_analysed, this, &LiveWindow::on_frame_analysed);
    connect(w, &MatchWorker::table_found, this, [this](TableCalibration table, QString what) {
        geometry_ = TableGeometry{table.image_to_table_mm.inv(), table.tile_mm + table.gap_mm};
        live_->set_geometry(geometry_);
        statusBar()->showMessage(what, 8000);
    });
    connect(w, &MatchWorker::drawn_tile_seen, this, [this](QString tile, double confidence) {
        if (tile.isEmpty()) return;  // the zone is empty again: the drawn tile stays until the next one
        set_drawn_tile(tile);
        statusBar()->showMessage(tr("drawn tile seen in the draw zone: %1 (%2 %)").arg(tile).arg(std::lround(confidence * 100)), 6000);
    });
    connect(w, &MatchWorker::likelihoods_changed, this, [this](CellOdds odds) { odds_ = std::move(odds); });
    connect(w, &MatchWorker::corrections_found, this, &LiveWindow::on_corrections_found);
    connect(w, &MatchWorker::exported, this, [this](QString, bool ok, QString message) {
        if (ok) {
            statusBar()->showMessage(message, 5000);
        } else {
            show_panel(tr("Export failed"), message, true);
        }
    });
    build_menus();
    QSettings settings;
    resize(settings.value("window/size", QSize(1400, 900)).toSize());
    refresh();
}

LiveWindow::~LiveWindow() {
    QSettings settings;
    settings.setValue("window/size", size());
    stop_source();  // the capture thread first: it feeds the match thread
    match_.stop();  // returns at once: a frame being analysed is cancelled at its next stage, on its thread
}

void LiveWindow::build_menus() {
    QMenu* game = menuBar()->addMenu(tr("&Game"));
    auto add = [this](QMenu* menu, const QString& text, QKeySequence keys, auto slot) {
        QAction* a = menu->addAction(text);
        a->setShortcut(keys);
        connect(a, &QAction::triggered, this, slot);
        return a;
    };
    add(game, tr("&New game…"), QKeySequence::New, [this] { new_game_dialog(); });
    add(game, tr("&Undo last move"), QKeySequence::Undo, [this] { undo_last_move(); });
    add(game, tr("&Finish game (final scoring)"), QKeySequence(Qt::CTRL | Qt::Key_E), [this] { finish_game(); });
    add(game, tr("&Score screen"), QKeySequence(Qt::Key_F2), [this] { show_final_score(); });
    game->addSeparator();
    add(game, tr("&Export record…"), QKeySequence::SaveAs, [this] {
        const QString path = QFileDialog::getSaveFileName(this, tr("Export the match record"), {}, tr("Match records (*.json)"));
        if (!path.isEmpty()) export_record(path);
    });
    add(game, tr("&Import record…"), QKeySequence(Qt::CTRL | Qt::Key_I), [this] {
        const QString path = QFileDialog::getOpenFileName(this, tr("Import a match record"), {}, tr("Match records (*.json)"));
        if (!path.isEmpty()) import_record(path, journal_);
    });
    add(game, tr("Open &photo…"), QKeySequence(Qt::CTRL | Qt::Key_P), [this] {
        const QString path = QFileDialog::getOpenFileName(this, tr("Open a photo of a finished table"), {}, tr("Images (*.jpg *.jpeg *.png)"));
        if (path.isEmpty()) return;
        auto* photo = new PhotoWindow(this);  // photo mode, for the players and rules of this match
        photo->setAttribute(Qt::WA_DeleteOnClose);
        photo->setWindowFlag(Qt::Window);
        photo->open_photo(path, record_);
        photo->show();
    });
    game->addSeparator();
    add(game, tr("&Quit"), QKeySequence::Quit, [this] { close(); });
    QMenu* tools = menuBar()->addMenu(tr("T&ools"));
    add(tools, tr("&Calibrate camera and table…"), QKeySequence(Qt::CTRL | Qt::Key_K), [this] { open_calibration_wizard(); });
    add(tools, tr("&Tile library…"), QKeySequence(Qt::CTRL | Qt::Key_L), [this] {
        auto* wizard = new TileLibraryWizard({}, this);
        wizard->setAttribute(Qt::WA_DeleteOnClose);
        wizard->show();
    });
    QMenu* tile = menuBar()->addMenu(tr("&Tile"));
    add(tile, tr("&Next drawn tile in the palette"), QKeySequence(Qt::Key_T), [this] {
        if (palette_->count() > 0) palette_->setCurrentIndex((palette_->currentIndex() + 1) % palette_->count());
    });
    add(tile, tr("&Clear the drawn tile"), QKeySequence(Qt::Key_Escape), [this] { palette_->setCurrentIndex(0); });
}

void LiveWindow::start_source(const FrameSourceOptions& source) {
    stop_source();
    latest_frame_.store(-1);  // a new source counts its frames from 0
    capture_ = std::make_unique<CaptureThread>(source);
    FrameSource* src = capture_->source();
    MatchWorker* w = match_.worker();
    // The match worker learns of each newer frame at once (direct) so it can drop a backlog.
    connect(src, &FrameSource::frame_ready, w, [w](const Frame& f) { w->note_newer_frame(f.index); }, Qt::DirectConnection);
    connect(src, &FrameSource::frame_ready, w, &MatchWorker::analyse_frame, Qt::QueuedConnection);
    connect(src, &FrameSource::frame_ready, this, [this](const Frame& f) { latest_frame_.store(f.index); },
            Qt::DirectConnection);
    connect(src, &FrameSource::frame_ready, this, &LiveWindow::on_frame, Qt::QueuedConnection);
    connect(src, &FrameSource::state_changed, this, &LiveWindow::on_source_state, Qt::QueuedConnection);
    source_status_ = tr("starting %1").arg(source.describe());
    update_status();
    capture_->start();
}

void LiveWindow::stop_source() {
    if (capture_) capture_->stop();
    capture_.reset();
    source_status_ = tr("camera stopped");
    live_->set_banner({});
    if (source_label_) update_status();
}

void LiveWindow::set_table_calibration(const TableCalibration& table) {
    geometry_ = TableGeometry{table.image_to_table_mm.inv(), table.tile_mm + table.gap_mm};
    live_->set_geometry(geometry_);
    QMetaObject::invokeMethod(match_.worker(), "set_table", Qt::QueuedConnection, Q_ARG(meeplecam::ui::TableCalibration, table));
}

void LiveWindow::set_calibration(const calibration::Calibration& calibration, const QString& path) {
    QMetaObject::invokeMethod(match_.worker(), "set_calibration", Qt::QueuedConnection, Q_ARG(meeplecam::calibration::Calibration, calibration));
    statusBar()->showMessage(tr("calibration %1: put the start tile alone on the table").arg(path), 8000);
}

void LiveWindow::open_calibration_wizard() {
    auto* wizard = new CalibrationWizard([this] { return last_frame_; }, {}, this);
    wizard->setAttribute(Qt::WA_DeleteOnClose);
    connect(wizard, &CalibrationWizard::calibration_saved, this, [this](QString path) {
        auto calibration = calibration::load_calibration(path.toStdString());
        if (!calibration) {
            show_panel(tr("Calibration not used"), QString::fromStdString(calibration.error().to_string()), true);
            return;
        }
        set_calibration(calibration.value(), path);
        QMetaObject::invokeMethod(match_.worker(), "set_draw_zone", Qt::QueuedConnection, Q_ARG(QRectF, remembered_draw_zone()));
    });
    wizard->show();
}

void LiveWindow::new_match(const Record& setup, const QString& journal) {
    QMetaObject::invokeMethod(match_.worker(), "start_match", Qt::QueuedConnection, Q_ARG(meeplecam::Record, setup),
                              Q_ARG(QString, journal));
}

void LiveWindow::resume_match(const QString& journal) {
    QMetaObject::invokeMethod(match_.worker(), "resume_match", Qt::QueuedConnection, Q_ARG(QString, journal));
}

void LiveWindow::import_record(const QString& path, const QString& journal) {
    auto record = read_record(path.toStdString());
    if (!record) {
        show_panel(tr("Import failed"), QString::fromStdString(record.error().to_string()), true);
        return;
    }
    new_match(record.value(), journal.isEmpty() ? path + ".journal" : journal);
}

void LiveWindow::on_frame(const Frame& frame) {
    // Drop a backlog: only the newest frame is worth converting and painting.
    if (frame.index < latest_frame_.load()) return;
    last_frame_ = frame.image;
    live_->set_frame(frame);
}

void LiveWindow::on_source_state(FrameSource::State state, const QString& message) {
    source_status_ = message;
    live_->set_banner(state == FrameSource::State::Lost ? tr("camera lost — reconnecting") : QString());
    update_status();
}

void LiveWindow::on_frame_analysed(const FrameReport& report) {
    push_bounded(analysis_latency_ms_, static_cast<double>(steady_now_ns() - report.captured_ns) / 1e6);
    // The panel is rebuilt only when the question changes (the tracker repeats it every frame).
    QString question;
    if (!report.illegal.isEmpty()) question = "illegal:" + report.illegal;
    for (const MoveChoice& c : report.ambiguity) question += QString("|%1 %2 %3 %4").arg(QString::fromStdString(c.tile)).arg(c.at.x).arg(c.at.y).arg(c.rot);
    if (question != shown_question_ && report.analysed) {
        shown_question_ = question;
        if (!report.illegal.isEmpty()) {
            show_panel(tr("Illegal move on the table"), tr("%1\nNot recorded: put the tile where it fits.").arg(report.illegal), true);
        } else if (!report.ambiguity.empty()) {
            show_panel(tr("Which move was it?"), tr("The camera cannot tell these apart; please choose:"), false);
            for (std::size_t i = 0; i < report.ambiguity.size(); ++i) {
                const MoveChoice& c = report.ambiguity[i];
                auto* b = new QPushButton(tr("%1 at [%2, %3] %4° (%5%)")
                                              .arg(QString::fromStdString(c.tile))
                                              .arg(c.at.x)
                                              .arg(c.at.y)
                                              .arg(c.rot * 90)
                                              .arg(std::lround(c.confidence * 100)));
                const int index = static_cast<int>(i);
                connect(b, &QPushButton::clicked, this,
                        [this, index] { QMetaObject::invokeMethod(match_.worker(), "choose", Qt::QueuedConnection, Q_ARG(int, index)); });
                panel_buttons_->addWidget(b);
            }
        }
    }
    if (report.analysed) {
        const bool changed = report.must_return.size() != must_return_.size();
        must_return_ = report.must_return;
        if (changed) refresh();
    }
    for (const QString& note : report.notes) statusBar()->showMessage(note, 4000);
    if (!report.table_state.isEmpty() && report.notes.isEmpty()) statusBar()->showMessage(report.table_state, 2000);
    update_status();
}

void LiveWindow::update_status() {
    // The source's state names its path, and a lost camera the reason: at most 420 px of it
    // (elided in the middle, the whole in the tooltip), so fps and latency stay in view.
    const QString source = source_status_.isEmpty() ? tr("no camera") : source_status_;
    source_label_->setText(source_label_->fontMetrics().elidedText(source, Qt::ElideMiddle, 420));
    source_label_->setToolTip(source);
    fps_label_->setText(tr("%1 fps").arg(fps_, 0, 'f', 0));
    // "–" until a frame was shown (analysed): no median yet, not a 0 ms one.
    const auto ms = [](const std::deque<double>& values, double median_ms) {
        return values.empty() ? QStringLiteral("–") : QString::number(median_ms, 'f', 0);
    };
    latency_label_->setText(tr("frame→screen %1 ms · recognition %2 ms")
                                .arg(ms(frame_latency_ms_, median_frame_latency_ms()), ms(analysis_latency_ms_, median_analysis_latency_ms())));
}

double LiveWindow::median_frame_latency_ms() const { return median(frame_latency_ms_); }
double LiveWindow::median_analysis_latency_ms() const { return median(analysis_latency_ms_); }

QString LiveWindow::source_status() const { return source_status_; }
FinalScoreDialog* LiveWindow::final_score_dialog() const { return final_.data(); }

void LiveWindow::adopt(Record record) {
    ReplayOptions live;
    live.close_last_turn = false;
    live.apply_finish = false;
    auto open = replay(record, live);
    auto scored = replay(record);
    if (!open || !scored) {
        show_panel(tr("Cannot show the match"), QString::fromStdString((!open ? open.error() : scored.error()).to_string()), true);
        return;
    }
    record_ = std::move(record);
    open_ = std::make_unique<Game>(std::move(open.value()));
    scored_ = std::make_unique<Game>(std::move(scored.value()));
    refresh();
    if (record_.finished) show_final_score();
}

void LiveWindow::showEvent(QShowEvent* event) {
    QMainWindow::showEvent(event);
    scroll_to_end(moves_);
    scroll_to_end(score_events_);
}

void LiveWindow::refresh() {
    // Palette: every tile type with copies left, the current choice kept.
    const QString keep = drawn_tile_;
    palette_->blockSignals(true);
    palette_->clear();
    palette_->addItem(tr("(none)"), QString());
    if (open_) {
        for (const TileType& t : open_->catalog().tiles()) {
            const int left = open_->supply_left(t);
            if (left <= 0) continue;
            palette_->addItem(QIcon(QPixmap::fromImage(art_.art(t, 0))), tr("%1 (%2 left)").arg(QString::fromStdString(t.id)).arg(left),
                              QString::fromStdString(t.id));
        }
    }
    const int at = palette_->findData(keep);
    palette_->setCurrentIndex(at >= 0 ? at : 0);
    drawn_tile_ = palette_->currentData().toString();
    palette_->blockSignals(false);

    if (!open_) {
        board_->set_picture({});
        live_->set_overlay({});
        return;
    }
    BoardPicture pic = board_picture(*scored_, art_);
    if (!drawn_tile_.isEmpty() && !record_.finished) {
        if (const TileType* t = open_->catalog().find(drawn_tile_.toStdString())) add_placement_markers(pic, *open_, *t);
    }
    for (const FollowerMark& f : must_return_) {
        // A follower a scoring sent home is still on the table: a ring in its colour, to take off.
        auto it = std::find_if(pic.tiles.begin(), pic.tiles.end(), [&](const PictureTile& t) { return t.x == f.at.x && t.y == f.at.y; });
        if (it == pic.tiles.end()) continue;
        const auto port = parse_port(f.loc);
        const cv::Point2d p = vision::port_point(port ? *port : kCentre, /*inset=*/0.18);
        it->followers.push_back({QPointF(p.x, p.y), player_color(f.colour), /*returning=*/true});
    }
    live_->set_overlay(pic);
    board_->set_picture(std::move(pic));

    std::vector<ScoreRow> rows;
    for (std::size_t p = 0; p < scored_->players().size(); ++p) {
        rows.push_back({QString::fromStdString(scored_->players()[p].name), QString::fromStdString(scored_->players()[p].color),
                        scored_->scores()[p], scored_->followers_left(static_cast<int>(p))});
    }
    scores_->set_rows(std::move(rows));
    moves_->clear();
    for (std::size_t i = 0; i < record_.events.size(); ++i) moves_->addItem(event_line(static_cast<int>(i), record_.events[i]));
    scroll_to_end(moves_);
    score_events_->clear();
    for (const ScoreEvent& ev : scored_->score_events()) {
        QString who;
        for (int w : ev.winners) who += (who.isEmpty() ? "" : ", ") + QString::fromStdString(scored_->players()[static_cast<std::size_t>(w)].color);
        score_events_->addItem(QString::fromStdString(ev.explanation) + " → " + (who.isEmpty() ? tr("nobody") : who));
    }
    scroll_to_end(score_events_);
    followers_->clear();
    if (open_->turn_player() >= 0) {
        for (const FollowerOption& o : open_->current_follower_options()) {
            const QString port = QString::fromStdString(std::string(port_name(o.loc)));
            followers_->addItem(tr("%1 (%2)").arg(port, QString::fromStdString(std::string(feature_kind_name(o.kind)))), port);
        }
    }
    const int next = open_->next_player();
    setWindowTitle(tr("meeplecam — live — %1 to play").arg(record_.finished || next < 0 ? tr("nobody")
                                                                                         : QString::fromStdString(open_->players()[static_cast<std::size_t>(next)].name)));
}

void LiveWindow::set_drawn_tile(const QString& tile) {
    drawn_tile_ = tile;
    const int at = palette_->findData(tile);
    if (at >= 0 && palette_->currentIndex() != at) {
        palette_->blockSignals(true);
        palette_->setCurrentIndex(at);
        palette_->blockSignals(false);
    }
    refresh();
}

void LiveWindow::place_drawn_tile(int x, int y) {
    if (!open_ || drawn_tile_.isEmpty()) return;
    const TileType* type = open_->catalog().find(drawn_tile_.toStdString());
    if (!type) return;
    std::vector<int> rots;
    for (const Placement& p : open_->legal_placements(*type)) {
        if (p.at == Cell{x, y}) rots.push_back(p.rot);
    }
    if (rots.size() == 1 || rots.empty()) {
        place_tile(x, y, rots.empty() ? 0 : rots.front());  // none: the engine names the rule it breaks
        return;
    }
    // Several rotations fit: ask without blocking the view.
    show_panel(tr("Which way is %1 turned?").arg(drawn_tile_), tr("Several rotations fit at [%1, %2]:").arg(x).arg(y), false);
    for (int r : rots) {
        auto* b = new QPushButton(tr("%1°").arg(r * 90));
        b->setIcon(QIcon(QPixmap::fromImage(art_.art(*type, r))));
        connect(b, &QPushButton::clicked, this, [this, x, y, r] { place_tile(x, y, r); });
        panel_buttons_->addWidget(b);
    }
}

void LiveWindow::place_tile(int x, int y, int rot) {
    if (!open_) return;
    Event e;
    e.type = "tile";
    e.tile = drawn_tile_.toStdString();
    e.at = {x, y};
    e.rot = rot;
    if (!record_.events.empty()) e.player = open_->players()[static_cast<std::size_t>(open_->next_player())].color;
    e.raw = e.to_json();
    clear_panel();
    QMetaObject::invokeMethod(match_.worker(), "play", Qt::QueuedConnection, Q_ARG(meeplecam::Event, e));
}

void LiveWindow::place_follower(const QString& loc) {
    if (!open_ || open_->turn_player() < 0 || open_->turn_tile() < 0) return;
    const PlacedTile& t = open_->board().tiles()[static_cast<std::size_t>(open_->turn_tile())];
    Event e;
    e.type = "meeple";
    e.player = open_->players()[static_cast<std::size_t>(open_->turn_player())].color;
    e.at = t.at;
    e.loc = loc.toStdString();
    e.raw = e.to_json();
    QMetaObject::invokeMethod(match_.worker(), "play", Qt::QueuedConnection, Q_ARG(meeplecam::Event, e));
}

void LiveWindow::undo_last_move() { QMetaObject::invokeMethod(match_.worker(), "undo_last_move", Qt::QueuedConnection); }
void LiveWindow::finish_game() { QMetaObject::invokeMethod(match_.worker(), "finish", Qt::QueuedConnection); }

void LiveWindow::export_record(const QString& path) {
    QMetaObject::invokeMethod(match_.worker(), "export_record", Qt::QueuedConnection, Q_ARG(QString, path));
}

void LiveWindow::show_final_score() {
    if (!final_) final_ = new FinalScoreDialog(this);
    if (auto st = final_->show_record(record_); !st) {
        show_panel(tr("Cannot score"), QString::fromStdString(st.error().to_string()), true);
        return;
    }
    final_->show();  // non-modal: the live view keeps running
}

void LiveWindow::request_choices(int x, int y, bool follower) {
    QMetaObject::invokeMethod(match_.worker(), "find_corrections", Qt::QueuedConnection, Q_ARG(meeplecam::Cell, (Cell{x, y})),
                              Q_ARG(bool, follower), Q_ARG(int, ++choices_request_));
}

void LiveWindow::on_corrections_found(const CorrectionChoices& choices) {
    if (choices.request != choices_request_) return;  // an older click's answer
    choices_ = choices;
    if (menu_) {
        menu_->clear();
        const int x = choices.at.x, y = choices.at.y;
        if (choices.follower) {
            for (const PieceChoice& c : choices.pieces) {
                connect(menu_->addAction(c.label), &QAction::triggered, this, [this, x, y, c] { correct_piece(x, y, c); });
            }
        } else {
            for (std::size_t i = 0; i < choices.tiles.size() && i < 16; ++i) {
                const TileChoice c = choices.tiles[i];
                connect(menu_->addAction(c.label), &QAction::triggered, this, [this, x, y, c] { correct_tile(x, y, c); });
            }
        }
        if (choices.tiles.empty() && choices.pieces.empty()) menu_->addAction(tr("no other choice fits here"))->setEnabled(false);
        if (menu_->isVisible()) menu_->adjustSize();
    }
    emit choices_shown(choices);
}

void LiveWindow::correct_tile(int x, int y, const TileChoice& choice) {
    QMetaObject::invokeMethod(match_.worker(), "correct_tile", Qt::QueuedConnection, Q_ARG(meeplecam::Cell, (Cell{x, y})),
                              Q_ARG(QString, QString::fromStdString(choice.tile)), Q_ARG(int, choice.rot));
}

void LiveWindow::correct_piece(int x, int y, const PieceChoice& choice) {
    QMetaObject::invokeMethod(match_.worker(), "correct_piece", Qt::QueuedConnection, Q_ARG(meeplecam::Cell, (Cell{x, y})),
                              Q_ARG(QString, QString::fromStdString(choice.colour)), Q_ARG(QString, QString::fromStdString(choice.loc)));
}

void LiveWindow::on_board_click(int x, int y, QPointF within) {
    if (!open_) return;
    const int tile = open_->board().tile_at({x, y});
    if (tile < 0) {
        place_drawn_tile(x, y);
        return;
    }
    // A click near a follower corrects the follower; elsewhere on the tile, the tile.
    bool on_follower = false;
    for (const Follower& f : open_->board().followers()) {
        if (!f.on_board || f.at != Cell{x, y}) continue;
        const cv::Point2d p = vision::port_point(f.loc, /*inset=*/0.18);
        on_follower |= std::hypot(p.x - within.x(), p.y - within.y()) < 0.15;
    }
    // The choices are found on the match thread (each is a replay of the record): the menu
    // opens at once and fills when they arrive.
    if (menu_) menu_->close();
    menu_ = new QMenu(this);
    menu_->setAttribute(Qt::WA_DeleteOnClose);
    menu_->addAction(tr("looking for the choices…"))->setEnabled(false);
    menu_->popup(QCursor::pos());  // non-blocking
    request_choices(x, y, on_follower);
}

void LiveWindow::show_panel(const QString& title, const QString& text, bool alarm) {
    clear_panel();
    panel_->setTitle(title);
    panel_->setStyleSheet(alarm ? "QGroupBox { background: #ffe0e0; } QGroupBox::title { color: #a00000; }"
                                : "QGroupBox { background: #fff6d0; }");
    panel_label_->setText(text);
    panel_->show();
}

void LiveWindow::clear_panel() {
    while (QLayoutItem* item = panel_buttons_->takeAt(0)) {
        delete item->widget();
        delete item;
    }
    panel_label_->clear();
    panel_->hide();
}

QString LiveWindow::panel_text() const { return panel_->isVisible() || !panel_label_->text().isEmpty() ? panel_->title() + ": " + panel_label_->text() : QString(); }

QStringList LiveWindow::move_lines() const {
    QStringList out;
    for (int i = 0; i < moves_->count(); ++i) out << moves_->item(i)->text();
    return out;
}

QStringList LiveWindow::score_lines() const {
    QStringList out;
    for (int i = 0; i < score_events_->count(); ++i) out << score_events_->item(i)->text();
    return out;
}

void LiveWindow::new_game_dialog() {
    auto* dialog = new NewGameDialog(this);
    dialog->setAttribute(Qt::WA_DeleteOnClose);
    dialog->load_settings();
    connect(dialog, &QDialog::accepted, this, [this, dialog] {
        auto setup = dialog->setup();
        if (setup) new_match(setup.value(), journal_);
    });
    dialog->open();  // window-modal, but the event loop (and the live view) keeps running
}

}  // namespace meeplecam::ui
