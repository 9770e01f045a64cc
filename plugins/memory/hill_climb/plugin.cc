// The hill_climb memory assigner plugin. Options (all optional) in the registry entry:
//   [plugin.options]  max_iterations = 2000, max_placements = 4000000,
//                     time_budget_ms = 100, seed = 1
#include "ge/plugin_api/plugin.h"

#include "hill_climb_assigner.h"

namespace {

ge::Status register_hill_climb(ge::Registrar& registrar) {
  try {
    ge::memory::HillClimbOptions options = ge::memory::HillClimbOptions::from(registrar.options());
    if (options.max_iterations < 0 || options.max_placements < 0 || options.time_budget_ms < 0) {
      return ge::invalid_argument(
          "hill_climb memory assigner: max_iterations, max_placements and time_budget_ms must not be negative");
    }
    return registrar.add_memory_assigner(std::make_shared<ge::memory::HillClimbAssigner>(options));
  } catch (const std::exception& e) {
    return ge::plugin_error(std::string("hill_climb memory assigner: ") + e.what());
  }
}

}  // namespace

GE_DEFINE_PLUGIN("hill_climb", "0.1.0", register_hill_climb)
