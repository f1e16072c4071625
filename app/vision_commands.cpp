#include "app/vision_commands.h"

#include <charconv>
#include <chrono>
#include <cstdio>
#include <iostream>
#include <optional>

#include <opencv2/imgcodecs.hpp>
#include <opencv2/imgproc.hpp>

#include "app/cli_args.h"
#include "calibration/calibrated_frame.h"
#include "engine/atomic_file.h"
#include "engine/random_game.h"
#include "engine/record.h"
#include "vision/board_reader.h"
#include "vision/image_io.h"
#include "vision/table_renderer.h"

namespace meeplecam::cli {
namespace {

constexpr const char* kRenderHelp = R"(usage: meeplecam render SCENE.json -o OUT.png [--seed N] [--preset easy|medium|hard] [options]
       meeplecam render --random-board N -o OUT.png [--seed N] [options]

Renders a board as a synthetic photograph of Carcassonne tiles on a table, and writes
the ground truth beside the image (OUT.truth.json): for every cell its tile, rotation and
the four corners of the tile in the image; for every piece its colour, feature and image
position; plus the camera, the table->image homographies and the options used. SCENE.json is a match record; it is replayed with the rules engine
and its board is drawn, with the followers still standing on it. The same seed gives the
same image.

  -o, --output F      image to write (.png, .jpg or .jpeg); the truth goes to F.truth.json
  --seed N            random seed (default 1)
  --preset P          difficulty: easy, medium (default) or hard (steep tilt, glare, blur, a hand)
  --style S           tile art: classic, muted, contrast or dusk (default: chosen by the seed)
  --surface S         table: wood, cloth, plain or busy (default: chosen by the seed)
  --size WxH          image size in pixels (default 1920x1080)
  --random-board N    instead of SCENE.json: the first N tiles of a legal random game
  --catalog FILE      use this tile catalog instead of the shipped one (with SCENE.json)

exit codes: 0 ok; 2 unreadable or invalid input; 3 the record holds an illegal move
)";

constexpr const char* kRecognizeHelp = R"(usage: meeplecam recognize IMAGE... [--game carcassonne] [--expansions A,B] [--edition C3]
                           [--calibration C.json] [--json] [--top F.png]

Reads the board in each photograph: finds the tiles from the image alone (no calibration:
the table plane is estimated from the tiles' edges and gaps), then each tile's type and
rotation, decoded jointly so touching sides match. Prints every tile with its cell, type,
rotation, confidence and runner-up, the image -> board mapping and the time taken.

Cells and rotations are in the board frame of the top view: a photo has no north, so the
whole board may be turned by a quarter turn against the record that built it.

  --game G            carcassonne (default), city or amazonas: which tile catalog
  --expansions A,B    expansions whose tiles may be on the table (carcassonne only)
  --edition E         tile counts (default C3)
  --json              one JSON document: {"images": [{"image", "found", "tiles", ...}]}
  --calibration C     a calibration file (meeplecam calibrate): undistort with its camera
                      intrinsics, take the table plane from it instead of estimating it
  --top F.png         also write the rectified top view with every tile's type, rotation and
                      cell drawn on it (F-1.png, F-2.png, ... for several images)

exit codes: 0 every image shows a board; 2 an image is unreadable, empty, too small or
too large, or shows no board (the message names the image and the reason)
)";

Result<vision::TableSurface> surface_arg(const std::string& text) {
    for (const auto s : {vision::TableSurface::Wood, vision::TableSurface::Cloth, vision::TableSurface::Plain,
                         vision::TableSurface::Busy}) {
        if (vision::table_surface_name(s) == text) return s;
    }
    return invalid("--surface", "must be wood, cloth, plain or busy, not '" + text + "'");
}

Result<cv::Size> size_arg(const std::string& text) {
    const auto x = text.find('x');
    if (x != std::string::npos) {
        auto w = integer_arg(text.substr(0, x), "--size");
        auto h = integer_arg(text.substr(x + 1), "--size");
        if (w && h && w.value() > 0 && h.value() > 0 && w.value() <= 100000 && h.value() <= 100000) {
            return cv::Size(static_cast<int>(w.value()), static_cast<int>(h.value()));
        }
    }
    return invalid("--size", "expected WIDTHxHEIGHT, e.g. 1920x1080, got '" + text + "'");
}

nlohmann::json matrix_json(const cv::Matx33d& m) {
    nlohmann::json j = nlohmann::json::array();
    for (int r = 0; r < 3; ++r) j.push_back({m(r, 0), m(r, 1), m(r, 2)});
    return j;
}

}  // namespace

// Writes the reading's top view with each tile's board cell, type and rotation drawn on it.
Status write_top_view(const std::string& path, const vision::BoardReading& r, const std::vector<TileType>& types, int c0, int r0) {
    cv::Mat img = r.view.top.clone();
    const double scale = std::max(0.35, r.view.pitch_px / 130.0);
    for (const auto& t : r.tiles) {
        const cv::Point2d c = r.view.cell_centre(t.col, t.row) + t.offset_px;
        const double h = r.view.pitch_px * 0.45;
        cv::rectangle(img, cv::Point2d(c.x - h, c.y - h), cv::Point2d(c.x + h, c.y + h), cv::Scalar(255, 255, 0), 1);
        const std::string label = types[static_cast<std::size_t>(t.type)].id + " " + std::to_string(90 * t.rot);
        const std::string cell = std::to_string(t.col - c0) + "," + std::to_string(t.row - r0);
        for (const auto& [text, dy] : {std::pair{label, 0.0}, std::pair{cell, 14 * scale * 2}}) {
            cv::putText(img, text, c + cv::Point2d(-h * 0.8, dy), cv::FONT_HERSHEY_SIMPLEX, scale, cv::Scalar(0, 0, 0), 3);
            cv::putText(img, text, c + cv::Point2d(-h * 0.8, dy), cv::FONT_HERSHEY_SIMPLEX, scale, cv::Scalar(255, 255, 255), 1);
        }
    }
    std::vector<std::uint8_t> bytes;
    if (!cv::imencode(".png", img, bytes)) return invalid(path, "cannot encode the top view");
    return write_file_atomically(path, std::string_view(reinterpret_cast<const char*>(bytes.data()), bytes.size()));
}

int run_recognize(const std::vector<std::string>& argv) {
    auto args = parse_args(argv, {"game", "expansions", "edition", "calibration", "top"}, {"help", "json"});
    if (!args) return report(args.error());
    if (args->has("help")) {
        std::cout << kRecognizeHelp;
        return 0;
    }
    if (args->positional.empty()) return report(invalid("recognize", "expects at least one IMAGE (see --help)"));
    Record setup;
    setup.game = args->value("game").value_or("carcassonne");
    if (auto e = args->value("expansions")) setup.expansions = split_list(*e);
    if (!setup.expansions.empty() && setup.game != "carcassonne") {
        return report(invalid("--expansions", "expansions apply only to the game carcassonne"));
    }
    auto catalog = catalog_for(setup);
    if (!catalog) return report(catalog.error());
    vision::ReaderOptions options;
    options.decoder.edition = args->value("edition").value_or("C3");
    std::optional<calibration::Calibration> calibrated;
    if (auto c = args->value("calibration")) {
        auto loaded = calibration::load_calibration(*c);
        if (!loaded) return report(loaded.error());
        calibrated = std::move(loaded.value());
    }
    const bool json = args->has("json");
    const auto& types = catalog.value()->tiles();
    nlohmann::json images = nlohmann::json::array();
    int code = 0;
    for (const auto& path : args->positional) {
        auto image = vision::load_image(path);
        if (!image) {
            report(image.error());
            code = 2;
            if (json) images.push_back({{"image", path}, {"found", false}, {"message", image.error().to_string()}});
            continue;
        }
        if (calibrated) {
            auto frame = calibration::prepare_frame(*calibrated, image.value(), options, path);
            if (!frame) return report(frame.error());
            image = std::move(frame.value());
        }
        auto reading = vision::read_board(image.value(), *catalog.value(), options);
        if (!reading) {
            Error e = reading.error();
            e.where = path + ": " + e.where;
            report(e);
            code = 2;
            continue;
        }
        const auto& r = reading.value();
        if (!r.found) {
            std::cerr << "meeplecam: " << path << ": " << r.message << "\n";
            code = 2;
        }
        // Board cells: the lattice cells renumbered from the board's top-left occupied cell.
        int c0 = 0, r0 = 0;
        if (!r.tiles.empty()) {
            c0 = r.tiles[0].col, r0 = r.tiles[0].row;
            for (const auto& t : r.tiles) c0 = std::min(c0, t.col), r0 = std::min(r0, t.row);
        }
        if (auto top = args->value("top"); top && !r.view.top.empty()) {
            std::string out = *top;
            if (args->positional.size() > 1) {
                const auto dot = out.rfind('.');
                out = out.substr(0, dot) + "-" + std::to_string(&path - &args->positional[0] + 1) + (dot == std::string::npos ? ".png" : out.substr(dot));
            }
            if (auto st = write_top_view(out, r, types, c0, r0); !st) {
                report(st.error());
                code = 2;
            }
        }
        const double pitch = r.view.pitch_px;
        const cv::Matx33d top_to_board(1 / pitch, 0, -0.5 - c0, 0, 1 / pitch, -0.5 - r0, 0, 0, 1);
        const cv::Matx33d image_to_board = top_to_board * r.view.image_to_top;
        if (json) {
            nlohmann::json tiles = nlohmann::json::array();
            for (const auto& t : r.tiles) {
                nlohmann::json tile = {{"at", {t.col - c0, t.row - r0}},
                                       {"tile", types[static_cast<std::size_t>(t.type)].id},
                                       {"rot", 90 * t.rot},
                                       {"confidence", t.confidence}};
                if (t.hidden) tile["hidden"] = true;
                if (t.runner_type >= 0) {
                    tile["runner_up"] = {{"tile", types[static_cast<std::size_t>(t.runner_type)].id},
                                         {"rot", 90 * t.runner_rot},
                                         {"confidence", t.runner_confidence}};
                }
                tiles.push_back(tile);
            }
            images.push_back({{"image", path},
                              {"found", r.found},
                              {"message", r.message},
                              {"tiles", tiles},
                              {"image_to_board", matrix_json(image_to_board)},
                              {"pitch_mm", pitch / r.view.px_per_mm},
                              {"timings_ms", {{"lattice", r.ms_lattice}, {"classify", r.ms_classify}, {"decode", r.ms_decode}, {"total", r.ms_total}}}});
            continue;
        }
        if (!r.found) continue;
        char line[160];
        std::snprintf(line, sizeof line, "%s: %zu tiles (lattice %.0f ms, classify %.0f ms, decode %.0f ms, total %.0f ms)\n", path.c_str(),
                      r.tiles.size(), r.ms_lattice, r.ms_classify, r.ms_decode, r.ms_total);
        std::cout << line;
        for (const auto& t : r.tiles) {
            std::snprintf(line, sizeof line, "  [%d, %d] %s rot %d  conf %.2f", t.col - c0, t.row - r0, types[static_cast<std::size_t>(t.type)].id.c_str(),
                          90 * t.rot, t.confidence);
            std::cout << line;
            if (t.hidden) std::cout << "  hidden (a guess)";
            if (t.runner_type >= 0) {
                std::snprintf(line, sizeof line, "  (runner-up %s rot %d, %.2f)", types[static_cast<std::size_t>(t.runner_type)].id.c_str(), 90 * t.runner_rot,
                              t.runner_confidence);
                std::cout << line;
            }
            std::cout << "\n";
        }
        std::cout << "  image -> board cell (cell centres at integers): " << matrix_json(image_to_board).dump() << "\n";
    }
    if (json) std::cout << nlohmann::json{{"images", images}}.dump(2) << "\n";
    return code;
}

int run_render(const std::vector<std::string>& argv) {
    auto args = parse_args(argv, {"output", "seed", "preset", "style", "surface", "size", "random-board", "catalog"}, {"help"});
    if (!args) return report(args.error());
    if (args->has("help")) {
        std::cout << kRenderHelp;
        return 0;
    }
    const auto output = args->value("output");
    if (!output) return report(invalid("render", "-o OUT.png is required (see --help)"));
    const auto random_board = args->value("random-board");
    if (random_board.has_value() == (args->positional.size() == 1) || args->positional.size() > 1) {
        return report(invalid("render", "expects exactly one SCENE.json, or --random-board N (see --help)"));
    }

    std::uint64_t seed = 1;
    if (auto s = args->value("seed")) {
        auto v = integer_arg(*s, "--seed");
        if (!v) return report(v.error());
        seed = static_cast<std::uint64_t>(v.value());
    }
    vision::RenderOptions options;
    if (auto p = args->value("preset")) {
        auto d = vision::parse_difficulty(*p);
        if (!d) return report(d.error());
        options = vision::RenderOptions::for_difficulty(d.value());
    }
    if (auto s = args->value("style")) options.style = *s;
    if (auto s = args->value("surface")) {
        auto surface = surface_arg(*s);
        if (!surface) return report(surface.error());
        options.surfaces = {surface.value()};
    }
    if (auto s = args->value("size")) {
        auto size = size_arg(*s);
        if (!size) return report(size.error());
        options.width = size->width;
        options.height = size->height;
    }
    if (auto st = options.check(); !st) return report(st.error());

    // The board: a replayed record, or a random legal game cut short. The game owns the tiles.
    std::optional<Game> game;
    std::string source;
    if (random_board) {
        auto n = integer_arg(*random_board, "--random-board");
        if (!n) return report(n.error());
        if (n.value() < 1 || n.value() > 10000) return report(invalid("--random-board", "must be 1..10000 tiles"));
        auto catalog = Catalog::embedded("carcassonne-base");
        if (!catalog) return report(catalog.error());
        RandomGameOptions random;
        random.seed = seed;
        random.max_tiles = static_cast<int>(n.value());
        auto played = play_random_game(std::make_shared<const Catalog>(std::move(catalog.value())), random);
        if (!played) return report(played.error());
        game.emplace(std::move(played->game));
        source = "random board";
    } else {
        source = args->positional[0];
        auto record = read_record(source);
        if (!record) return report(record.error());
        ReplayOptions replay_options;
        replay_options.apply_finish = false;
        if (auto catalog_path = args->value("catalog")) {
            auto catalog = Catalog::load_file(*catalog_path);
            if (!catalog) return report(catalog.error());
            replay_options.catalog = std::make_shared<const Catalog>(std::move(catalog.value()));
        }
        auto replayed = replay(record.value(), replay_options);
        if (!replayed) {
            Error e = replayed.error();
            e.where = source + ": " + e.where;
            return report(e);
        }
        game.emplace(std::move(replayed.value()));
    }

    const auto started = std::chrono::steady_clock::now();
    auto rendering = vision::render_table(vision::scene_of(*game), options, seed);
    if (!rendering) {
        Error e = rendering.error();
        e.where = source + ": " + e.where;
        return report(e);
    }
    const double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - started).count();
    if (auto st = vision::write_rendering(rendering.value(), *output); !st) return report(st.error());
    const auto& truth = rendering->truth;
    char tilt[32];
    std::snprintf(tilt, sizeof tilt, "%.1f", truth.camera.tilt_deg);
    std::cout << "wrote " << *output << " and " << vision::truth_path_for(*output) << ": " << truth.tiles.size()
              << (truth.tiles.size() == 1 ? " tile, " : " tiles, ") << truth.pieces.size()
              << (truth.pieces.size() == 1 ? " piece, " : " pieces, ") << truth.width << "x" << truth.height << ", preset " << options.preset << ", style "
              << truth.style << ", " << truth.surface << " table, tilt " << tilt << " deg"
              << (truth.glare ? ", glare" : "") << (truth.hand ? ", hand" : "") << " (" << static_cast<int>(ms)
              << " ms)\n";
    return 0;
}

}  // namespace meeplecam::cli
