// `meeplecam calibrate` end to end on rendered photos written to disk: camera, table and
// colours build up one file step by step; show reads it back.
#include <catch2/catch.hpp>

#include <cmath>
#include <filesystem>
#include <iostream>
#include <sstream>

#include <opencv2/imgcodecs.hpp>

#include "app/calibrate_commands.h"
#include "calibration/calibration_file.h"
#include "tests/calibration/synthetic_views.h"

using namespace meeplecam;
namespace fs = std::filesystem;

namespace {

// Runs `meeplecam calibrate ARGS`, capturing stdout and stderr.
struct Run {
    int code = 0;
    std::string out, err;
};
Run calibrate(const std::vector<std::string>& args) {
    std::ostringstream out, err;
    auto* old_out = std::cout.rdbuf(out.rdbuf());
    auto* old_err = std::cerr.rdbuf(err.rdbuf());
    Run r;
    r.code = cli::run_calibrate(args);
    std::cout.rdbuf(old_out);
    std::cerr.rdbuf(old_err);
    r.out = out.str();
    r.err = err.str();
    return r;
}

}  // namespace

TEST_CASE("calibrate camera, table and colours build one file", "[cli][calibration]") {
    const fs::path dir = fs::temp_directory_path() / "meeplecam_calibrate_cli";
    fs::remove_all(dir);
    fs::create_directories(dir);
    const std::string file = (dir / "table.json").string();

    // Camera: 8 board photos and one photo without the board (skipped with a warning).
    testing::PinholeCamera camera;
    camera.size = {1920, 1080};
    camera.K = cv::Matx33d(1500, 0, 955, 0, 1500, 545, 0, 0, 1);
    camera.distortion = {-0.15, 0.05, 0, 0, 0};
    std::vector<std::string> args = {"camera"};
    const auto views = testing::charuco_views(camera, calibration::CharucoSpec{}, 8, 77);
    for (std::size_t i = 0; i < views.size(); ++i) {
        const std::string path = (dir / ("board" + std::to_string(i) + ".png")).string();
        REQUIRE(cv::imwrite(path, views[i]));
        args.push_back(path);
    }
    const testing::PlaneTexture bare = testing::table_texture(-300, -300, 600, 600, 2, 5);
    const std::string empty = (dir / "empty.png").string();
    REQUIRE(cv::imwrite(empty, testing::render_plane(bare, camera, testing::look_at({0, 0, -600}, {0, 0, 0}), 0.5, 2, 3)));
    args.push_back(empty);
    args.insert(args.end(), {"-o", file});
    auto r = calibrate(args);
    INFO(r.out << r.err);
    REQUIRE(r.code == 0);
    CHECK(r.err.find("empty.png: no ChArUco board found") != std::string::npos);
    CHECK(r.out.find("reprojection error") != std::string::npos);

    // Table: the markers through the same lens; the file's intrinsics undistort them.
    const testing::TableScene scene = testing::table_scene(3);
    const testing::Pose pose = testing::table_pose();
    const std::string table_photo = (dir / "table.png").string();
    REQUIRE(cv::imwrite(table_photo, testing::render_plane(scene.texture, camera, pose, 0.8, 3, 4)));
    r = calibrate({"table", table_photo, "--rect-mm", "700x500", "-o", file});
    INFO(r.out << r.err);
    REQUIRE(r.code == 0);
    CHECK(r.out.find("(undistorted)") != std::string::npos);

    // Colours: the paper shot (another camera mode is fine for colours: no geometry).
    const std::string paper = (dir / "paper.png").string();
    REQUIRE(cv::imwrite(paper, testing::paper_shot({"red", "blue", "green"}, cv::Vec3d(0.7, 0.9, 1.1), 5)));
    r = calibrate({"colours", paper, "--players", "red,blue,green", "-o", file});
    INFO(r.out << r.err);
    REQUIRE(r.code == 0);

    // One file holds all three parts, each right.
    auto cal = calibration::load_calibration(file);
    REQUIRE(cal);
    REQUIRE(cal->camera);
    REQUIRE(cal->table);
    REQUIRE(cal->colours);
    const double focal_error = std::abs(cal->camera->camera_matrix(0, 0) / 1500 - 1);
    std::printf("calibrate CLI: 8 rendered views at 1920x1080, k1 -0.15: focal error %.3f %%, reprojection %.3f px; table rms %.3f px\n",
                100 * focal_error, cal->camera->reprojection_error_px, cal->table->plane.rms_error_px);
    CHECK(focal_error < 0.02);
    CHECK(cal->camera->views == 8);
    CHECK(cal->table->undistorted);
    const cv::Point2d centre(350, 250);
    const cv::Vec3d ideal = testing::plane_to_image(camera, pose) * cv::Vec3d(centre.x, centre.y, 1);
    const double plane_error_mm = cv::norm(cal->table->plane.to_table({ideal[0] / ideal[2], ideal[1] / ideal[2]}) - centre);
    std::printf("calibrate CLI: table plane with the calibrated (not the true) intrinsics: %.3f mm at the board centre\n", plane_error_mm);
    CHECK(plane_error_mm <= 1.0);
    CHECK(cal->colours->players.size() == 3);

    r = calibrate({"show", file});
    CHECK(r.code == 0);
    CHECK(r.out.find("marker 2 (SE) at 700.0, 500.0 mm") != std::string::npos);
    CHECK(r.out.find("green: Lab") != std::string::npos);

    // Bad input: exit 2, the file left as it was.
    const std::string before = calibration::calibration_to_json(cal.value()).dump();
    r = calibrate({"colours", paper, "--players", "red,blue,green,yellow", "-o", file});
    CHECK(r.code == 2);
    CHECK(r.err.find("no yellow follower found on the paper") != std::string::npos);
    r = calibrate({"camera", empty, "-o", file});
    CHECK(r.code == 2);
    CHECK(r.err.find("needs at least 4 usable views of the board, got 0") != std::string::npos);
    CHECK(calibration::calibration_to_json(calibration::load_calibration(file).value()).dump() == before);
    fs::remove_all(dir);
}
