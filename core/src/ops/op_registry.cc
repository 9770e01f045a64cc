// The op registry (ge/op_registry.h): schema lookup and shape/type inference dispatch.
#include "ge/op_registry.h"

#include "ge/logging.h"
#include "ge/shape_arithmetic.h"
#include "../plugin_host/plugin_call.h"

namespace ge {

void OpRegistry::add_library(std::shared_ptr<const OpLibrary> library) { libraries_.push_back(std::move(library)); }

namespace {
int64_t node_opset(const Node& node) {
  const Graph* graph = node.graph();
  return graph == nullptr ? 0 : graph->opset_version(node.domain());
}
}  // namespace

const OpLibrary* OpRegistry::library_for(const Node& node) const {
  const int64_t version = node_opset(node);
  for (auto it = libraries_.rbegin(); it != libraries_.rend(); ++it) {
    if ((*it)->find_schema(node.domain(), node.op_type(), version) != nullptr) return it->get();
  }
  return nullptr;
}

const OpSchemaInfo* OpRegistry::find_schema(const Node& node) const {
  const int64_t version = node_opset(node);
  for (auto it = libraries_.rbegin(); it != libraries_.rend(); ++it) {
    if (const OpSchemaInfo* schema = (*it)->find_schema(node.domain(), node.op_type(), version)) return schema;
  }
  return nullptr;
}

Status OpRegistry::infer_node(Node& node, const InputDataProvider& data) const {
  const OpLibrary* library = library_for(node);
  if (library == nullptr) {
    const std::string domain = node.domain().empty() ? "ai.onnx" : node.domain();
    return unsupported("no op library knows " + node.describe() + " (domain '" + domain + "', opset " +
                       std::to_string(node_opset(node)) + "); loaded op libraries: " +
                       std::to_string(libraries_.size()));
  }
  // A value's storage format is a compile-time decision (layout assignment), not
  // something an op library infers: keep it across re-inference.
  std::vector<std::string> formats;
  formats.reserve(node.output_count());
  for (const Value* output : node.outputs()) formats.push_back(output->desc().format);
  Status status = detail::guard_plugin_call(
      [&] { return "op library '" + library->name() + "' (inferring " + node.describe() + ")"; },
      [&] { return library->infer(node, node_opset(node), data, *this); });
  for (size_t i = 0; i < formats.size() && i < node.output_count(); ++i) {
    node.output(i)->mutable_desc().format = formats[i];
  }
  GE_RETURN_IF_ERROR(status);
  // Dims may come from run-time data: an element count or byte size that overflows would
  // wrap to a small allocation and a silently wrong result.
  for (size_t i = 0; i < node.output_count(); ++i) {
    const Value* output = node.output(i);
    if (output == nullptr || !output->desc().is_static()) continue;
    const std::vector<int64_t> dims = output->desc().static_dims();
    Result<size_t> bytes = checked_byte_size(output->desc().dtype, dims);
    if (!bytes.is_ok()) {
      return bytes.status().with_context(node.describe() + ": output " + std::to_string(i) + " '" + output->name() +
                                         "'");
    }
  }
  return Status::ok();
}

Status OpRegistry::infer_graph(Graph& graph, const InputDataProvider& data) const {
  // Captures take the desc of the outer value they name.
  for (Value* capture : graph.captures()) {
    if (Graph* parent = graph.parent()) {
      if (Value* outer = parent->resolve_name(capture->name())) {
        if (outer->desc().dtype != DataType::kUndefined) capture->set_desc(outer->desc());
      }
    }
  }
  GE_ASSIGN_OR_RETURN(std::vector<Node*> order, graph.topological_order());
  InputDataProvider provider = [&data](const Node& node, size_t index) -> const Tensor* {
    if (data) {
      if (const Tensor* t = data(node, index)) return t;
    }
    const Value* input = node.input(index);
    return input != nullptr ? input->constant() : nullptr;
  };
  for (Node* node : order) {
    GE_RETURN_IF_ERROR(infer_node(*node, provider).with_context("shape inference in graph '" + graph.name() + "'"));
  }
  return Status::ok();
}

}  // namespace ge
