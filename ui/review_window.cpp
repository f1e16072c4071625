#include "ui/review_window.h"

#include <QAction>
#include <QFileDialog>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QKeySequence>
#include <QLabel>
#include <QListWidget>
#include <QMenuBar>
#include <QSlider>
#include <QSplitter>
#include <QStatusBar>
#include <QTableView>
#include <QVBoxLayout>

#include "engine/correction.h"
#include "engine/score_sheet.h"
#include "ui/board_view.h"
#include "ui/score_chart.h"
#include "ui/score_table_model.h"

namespace meeplecam::ui {
namespace {

// Replays the first `count` events of a record (the last turn closed, final scoring when the
// whole finished record is shown).
Result<Game> replay_prefix(const Record& record, int count) {
    Record prefix = record_prefix(record, static_cast<std::size_t>(count));
    prefix.finished = record.finished && count == static_cast<int>(record.events.size());
    return replay(prefix);
}

}  // namespace

ReviewWindow::ReviewWindow(QWidget* parent) : QMainWindow(parent) {
    setWindowTitle(tr("meeplecam — review"));
    board_ = new BoardView;
    chart_ = new ScoreChart;
    scores_ = new ScoreTableModel(this);
    table_ = new QTableView;
    table_->setModel(scores_);
    table_->horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
    table_->verticalHeader()->hide();
    events_ = new QListWidget;
    events_->setWordWrap(true);

    slider_ = new QSlider(Qt::Horizontal);
    slider_->setRange(0, 0);
    step_label_ = new QLabel(tr("no record"));
    connect(slider_, &QSlider::valueChanged, this, &ReviewWindow::show_step);

    auto* side = new QWidget;
    auto* side_layout = new QVBoxLayout(side);
    side_layout->addWidget(new QLabel(tr("Scoreboard")));
    side_layout->addWidget(table_, 1);
    side_layout->addWidget(new QLabel(tr("Score over the turns")));
    side_layout->addWidget(chart_, 1);
    side_layout->addWidget(new QLabel(tr("Scoring events")));
    side_layout->addWidget(events_, 2);

    auto* split = new QSplitter;
    split->addWidget(board_);
    split->addWidget(side);
    split->setStretchFactor(0, 3);
    split->setStretchFactor(1, 2);

    auto* central = new QWidget;
    auto* layout = new QVBoxLayout(central);
    layout->addWidget(split, 1);
    auto* bottom = new QHBoxLayout;
    bottom->addWidget(slider_, 1);
    bottom->addWidget(step_label_);
    layout->addLayout(bottom);
    setCentralWidget(central);

    auto* file = menuBar()->addMenu(tr("&File"));
    QAction* open = file->addAction(tr("&Open record…"));
    open->setShortcut(QKeySequence::Open);
    connect(open, &QAction::triggered, this, &ReviewWindow::open_dialog);
    QAction* quit = file->addAction(tr("&Quit"));
    quit->setShortcut(QKeySequence::Quit);
    connect(quit, &QAction::triggered, this, &QWidget::close);
    resize(1280, 800);
}

ReviewWindow::~ReviewWindow() = default;

int ReviewWindow::event_count() const { return record_ ? static_cast<int>(record_->events.size()) : 0; }

void ReviewWindow::open_dialog() {
    const QString path = QFileDialog::getOpenFileName(this, tr("Open a match record"), QString(),
                                                      tr("Match records (*.json);;All files (*)"));
    if (!path.isEmpty()) (void)open_record(path);
}

Status ReviewWindow::open_record(const QString& path) {
    auto record = read_record(path.toStdString());
    if (record) {
        auto whole = replay(record.value());  // refuse an illegal record before showing anything
        if (!whole) {
            Error e = whole.error();
            e.where = path.toStdString() + ": " + e.where;
            record = e;
        }
    }
    if (!record) {
        statusBar()->showMessage(tr("Could not open: %1").arg(QString::fromStdString(record.error().to_string())));
        return record.error();
    }
    record_ = std::move(record.value());
    path_ = path;
    setWindowTitle(tr("meeplecam — review — %1").arg(path));
    build_chart();
    slider_->blockSignals(true);
    slider_->setRange(0, event_count());
    slider_->setValue(event_count());
    slider_->blockSignals(false);
    show_step(event_count());
    statusBar()->showMessage(tr("%1 events, %2 players").arg(event_count()).arg(record_->players.size()));
    return Ok{};
}

void ReviewWindow::build_chart() { chart_->set_series(score_series(*record_)); }

void ReviewWindow::show_step(int events) {
    if (!record_) return;
    events = std::clamp(events, 0, event_count());
    auto game = replay_prefix(*record_, events);
    if (!game) {
        statusBar()->showMessage(QString::fromStdString(game.error().to_string()));
        return;
    }
    step_ = events;
    if (slider_->value() != events) slider_->setValue(events);
    board_->set_picture(board_picture(game.value(), art_));
    std::vector<ScoreRow> rows;
    for (std::size_t p = 0; p < game->players().size(); ++p) {
        rows.push_back({QString::fromStdString(game->players()[p].name), QString::fromStdString(game->players()[p].color),
                        game->scores()[p], game->followers_left(static_cast<int>(p))});
    }
    scores_->set_rows(std::move(rows));
    events_->clear();
    for (const auto& ev : game->score_events()) {
        QString who;
        for (int w : ev.winners) who += (who.isEmpty() ? "" : ", ") + QString::fromStdString(game->players()[w].color);
        events_->addItem(QString::fromStdString(ev.explanation) + " → " + who);
    }
    int turns = 0;
    for (int i = 1; i < events; ++i) turns += record_->events[static_cast<std::size_t>(i)].type == "tile" ? 1 : 0;
    chart_->set_cursor(turns);
    // A correction is shown as such, in one line.
    const Event* last = events > 0 ? &record_->events[static_cast<std::size_t>(events - 1)] : nullptr;
    step_label_->setText(last && last->type == "correction"
                             ? tr("event %1 / %2 — %3").arg(events).arg(event_count()).arg(QString::fromStdString(describe_correction(*last)))
                             : tr("event %1 / %2").arg(events).arg(event_count()));
}

QString ReviewWindow::step_text() const { return step_label_->text(); }

QStringList ReviewWindow::score_lines() const {
    QStringList out;
    for (int i = 0; i < events_->count(); ++i) out << events_->item(i)->text();
    return out;
}

}  // namespace meeplecam::ui
