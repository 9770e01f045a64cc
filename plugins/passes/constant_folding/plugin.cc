// The constant_folding pass plugin, enabled from -O1. Options: max_folded_bytes (the cap
// on each folded tensor), min_opt_level, phase, after, before (ge/plugin_api/pass_options.h).
#include "constant_folding.h"
#include "ge/plugin_api/pass_options.h"
#include "ge/plugin_api/plugin.h"

namespace {

ge::Status register_constant_folding(ge::Registrar& registrar) {
  const int64_t cap =
      registrar.options().get_int("max_folded_bytes", ge::passes::ConstantFolding::kDefaultMaxFoldedBytes);
  if (cap < 0) return ge::invalid_argument("constant_folding: option max_folded_bytes = " + std::to_string(cap) + " is negative");
  ge::PassInfo info;
  info.name = "constant_folding";
  info.min_opt_level = 1;
  info.phase = ge::PassPhase::kFold;
  info.create = [cap] { return std::make_unique<ge::passes::ConstantFolding>(cap); };
  GE_ASSIGN_OR_RETURN(info, ge::apply_pass_options(std::move(info), registrar.options()));
  std::vector<std::string> known = ge::pass_option_keys();
  known.push_back("max_folded_bytes");
  GE_RETURN_IF_ERROR(registrar.options().check_known_keys("pass 'constant_folding'", known));
  return registrar.add_pass(std::move(info));
}

}  // namespace

GE_DEFINE_PLUGIN("constant_folding", "0.1.0", register_constant_folding)
