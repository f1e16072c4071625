// Fuzzes the record reader and replay: any text either gives an error naming the source, or a
// record that writes and reads back unchanged and replays with every board invariant checked
// after each tile; a replayed game's totals equal the sum of its score events. Any exception
// escaping (an InvariantError, a JSON type error) is a finding.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "engine/record.h"
#include "fuzz/fuzz_check.h"

using namespace meeplecam;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    const std::string_view text(reinterpret_cast<const char*>(data), size);
    auto record = parse_record_text(text, "fuzz.json");
    if (!record) {
        FUZZ_REQUIRE(record.error().to_string().starts_with("fuzz.json"), "errors name the file");
        return 0;
    }
    const auto written = record->to_json();
    auto again = parse_record(written, "again.json");
    FUZZ_REQUIRE(again.has_value(), "a parsed record reads back after writing");
    FUZZ_REQUIRE(again->to_json() == written, "a record round-trips unchanged");

    ReplayOptions options;
    options.check_consistency = true;
    auto game = replay(record.value(), options);
    if (!game) {
        FUZZ_REQUIRE(!game.error().to_string().empty(), "replay errors say why");
        return 0;
    }
    std::vector<long long> sum(game->players().size(), 0);
    for (const auto& ev : game->score_events()) {
        for (int p : ev.winners) {
            FUZZ_REQUIRE(p >= 0 && p < static_cast<int>(sum.size()), "winners are players");
            sum[static_cast<std::size_t>(p)] += ev.points;
        }
    }
    for (std::size_t p = 0; p < sum.size(); ++p) {
        FUZZ_REQUIRE(sum[p] == game->scores()[p], "totals equal the sum of score events");
    }
    return 0;
}
