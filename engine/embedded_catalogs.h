// Embedded catalogs: the shipped catalog JSON compiled into the binary.
#pragma once

#include <string_view>
#include <vector>

namespace meeplecam {

struct EmbeddedCatalog {
    std::string_view name;  // file stem, e.g. "carcassonne-base"
    std::string_view text;  // the JSON text
};

// Returns every catalog compiled in from samples/catalogs (generated at build time).
const std::vector<EmbeddedCatalog>& embedded_catalogs();

}  // namespace meeplecam
