#include "ui/tile_library_wizard.h"

#include <QComboBox>
#include <QCoreApplication>
#include <QFileDialog>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QListWidget>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QSettings>
#include <QVBoxLayout>

namespace meeplecam::ui {

TileLibraryWizard::TileLibraryWizard(QString program, QWidget* parent)
    : QDialog(parent), program_(program.isEmpty() ? QCoreApplication::applicationFilePath() : std::move(program)) {
    setWindowTitle(tr("Tile library — teach meeplecam your tiles"));
    auto* intro = new QLabel(tr("1. Photograph your tiles from above: one tile per photo named after its type "
                                "(D.jpg, V_2.jpg), or a sheet of every type in catalog order (reference layout).\n"
                                "2. Add the photos, choose the layout and where the library goes.\n"
                                "3. Learn: the classifier then uses your tiles' own colours."));
    intro->setWordWrap(true);
    photos_ = new QListWidget;
    auto* add = new QPushButton(tr("Add photos…"));
    connect(add, &QPushButton::clicked, this, [this] {
        set_photos(QFileDialog::getOpenFileNames(this, tr("Tile photos"), {}, tr("Images (*.png *.jpg *.jpeg)")));
    });
    layout_ = new QComboBox;
    layout_->addItem(tr("one tile per photo, named by type"), "names");
    layout_->addItem(tr("reference sheet (every type in catalog order)"), "reference");
    output_ = new QLineEdit(QSettings().value("tiles/library", "tile-library.json").toString());
    log_ = new QPlainTextEdit;
    log_->setReadOnly(true);
    learn_button_ = new QPushButton(tr("Learn"));
    connect(learn_button_, &QPushButton::clicked, this, &TileLibraryWizard::learn);

    auto* form = new QFormLayout;
    form->addRow(tr("Layout"), layout_);
    form->addRow(tr("Library file"), output_);
    auto* layout = new QVBoxLayout(this);
    layout->addWidget(intro);
    layout->addWidget(photos_, 1);
    layout->addWidget(add);
    layout->addLayout(form);
    layout->addWidget(learn_button_);
    layout->addWidget(log_, 1);

    connect(&process_, &QProcess::readyReadStandardOutput, this, [this] { log_->appendPlainText(QString::fromUtf8(process_.readAllStandardOutput()).trimmed()); });
    connect(&process_, &QProcess::readyReadStandardError, this, [this] { log_->appendPlainText(QString::fromUtf8(process_.readAllStandardError()).trimmed()); });
    connect(&process_, &QProcess::finished, this, [this](int code, QProcess::ExitStatus status) {
        learn_button_->setEnabled(true);
        const bool ok = status == QProcess::NormalExit && code == 0;
        log_->appendPlainText(ok ? tr("Done: %1").arg(output_->text()) : tr("Failed (exit code %1)").arg(code));
        if (ok) QSettings().setValue("tiles/library", output_->text());
        emit finished_learning(ok, output_->text());
    });
    connect(&process_, &QProcess::errorOccurred, this, [this](QProcess::ProcessError) {
        if (process_.state() != QProcess::NotRunning) return;
        learn_button_->setEnabled(true);
        log_->appendPlainText(tr("Cannot run %1: %2").arg(program_, process_.errorString()));
        emit finished_learning(false, output_->text());
    });
    resize(640, 560);
}

void TileLibraryWizard::set_photos(const QStringList& photos) {
    for (const QString& p : photos) photos_->addItem(p);
}

void TileLibraryWizard::set_layout(const QString& layout) { layout_->setCurrentIndex(std::max(0, layout_->findData(layout))); }
void TileLibraryWizard::set_output(const QString& path) { output_->setText(path); }
QString TileLibraryWizard::log() const { return log_->toPlainText(); }

void TileLibraryWizard::learn() {
    if (process_.state() != QProcess::NotRunning) return;
    QStringList args{"learn-tiles"};
    for (int i = 0; i < photos_->count(); ++i) args << photos_->item(i)->text();
    args << "--layout" << layout_->currentData().toString() << "-o" << output_->text();
    log_->appendPlainText(tr("Running: meeplecam %1").arg(args.join(' ')));
    learn_button_->setEnabled(false);
    process_.start(program_, args);
}

}  // namespace meeplecam::ui
