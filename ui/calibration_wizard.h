// CalibrationWizard: calibrates a camera set-up into one calibration file
// (calibration/calibration_file.h) in four pages — camera intrinsics from views of the
// printed ChArUco board, the table plane from the four printed markers (or from the tiles),
// the player colours from one shot of the followers on paper, and saving. Photos come from
// the live camera (the newest frame) or from image files. Every detection and fit runs on
// the wizard's own worker thread; the GUI thread never waits for one (a busy bar shows it).
// Errors of the calibration layer are shown on the page that caused them.
// The saved file's path is remembered in QSettings ("calibration/path").
#pragma once

#include <QImage>
#include <QRectF>
#include <QString>
#include <QStringList>
#include <QWizard>

#include <functional>
#include <optional>
#include <vector>

#include <opencv2/core.hpp>

#include "calibration/calibration_file.h"
#include "calibration/camera_calibration.h"
#include "calibration/player_colours.h"

class QCheckBox;
class QDoubleSpinBox;
class QLabel;
class QLineEdit;
class QListWidget;
class QProgressBar;
class QPushButton;
class QThread;

namespace meeplecam::ui {

// The QSettings key holding the path of the calibration file in use.
inline constexpr const char* kCalibrationPathKey = "calibration/path";
// The calibration path remembered in QSettings; empty when none.
QString remembered_calibration_path();
// The QSettings key of the draw zone ("x,y,w,h" in mm on the calibrated table).
inline constexpr const char* kDrawZoneKey = "calibration/draw-zone-mm";
// Parses a draw zone "x,y,w,h" (mm); errors name `where`.
Result<QRectF> parse_draw_zone(const QString& text, const std::string& where);
// The draw zone remembered in QSettings; an empty rectangle when none.
QRectF remembered_draw_zone();

class CalibrationWizard : public QWizard {
    Q_OBJECT
public:
    enum PageId { CameraPage = 0, TablePage, ColoursPage, SavePage };
    // Returns the newest camera frame (8-bit BGR), or an empty Mat when there is none.
    using FrameGrabber = std::function<cv::Mat()>;

    // `grab` may be empty (no live camera: photos from files only). `path`: the file to update
    // (default: the remembered one); parts not measured now are kept from it.
    explicit CalibrationWizard(FrameGrabber grab = {}, QString path = {}, QWidget* parent = nullptr);
    ~CalibrationWizard() override;

    // Page 1: one more view of the ChArUco board (asynchronous; the reprojection error is
    // refitted once enough views are usable).
    void add_camera_view(const cv::Mat& image, const QString& name);
    // Page 2: the photo of the table with its four markers (or tiles, see set_table_from_tiles).
    void measure_table(const cv::Mat& image, const QString& name);
    void set_table_rectangle_mm(double width, double height);
    void set_table_from_tiles(bool on);
    // No markers and only the start tile on the table: the plane from its four corners
    // (calibration/start_tile_plane.h, the Carcassonne start tile D).
    void set_table_from_start_tile(bool on);
    // The draw zone "x,y,w,h" (mm on the calibrated table; empty: none), remembered on saving.
    void set_draw_zone(const QString& text);
    // Page 3: the photo of one follower per player on white paper.
    void set_players(const QStringList& colours);
    void measure_colours(const cv::Mat& image, const QString& name);
    // Page 4: writes the calibration file atomically and remembers its path; the error is also shown on the page.
    Status save_to(const QString& path);

    // True while a detection or fit runs on the worker thread.
    bool busy() const { return jobs_ > 0; }
    // What each page says now (for tests and screenshots).
    QString camera_text() const;
    QString table_text() const;
    QString colours_text() const;
    QString save_text() const;
    QStringList camera_view_lines() const;
    // The calibration as it would be saved (measured parts over the file's parts).
    calibration::Calibration calibration() const;
    const std::optional<calibration::CameraIntrinsics>& measured_camera() const { return camera_; }

signals:
    // A detection or fit finished (its result is on the page).
    void work_done();
    void calibration_saved(QString path);

private:
    QWizardPage* build_camera_page();
    QWizardPage* build_table_page();
    QWizardPage* build_colours_page();
    QWizardPage* build_save_page();
    // Runs `job` on the worker thread, then `done` on the GUI thread (dropped if the wizard is gone).
    void run(std::function<std::function<void()>()> job);
    void job_finished();
    void refit_camera();
    void show_preview(QLabel* label, const QImage& image);
    void update_save_page();
    cv::Mat grab_or_warn(QLabel* status);
    // The intrinsics in use: measured now, else the file's.
    const calibration::CameraIntrinsics* intrinsics() const;

    FrameGrabber grab_;
    QThread* thread_ = nullptr;
    QObject* worker_ = nullptr;
    int jobs_ = 0;
    calibration::Calibration existing_;   // the file's parts when the wizard opened
    QString existing_note_;

    calibration::CameraCalibrationOptions camera_options_;
    std::vector<calibration::CharucoView> views_;
    std::optional<calibration::CameraIntrinsics> camera_;
    int camera_generation_ = 0;
    QString last_view_error_;             // why the last view was not usable (empty: it was)
    std::optional<calibration::TableCalibration> table_;
    std::optional<calibration::ColourCalibration> colours_;
    int shots_ = 0;

    QLabel* camera_status_ = nullptr;
    QListWidget* camera_views_ = nullptr;
    QLabel* camera_preview_ = nullptr;
    QProgressBar* busy_bar_camera_ = nullptr;
    QDoubleSpinBox* table_width_ = nullptr;
    QDoubleSpinBox* table_height_ = nullptr;
    QCheckBox* from_tiles_ = nullptr;
    QCheckBox* from_start_tile_ = nullptr;
    QLineEdit* draw_zone_ = nullptr;
    QLabel* table_status_ = nullptr;
    QLabel* table_preview_ = nullptr;
    QProgressBar* busy_bar_table_ = nullptr;
    std::vector<QCheckBox*> player_boxes_;
    QLabel* colours_status_ = nullptr;
    QLabel* colours_preview_ = nullptr;
    QProgressBar* busy_bar_colours_ = nullptr;
    QLineEdit* path_ = nullptr;
    QLabel* save_summary_ = nullptr;
    QLabel* save_status_ = nullptr;
};

}  // namespace meeplecam::ui
