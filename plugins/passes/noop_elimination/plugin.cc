// The noop_elimination pass plugin, enabled from -O1, phase canonicalize (first). Options:
// min_opt_level, phase, after, before (ge/plugin_api/pass_options.h).
#include "ge/plugin_api/pass_options.h"
#include "ge/plugin_api/plugin.h"
#include "noop_elimination.h"

namespace {

ge::Status register_noop_elimination(ge::Registrar& registrar) {
  ge::PassInfo info;
  info.name = "noop_elimination";
  info.min_opt_level = 1;
  info.phase = ge::PassPhase::kCanonicalize;
  info.create = [] { return std::make_unique<ge::passes::NoOpElimination>(); };
  GE_ASSIGN_OR_RETURN(info, ge::apply_pass_options(std::move(info), registrar.options()));
  GE_RETURN_IF_ERROR(registrar.options().check_known_keys("pass 'noop_elimination'", ge::pass_option_keys()));
  return registrar.add_pass(std::move(info));
}

}  // namespace

GE_DEFINE_PLUGIN("noop_elimination", "0.1.0", register_noop_elimination)
