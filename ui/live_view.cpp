#include "ui/live_view.h"

#include <QPainter>
#include <QPainterPath>

#include <cmath>

#include <opencv2/imgproc.hpp>

namespace meeplecam::ui {
namespace {

QPointF project(const cv::Matx33d& h, double x, double y) {
    const cv::Vec3d p = h * cv::Vec3d(x, y, 1.0);
    return {p[0] / p[2], p[1] / p[2]};
}

}  // namespace

LiveView::LiveView(QWidget* parent) : QWidget(parent) {
    setAutoFillBackground(true);
    QPalette pal = palette();
    pal.setColor(QPalette::Window, QColor(30, 30, 30));
    setPalette(pal);
}

void LiveView::set_frame(const Frame& frame) {
    if (frame.image.empty() || frame.image.type() != CV_8UC3) return;
    QImage rgb(frame.image.cols, frame.image.rows, QImage::Format_RGB888);
    cv::Mat dst(rgb.height(), rgb.width(), CV_8UC3, rgb.bits(), static_cast<std::size_t>(rgb.bytesPerLine()));
    cv::cvtColor(frame.image, dst, cv::COLOR_BGR2RGB);
    image_ = std::move(rgb);
    index_ = frame.index;
    captured_ns_ = frame.captured_ns;
    reported_ = false;
    update();
}

void LiveView::set_overlay(BoardPicture picture) {
    overlay_ = std::move(picture);
    update();
}

void LiveView::set_geometry(std::optional<TableGeometry> geometry) {
    geometry_ = geometry;
    update();
}

void LiveView::set_banner(const QString& text) {
    banner_ = text;
    update();
}

void LiveView::paintEvent(QPaintEvent* /*event*/) {
    QPainter p(this);
    p.setRenderHint(QPainter::Antialiasing);
    if (image_.isNull()) {
        p.setPen(Qt::white);
        p.drawText(rect(), Qt::AlignCenter, banner_.isEmpty() ? tr("No camera frame yet") : banner_);
        return;
    }
    // The part of the frame shown: the board and two cells around it when the table is
    // calibrated (the overlay stays readable), else the whole frame; fit keeping the aspect.
    QRectF source(0, 0, image_.width(), image_.height());
    if (geometry_ && !overlay_.tiles.empty()) {
        QPolygonF corners;
        const double pm = geometry_->pitch_mm;
        for (double x : {overlay_.min_x - 2.5, overlay_.max_x + 2.5}) {
            for (double y : {overlay_.min_y - 2.5, overlay_.max_y + 2.5}) corners << project(geometry_->table_to_image, x * pm, y * pm);
        }
        source = corners.boundingRect().intersected(source);
        if (source.width() < 16 || source.height() < 16) source = QRectF(0, 0, image_.width(), image_.height());
    }
    const double s = std::min(width() / source.width(), height() / source.height());
    const double ox = (width() - s * source.width()) / 2, oy = (height() - s * source.height()) / 2;
    p.drawImage(QRectF(ox, oy, s * source.width(), s * source.height()), image_, source);
    if (geometry_) {
        p.save();
        p.setClipRect(QRectF(ox, oy, s * source.width(), s * source.height()));
        p.translate(ox - s * source.left(), oy - s * source.top());
        p.scale(s, s);
        const cv::Matx33d& h = geometry_->table_to_image;
        const double pitch = geometry_->pitch_mm;
        auto cell_polygon = [&](int x, int y, double inset) {
            const double a = 0.5 - inset;
            QPolygonF poly;
            poly << project(h, (x - a) * pitch, (y - a) * pitch) << project(h, (x + a) * pitch, (y - a) * pitch)
                 << project(h, (x + a) * pitch, (y + a) * pitch) << project(h, (x - a) * pitch, (y + a) * pitch);
            return poly;
        };
        const double line = 2.0 / s;  // two screen pixels
        // Grid over the board's bounds and one cell around them.
        p.setPen(QPen(QColor(255, 255, 255, 110), line));
        for (int x = overlay_.min_x - 1; x <= overlay_.max_x + 2; ++x) {
            p.drawLine(project(h, (x - 0.5) * pitch, (overlay_.min_y - 1.5) * pitch),
                       project(h, (x - 0.5) * pitch, (overlay_.max_y + 1.5) * pitch));
        }
        for (int y = overlay_.min_y - 1; y <= overlay_.max_y + 2; ++y) {
            p.drawLine(project(h, (overlay_.min_x - 1.5) * pitch, (y - 0.5) * pitch),
                       project(h, (overlay_.max_x + 1.5) * pitch, (y - 0.5) * pitch));
        }
        p.setBrush(Qt::NoBrush);
        p.setPen(QPen(QColor(255, 200, 0, 220), 3 * line));
        for (const auto& [x, y] : overlay_.highlighted) p.drawPolygon(cell_polygon(x, y, 0.08));
        p.setPen(QPen(QColor(0, 160, 0), line, Qt::DashLine));
        p.setBrush(QColor(60, 220, 60, 90));
        for (const PictureMarker& m : overlay_.markers) p.drawPolygon(cell_polygon(m.x, m.y, 0.04));
        QFont f = font();
        for (const PictureTile& t : overlay_.tiles) {
            const QPointF c = project(h, t.x * pitch, t.y * pitch);
            const QPointF east = project(h, (t.x + 1) * pitch, t.y * pitch);
            const double pitch_px = std::hypot(east.x() - c.x(), east.y() - c.y());
            if (pitch_px * s >= 36) {  // a label only where the tile is big enough on screen to carry one
                f.setPixelSize(std::max(4, static_cast<int>(pitch_px * 0.2)));
                p.setFont(f);
                p.setPen(Qt::black);
                p.setBrush(QColor(255, 255, 255, 170));
                const QRectF box(c.x() - 0.36 * pitch_px, c.y() - 0.14 * pitch_px, 0.72 * pitch_px, 0.28 * pitch_px);
                p.drawRoundedRect(box, 0.04 * pitch_px, 0.04 * pitch_px);
                p.drawText(box, Qt::AlignCenter, t.label);
            }
            for (const PictureFollower& fol : t.followers) {
                const double fx = (t.x - 0.5 + fol.where.x()) * pitch, fy = (t.y - 0.5 + fol.where.y()) * pitch;
                const QPointF at = project(h, fx, fy);
                const QPointF edge = project(h, fx + 0.1 * pitch, fy);
                const double r = std::hypot(edge.x() - at.x(), edge.y() - at.y());
                p.setPen(QPen(fol.returning ? fol.color : QColor(Qt::white), fol.returning ? 3 * line : line));
                p.setBrush(fol.returning ? QBrush(Qt::NoBrush) : QBrush(fol.color));
                p.drawEllipse(at, fol.returning ? 1.5 * r : r, fol.returning ? 1.5 * r : r);
            }
        }
        p.restore();
    }
    if (!banner_.isEmpty()) {
        QFont f = font();
        f.setPointSize(16);
        f.setBold(true);
        p.setFont(f);
        const QRectF box(0, 0, width(), 40);
        p.fillRect(box, QColor(180, 0, 0, 200));
        p.setPen(Qt::white);
        p.drawText(box, Qt::AlignCenter, banner_);
    }
    if (!reported_) {
        reported_ = true;
        emit frame_shown(index_, static_cast<double>(steady_now_ns() - captured_ns_) / 1e6);
    }
}

}  // namespace meeplecam::ui
