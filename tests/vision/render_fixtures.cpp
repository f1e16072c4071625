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

vision::BoardReading true_board_reading(const vision::RenderTruth& truth, const Catalog& catalog, cv::Size frame) {
    vision::BoardReading out;
    out.found = true;
    const double pitch = truth.tile_mm + truth.gap_mm;
    int min_x = truth.tiles.front().at.x, min_y = truth.tiles.front().at.y, max_x = min_x, max_y = min_y;
    for (const auto& t : truth.tiles) {
        min_x = std::min(min_x, t.at.x), min_y = std::min(min_y, t.at.y), max_x = std::max(max_x, t.at.x), max_y = std::max(max_y, t.at.y);
    }
    // Cell (x, y)'s centre lies at board_origin_mm + (x, y) * pitch on the table.
    const cv::Point2d shift = cv::Point2d((0.5 - min_x) * pitch, (0.5 - min_y) * pitch) - truth.board_origin_mm;
    out.view.px_per_mm = 1.0;
    out.view.pitch_px = pitch;
    out.view.image_to_top = cv::Matx33d(1, 0, shift.x, 0, 1, shift.y, 0, 0, 1) * truth.tiles_to_image.inv();
    out.view.cols = max_x - min_x + 1, out.view.rows = max_y - min_y + 1;
    out.view.frame = frame;
    for (const auto& t : truth.tiles) {
        vision::DecodedTile d;
        d.col = t.at.x - min_x, d.row = t.at.y - min_y;
        d.type = catalog.find(t.tile)->index;
        d.rot = t.rot_deg / 90;
        d.offset_px = t.centre_mm - (truth.board_origin_mm + cv::Point2d(t.at.x * pitch, t.at.y * pitch));
        d.confidence = 1;
        out.tiles.push_back(d);
    }
    return out;
}

}  // namespace meeplecam::test
