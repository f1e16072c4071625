#include "engine/rule_module.h"

#include "engine/game.h"
#include "engine/modules/amazonas.h"
#include "engine/modules/bridges.h"
#include "engine/modules/castles.h"
#include "engine/modules/bazaars.h"
#include "engine/modules/ferries.h"

namespace meeplecam {

Status RuleModule::apply_event(Game& /*game*/, const Event& event, const std::string& where) {
    return invalid(where, "module " + std::string(name()) + " does not handle '" + event.type + "' events");
}

Status RuleModule::configure(const nlohmann::json& options) {
    if (!options.is_object() || !options.empty()) {
        return invalid("options", "expansion " + std::string(name()) + " has no options (got " + options.dump() + ")");
    }
    return Ok{};
}

std::vector<std::unique_ptr<RuleModule>> family_modules(std::string_view game) {
    std::vector<std::unique_ptr<RuleModule>> out;
    if (game == "amazonas") out.push_back(std::make_unique<AmazonasModule>());  // spin-off family (issue 8)
    return out;
}

void RuleModuleRegistry::add(std::string name, RuleModuleFactory factory) {
    entries_.emplace_back(std::move(name), std::move(factory));
}

void RuleModuleRegistry::add_bundle(std::string name, std::vector<std::string> parts) {
    bundles_.emplace_back(std::move(name), std::move(parts));
}

Result<std::vector<std::unique_ptr<RuleModule>>> RuleModuleRegistry::create(std::string_view name) const {
    std::vector<std::unique_ptr<RuleModule>> out;
    for (const auto& [bundle, parts] : bundles_) {
        if (bundle != name) continue;
        for (const auto& part : parts) {
            auto more = create(part);
            if (!more) return more.error();
            for (auto& m : more.value()) out.push_back(std::move(m));
        }
        return out;
    }
    for (const auto& [entry_name, factory] : entries_) {
        if (entry_name == name) {
            out.push_back(factory());
            return out;
        }
    }
    std::string known;
    for (const auto& n : names()) known += (known.empty() ? "" : ", ") + n;
    return invalid("expansions", "unknown or unsupported expansion '" + std::string(name) + "'" +
                                     (known.empty() ? "" : " (known: " + known + ")"));
}

std::vector<std::string> RuleModuleRegistry::names() const {
    std::vector<std::string> out;
    for (const auto& e : entries_) out.push_back(e.first);
    for (const auto& b : bundles_) out.push_back(b.first);
    return out;
}

const RuleModuleRegistry& RuleModuleRegistry::builtin() {
    // Register every shipped module here, explicitly (see docs/engine.md).
    static const RuleModuleRegistry registry = [] {
        RuleModuleRegistry r;
        r.add("ferries", [] { return std::make_unique<FerriesModule>(); });
        r.add("bridges", [] { return std::make_unique<BridgesModule>(); });
        r.add("castles", [] { return std::make_unique<CastlesModule>(); });
        r.add("bazaars", [] { return std::make_unique<BazaarsModule>(); });
        // The published expansion is the bundle of its three parts.
        r.add_bundle("bridges-castles-bazaars", {"bridges", "castles", "bazaars"});
        return r;
    }();
    return registry;
}

}  // namespace meeplecam
