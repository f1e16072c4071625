// PhotoWindow: photo mode — open a photo of a finished table, read it (board reader and piece
// detector, on a worker thread), show the photo with what was read drawn over it and the
// board as the engine sees it, correct tiles and followers by clicking the board (the same
// menus as live, ranked by the reader's likelihood), add the tiles and followers the reader
// missed and remove those it invented, and show the final scoring, updated after each
// correction. The reading and the corrections are saved next to the photo (ui/photo_save.h)
// and offered when the photo is opened again. The window never waits for the worker.
#pragma once

#include <QImage>
#include <QMainWindow>
#include <QString>
#include <QStringList>

#include <memory>
#include <optional>
#include <vector>

#include "engine/record.h"
#include "ui/board_picture.h"
#include "ui/corrections.h"
#include "ui/photo_session.h"

class QLabel;
class QListWidget;
class QPushButton;
class QThread;

namespace meeplecam::ui {

class BoardView;
class FinalScoreDialog;

// One state of photo mode, sent from the worker to the window (an immutable copy).
struct PhotoState {
    std::shared_ptr<const PhotoSession> session;
    QImage overlay;  // the photo with the reading drawn over it (RGB)
    QString what;    // what changed ("read 72 tiles, 9 followers", "tile at [2, 1] corrected")
};

// Owns photo mode's PhotoSession on its own thread: reading and corrections run here.
class PhotoWorker : public QObject {
    Q_OBJECT
public slots:
    // Reads the photo at `path` for the players and rules of `setup`.
    void open_photo(QString path, meeplecam::Record setup);
    void correct_tile(meeplecam::Cell at, QString tile, int rot);
    void correct_piece(int piece, QString colour, QString loc);
    void add_tile(meeplecam::Cell at, QString tile, int rot);
    void remove_tile(meeplecam::Cell at);
    void add_piece(meeplecam::Cell at, QString colour, QString loc);
    // Writes the reading and the corrections to `save_path` (atomically).
    void save(QString save_path);
    // Opens a save (its photo, reading and corrections); on an error the open photo stays.
    void restore(QString save_path);
    // Writes the corrected board as a meeplecam-record (photo_record), or says why it cannot.
    void export_record(QString record_path);

signals:
    void photo_changed(meeplecam::ui::PhotoState state);
    // The photo cannot be read, or a correction makes the board impossible: nothing changed.
    void refused(QString why);
    void saved(QString save_path);
    void exported(QString record_path);

private:
    void publish(const QString& what);
    // Reports the outcome of a change to the session.
    void changed(const Status& status);
    std::optional<PhotoSession> session_;
    QString photo_path_;
};

// Paints an image scaled to fit, keeping its aspect.
class PhotoView : public QWidget {
    Q_OBJECT
public:
    explicit PhotoView(QWidget* parent = nullptr) : QWidget(parent) {}
    void set_image(QImage image);
    const QImage& image() const { return image_; }
    QSize sizeHint() const override { return {800, 600}; }

protected:
    void paintEvent(QPaintEvent* event) override;

private:
    QImage image_;
};

class PhotoWindow : public QMainWindow {
    Q_OBJECT
public:
    explicit PhotoWindow(QWidget* parent = nullptr);
    ~PhotoWindow() override;

    // Reads the photo at `path` (asynchronous: photo_shown() or refused_shown() follows).
    void open_photo(const QString& path, const Record& setup);
    // The corrections of the tile at board cell `at`, likeliest first, and of follower `piece`.
    std::vector<TileChoice> tile_choices(Cell at) const;
    std::vector<PieceChoice> piece_choices(int piece) const;
    // Applies one (asynchronous, as open_photo).
    void correct_tile(Cell at, const TileChoice& choice);
    void correct_piece(int piece, const PieceChoice& choice);
    // The empty cells beside the board (marked "+" on it), the tiles that may go on one
    // (ranked by the classifier's likelihood for that square of the photo), adding one.
    std::vector<Cell> free_cells() const;
    std::vector<TileChoice> add_tile_choices(Cell at) const;
    void add_tile(Cell at, const TileChoice& choice);
    // Removes the tile at `at` with what stands on it (asynchronous).
    void remove_tile(Cell at);
    // Adding a follower on the feature under `within` (0..1 in the tile at `at`): one choice per player.
    std::vector<PieceChoice> add_piece_choices(Cell at, QPointF within) const;
    void add_piece(Cell at, const PieceChoice& choice);

    // Saves the reading and the corrections to `save_path` (empty: next to the photo,
    // default_photo_save_path); saved_shown() or refused_shown() follows.
    void save(const QString& save_path = {});
    // Opens a save; photo_shown() or refused_shown() follows (the open photo stays on an error).
    void restore(const QString& save_path);
    // The save found next to the open photo (offered with a button), or empty.
    QString saved_offer() const { return offer_; }
    // Exports the corrected board as a meeplecam-record; exported_shown() or refused_shown() follows.
    void export_record(const QString& record_path);
    QString photo_path() const { return photo_path_; }

    // For tests and screenshots.
    const PhotoSession* session() const { return state_.session.get(); }
    const QImage& shown_photo() const;
    const BoardView& board_view() const { return *board_; }
    const FinalScoreDialog& score_screen() const { return *final_; }
    QStringList correction_lines() const;
    QString status_text() const;

signals:
    void photo_shown();
    void refused_shown(QString why);
    void saved_shown(QString save_path);
    void exported_shown(QString record_path);

private:
    void show_state(PhotoState state);
    void on_board_click(int x, int y, QPointF within);
    void build_menus();

    QString photo_path_;
    QString offer_;
    QThread* thread_ = nullptr;
    PhotoWorker* worker_ = nullptr;
    PhotoState state_;
    TileArtCache art_;
    PhotoView* photo_ = nullptr;
    BoardView* board_ = nullptr;
    FinalScoreDialog* final_ = nullptr;
    QListWidget* corrections_ = nullptr;
    QLabel* status_ = nullptr;
    QPushButton* restore_button_ = nullptr;
};

// Registers PhotoState for queued signals (once per process).
void register_photo_types();

}  // namespace meeplecam::ui

Q_DECLARE_METATYPE(meeplecam::ui::PhotoState)
