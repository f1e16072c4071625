// Fuzzes the calibration file loader: any text either gives an error naming the source, or a
// calibration that writes and reads back to the same document (what save_calibration writes
// is what load_calibration reads).
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "calibration/calibration_file.h"
#include "fuzz/fuzz_check.h"

using namespace meeplecam;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    const std::string_view text(reinterpret_cast<const char*>(data), size);
    auto cal = calibration::parse_calibration(text, "fuzz-calibration.json");
    if (!cal) {
        FUZZ_REQUIRE(cal.error().to_string().starts_with("fuzz-calibration.json"), "errors name the file");
        return 0;
    }
    const auto written = calibration::calibration_to_json(cal.value());
    auto again = calibration::parse_calibration(written.dump(), "again.json");
    if (!again) std::fprintf(stderr, "re-read: %s\n", again.error().to_string().c_str());
    FUZZ_REQUIRE(again.has_value(), "a parsed calibration reads back after writing");
    FUZZ_REQUIRE(calibration::calibration_to_json(again.value()) == written, "a calibration round-trips unchanged");
    return 0;
}
