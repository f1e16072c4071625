// LiveView: the camera frame with the board drawn over it — grid, tile labels, legal
// placements of the drawn tile, completed features, followers — projected with the
// table -> image homography when the table is calibrated; the bare frame otherwise.
#pragma once

#include <QImage>
#include <QWidget>

#include <cstdint>
#include <optional>

#include <opencv2/core.hpp>

#include "ui/board_picture.h"
#include "ui/frame_source.h"

namespace meeplecam::ui {

// How board cells map into the camera image: cell (x, y) is centred at (x, y) * pitch_mm on
// the table (the start tile's centre is the origin, see session/tracker.h).
struct TableGeometry {
    cv::Matx33d table_to_image = cv::Matx33d::eye();  // table mm -> image px
    double pitch_mm = 46.0;                            // tile side + gap
};

class LiveView : public QWidget {
    Q_OBJECT
public:
    explicit LiveView(QWidget* parent = nullptr);
    // Shows a new frame (converted to RGB here, on the GUI thread: one conversion per shown frame).
    void set_frame(const Frame& frame);
    void set_overlay(BoardPicture picture);
    void set_geometry(std::optional<TableGeometry> geometry);
    // A line shown over the frame (e.g. "camera lost — reconnecting"); empty hides it.
    void set_banner(const QString& text);
    const QString& banner() const { return banner_; }
    std::int64_t shown_index() const { return index_; }
    QSize sizeHint() const override { return {640, 360}; }

signals:
    // A frame was painted: its index and the time from capture to the end of the paint.
    void frame_shown(std::int64_t index, double latency_ms);

protected:
    void paintEvent(QPaintEvent* event) override;

private:
    QImage image_;
    std::int64_t index_ = -1;
    std::int64_t captured_ns_ = 0;
    bool reported_ = true;
    BoardPicture overlay_;
    std::optional<TableGeometry> geometry_;
    QString banner_;
};

}  // namespace meeplecam::ui
