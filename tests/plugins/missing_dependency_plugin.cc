// A plugin whose shared-library dependency cannot be resolved at load time.
#include "ge/plugin_api/plugin.h"

extern "C" int ge_test_missing_dependency_value();

namespace {
ge::Status register_components(ge::Registrar&) {
  return ge_test_missing_dependency_value() == 7 ? ge::Status::ok() : ge::internal_error("unexpected");
}
}  // namespace

GE_DEFINE_PLUGIN("test_missing_dependency", "0.0.1", register_components)
