// Camera intrinsics and the table plane, measured on rendered views with a known camera.
#include <catch2/catch.hpp>

#include <cmath>
#include <cstdio>
#include <regex>

#include <opencv2/calib3d.hpp>
#include <opencv2/imgcodecs.hpp>
#include <opencv2/imgproc.hpp>

#include "calibration/camera_calibration.h"
#include "calibration/printed_targets.h"
#include "calibration/table_plane.h"
#include "synthetic_views.h"
#include "vision/homography.h"

using namespace meeplecam;
using namespace meeplecam::testing;

namespace {

struct CameraResult {
    calibration::CameraIntrinsics intrinsics;
    double focal_error = 0;  // relative, worst of fx, fy
};

CameraResult calibrate_rendered(const PinholeCamera& truth, std::uint64_t seed) {
    calibration::CameraCalibrationOptions options;
    options.fix_k3 = true;
    const auto views = charuco_views(truth, options.board, 10, seed);
    std::vector<calibration::CharucoView> found;
    for (std::size_t i = 0; i < views.size(); ++i) {
        auto v = calibration::detect_charuco(views[i], "view " + std::to_string(i), options);
        if (v) found.push_back(v.value());
        else WARN(v.error().to_string());
    }
    REQUIRE(found.size() >= 8);
    auto cam = calibration::calibrate_camera(found, options);
    REQUIRE(cam);
    CameraResult r;
    r.intrinsics = cam.value();
    r.focal_error = std::max(std::abs(cam->camera_matrix(0, 0) / truth.K(0, 0) - 1), std::abs(cam->camera_matrix(1, 1) / truth.K(1, 1) - 1));
    return r;
}

}  // namespace

TEST_CASE("the printed sheets are true to size", "[calibration][print]") {
    auto sheet = calibration::charuco_sheet();
    REQUIRE(sheet);
    // Landscape A4 at the sheet's resolution.
    CHECK(std::abs(sheet->image.cols / sheet->px_per_mm - 297) < 0.2);
    CHECK(std::abs(sheet->image.rows / sheet->px_per_mm - 210) < 0.2);
    // The board's squares are whole pixels: 28 mm is exact.
    CHECK(std::abs(28 * sheet->px_per_mm - std::round(28 * sheet->px_per_mm)) < 1e-9);
    // The PNG's pHYs chunk says the resolution.
    const std::string png = calibration::sheet_png(sheet.value());
    const auto phys = png.find("pHYs");
    REQUIRE(phys != std::string::npos);
    const auto u32 = [&](std::size_t at) {
        return (static_cast<std::uint32_t>(static_cast<unsigned char>(png[at])) << 24) | (static_cast<unsigned char>(png[at + 1]) << 16) |
               (static_cast<unsigned char>(png[at + 2]) << 8) | static_cast<unsigned char>(png[at + 3]);
    };
    CHECK(std::abs(u32(phys + 4) / 1000.0 - sheet->px_per_mm) < 0.001);
    const cv::Mat decoded = cv::imdecode(std::vector<unsigned char>(png.begin(), png.end()), cv::IMREAD_GRAYSCALE);
    REQUIRE(decoded.size() == sheet->image.size());
    CHECK(cv::norm(decoded, sheet->image, cv::NORM_INF) == 0);  // the sheet is pure black and white: 1 bit loses nothing

    // The PDF: A4 landscape media box; the image drawn at exactly its mm size; xref offsets right.
    const std::string pdf = calibration::sheet_pdf(sheet.value());
    CHECK(pdf.rfind("%PDF-1.4", 0) == 0);
    std::smatch m;
    REQUIRE(std::regex_search(pdf, m, std::regex(R"(/MediaBox \[0 0 ([0-9.]+) ([0-9.]+)\])")));
    CHECK(std::stod(m[1]) / 72 * 25.4 == Approx(297).margin(0.01));
    CHECK(std::stod(m[2]) / 72 * 25.4 == Approx(210).margin(0.01));
    REQUIRE(std::regex_search(pdf, m, std::regex(R"(q ([0-9.]+) 0 0 ([0-9.]+) 0 ([0-9.-]+) cm /Im0 Do Q)")));
    CHECK(std::stod(m[1]) / 72 * 25.4 == Approx(sheet->image.cols / sheet->px_per_mm).margin(0.001));
    CHECK(std::stod(m[2]) / 72 * 25.4 == Approx(sheet->image.rows / sheet->px_per_mm).margin(0.001));
    REQUIRE(std::regex_search(pdf, m, std::regex(R"(/Width (\d+) /Height (\d+))")));
    CHECK(std::stoi(m[1]) == sheet->image.cols);
    CHECK(std::stoi(m[2]) == sheet->image.rows);
    const auto startxref = pdf.rfind("startxref\n");
    const std::size_t xref = std::stoul(pdf.substr(startxref + 10));
    REQUIRE(pdf.compare(xref, 4, "xref") == 0);
    for (int obj = 1; obj <= 6; ++obj) {
        const std::size_t entry = xref + 4 + 1 + 4 + 20 * static_cast<std::size_t>(obj);  // "xref\n0 7\n" then 20-byte entries
        const std::size_t offset = std::stoul(pdf.substr(entry, 10));
        CHECK(pdf.compare(offset, std::to_string(obj).size() + 6, std::to_string(obj) + " 0 obj") == 0);
    }

    auto markers = calibration::marker_sheet();
    REQUIRE(markers);
    CHECK(std::abs(markers->image.cols / markers->px_per_mm - 210) < 0.2);
    CHECK(std::abs(10 * markers->px_per_mm - std::round(10 * markers->px_per_mm)) < 1e-9);  // 10 mm marker cells are whole pixels
    // The marker sheet shows the four markers, ids 0..3, and they are found at true size.
    cv::Mat bgr;
    cv::cvtColor(markers->image, bgr, cv::COLOR_GRAY2BGR);
    auto found = calibration::find_table_markers(bgr, "sheet");
    REQUIRE(found);
    for (const auto& f : found.value()) {
        const double side_px = cv::norm(f.corners_px[1] - f.corners_px[0]);
        CHECK(side_px / markers->px_per_mm == Approx(60).margin(0.3));
    }
}

TEST_CASE("bad sheet options are refused", "[calibration][print][bad-input]") {
    calibration::CharucoSpec big;
    big.square_mm = 40;
    auto sheet = calibration::charuco_sheet(big);
    REQUIRE_FALSE(sheet);
    CHECK(sheet.error().message.find("does not fit") != std::string::npos);
    calibration::CharucoSpec marker_too_big;
    marker_too_big.marker_mm = 27;
    CHECK_FALSE(calibration::charuco_sheet(marker_too_big));
    CHECK_FALSE(calibration::write_sheet(calibration::charuco_sheet().value(), "board.svg"));
}

TEST_CASE("camera intrinsics are recovered from rendered ChArUco views", "[calibration][camera]") {
    PinholeCamera truth;
    const auto r = calibrate_rendered(truth, 11);
    std::printf("intrinsics, no distortion: fx %.2f fy %.2f (truth 1000) cx %.1f cy %.1f, focal error %.3f %%, reprojection %.3f px over %d views\n",
                r.intrinsics.camera_matrix(0, 0), r.intrinsics.camera_matrix(1, 1), r.intrinsics.camera_matrix(0, 2), r.intrinsics.camera_matrix(1, 2),
                100 * r.focal_error, r.intrinsics.reprojection_error_px, r.intrinsics.views);
    CHECK(r.focal_error < 0.02);
    CHECK(std::abs(r.intrinsics.camera_matrix(0, 2) - 640) < 15);
    CHECK(std::abs(r.intrinsics.camera_matrix(1, 2) - 480) < 15);
    CHECK(r.intrinsics.reprojection_error_px < 0.5);
}

TEST_CASE("camera intrinsics and lens distortion are recovered", "[calibration][camera]") {
    PinholeCamera truth;
    truth.K = cv::Matx33d(1150, 0, 652, 0, 1150, 470, 0, 0, 1);
    truth.distortion = {-0.22, 0.08, 0.0, 0.0, 0.0};
    const auto r = calibrate_rendered(truth, 23);
    std::printf("intrinsics, barrel distortion k1 -0.22 k2 0.08: fx %.2f fy %.2f (truth 1150), k1 %.4f k2 %.4f, focal error %.3f %%, reprojection %.3f px\n",
                r.intrinsics.camera_matrix(0, 0), r.intrinsics.camera_matrix(1, 1), r.intrinsics.distortion[0], r.intrinsics.distortion[1],
                100 * r.focal_error, r.intrinsics.reprojection_error_px);
    CHECK(r.focal_error < 0.02);
    CHECK(r.intrinsics.distortion[0] == Approx(-0.22).margin(0.03));
    // Undistorting a point far out in the corner lands where the ideal camera puts it.
    const cv::Point2d corner(60, 50);
    std::vector<cv::Point2d> in = {corner}, truth_out, est_out;
    cv::undistortPoints(in, truth_out, cv::Mat(truth.K), truth.distortion, cv::noArray(), cv::Mat(truth.K));
    cv::undistortPoints(in, est_out, cv::Mat(r.intrinsics.camera_matrix), r.intrinsics.distortion, cv::noArray(), cv::Mat(truth.K));
    CHECK(cv::norm(truth_out[0] - est_out[0]) < 4.0);
}

TEST_CASE("camera calibration refuses photos without the board and too few views", "[calibration][camera][bad-input]") {
    PinholeCamera camera;
    const PlaneTexture table = table_texture(-300, -300, 600, 600, 2, 5);
    const cv::Mat no_board = render_plane(table, camera, look_at({0, 0, -600}, {0, 0, 0}), 0.5, 2, 3);
    auto none = calibration::detect_charuco(no_board, "empty.png");
    REQUIRE_FALSE(none);
    CHECK(none.error().to_string() ==
          "empty.png: no ChArUco board found (no ArUco marker of DICT_5X5_100 ids 0..26): print it with 'meeplecam calibrate print-charuco'");

    calibration::CameraCalibrationOptions options;
    const auto views = charuco_views(camera, options.board, 3, 7);
    std::vector<calibration::CharucoView> found;
    for (const auto& v : views) found.push_back(calibration::detect_charuco(v, "v", options).value());
    auto cam = calibration::calibrate_camera(found, options);
    REQUIRE_FALSE(cam);
    CHECK(cam.error().message.rfind("needs at least 4 usable views of the board, got 3", 0) == 0);

    // A view whose board is mostly cut off by the frame edge has too few corners.
    const cv::Mat cut = views[0](cv::Rect(0, 0, 260, 200)).clone();
    auto few = calibration::detect_charuco(cut, "cut.png", options);
    REQUIRE_FALSE(few);
    CHECK(few.error().where == "cut.png");
}

TEST_CASE("the table plane from four markers is within 1 mm at the board centre", "[calibration][table]") {
    const TableScene scene = table_scene(3);
    PinholeCamera camera;
    camera.size = {1920, 1080};
    camera.K = cv::Matx33d(1400, 0, 960, 0, 1400, 540, 0, 0, 1);
    const Pose pose = table_pose();
    const cv::Mat photo = render_plane(scene.texture, camera, pose, 0.8, 3, 9);
    calibration::TableMarkerOptions options;
    options.centres_mm = scene.centres_mm;
    options.marker_mm = scene.marker_mm;
    auto table = calibration::table_from_markers(photo, options, nullptr, "table.png");
    REQUIRE(table);
    const cv::Matx33d truth = plane_to_image(camera, pose);
    const cv::Point2d centre_mm(350, 250);
    const double error_mm = cv::norm(table->plane.to_table(vision::apply_homography(truth, centre_mm)) - centre_mm);
    double worst_mm = 0;
    for (double x = 0; x <= 700; x += 100) {
        for (double y = 0; y <= 500; y += 100) worst_mm = std::max(worst_mm, cv::norm(table->plane.to_table(vision::apply_homography(truth, {x, y})) - cv::Point2d(x, y)));
    }
    std::printf("table plane from markers (no distortion): error at the board centre %.3f mm, worst over the 700x500 mm area %.3f mm, rms %.3f px\n",
                error_mm, worst_mm, table->plane.rms_error_px);
    CHECK(error_mm <= 1.0);
    CHECK(worst_mm <= 2.0);
    CHECK(table->plane.rms_error_px < 1.0);
    CHECK(table->markers.size() == 4);
    CHECK_FALSE(table->undistorted);
}

TEST_CASE("the table plane through a distorting lens, undistorted with its intrinsics", "[calibration][table]") {
    const TableScene scene = table_scene(4);
    PinholeCamera camera;
    camera.size = {1920, 1080};
    camera.K = cv::Matx33d(1400, 0, 955, 0, 1400, 548, 0, 0, 1);
    camera.distortion = {-0.2, 0.06, 0, 0, 0};
    const Pose pose = table_pose();
    const cv::Mat photo = render_plane(scene.texture, camera, pose, 0.8, 3, 10);
    calibration::CameraIntrinsics intrinsics;
    intrinsics.image_size = camera.size;
    intrinsics.camera_matrix = camera.K;
    intrinsics.distortion = camera.distortion;
    calibration::TableMarkerOptions options;
    options.centres_mm = scene.centres_mm;
    auto table = calibration::table_from_markers(photo, options, &intrinsics, "table.png");
    REQUIRE(table);
    CHECK(table->undistorted);
    const cv::Matx33d truth = plane_to_image(camera, pose);  // ideal (undistorted) pixels
    const cv::Point2d centre_mm(350, 250);
    const double error_mm = cv::norm(table->plane.to_table(vision::apply_homography(truth, centre_mm)) - centre_mm);
    // Without the intrinsics the distortion bends the plane: the worst error over the area is larger.
    auto raw = calibration::table_from_markers(photo, options, nullptr, "table.png");
    REQUIRE(raw);
    double worst_mm = 0, raw_worst_mm = 0;
    for (double x = 0; x <= 700; x += 50) {
        for (double y = 0; y <= 500; y += 50) {
            const cv::Point2d p(x, y), ideal = vision::apply_homography(truth, p);
            worst_mm = std::max(worst_mm, cv::norm(table->plane.to_table(ideal) - p));
            const cv::Vec3d n = camera.K.inv() * cv::Vec3d(ideal.x, ideal.y, 1);
            std::vector<cv::Point3d> ray = {cv::Point3d(n[0] / n[2], n[1] / n[2], 1)};
            std::vector<cv::Point2d> distorted;
            cv::projectPoints(ray, cv::Vec3d(0, 0, 0), cv::Vec3d(0, 0, 0), cv::Mat(camera.K), camera.distortion, distorted);
            raw_worst_mm = std::max(raw_worst_mm, cv::norm(raw->plane.to_table(distorted[0]) - p));
        }
    }
    std::printf("table plane from markers through k1 -0.2: error at the board centre %.3f mm; worst over the area %.3f mm undistorted, %.3f mm "
                "ignoring the lens; rms %.3f px\n",
                error_mm, worst_mm, raw_worst_mm, table->plane.rms_error_px);
    CHECK(error_mm <= 1.0);
    CHECK(worst_mm <= 2.0);
    CHECK(raw_worst_mm > 2 * worst_mm);
    CHECK(table->plane.rms_error_px < 1.0);
    CHECK(raw->plane.rms_error_px > table->plane.rms_error_px);
}

TEST_CASE("a hidden marker, wrong positions and a bare table are clear errors", "[calibration][table][bad-input]") {
    TableScene scene = table_scene(5);
    PinholeCamera camera;
    camera.size = {1920, 1080};
    camera.K = cv::Matx33d(1400, 0, 960, 0, 1400, 540, 0, 0, 1);
    const Pose pose = table_pose();
    calibration::TableMarkerOptions options;
    options.centres_mm = scene.centres_mm;

    SECTION("3 of 4 markers visible: the error names the missing id") {
        cv::Mat photo = render_plane(scene.texture, camera, pose, 0.8, 3, 11);
        const cv::Point2d sw = vision::apply_homography(plane_to_image(camera, pose), scene.centres_mm[3]);
        cv::circle(photo, sw, 70, cv::Scalar(80, 120, 190), cv::FILLED);  // a hand over marker 3
        auto table = calibration::table_from_markers(photo, options, nullptr, "hidden.png");
        REQUIRE_FALSE(table);
        CHECK(table.error().to_string() ==
              "hidden.png: marker 3 (SW corner) not found (seen: marker 0 (NW corner), marker 1 (NE corner), marker 2 (SE corner)); all four "
              "markers must be in view and unobstructed");
    }
    SECTION("positions that disagree with the markers' printed size") {
        const cv::Mat photo = render_plane(scene.texture, camera, pose, 0.8, 3, 12);
        options.centres_mm = calibration::rectangle_centres(1400, 1000);  // twice the true rectangle
        auto table = calibration::table_from_markers(photo, options, nullptr, "wrong.png");
        REQUIRE_FALSE(table);
        CHECK(table.error().message.find("measures") != std::string::npos);
        CHECK(table.error().message.find("but was printed at 60.0 mm") != std::string::npos);
    }
    SECTION("no markers at all") {
        const PlaneTexture bare = table_texture(-150, -150, 1000, 800, 3, 6);
        const cv::Mat photo = render_plane(bare, camera, pose, 0.8, 3, 13);
        auto table = calibration::table_from_markers(photo, options, nullptr, "bare.png");
        REQUIRE_FALSE(table);
        CHECK(table.error().to_string() ==
              "bare.png: no table markers found (ArUco DICT_4X4_50 ids 0..3): print them with 'meeplecam calibrate print-markers'");
    }
    SECTION("markers listed in a crossed order") {
        options.centres_mm = {cv::Point2d(0, 0), cv::Point2d(700, 500), cv::Point2d(700, 0), cv::Point2d(0, 500)};
        auto st = options.check();
        REQUIRE_FALSE(st);
        CHECK(st.error().message.find("convex quadrilateral") != std::string::npos);
    }
}

// Hidden (run with "[sweep]"): the spread of the focal error and the plane error over seeds
// and view counts, for the numbers in docs/calibration.md.
TEST_CASE("calibration accuracy sweep", "[.][sweep]") {
    for (const int n_views : {5, 10}) {
        for (const bool distorted : {false, true}) {
            double worst = 0, sum = 0, worst_rms = 0;
            const int seeds = 5;
            for (int seed = 1; seed <= seeds; ++seed) {
                PinholeCamera truth;
                if (distorted) truth.distortion = {-0.22, 0.08, 0.0, 0.0, 0.0};
                calibration::CameraCalibrationOptions options;
                const auto views = charuco_views(truth, options.board, n_views, static_cast<std::uint64_t>(1000 * seed + n_views));
                std::vector<calibration::CharucoView> found;
                for (const auto& v : views) {
                    if (auto d = calibration::detect_charuco(v, "v", options)) found.push_back(d.value());
                }
                auto cam = calibration::calibrate_camera(found, options);
                REQUIRE(cam);
                const double e = std::max(std::abs(cam->camera_matrix(0, 0) / 1000 - 1), std::abs(cam->camera_matrix(1, 1) / 1000 - 1));
                worst = std::max(worst, e), sum += e, worst_rms = std::max(worst_rms, cam->reprojection_error_px);
            }
            std::printf("sweep: %2d views, %s: focal error mean %.3f %%, worst %.3f %% over %d seeds; worst reprojection %.3f px\n", n_views,
                        distorted ? "k1 -0.22" : "no distortion", 100 * sum / seeds, 100 * worst, seeds, worst_rms);
            CHECK(worst < 0.02);
        }
    }
    PinholeCamera camera;
    camera.size = {1920, 1080};
    camera.K = cv::Matx33d(1400, 0, 960, 0, 1400, 540, 0, 0, 1);
    double worst_mm = 0;
    for (int seed = 1; seed <= 5; ++seed) {
        const TableScene scene = table_scene(static_cast<std::uint64_t>(50 + seed));
        const cv::Vec3d centre(350, 250, 0);
        const double tilt = (25 + 5 * seed) * CV_PI / 180, distance = 950 + 20 * seed;
        const Pose pose = look_at(centre + cv::Vec3d(20 * seed, distance * std::sin(tilt), -distance * std::cos(tilt)), centre, 3.0 * seed - 8);
        const cv::Mat photo = render_plane(scene.texture, camera, pose, 0.8, 3, static_cast<std::uint64_t>(seed));
        calibration::TableMarkerOptions options;
        options.centres_mm = scene.centres_mm;
        auto table = calibration::table_from_markers(photo, options, nullptr, "t");
        REQUIRE(table);
        const cv::Point2d c(350, 250);
        worst_mm = std::max(worst_mm, cv::norm(table->plane.to_table(vision::apply_homography(plane_to_image(camera, pose), c)) - c));
    }
    std::printf("sweep: table plane, 5 poses (tilt 30-50 deg): worst error at the board centre %.3f mm\n", worst_mm);
    CHECK(worst_mm <= 1.0);
}
