#include "ui/photo_window.h"

#include <QCursor>
#include <QHBoxLayout>
#include <QLabel>
#include <QListWidget>
#include <QMenu>
#include <QPainter>
#include <QSplitter>
#include <QStatusBar>
#include <QThread>
#include <QVBoxLayout>

#include <cmath>

#include <opencv2/imgproc.hpp>

#include "engine/ports.h"
#include "ui/board_view.h"
#include "ui/final_score.h"
#include "vision/image_io.h"
#include "vision/tile_art.h"

namespace meeplecam::ui {
namespace {

QImage to_qimage(const cv::Mat& bgr) {
    if (bgr.empty() || bgr.type() != CV_8UC3) return {};
    QImage rgb(bgr.cols, bgr.rows, QImage::Format_RGB888);
    cv::Mat dst(rgb.height(), rgb.width(), CV_8UC3, rgb.bits(), static_cast<std::size_t>(rgb.bytesPerLine()));
    cv::cvtColor(bgr, dst, cv::COLOR_BGR2RGB);
    return rgb;
}

constexpr double kFollowerClick = 0.15;  // a click this near a follower (share of the tile) corrects the follower

}  // namespace

void register_photo_types() {
    static const bool done = [] {
        qRegisterMetaType<PhotoState>();
        qRegisterMetaType<Record>();
        qRegisterMetaType<Cell>();
        return true;
    }();
    (void)done;
}

// ---- Worker -----------------------------------------------------------------------------

void PhotoWorker::publish(const QString& what) {
    PhotoState state;
    state.session = std::make_shared<const PhotoSession>(*session_);
    state.overlay = to_qimage(session_->overlay());
    state.what = what;
    emit photo_changed(std::move(state));
}

void PhotoWorker::open_photo(QString path, Record setup) {
    auto image = vision::load_image(path.toStdString());
    if (!image) return emit refused(QString::fromStdString(image.error().to_string()));
    auto s = PhotoSession::read(image.value(), std::move(setup));
    if (!s) {
        Error e = s.error();
        e.where = e.where == "photo" ? path.toStdString() : path.toStdString() + ": " + e.where;
        return emit refused(QString::fromStdString(e.to_string()));
    }
    session_.emplace(std::move(s.value()));
    publish(tr("read %1: %2 tiles, %3 followers").arg(path).arg(session_->reading().tiles.size()).arg(session_->pieces().size()));
}

void PhotoWorker::correct_tile(Cell at, QString tile, int rot) {
    if (!session_) return emit refused(tr("no photo is open"));
    if (auto st = session_->correct_tile(at, tile.toStdString(), rot); !st) return emit refused(QString::fromStdString(st.error().to_string()));
    publish(QString::fromStdString(session_->corrections().back()));
}

void PhotoWorker::correct_piece(int piece, QString colour, QString loc) {
    if (!session_) return emit refused(tr("no photo is open"));
    if (auto st = session_->correct_piece(piece, colour.toStdString(), loc.toStdString()); !st) {
        return emit refused(QString::fromStdString(st.error().to_string()));
    }
    publish(QString::fromStdString(session_->corrections().back()));
}

// ---- Views ------------------------------------------------------------------------------

void PhotoView::set_image(QImage image) {
    image_ = std::move(image);
    update();
}

void PhotoView::paintEvent(QPaintEvent*) {
    QPainter p(this);
    p.fillRect(rect(), QColor(40, 40, 40));
    if (image_.isNull()) {
        p.setPen(Qt::white);
        p.drawText(rect(), Qt::AlignCenter, tr("no photo (Game → Open photo…)"));
        return;
    }
    const QSize fit = image_.size().scaled(size(), Qt::KeepAspectRatio);
    const QRect target(QPoint((width() - fit.width()) / 2, (height() - fit.height()) / 2), fit);
    p.setRenderHint(QPainter::SmoothPixmapTransform);
    p.drawImage(target, image_);
}

// ---- Window -----------------------------------------------------------------------------

PhotoWindow::PhotoWindow(QWidget* parent) : QMainWindow(parent), art_(96) {
    register_photo_types();
    setWindowTitle(tr("meeplecam — photo"));
    photo_ = new PhotoView;
    board_ = new BoardView;
    final_ = new FinalScoreDialog;
    final_->setWindowFlags(Qt::Widget);  // the final-score screen, embedded
    corrections_ = new QListWidget;
    status_ = new QLabel(tr("no photo"));
    status_->setWordWrap(true);

    auto* views = new QSplitter(Qt::Vertical);
    views->addWidget(photo_);
    views->addWidget(board_);
    views->setStretchFactor(0, 3);
    views->setStretchFactor(1, 2);
    auto* side = new QWidget;
    auto* side_layout = new QVBoxLayout(side);
    side_layout->addWidget(status_);
    side_layout->addWidget(final_, 3);
    side_layout->addWidget(new QLabel(tr("Corrections (click a tile or a follower on the board)")));
    side_layout->addWidget(corrections_, 1);
    auto* split = new QSplitter;
    split->addWidget(views);
    split->addWidget(side);
    split->setStretchFactor(0, 3);
    split->setStretchFactor(1, 2);
    setCentralWidget(split);
    resize(1400, 900);

    thread_ = new QThread;
    thread_->setObjectName(QStringLiteral("photo"));
    worker_ = new PhotoWorker;
    worker_->moveToThread(thread_);
    thread_->start();
    connect(worker_, &PhotoWorker::photo_changed, this, &PhotoWindow::show_state);
    connect(worker_, &PhotoWorker::refused, this, [this](QString why) {
        status_->setText(tr("Not changed: %1").arg(why));
        status_->setStyleSheet("QLabel { background: #ffe0e0; color: #a00000; }");
        emit refused_shown(why);
    });
    connect(board_, &BoardView::cell_clicked, this, &PhotoWindow::on_board_click);
}

PhotoWindow::~PhotoWindow() {
    thread_->quit();
    thread_->wait();
    delete worker_;
    delete thread_;
}

void PhotoWindow::open_photo(const QString& path, const Record& setup) {
    status_->setText(tr("reading %1…").arg(path));
    status_->setStyleSheet({});
    QMetaObject::invokeMethod(worker_, "open_photo", Qt::QueuedConnection, Q_ARG(QString, path), Q_ARG(meeplecam::Record, setup));
}

void PhotoWindow::show_state(PhotoState state) {
    state_ = std::move(state);
    const PhotoSession& s = *state_.session;
    photo_->set_image(state_.overlay);
    board_->set_picture(board_picture(s.game(), art_));
    final_->show_game(s.game(), tr("Final score (as if the game ended now)"));
    corrections_->clear();
    for (const auto& line : s.corrections()) corrections_->addItem(QString::fromStdString(line));
    QString text = state_.what;
    for (const auto& w : s.photo().warnings) text += "\n" + tr("warning: %1").arg(QString::fromStdString(w));
    status_->setText(text);
    status_->setStyleSheet({});
    statusBar()->showMessage(state_.what, 5000);
    emit photo_shown();
}

std::vector<TileChoice> PhotoWindow::tile_choices(Cell at) const { return session() ? session()->tile_choices(at) : std::vector<TileChoice>{}; }
std::vector<PieceChoice> PhotoWindow::piece_choices(int piece) const {
    return session() ? session()->piece_choices(piece) : std::vector<PieceChoice>{};
}

void PhotoWindow::correct_tile(Cell at, const TileChoice& choice) {
    QMetaObject::invokeMethod(worker_, "correct_tile", Qt::QueuedConnection, Q_ARG(meeplecam::Cell, at),
                              Q_ARG(QString, QString::fromStdString(choice.tile)), Q_ARG(int, choice.rot));
}

void PhotoWindow::correct_piece(int piece, const PieceChoice& choice) {
    QMetaObject::invokeMethod(worker_, "correct_piece", Qt::QueuedConnection, Q_ARG(int, piece),
                              Q_ARG(QString, QString::fromStdString(choice.colour)), Q_ARG(QString, QString::fromStdString(choice.loc)));
}

void PhotoWindow::on_board_click(int x, int y, QPointF within) {
    if (!session()) return;
    const Cell at{x, y};
    if (session()->game().board().tile_at(at) < 0) return;
    const int piece = session()->piece_at(at, within.x(), within.y());
    bool on_piece = false;
    if (piece >= 0) {
        const auto& p = session()->pieces()[static_cast<std::size_t>(piece)];
        const cv::Point2d q = vision::port_point(p.feature >= 0 ? p.port : kCentre, /*inset=*/0.18);
        on_piece = std::hypot(q.x - within.x(), q.y - within.y()) < kFollowerClick;
    }
    QMenu* menu = new QMenu(this);
    menu->setAttribute(Qt::WA_DeleteOnClose);
    if (on_piece) {
        for (const PieceChoice& c : piece_choices(piece)) {
            connect(menu->addAction(c.label), &QAction::triggered, this, [this, piece, c] { correct_piece(piece, c); });
        }
    } else {
        const auto choices = tile_choices(at);
        for (std::size_t i = 0; i < choices.size() && i < 16; ++i) {
            const TileChoice c = choices[i];
            connect(menu->addAction(c.label), &QAction::triggered, this, [this, at, c] { correct_tile(at, c); });
        }
        if (choices.empty()) menu->addAction(tr("no other tile fits here"))->setEnabled(false);
    }
    menu->popup(QCursor::pos());  // non-blocking
}

const QImage& PhotoWindow::shown_photo() const { return photo_->image(); }

QStringList PhotoWindow::correction_lines() const {
    QStringList out;
    for (int i = 0; i < corrections_->count(); ++i) out << corrections_->item(i)->text();
    return out;
}

QString PhotoWindow::status_text() const { return status_->text(); }

}  // namespace meeplecam::ui
