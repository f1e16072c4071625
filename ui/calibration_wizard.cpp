#include "ui/calibration_wizard.h"

#include <QCheckBox>
#include <QDir>
#include <QDoubleSpinBox>
#include <QFileDialog>
#include <QFileInfo>
#include <QFormLayout>
#include <QGridLayout>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QListWidget>
#include <QPixmap>
#include <QProgressBar>
#include <QPushButton>
#include <QSettings>
#include <QStandardPaths>
#include <QThread>
#include <QVBoxLayout>

#include <cmath>

#include <opencv2/imgproc.hpp>

#include "calibration/overlays.h"
#include "calibration/printed_targets.h"
#include "calibration/start_tile_plane.h"
#include "calibration/table_plane.h"
#include "engine/record.h"
#include "session/draw_zone.h"
#include "vision/image_io.h"
#include "vision/tile_classifier.h"

namespace meeplecam::ui {
namespace {

constexpr int kPreviewWidth = 520;

// A wizard page whose Next/Finish runs `validate` first (false: stay on the page).
class ValidatedPage : public QWizardPage {
public:
    std::function<bool()> validate;
    bool validatePage() override { return validate ? validate() : true; }
};

// A small RGB copy of a BGR image for a preview label (made on the worker thread).
QImage preview_image(const cv::Mat& bgr) {
    if (bgr.empty()) return {};
    cv::Mat small;
    const double scale = std::min(1.0, static_cast<double>(kPreviewWidth) / bgr.cols);
    cv::resize(bgr, small, {}, scale, scale, cv::INTER_AREA);
    cv::Mat rgb;
    cv::cvtColor(small, rgb, small.channels() == 1 ? cv::COLOR_GRAY2RGB : cv::COLOR_BGR2RGB);
    return QImage(rgb.data, rgb.cols, rgb.rows, static_cast<int>(rgb.step), QImage::Format_RGB888).copy();
}

// The photo itself, or the file it is loaded from (on the worker thread).
Result<cv::Mat> photo(const cv::Mat& image, const QString& file) {
    if (!image.empty()) return image;
    return vision::load_image(file.toStdString());
}

QString html_escape(const std::string& s) { return QString::fromStdString(s).toHtmlEscaped(); }
QString error_html(const Error& e) { return "<span style='color:#b00000'>" + html_escape(e.to_string()) + "</span>"; }

QString lab_swatch(const cv::Vec3d& lab) {
    cv::Mat px(1, 1, CV_32FC3, cv::Scalar(lab[0], lab[1], lab[2])), bgr;
    cv::cvtColor(px, bgr, cv::COLOR_Lab2BGR);
    const cv::Vec3f c = bgr.at<cv::Vec3f>(0, 0);
    auto byte = [](float v) { return std::clamp(static_cast<int>(std::lround(v * 255)), 0, 255); };
    return QString("<span style='background-color:rgb(%1,%2,%3)'>&nbsp;&nbsp;&nbsp;&nbsp;&nbsp;&nbsp;</span>")
        .arg(byte(c[2]))
        .arg(byte(c[1]))
        .arg(byte(c[0]));
}

QProgressBar* busy_bar() {
    auto* bar = new QProgressBar;
    bar->setRange(0, 0);  // busy indicator
    bar->setTextVisible(false);
    bar->setMaximumHeight(10);
    bar->hide();
    return bar;
}

QLabel* preview_label() {
    auto* label = new QLabel;
    label->setMinimumSize(kPreviewWidth, 300);
    label->setAlignment(Qt::AlignCenter);
    label->setStyleSheet("QLabel { background: #202020; color: #c0c0c0; }");
    label->setText(QObject::tr("(no photo yet)"));
    return label;
}

QLabel* wrapped(const QString& text) {
    auto* label = new QLabel(text);
    label->setWordWrap(true);
    label->setTextFormat(Qt::RichText);
    return label;
}

// The player colours of the last new game (QSettings), else red and blue.
QStringList default_players() {
    const QString text = QSettings().value("new-game/record").toString();
    if (!text.isEmpty()) {
        if (auto r = parse_record_text(text.toStdString(), "settings"); r && !r->players.empty()) {
            QStringList out;
            for (const auto& p : r->players) out << QString::fromStdString(p.color);
            return out;
        }
    }
    return {"red", "blue"};
}

QString default_path() {
    const QString dir = QStandardPaths::writableLocation(QStandardPaths::AppDataLocation);
    return dir + "/calibration.json";
}

}  // namespace

QString remembered_calibration_path() { return QSettings().value(kCalibrationPathKey).toString(); }

Result<QRectF> parse_draw_zone(const QString& text, const std::string& where) {
    const QStringList parts = text.split(',');
    double v[4] = {0, 0, 0, 0};
    bool ok = parts.size() == 4;
    for (int i = 0; ok && i < 4; ++i) v[i] = parts[i].trimmed().toDouble(&ok);
    if (!ok) return invalid(where, "expected the draw zone as x,y,w,h in mm, e.g. 760,0,80,80, not '" + text.toStdString() + "'");
    session::DrawZoneOptions options;
    options.zone_mm = {v[0], v[1], v[2], v[3]};
    if (auto st = options.check(); !st) return invalid(where, st.error().message);
    return QRectF(v[0], v[1], v[2], v[3]);
}

QRectF remembered_draw_zone() {
    const QString text = QSettings().value(kDrawZoneKey).toString();
    if (text.isEmpty()) return {};
    auto zone = parse_draw_zone(text, kDrawZoneKey);
    return zone ? zone.value() : QRectF();
}

CalibrationWizard::CalibrationWizard(FrameGrabber grab, QString path, QWidget* parent) : QWizard(parent), grab_(std::move(grab)) {
    setWindowTitle(tr("Calibrate the camera and the table"));
    setWizardStyle(QWizard::ClassicStyle);
    setOption(QWizard::NoBackButtonOnStartPage);
    thread_ = new QThread(this);
    worker_ = new QObject;
    worker_->moveToThread(thread_);
    connect(thread_, &QThread::finished, worker_, &QObject::deleteLater);
    thread_->start();

    if (path.isEmpty()) path = remembered_calibration_path();
    if (path.isEmpty()) path = default_path();
    if (QFileInfo::exists(path)) {
        if (auto cal = calibration::load_calibration(path.toStdString()); cal) {
            existing_ = cal.value();
            existing_note_ = tr("Parts you do not measure now are kept from %1.").arg(path);
        } else {
            existing_note_ = tr("%1 could not be read (%2); saving replaces it.").arg(path, QString::fromStdString(cal.error().to_string()));
        }
    }
    setPage(CameraPage, build_camera_page());
    setPage(TablePage, build_table_page());
    setPage(ColoursPage, build_colours_page());
    setPage(SavePage, build_save_page());
    path_->setText(path);
    set_players(default_players());
    connect(this, &QWizard::currentIdChanged, this, [this](int id) {
        if (id == SavePage) update_save_page();
    });
    resize(720, 760);
}

CalibrationWizard::~CalibrationWizard() {
    // A running job finishes first (a detection or fit takes at most a few seconds).
    thread_->quit();
    thread_->wait();
}

void CalibrationWizard::run(std::function<std::function<void()>()> job) {
    ++jobs_;
    for (QProgressBar* bar : {busy_bar_camera_, busy_bar_table_, busy_bar_colours_}) bar->show();
    QMetaObject::invokeMethod(
        worker_,
        [this, job = std::move(job)] {
            std::function<void()> done = job();
            // `this` outlives the thread (the destructor joins it); queued to the GUI thread.
            QMetaObject::invokeMethod(this, [this, done = std::move(done)] {
                done();
                job_finished();
            }, Qt::QueuedConnection);
        },
        Qt::QueuedConnection);
}

void CalibrationWizard::job_finished() {
    --jobs_;
    if (jobs_ == 0) {
        for (QProgressBar* bar : {busy_bar_camera_, busy_bar_table_, busy_bar_colours_}) bar->hide();
    }
    emit work_done();
}

void CalibrationWizard::show_preview(QLabel* label, const QImage& image) {
    if (image.isNull()) return;
    label->setPixmap(QPixmap::fromImage(image));
}

cv::Mat CalibrationWizard::grab_or_warn(QLabel* status) {
    cv::Mat frame = grab_ ? grab_() : cv::Mat();
    if (frame.empty()) status->setText("<span style='color:#b00000'>" + tr("No camera frame yet: is the camera running?") + "</span>");
    return frame;
}

const calibration::CameraIntrinsics* CalibrationWizard::intrinsics() const {
    if (camera_) return &*camera_;
    return existing_.camera ? &*existing_.camera : nullptr;
}

// ---- Page 1: camera intrinsics ----------------------------------------------------------

QWizardPage* CalibrationWizard::build_camera_page() {
    auto* page = new QWizardPage;
    page->setTitle(tr("1. Camera: focal length and lens"));
    auto* intro = wrapped(tr("Print the ChArUco board at 100 % (not \"fit to page\") and glue it flat on card. With the camera fixed in "
                             "the mode it will film the game in, show it the board 6-15 times: in different parts of the frame, tilted "
                             "20-50° in different directions. Below 0.5 px reprojection error is good; above 1 px, retake blurred views. "
                             "This page may be skipped (the table plane then maps raw pixels)."));
    auto* print = new QPushButton(tr("Save the ChArUco board (PDF/PNG)…"));
    auto* capture = new QPushButton(tr("Capture view from the camera"));
    capture->setEnabled(bool(grab_));
    auto* open = new QPushButton(tr("Add photos…"));
    camera_views_ = new QListWidget;
    camera_views_->setMaximumHeight(130);
    camera_status_ = wrapped(tr("No views yet (%1 usable views needed).").arg(camera_options_.min_views));
    camera_preview_ = preview_label();
    busy_bar_camera_ = busy_bar();

    connect(print, &QPushButton::clicked, this, [this] {
        const QString file = QFileDialog::getSaveFileName(this, tr("Save the ChArUco board"), "charuco-board.pdf", tr("PDF or PNG (*.pdf *.png)"));
        if (file.isEmpty()) return;
        const calibration::CharucoSpec spec = camera_options_.board;
        run([this, file, spec]() -> std::function<void()> {
            auto sheet = calibration::charuco_sheet(spec);
            Status st = sheet ? calibration::write_sheet(sheet.value(), file.toStdString()) : Status(sheet.error());
            return [this, file, st] {
                camera_status_->setText(st ? tr("Wrote %1: print it at 100 % and check the 100 mm bar with a ruler.").arg(file) : error_html(st.error()));
            };
        });
    });
    connect(capture, &QPushButton::clicked, this, [this] {
        const cv::Mat frame = grab_or_warn(camera_status_);
        if (!frame.empty()) add_camera_view(frame, tr("camera view %1").arg(camera_views_->count() + 1));
    });
    connect(open, &QPushButton::clicked, this, [this] {
        for (const QString& file : QFileDialog::getOpenFileNames(this, tr("Photos of the ChArUco board"), {}, tr("Images (*.png *.jpg *.jpeg)"))) {
            add_camera_view({}, file);
        }
    });

    auto* buttons = new QHBoxLayout;
    buttons->addWidget(print);
    buttons->addWidget(capture);
    buttons->addWidget(open);
    auto* layout = new QVBoxLayout(page);
    layout->addWidget(intro);
    layout->addLayout(buttons);
    layout->addWidget(camera_views_);
    layout->addWidget(busy_bar_camera_);
    layout->addWidget(camera_status_);
    layout->addWidget(camera_preview_, 1);
    return page;
}

void CalibrationWizard::add_camera_view(const cv::Mat& image, const QString& name) {
    const calibration::CameraCalibrationOptions options = camera_options_;
    const cv::Mat img = image;  // shared, never written
    run([this, img, name, options]() -> std::function<void()> {
        auto loaded = photo(img, name);
        if (!loaded) {
            return [this, name, e = loaded.error()] {
                camera_views_->addItem(tr("%1: %2").arg(name, QString::fromStdString(e.message)));
                camera_views_->item(camera_views_->count() - 1)->setForeground(Qt::darkRed);
                camera_views_->scrollToBottom();
            };
        }
        auto view = calibration::detect_charuco(loaded.value(), name.toStdString(), options);
        const QImage preview = preview_image(view ? calibration::draw_charuco_view(loaded.value(), view.value()) : loaded.value());
        return [this, view, preview, name] {
            show_preview(camera_preview_, preview);
            if (view) {
                camera_views_->addItem(tr("%1: %2 corners, %3 markers").arg(name).arg(view->corners.size()).arg(view->markers));
                views_.push_back(view.value());
                last_view_error_.clear();
            } else {
                camera_views_->addItem(QString::fromStdString(view.error().to_string()));
                camera_views_->item(camera_views_->count() - 1)->setForeground(Qt::darkRed);
                last_view_error_ = error_html(view.error());
            }
            camera_views_->scrollToBottom();
            refit_camera();
        };
    });
}

void CalibrationWizard::refit_camera() {
    const int usable = static_cast<int>(views_.size());
    const QString error = last_view_error_.isEmpty() ? QString() : last_view_error_ + "<br>";  // the last photo's problem stays in view
    if (usable < camera_options_.min_views) {
        camera_status_->setText(error + tr("%1 usable views; %2 more needed before the camera can be fitted.").arg(usable).arg(camera_options_.min_views - usable));
        return;
    }
    const int generation = ++camera_generation_;
    const auto views = views_;
    const auto options = camera_options_;
    camera_status_->setText(error + tr("%1 usable views: fitting the camera…").arg(usable));
    run([this, views, options, generation, error]() -> std::function<void()> {
        auto cam = calibration::calibrate_camera(views, options);
        return [this, cam, generation, error] {
            if (generation != camera_generation_) return;  // a newer fit is on its way
            if (!cam) {
                camera_.reset();
                camera_status_->setText(error + error_html(cam.error()));
                return;
            }
            camera_ = cam.value();
            const auto& K = cam->camera_matrix;
            const double e = cam->reprojection_error_px;
            camera_status_->setText(error + tr("%1 views: fx %2, fy %3, centre (%4, %5) px; <b>reprojection error %6 px</b> (%7).")
                                        .arg(cam->views)
                                        .arg(K(0, 0), 0, 'f', 1)
                                        .arg(K(1, 1), 0, 'f', 1)
                                        .arg(K(0, 2), 0, 'f', 1)
                                        .arg(K(1, 2), 0, 'f', 1)
                                        .arg(e, 0, 'f', 3)
                                        .arg(e < 0.5 ? tr("good") : e < 1 ? tr("acceptable") : tr("retake blurred views")));
        };
    });
}

QString CalibrationWizard::camera_text() const { return camera_status_->text(); }

QStringList CalibrationWizard::camera_view_lines() const {
    QStringList out;
    for (int i = 0; i < camera_views_->count(); ++i) out << camera_views_->item(i)->text();
    return out;
}

// ---- Page 2: table plane ----------------------------------------------------------------

QWizardPage* CalibrationWizard::build_table_page() {
    auto* page = new QWizardPage;
    page->setTitle(tr("2. Table: where the table lies in the image"));
    auto* intro = wrapped(tr("Print the four table markers at 100 %, cut them out and lay them flat at the corners of the play area: "
                             "0 north-west (top left as the camera sees it), 1 north-east, 2 south-east, 3 south-west, their centres "
                             "on a rectangle you measure. With the camera in its final place, capture one view. The markers may go "
                             "afterwards, as long as the camera does not move. No markers? Tick \"from the tiles\" and show a board of "
                             "at least 16 tiles instead."));
    auto* print = new QPushButton(tr("Save the marker sheet (PDF/PNG)…"));
    auto* capture = new QPushButton(tr("Capture view from the camera"));
    capture->setEnabled(bool(grab_));
    auto* open = new QPushButton(tr("Open photo…"));
    table_width_ = new QDoubleSpinBox;
    table_height_ = new QDoubleSpinBox;
    for (QDoubleSpinBox* box : {table_width_, table_height_}) {
        box->setRange(100, 5000);
        box->setDecimals(0);
        box->setSuffix(" mm");
    }
    table_width_->setValue(700);
    table_height_->setValue(500);
    from_tiles_ = new QCheckBox(tr("from the tiles (no markers; about 1 % scale error)"));
    from_start_tile_ = new QCheckBox(tr("from the start tile alone (no markers; drifts away from it)"));
    // One source at a time.
    connect(from_tiles_, &QCheckBox::toggled, this, [this](bool on) {
        if (on) from_start_tile_->setChecked(false);
    });
    connect(from_start_tile_, &QCheckBox::toggled, this, [this](bool on) {
        if (on) from_tiles_->setChecked(false);
    });
    draw_zone_ = new QLineEdit(QSettings().value(kDrawZoneKey).toString());
    draw_zone_->setPlaceholderText(tr("x,y,w,h mm, e.g. 760,0,80,80 (optional)"));
    draw_zone_->setToolTip(tr("A square marked on the table where players show the drawn tile to the camera, in mm from marker 0, "
                              "more than two tiles away from the board"));
    table_status_ = wrapped(tr("No view yet."));
    table_preview_ = preview_label();
    busy_bar_table_ = busy_bar();

    connect(print, &QPushButton::clicked, this, [this] {
        const QString file = QFileDialog::getSaveFileName(this, tr("Save the table markers"), "table-markers.pdf", tr("PDF or PNG (*.pdf *.png)"));
        if (file.isEmpty()) return;
        run([this, file]() -> std::function<void()> {
            auto sheet = calibration::marker_sheet({});
            Status st = sheet ? calibration::write_sheet(sheet.value(), file.toStdString()) : Status(sheet.error());
            return [this, file, st] { table_status_->setText(st ? tr("Wrote %1: print it at 100 %.").arg(file) : error_html(st.error())); };
        });
    });
    connect(capture, &QPushButton::clicked, this, [this] {
        const cv::Mat frame = grab_or_warn(table_status_);
        if (!frame.empty()) measure_table(frame, tr("camera view"));
    });
    connect(open, &QPushButton::clicked, this, [this] {
        const QString file = QFileDialog::getOpenFileName(this, tr("Photo of the table"), {}, tr("Images (*.png *.jpg *.jpeg)"));
        if (!file.isEmpty()) measure_table({}, file);
    });

    auto* buttons = new QHBoxLayout;
    buttons->addWidget(print);
    buttons->addWidget(capture);
    buttons->addWidget(open);
    auto* rect = new QHBoxLayout;
    rect->addWidget(new QLabel(tr("Marker centres: rectangle")));
    rect->addWidget(table_width_);
    rect->addWidget(new QLabel("×"));
    rect->addWidget(table_height_);
    rect->addStretch();
    rect->addWidget(from_tiles_);
    rect->addWidget(from_start_tile_);
    auto* zone = new QHBoxLayout;
    zone->addWidget(new QLabel(tr("Draw zone (the drawn tile shown to the camera)")));
    zone->addWidget(draw_zone_, 1);
    auto* layout = new QVBoxLayout(page);
    layout->addWidget(intro);
    layout->addLayout(buttons);
    layout->addLayout(rect);
    layout->addLayout(zone);
    layout->addWidget(busy_bar_table_);
    layout->addWidget(table_status_);
    layout->addWidget(table_preview_, 1);
    return page;
}

void CalibrationWizard::set_table_rectangle_mm(double width, double height) {
    table_width_->setValue(width);
    table_height_->setValue(height);
}

void CalibrationWizard::set_table_from_tiles(bool on) { from_tiles_->setChecked(on); }
void CalibrationWizard::set_table_from_start_tile(bool on) { from_start_tile_->setChecked(on); }
void CalibrationWizard::set_draw_zone(const QString& text) { draw_zone_->setText(text); }

void CalibrationWizard::measure_table(const cv::Mat& image, const QString& name) {
    calibration::TableMarkerOptions options;
    options.centres_mm = calibration::rectangle_centres(table_width_->value(), table_height_->value());
    const bool tiles = from_tiles_->isChecked();
    const bool start_tile = from_start_tile_->isChecked();
    std::optional<QRectF> zone;
    if (!draw_zone_->text().trimmed().isEmpty()) {
        if (auto z = parse_draw_zone(draw_zone_->text(), "draw zone"); z) zone = z.value();
    }
    std::optional<calibration::CameraIntrinsics> camera;
    if (const auto* c = intrinsics()) camera = *c;
    const cv::Mat img = image;
    table_status_->setText(tr("Measuring the table plane…"));
    run([this, img, name, options, tiles, start_tile, camera, zone]() -> std::function<void()> {
        const std::string where = name.toStdString();
        const calibration::CameraIntrinsics* cam = camera ? &*camera : nullptr;
        auto loaded = photo(img, name);
        Result<calibration::TableCalibration> table = invalid("", "");
        QImage preview;
        double mm_per_px = 0;
        // The plane from the tiles is read on the undistorted photo; the markers' corners are undistorted by table_from_markers.
        auto measure = [&]() -> Result<calibration::TableCalibration> {
            if (!loaded) return loaded.error();
            if (!tiles && !start_tile) return calibration::table_from_markers(loaded.value(), options, cam, where);
            cv::Mat picture = loaded.value();
            if (cam) {
                auto u = calibration::undistort_image(picture, *cam);
                if (!u) return invalid(where, u.error().message);
                picture = u.value();
            }
            if (tiles) return calibration::table_from_tiles(picture, {}, cam, where);
            auto catalog = Catalog::embedded("carcassonne-base");
            if (!catalog) return catalog.error();
            const TileType* d = catalog->find(catalog->start_tile());
            if (!d) return invalid(where, "the base game names no start tile");
            auto classifier = vision::TileClassifier::create(catalog.value());
            if (!classifier) return classifier.error();
            auto plane = calibration::table_from_start_tile(picture, *d, classifier.value(), {}, cam, where);
            if (!plane) return plane.error();
            return plane->table;
        };
        table = measure();
        if (loaded) {
            if (table) {
                std::optional<std::array<calibration::FoundMarker, 4>> found;
                if (!tiles && !start_tile) {
                    if (auto f = calibration::find_table_markers(loaded.value(), where); f) found = f.value();
                }
                cv::Mat shown = loaded.value();
                if (table->undistorted && cam) shown = calibration::undistort_image(shown, *cam).value();
                cv::Mat drawn = calibration::draw_table_plane(shown, table.value(), found ? &*found : nullptr);
                if (zone) {  // the draw zone in orange
                    const std::vector<cv::Point2d> corners{{zone->left(), zone->top()}, {zone->right(), zone->top()},
                                                           {zone->right(), zone->bottom()}, {zone->left(), zone->bottom()}};
                    std::vector<cv::Point> px;
                    for (const auto& c : corners) px.push_back(table->plane.to_image(c));
                    cv::polylines(drawn, px, true, cv::Scalar(0, 140, 255), std::max(2, drawn.cols / 500), cv::LINE_AA);
                }
                preview = preview_image(drawn);
                const cv::Point2d c(shown.cols / 2.0, shown.rows / 2.0);
                mm_per_px = cv::norm(table->plane.to_table(c + cv::Point2d(0.5, 0)) - table->plane.to_table(c - cv::Point2d(0.5, 0)));
            } else {
                preview = preview_image(loaded.value());
            }
        }
        return [this, table, preview, mm_per_px] {
            show_preview(table_preview_, preview);
            if (!table) {
                table_.reset();
                table_status_->setText(error_html(table.error()));
                return;
            }
            table_ = table.value();
            const QString source = table->source == "markers"     ? tr("All four markers found (0 NW, 1 NE, 2 SE, 3 SW)")
                                   : table->source == "start-tile" ? tr("Plane measured from the start tile (best near it)")
                                                                   : tr("Plane measured from the tiles");
            table_status_->setText(tr("%1; plane fit rms %2 px; %3 mm per pixel at the image centre%4. The yellow 100 mm grid must lie square on the table.")
                                       .arg(source)
                                       .arg(table->plane.rms_error_px, 0, 'f', 2)
                                       .arg(mm_per_px, 0, 'f', 2)
                                       .arg(table->undistorted ? tr(" (lens distortion removed)") : QString()));
        };
    });
}

QString CalibrationWizard::table_text() const { return table_status_->text(); }

// ---- Page 3: player colours -------------------------------------------------------------

QWizardPage* CalibrationWizard::build_colours_page() {
    auto* page = new QWizardPage;
    page->setTitle(tr("3. Player colours"));
    auto* intro = wrapped(tr("Lay a plain white sheet of paper on the table under the game's light and stand one follower of each "
                             "player's colour on it, apart from each other, nothing else on the paper. Tick the colours in play and "
                             "capture one view."));
    auto* boxes = new QHBoxLayout;
    for (const std::string& name : calibration::player_colour_names()) {
        auto* box = new QCheckBox(QString::fromStdString(name));
        player_boxes_.push_back(box);
        boxes->addWidget(box);
    }
    boxes->addStretch();
    auto* capture = new QPushButton(tr("Capture view from the camera"));
    capture->setEnabled(bool(grab_));
    auto* open = new QPushButton(tr("Open photo…"));
    colours_status_ = wrapped(tr("No view yet."));
    colours_preview_ = preview_label();
    busy_bar_colours_ = busy_bar();
    connect(capture, &QPushButton::clicked, this, [this] {
        const cv::Mat frame = grab_or_warn(colours_status_);
        if (!frame.empty()) measure_colours(frame, tr("camera view"));
    });
    connect(open, &QPushButton::clicked, this, [this] {
        const QString file = QFileDialog::getOpenFileName(this, tr("Photo of the followers on paper"), {}, tr("Images (*.png *.jpg *.jpeg)"));
        if (!file.isEmpty()) measure_colours({}, file);
    });
    auto* buttons = new QHBoxLayout;
    buttons->addWidget(capture);
    buttons->addWidget(open);
    buttons->addStretch();
    auto* layout = new QVBoxLayout(page);
    layout->addWidget(intro);
    layout->addLayout(boxes);
    layout->addLayout(buttons);
    layout->addWidget(busy_bar_colours_);
    layout->addWidget(colours_status_);
    layout->addWidget(colours_preview_, 1);
    return page;
}

void CalibrationWizard::set_players(const QStringList& colours) {
    for (QCheckBox* box : player_boxes_) box->setChecked(colours.contains(box->text()));
}

void CalibrationWizard::measure_colours(const cv::Mat& image, const QString& name) {
    std::vector<std::string> players;
    for (QCheckBox* box : player_boxes_) {
        if (box->isChecked()) players.push_back(box->text().toStdString());
    }
    if (players.empty()) {
        colours_status_->setText("<span style='color:#b00000'>" + tr("Tick the colours in play first.") + "</span>");
        return;
    }
    const cv::Mat img = image;
    colours_status_->setText(tr("Reading the followers…"));
    run([this, img, name, players]() -> std::function<void()> {
        auto loaded = photo(img, name);
        Result<calibration::ColourShot> shot = loaded ? calibration::calibrate_colours(loaded.value(), players, name.toStdString())
                                                      : Result<calibration::ColourShot>(loaded.error());
        QImage preview;
        if (loaded) preview = preview_image(shot ? calibration::draw_colour_shot(loaded.value(), shot.value()) : loaded.value());
        return [this, shot, preview] {
            show_preview(colours_preview_, preview);
            if (!shot) {
                colours_.reset();
                colours_status_->setText(error_html(shot.error()));
                return;
            }
            colours_ = shot->calibration;
            QString text = tr("Every colour found (white balance R %1, G %2, B %3):")
                               .arg(shot->calibration.white_balance_rgb[0], 0, 'f', 2)
                               .arg(shot->calibration.white_balance_rgb[1], 0, 'f', 2)
                               .arg(shot->calibration.white_balance_rgb[2], 0, 'f', 2);
            for (const auto& f : shot->followers) {
                const auto& m = shot->calibration.players.at(f.colour);
                text += "<br>" + lab_swatch(m.lab_mean) + " " +
                        tr("%1 at (%2, %3) px, %4 px measured").arg(QString::fromStdString(f.colour)).arg(f.centre_px.x, 0, 'f', 0).arg(f.centre_px.y, 0, 'f', 0).arg(m.pixels);
            }
            colours_status_->setText(text);
        };
    });
}

QString CalibrationWizard::colours_text() const { return colours_status_->text(); }

// ---- Page 4: save -----------------------------------------------------------------------

QWizardPage* CalibrationWizard::build_save_page() {
    auto* page = new ValidatedPage;
    page->setTitle(tr("4. Save the calibration file"));
    page->setFinalPage(true);
    path_ = new QLineEdit;
    auto* browse = new QPushButton(tr("Browse…"));
    connect(browse, &QPushButton::clicked, this, [this] {
        const QString file = QFileDialog::getSaveFileName(this, tr("Calibration file"), path_->text(), tr("Calibration (*.json)"));
        if (!file.isEmpty()) path_->setText(file);
    });
    save_summary_ = wrapped({});
    save_status_ = wrapped({});
    auto* row = new QHBoxLayout;
    row->addWidget(path_, 1);
    row->addWidget(browse);
    auto* layout = new QVBoxLayout(page);
    layout->addWidget(wrapped(tr("One versioned JSON file holds every part; it is written atomically (a crash leaves the old file "
                                 "or the new one) and the app uses it from now on (and `meeplecam recognize --calibration`).")));
    layout->addLayout(row);
    layout->addWidget(save_summary_);
    layout->addWidget(save_status_);
    layout->addStretch();
    page->validate = [this] { return bool(save_to(path_->text())); };
    return page;
}

calibration::Calibration CalibrationWizard::calibration() const {
    calibration::Calibration out = existing_;
    if (camera_) out.camera = camera_;
    if (table_) out.table = table_;
    if (colours_) out.colours = colours_;
    return out;
}

void CalibrationWizard::update_save_page() {
    auto part = [](bool now, bool kept, const QString& what, const QString& detail) {
        if (now) return tr("<b>%1</b>: measured now — %2").arg(what, detail);
        if (kept) return tr("<b>%1</b>: kept from the file").arg(what);
        return tr("<b>%1</b>: none").arg(what);
    };
    const auto cal = calibration();
    QStringList lines;
    lines << part(bool(camera_), bool(existing_.camera), tr("Camera"),
                  camera_ ? tr("%1 views, reprojection error %2 px").arg(camera_->views).arg(camera_->reprojection_error_px, 0, 'f', 3) : QString());
    lines << part(bool(table_), bool(existing_.table), tr("Table plane"),
                  table_ ? tr("from %1, rms %2 px").arg(QString::fromStdString(table_->source)).arg(table_->plane.rms_error_px, 0, 'f', 2) : QString());
    QString players;
    if (colours_) {
        for (const auto& [name, model] : colours_->players) players += (players.isEmpty() ? "" : ", ") + QString::fromStdString(name);
    }
    lines << part(bool(colours_), bool(existing_.colours), tr("Player colours"), players);
    if (camera_ && !table_ && existing_.table && existing_.table->undistorted) {
        lines << "<span style='color:#b00000'>" + tr("The kept table plane was measured with the previous intrinsics: measure it again.") + "</span>";
    }
    if (!existing_note_.isEmpty()) lines << existing_note_;
    save_summary_->setText(lines.join("<br>"));
}

Status CalibrationWizard::save_to(const QString& path) {
    update_save_page();
    path_->setText(path);
    const auto cal = calibration();
    Status st = Ok{};
    const QString zone_text = draw_zone_->text().trimmed();
    Result<QRectF> zone = zone_text.isEmpty() ? Result<QRectF>(QRectF()) : parse_draw_zone(zone_text, "draw zone");
    if (!zone) {
        st = zone.error();
    } else if (!cal.camera && !cal.table && !cal.colours) {
        st = invalid(path.toStdString(), "nothing to save: measure at least one part (camera, table or colours)");
    } else if (path.isEmpty()) {
        st = invalid("calibration wizard", "choose where the calibration file goes");
    } else {
        QDir().mkpath(QFileInfo(path).absolutePath());
        st = calibration::save_calibration(cal, path.toStdString());
    }
    if (!st) {
        save_status_->setText(error_html(st.error()));
        return st;
    }
    QSettings().setValue(kCalibrationPathKey, path);
    QSettings().setValue(kDrawZoneKey, zone_text);
    save_status_->setText(tr("Saved %1; the app uses it from now on.").arg(path));
    emit calibration_saved(path);
    return st;
}

QString CalibrationWizard::save_text() const { return save_summary_->text() + "\n" + save_status_->text(); }

}  // namespace meeplecam::ui
