// meeplecam: the command line. Every pipeline runs headless from here.
#include <exception>
#include <iostream>
#include <string>
#include <vector>

#include "app/calibrate_commands.h"
#include "app/catalog_commands.h"
#include "app/engine_commands.h"
#include "app/session_commands.h"
#ifdef MEEPLECAM_WITH_UI
#include "ui/app_main.h"
#endif
#include "app/photo_commands.h"
#include "app/tile_commands.h"
#include "app/vision_commands.h"
#include "vision/frame_memory.h"

namespace {

constexpr const char* kHelp = R"(meeplecam — reads a Carcassonne table through a camera, checks and scores the game.

usage: meeplecam COMMAND [ARGS]   (meeplecam COMMAND --help for details)

commands:
  score  RECORD.json [--json]                 replay a match record and print the score sheet
  legal  RECORD.json --tile ID [--json]       legal placements of a tile (and follower spots)
  random-game [--seed N] -o OUT.json          write a legal random game (demos, tests)
  catalog check FILE                          validate a tile catalog (City, Amazonas: totals vs the published game)
  render SCENE.json -o OUT.png [--seed N] [--preset P]
                                              synthetic photo of the board + ground truth
  app [--camera N | --images DIR | --video F] [--record FILE]   the desktop assistant (live or review), or headless
  classify-tile IMAGE --game G [--library F] [--json]
                                              one tile photo -> type, rotation, confidence
  learn-tiles IMAGE... --layout L -o LIB.json learn your tiles' look for classify-tile
  recognize IMAGE... [--json]                 read the board (tiles, types, rotations) in photos
  calibrate SUBCOMMAND                        print targets; calibrate camera, table plane, colours
  render-footage RECORD.json -o DIR [--seed N] [--preset P]
                                              a whole match as camera frames (hands, stills) + truth
  track --images DIR | --video F (--truth-camera T | --calibration C) -o OUT.json [--journal F]
                                              the live tracker, headless: frames -> record + scores
  score-photo IMAGE --players red,blue [--json] [--overlay OUT.png]
                                              final score of a finished table from one photo
  version                                     print the version

exit codes: 0 ok; 1 internal error; 2 unreadable or invalid input; 3 illegal move in a record
)";

}  // namespace

int main(int argc, char** argv) {
    meeplecam::vision::keep_frame_buffers();  // frame after frame (track, app): reuse the large image buffers
    try {
        std::vector<std::string> args(argv + 1, argv + argc);
        if (args.empty() || args[0] == "--help" || args[0] == "-h" || args[0] == "help") {
            std::cout << kHelp;
            return args.empty() ? 2 : 0;
        }
        const std::string command = args[0];
        args.erase(args.begin());
        if (command == "score") return meeplecam::cli::run_score(args);
        if (command == "legal") return meeplecam::cli::run_legal(args);
        if (command == "catalog") return meeplecam::cli::run_catalog(args);
        if (command == "random-game") return meeplecam::cli::run_random_game(args);
        if (command == "render") return meeplecam::cli::run_render(args);
        if (command == "app") {
#ifdef MEEPLECAM_WITH_UI
            return meeplecam::ui::run_app(argv[0], args);
#else
            std::cerr << "meeplecam: this build has no desktop layer (configured with MEEPLECAM_BUILD_UI=OFF)\n";
            return 2;
#endif
        }
        if (command == "classify-tile") return meeplecam::cli::run_classify_tile(args);
        if (command == "learn-tiles") return meeplecam::cli::run_learn_tiles(args);
        if (command == "recognize") return meeplecam::cli::run_recognize(args);
        if (command == "calibrate") return meeplecam::cli::run_calibrate(args);
        if (command == "render-footage") return meeplecam::cli::run_render_footage(args);
        if (command == "track") return meeplecam::cli::run_track(args);
        if (command == "score-photo") return meeplecam::cli::run_score_photo(args);
        if (command == "version" || command == "--version") {
            std::cout << "meeplecam " << MEEPLECAM_VERSION << "\n";
            return 0;
        }
        std::cerr << "meeplecam: unknown command '" << command << "' (see meeplecam --help)\n";
        return 2;
    } catch (const std::exception& e) {
        std::cerr << "meeplecam: internal error: " << e.what() << "\n";
        return 1;
    }
}
