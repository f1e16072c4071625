#include "ui/board_view.h"

#include <QPainter>

#include <algorithm>

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

void BoardView::paintEvent(QPaintEvent* /*event*/) {
    QPainter p(this);
    p.setRenderHint(QPainter::Antialiasing);
    p.setRenderHint(QPainter::SmoothPixmapTransform);
    if (picture_.tiles.empty()) {
        p.drawText(rect(), Qt::AlignCenter, tr("No tiles yet"));
        return;
    }
    const int cols = picture_.max_x - picture_.min_x + 1;
    const int rows = picture_.max_y - picture_.min_y + 1;
    const double cell = std::max(4.0, std::min((width() - 20.0) / cols, (height() - 20.0) / rows));
    const double ox = (width() - cell * cols) / 2.0, oy = (height() - cell * rows) / 2.0;
    for (const PictureTile& t : picture_.tiles) {
        const QRectF r(ox + (t.x - picture_.min_x) * cell, oy + (t.y - picture_.min_y) * cell, cell, cell);
        p.drawImage(r, t.art);
        p.setPen(QPen(QColor(60, 50, 40), 1));
        p.setBrush(Qt::NoBrush);  // an outline only: the art stays visible
        p.drawRect(r);
        for (const PictureFollower& f : t.followers) {
            const QPointF c(r.left() + f.where.x() * cell, r.top() + f.where.y() * cell);
            p.setPen(QPen(Qt::white, std::max(1.0, cell * 0.03)));
            p.setBrush(f.color);
            p.drawEllipse(c, cell * 0.11, cell * 0.11);
        }
        if (cell >= 48) {
            p.setPen(QColor(20, 20, 20));
            p.drawText(r.adjusted(3, 2, -3, -2), Qt::AlignLeft | Qt::AlignTop, t.label);
        }
    }
}

}  // namespace meeplecam::ui
