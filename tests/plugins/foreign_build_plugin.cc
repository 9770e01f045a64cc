// Plugins with the right ABI version but built against another GE minor version or
// another C++ standard library (FOREIGN_STDLIB defined): the host must refuse both
// before calling them.
#include "ge/plugin_api/plugin.h"

namespace {
ge::Status never_called(ge::Registrar&) { return ge::internal_error("the host must not call a foreign plugin"); }
}  // namespace

extern "C" __attribute__((visibility("default"))) const GePluginDescriptor* ge_plugin_entry() {
#ifdef FOREIGN_STDLIB
  static const GePluginDescriptor descriptor{ge::kPluginAbiVersion, "test_foreign_stdlib", "1.0.0", never_called,
                                             GE_VERSION_STRING, "libc++ abi 1", "clang 17.0"};
#else
  static const GePluginDescriptor descriptor{ge::kPluginAbiVersion, "test_foreign_version", "1.0.0", never_called,
                                             "0.99.0", GE_STDLIB_ABI, GE_COMPILER};
#endif
  return &descriptor;
}
