// TileLibraryWizard: teaches meeplecam how the players' own tiles look — photos in, a tile
// library out — by running `meeplecam learn-tiles` (vision/tile_library.h) as a child process,
// so the GUI thread never waits; the library's path is remembered (QSettings "tiles/library").
#pragma once

#include <QDialog>
#include <QProcess>
#include <QStringList>

class QComboBox;
class QLabel;
class QLineEdit;
class QListWidget;
class QPlainTextEdit;
class QPushButton;

namespace meeplecam::ui {

class TileLibraryWizard : public QDialog {
    Q_OBJECT
public:
    // `program`: the meeplecam executable (default: this process's own).
    explicit TileLibraryWizard(QString program = {}, QWidget* parent = nullptr);

    void set_photos(const QStringList& photos);
    void set_layout(const QString& layout);  // "names" or "reference"
    void set_output(const QString& path);
    // Starts learning (asynchronous: finished_learning() follows).
    void learn();
    QString log() const;

signals:
    void finished_learning(bool ok, QString library);

private:
    QString program_;
    QListWidget* photos_ = nullptr;
    QComboBox* layout_ = nullptr;
    QLineEdit* output_ = nullptr;
    QPlainTextEdit* log_ = nullptr;
    QPushButton* learn_button_ = nullptr;
    QProcess process_;
};

}  // namespace meeplecam::ui
