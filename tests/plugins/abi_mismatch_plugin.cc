// A plugin built against a future, incompatible ABI.
#include "ge/plugin_api/plugin.h"

namespace {
ge::Status never_called(ge::Registrar&) { return ge::internal_error("the host must not call an ABI-mismatched plugin"); }
}  // namespace

extern "C" __attribute__((visibility("default"))) const GePluginDescriptor* ge_plugin_entry() {
  static const GePluginDescriptor descriptor{ge::kPluginAbiVersion + 998, "test_future_abi", "9.9.9", never_called};
  return &descriptor;
}
