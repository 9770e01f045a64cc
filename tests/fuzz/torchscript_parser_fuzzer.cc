// libFuzzer target: the TorchScript parser plugin (plugins/parsers/torchscript) must turn
// any input into a graph or a Status. The first byte picks what the rest is:
//   0: a whole archive (libtorch's reader, then the import of what loads);
//   1: the archive's stored input shapes (ge_input_shapes) of a small valid module, so
//      the shape grammar, the example run and the mapping see odd shapes;
//   2: the TorchScript source of forward(self, x), compiled by libtorch and imported for
//      x of shape [2, 3]: the importer's mapping code over whatever programs compile.
#include <cstddef>
#include <cstdint>
#include <sstream>
#include <string>

#include <torch/csrc/jit/api/module.h>
#include <torch/csrc/jit/serialization/export.h>

#include "torchscript_parser.h"

namespace {

const ge::torchscript::TorchScriptParser parser;

std::string archive(const std::string& source, const std::string& shapes) {
  torch::jit::Module module("fuzzed");
  module.define(source);
  std::ostringstream out;
  module.save(out, {{ge::torchscript::kInputShapesFile, shapes}});
  return out.str();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  const std::string payload(reinterpret_cast<const char*>(data) + 1, size - 1);
  std::string bytes;
  try {
    switch (data[0] % 3) {
      case 0: bytes = payload; break;
      case 1:
        bytes = archive("def forward(self, x):\n  return torch.relu(x) * 2.0 + x.sum(1, keepdim=True)\n", payload);
        break;
      default: bytes = archive(payload, "x:2,3"); break;
    }
  } catch (const std::exception&) {
    return 0;  // the payload is not TorchScript libtorch compiles: nothing of GE's to run
  }
  (void)parser.parse_bytes_with(bytes, {}, {});
  return 0;
}
