// Fuzzes the catalog loader: any text either gives an error naming the source, or a catalog
// whose tiles are self-consistent (every port owned by a feature of the tile, edges packed
// into the rotated signatures, at least one distinct rotation), that refuses merging with
// itself (duplicate ids), and whose bridge variants are either refused or valid tiles.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "engine/catalog.h"
#include "fuzz/fuzz_check.h"

using namespace meeplecam;

namespace {
void check_tile(const TileType& t) {
    for (int p = 0; p < kPorts; ++p) {
        const int f = t.feature_at_port[static_cast<std::size_t>(p)];
        FUZZ_REQUIRE(f >= -1 && f < static_cast<int>(t.features.size()), "ports point at the tile's features");
    }
    FUZZ_REQUIRE(t.signature[0] == pack_edges(t.edges), "signature 0 packs the edges");
    FUZZ_REQUIRE(!t.distinct_rotations.empty(), "a tile has at least one distinct rotation");
    for (int r : t.distinct_rotations) FUZZ_REQUIRE(r >= 0 && r < 4, "rotations are quarter turns 0..3");
    for (const auto& f : t.features) {
        for (Port p : f.ports) FUZZ_REQUIRE(static_cast<int>(p) >= 0 && static_cast<int>(p) < kPorts, "ports exist");
        for (int c : f.cities) FUZZ_REQUIRE(c >= 0 && c < static_cast<int>(t.features.size()), "city links exist");
    }
}
}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    const std::string_view text(reinterpret_cast<const char*>(data), size);
    auto catalog = Catalog::from_text(text, "fuzz-catalog.json");
    if (!catalog) {
        FUZZ_REQUIRE(catalog.error().to_string().starts_with("fuzz-catalog.json"), "errors name the file");
        return 0;
    }
    for (std::size_t i = 0; i < catalog->tiles().size(); ++i) {
        const auto& t = catalog->tiles()[i];
        FUZZ_REQUIRE(t.index == static_cast<int>(i), "tiles know their index");
        FUZZ_REQUIRE(catalog->find(t.id) == &t, "find() returns the tile by id");
        check_tile(t);
        for (int axis = 0; axis < 2; ++axis) {
            auto bridged = with_bridge(t, axis);
            if (bridged) check_tile(bridged.value());
        }
    }
    if (!catalog->tiles().empty()) {
        Catalog copy = catalog.value();
        FUZZ_REQUIRE(!copy.merge(catalog.value()), "merging a catalog with itself is refused (duplicate ids)");
    }
    return 0;
}
