#include "app/calibrate_commands.h"

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <iostream>
#include <optional>

#include <opencv2/imgcodecs.hpp>
#include <opencv2/imgproc.hpp>

#include "app/cli_args.h"
#include "calibration/calibration_file.h"
#include "calibration/camera_calibration.h"
#include "calibration/overlays.h"
#include "calibration/player_colours.h"
#include "calibration/printed_targets.h"
#include "calibration/start_tile_plane.h"
#include "calibration/table_plane.h"
#include "engine/record.h"
#include "vision/image_io.h"
#include "vision/tile_classifier.h"

namespace meeplecam::cli {
namespace {

constexpr const char* kHelp = R"(usage: meeplecam calibrate SUBCOMMAND [ARGS]   (meeplecam calibrate SUBCOMMAND --help)

Calibrates a camera set-up into one calibration file (JSON), used by
'meeplecam recognize --calibration FILE'. Each step adds its part to the file (-o) and keeps
the others.

  print-charuco -o board.pdf|png      the ChArUco board (camera intrinsics), true size, A4
  print-markers -o markers.pdf|png    the four table-corner markers, true size, A4
  camera IMG... -o C.json             camera intrinsics from several photos of the board
  table IMG (--rect-mm WxH | --markers-mm X,Y;X,Y;X,Y;X,Y | --from-tiles) -o C.json
                                      the table plane from the markers (or the tiles)
  colours IMG --players red,blue,... -o C.json
                                      white balance and player colours from followers on paper
  show C.json                         print what a calibration file holds

exit codes: 0 ok; 2 unreadable or invalid input (the message says where and why)
)";

constexpr const char* kPrintCharucoHelp = R"(usage: meeplecam calibrate print-charuco -o board.pdf|board.png [--squares 9x6] [--square-mm 28] [--marker-mm 21]

Draws the ChArUco calibration board (a chessboard with ArUco DICT_5X5_100 markers in its white
squares) at true size on a landscape A4 sheet, with its size and a 100 mm check bar printed
under it. The PDF places the image at exact millimetres; the PNG records its resolution
(pHYs). Print at 100 % (no fit-to-page), check the bar with a ruler, glue the sheet flat on
card. Pass the same --squares/--square-mm/--marker-mm to 'calibrate camera' if you change them.

  -o, --output F    board.pdf or board.png
  --squares CxR     squares across x down (default 9x6)
  --square-mm S     chessboard square side (default 28)
  --marker-mm M     marker side inside a square (default 21)
)";

constexpr const char* kPrintMarkersHelp = R"(usage: meeplecam calibrate print-markers -o markers.pdf|markers.png [--marker-mm 60]

Draws the four table-corner markers (ArUco DICT_4X4_50, ids 0..3 = the table's NW, NE, SE,
SW corners) at true size on one portrait A4 sheet, a quarter each, labelled. Cut them out and
lay each flat at its corner of the play area; measure where their centres are (or place them
on the corners of a rectangle) and give that to 'calibrate table'.

  -o, --output F    markers.pdf or markers.png
  --marker-mm M     marker side, black border included (default 60)
)";

constexpr const char* kCameraHelp = R"(usage: meeplecam calibrate camera IMG... -o C.json [--squares 9x6] [--square-mm 28] [--marker-mm 21] [--min-views 4]

Measures the camera's intrinsics (focal length, principal point, lens distortion) from
several photos of the printed ChArUco board, taken with the camera in the mode it will watch
the table in (same resolution, same zoom). Take 6-15 photos: the board at different places
in the frame, tilted 20-50 degrees in different directions, sharp. Photos where the board
cannot be found are skipped with a warning; fewer than --min-views usable ones is an error.
Prints the rms reprojection error (good: < 0.5 px).

  -o, --output F    calibration file to create or update (its camera part is replaced)
  --squares, --square-mm, --marker-mm   the printed board (defaults as print-charuco)
  --min-views N     fewest usable photos (default 4)
)";

constexpr const char* kTableHelp = R"(usage: meeplecam calibrate table IMG (--rect-mm WxH | --markers-mm X,Y;X,Y;X,Y;X,Y | --from-tiles | --from-start-tile)
                                     -o C.json [--marker-mm 60] [--game G] [--expansions A,B] [--overlay OUT.png]

Measures the table plane (table millimetres <-> image pixels) in one photo from the fixed
camera. With markers: the four printed markers lie at the table corners, ids 0..3 = NW, NE,
SE, SW; give their centres in mm, either as a rectangle W x H (NW at 0,0, NE at W,0, SE at
W,H, SW at 0,H) or as four points in id order. With --from-tiles: the plane is estimated from
the tile lattice itself (the mm scale assumes 45.8 mm per tile and gap; 16 tiles or more).
With --from-start-tile: from the game's start tile lying alone on the table (its four
corners, 45 mm apart): a match can start with no markers, but one tile is a small base, so
the plane drifts with distance (docs/calibration.md: ~3.5 mm at 3 tiles on renders); use the
markers for whole games. When C.json already
holds camera intrinsics the photo is undistorted first. C.json is updated (its table part
is replaced) or created.

  -o, --output F       calibration file to update or create
  --rect-mm WxH        marker centres on the corners of a W x H mm rectangle
  --markers-mm P       the four centres X,Y;X,Y;X,Y;X,Y in mm, ids 0..3
  --marker-mm M        printed marker side (default 60)
  --from-tiles         no markers: use the tiles on the table
  --from-start-tile    no markers: use the start tile alone on the table
  --game G, --expansions A,B   the game whose start tile it is (default carcassonne)
  --overlay OUT.png    draw the markers found and a 100 mm grid of the table plane
)";

constexpr const char* kColoursHelp = R"(usage: meeplecam calibrate colours IMG --players red,blue,... -o C.json [--overlay OUT.png]

Measures the white balance and each player colour from one photo, taken with the camera and
light of the game: a sheet of white paper on the table, one follower of each player colour
standing on it (nothing else on the paper). The paper sets the white balance; each follower
gives its colour's Lab mean and covariance. C.json is updated (its colours part is replaced)
or created.

  --players LIST       the colours on the paper: red, blue, green, yellow, black, grey
  -o, --output F       calibration file to update or create
  --overlay OUT.png    draw the paper and the followers found with their colours
)";

constexpr const char* kShowHelp = R"(usage: meeplecam calibrate show C.json [--json]

Prints what a calibration file holds: camera intrinsics and reprojection error, the table
plane and its markers, the white balance and player colours. --json prints the file as read.
)";

std::string fixed(double v, int digits) {
    char buf[64];
    std::snprintf(buf, sizeof(buf), "%.*f", digits, v);
    return buf;
}

// Splits "a<sep>b<sep>c" into its parts (empty parts kept, so "1,,2" is refused later).
std::vector<std::string> split(const std::string& text, char sep) {
    std::vector<std::string> out(1);
    for (char c : text) {
        if (c == sep) out.emplace_back();
        else out.back().push_back(c);
    }
    return out;
}

// Parses "AxB" into two numbers.
Result<std::pair<double, double>> pair_arg(const std::string& text, const std::string& what) {
    const auto parts = split(text, 'x');
    if (parts.size() != 2) return invalid(what, "expected WxH, got '" + text + "'");
    auto a = number_arg(parts[0], what);
    if (!a) return invalid(what, "expected WxH, got '" + text + "'");
    auto b = number_arg(parts[1], what);
    if (!b) return invalid(what, "expected WxH, got '" + text + "'");
    return std::pair{a.value(), b.value()};
}

// The board options shared by print-charuco and camera.
Result<calibration::CharucoSpec> charuco_spec(const Args& args) {
    calibration::CharucoSpec spec;
    if (auto s = args.value("squares")) {
        auto p = pair_arg(*s, "--squares");
        if (!p) return p.error();
        if (p->first != std::floor(p->first) || p->second != std::floor(p->second)) return invalid("--squares", "expected whole numbers CxR");
        spec.squares_x = static_cast<int>(p->first);
        spec.squares_y = static_cast<int>(p->second);
    }
    for (const auto& [name, field] : {std::pair{"square-mm", &spec.square_mm}, std::pair{"marker-mm", &spec.marker_mm}}) {
        if (auto s = args.value(name)) {
            auto v = number_arg(*s, std::string("--") + name);
            if (!v) return v.error();
            *field = v.value();
        }
    }
    if (auto st = spec.check(); !st) return st.error();
    return spec;
}

// The calibration file to update: its content when it exists, an empty one when not.
Result<calibration::Calibration> existing_or_new(const std::string& path) {
    if (!std::filesystem::exists(path)) return calibration::Calibration{};
    return calibration::load_calibration(path);
}

Result<std::string> output_arg(const Args& args, const char* command) {
    auto out = args.value("output");
    if (!out || out->empty()) return invalid(std::string("calibrate ") + command, "-o OUTPUT is required (see --help)");
    return *out;
}

int print_charuco(const std::vector<std::string>& argv) {
    auto args = parse_args(argv, {"output", "squares", "square-mm", "marker-mm"}, {"help"});
    if (!args) return report(args.error());
    if (args->has("help")) return std::cout << kPrintCharucoHelp, 0;
    if (!args->positional.empty()) return report(invalid("calibrate print-charuco", "takes no positional arguments (see --help)"));
    auto out = output_arg(args.value(), "print-charuco");
    if (!out) return report(out.error());
    auto spec = charuco_spec(args.value());
    if (!spec) return report(spec.error());
    auto sheet = calibration::charuco_sheet(spec.value());
    if (!sheet) return report(sheet.error());
    if (auto st = calibration::write_sheet(sheet.value(), out.value()); !st) return report(st.error());
    std::cout << out.value() << ": " << sheet->title << "; " << fixed(sheet->px_per_mm * 25.4, 1) << " dpi, A4 landscape\n";
    return 0;
}

int print_markers(const std::vector<std::string>& argv) {
    auto args = parse_args(argv, {"output", "marker-mm"}, {"help"});
    if (!args) return report(args.error());
    if (args->has("help")) return std::cout << kPrintMarkersHelp, 0;
    if (!args->positional.empty()) return report(invalid("calibrate print-markers", "takes no positional arguments (see --help)"));
    auto out = output_arg(args.value(), "print-markers");
    if (!out) return report(out.error());
    calibration::TableMarkerSpec spec;
    if (auto s = args->value("marker-mm")) {
        auto v = number_arg(*s, "--marker-mm");
        if (!v) return report(v.error());
        spec.marker_mm = v.value();
    }
    auto sheet = calibration::marker_sheet(spec);
    if (!sheet) return report(sheet.error());
    if (auto st = calibration::write_sheet(sheet.value(), out.value()); !st) return report(st.error());
    std::cout << out.value() << ": " << sheet->title << "; " << fixed(sheet->px_per_mm * 25.4, 1) << " dpi, A4 portrait\n";
    return 0;
}

int camera(const std::vector<std::string>& argv) {
    auto args = parse_args(argv, {"output", "squares", "square-mm", "marker-mm", "min-views"}, {"help"});
    if (!args) return report(args.error());
    if (args->has("help")) return std::cout << kCameraHelp, 0;
    if (args->positional.empty()) return report(invalid("calibrate camera", "expects photos of the ChArUco board (see --help)"));
    auto out = output_arg(args.value(), "camera");
    if (!out) return report(out.error());
    calibration::CameraCalibrationOptions options;
    auto spec = charuco_spec(args.value());
    if (!spec) return report(spec.error());
    options.board = spec.value();
    if (auto s = args->value("min-views")) {
        auto v = number_arg(*s, "--min-views");
        if (!v) return report(v.error());
        if (v.value() != std::floor(v.value()) || v.value() < 3 || v.value() > 1000) return report(invalid("--min-views", "must be a whole number, at least 3"));
        options.min_views = static_cast<int>(v.value());
    }
    auto cal = existing_or_new(out.value());
    if (!cal) return report(cal.error());
    std::vector<calibration::CharucoView> views;
    for (const auto& path : args->positional) {
        auto image = vision::load_image(path);
        if (!image) return report(image.error());
        auto view = calibration::detect_charuco(image.value(), path, options);
        if (!view) {
            std::cerr << "meeplecam: warning: " << view.error().to_string() << "; photo skipped\n";
            continue;
        }
        std::cout << path << ": " << view->markers << " markers, " << view->corners.size() << " corners\n";
        views.push_back(std::move(view.value()));
    }
    auto cam = calibration::calibrate_camera(views, options);
    if (!cam) return report(cam.error());
    const auto& K = cam->camera_matrix;
    std::cout << "camera: " << cam->image_size.width << "x" << cam->image_size.height << ", fx " << fixed(K(0, 0), 1) << " fy "
              << fixed(K(1, 1), 1) << " cx " << fixed(K(0, 2), 1) << " cy " << fixed(K(1, 2), 1) << ", reprojection error "
              << fixed(cam->reprojection_error_px, 3) << " px over " << cam->views << " views\n";
    if (cal->table && cal->table->undistorted) {
        std::cerr << "meeplecam: warning: " << out.value() << ": the table plane was measured with the previous intrinsics; measure it again (calibrate table)\n";
    }
    cal->camera = cam.value();
    if (auto st = calibration::save_calibration(cal.value(), out.value()); !st) return report(st.error());
    return 0;
}

// Parses "--markers-mm X,Y;X,Y;X,Y;X,Y".
Result<std::array<cv::Point2d, 4>> marker_points_arg(const std::string& text) {
    const auto points = split(text, ';');
    const auto bad = invalid("--markers-mm", "expected four centres X,Y;X,Y;X,Y;X,Y in mm (ids 0..3: NW, NE, SE, SW), got '" + text + "'");
    if (points.size() != 4) return bad;
    std::array<cv::Point2d, 4> out{};
    for (std::size_t i = 0; i < 4; ++i) {
        const auto xy = split(points[i], ',');
        if (xy.size() != 2) return bad;
        auto x = number_arg(xy[0], "--markers-mm");
        auto y = number_arg(xy[1], "--markers-mm");
        if (!x || !y) return bad;
        out[i] = {x.value(), y.value()};
    }
    return out;
}

int table(const std::vector<std::string>& argv) {
    auto args = parse_args(argv, {"output", "rect-mm", "markers-mm", "marker-mm", "overlay", "game", "expansions"},
                           {"help", "from-tiles", "from-start-tile"});
    if (!args) return report(args.error());
    if (args->has("help")) return std::cout << kTableHelp, 0;
    if (args->positional.size() != 1) return report(invalid("calibrate table", "expects exactly one photo of the table (see --help)"));
    auto out = output_arg(args.value(), "table");
    if (!out) return report(out.error());
    const int ways = (args->value("rect-mm") ? 1 : 0) + (args->value("markers-mm") ? 1 : 0) + (args->has("from-tiles") ? 1 : 0) +
                     (args->has("from-start-tile") ? 1 : 0);
    if (ways != 1) {
        return report(invalid("calibrate table", "give exactly one of --rect-mm, --markers-mm, --from-tiles, --from-start-tile (see --help)"));
    }
    auto cal = existing_or_new(out.value());
    if (!cal) return report(cal.error());
    const std::string path = args->positional[0];
    auto image = vision::load_image(path);
    if (!image) return report(image.error());
    const calibration::CameraIntrinsics* camera = cal->camera ? &*cal->camera : nullptr;
    Result<calibration::TableCalibration> measured = invalid("", "");
    std::array<calibration::FoundMarker, 4> found{};
    std::optional<calibration::StartTilePlane> start_tile;
    if (args->has("from-start-tile")) {
        Record setup;
        setup.game = args->value("game").value_or("carcassonne");
        if (auto e = args->value("expansions")) setup.expansions = split(*e, ',');
        auto catalog = catalog_for(setup);
        if (!catalog) return report(catalog.error());
        const TileType* start = catalog.value()->find(catalog.value()->start_tile());
        if (!start) return report(invalid("calibrate table", "the game " + setup.game + " names no start tile"));
        auto classifier = vision::TileClassifier::create(*catalog.value());
        if (!classifier) return report(classifier.error());
        cv::Mat frame = image.value();
        if (camera) {
            auto undistorted = calibration::undistort_image(frame, *camera);
            if (!undistorted) return report(invalid(path, undistorted.error().message));
            frame = undistorted.value();
        }
        auto found_tile = calibration::table_from_start_tile(frame, *start, classifier.value(), {}, camera, path);
        if (!found_tile) return report(found_tile.error());
        start_tile = found_tile.value();
        std::cout << path << ": start tile " << start->id << " found (classifier confidence " << fixed(found_tile->confidence, 2)
                  << ", " << found_tile->candidates << " outlines scored)\n";
        measured = found_tile->table;
    } else if (args->has("from-tiles")) {
        cv::Mat frame = image.value();
        if (camera) {
            auto undistorted = calibration::undistort_image(frame, *camera);
            if (!undistorted) return report(invalid(path, undistorted.error().message));
            frame = undistorted.value();
        }
        measured = calibration::table_from_tiles(frame, {}, camera, path);
    } else {
        calibration::TableMarkerOptions options;
        if (auto s = args->value("marker-mm")) {
            auto v = number_arg(*s, "--marker-mm");
            if (!v) return report(v.error());
            options.marker_mm = v.value();
        }
        if (auto r = args->value("rect-mm")) {
            auto wh = pair_arg(*r, "--rect-mm");
            if (!wh) return report(wh.error());
            options.centres_mm = calibration::rectangle_centres(wh->first, wh->second);
        } else {
            auto pts = marker_points_arg(*args->value("markers-mm"));
            if (!pts) return report(pts.error());
            options.centres_mm = pts.value();
        }
        if (auto st = options.check(); !st) return report(st.error());
        measured = calibration::table_from_markers(image.value(), options, camera, path);
        if (measured) found = calibration::find_table_markers(image.value(), path).value();
    }
    if (!measured) return report(measured.error());
    const auto& t = measured.value();
    // The size of one image pixel on the table at the image centre: how fine the plane reads.
    const cv::Point2d c(image->cols / 2.0, image->rows / 2.0);
    const double mm_per_px = cv::norm(t.plane.to_table(c + cv::Point2d(0.5, 0)) - t.plane.to_table(c - cv::Point2d(0.5, 0)));
    std::cout << path << ": table plane from " << t.source << (t.undistorted ? " (undistorted)" : "") << ", rms " << fixed(t.plane.rms_error_px, 3)
              << " px, " << fixed(mm_per_px, 3) << " mm per pixel at the image centre\n";
    if (auto o = args->value("overlay")) {
        cv::Mat picture = image.value();
        if (t.undistorted && camera) picture = calibration::undistort_image(picture, *camera).value();
        cv::Mat overlay = calibration::draw_table_plane(picture, t, start_tile ? nullptr : &found);
        if (start_tile) {
            std::vector<cv::Point> quad;
            for (const auto& p : start_tile->corners_px) quad.emplace_back(static_cast<int>(std::lround(p.x)), static_cast<int>(std::lround(p.y)));
            cv::polylines(overlay, quad, true, cv::Scalar(0, 0, 255), std::max(1, overlay.cols / 800), cv::LINE_AA);
        }
        if (!cv::imwrite(*o, overlay)) return report(invalid(*o, "cannot write the overlay image"));
    }
    cal->table = t;
    if (auto st = calibration::save_calibration(cal.value(), out.value()); !st) return report(st.error());
    return 0;
}

int colours(const std::vector<std::string>& argv) {
    auto args = parse_args(argv, {"output", "players", "overlay"}, {"help"});
    if (!args) return report(args.error());
    if (args->has("help")) return std::cout << kColoursHelp, 0;
    if (args->positional.size() != 1) return report(invalid("calibrate colours", "expects exactly one photo of the followers on paper (see --help)"));
    auto out = output_arg(args.value(), "colours");
    if (!out) return report(out.error());
    const auto players_text = args->value("players");
    if (!players_text) return report(invalid("calibrate colours", "--players red,blue,... is required (see --help)"));
    const auto players = split(*players_text, ',');
    auto cal = existing_or_new(out.value());
    if (!cal) return report(cal.error());
    const std::string path = args->positional[0];
    auto image = vision::load_image(path);
    if (!image) return report(image.error());
    auto shot = calibration::calibrate_colours(image.value(), players, path);
    if (!shot) return report(shot.error());
    const auto& wb = shot->calibration.white_balance_rgb;
    std::cout << path << ": white balance R " << fixed(wb[0], 3) << " G " << fixed(wb[1], 3) << " B " << fixed(wb[2], 3) << "\n";
    for (const auto& f : shot->followers) {
        const auto& m = shot->calibration.players.at(f.colour);
        std::cout << "  " << f.colour << " at (" << fixed(f.centre_px.x, 0) << ", " << fixed(f.centre_px.y, 0) << "): Lab " << fixed(m.lab_mean[0], 1)
                  << " " << fixed(m.lab_mean[1], 1) << " " << fixed(m.lab_mean[2], 1) << " over " << m.pixels << " px\n";
    }
    if (auto o = args->value("overlay")) {
        const cv::Mat overlay = calibration::draw_colour_shot(image.value(), shot.value());
        if (!cv::imwrite(*o, overlay)) return report(invalid(*o, "cannot write the overlay image"));
    }
    cal->colours = shot->calibration;
    if (auto st = calibration::save_calibration(cal.value(), out.value()); !st) return report(st.error());
    return 0;
}

int show(const std::vector<std::string>& argv) {
    auto args = parse_args(argv, {}, {"help", "json"});
    if (!args) return report(args.error());
    if (args->has("help")) return std::cout << kShowHelp, 0;
    if (args->positional.size() != 1) return report(invalid("calibrate show", "expects one calibration file (see --help)"));
    auto cal = calibration::load_calibration(args->positional[0]);
    if (!cal) return report(cal.error());
    if (args->has("json")) return std::cout << calibration::calibration_to_json(cal.value()).dump(2) << "\n", 0;
    std::cout << args->positional[0] << ": meeplecam calibration, version 1\n";
    if (const auto& c = cal->camera) {
        const auto& K = c->camera_matrix;
        std::cout << "camera: " << c->image_size.width << "x" << c->image_size.height << ", fx " << fixed(K(0, 0), 2) << " fy " << fixed(K(1, 1), 2)
                  << " cx " << fixed(K(0, 2), 2) << " cy " << fixed(K(1, 2), 2) << "; horizontal field of view "
                  << fixed(2 * std::atan(c->image_size.width / (2 * K(0, 0))) * 180 / 3.14159265358979, 1) << " deg\n  distortion";
        for (double d : c->distortion) std::cout << " " << fixed(d, 5);
        std::cout << "\n  reprojection error " << fixed(c->reprojection_error_px, 3) << " px over " << c->views << " views\n";
    } else {
        std::cout << "camera: not calibrated\n";
    }
    if (const auto& t = cal->table) {
        std::cout << "table: plane from " << t->source << " in a " << t->image_size.width << "x" << t->image_size.height << " image"
                  << (t->undistorted ? " (undistorted)" : "") << ", rms " << fixed(t->plane.rms_error_px, 3) << " px\n";
        for (const auto& m : t->markers) {
            std::cout << "  marker " << m.id << " (" << m.corner << ") at " << fixed(m.centre_mm.x, 1) << ", " << fixed(m.centre_mm.y, 1) << " mm -> pixel "
                      << fixed(t->plane.to_image(m.centre_mm).x, 1) << ", " << fixed(t->plane.to_image(m.centre_mm).y, 1) << "\n";
        }
    } else {
        std::cout << "table: not calibrated\n";
    }
    if (const auto& c = cal->colours) {
        std::cout << "colours: white balance R " << fixed(c->white_balance_rgb[0], 3) << " G " << fixed(c->white_balance_rgb[1], 3) << " B "
                  << fixed(c->white_balance_rgb[2], 3) << "\n";
        for (const auto& [name, m] : c->players) {
            std::cout << "  " << name << ": Lab " << fixed(m.lab_mean[0], 1) << " " << fixed(m.lab_mean[1], 1) << " " << fixed(m.lab_mean[2], 1) << ", sd "
                      << fixed(std::sqrt(m.lab_covariance(0, 0)), 1) << " " << fixed(std::sqrt(m.lab_covariance(1, 1)), 1) << " "
                      << fixed(std::sqrt(m.lab_covariance(2, 2)), 1) << " (" << m.pixels << " px)\n";
        }
    } else {
        std::cout << "colours: not calibrated\n";
    }
    return 0;
}

}  // namespace

int run_calibrate(const std::vector<std::string>& argv) {
    if (argv.empty()) return report(invalid("calibrate", "expects a subcommand: print-charuco, print-markers, camera, table, colours, show (see --help)"));
    const std::string sub = argv[0];
    const std::vector<std::string> rest(argv.begin() + 1, argv.end());
    if (sub == "--help" || sub == "-h" || sub == "help") return std::cout << kHelp, 0;
    if (sub == "print-charuco") return print_charuco(rest);
    if (sub == "print-markers") return print_markers(rest);
    if (sub == "camera") return camera(rest);
    if (sub == "table") return table(rest);
    if (sub == "colours" || sub == "colors") return colours(rest);
    if (sub == "show") return show(rest);
    return report(invalid("calibrate", "unknown subcommand '" + sub + "' (print-charuco, print-markers, camera, table, colours, show)"));
}

}  // namespace meeplecam::cli
