// BoardView: paints a BoardPicture (tiles with their art, followers, coordinates, legal
// placements, completed features), fit to the widget (cells at most 160 px); reports clicks
// as board cells.
#pragma once

#include <QWidget>

#include "ui/board_picture.h"

namespace meeplecam::ui {

class BoardView : public QWidget {
    Q_OBJECT
public:
    explicit BoardView(QWidget* parent = nullptr);
    void set_picture(BoardPicture picture);
    const BoardPicture& picture() const { return picture_; }
    QSize sizeHint() const override { return {640, 480}; }
    // The widget rectangle of board cell (x, y) as last laid out (empty before the first layout).
    QRectF cell_rect(int x, int y) const;

signals:
    // A click on board cell (x, y); `within` is where in the cell (0..1, x east, y south).
    void cell_clicked(int x, int y, QPointF within);

protected:
    void paintEvent(QPaintEvent* event) override;
    void mousePressEvent(QMouseEvent* event) override;

private:
    // Computes the cell size and origin for the current picture and widget size.
    void lay_out();

    BoardPicture picture_;
    double cell_ = 0, ox_ = 0, oy_ = 0;
};

// The layout the live and the photo window share: `picture` (the camera frame, the photo)
// above `board` (3:2), `side` (scores, lists) beside them (3:2). Returns the splitter that
// holds them (the caller's central widget); it owns the three.
QWidget* picture_board_and_side(QWidget* picture, BoardView* board, QWidget* side);

}  // namespace meeplecam::ui
