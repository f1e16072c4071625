// The light's colour cast (vision/light_cast.h): on art no built-in style matches, the roads are
// taken as the light's white.
#include <catch2/catch.hpp>

#include <algorithm>

#include <opencv2/core.hpp>

#include "engine/catalog.h"
#include "vision/light_cast.h"
#include "render_fixtures.h"

using namespace meeplecam;

namespace {

// A frame of three terrains in colours no built-in art draws (a brown field, a blue city) and a
// road band whose middle is `road_bgr` and whose edges are the field's colour (the road label is
// wider than a real road), with the terrain map saying which is which.
struct Scene {
    cv::Mat bgr, terrain;
};

Scene scene(const cv::Vec3b& road_bgr) {
    Scene s;
    s.bgr = cv::Mat(120, 120, CV_8UC3, cv::Scalar(40, 90, 160));
    s.terrain = cv::Mat(120, 120, CV_32SC1, cv::Scalar(static_cast<int>(FeatureKind::Field)));
    s.bgr(cv::Rect(80, 0, 40, 120)).setTo(cv::Scalar(200, 60, 60));
    s.terrain(cv::Rect(80, 0, 40, 120)).setTo(cv::Scalar(static_cast<int>(FeatureKind::City)));
    s.terrain(cv::Rect(0, 40, 80, 40)).setTo(cv::Scalar(static_cast<int>(FeatureKind::Road)));
    s.bgr(cv::Rect(0, 52, 80, 16)).setTo(cv::Scalar(road_bgr[0], road_bgr[1], road_bgr[2]));
    return s;
}

}  // namespace

TEST_CASE("on art no reference matches, a pale road's colour is taken off as the light's", "[vision][light]") {
    const auto catalog = test::base_catalog_for_render();
    Scene warm = scene(cv::Vec3b(150, 190, 225));  // a white road under warm light
    vision::LightCastOptions on;
    on.road_white = true;
    const auto cast = vision::estimate_light_cast(warm.bgr, warm.terrain, *catalog, on);
    INFO("art '" << cast.art << "' residual " << cast.residual << " correction " << cast.correction_bgr);
    CHECK(cast.residual > vision::LightCastOptions{}.max_residual);  // the scene shows what the test is about
    REQUIRE(cast.applied);
    CHECK(cast.art == "roads");
    cv::Mat corrected = warm.bgr.clone();
    vision::remove_light_cast(corrected, cast);
    const auto road = corrected.at<cv::Vec3b>(60, 40);
    INFO("road after " << cv::Vec3i(road));
    CHECK(std::max({road[0], road[1], road[2]}) - std::min({road[0], road[1], road[2]}) <= 6);
    CHECK(cast.correction_bgr[0] > 1.1);  // blue raised, red lowered
    CHECK(cast.correction_bgr[2] < 0.9);

    CHECK_FALSE(vision::estimate_light_cast(warm.bgr, warm.terrain, *catalog).applied);  // off by default
}

TEST_CASE("a road drawn in a strong colour, a dark road or a neutral one is no light to take off", "[vision][light]") {
    const auto catalog = test::base_catalog_for_render();
    for (const auto& [what, road] : {std::pair<const char*, cv::Vec3b>{"orange art road", {60, 140, 220}},
                                     {"dark road", {60, 75, 90}},
                                     {"neutral road", {200, 201, 199}}}) {
        Scene s = scene(road);
        vision::LightCastOptions on;
        on.road_white = true;
        const auto cast = vision::estimate_light_cast(s.bgr, s.terrain, *catalog, on);
        INFO(what << ": art '" << cast.art << "' correction " << cast.correction_bgr);
        CHECK_FALSE(cast.applied);
        CHECK(cast.correction_bgr == cv::Vec3d(1, 1, 1));
    }
    vision::LightCastOptions bad;
    bad.road_top_share = 0;
    CHECK_FALSE(bad.check());
    bad = {};
    bad.road_max_cast = 2;
    CHECK_FALSE(bad.check());
}
