#include <catch2/catch.hpp>

#include <filesystem>
#include <string>

#include "calibration/calibration_file.h"

using namespace meeplecam;
using calibration::parse_calibration;

namespace {

calibration::Calibration full_calibration() {
    calibration::Calibration cal;
    calibration::CameraIntrinsics cam;
    cam.image_size = {1920, 1080};
    cam.camera_matrix = cv::Matx33d(1500.25, 0, 960.5, 0, 1498.75, 540.125, 0, 0, 1);
    cam.distortion = {-0.12, 0.05, 0.001, -0.0005, 0.01};
    cam.reprojection_error_px = 0.31;
    cam.views = 9;
    cal.camera = cam;
    calibration::TableCalibration table;
    table.source = "markers";
    table.image_size = {1920, 1080};
    table.undistorted = true;
    table.plane.table_to_image = cv::Matx33d(1.8, 0.2, 400, -0.1, 1.6, 300, 0.0002, 0.0001, 1);
    table.plane.rms_error_px = 0.4;
    table.markers = {{0, "NW", {0, 0}}, {1, "NE", {800, 0}}, {2, "SE", {800, 600}}, {3, "SW", {0, 600}}};
    cal.table = table;
    calibration::ColourCalibration colours;
    colours.white_balance_rgb = {0.9, 1.0, 1.2};
    colours.players["red"] = {{45, 60, 40}, cv::Matx33d(9, 1, 0, 1, 16, 2, 0, 2, 12), 812};
    colours.players["grey"] = {{55, 0, -2}, cv::Matx33d(20, 0, 0, 0, 2, 0, 0, 0, 3), 700};
    cal.colours = colours;
    return cal;
}

std::string error_of(std::string_view text) {
    auto r = parse_calibration(text, "c.json");
    REQUIRE_FALSE(r);
    return r.error().to_string();
}

const std::string kHead = R"({"format": "meeplecam-calibration", "version": 1, )";

}  // namespace

TEST_CASE("a calibration file round-trips through save and load", "[calibration]") {
    const auto cal = full_calibration();
    const auto path = std::filesystem::temp_directory_path() / "meeplecam_calibration_roundtrip.json";
    REQUIRE(calibration::save_calibration(cal, path));
    auto back = calibration::load_calibration(path);
    REQUIRE(back);
    REQUIRE(back->camera);
    CHECK(back->camera->image_size == cv::Size(1920, 1080));
    CHECK(back->camera->camera_matrix(0, 0) == 1500.25);
    CHECK(back->camera->distortion == cal.camera->distortion);
    CHECK(back->camera->views == 9);
    REQUIRE(back->table);
    CHECK(back->table->undistorted);
    CHECK(back->table->markers.size() == 4);
    CHECK(back->table->markers[2].centre_mm == cv::Point2d(800, 600));
    CHECK(cv::norm(back->table->plane.table_to_image - cal.table->plane.table_to_image) == 0.0);
    REQUIRE(back->colours);
    CHECK(back->colours->players.size() == 2);
    CHECK(back->colours->players.at("red").lab_covariance(1, 2) == 2.0);
    CHECK(back->colours->white_balance_rgb[2] == 1.2);
    std::filesystem::remove(path);
}

TEST_CASE("every part of a calibration file is optional", "[calibration]") {
    auto r = parse_calibration(R"({"format": "meeplecam-calibration", "version": 1})", "c.json");
    REQUIRE(r);
    CHECK_FALSE(r->camera);
    CHECK_FALSE(r->table);
    CHECK_FALSE(r->colours);
}

TEST_CASE("corrupt calibration files give errors naming the file, the path and the reason", "[calibration][bad-input]") {
    CHECK(error_of("") == "c.json: the file is empty");
    CHECK(error_of("{\"format\": \"meeplecam-calibration\", \"vers") .rfind("c.json: not valid JSON (byte", 0) == 0);
    CHECK(error_of(R"({"format": "meeplecam-record", "version": 1})") ==
          "c.json: format: must be \"meeplecam-calibration\", not \"meeplecam-record\"");
    CHECK(error_of(R"({"format": "meeplecam-calibration", "version": 2})") ==
          "c.json: version: calibration version 2 is not supported (this build reads 1)");
    CHECK(error_of(R"({"format": "meeplecam-calibration", "version": "1"})") == "c.json: version: must be an integer, not \"1\"");
    CHECK(error_of(kHead + R"("camera": {"image_size": [1920, 1080], "camera_matrix": [[1500, 0, 960], [0, "x", 540], [0, 0, 1]],
                                "distortion": [0, 0, 0, 0], "reprojection_error_px": 0.2}})") ==
          "c.json: camera.camera_matrix[1][1]: must be a finite number, not a string");
    CHECK(error_of(kHead + R"("camera": {"image_size": [1920, 1080], "camera_matrix": [[-5, 0, 960], [0, 1500, 540], [0, 0, 1]],
                                "distortion": [0, 0, 0, 0], "reprojection_error_px": 0.2}})") ==
          "c.json: camera.camera_matrix[0][0]: the focal length fx must be positive");
    CHECK(error_of(kHead + R"("camera": {"image_size": [1920, 1080], "camera_matrix": [[1500, 0, 960], [0, 1500, 540], [0, 0, 1]],
                                "distortion": [0, 0, 0, 0, 0, 0], "reprojection_error_px": 0.2}})") ==
          "c.json: camera.distortion: must hold 4, 5, 8, 12 or 14 coefficients, not 6");
    CHECK(error_of(kHead + R"("camera": {"image_size": [1920, -3]}})") ==
          "c.json: camera.image_size[1]: must be a height in pixels (1..100000), not -3");
    CHECK(error_of(kHead + R"("table": {"source": "tiles", "image_size": [100, 100], "table_to_image": [[1, 2, 3], [2, 4, 6], [0, 0, 1]]}})") ==
          "c.json: table.table_to_image: is singular: it maps the table onto a line or a point");
    CHECK(error_of(kHead + R"("table": {"source": "markers", "image_size": [100, 100], "table_to_image": [[1, 0, 0], [0, 1, 0], [0, 0, 1]],
                                "markers_mm": [{"id": 1, "corner": "NW", "centre": [0, 0]}]}})") ==
          "c.json: table.markers_mm[0].corner: marker 1 marks the NE corner, not \"NW\"");
    CHECK(error_of(kHead + R"("colours": {"white_balance_rgb": [1, 1, 1], "players": {"purple": {}}}})") ==
          "c.json: colours.players.purple: unknown player colour (use red, blue, green, yellow, black or grey)");
    CHECK(error_of(kHead + R"("colours": {"white_balance_rgb": [1, 1, 1], "players": {"red": {"lab_mean": [50, 60, 40],
                                "lab_covariance": [[1, 0, 0], [0, -1, 0], [0, 0, 1]], "pixels": 10}}}})") ==
          "c.json: colours.players.red.lab_covariance: must be positive definite (a colour spread in all three Lab directions)");
    CHECK(error_of(kHead + R"("camera": {"image_size": [1920, 1080], "camera_matrix": [[1500, 0, 960], [0, 1500, 540], [0, 0, 1]],
                                "distortion": [0, 0, 0, 0], "reprojection_error_px": 1e999}})") ==
          "c.json: not valid JSON: number overflow parsing '1e999'");
    CHECK(error_of(kHead + R"("camra": {}})") ==
          "c.json: camra: unknown key (expected one of: format, version, camera, table, colours)");
}

TEST_CASE("a calibration file truncated anywhere is refused without a crash", "[calibration][bad-input]") {
    const std::string text = calibration::calibration_to_json(full_calibration()).dump(2);
    int refused = 0;
    for (std::size_t n = 0; n + 1 < text.size(); n += 7) {
        auto r = parse_calibration(std::string_view(text).substr(0, n), "c.json");
        if (!r) {
            ++refused;
            CHECK(r.error().where.rfind("c.json", 0) == 0);
        }
    }
    CHECK(refused == static_cast<int>((text.size() - 2) / 7 + 1));
}

TEST_CASE("save refuses a calibration it could not read back", "[calibration][bad-input]") {
    auto cal = full_calibration();
    cal.camera->distortion = {0.1, 0.2};
    const auto path = std::filesystem::temp_directory_path() / "meeplecam_calibration_refused.json";
    auto s = calibration::save_calibration(cal, path);
    REQUIRE_FALSE(s);
    CHECK(s.error().message.find("coefficients") != std::string::npos);
    CHECK_FALSE(std::filesystem::exists(path));
}
