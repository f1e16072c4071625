// The calibration wizard driven with rendered photos of a known camera (the calibration
// tests' renderer): the saved file loads and holds that camera, the markers' plane and the
// colours; a photo without a board, a hidden marker and a missing colour are shown on their page.
#include <catch2/catch.hpp>

#include <QElapsedTimer>
#include <QFileInfo>
#include <QPushButton>
#include <QSettings>
#include <QSignalSpy>

#include <cstdio>
#include <cstdlib>

#include <opencv2/imgproc.hpp>

#include "calibration/calibration_file.h"
#include "tests/calibration/synthetic_views.h"
#include "tests/ui/qt_app.h"
#include "ui/calibration_wizard.h"
#include "vision/homography.h"
#include "vision/table_renderer.h"

using namespace meeplecam;

namespace {

// Runs the event loop until the wizard's worker has nothing left (the GUI never blocks on it).
void wait_idle(const ui::CalibrationWizard& wizard) {
    QElapsedTimer t;
    t.start();
    do {
        QApplication::processEvents(QEventLoop::AllEvents, 20);
    } while (wizard.busy() && t.elapsed() < 120000);
    REQUIRE_FALSE(wizard.busy());
}

testing::PinholeCamera known_camera() {
    testing::PinholeCamera camera;
    camera.size = {1920, 1080};
    camera.K = cv::Matx33d(1500, 0, 955, 0, 1500, 545, 0, 0, 1);
    camera.distortion = {-0.15, 0.05, 0, 0, 0};
    return camera;
}

// Saves the wizard's current page as a PNG when MEEPLECAM_SCREENSHOTS names a folder (scripts/screenshots.sh).
void screenshot(ui::CalibrationWizard& wizard, int page, const char* name) {
    const char* dir = std::getenv("MEEPLECAM_SCREENSHOTS");
    if (!dir) return;
    while (wizard.currentId() < page) wizard.next();
    QApplication::processEvents();
    const QString path = QString("%1/%2").arg(dir, name);
    REQUIRE(wizard.grab().save(path));
    std::printf("wrote %s\n", path.toStdString().c_str());
}

}  // namespace

TEST_CASE("the calibration wizard measures a known camera, the table and the colours and saves them", "[ui][calibration-wizard]") {
    test::qt_app();
    const QString dir = test::fresh_dir("calibration_wizard");
    QSettings().remove(ui::kCalibrationPathKey);
    const testing::PinholeCamera camera = known_camera();

    ui::CalibrationWizard wizard({}, dir + "/table.json");
    wizard.resize(760, 820);
    wizard.show();
    // Page 1: eight views of the board and one photo with no board.
    const testing::PlaneTexture bare = testing::table_texture(-300, -300, 600, 600, 2, 3);
    wizard.add_camera_view(testing::render_plane(bare, camera, testing::look_at({0, 0, -600}, {0, 0, 0}), 0.5, 2, 3), "empty table");
    wait_idle(wizard);
    CHECK(wizard.camera_text().contains("empty table: no ChArUco board found"));  // the error on the page
    const auto views = testing::charuco_views(camera, calibration::CharucoSpec{}, 8, 77);
    for (std::size_t i = 0; i < views.size(); ++i) wizard.add_camera_view(views[i], QString("view %1").arg(i + 1));
    wait_idle(wizard);
    const QStringList lines = wizard.camera_view_lines();
    INFO(lines.join("\n").toStdString());
    REQUIRE(lines.size() == 9);
    CHECK(lines.filter("corners").size() == 8);
    CHECK(lines.filter("empty table: no ChArUco board found").size() == 1);
    REQUIRE(wizard.measured_camera());
    const auto& K = wizard.measured_camera()->camera_matrix;
    const double focal_error = std::max(std::abs(K(0, 0) / 1500 - 1), std::abs(K(1, 1) / 1500 - 1));
    CHECK(focal_error < 0.01);
    CHECK(wizard.camera_text().contains("reprojection error"));
    CHECK(wizard.measured_camera()->views == 8);
    std::printf("calibration wizard: focal error %.3f %% (fx %.1f fy %.1f), k1 %.3f, reprojection %.3f px over %d views\n", 100 * focal_error,
                K(0, 0), K(1, 1), wizard.measured_camera()->distortion[0], wizard.measured_camera()->reprojection_error_px,
                wizard.measured_camera()->views);
    screenshot(wizard, ui::CalibrationWizard::CameraPage, "calibrate-camera.png");

    // Page 2: first a hand over marker 3, then the whole table.
    const testing::TableScene scene = testing::table_scene(4);
    const testing::Pose pose = testing::table_pose();
    cv::Mat hidden = testing::render_plane(scene.texture, camera, pose, 0.8, 3, 4);
    const cv::Matx33d truth = testing::plane_to_image(camera, pose);
    cv::circle(hidden, vision::apply_homography(truth, scene.centres_mm[3]), 90, cv::Scalar(80, 120, 190), cv::FILLED);
    wizard.set_table_rectangle_mm(700, 500);
    wizard.set_draw_zone("600,200,80,80");  // drawn on the preview (orange)
    wizard.measure_table(hidden, "hand.png");
    wait_idle(wizard);
    CHECK(wizard.table_text().contains("marker 3 (SW corner) not found"));
    wizard.measure_table(testing::render_plane(scene.texture, camera, pose, 0.8, 3, 4), "table.png");
    wait_idle(wizard);
    CHECK(wizard.table_text().contains("All four markers found"));
    screenshot(wizard, ui::CalibrationWizard::TablePage, "calibrate-table.png");

    // Page 3: green is ticked but not on the paper, then the three colours that are.
    const cv::Mat paper = testing::paper_shot({"red", "blue", "yellow"}, cv::Vec3d(0.7, 0.9, 1.1), 5);
    wizard.set_players({"red", "blue", "green"});
    wizard.measure_colours(paper, "paper.png");
    wait_idle(wizard);
    CHECK(wizard.colours_text().contains("no green follower found"));
    wizard.set_players({"red", "blue", "yellow"});
    wizard.measure_colours(paper, "paper.png");
    wait_idle(wizard);
    CHECK(wizard.colours_text().contains("Every colour found"));
    screenshot(wizard, ui::CalibrationWizard::ColoursPage, "calibrate-colours.png");

    // Page 4: a draw zone smaller than a tile is refused on the page; then saved, remembered,
    // and the file holds what was measured.
    QSignalSpy saved(&wizard, &ui::CalibrationWizard::calibration_saved);
    wizard.set_draw_zone("600,200,30,80");
    REQUIRE_FALSE(wizard.save_to(dir + "/table.json"));
    CHECK(wizard.save_text().contains("at least one tile"));
    CHECK_FALSE(QFileInfo::exists(dir + "/table.json"));
    wizard.set_draw_zone("600,200,80,80");
    REQUIRE(wizard.save_to(dir + "/table.json"));
    screenshot(wizard, ui::CalibrationWizard::SavePage, "calibrate-save.png");
    CHECK(saved.size() == 1);
    CHECK(ui::remembered_calibration_path() == dir + "/table.json");
    CHECK(ui::remembered_draw_zone() == QRectF(600, 200, 80, 80));
    auto cal = calibration::load_calibration((dir + "/table.json").toStdString());
    REQUIRE(cal);
    REQUIRE(cal->camera);
    CHECK(std::abs(cal->camera->camera_matrix(0, 0) / 1500 - 1) < 0.01);
    CHECK(std::abs(cal->camera->camera_matrix(0, 2) - 955) < 10);
    CHECK(std::abs(cal->camera->distortion[0] - -0.15) < 0.03);
    REQUIRE(cal->table);
    CHECK(cal->table->undistorted);
    // The saved plane maps table mm to undistorted pixels, which (the new camera matrix being
    // the calibrated K, about the true one) are the true plane's ideal pixels.
    const double centre_error = cv::norm(cal->table->plane.to_table(vision::apply_homography(truth, {350, 250})) - cv::Point2d(350, 250));
    std::printf("calibration wizard: table plane error at the board centre %.3f mm\n", centre_error);
    CHECK(centre_error < 1.5);
    REQUIRE(cal->colours);
    CHECK(cal->colours->players.size() == 3);
    CHECK(cal->colours->players.count("yellow") == 1);
}

TEST_CASE("the calibration wizard captures views from the live camera", "[ui][calibration-wizard]") {
    test::qt_app();
    const QString dir = test::fresh_dir("calibration_wizard_capture");
    const auto views = testing::charuco_views(known_camera(), calibration::CharucoSpec{}, 2, 5);
    int grabbed = 0;
    ui::CalibrationWizard wizard([&] { return views[static_cast<std::size_t>(grabbed++ % 2)]; }, dir + "/c.json");
    QPushButton* capture = nullptr;
    for (QPushButton* b : wizard.page(ui::CalibrationWizard::CameraPage)->findChildren<QPushButton*>()) {
        if (b->text().startsWith("Capture")) capture = b;
    }
    REQUIRE(capture);
    REQUIRE(capture->isEnabled());
    capture->click();
    capture->click();
    wait_idle(wizard);
    CHECK(grabbed == 2);
    CHECK(wizard.camera_view_lines().filter("corners").size() == 2);
    CHECK(wizard.camera_text().contains("2 more needed"));
}

TEST_CASE("the calibration wizard refuses to save nothing and shows why", "[ui][calibration-wizard]") {
    test::qt_app();
    const QString dir = test::fresh_dir("calibration_wizard_empty");
    ui::CalibrationWizard wizard({}, dir + "/none.json");
    auto st = wizard.save_to(dir + "/none.json");
    REQUIRE_FALSE(st);
    CHECK(wizard.save_text().contains("nothing to save"));
    CHECK_FALSE(QFileInfo::exists(dir + "/none.json"));
}

TEST_CASE("the calibration wizard measures the table from the start tile alone", "[ui][calibration-wizard][start-tile]") {
    test::qt_app();
    const QString dir = test::fresh_dir("calibration_wizard_start_tile");
    // A rendered table with nothing on it but the start tile D, framed for a 9 x 7 cell board.
    const Catalog base = Catalog::embedded("carcassonne-base").value();
    vision::RenderOptions o = vision::RenderOptions::for_difficulty(vision::Difficulty::Easy);
    o.hand_chance = 0;
    o.scene_seed = 307;
    for (int x = -4; x <= 4; ++x) {
        for (int y = -3; y <= 3; ++y) o.layout_cells.push_back({x, y});
    }
    auto r = vision::render_table(std::vector<vision::SceneTile>{{base.find("D"), {0, 0}, 0, nullptr}}, o, 307);
    REQUIRE(r);
    ui::CalibrationWizard wizard({}, dir + "/c.json");
    wizard.set_table_from_tiles(true);
    wizard.set_table_from_start_tile(true);  // one source at a time: unticks the tiles
    wizard.measure_table(r->image, "start.png");
    wait_idle(wizard);
    INFO(wizard.table_text().toStdString());
    CHECK(wizard.table_text().contains("from the start tile"));
    const auto cal = wizard.calibration();
    REQUIRE(cal.table.has_value());
    CHECK(cal.table->source == "start-tile");
    // The plane's scale at the tile: 45 mm between two of its truth corners.
    const auto& corners = r->truth.tiles.front().corners_px;
    CHECK(std::abs(cv::norm(cal.table->plane.to_table(corners[0]) - cal.table->plane.to_table(corners[1])) - 45.0) < 1.0);
    // A table without the start tile says so on the page.
    cv::Mat bare(1080, 1920, CV_8UC3, cv::Scalar(70, 110, 150));
    wizard.measure_table(bare, "bare.png");
    wait_idle(wizard);
    CHECK(wizard.table_text().contains("bare.png"));
    CHECK_FALSE(wizard.calibration().table.has_value());
}
