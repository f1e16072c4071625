#include "ui/photo_window.h"

#include <QCursor>
#include <QFileDialog>
#include <QFileInfo>
#include <QMenuBar>
#include <QPushButton>
#include <QHBoxLayout>
#include <QLabel>
#include <QListWidget>
#include <QMenu>
#include <QPainter>
#include <QStatusBar>
#include <QThread>
#include <QVBoxLayout>

#include <cmath>

#include <opencv2/imgproc.hpp>

#include "engine/ports.h"
#include "ui/board_view.h"
#include "ui/final_score.h"
#include "ui/photo_save.h"
#include "ui/worker_thread.h"
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
    photo_path_ = path;
    publish(tr("read %1: %2 tiles, %3 followers").arg(path).arg(session_->reading().tiles.size()).arg(session_->pieces().size()));
}

void PhotoWorker::changed(const Status& status) {
    if (!status) return emit refused(QString::fromStdString(status.error().to_string()));
    publish(QString::fromStdString(session_->corrections().back()));
}

void PhotoWorker::add_tile(Cell at, QString tile, int rot) {
    if (!session_) return emit refused(tr("no photo is open"));
    changed(session_->add_tile(at, tile.toStdString(), rot));
}

void PhotoWorker::remove_tile(Cell at) {
    if (!session_) return emit refused(tr("no photo is open"));
    changed(session_->remove_tile(at));
}

void PhotoWorker::add_piece(Cell at, QString colour, QString loc) {
    if (!session_) return emit refused(tr("no photo is open"));
    changed(session_->add_piece(at, colour.toStdString(), loc.toStdString()));
}

void PhotoWorker::save(QString save_path) {
    if (!session_) return emit refused(tr("no photo is open"));
    if (auto st = save_photo_session(*session_, photo_path_.toStdString(), save_path.toStdString()); !st) {
        return emit refused(QString::fromStdString(st.error().to_string()));
    }
    emit saved(save_path);
}

void PhotoWorker::export_record(QString record_path) {
    if (!session_) return emit refused(tr("no photo is open"));
    auto record = photo_record(*session_);
    if (!record) return emit refused(QString::fromStdString(record.error().to_string()));
    if (auto st = write_record(record.value(), record_path.toStdString()); !st) return emit refused(QString::fromStdString(st.error().to_string()));
    emit exported(record_path);
}

void PhotoWorker::restore(QString save_path) {
    auto opened = open_photo_save(save_path.toStdString());
    if (!opened) return emit refused(QString::fromStdString(opened.error().to_string()));
    session_.emplace(std::move(opened->session));
    photo_path_ = QString::fromStdString(opened->photo_path);
    publish(tr("opened %1: %2 corrections").arg(save_path).arg(session_->edits().size()));
}

void PhotoWorker::correct_tile(Cell at, QString tile, int rot) {
    if (!session_) return emit refused(tr("no photo is open"));
    changed(session_->correct_tile(at, tile.toStdString(), rot));
}

void PhotoWorker::correct_piece(int piece, QString colour, QString loc) {
    if (!session_) return emit refused(tr("no photo is open"));
    changed(session_->correct_piece(piece, colour.toStdString(), loc.toStdString()));
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

    auto* side = new QWidget;
    auto* side_layout = new QVBoxLayout(side);
    side_layout->addWidget(status_);
    restore_button_ = new QPushButton;
    restore_button_->hide();
    side_layout->addWidget(restore_button_);
    side_layout->addWidget(final_, 3);
    side_layout->addWidget(new QLabel(tr("Corrections (click a tile, a follower or a \"+\" cell on the board)")));
    side_layout->addWidget(corrections_, 1);
    setCentralWidget(picture_board_and_side(photo_, board_, side));
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
    connect(worker_, &PhotoWorker::saved, this, [this](QString path) {
        status_->setText(tr("Saved the reading and %1 corrections to %2").arg(session() ? session()->edits().size() : 0).arg(path));
        status_->setStyleSheet({});
        offer_.clear();
        restore_button_->hide();
        emit saved_shown(path);
    });
    connect(worker_, &PhotoWorker::exported, this, [this](QString path) {
        status_->setText(tr("Exported the corrected board as a record: %1").arg(path));
        status_->setStyleSheet({});
        emit exported_shown(path);
    });
    connect(board_, &BoardView::cell_clicked, this, &PhotoWindow::on_board_click);
    connect(restore_button_, &QPushButton::clicked, this, [this] {
        if (!offer_.isEmpty()) restore(offer_);
    });
    build_menus();
}

void PhotoWindow::build_menus() {
    QMenu* file = menuBar()->addMenu(tr("&File"));
    auto add = [&](const QString& text, const QKeySequence& keys, auto slot) {
        QAction* a = file->addAction(text);
        a->setShortcut(keys);
        connect(a, &QAction::triggered, this, slot);
    };
    add(tr("&Save corrections"), QKeySequence(Qt::CTRL | Qt::Key_S), [this] { save(); });
    add(tr("Save corrections &as…"), QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_S), [this] {
        if (!session()) return;
        auto* dialog = new QFileDialog(this, tr("Save the reading and corrections"), QString::fromStdString(default_photo_save_path(photo_path_.toStdString())),
                                       tr("Photo corrections (*.photo.json *.json)"));
        dialog->setAttribute(Qt::WA_DeleteOnClose);
        dialog->setAcceptMode(QFileDialog::AcceptSave);
        connect(dialog, &QFileDialog::fileSelected, this, [this](const QString& path) { save(path); });
        dialog->open();  // non-blocking
    });
    add(tr("&Export the board as a record…"), QKeySequence(Qt::CTRL | Qt::Key_E), [this] {
        if (!session()) return;
        auto* dialog = new QFileDialog(this, tr("Export the corrected board as a meeplecam-record"), QFileInfo(photo_path_).path(), tr("Records (*.json)"));
        dialog->setAttribute(Qt::WA_DeleteOnClose);
        dialog->setAcceptMode(QFileDialog::AcceptSave);
        connect(dialog, &QFileDialog::fileSelected, this, [this](const QString& path) { export_record(path); });
        dialog->open();
    });
    add(tr("&Open saved corrections…"), QKeySequence(Qt::CTRL | Qt::Key_O), [this] {
        auto* dialog = new QFileDialog(this, tr("Open saved corrections"), QFileInfo(photo_path_).path(), tr("Photo corrections (*.photo.json *.json)"));
        dialog->setAttribute(Qt::WA_DeleteOnClose);
        dialog->setFileMode(QFileDialog::ExistingFile);
        connect(dialog, &QFileDialog::fileSelected, this, [this](const QString& path) { restore(path); });
        dialog->open();
    });
}

PhotoWindow::~PhotoWindow() {
    // Never waits for a photo being read (seconds): the thread finishes it, or the save queued
    // before closing, and cleans up after itself.
    stop_worker_thread(thread_, worker_);
}

void PhotoWindow::open_photo(const QString& path, const Record& setup) {
    photo_path_ = path;
    // A save next to the photo is offered once the photo is read (a stat: no waiting).
    const QString save = QString::fromStdString(default_photo_save_path(path.toStdString()));
    offer_ = QFileInfo::exists(save) ? save : QString();
    status_->setText(tr("reading %1…").arg(path));
    status_->setStyleSheet({});
    QMetaObject::invokeMethod(worker_, "open_photo", Qt::QueuedConnection, Q_ARG(QString, path), Q_ARG(meeplecam::Record, setup));
}

void PhotoWindow::show_state(PhotoState state) {
    state_ = std::move(state);
    const PhotoSession& s = *state_.session;
    photo_->set_image(state_.overlay);
    BoardPicture picture = board_picture(s.game(), art_);
    for (const Cell& c : s.free_cells()) {  // where a missed tile may be added
        picture.markers.push_back({c.x, c.y, QStringLiteral("+")});
        picture.min_x = std::min(picture.min_x, c.x), picture.max_x = std::max(picture.max_x, c.x);
        picture.min_y = std::min(picture.min_y, c.y), picture.max_y = std::max(picture.max_y, c.y);
    }
    board_->set_picture(std::move(picture));
    final_->show_game(s.game(), tr("Final score (as if the game ended now)"));
    corrections_->clear();
    for (const auto& line : s.corrections()) corrections_->addItem(QString::fromStdString(line));
    QString text = state_.what;
    for (const auto& w : s.photo().warnings) text += "\n" + tr("warning: %1").arg(QString::fromStdString(w));
    status_->setText(text);
    status_->setStyleSheet({});
    statusBar()->showMessage(state_.what, 5000);
    restore_button_->setVisible(!offer_.isEmpty());
    restore_button_->setText(tr("Open the corrections saved for this photo (%1)").arg(QFileInfo(offer_).fileName()));
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

std::vector<Cell> PhotoWindow::free_cells() const { return session() ? session()->free_cells() : std::vector<Cell>{}; }
std::vector<TileChoice> PhotoWindow::add_tile_choices(Cell at) const {
    return session() ? session()->add_tile_choices(at) : std::vector<TileChoice>{};
}
std::vector<PieceChoice> PhotoWindow::add_piece_choices(Cell at, QPointF within) const {
    return session() ? session()->add_piece_choices(at, within.x(), within.y()) : std::vector<PieceChoice>{};
}

void PhotoWindow::add_tile(Cell at, const TileChoice& choice) {
    QMetaObject::invokeMethod(worker_, "add_tile", Qt::QueuedConnection, Q_ARG(meeplecam::Cell, at), Q_ARG(QString, QString::fromStdString(choice.tile)),
                              Q_ARG(int, choice.rot));
}

void PhotoWindow::remove_tile(Cell at) { QMetaObject::invokeMethod(worker_, "remove_tile", Qt::QueuedConnection, Q_ARG(meeplecam::Cell, at)); }

void PhotoWindow::add_piece(Cell at, const PieceChoice& choice) {
    QMetaObject::invokeMethod(worker_, "add_piece", Qt::QueuedConnection, Q_ARG(meeplecam::Cell, at), Q_ARG(QString, QString::fromStdString(choice.colour)),
                              Q_ARG(QString, QString::fromStdString(choice.loc)));
}

void PhotoWindow::save(const QString& save_path) {
    if (!session()) return;
    const QString path = save_path.isEmpty() ? QString::fromStdString(default_photo_save_path(photo_path_.toStdString())) : save_path;
    QMetaObject::invokeMethod(worker_, "save", Qt::QueuedConnection, Q_ARG(QString, path));
}

void PhotoWindow::export_record(const QString& record_path) {
    QMetaObject::invokeMethod(worker_, "export_record", Qt::QueuedConnection, Q_ARG(QString, record_path));
}

void PhotoWindow::restore(const QString& save_path) {
    status_->setText(tr("opening %1…").arg(save_path));
    status_->setStyleSheet({});
    offer_.clear();
    QMetaObject::invokeMethod(worker_, "restore", Qt::QueuedConnection, Q_ARG(QString, save_path));
}

void PhotoWindow::on_board_click(int x, int y, QPointF within) {
    if (!session()) return;
    const Cell at{x, y};
    if (session()->game().board().tile_at(at) < 0) {
        const auto choices = add_tile_choices(at);
        if (choices.empty()) return;  // not beside the board
        QMenu* menu = new QMenu(this);
        menu->setAttribute(Qt::WA_DeleteOnClose);
        menu->addSection(tr("Add the tile the reader missed"));
        for (std::size_t i = 0; i < choices.size() && i < 16; ++i) {
            const TileChoice c = choices[i];
            connect(menu->addAction(c.label), &QAction::triggered, this, [this, at, c] { add_tile(at, c); });
        }
        menu->popup(QCursor::pos());
        return;
    }
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
        const auto adds = add_piece_choices(at, within);
        if (!adds.empty()) {
            QMenu* sub = menu->addMenu(tr("Add a follower here"));
            for (const PieceChoice& c : adds) connect(sub->addAction(c.label), &QAction::triggered, this, [this, at, c] { add_piece(at, c); });
        }
        menu->addSeparator();
        connect(menu->addAction(tr("Remove this tile (the reader invented it)")), &QAction::triggered, this, [this, at] { remove_tile(at); });
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
