#include "ui/final_score.h"

#include <QHeaderView>
#include <QLabel>
#include <QTableWidget>
#include <QVBoxLayout>

#include <set>

#include "ui/score_chart.h"

namespace meeplecam::ui {

std::vector<ScoreBreakdown> score_breakdown(const Game& game) {
    std::vector<ScoreBreakdown> out;
    for (std::size_t p = 0; p < game.players().size(); ++p) {
        out.push_back({QString::fromStdString(game.players()[p].name), QString::fromStdString(game.players()[p].color), {}, game.scores()[p]});
    }
    for (const ScoreEvent& ev : game.score_events()) {
        for (int w : ev.winners) out[static_cast<std::size_t>(w)].by_feature[ev.feature] += ev.points;
    }
    return out;
}

FinalScoreDialog::FinalScoreDialog(QWidget* parent) : QDialog(parent) {
    setWindowTitle(tr("Final score"));
    table_ = new QTableWidget;
    table_->verticalHeader()->hide();
    table_->setEditTriggers(QAbstractItemView::NoEditTriggers);
    chart_ = new ScoreChart;
    auto* layout = new QVBoxLayout(this);
    layout->addWidget(new QLabel(tr("Points per player and feature")));
    layout->addWidget(table_, 1);
    chart_label_ = new QLabel(tr("Score over the turns"));
    layout->addWidget(chart_label_);
    layout->addWidget(chart_, 1);
    resize(720, 560);
}

Status FinalScoreDialog::show_record(const Record& record) {
    auto game = replay(record);
    if (!game) return game.error();
    fill_table(game.value());
    chart_->set_series(score_series(record));
    chart_->show();
    chart_label_->show();
    setWindowTitle(record.finished ? tr("Final score") : tr("Score so far (the game is not finished)"));
    return Ok{};
}

void FinalScoreDialog::show_game(const Game& game, const QString& title) {
    fill_table(game);
    chart_->hide();  // a game without turns (a photo) has no score over the turns
    chart_label_->hide();
    setWindowTitle(title);
}

void FinalScoreDialog::fill_table(const Game& game) {
    const auto rows = score_breakdown(game);
    std::set<std::string> features;
    for (const auto& r : rows) {
        for (const auto& [f, pts] : r.by_feature) features.insert(f);
    }
    QStringList headers{tr("Player"), tr("Colour")};
    for (const auto& f : features) headers << QString::fromStdString(f);
    headers << tr("Total");
    table_->clear();
    table_->setColumnCount(static_cast<int>(headers.size()));
    table_->setRowCount(static_cast<int>(rows.size()));
    table_->setHorizontalHeaderLabels(headers);
    for (int i = 0; i < static_cast<int>(rows.size()); ++i) {
        const auto& r = rows[static_cast<std::size_t>(i)];
        int col = 0;
        table_->setItem(i, col++, new QTableWidgetItem(r.name));
        table_->setItem(i, col++, new QTableWidgetItem(r.color));
        for (const auto& f : features) {
            auto it = r.by_feature.find(f);
            table_->setItem(i, col++, new QTableWidgetItem(QString::number(it == r.by_feature.end() ? 0 : it->second)));
        }
        auto* total = new QTableWidgetItem(QString::number(r.total));
        QFont bold = total->font();
        bold.setBold(true);
        total->setFont(bold);
        table_->setItem(i, col, total);
    }
    table_->horizontalHeader()->setSectionResizeMode(QHeaderView::Stretch);
}

}  // namespace meeplecam::ui
