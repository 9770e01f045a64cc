// libFuzzer target: the plugin registry's text (ge_plugins.toml, --plugins FILE, GE_PLUGINS)
// must be read into entries or rejected with a Status naming the file and line, never
// crash or hang. Only the reading is fuzzed: loading would dlopen what a mutated
// 'library' names.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string_view>

#include "plugin_registry.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  const std::filesystem::path file = "/fuzz/registry/ge_plugins.toml";
  const ge::detail::RegistryText parsed = ge::detail::parse_registry(text, file);
  for (const ge::Status& failure : parsed.failures) {
    if (failure.is_ok() || failure.message().find("registry '/fuzz/registry/ge_plugins.toml'") == std::string::npos) {
      std::abort();  // a file-level failure names the file
    }
  }
  for (const ge::detail::RegistryEntry& entry : parsed.entries) {
    if (!entry.failure.is_ok()) continue;
    // What load_registry acts on is complete: a name, a library resolved to a path.
    if (entry.record.name.empty() || entry.record.library.empty() || entry.record.registry_line <= 0) std::abort();
  }
  return 0;
}
