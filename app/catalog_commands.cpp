// `meeplecam catalog check FILE`: validates a user's tile catalog and, for the spin-offs whose
// catalogs are provisional (The City, Amazonas), compares its totals with the published game.
#include <iostream>

#include "app/catalog_commands.h"
#include "app/cli_args.h"
#include "engine/catalog.h"
#include "engine/modules/amazonas.h"
#include "engine/modules/city.h"

namespace meeplecam::cli {
namespace {

constexpr const char* kCatalogHelp = R"(usage: meeplecam catalog check FILE

Validates a tile catalog (format in docs/engine.md) and prints its totals. For the spin-offs it
also compares them with the published game:
  The City ("game": "city"): 75 tiles, 64 designs, 32 public and 7 historic buildings, three goods;
  Amazonas ("game": "amazonas"): 65 standard land tiles, 15 Amazon tiles (3 with "!"), 4 Amazon
  doubles, a 2x4 start board and a river mouth.

exit codes: 0 valid (and every known total met); 2 invalid, or a known total differs
)";

int report_error(const Error& e) {
    std::cerr << "meeplecam: " << e.to_string() << "\n";
    return 2;
}

}  // namespace

int run_catalog(const std::vector<std::string>& argv) {
    auto args = parse_args(argv, {}, {"help"});
    if (!args) return report_error(args.error());
    if (args->has("help")) {
        std::cout << kCatalogHelp;
        return 0;
    }
    if (args->positional.size() != 2 || args->positional[0] != "check") {
        return report_error(invalid("catalog", "expects: catalog check FILE (see --help)"));
    }
    auto catalog = Catalog::load_file(args->positional[1]);
    if (!catalog) return report_error(catalog.error());
    int tiles = 0;
    for (const TileType& t : catalog->tiles()) tiles += t.count;
    std::cout << args->positional[1] << ": valid " << catalog->game() << " catalog, " << catalog->tiles().size()
              << " designs, " << tiles << " tiles" << (catalog->provisional() ? " (PROVISIONAL)" : "") << "\n";
    if (catalog->game() == "city") {
        const CityCatalogTotals totals = city_catalog_totals(catalog.value());
        std::cout << "  public buildings " << totals.public_buildings << ", historic buildings "
                  << totals.historic_copies << " (" << totals.historic.size() << " names), goods "
                  << totals.goods.size() << ", tiles with streets " << totals.street_tiles << "\n";
        for (const auto& d : totals.differences) std::cout << "  differs: " << d << "\n";
        if (!totals.differences.empty()) {
            std::cerr << "meeplecam: " << args->positional[1] << ": " << totals.differences.size()
                      << " total(s) differ from the published City\n";
            return 2;
        }
        std::cout << "  every known total of the published City is met\n";
        return 0;
    }
    if (catalog->game() != "amazonas") return 0;
    const AmazonasCatalogTotals t = amazonas_catalog_totals(catalog.value());
    std::cout << "  standard " << t.standard << ", Amazon " << t.amazon << " (\"!\" " << t.exclaim << "), doubles "
              << t.doubles << ", start-board cells " << t.start_cells << ", mouths " << t.mouths << "\n"
              << "  icons: boats " << t.boats << ", fruit " << t.fruit << ", animals " << t.animals << ", caimans "
              << t.caimans << ", piranhas " << t.piranhas << "\n";
    for (const auto& d : t.differences) std::cout << "  differs: " << d << "\n";
    if (!t.differences.empty()) {
        std::cerr << "meeplecam: " << args->positional[1] << ": " << t.differences.size()
                  << " total(s) differ from the published Amazonas\n";
        return 2;
    }
    std::cout << "  every known total of the published Amazonas is met\n";
    return 0;
}

}  // namespace meeplecam::cli
