// The layout_assignment pass plugin: enabled from -O2, after every other pass (it only
// changes storage formats and adds reorders, which no other pass understands).
#include "ge/plugin_api/plugin.h"
#include "layout_assignment.h"

namespace {

ge::Status register_layout_assignment(ge::Registrar& registrar) {
  ge::PassInfo info;
  info.name = "layout_assignment";
  info.min_opt_level = static_cast<int>(registrar.options().get_int("min_opt_level", 2));
  info.order = static_cast<int>(registrar.options().get_int("order", 1000));
  info.create = [] { return std::make_unique<ge::passes::LayoutAssignment>(); };
  return registrar.add_pass(std::move(info));
}

}  // namespace

GE_DEFINE_PLUGIN("layout_assignment", "0.1.0", register_layout_assignment)
