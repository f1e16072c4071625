#include "app/vision_commands.h"

#include <charconv>
#include <chrono>
#include <cstdio>
#include <iostream>
#include <optional>

#include "app/cli_args.h"
#include "engine/random_game.h"
#include "engine/record.h"
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

int report(const Error& e) {
    std::cerr << "meeplecam: " << e.to_string() << "\n";
    return static_cast<int>(e.kind);
}

Result<long long> integer_arg(const std::string& text, const std::string& what) {
    long long v = 0;
    const auto r = std::from_chars(text.data(), text.data() + text.size(), v);
    if (r.ec != std::errc() || r.ptr != text.data() + text.size()) {
        return invalid(what, "expected an integer, got '" + text + "'");
    }
    return v;
}

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

}  // namespace

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
