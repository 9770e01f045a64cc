// The layout_assignment pass plugin: enabled from -O2, phase layout, after every other pass
// (it only changes storage formats and adds reorders, which no other pass understands).
// Options: min_opt_level, phase, after, before (ge/plugin_api/pass_options.h).
#include "ge/plugin_api/pass_options.h"
#include "ge/plugin_api/plugin.h"
#include "layout_assignment.h"

namespace {

ge::Status register_layout_assignment(ge::Registrar& registrar) {
  ge::PassInfo info;
  info.name = "layout_assignment";
  info.min_opt_level = 2;
  info.phase = ge::PassPhase::kLayout;
  info.create = [] { return std::make_unique<ge::passes::LayoutAssignment>(); };
  GE_ASSIGN_OR_RETURN(info, ge::apply_pass_options(std::move(info), registrar.options()));
  GE_RETURN_IF_ERROR(registrar.options().check_known_keys("pass 'layout_assignment'", ge::pass_option_keys()));
  return registrar.add_pass(std::move(info));
}

}  // namespace

GE_DEFINE_PLUGIN("layout_assignment", "0.1.0", register_layout_assignment)
