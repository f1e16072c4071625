#include "ui/score_chart.h"

#include <QPainter>
#include <QPainterPath>

#include <algorithm>

#include "engine/correction.h"
#include "ui/board_picture.h"

namespace meeplecam::ui {

std::vector<ScoreSeries> score_series(const Record& record) {
    std::vector<ScoreSeries> series;
    for (const auto& p : record.players) series.push_back({QString::fromStdString(p.color), player_color(p.color), {0}});
    const int count = static_cast<int>(record.events.size());
    for (int i = 2; i <= count; ++i) {
        const bool turn_ends = i == count || record.events[static_cast<std::size_t>(i)].type == "tile";
        if (!turn_ends) continue;
        Record prefix = record_prefix(record, static_cast<std::size_t>(i));
        prefix.finished = record.finished && i == count;
        auto game = replay(prefix);
        if (!game) break;
        for (std::size_t p = 0; p < series.size(); ++p) series[p].scores.push_back(game->scores()[p]);
    }
    return series;
}

void ScoreChart::set_series(std::vector<ScoreSeries> series) {
    series_ = std::move(series);
    update();
}

void ScoreChart::set_cursor(int turn) {
    cursor_ = turn;
    update();
}

void ScoreChart::paintEvent(QPaintEvent* /*event*/) {
    QPainter p(this);
    p.setRenderHint(QPainter::Antialiasing);
    p.fillRect(rect(), Qt::white);
    const QRectF plot = QRectF(rect()).adjusted(40, 12, -12, -28);
    int lo = 0, hi = 1;
    std::size_t turns = 1;
    for (const auto& s : series_) {
        for (int v : s.scores) {
            lo = std::min(lo, v);
            hi = std::max(hi, v);
        }
        turns = std::max(turns, s.scores.size());
    }
    auto to_point = [&](std::size_t turn, int v) {
        const double x = plot.left() + plot.width() * static_cast<double>(turn) / static_cast<double>(std::max<std::size_t>(1, turns - 1));
        const double y = plot.bottom() - plot.height() * (v - lo) / static_cast<double>(hi - lo);
        return QPointF(x, y);
    };
    p.setPen(QColor(120, 120, 120));
    p.drawLine(plot.bottomLeft(), plot.bottomRight());
    p.drawLine(plot.bottomLeft(), plot.topLeft());
    p.drawText(QRectF(0, plot.top() - 6, 36, 14), Qt::AlignRight, QString::number(hi));
    p.drawText(QRectF(0, plot.bottom() - 8, 36, 14), Qt::AlignRight, QString::number(lo));
    p.drawText(QRectF(plot.left(), plot.bottom() + 6, plot.width(), 16), Qt::AlignCenter, tr("turns"));
    if (cursor_ >= 0 && turns > 1) {
        p.setPen(QPen(QColor(200, 200, 200), 1, Qt::DashLine));
        const double x = to_point(static_cast<std::size_t>(cursor_), lo).x();
        p.drawLine(QPointF(x, plot.top()), QPointF(x, plot.bottom()));
    }
    int legend_y = static_cast<int>(plot.top());
    for (const auto& s : series_) {
        if (s.scores.empty()) continue;
        QPainterPath path(to_point(0, s.scores[0]));
        for (std::size_t t = 1; t < s.scores.size(); ++t) path.lineTo(to_point(t, s.scores[t]));
        p.setPen(QPen(s.color, 2));
        p.setBrush(Qt::NoBrush);
        p.drawPath(path);
        p.drawText(QPointF(plot.left() + 6, legend_y + 12), s.name + "  " + QString::number(s.scores.back()));
        legend_y += 14;
    }
}

}  // namespace meeplecam::ui
