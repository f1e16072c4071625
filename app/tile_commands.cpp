#include "app/tile_commands.h"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <iostream>
#include <optional>
#include <set>
#include <sstream>

#include <nlohmann/json.hpp>
#include <opencv2/imgproc.hpp>

#include "app/cli_args.h"
#include "engine/atomic_file.h"
#include "engine/record.h"
#include "vision/image_io.h"
#include "vision/tile_classifier.h"
#include "vision/tile_library.h"

namespace meeplecam::cli {
namespace {

constexpr const char* kClassifyHelp = R"(usage: meeplecam classify-tile IMAGE --game carcassonne [--expansions A,B] [--library FILE] [--json]

Reads one tile from a photo or scan (a rough crop: some table around the tile is fine) and
names its type and rotation, with a confidence and the next best alternatives. An oblong image
(sides beyond 1.25:1) in which no square tile edge is found is refused as not a tile. The rotation
is the one that maps the catalog orientation onto what the image shows (image up = north),
in degrees clockwise, as in match records.

  --game G          carcassonne (the tile catalog to choose from)
  --expansions L    comma-separated expansions whose tiles may appear, e.g.
                    bridges-castles-bazaars,ferries
  --library FILE    a tile library learned with learn-tiles (your tiles' own look)
  --json            print {"tile": "E", "rot": 90, "confidence": 0.97, "alternatives": [...], ...}

exit codes: 0 ok; 2 unreadable or invalid input (including an image that shows no tile)
)";

// Longest side over shortest side of an image still taken as a rough crop of one tile when no
// tile edge is found in it (a crop with some table around a tile stays well under it).
constexpr double kMaxCropAspect = 1.25;

constexpr const char* kLearnHelp = R"(usage: meeplecam learn-tiles IMAGE... --layout reference|names|LAYOUT.json -o LIBRARY.json
                             [--game carcassonne] [--expansions A,B] [--grid CxR]

Learns how your tiles look from photos and writes a tile library for classify-tile --library.

  --layout reference  each IMAGE shows every tile type of the catalog, in catalog order
                      (A, B, C, ...), row by row in a grid of --grid columns x rows (default
                      6 columns), each tile upright as in the rulebook (rotation 0)
  --layout names      each IMAGE shows one tile; its file name (up to the first '_', '-' or
                      '.') is the type, e.g. D.png or D_2.jpg; the rotation is found
  --layout FILE       a JSON layout applied to every IMAGE:
                      {"grid": [cols, rows], "tiles": ["A", "B", null, ...], "rot": [0, 90, ...]}
                      (tiles row by row, null = empty cell; "rot" optional: found when absent)
  -o, --output F      the library to write (atomically)
  --grid CxR          grid of the reference layout (default 6xN)

exit codes: 0 ok; 2 unreadable or invalid input
)";

Result<std::shared_ptr<const Catalog>> catalog_arg(const Args& args) {
    const auto game = args.value("game");
    if (!game) return invalid("--game", "is required (carcassonne)");
    Record record;
    record.game = *game;
    if (auto e = args.value("expansions")) record.expansions = split_list(*e);
    if (!record.expansions.empty() && record.game != "carcassonne") {
        return invalid("--expansions", "only the carcassonne game has expansions");
    }
    return catalog_for(record);
}

double round2(double v) { return std::round(v * 100.0) / 100.0; }

nlohmann::json hypothesis_json(const vision::TileHypothesis& h) {
    return {{"tile", h.tile}, {"rot", h.rot * 90}, {"confidence", round2(h.confidence)}};
}

}  // namespace

int run_classify_tile(const std::vector<std::string>& argv) {
    auto args = parse_args(argv, {"game", "expansions", "library"}, {"json", "help"});
    if (!args) return report(args.error());
    if (args->has("help")) {
        std::cout << kClassifyHelp;
        return 0;
    }
    if (args->positional.size() != 1) return report(invalid("classify-tile", "expects exactly one IMAGE (see --help)"));
    auto catalog = catalog_arg(args.value());
    if (!catalog) return report(catalog.error());
    std::optional<vision::TileLibrary> library;
    if (auto path = args->value("library")) {
        auto lib = vision::TileLibrary::load(*path);
        if (!lib) return report(lib.error());
        library = std::move(lib.value());
    }
    const std::string& path = args->positional[0];
    auto image = vision::load_image(path);
    if (!image) return report(image.error());
    auto classifier = vision::TileClassifier::create(*catalog.value(), {}, library ? &*library : nullptr);
    if (!classifier) return report(classifier.error());
    auto result = classifier->classify(image.value());
    if (!result) {
        Error e = result.error();
        e.where = path;
        return report(e);
    }
    const auto& r = result.value();
    // A tile is square: a clearly oblong image in which no tile edge was found is not a crop of one.
    const cv::Mat& img = image.value();
    const double aspect = static_cast<double>(std::max(img.cols, img.rows)) / std::min(img.cols, img.rows);
    if (!r.found_square && aspect > kMaxCropAspect) {
        char why[200];
        std::snprintf(why, sizeof(why), "not a crop of one tile: the image is %dx%d (sides %.2f:1) and no square tile edge was found in it; "
                      "crop the photo to one tile", img.cols, img.rows, aspect);
        return report(invalid(path, why));
    }
    if (args->has("json")) {
        nlohmann::json alts = nlohmann::json::array();
        for (const auto& a : r.alternatives) alts.push_back(hypothesis_json(a));
        nlohmann::json corners = nlohmann::json::array();
        for (const auto& c : r.corners) corners.push_back({round2(c.x), round2(c.y)});
        nlohmann::json ports = nlohmann::json::object();
        for (int p = 0; p < kPorts; ++p) {
            const auto& e = r.ports[static_cast<std::size_t>(p)];
            ports[std::string(port_name(static_cast<Port>(p)))] = {
                {"field", round2(e.field)}, {"road", round2(e.road)}, {"city", round2(e.city)}, {"other", round2(e.other)}};
        }
        nlohmann::json out = {{"tile", r.best.tile},
                              {"rot", r.best.rot * 90},
                              {"confidence", round2(r.best.confidence)},
                              {"alternatives", alts},
                              {"square_found", r.found_square},
                              {"corners", corners},
                              {"pennant_seen", r.pennant_seen},
                              {"library", library.has_value()},
                              {"ports", ports}};
        std::cout << out.dump() << "\n";
    } else {
        std::printf("%s: tile %s rot %d (confidence %.2f)%s\n", path.c_str(), r.best.tile.c_str(), r.best.rot * 90,
                    r.best.confidence, r.found_square ? "" : " [no tile edge found: the whole image was read as the tile]");
        if (!r.alternatives.empty()) {
            std::printf("  alternatives:");
            for (const auto& a : r.alternatives) std::printf(" %s rot %d (%.2f)", a.tile.c_str(), a.rot * 90, a.confidence);
            std::printf("\n");
        }
    }
    return 0;
}

int run_learn_tiles(const std::vector<std::string>& argv) {
    auto args = parse_args(argv, {"layout", "output", "game", "expansions", "grid"}, {"help"});
    if (!args) return report(args.error());
    if (args->has("help")) {
        std::cout << kLearnHelp;
        return 0;
    }
    if (args->positional.empty()) return report(invalid("learn-tiles", "expects at least one IMAGE (see --help)"));
    const auto output = args->value("output");
    if (!output) return report(invalid("learn-tiles", "-o LIBRARY.json is required (see --help)"));
    const auto layout = args->value("layout");
    if (!layout) return report(invalid("learn-tiles", "--layout reference|names|FILE is required (see --help)"));
    Args with_game = args.value();
    if (!with_game.value("game")) with_game.values["game"] = "carcassonne";
    auto catalog = catalog_arg(with_game);
    if (!catalog) return report(catalog.error());
    const Catalog& cat = *catalog.value();
    auto classifier = vision::TileClassifier::create(cat);
    if (!classifier) return report(classifier.error());

    // The grid and the tile (and rotation, -1 = find it) of each cell.
    int cols = 1, rows = 1;
    std::vector<std::optional<std::string>> cell_tiles;
    std::vector<int> cell_rots;
    const bool by_name = *layout == "names";
    if (*layout == "reference") {
        const int n = static_cast<int>(cat.tiles().size());
        cols = 6;
        rows = (n + cols - 1) / cols;
        if (auto g = args->value("grid")) {
            const auto x = g->find('x');
            try {
                if (x == std::string::npos) throw std::invalid_argument("x");
                cols = std::stoi(g->substr(0, x));
                rows = std::stoi(g->substr(x + 1));
            } catch (const std::exception&) {
                return report(invalid("--grid", "expected COLSxROWS, e.g. 6x4, got '" + *g + "'"));
            }
            if (cols < 1 || rows < 1 || cols > 50 || rows > 50 || cols * rows < n) {
                return report(invalid("--grid", "needs 1..50 columns and rows and room for all " + std::to_string(n) + " tiles"));
            }
        }
        for (const auto& t : cat.tiles()) cell_tiles.emplace_back(t.id);
        cell_rots.assign(cell_tiles.size(), 0);
    } else if (!by_name) {
        auto text = read_whole_file(*layout);
        if (!text) return report(text.error());
        nlohmann::json doc;
        try {
            doc = nlohmann::json::parse(text.value());
        } catch (const nlohmann::json::exception& e) {
            return report(invalid(*layout, std::string("not valid JSON: ") + e.what()));
        }
        if (!doc.is_object() || !doc.contains("grid") || !doc["grid"].is_array() || doc["grid"].size() != 2 ||
            !doc["grid"][0].is_number_integer() || !doc["grid"][1].is_number_integer()) {
            return report(invalid(*layout, "\"grid\": [cols, rows] is required"));
        }
        cols = doc["grid"][0].get<int>();
        rows = doc["grid"][1].get<int>();
        if (cols < 1 || rows < 1 || cols > 50 || rows > 50) return report(invalid(*layout, "grid must be 1..50 x 1..50"));
        if (!doc.contains("tiles") || !doc["tiles"].is_array()) return report(invalid(*layout, "\"tiles\" list is required"));
        for (const auto& t : doc["tiles"]) {
            if (t.is_null()) {
                cell_tiles.emplace_back(std::nullopt);
            } else if (t.is_string() && cat.find(t.get<std::string>())) {
                cell_tiles.emplace_back(t.get<std::string>());
            } else {
                return report(invalid(*layout, "unknown tile " + t.dump() + " in \"tiles\""));
            }
        }
        if (static_cast<int>(cell_tiles.size()) > cols * rows) return report(invalid(*layout, "more tiles than grid cells"));
        cell_rots.assign(cell_tiles.size(), -1);
        if (doc.contains("rot")) {
            if (!doc["rot"].is_array() || doc["rot"].size() != cell_tiles.size()) {
                return report(invalid(*layout, "\"rot\" must list one rotation per tile"));
            }
            for (std::size_t i = 0; i < cell_tiles.size(); ++i) {
                const auto& v = doc["rot"][i];
                const auto q = v.is_number_integer() ? quarter_turns_from_degrees(v.get<long long>()) : std::nullopt;
                if (!q) return report(invalid(*layout, "rot " + v.dump() + " must be 0, 90, 180 or 270"));
                cell_rots[i] = *q;
            }
        }
    }

    vision::TileLibrary library;
    library.game = cat.game();
    int learned = 0;
    std::vector<std::string> found_rotations;
    auto learn = [&](const cv::Mat& crop, const std::string& id, int rot, const std::string& source) -> Status {
        const TileType* type = cat.find(id);
        if (!type) return invalid(source, "unknown tile type '" + id + "'");
        auto tile = classifier->extract_tile(crop);
        if (!tile) return invalid(source, tile.error().to_string());
        if (rot < 0) {
            const auto scored = classifier->score_canonical(tile.value(), id);
            rot = scored.empty() ? 0 : scored.front().rot;
            found_rotations.push_back(id + " " + std::to_string(rot * 90));
        }
        library.add(*type, rot, tile.value(), source);
        ++learned;
        return Ok{};
    };
    for (const auto& path : args->positional) {
        auto image = vision::load_image(path);
        if (!image) return report(image.error());
        if (by_name) {
            std::string stem = std::filesystem::path(path).filename().string();
            stem = stem.substr(0, stem.find_first_of("_-."));
            if (auto st = learn(image.value(), stem, -1, path); !st) return report(st.error());
            continue;
        }
        const cv::Mat& img = image.value();
        const double cw = static_cast<double>(img.cols) / cols, ch = static_cast<double>(img.rows) / rows;
        for (std::size_t i = 0; i < cell_tiles.size(); ++i) {
            if (!cell_tiles[i]) continue;
            const int c = static_cast<int>(i) % cols, r = static_cast<int>(i) / cols;
            // The cell with a little of its neighbours' gap: the classifier finds the square in it.
            const cv::Rect cell = cv::Rect(static_cast<int>(std::floor((c - 0.04) * cw)), static_cast<int>(std::floor((r - 0.04) * ch)),
                                           static_cast<int>(std::ceil(1.08 * cw)), static_cast<int>(std::ceil(1.08 * ch))) &
                                  cv::Rect(0, 0, img.cols, img.rows);
            const std::string source = path + " cell " + std::to_string(c) + "," + std::to_string(r);
            if (auto st = learn(img(cell), *cell_tiles[i], cell_rots[i], source); !st) return report(st.error());
        }
    }
    if (auto st = library.save(*output); !st) return report(st.error());
    std::set<std::string> types;
    for (const auto& e : library.entries) types.insert(e.tile);
    std::cout << "wrote " << *output << ": " << learned << " tile photos, " << types.size() << " of " << cat.tiles().size()
              << " types, " << library.entries.size() << " (type, rotation) entries\n";
    if (!found_rotations.empty()) {
        std::cout << "rotations found:";
        for (const auto& f : found_rotations) std::cout << " " << f;
        std::cout << "\n";
    }
    return 0;
}

}  // namespace meeplecam::cli
