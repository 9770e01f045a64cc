// The cse pass plugin, enabled from -O1, phase fold after constant_folding (which leaves
// equal constants for it to merge). Options: min_opt_level, phase, after, before
// (ge/plugin_api/pass_options.h).
#include "common_subexpression_elimination.h"
#include "ge/plugin_api/pass_options.h"
#include "ge/plugin_api/plugin.h"

namespace {

ge::Status register_cse(ge::Registrar& registrar) {
  ge::PassInfo info;
  info.name = "cse";
  info.min_opt_level = 1;
  info.phase = ge::PassPhase::kFold;
  info.run_after = {"constant_folding"};
  info.create = [] { return std::make_unique<ge::passes::CommonSubexpressionElimination>(); };
  GE_ASSIGN_OR_RETURN(info, ge::apply_pass_options(std::move(info), registrar.options()));
  GE_RETURN_IF_ERROR(registrar.options().check_known_keys("pass 'cse'", ge::pass_option_keys()));
  return registrar.add_pass(std::move(info));
}

}  // namespace

GE_DEFINE_PLUGIN("cse", "0.1.0", register_cse)
