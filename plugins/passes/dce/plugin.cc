// The dce pass plugin: registers dead code elimination, enabled from -O1, phase cleanup.
// Options: min_opt_level, phase, after, before (ge/plugin_api/pass_options.h).
#include "dead_code_elimination.h"
#include "ge/plugin_api/pass_options.h"
#include "ge/plugin_api/plugin.h"

namespace {

ge::Status register_dce(ge::Registrar& registrar) {
  ge::PassInfo info;
  info.name = "dce";
  info.min_opt_level = 1;
  info.phase = ge::PassPhase::kCleanup;
  info.create = [] { return std::make_unique<ge::passes::DeadCodeElimination>(); };
  GE_ASSIGN_OR_RETURN(info, ge::apply_pass_options(std::move(info), registrar.options()));
  GE_RETURN_IF_ERROR(registrar.options().check_known_keys("pass 'dce'", ge::pass_option_keys()));
  return registrar.add_pass(std::move(info));
}

}  // namespace

GE_DEFINE_PLUGIN("dce", "0.1.0", register_dce)
