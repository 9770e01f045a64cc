// The widen_half_precision pass plugin, enabled from -O2, phase canonicalize, after
// noop_elimination (which folds the Cast pairs a model wraps around its layers first) and
// before every fusion, so that they see the float32 ops. Options: min_opt_level, phase,
// after, before (ge/plugin_api/pass_options.h).
#include "ge/plugin_api/pass_options.h"
#include "ge/plugin_api/plugin.h"
#include "half_widening.h"

namespace {

ge::Status register_half_widening(ge::Registrar& registrar) {
  ge::PassInfo info;
  info.name = "widen_half_precision";
  info.min_opt_level = 2;
  info.phase = ge::PassPhase::kCanonicalize;
  info.run_after = {"noop_elimination"};
  info.create = [] { return std::make_unique<ge::passes::HalfPrecisionWidening>(); };
  GE_ASSIGN_OR_RETURN(info, ge::apply_pass_options(std::move(info), registrar.options()));
  GE_RETURN_IF_ERROR(registrar.options().check_known_keys("pass 'widen_half_precision'", ge::pass_option_keys()));
  return registrar.add_pass(std::move(info));
}

}  // namespace

GE_DEFINE_PLUGIN("widen_half_precision", "0.1.0", register_half_widening)
