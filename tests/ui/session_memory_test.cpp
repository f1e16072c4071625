// Memory over a looped live session: the app's capture thread, match worker (tracker +
// journal) and live window over rendered footage, a new match every lap. After the warm-up
// laps the resident memory at each match restart must stay within a tolerance (a cache that
// keeps something per move or per match, frames queued without bound, widgets never deleted
// all show as growth lap after lap). Not timed: the session runs on a simulated clock.
#include <catch2/catch.hpp>

#include <QDir>
#include <QFile>

#include <cmath>
#include <cstdlib>
#include <fstream>
#include <string>

#include <nlohmann/json.hpp>

#include "engine/record.h"
#include "session/footage.h"
#include "tests/ui/looped_session.h"
#include "tests/ui/qt_app.h"

using namespace meeplecam;

namespace {

// Renders 960x540 footage of the first `events` events of the sample match once (kept in the build folder).
std::string footage_of_sample(std::size_t events) {
    const std::string dir = std::string(MEEPLECAM_BINARY_DIR) + "/ui_memory_footage_" + std::to_string(events);
    if (QFile::exists(QString::fromStdString(dir + "/truth.json"))) return dir;
    auto match = read_record(std::string(MEEPLECAM_SOURCE_DIR) + "/samples/matches/sample-2p.json");
    REQUIRE(match);
    match->events.resize(events);
    match->finished = false;
    session::FootageOptions fo;
    fo.width = 960;
    fo.height = 540;
    REQUIRE(session::write_footage(match.value(), fo, dir));
    return dir;
}

int env_int(const char* name, int fallback) {
    const char* v = std::getenv(name);
    return v && *v ? std::atoi(v) : fallback;
}

}  // namespace

TEST_CASE("a looped live session's memory stays flat after warm-up", "[ui][memory]") {
    test::qt_app();
    // Laps after the warm-up; MEEPLECAM_MEMORY_LAPS scales it (fewer under the sanitizers).
    const int warmup_laps = 3;
    const int measured_laps = std::max(2, env_int("MEEPLECAM_MEMORY_LAPS", 6));
    // Per-lap growth allowed: allocator noise is well under 1 MB a lap at this frame size;
    // the TileArtCache keyed by address (each move's replay made a new catalog) grew ~4 MB a lap.
    const double tolerance_mb_per_lap = 1.0;

    test::LoopedSessionOptions o;
    o.footage = footage_of_sample(9);
    o.fps = 10;
    o.simulated_clock = true;
    o.laps = warmup_laps + measured_laps;
    o.sample_every_s = 1e9;  // lap starts only
    o.journal = test::fresh_dir("session_memory") + "/m.journal";
    auto r = test::run_looped_session(o);
    REQUIRE(r);
    CHECK(r->frames_skipped == 0);
    CHECK(r->frames_shown == r->frames_sent);
    // The tracker worked every lap (the loop is a real session, not idle frames).
    CHECK(r->events >= static_cast<std::size_t>(o.laps) * r->events_per_lap * 9 / 10);

    // Resident memory (what the user sees; allocator retention included) and the heap in use
    // (every block not freed: leaks and caches), at the same point of every lap. Under
    // AddressSanitizer RSS is mostly its quarantine of freed blocks: the heap only.
#if defined(__SANITIZE_ADDRESS__)
    const bool check_rss = false;
#else
    const bool check_rss = true;
#endif
    std::vector<double> lap_rss, lap_heap;
    for (const auto& s : r->samples) {
        if (!s.lap_start) continue;
        lap_rss.push_back(s.rss_mb);
        lap_heap.push_back(s.heap_mb);
    }
    REQUIRE(lap_rss.size() == static_cast<std::size_t>(o.laps));
    const std::size_t first = static_cast<std::size_t>(warmup_laps);
    const double allowed = tolerance_mb_per_lap * static_cast<double>(lap_rss.size() - 1 - first);
    auto trace = [](const std::vector<double>& v) {
        std::string out;
        for (double mb : v) out += std::to_string(std::round(mb * 10) / 10.0).substr(0, 6) + " ";
        return out;
    };
    INFO("RSS at each match restart (MB): " << trace(lap_rss));
    INFO("heap in use at each match restart (MB): " << trace(lap_heap));
    INFO("allowed growth after warm-up: " << allowed << " MB");
    CHECK(lap_heap.back() - lap_heap[first] <= allowed);
    if (check_rss) CHECK(lap_rss.back() - lap_rss[first] <= allowed);
    // The heap in use alone is steadier than RSS (no frames in flight at a restart): a slow
    // leak shows there long before RSS moves. The scoreboard's swatches, re-made at every
    // repaint, grew it by ~28 KB a lap of this footage; what is left grows ~1-3 KB a lap
    // (Qt's connection lists and glyph cache, cleaned lazily). Not under the sanitizers: their
    // allocator counts differently and runs fewer laps.
    if (check_rss) {
        const double heap_kb_per_lap = (lap_heap.back() - lap_heap[first]) * 1024.0 / static_cast<double>(lap_heap.size() - 1 - first);
        INFO("heap growth after warm-up: " << heap_kb_per_lap << " KB a lap");
        CHECK(heap_kb_per_lap <= 10.0);
    }
}
