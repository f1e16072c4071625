#include "render_fixtures.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <stdexcept>

#include "engine/random_game.h"
#include "vision/homography.h"
#include "vision/truth_metrics.h"

namespace meeplecam::test {

std::shared_ptr<const Catalog> base_catalog_for_render() {
    static const auto catalog = std::make_shared<const Catalog>(Catalog::embedded("carcassonne-base").value());
    return catalog;
}

namespace {

// Plays a random base game on the shared catalog, throwing the engine's error (a fixture cannot go on without it).
RandomGame played(const RandomGameOptions& options) {
    auto game = play_random_game(base_catalog_for_render(), options);
    if (!game) throw std::runtime_error(game.error().to_string());
    return std::move(game.value());
}

// Renders `scene` (tiles alone, or a game's whole scene) as the bench does for `preset`, throwing the renderer's error.
template <typename SceneOrTiles>
vision::Rendering rendered(const SceneOrTiles& scene, vision::Difficulty preset, std::uint64_t seed) {
    auto r = vision::render_table(scene, vision::RenderOptions::for_difficulty(preset), seed);
    if (!r) throw std::runtime_error(r.error().to_string());
    return std::move(r.value());
}

}  // namespace

std::vector<vision::SceneTile> random_board(int n, std::uint64_t seed) {
    RandomGameOptions options;
    options.seed = seed;
    options.max_tiles = n;
    return vision::scene_tiles(played(options).game.board());  // types point into the shared catalog
}

vision::Rendering render_bench_board(std::uint64_t seed, vision::Difficulty preset) {
    RandomGameOptions rg;
    rg.seed = seed;
    rg.max_tiles = 60 + static_cast<int>(seed % 21);
    return rendered(vision::scene_tiles(played(rg).game.board()), preset, seed);
}

vision::Rendering render_bench_game(std::uint64_t seed, vision::Difficulty preset) {
    RandomGameOptions rg;
    rg.seed = seed;
    rg.players = 2 + static_cast<int>(seed % 5);
    return rendered(vision::scene_of(played(rg).game), preset, seed);
}

vision::RenderOptions daylight_options() {
    vision::RenderOptions o = vision::RenderOptions::for_difficulty(vision::Difficulty::Easy);
    o.style = "classic";
    o.surfaces = {vision::TableSurface::Plain};
    o.tilt_deg = {12, 12};
    o.colour_temperature_k = {6000, 6000};
    return o;
}

int missed_tiles(const std::vector<TileReadBack>& tiles) {
    return static_cast<int>(std::count_if(tiles.begin(), tiles.end(), [](const TileReadBack& t) { return t.read == nullptr; }));
}

int misread_tiles(const std::vector<TileReadBack>& tiles) {
    return static_cast<int>(std::count_if(tiles.begin(), tiles.end(), [](const TileReadBack& t) { return t.read && !t.right; }));
}

std::vector<TileReadBack> read_back(const vision::Rendering& rendering, const Catalog& catalog, const vision::ReaderOptions& options,
                                    vision::BoardReading* reading_out) {
    auto reading = vision::read_board(rendering.image, catalog, options);
    if (!reading) throw std::runtime_error(reading.error().to_string());
    if (!reading->found) throw std::runtime_error("no board read: " + reading->message);
    auto out = match_reading(rendering, catalog, reading.value());
    if (reading_out != nullptr) *reading_out = std::move(reading.value());
    return out;
}

std::vector<TileReadBack> match_reading(const vision::Rendering& rendering, const Catalog& catalog, const vision::BoardReading& reading) {
    const auto& view = reading.view;
    const auto& first = rendering.truth.tiles.front();
    const cv::Point2d nw = vision::apply_homography(view.image_to_top, first.corners_px[0]);
    const cv::Point2d ne = vision::apply_homography(view.image_to_top, first.corners_px[1]);
    const int turn = ((static_cast<int>(std::lround(std::atan2(ne.y - nw.y, ne.x - nw.x) * 2 / 3.14159265358979)) % 4) + 4) % 4;
    std::map<std::pair<int, int>, const vision::DecodedTile*> read;
    for (const auto& t : reading.tiles) read[{t.col, t.row}] = &t;
    std::vector<TileReadBack> out;
    for (const auto& t : rendering.truth.tiles) {
        TileReadBack back;
        back.truth = catalog.find(t.tile);
        const cv::Point2d c = vision::apply_homography(view.image_to_top, t.centre_px);
        const auto it = read.find({static_cast<int>(std::floor(c.x / view.pitch_px)), static_cast<int>(std::floor(c.y / view.pitch_px))});
        if (it != read.end() && back.truth != nullptr) {
            back.read = &catalog.tiles()[static_cast<std::size_t>(it->second->type)];
            const int period = static_cast<int>(back.truth->distinct_rotations.size());
            const int want = (t.rot_deg / 90 + turn) % 4;
            back.right = back.read->id == t.tile && ((it->second->rot - want) % period + period) % period == 0;
        }
        out.push_back(back);
    }
    return out;
}

double read_rms_mm(const vision::Rendering& rendering, const vision::ReaderOptions& options) {
    auto reading = vision::read_board(rendering.image, *base_catalog_for_render(), options);
    if (!reading) throw std::runtime_error(reading.error().to_string());
    return reading->found ? vision::rectification_rms_mm(reading->view, rendering.truth) : std::numeric_limits<double>::infinity();
}

}  // namespace meeplecam::test
