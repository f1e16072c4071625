// Shared set-up of the session tests that render a bare table around the start tile (the
// start tile and draw zone tests): the base game's catalog with its tile classifier, and
// hand-free easy render options framing a 7 x 5 board's worth of table.
#pragma once

#include <catch2/catch.hpp>

#include <cstdint>
#include <memory>
#include <optional>
#include <vector>

#include "engine/record.h"
#include "vision/table_renderer.h"
#include "vision/tile_classifier.h"

namespace meeplecam::test {

// The cells the camera frames: a 7 x 5 board's worth of table around the start tile.
inline std::vector<Cell> bare_table_cells() {
    std::vector<Cell> cells;
    for (int y = -2; y <= 2; ++y) {
        for (int x = -3; x <= 3; ++x) cells.push_back({x, y});
    }
    return cells;
}

// Easy-preset options for a `width` x `height` frame of bare_table_cells(), no hands.
inline vision::RenderOptions bare_table_options(int width, int height, std::uint64_t scene_seed) {
    auto options = vision::RenderOptions::for_difficulty(vision::Difficulty::Easy);
    options.width = width;
    options.height = height;
    options.hand_chance = 0;
    options.scene_seed = scene_seed;
    options.layout_cells = bare_table_cells();
    return options;
}

// The base game's catalog (two players) and the default tile classifier made from it.
struct BaseGameClassifier {
    std::shared_ptr<const Catalog> catalog_ptr;  // owns the catalog the classifier was made from
    std::optional<vision::TileClassifier> classifier;

    const Catalog& catalog() const { return *catalog_ptr; }
};

inline BaseGameClassifier base_game_classifier() {
    Record setup;
    setup.players = {{"red", "red"}, {"blue", "blue"}};
    BaseGameClassifier out;
    out.catalog_ptr = catalog_for(setup).value();
    auto classifier = vision::TileClassifier::create(*out.catalog_ptr);
    REQUIRE(classifier);
    out.classifier.emplace(std::move(classifier.value()));
    return out;
}

}  // namespace meeplecam::test
