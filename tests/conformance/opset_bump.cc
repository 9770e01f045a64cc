#include "opset_bump.h"

#include <fstream>
#include <sstream>

#include <onnx/onnx_pb.h>

#include "ge/graph_queries.h"
#include "newer_opsets.h"

namespace ge::conformance {
namespace {

namespace fs = std::filesystem;

Result<onnx::ModelProto> read_model(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return not_found("cannot open '" + path.string() + "'");
  onnx::ModelProto model;
  if (!model.ParseFromIstream(&in)) return parse_error("'" + path.string() + "' is not an ONNX model");
  return model;
}

int64_t default_opset(const onnx::ModelProto& model) {
  for (const auto& opset : model.opset_import()) {
    if (is_onnx_domain(opset.domain())) return opset.version();
  }
  return 1;
}

std::optional<std::string> graph_blocker(const onnx::GraphProto& graph, int64_t from, int64_t to) {
  for (const auto& node : graph.node()) {
    if (is_onnx_domain(node.domain())) {
      const int before = onnx_ops::semantics_version(node.op_type(), from);
      const int after = onnx_ops::semantics_version(node.op_type(), to);
      if (before == 0) return node.op_type() + " has no schema at opset " + std::to_string(from);
      if (before != after) {
        return node.op_type() + " changed semantics (" + std::to_string(before) + " to " + std::to_string(after) + ")";
      }
    }
    for (const auto& attribute : node.attribute()) {
      if (attribute.has_g()) {
        if (auto blocker = graph_blocker(attribute.g(), from, to)) return blocker;
      }
      for (const auto& sub : attribute.graphs()) {
        if (auto blocker = graph_blocker(sub, from, to)) return blocker;
      }
    }
  }
  return std::nullopt;
}

}  // namespace

Result<std::optional<std::string>> opset_bump_blocker(const fs::path& path, int64_t opset) {
  GE_ASSIGN_OR_RETURN(onnx::ModelProto model, read_model(path));
  const int64_t from = default_opset(model);
  if (from > opset) return std::optional<std::string>("the model imports opset " + std::to_string(from));
  return graph_blocker(model.graph(), from, opset);
}

Result<fs::path> write_bumped_model(const fs::path& path, int64_t opset, const fs::path& dir) {
  GE_ASSIGN_OR_RETURN(onnx::ModelProto model, read_model(path));
  bool found = false;
  for (auto& import : *model.mutable_opset_import()) {
    if (is_onnx_domain(import.domain())) {
      import.set_version(opset);
      found = true;
    }
  }
  if (!found) {
    auto* import = model.add_opset_import();
    import->set_domain("");
    import->set_version(opset);
  }
  std::error_code error;
  fs::create_directories(dir, error);
  const fs::path out_path = dir / "model.onnx";
  std::ofstream out(out_path, std::ios::binary | std::ios::trunc);
  if (!out || !model.SerializeToOstream(&out)) return internal_error("cannot write '" + out_path.string() + "'");
  return out_path;
}

}  // namespace ge::conformance
