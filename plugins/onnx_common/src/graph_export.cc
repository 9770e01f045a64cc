#include "ge/onnx_common/graph_export.h"

#include <memory>
#include <set>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "ge/atomic_file.h"
#include "ge/onnx_common/attribute_proto.h"
#include "ge/onnx_common/tensor_proto.h"

namespace ge::onnx_common {
namespace {

/// The IR version a reader of this default-domain opset expects (ONNX's release table).
int64_t ir_version_for(int64_t opset) {
  if (opset >= 23) return 11;
  if (opset >= 21) return 10;
  if (opset >= 19) return 9;
  return 8;
}

class GraphExporter {
 public:
  Status export_graph(const Graph& graph, onnx::GraphProto& proto) {
    proto.set_name(graph.name());
    // Names first: nodes may use values defined later in insertion order.
    for (Value* value : graph.inputs()) name_value(value);
    for (Value* value : graph.initializers()) name_value(value);
    for (Value* value : graph.captures()) name_capture(graph, value);
    for (const auto& node : graph.nodes()) {
      for (Value* output : node->outputs()) {
        if (!output->name().empty() || output->has_uses() || graph.is_output(output)) name_value(output);
      }
    }

    for (Value* value : graph.inputs()) *proto.add_input() = value_info(value);
    for (Value* value : graph.initializers()) *proto.add_initializer() = tensor_to_proto(*value->constant(), names_.at(value));
    GE_ASSIGN_OR_RETURN(std::vector<Node*> order, graph.topological_order());
    for (Node* node : order) GE_RETURN_IF_ERROR(export_node(*node, *proto.add_node()));
    for (Value* value : graph.outputs()) {
      if (value == nullptr) return invalid_argument("graph '" + graph.name() + "' has a null output");
      *proto.add_output() = value_info(value);
    }
    for (Node* node : order) {
      for (Value* output : node->outputs()) {
        if (names_.count(output) != 0 && !graph.is_output(output)) *proto.add_value_info() = value_info(output);
      }
    }
    return Status::ok();
  }

  const std::set<std::string>& domains() const { return domains_; }
  const std::map<std::string, std::string>& formats() const { return formats_; }

 private:
  void name_value(Value* value) {
    if (names_.count(value) != 0) return;
    std::string base = value->name().empty() ? "ge_unnamed" : value->name();
    std::string name = base;
    for (int suffix = 1; !used_.insert(name).second; ++suffix) name = base + "__" + std::to_string(suffix);
    names_[value] = name;
  }

  /// A capture is the enclosing scope's value: it keeps that value's exported name.
  void name_capture(const Graph& graph, Value* value) {
    const Value* outer = graph.parent() != nullptr ? graph.parent()->resolve_name(value->name()) : nullptr;
    auto it = outer != nullptr ? names_.find(outer) : names_.end();
    names_[value] = it != names_.end() ? it->second : value->name();
  }

  std::string name_of(const Value* value) const {
    if (value == nullptr) return {};
    auto it = names_.find(value);
    return it != names_.end() ? it->second : value->name();
  }

  onnx::ValueInfoProto value_info(const Value* value) {
    onnx::ValueInfoProto info;
    info.set_name(name_of(value));
    const TensorDesc& desc = value->desc();
    if (desc.dtype != DataType::kUndefined || desc.has_rank()) *info.mutable_type() = desc_to_type_proto(desc);
    if (!desc.is_plain()) {
      info.set_doc_string("ge.format: " + desc.format);
      formats_["ge.format:" + info.name()] = desc.format;
    }
    return info;
  }

  Status export_node(const Node& node, onnx::NodeProto& proto) {
    proto.set_name(node.name());
    proto.set_op_type(node.op_type());
    if (!node.domain().empty()) proto.set_domain(node.domain());
    domains_.insert(node.domain() == "ai.onnx" ? std::string() : node.domain());
    for (const Value* input : node.inputs()) proto.add_input(name_of(input));
    for (const Value* output : node.outputs()) proto.add_output(names_.count(output) != 0 ? name_of(output) : "");
    for (const auto& [name, attribute] : node.attributes()) {
      onnx::AttributeProto& out = *proto.add_attribute();
      if (attribute.type() == AttributeType::kGraph || attribute.type() == AttributeType::kGraphs) {
        out.set_name(name);
        std::vector<Attribute::GraphPtr> graphs;
        if (attribute.type() == AttributeType::kGraph) {
          out.set_type(onnx::AttributeProto::GRAPH);
          graphs.push_back(attribute.get<Attribute::GraphPtr>());
        } else {
          out.set_type(onnx::AttributeProto::GRAPHS);
          graphs = attribute.get<std::vector<Attribute::GraphPtr>>();
        }
        for (const Attribute::GraphPtr& body : graphs) {
          if (body == nullptr) return invalid_argument(node.describe() + ": attribute '" + name + "' holds no graph");
          onnx::GraphProto& body_proto = attribute.type() == AttributeType::kGraph ? *out.mutable_g() : *out.add_graphs();
          Status status = export_graph(*body, body_proto);
          if (!status.is_ok()) return status.with_context(node.describe() + ", attribute '" + name + "'");
        }
        continue;
      }
      Result<onnx::AttributeProto> converted = attribute_to_proto(name, attribute);
      if (!converted.is_ok()) return converted.status().with_context(node.describe());
      out = std::move(converted).value();
    }
    return Status::ok();
  }

  std::unordered_map<const Value*, std::string> names_;
  std::unordered_set<std::string> used_;  // across scopes: ONNX names each value once
  std::set<std::string> domains_;
  std::map<std::string, std::string> formats_;
};

}  // namespace

Result<onnx::ModelProto> graph_to_model_proto(const Graph& graph, const GraphExportOptions& options) {
  onnx::ModelProto model;
  model.set_producer_name(options.producer_name);
  if (!options.producer_version.empty()) model.set_producer_version(options.producer_version);
  if (!options.doc_string.empty()) model.set_doc_string(options.doc_string);

  GraphExporter exporter;
  GE_RETURN_IF_ERROR(exporter.export_graph(graph, *model.mutable_graph()));

  std::map<std::string, int64_t> opsets;
  for (const auto& [domain, version] : graph.opset_imports()) opsets[domain == "ai.onnx" ? "" : domain] = version;
  for (const std::string& domain : exporter.domains()) opsets.emplace(domain, 1);
  for (const auto& [domain, version] : opsets) {
    onnx::OperatorSetIdProto& import = *model.add_opset_import();
    import.set_domain(domain);
    import.set_version(version);
  }
  model.set_ir_version(ir_version_for(opsets.count("") != 0 ? opsets.at("") : 1));

  std::map<std::string, std::string> metadata = options.metadata;
  metadata.insert(exporter.formats().begin(), exporter.formats().end());
  for (const auto& [key, value] : metadata) {
    onnx::StringStringEntryProto& entry = *model.add_metadata_props();
    entry.set_key(key);
    entry.set_value(value);
  }
  return model;
}

Status write_onnx_model(const Graph& graph, const std::filesystem::path& path, const GraphExportOptions& options) {
  Result<onnx::ModelProto> model = graph_to_model_proto(graph, options);
  if (!model.is_ok()) return model.status().with_context("exporting to '" + path.string() + "'");
  std::string bytes;
  if (!model->SerializeToString(&bytes)) {
    return invalid_argument("cannot serialise the ONNX model for '" + path.string() +
                            "' (over protobuf's 2 GiB limit?)");
  }
  return write_file_atomically(path, bytes);
}

}  // namespace ge::onnx_common
