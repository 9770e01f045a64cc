// The autofusion pass plugin: enabled from -O3 (it builds ge_autofuse.Fused nodes, which
// need the ge_fused op library and a backend that runs them), phase fuse, after the pattern
// fusions (they declare run_before autofusion). Options: max_ops (nodes per group),
// max_inputs (program inputs per group), and min_opt_level, phase, after, before
// (ge/plugin_api/pass_options.h).
#include <memory>
#include <string>

#include "autofusion.h"
#include "ge/plugin_api/pass_options.h"
#include "ge/plugin_api/plugin.h"

namespace {

ge::Status register_autofusion(ge::Registrar& registrar) {
  const ge::PluginOptions& options = registrar.options();
  const int64_t max_ops = options.get_int("max_ops", 64);
  const int64_t max_inputs = options.get_int("max_inputs", 16);
  if (max_ops < 1 || max_inputs < 0) {
    return ge::invalid_argument("autofusion: options max_ops (" + std::to_string(max_ops) + ") and max_inputs (" +
                                std::to_string(max_inputs) + ") must be at least 1 and 0");
  }
  ge::passes::AutofusionOptions pass_options;
  pass_options.max_ops = static_cast<size_t>(max_ops);
  pass_options.max_inputs = static_cast<size_t>(max_inputs);
  ge::PassInfo info;
  info.name = "autofusion";
  info.min_opt_level = 3;
  info.phase = ge::PassPhase::kFuse;
  info.create = [pass_options] { return std::make_unique<ge::passes::Autofusion>(pass_options); };
  GE_ASSIGN_OR_RETURN(info, ge::apply_pass_options(std::move(info), options));
  std::vector<std::string> known = ge::pass_option_keys();
  known.insert(known.end(), {"max_ops", "max_inputs"});
  GE_RETURN_IF_ERROR(options.check_known_keys("pass 'autofusion'", known));
  return registrar.add_pass(std::move(info));
}

}  // namespace

GE_DEFINE_PLUGIN("autofusion", "0.1.0", register_autofusion)
