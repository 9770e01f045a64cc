// The noop_elimination pass plugin, enabled from -O1 and run first.
#include "ge/plugin_api/plugin.h"
#include "noop_elimination.h"

namespace {

ge::Status register_noop_elimination(ge::Registrar& registrar) {
  ge::PassInfo info;
  info.name = "noop_elimination";
  info.min_opt_level = static_cast<int>(registrar.options().get_int("min_opt_level", 1));
  info.order = static_cast<int>(registrar.options().get_int("order", 100));
  info.create = [] { return std::make_unique<ge::passes::NoOpElimination>(); };
  return registrar.add_pass(std::move(info));
}

}  // namespace

GE_DEFINE_PLUGIN("noop_elimination", "0.1.0", register_noop_elimination)
