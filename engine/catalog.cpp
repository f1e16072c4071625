#include "engine/catalog.h"

#include <algorithm>
#include <fstream>
#include <set>
#include <sstream>

#include <nlohmann/json.hpp>

#include "engine/embedded_catalogs.h"
#include "engine/json_text.h"

namespace meeplecam {
namespace {

using nlohmann::json;

struct KindInfo {
    std::string_view name;
    FeatureKind kind;
};
constexpr std::array<KindInfo, 8> kKinds = {{{"road", FeatureKind::Road},
                                              {"city", FeatureKind::City},
                                              {"field", FeatureKind::Field},
                                              {"monastery", FeatureKind::Monastery},
                                              {"lake", FeatureKind::Lake},
                                              // Carcassonne — The City
                                              {"street", FeatureKind::Street},
                                              {"market", FeatureKind::Market},
                                              {"residential", FeatureKind::Residential}}};

// Returns a short key describing a tile's structure under rotation `rot`, used to drop
// rotations that give the same placed tile (symmetric tiles).
std::string rotation_key(const TileType& t, int rot) {
    std::string key;
    std::vector<int> renumber(t.features.size(), -1);
    int next = 0;
    for (Port p = 0; p < kPorts; ++p) {
        const int f = t.feature_at(p, rot);
        if (f < 0) {
            key += "-;";
            continue;
        }
        if (renumber[f] < 0) renumber[f] = next++;
        const FeatureDef& def = t.features[f];
        key += std::to_string(renumber[f]) + ":" + std::string(feature_kind_name(def.kind)) + "/" +
               std::to_string(def.pennants);
        for (const auto& tag : def.tags) key += "," + tag;
        for (int c : def.cities) key += "|c" + std::to_string(c);
        key += ";";
    }
    return key;
}

Result<int> parse_count(const json& value, const std::string& where,
                        std::map<std::string, int>& edition_counts) {
    if (value.is_number_integer() && value.get<long long>() >= 0 && value.get<long long>() < 1000) {
        return static_cast<int>(value.get<long long>());
    }
    if (value.is_object() && !value.empty()) {
        int fallback = -1;
        for (const auto& [edition, n] : value.items()) {
            if (!n.is_number_integer() || n.get<long long>() < 0 || n.get<long long>() >= 1000) {
                return invalid(where, "count for edition '" + edition + "' must be an integer 0..999");
            }
            edition_counts[edition] = static_cast<int>(n.get<long long>());
            fallback = edition_counts[edition];
        }
        auto c3 = edition_counts.find("C3");
        return c3 != edition_counts.end() ? c3->second : fallback;
    }
    return invalid(where, "'count' must be a non-negative integer or an object {edition: count}");
}

Result<FeatureDef> parse_feature(const json& jf, const std::string& where) {
    if (!jf.is_object()) return invalid(where, "a feature must be an object");
    FeatureDef def;
    if (!jf.contains("kind") || !jf["kind"].is_string()) return invalid(where, "missing string 'kind'");
    const std::string kind = jf["kind"].get<std::string>();
    auto it = std::find_if(kKinds.begin(), kKinds.end(), [&](const KindInfo& k) { return k.name == kind; });
    if (it == kKinds.end()) return invalid(where, "unknown feature kind '" + kind + "'");
    def.kind = it->kind;
    if (!jf.contains("ports") || !jf["ports"].is_array() || jf["ports"].empty()) {
        return invalid(where, "'ports' must be a non-empty array of port names");
    }
    for (const auto& jp : jf["ports"]) {
        if (!jp.is_string()) return invalid(where, "port names must be strings");
        auto port = parse_port(jp.get<std::string>());
        if (!port) return invalid(where, "unknown port '" + jp.get<std::string>() + "'");
        def.ports.push_back(*port);
        if (*port != kCentre) def.side_mask |= static_cast<std::uint8_t>(1u << side_of(*port));
    }
    if (jf.contains("pennants")) {
        if (!jf["pennants"].is_number_integer() || jf["pennants"].get<int>() < 0) {
            return invalid(where, "'pennants' must be a non-negative integer");
        }
        def.pennants = jf["pennants"].get<int>();
        if (def.pennants > 0 && def.kind != FeatureKind::City) return invalid(where, "only cities have pennants");
    }
    if (jf.contains("cities")) {
        if (!jf["cities"].is_array()) return invalid(where, "'cities' must be an array of feature indices");
        if (def.kind != FeatureKind::Field) return invalid(where, "only fields list the cities they touch");
        for (const auto& jc : jf["cities"]) {
            if (!jc.is_number_integer()) return invalid(where, "'cities' entries must be feature indices");
            def.cities.push_back(jc.get<int>());
        }
    }
    if (jf.contains("markets")) {  // The City: residential areas list the markets of the tile they touch
        if (!jf["markets"].is_array()) return invalid(where, "'markets' must be an array of feature indices");
        if (def.kind != FeatureKind::Residential) return invalid(where, "only residential areas list the markets they touch");
        for (const auto& jc : jf["markets"]) {
            if (!jc.is_number_integer()) return invalid(where, "'markets' entries must be feature indices");
            def.cities.push_back(jc.get<int>());
        }
    }
    if (jf.contains("tags")) {
        if (!jf["tags"].is_array()) return invalid(where, "'tags' must be an array of strings");
        for (const auto& jt : jf["tags"]) {
            if (!jt.is_string()) return invalid(where, "'tags' must be an array of strings");
            def.tags.push_back(jt.get<std::string>());
        }
    }
    return def;
}

Status finish_city_sides(TileType& t, const std::string& where);
Status finish_classic_sides(TileType& t, const std::string& where);
Status finish_rotations(TileType& t);

// Checks the tile's ports, derives edges, signatures and distinct rotations.
Status finish_tile(TileType& t, const std::string& where) {
    t.feature_at_port.fill(-1);
    for (std::size_t f = 0; f < t.features.size(); ++f) {
        const FeatureDef& def = t.features[f];
        for (Port p : def.ports) {
            if (t.feature_at_port[p] >= 0) {
                return invalid(where, "port " + std::string(port_name(p)) + " belongs to two features");
            }
            t.feature_at_port[p] = static_cast<std::int8_t>(f);
        }
        const FeatureKind listed = def.kind == FeatureKind::Residential ? FeatureKind::Market : FeatureKind::City;
        for (int c : def.cities) {
            if (c < 0 || c >= static_cast<int>(t.features.size()) || t.features[c].kind != listed) {
                if (listed == FeatureKind::Market) {
                    return invalid(where, "residential area " + std::to_string(f) + " lists " + std::to_string(c) +
                                              ", which is not a market feature of this tile");
                }
                return invalid(where, "field " + std::to_string(f) + " lists " + std::to_string(c) +
                                          ", which is not a city feature of this tile");
            }
        }
        const bool centre_only = def.ports.size() == 1 && def.ports[0] == kCentre;
        if ((def.kind == FeatureKind::Monastery || def.kind == FeatureKind::Lake) && !centre_only) {
            return invalid(where, std::string(feature_kind_name(def.kind)) + " must own exactly the centre port C");
        }
    }
    if (std::any_of(t.features.begin(), t.features.end(), [](const FeatureDef& d) { return is_city_family_kind(d.kind); })) {
        return finish_city_sides(t, where);
    }
    return finish_classic_sides(t, where);
}

// The City: only streets must match across a side. A side's middle port is a street or belongs
// to a market/residential area; its halves are market or residential; markets sell one good.
Status finish_city_sides(TileType& t, const std::string& where) {
    for (std::size_t f = 0; f < t.features.size(); ++f) {
        const FeatureDef& def = t.features[f];
        const std::string name = "feature " + std::to_string(f) + " (" + std::string(feature_kind_name(def.kind)) + ")";
        if (!is_city_family_kind(def.kind)) {
            return invalid(where, name + ": a City tile may only have street, market and residential features");
        }
        if (def.kind == FeatureKind::Market) {
            // One good, or several when markets of different goods touch on the tile (they merge).
            std::set<std::string> goods;
            for (const auto& tag : def.tags) {
                if (std::find(kCityGoods.begin(), kCityGoods.end(), tag) != kCityGoods.end()) goods.insert(tag);
            }
            if (goods.empty()) return invalid(where, name + " sells no good: tag it livestock, grain or fish");
        }
        if (def.kind == FeatureKind::Street) {
            for (Port p : def.ports) {
                if (p != kCentre && p % 3 != 1) {
                    return invalid(where, name + ": streets may only leave a tile at a side middle, not at " +
                                              std::string(port_name(p)));
                }
            }
        }
    }
    for (int s = 0; s < 4; ++s) {
        for (int k = 0; k < 3; ++k) {
            const Port p = static_cast<Port>(3 * s + k);
            if (t.feature_at_port[p] < 0) return invalid(where, "port " + std::string(port_name(p)) + " belongs to no feature");
        }
        const Port mid = static_cast<Port>(3 * s + 1);
        t.edges[s] = t.features[t.feature_at_port[mid]].kind == FeatureKind::Street ? EdgeKind::Street : EdgeKind::Plain;
    }
    return finish_rotations(t);
}

Status finish_classic_sides(TileType& t, const std::string& where) {
    for (int s = 0; s < 4; ++s) {
        const Port left = static_cast<Port>(3 * s), mid = static_cast<Port>(3 * s + 1),
                   right = static_cast<Port>(3 * s + 2);
        for (Port p : {left, mid, right}) {
            if (t.feature_at_port[p] < 0) {
                return invalid(where, "port " + std::string(port_name(p)) + " belongs to no feature");
            }
        }
        auto kind_at = [&](Port p) { return t.features[t.feature_at_port[p]].kind; };
        const FeatureKind m = kind_at(mid);
        if (m == FeatureKind::City) {
            if (kind_at(left) != FeatureKind::City || kind_at(right) != FeatureKind::City) {
                return invalid(where, "side " + std::string(port_name(mid)) + " mixes city with other terrain");
            }
            t.edges[s] = EdgeKind::City;
        } else if (m == FeatureKind::Road || m == FeatureKind::Field) {
            if (kind_at(left) != FeatureKind::Field || kind_at(right) != FeatureKind::Field) {
                return invalid(where, "side " + std::string(port_name(mid)) + ": the halves beside a " +
                                          std::string(feature_kind_name(m)) + " must be field");
            }
            t.edges[s] = m == FeatureKind::Road ? EdgeKind::Road : EdgeKind::Field;
        } else {
            return invalid(where, "side " + std::string(port_name(mid)) + " cannot be " +
                                      std::string(feature_kind_name(m)));
        }
    }
    return finish_rotations(t);
}

// Derives the packed signatures and the distinct rotations from the tile's edges.
Status finish_rotations(TileType& t) {
    for (int r = 0; r < 4; ++r) {
        std::array<EdgeKind, 4> rotated{};
        for (int s = 0; s < 4; ++s) rotated[(s + r) % 4] = t.edges[s];
        t.signature[r] = pack_edges(rotated);
    }
    std::set<std::string> seen;
    for (int r = 0; r < 4; ++r) {
        if (seen.insert(rotation_key(t, r)).second) t.distinct_rotations.push_back(r);
    }
    return Ok{};
}

}  // namespace

std::string_view feature_kind_name(FeatureKind kind) {
    for (const auto& k : kKinds) {
        if (k.kind == kind) return k.name;
    }
    return "?";
}

std::string_view edge_kind_name(EdgeKind kind) {
    switch (kind) {
        case EdgeKind::None: return "nothing";
        case EdgeKind::Field: return "field";
        case EdgeKind::Road: return "road";
        case EdgeKind::City: return "city";
        case EdgeKind::Street: return "street";
        case EdgeKind::Plain: return "no street";
    }
    return "?";
}

bool FeatureDef::has_tag(std::string_view tag) const {
    return std::find(tags.begin(), tags.end(), tag) != tags.end();
}

bool TileType::has_tag(std::string_view tag) const {
    return std::find(tags.begin(), tags.end(), tag) != tags.end();
}

int TileType::count_in(std::string_view edition) const {
    auto it = edition_counts.find(std::string(edition));
    return it != edition_counts.end() ? it->second : count;
}

Result<TileType> with_bridge(const TileType& base, int catalog_axis) {
    const std::string where = "bridge on tile " + base.id;
    for (const FeatureDef& f : base.features) {
        if (f.has_tag("bridge")) return illegal(where, "the tile already has a bridge (bridges never cross)");
    }
    const int side_a = catalog_axis == 0 ? 0 : 1;
    const int side_b = side_a + 2;
    for (int side : {side_a, side_b}) {
        if (base.edges[side] != EdgeKind::Field) {
            return illegal(where, "both ends of a bridge must lie on field sides; side " +
                                      std::string(port_name(static_cast<Port>(3 * side + 1))) + " is " +
                                      std::string(edge_kind_name(base.edges[side])));
        }
    }
    TileType t = base;
    t.distinct_rotations.clear();
    FeatureDef bridge;
    bridge.kind = FeatureKind::Road;
    bridge.tags.push_back("bridge");
    for (int side : {side_a, side_b}) {
        const Port mid = static_cast<Port>(3 * side + 1);
        FeatureDef& field = t.features[t.feature_at_port[mid]];
        field.ports.erase(std::remove(field.ports.begin(), field.ports.end(), mid), field.ports.end());
        bridge.ports.push_back(mid);
        bridge.side_mask |= static_cast<std::uint8_t>(1u << side);
    }
    // Recompute each field's side mask: a field that owned only the middle port leaves that side.
    for (FeatureDef& f : t.features) {
        f.side_mask = 0;
        for (Port p : f.ports) {
            if (p != kCentre) f.side_mask |= static_cast<std::uint8_t>(1u << side_of(p));
        }
        if (f.ports.empty()) return illegal(where, "a feature would vanish under the bridge");
    }
    t.features.push_back(std::move(bridge));
    t.tags.push_back(catalog_axis == 0 ? "bridge-ns" : "bridge-ew");
    if (auto st = finish_tile(t, where); !st) return st.error();
    return t;
}

Result<Catalog> Catalog::from_json(const json& doc, const std::string& source) {
    if (!doc.is_object()) return invalid(source, "a catalog must be a JSON object");
    if (!doc.contains("format") || !doc["format"].is_string() || doc["format"].get<std::string>() != "meeplecam-catalog") {
        return invalid(source, "'format' must be \"meeplecam-catalog\"");
    }
    if (!doc.contains("version") || !doc["version"].is_number_integer() || doc["version"].get<int>() != 1) {
        return invalid(source, "unsupported catalog 'version' (this build reads version 1)");
    }
    Catalog cat;
    if (!doc.contains("game") || !doc["game"].is_string()) return invalid(source, "missing string 'game'");
    cat.game_ = doc["game"].get<std::string>();
    const std::string set = doc.contains("set") && doc["set"].is_string() ? doc["set"].get<std::string>() : "";
    cat.sets_.push_back(set);
    if (doc.contains("provisional")) {  // not the official tile list (the City, Amazonas: no public list exists)
        if (!doc["provisional"].is_boolean()) return invalid(source, "'provisional' must be true or false");
        cat.provisional_ = doc["provisional"].get<bool>();
    }
    if (doc.contains("start_tile")) {
        if (!doc["start_tile"].is_string()) return invalid(source, "'start_tile' must be a tile id");
        cat.start_tile_ = doc["start_tile"].get<std::string>();
    }
    if (!doc.contains("tiles") || !doc["tiles"].is_array() || doc["tiles"].empty()) {
        return invalid(source, "'tiles' must be a non-empty array");
    }
    for (std::size_t i = 0; i < doc["tiles"].size(); ++i) {
        const json& jt = doc["tiles"][i];
        std::string where = source + ": tiles[" + std::to_string(i) + "]";
        if (!jt.is_object() || !jt.contains("id") || !jt["id"].is_string() || jt["id"].get<std::string>().empty()) {
            return invalid(where, "each tile needs a non-empty string 'id'");
        }
        TileType t;
        t.id = jt["id"].get<std::string>();
        t.set = set;
        where += " (" + t.id + ")";
        if (cat.by_id_.count(t.id)) return invalid(where, "duplicate tile id '" + t.id + "'");
        if (!jt.contains("count")) return invalid(where, "missing 'count'");
        auto count = parse_count(jt["count"], where, t.edition_counts);
        if (!count) return count.error();
        t.count = count.value();
        if (!jt.contains("features") || !jt["features"].is_array() || jt["features"].empty()) {
            return invalid(where, "'features' must be a non-empty array");
        }
        for (std::size_t f = 0; f < jt["features"].size(); ++f) {
            auto def = parse_feature(jt["features"][f], where + ": features[" + std::to_string(f) + "]");
            if (!def) return def.error();
            t.features.push_back(std::move(def.value()));
        }
        if (jt.contains("tags")) {
            if (!jt["tags"].is_array()) return invalid(where, "'tags' must be an array of strings");
            for (const auto& tag : jt["tags"]) {
                if (!tag.is_string()) return invalid(where, "'tags' must be an array of strings");
                t.tags.push_back(tag.get<std::string>());
            }
        }
        if (auto st = finish_tile(t, where); !st) return st.error();
        t.index = static_cast<int>(cat.tiles_.size());
        cat.by_id_[t.id] = t.index;
        cat.tiles_.push_back(std::move(t));
    }
    if (!cat.start_tile_.empty() && !cat.find(cat.start_tile_)) {
        return invalid(source, "'start_tile' names unknown tile '" + cat.start_tile_ + "'");
    }
    return cat;
}

Result<Catalog> Catalog::from_text(std::string_view text, const std::string& source) {
    auto doc = parse_json_text(text, source);
    if (!doc) return doc.error();
    return from_json(doc.value(), source);
}

Result<Catalog> Catalog::load_file(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    if (!in) return invalid(path, "cannot open catalog file");
    std::ostringstream text;
    text << in.rdbuf();
    return from_text(text.str(), path);
}

Result<Catalog> Catalog::embedded(std::string_view name) {
    for (const auto& entry : embedded_catalogs()) {
        if (entry.name == name) return from_text(entry.text, "embedded catalog " + std::string(name));
    }
    return invalid("catalog", "no embedded catalog named '" + std::string(name) + "'");
}

std::vector<std::string> Catalog::embedded_names() {
    std::vector<std::string> names;
    for (const auto& entry : embedded_catalogs()) names.emplace_back(entry.name);
    return names;
}

Status Catalog::merge(const Catalog& other) {
    if (!game_.empty() && other.game_ != game_) {
        return invalid("catalog", "cannot merge a '" + other.game_ + "' catalog into a '" + game_ + "' one");
    }
    for (const TileType& t : other.tiles_) {
        if (by_id_.count(t.id)) return invalid("catalog", "duplicate tile id '" + t.id + "' when merging");
    }
    for (TileType t : other.tiles_) {
        t.index = static_cast<int>(tiles_.size());
        by_id_[t.id] = t.index;
        tiles_.push_back(std::move(t));
    }
    sets_.insert(sets_.end(), other.sets_.begin(), other.sets_.end());
    provisional_ = provisional_ || other.provisional_;
    if (start_tile_.empty()) start_tile_ = other.start_tile_;
    return Ok{};
}

const TileType* Catalog::find(std::string_view id) const {
    auto it = by_id_.find(id);
    return it == by_id_.end() ? nullptr : &tiles_[it->second];
}

}  // namespace meeplecam
