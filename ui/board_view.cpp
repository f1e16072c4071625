#include "ui/board_view.h"

#include <QMouseEvent>
#include <QPainter>
#include <QSplitter>

#include <algorithm>
#include <cmath>

namespace meeplecam::ui {

BoardView::BoardView(QWidget* parent) : QWidget(parent) {
    setAutoFillBackground(true);
    QPalette pal = palette();
    pal.setColor(QPalette::Window, QColor(196, 170, 130));  // a wooden table
    setPalette(pal);
}

void BoardView::set_picture(BoardPicture picture) {
    picture_ = std::move(picture);
    update();
}

void BoardView::lay_out() {
    // A cell is never drawn larger than this: the start tile alone fit to the whole view was a
    // 370 px tile at 1400x900 (the catalog art is 96 px), which read as a zoomed-in photo.
    constexpr double kMaxCellPx = 160;
    const int cols = picture_.max_x - picture_.min_x + 1;
    const int rows = picture_.max_y - picture_.min_y + 1;
    cell_ = std::max(4.0, std::min({kMaxCellPx, (width() - 20.0) / cols, (height() - 20.0) / rows}));
    ox_ = (width() - cell_ * cols) / 2.0;
    oy_ = (height() - cell_ * rows) / 2.0;
}

QRectF BoardView::cell_rect(int x, int y) const {
    if (cell_ <= 0) return {};
    return {ox_ + (x - picture_.min_x) * cell_, oy_ + (y - picture_.min_y) * cell_, cell_, cell_};
}

void BoardView::mousePressEvent(QMouseEvent* event) {
    if (picture_.tiles.empty() && picture_.markers.empty()) return;
    lay_out();
    const QPointF pos = event->position();
    const double fx = (pos.x() - ox_) / cell_ + picture_.min_x, fy = (pos.y() - oy_) / cell_ + picture_.min_y;
    const int x = static_cast<int>(std::floor(fx)), y = static_cast<int>(std::floor(fy));
    emit cell_clicked(x, y, QPointF(fx - x, fy - y));
}

void BoardView::paintEvent(QPaintEvent* /*event*/) {
    QPainter p(this);
    p.setRenderHint(QPainter::Antialiasing);
    p.setRenderHint(QPainter::SmoothPixmapTransform);
    if (picture_.tiles.empty() && picture_.markers.empty()) {
        p.drawText(rect(), Qt::AlignCenter, tr("No tiles yet"));
        return;
    }
    lay_out();
    const double cell = cell_;
    for (const PictureTile& t : picture_.tiles) {
        const QRectF r = cell_rect(t.x, t.y);
        p.drawImage(r, t.art);
        p.setPen(QPen(QColor(60, 50, 40), 1));
        p.setBrush(Qt::NoBrush);  // an outline only: the art stays visible
        p.drawRect(r);
        if (cell >= 48) {
            p.setPen(QColor(20, 20, 20));
            p.drawText(r.adjusted(3, 2, -3, -2), Qt::AlignLeft | Qt::AlignTop, t.label);
        }
    }
    // Completed features: a gold frame inside each of their cells.
    p.setBrush(Qt::NoBrush);
    p.setPen(QPen(QColor(255, 200, 0, 200), std::max(2.0, cell * 0.05)));
    for (const auto& [x, y] : picture_.highlighted) p.drawRect(cell_rect(x, y).adjusted(cell * 0.06, cell * 0.06, -cell * 0.06, -cell * 0.06));
    // Followers above the frames.
    for (const PictureTile& t : picture_.tiles) {
        const QRectF r = cell_rect(t.x, t.y);
        for (const PictureFollower& f : t.followers) {
            const QPointF c(r.left() + f.where.x() * cell, r.top() + f.where.y() * cell);
            if (f.returning) {  // a ring: take it off the table
                p.setPen(QPen(f.color, std::max(2.0, cell * 0.05)));
                p.setBrush(Qt::NoBrush);
                p.drawEllipse(c, cell * 0.16, cell * 0.16);
                continue;
            }
            p.setPen(QPen(Qt::white, std::max(1.0, cell * 0.03)));
            p.setBrush(f.color);
            p.drawEllipse(c, cell * 0.11, cell * 0.11);
        }
    }
    // Legal placements of the drawn tile: translucent green cells with their rotations.
    for (const PictureMarker& m : picture_.markers) {
        const QRectF r = cell_rect(m.x, m.y).adjusted(2, 2, -2, -2);
        p.setPen(QPen(QColor(0, 140, 0), 2, Qt::DashLine));
        p.setBrush(QColor(60, 220, 60, 90));
        p.drawRect(r);
        if (cell >= 32) {
            p.setPen(QColor(0, 60, 0));
            p.drawText(r, Qt::AlignCenter | Qt::TextWordWrap, m.label);
        }
    }
}

QWidget* picture_board_and_side(QWidget* picture, BoardView* board, QWidget* side) {
    auto* views = new QSplitter(Qt::Vertical);
    views->addWidget(picture);
    views->addWidget(board);
    views->setStretchFactor(0, 3);
    views->setStretchFactor(1, 2);
    auto* split = new QSplitter;
    split->addWidget(views);
    split->addWidget(side);
    split->setStretchFactor(0, 3);
    split->setStretchFactor(1, 2);
    return split;
}

}  // namespace meeplecam::ui
