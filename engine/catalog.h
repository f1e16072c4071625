// Catalog: tile types as data (ports, features, pennants, counts), loaded and validated.
#pragma once

#include <array>
#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "engine/error.h"
#include "engine/ports.h"

namespace meeplecam {

// Street, Market and Residential are the areas of Carcassonne — The City (game "city"); a City
// tile uses only those three kinds.
enum class FeatureKind : std::uint8_t { Road, City, Field, Monastery, Lake, Street, Market, Residential };

// Returns "road", "city", "field", "monastery", "lake", "street", "market", "residential".
std::string_view feature_kind_name(FeatureKind kind);

// What a tile side shows; two touching sides must show the same kind.
// The City: a side with a street shows Street; every other side shows Plain (market and
// residential halves need not match, so they share one edge kind).
enum class EdgeKind : std::uint8_t { None = 0, Field = 1, Road = 2, City = 3, Street = 4, Plain = 5 };

std::string_view edge_kind_name(EdgeKind kind);

// Bits per side in a packed edge signature (4 sides x 4 bits).
inline constexpr int kEdgeBits = 4;

// True for the feature kinds of Carcassonne — The City.
constexpr bool is_city_family_kind(FeatureKind k) {
    return k == FeatureKind::Street || k == FeatureKind::Market || k == FeatureKind::Residential;
}

// The goods a City market may sell (a market feature carries exactly one as a tag).
inline constexpr std::array<std::string_view, 3> kCityGoods = {"livestock", "grain", "fish"};

// Packs four edge kinds (N, E, S, W) into one 16-bit signature.
constexpr std::uint16_t pack_edges(const std::array<EdgeKind, 4>& edges) {
    std::uint16_t sig = 0;
    for (int s = 0; s < 4; ++s) sig |= static_cast<std::uint16_t>(static_cast<int>(edges[s]) << (kEdgeBits * s));
    return sig;
}

// One feature of a tile type, in catalog orientation (rotation 0).
struct FeatureDef {
    FeatureKind kind = FeatureKind::Field;
    std::vector<Port> ports;        // side ports and/or kCentre
    int pennants = 0;               // city pennants (coats of arms)
    std::vector<int> cities;        // fields: indices of the city features of this tile they touch;
                                    // residential areas (the City, JSON "markets"): the markets they touch
    std::vector<std::string> tags;  // rule-module data, e.g. "no-castle", "inn"
    std::uint8_t side_mask = 0;     // bit s set when the feature owns a port on side s

    bool has_tag(std::string_view tag) const;
};

// A tile type: its features, which feature owns each port, its edges and counts.
struct TileType {
    std::string id;
    int index = -1;                            // position in Catalog::tiles()
    std::string set;                           // the catalog set it came from ("base", ...)
    int count = 0;                             // copies in the default edition
    std::map<std::string, int> edition_counts; // per-edition counts, when they differ
    std::vector<FeatureDef> features;
    std::array<std::int8_t, kPorts> feature_at_port{};  // -1 where no feature owns the port
    std::array<EdgeKind, 4> edges{};                    // N, E, S, W at rotation 0
    std::array<std::uint16_t, 4> signature{};           // packed edges at rotation r (quarter turns)
    std::vector<int> distinct_rotations;                // quarter turns giving distinct placed tiles
    std::vector<std::string> tags;                      // e.g. "bazaar"

    // Returns the number of copies in `edition` (falls back to the default count).
    int count_in(std::string_view edition) const;
    // Returns the edge kind on board side `board_side` (0 N, 1 E, 2 S, 3 W) when the tile is turned
    // by `rot` quarter turns clockwise (any integers: taken modulo 4).
    EdgeKind edge_at(int rot, int board_side) const { return edges[static_cast<std::size_t>((((board_side - rot) % 4) + 4) % 4)]; }
    // Returns the feature index owning board port `p` when the tile is turned by `rot` quarter turns.
    int feature_at(Port board_port, int rot) const {
        return feature_at_port[rotate_port(board_port, -rot)];
    }
    bool has_tag(std::string_view tag) const;
};

// Returns `base` with a bridge: a road feature (tag "bridge") joining the middle ports of two
// opposite field sides, `catalog_axis` 0 = N-S, 1 = E-W in catalog orientation. The fields keep
// their halves (they pass under the bridge); existing features keep their indices. Refuses a
// side that is not field and a second bridge (bridges never cross).
Result<TileType> with_bridge(const TileType& base, int catalog_axis);

// A set of tile types from one or more catalog files.
class Catalog {
public:
    // Parses and validates a catalog document; `source` names it in errors.
    static Result<Catalog> from_json(const nlohmann::json& doc, const std::string& source);
    // Parses catalog JSON text.
    static Result<Catalog> from_text(std::string_view text, const std::string& source);
    // Reads a catalog file from disk.
    static Result<Catalog> load_file(const std::string& path);
    // Returns a catalog compiled into the binary, e.g. "carcassonne-base".
    static Result<Catalog> embedded(std::string_view name);
    // Lists the names of the embedded catalogs.
    static std::vector<std::string> embedded_names();

    // Adds the tiles of `other` (an expansion); fails on a duplicate tile id.
    Status merge(const Catalog& other);

    const std::vector<TileType>& tiles() const { return tiles_; }
    const TileType* find(std::string_view id) const;
    const std::string& game() const { return game_; }
    const std::string& start_tile() const { return start_tile_; }
    const std::vector<std::string>& sets() const { return sets_; }
    // True when the catalog says `"provisional": true`: authored without a public tile list (the
    // City, Amazonas), to be corrected by a user who owns the game. Never present it as official.
    bool provisional() const { return provisional_; }

private:
    std::string game_;
    std::string start_tile_;
    bool provisional_ = false;
    std::vector<std::string> sets_;
    std::vector<TileType> tiles_;
    std::map<std::string, int, std::less<>> by_id_;
};

}  // namespace meeplecam
