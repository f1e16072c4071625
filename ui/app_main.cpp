#include "ui/app_main.h"

#include <QApplication>

#include <cstdlib>
#include <iostream>

#include "engine/record.h"
#include "engine/score_sheet.h"
#include "ui/review_window.h"

namespace meeplecam::ui {
namespace {

constexpr const char* kHelp = R"(usage: meeplecam app [--record FILE] [--screenshot OUT.png]

The desktop assistant. In this build it opens review mode: a match record stepped through
with a slider, the board drawn from the catalog art, the scoreboard, the scoring events and
the score over the turns. Live camera tracking comes with issue 6.

  --record FILE       the match record to open (default: the bundled sample match)
  --screenshot F.png  render the window offscreen to F.png and exit (docs, tests)

With no display (no DISPLAY or WAYLAND_DISPLAY, and QT_QPA_PLATFORM unset) the same record
is replayed headless and its moves and score sheet are printed.
)";

bool has_display() {
    return std::getenv("DISPLAY") || std::getenv("WAYLAND_DISPLAY") || std::getenv("QT_QPA_PLATFORM");
}

}  // namespace

int run_app(const std::string& program, const std::vector<std::string>& argv) {
    std::string record_path = MEEPLECAM_SAMPLE_RECORD, screenshot;
    for (std::size_t i = 0; i < argv.size(); ++i) {
        if (argv[i] == "--help") {
            std::cout << kHelp;
            return 0;
        }
        if ((argv[i] == "--record" || argv[i] == "--screenshot") && i + 1 < argv.size()) {
            (argv[i] == "--record" ? record_path : screenshot) = argv[i + 1];
            ++i;
            continue;
        }
        std::cerr << "meeplecam: app: unknown or incomplete argument '" << argv[i] << "' (see --help)\n";
        return 2;
    }
    auto record = read_record(record_path);
    if (!record) {
        std::cerr << "meeplecam: " << record.error().to_string() << "\n";
        return 2;
    }
    if (!has_display() && screenshot.empty()) {
        auto game = replay(record.value());
        if (!game) {
            std::cerr << "meeplecam: " << record_path << ": " << game.error().to_string() << "\n";
            return static_cast<int>(game.error().kind);
        }
        std::cout << "No display: replaying " << record_path << " headless (" << record->events.size()
                  << " events).\n\n" << format_score_sheet(game.value());
        return 0;
    }
    if (!screenshot.empty() && !std::getenv("QT_QPA_PLATFORM")) setenv("QT_QPA_PLATFORM", "offscreen", 1);
    int qt_argc = 1;
    std::string name = program;
    char* qt_argv[] = {name.data(), nullptr};
    QApplication app(qt_argc, qt_argv);
    ReviewWindow window;
    if (auto st = window.open_record(QString::fromStdString(record_path)); !st) {
        std::cerr << "meeplecam: " << st.error().to_string() << "\n";
        return static_cast<int>(st.error().kind);
    }
    if (!screenshot.empty()) {
        if (!window.grab().save(QString::fromStdString(screenshot))) {
            std::cerr << "meeplecam: cannot write " << screenshot << "\n";
            return 2;
        }
        std::cout << "wrote " << screenshot << "\n";
        return 0;
    }
    window.show();
    return app.exec();
}

}  // namespace meeplecam::ui
