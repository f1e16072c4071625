#include "render_fixtures.h"

#include <algorithm>
#include <stdexcept>

#include "engine/random_game.h"

namespace meeplecam::test {

std::shared_ptr<const Catalog> base_catalog_for_render() {
    static const auto catalog = std::make_shared<const Catalog>(Catalog::embedded("carcassonne-base").value());
    return catalog;
}

std::vector<vision::SceneTile> random_board(int n, std::uint64_t seed) {
    RandomGameOptions options;
    options.seed = seed;
    options.max_tiles = n;
    auto game = play_random_game(base_catalog_for_render(), options);
    if (!game) throw std::runtime_error(game.error().to_string());
    return vision::scene_tiles(game->game.board());  // types point into the shared catalog
}

vision::RenderOptions daylight_options() {
    vision::RenderOptions o = vision::RenderOptions::for_difficulty(vision::Difficulty::Easy);
    o.style = "classic";
    o.surfaces = {vision::TableSurface::Plain};
    o.tilt_deg = {12, 12};
    o.colour_temperature_k = {6000, 6000};
    return o;
}


}  // namespace meeplecam::test
