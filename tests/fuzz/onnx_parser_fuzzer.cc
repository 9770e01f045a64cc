// libFuzzer target: the ONNX parser plugin's parse_bytes must turn any byte string into
// a graph or a Status. The plugin is loaded through the registry beside the fuzzer
// (bin/ge_plugins.toml), or GE_FUZZ_PLUGINS.
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <string>

#include "ge/plugin_api/parser.h"
#include "ge/plugin_host.h"

namespace {

ge::PluginHost* host = nullptr;
const ge::Parser* onnx = nullptr;

}  // namespace

extern "C" int LLVMFuzzerInitialize(int* argc, char*** argv) {
  std::filesystem::path registry;
  if (const char* env = std::getenv("GE_FUZZ_PLUGINS")) {
    registry = env;
  } else {
    std::error_code error;
    registry = std::filesystem::read_symlink("/proc/self/exe", error).parent_path() / "ge_plugins.toml";
  }
  host = new ge::PluginHost();
  (void)host->load_registry(registry);
  for (const auto& parser : host->parsers()) {
    if (parser->name() == "onnx") onnx = parser.get();
  }
  if (onnx == nullptr) {
    std::fprintf(stderr, "onnx_parser_fuzzer: no 'onnx' parser in '%s'\n", registry.c_str());
    for (const ge::Status& failure : host->failures()) std::fprintf(stderr, "  %s\n", failure.to_string().c_str());
    std::abort();
  }
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string bytes(reinterpret_cast<const char*>(data), size);
  (void)onnx->parse_bytes(bytes, {});
  return 0;
}
