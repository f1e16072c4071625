#include "engine/rule_module.h"

#include "engine/game.h"
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

void RuleModuleRegistry::add(std::string name, RuleModuleFactory factory) {
    entries_.emplace_back(std::move(name), std::move(factory));
}

Result<std::unique_ptr<RuleModule>> RuleModuleRegistry::create(std::string_view name) const {
    for (const auto& [entry_name, factory] : entries_) {
        if (entry_name == name) return factory();
    }
    std::string known;
    for (const auto& n : names()) known += (known.empty() ? "" : ", ") + n;
    return invalid("expansions", "unknown or unsupported expansion '" + std::string(name) + "'" +
                                     (known.empty() ? " (this build has no expansion modules yet)"
                                                    : " (known: " + known + ")"));
}

std::vector<std::string> RuleModuleRegistry::names() const {
    std::vector<std::string> out;
    for (const auto& e : entries_) out.push_back(e.first);
    return out;
}

const RuleModuleRegistry& RuleModuleRegistry::builtin() {
    // Register every shipped module here, explicitly (see docs/engine.md).
    static const RuleModuleRegistry registry = [] {
        RuleModuleRegistry r;
        r.add("ferries", [] { return std::make_unique<FerriesModule>(); });
        r.add("bazaars", [] { return std::make_unique<BazaarsModule>(); });
        return r;
    }();
    return registry;
}

}  // namespace meeplecam
