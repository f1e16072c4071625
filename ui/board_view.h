// BoardView: paints a BoardPicture (tiles with their art, followers, coordinates), fit to the widget.
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

protected:
    void paintEvent(QPaintEvent* event) override;

private:
    BoardPicture picture_;
};

}  // namespace meeplecam::ui
