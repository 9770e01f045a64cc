#include "scatter_rows_fusion.h"

#include <string>
#include <vector>

#include "fusion_util.h"
#include "ge/graph_queries.h"
#include "ge/logging.h"
#include "ge/plugin_api/graph_rewrite.h"

namespace ge::fusion {
namespace {

// The Expand that writes `node`'s indices when the ScatterElements is a row scatter, else
// null with `reason`.
Node* row_expand(const Node& node, std::string& reason) {
  if (node.input_count() != 3 || node.output_count() != 1 || node.input(0) == nullptr || node.input(1) == nullptr ||
      node.input(2) == nullptr) {
    return reason = "not data, indices and updates", nullptr;
  }
  if (node.get_string("reduction", "none") != "none") return reason = "a reduction", nullptr;
  const TensorDesc& data = node.input(0)->desc();
  if (!data.has_rank() || data.rank() < 1) return reason = "data of unknown rank", nullptr;
  const int64_t axis = node.get_int("axis", 0);
  if (axis != 0 && axis != -data.rank()) return reason = "an axis other than 0", nullptr;
  Node* expand = node.input(1)->producer();
  if (expand == nullptr || !is_onnx_domain(*expand) || expand->op_type() != "Expand" || expand->input_count() != 2 ||
      expand->input(0) == nullptr || expand->input(1) == nullptr) {
    return reason = "indices not written by an Expand", nullptr;
  }
  const TensorDesc& rows = expand->input(0)->desc();
  if (!rows.has_rank() || rows.rank() != data.rank()) return reason = "rows of another rank than data", nullptr;
  for (int64_t d = 1; d < rows.rank(); ++d) {
    const Dim& dim = (*rows.shape)[static_cast<size_t>(d)];
    if (!dim.is_static() || dim.value != 1) return reason = "rows with a dim after the first that is not 1", nullptr;
  }
  return expand;
}

}  // namespace

Status ScatterRowsFusion::run(Graph& graph, PassContext& context, bool& changed) {
  (void)context;
  std::vector<Node*> scatters;
  for (const auto& node : graph.nodes()) {
    if (is_onnx_domain(*node) && node->op_type() == "ScatterElements") scatters.push_back(node.get());
  }
  for (Node* node : scatters) {
    std::string reason;
    Node* expand = row_expand(*node, reason);
    if (expand == nullptr) {
      GE_LOG_DEBUG("fuse_scatter_rows: {} stays a ScatterElements: {}", node->describe(), reason);
      continue;
    }
    ensure_opset_import(graph, "ge", 1);
    node->set_domain("ge");
    node->set_op_type("ScatterRows");
    node->set_input(1, expand->input(0));
    node->add_input(expand->input(1));
    node->remove_attribute("axis");
    node->remove_attribute("reduction");
    changed = true;
  }
  return Status::ok();
}

}  // namespace ge::fusion
