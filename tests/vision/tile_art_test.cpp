#include <catch2/catch.hpp>

#include <opencv2/imgproc.hpp>

#include "engine/catalog.h"
#include "vision/tile_art.h"

using namespace meeplecam;

namespace {

const Catalog& base() {
    static const Catalog catalog = Catalog::embedded("carcassonne-base").value();
    return catalog;
}

// Mean colour of `img` under `mask`, eroded so borders and outlines do not count.
cv::Scalar inner_mean(const cv::Mat& img, const cv::Mat& mask, int erode_px) {
    cv::Mat inner;
    cv::erode(mask, inner, cv::getStructuringElement(cv::MORPH_RECT, cv::Size(2 * erode_px + 1, 2 * erode_px + 1)));
    REQUIRE(cv::countNonZero(inner) > 0);
    return cv::mean(img, inner);
}

double colour_distance(const cv::Scalar& a, const cv::Scalar& b) {
    return std::sqrt((a[0] - b[0]) * (a[0] - b[0]) + (a[1] - b[1]) * (a[1] - b[1]) + (a[2] - b[2]) * (a[2] - b[2]));
}

}  // namespace

TEST_CASE("every port of every shipped tile lies in the region of the feature owning it", "[vision][tile-art]") {
    constexpr int kSize = 96;
    std::vector<Catalog> catalogs;
    for (const auto& name : Catalog::embedded_names()) {
        Catalog c = Catalog::embedded(name).value();
        // The City's streets, markets and residential areas have no tile art yet (issue 7).
        if (c.game() != "city") catalogs.push_back(std::move(c));
    }
    REQUIRE(catalogs.size() >= 1);
    std::vector<const TileType*> types;
    for (const auto& c : catalogs) {
        for (const auto& t : c.tiles()) types.push_back(&t);
    }
    for (const auto& style : vision::builtin_tile_styles()) {
        for (const TileType* type_ptr : types) {
            const TileType& type = *type_ptr;
            for (int rot = 0; rot < 4; ++rot) {
                const auto masks = vision::feature_masks(type, rot, kSize, style);
                REQUIRE(masks.size() == type.features.size());
                for (std::size_t f = 0; f < type.features.size(); ++f) {
                    INFO("style " << style.name << ", tile " << type.id << " rot " << rot << ", feature " << f);
                    CHECK(cv::countNonZero(masks[f]) > 0);
                    for (const Port p : type.features[f].ports) {
                        const cv::Point2d at = vision::port_point(rotate_port(p, rot), 0.04) * static_cast<double>(kSize);
                        INFO("port " << port_name(p));
                        CHECK(masks[f].at<std::uint8_t>(static_cast<int>(at.y), static_cast<int>(at.x)) == 255);
                    }
                }
            }
        }
    }
}

TEST_CASE("feature regions cover the tile, are disjoint and turn with the tile", "[vision][tile-art]") {
    constexpr int kSize = 80;
    for (const auto& type : base().tiles()) {
        INFO("tile " << type.id);
        const cv::Mat labels = vision::feature_labels(type, 0, kSize);
        REQUIRE(labels.type() == CV_32SC1);
        // Only the junction village may belong to no feature.
        CHECK(cv::countNonZero(labels < 0) < kSize * kSize / 25);
        const auto masks = vision::feature_masks(type, 0, kSize);
        cv::Mat sum(kSize, kSize, CV_32SC1, cv::Scalar(0));
        for (const auto& m : masks) cv::add(sum, m / 255, sum, cv::noArray(), CV_32S);
        double most = 0;
        cv::minMaxLoc(sum, nullptr, &most);
        CHECK(most <= 1);

        const cv::Mat turned = vision::feature_labels(type, 1, kSize);
        cv::Mat expected;
        cv::rotate(labels, expected, cv::ROTATE_90_CLOCKWISE);
        CHECK(cv::countNonZero(turned != expected) == 0);
    }
}

TEST_CASE("the art shows each feature's terrain where its mask says", "[vision][tile-art]") {
    constexpr int kSize = 128;
    const auto& style = vision::builtin_tile_styles().front();
    std::mt19937_64 rng(5);
    for (const char* id : {"D", "J", "U", "R"}) {
        const TileType& type = *base().find(id);
        const cv::Mat art = vision::render_tile(type, /*rot=*/1, kSize, style, rng);
        REQUIRE(art.type() == CV_8UC3);
        REQUIRE(art.size() == cv::Size(kSize, kSize));
        const auto masks = vision::feature_masks(type, /*rot=*/1, kSize, style);
        for (std::size_t f = 0; f < type.features.size(); ++f) {
            const auto kind = type.features[f].kind;
            INFO("tile " << id << ", feature " << f << " (" << feature_kind_name(kind) << ")");
            const cv::Scalar mean = inner_mean(art, masks[f], kind == FeatureKind::Road ? 2 : 6);
            const double to_field = colour_distance(mean, style.field);
            const double to_road = colour_distance(mean, style.road);
            const double to_city = colour_distance(mean, style.city);
            if (kind == FeatureKind::Field) CHECK((to_field < to_road && to_field < to_city));
            if (kind == FeatureKind::Road) CHECK((to_road < to_field && to_road < to_city));
            if (kind == FeatureKind::City) CHECK((to_city < to_field && to_city < to_road));
        }
    }
}

TEST_CASE("tile art is reproducible and the styles look different", "[vision][tile-art]") {
    const TileType& type = *base().find("K");
    const auto& styles = vision::builtin_tile_styles();
    REQUIRE(styles.size() >= 3);
    std::vector<cv::Mat> arts;
    for (const auto& style : styles) {
        INFO("style " << style.name);
        CHECK(style.check().has_value());
        std::mt19937_64 a(9), b(9);
        const cv::Mat first = vision::render_tile(type, 2, 96, style, a);
        const cv::Mat again = vision::render_tile(type, 2, 96, style, b);
        CHECK(cv::norm(first, again, cv::NORM_INF) == 0);
        arts.push_back(first);
    }
    for (std::size_t i = 0; i < arts.size(); ++i) {
        for (std::size_t j = i + 1; j < arts.size(); ++j) {
            INFO(styles[i].name << " vs " << styles[j].name);
            // Mean absolute difference per channel value: well above print variation and grain.
            CHECK(cv::norm(arts[i], arts[j], cv::NORM_L1) / (96.0 * 96 * 3) > 12.0);
        }
    }
}

TEST_CASE("bad styles are refused with the field named", "[vision][tile-art][bad-input]") {
    vision::TileStyle style;
    REQUIRE(style.check().has_value());
    style.road_width = 0.5;
    auto st = style.check();
    REQUIRE_FALSE(st);
    CHECK_THAT(st.error().message, Catch::Contains("road_width"));

    style = {};
    style.grain = -1;
    REQUIRE_FALSE(style.check());
    style = {};
    style.name.clear();
    REQUIRE_FALSE(style.check());

    auto missing = vision::find_tile_style("psychedelic");
    REQUIRE_FALSE(missing);
    CHECK_THAT(missing.error().message, Catch::Contains("classic"));
    CHECK(vision::find_tile_style("muted").has_value());
}
