// The cse pass plugin, enabled from -O1.
#include "common_subexpression_elimination.h"
#include "ge/plugin_api/plugin.h"

namespace {

ge::Status register_cse(ge::Registrar& registrar) {
  ge::PassInfo info;
  info.name = "cse";
  info.min_opt_level = static_cast<int>(registrar.options().get_int("min_opt_level", 1));
  info.order = static_cast<int>(registrar.options().get_int("order", 300));
  info.create = [] { return std::make_unique<ge::passes::CommonSubexpressionElimination>(); };
  return registrar.add_pass(std::move(info));
}

}  // namespace

GE_DEFINE_PLUGIN("cse", "0.1.0", register_cse)
