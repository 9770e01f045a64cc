// The dce pass plugin: registers dead code elimination, enabled from -O1.
#include "dead_code_elimination.h"
#include "ge/plugin_api/plugin.h"

namespace {

ge::Status register_dce(ge::Registrar& registrar) {
  ge::PassInfo info;
  info.name = "dce";
  info.min_opt_level = static_cast<int>(registrar.options().get_int("min_opt_level", 1));
  info.order = static_cast<int>(registrar.options().get_int("order", 900));
  info.create = [] { return std::make_unique<ge::passes::DeadCodeElimination>(); };
  return registrar.add_pass(std::move(info));
}

}  // namespace

GE_DEFINE_PLUGIN("dce", "0.1.0", register_dce)
