#include "graph_importer.h"

#include "gradient_expansion.h"

#include <onnx/defs/schema.h>

#include <unordered_map>
#include <unordered_set>
#include <utility>
#include <vector>

#include "ge/graph_queries.h"
#include "ge/logging.h"
#include "ge/onnx_common/attribute_proto.h"
#include "ge/onnx_common/opsets.h"
#include "ge/onnx_common/tensor_proto.h"

namespace ge::onnx_parser {
namespace {

namespace fs = std::filesystem;

std::string node_label(const std::string& name, const std::string& op_type) {
  return "node '" + name + "' (" + op_type + ")";
}

/// The newest IR version read: 11, that of ONNX 1.18, whose opset 23 is the newest this
/// build imports (and the IR version its ONNX export writes for opset 23).
constexpr int64_t kMaxIrVersion = 11;

/// ONNX's rules on ModelProto.ir_version (those of onnx::checker::check_model).
Status check_ir_version(const onnx::ModelProto& model) {
  const int64_t version = model.ir_version();
  const std::string supported = "this build reads IR versions 1 to " + std::to_string(kMaxIrVersion);
  if (version < 1) {
    return parse_error(std::string("the model's ir_version is ") +
                       (version == 0 ? "not set" : std::to_string(version)) +
                       ": every ONNX model declares the IR version it was written with (" + supported + ")");
  }
  if (version > kMaxIrVersion) {
    return unsupported("the model's IR version is " + std::to_string(version) + "; " + supported +
                       " (ONNX 1.18, opset 23): re-export it with an older ONNX or convert it");
  }
  if (version < 3 && model.opset_import_size() > 0) {
    return parse_error("the model's IR version is " + std::to_string(version) +
                       ", which predates opset_import (IR version 3), yet it imports " +
                       std::to_string(model.opset_import_size()) +
                       " opset(s): a model of IR version 1 or 2 is opset 1 and lists none; set ir_version to "
                       "the one its exporter wrote (3 or later)");
  }
  return Status::ok();
}

// The names one graph defines (or has captured), chained to the enclosing graph's scope.
struct Scope {
  Graph* graph = nullptr;
  Scope* parent = nullptr;
  std::unordered_map<std::string, Value*> values;
  // What defined each name, for duplicate-definition messages.
  std::unordered_map<std::string, std::string> definers;
};

class GraphImporter {
 public:
  GraphImporter(const onnx::ModelProto& model, fs::path base_dir)
      : model_(model), base_dir_(std::move(base_dir)) {}

  Result<std::unique_ptr<Graph>> run();

 private:
  Status import_opsets(Graph& graph);
  Status import_graph(const onnx::GraphProto& proto, Scope& scope);
  Status define(Scope& scope, const std::string& name, Value* value, const std::string& definer);
  Result<Value*> resolve(Scope& scope, const std::string& name, const std::string& user);
  Result<Tensor> constant_value(const onnx::NodeProto& node, const std::string& label);
  Result<Attribute> import_attribute(const onnx::AttributeProto& proto, Scope& scope,
                                     const std::string& label);
  Result<std::shared_ptr<Graph>> import_subgraph(const onnx::GraphProto& proto, Scope& scope,
                                                 const std::string& fallback_name);

  const onnx::ModelProto& model_;
  fs::path base_dir_;
  // Model-local functions by "domain:name": calls to them are refused (not inlined).
  std::unordered_set<std::string> local_functions_;
  bool uses_default_domain_ = false;
};

Status GraphImporter::import_opsets(Graph& graph) {
  const int64_t max_opset = max_supported_onnx_opset();
  bool has_default = false;
  for (const auto& opset : model_.opset_import()) {
    const std::string domain = is_onnx_domain(opset.domain()) ? std::string() : opset.domain();
    const std::string shown = domain.empty() ? std::string("ai.onnx") : domain;
    if (opset.version() < 1) {
      return parse_error("opset_import for domain '" + shown + "' has invalid version " +
                         std::to_string(opset.version()));
    }
    if (domain.empty()) {
      if (opset.version() > max_opset) {
        return unsupported("model imports opset " + std::to_string(opset.version()) +
                           " of the default ONNX domain (ai.onnx); this build supports opsets 1 to " +
                           std::to_string(max_opset) + " (convert the model to opset " +
                           std::to_string(max_opset) + " or older)");
      }
      if (has_default && graph.opset_version("") != opset.version()) {
        return parse_error("opset_import lists the default domain twice with different versions (" +
                           std::to_string(graph.opset_version("")) + " and " +
                           std::to_string(opset.version()) + ")");
      }
      has_default = true;
    }
    graph.set_opset_import(domain, opset.version());
  }
  // IR versions 1 and 2 predate opset_import: such models are opset 1.
  if (!has_default && model_.ir_version() < 3) graph.set_opset_import("", 1);
  return Status::ok();
}

Result<std::unique_ptr<Graph>> GraphImporter::run() {
  if (!model_.has_graph()) {
    return parse_error("the model has no graph (is this an ONNX model file?)");
  }
  GE_RETURN_IF_ERROR(check_ir_version(model_));
  for (const auto& function : model_.functions()) {
    local_functions_.insert(function.domain() + ":" + function.name());
  }
  auto graph = std::make_unique<Graph>(model_.graph().name().empty() ? "main" : model_.graph().name());
  GE_RETURN_IF_ERROR(import_opsets(*graph));
  Scope scope;
  scope.graph = graph.get();
  GE_RETURN_IF_ERROR(import_graph(model_.graph(), scope));
  if (uses_default_domain_ && graph->opset_imports().count("") == 0) {
    return parse_error("the model uses ONNX (ai.onnx) operators but has no opset_import for the "
                       "default domain");
  }
  return graph;
}

Status GraphImporter::define(Scope& scope, const std::string& name, Value* value,
                             const std::string& definer) {
  auto [it, inserted] = scope.values.emplace(name, value);
  if (!inserted) {
    return parse_error("value '" + name + "' is defined twice in graph '" + scope.graph->name() +
                       "': by " + scope.definers[name] + " and by " + definer);
  }
  scope.definers.emplace(name, definer);
  return Status::ok();
}

Result<Value*> GraphImporter::resolve(Scope& scope, const std::string& name, const std::string& user) {
  auto local = scope.values.find(name);
  if (local != scope.values.end()) return local->second;
  for (Scope* outer = scope.parent; outer != nullptr; outer = outer->parent) {
    auto found = outer->values.find(name);
    if (found == outer->values.end()) continue;
    // The subgraph refers to an enclosing value: it becomes a capture of this graph.
    Value* capture = scope.graph->add_capture(name, found->second->desc());
    scope.values.emplace(name, capture);
    scope.definers.emplace(name, "a capture of the enclosing scope");
    return capture;
  }
  return parse_error(user + " uses value '" + name + "', which is not defined in graph '" +
                     scope.graph->name() + "'" +
                     (scope.parent != nullptr ? " or any enclosing graph" : ""));
}

Result<Tensor> GraphImporter::constant_value(const onnx::NodeProto& node, const std::string& label) {
  if (node.attribute_size() != 1) {
    return parse_error(label + " must have exactly one value attribute, has " +
                       std::to_string(node.attribute_size()));
  }
  const onnx::AttributeProto& attr = node.attribute(0);
  const std::string& name = attr.name();
  if (name == "sparse_value") {
    return unsupported(label + ": sparse_value (sparse tensor constants) is not supported");
  }
  auto value = onnx_common::attribute_from_proto(attr, base_dir_);
  if (!value.is_ok()) return value.status().with_context(label);
  const Attribute& a = *value;
  auto expect = [&](bool ok) -> Status {
    return ok ? Status::ok()
              : parse_error(label + ": attribute '" + name + "' has type " +
                            attribute_type_name(a.type()));
  };
  if (name == "value") {
    GE_RETURN_IF_ERROR(expect(a.holds<Tensor>()));
    return a.get<Tensor>();
  }
  if (name == "value_float") {
    GE_RETURN_IF_ERROR(expect(a.holds<float>()));
    return Tensor::from_vector<float>({}, {a.get<float>()});
  }
  if (name == "value_floats") {
    GE_RETURN_IF_ERROR(expect(a.holds<std::vector<float>>() || a.holds<std::vector<int64_t>>()));
    if (a.holds<std::vector<int64_t>>()) return Tensor::zeros(DataType::kFloat32, {0});  // empty list
    const auto& v = a.get<std::vector<float>>();
    return Tensor::from_vector<float>({static_cast<int64_t>(v.size())}, v);
  }
  if (name == "value_int") {
    GE_RETURN_IF_ERROR(expect(a.holds<int64_t>()));
    return Tensor::from_vector<int64_t>({}, {a.get<int64_t>()});
  }
  if (name == "value_ints") {
    GE_RETURN_IF_ERROR(expect(a.holds<std::vector<int64_t>>()));
    const auto& v = a.get<std::vector<int64_t>>();
    return Tensor::from_vector<int64_t>({static_cast<int64_t>(v.size())}, v);
  }
  if (name == "value_string") {
    GE_RETURN_IF_ERROR(expect(a.holds<std::string>()));
    return Tensor::from_strings({}, {a.get<std::string>()});
  }
  if (name == "value_strings") {
    GE_RETURN_IF_ERROR(expect(a.holds<std::vector<std::string>>() || a.holds<std::vector<int64_t>>()));
    if (a.holds<std::vector<int64_t>>()) return Tensor::zeros(DataType::kString, {0});
    const auto& v = a.get<std::vector<std::string>>();
    return Tensor::from_strings({static_cast<int64_t>(v.size())}, v);
  }
  return parse_error(label + " has unknown value attribute '" + name + "'");
}

Result<std::shared_ptr<Graph>> GraphImporter::import_subgraph(const onnx::GraphProto& proto,
                                                              Scope& scope,
                                                              const std::string& fallback_name) {
  auto sub = std::make_shared<Graph>(proto.name().empty() ? fallback_name : proto.name());
  sub->set_parent(scope.graph);
  Scope inner;
  inner.graph = sub.get();
  inner.parent = &scope;
  GE_RETURN_IF_ERROR(import_graph(proto, inner));
  return sub;
}

Result<Attribute> GraphImporter::import_attribute(const onnx::AttributeProto& proto, Scope& scope,
                                                  const std::string& label) {
  const std::string attr_label = label + " attribute '" + proto.name() + "'";
  switch (onnx_common::effective_attribute_type(proto)) {
    case onnx::AttributeProto::GRAPH: {
      if (!proto.has_g()) return parse_error(attr_label + " is of type GRAPH but holds no graph");
      auto sub = import_subgraph(proto.g(), scope, scope.graph->name() + "/" + proto.name());
      if (!sub.is_ok()) return sub.status().with_context(attr_label);
      return Attribute(std::move(sub).value());
    }
    case onnx::AttributeProto::GRAPHS: {
      std::vector<Attribute::GraphPtr> graphs;
      for (int i = 0; i < proto.graphs_size(); ++i) {
        auto sub = import_subgraph(proto.graphs(i), scope,
                                   scope.graph->name() + "/" + proto.name() + "_" + std::to_string(i));
        if (!sub.is_ok()) return sub.status().with_context(attr_label);
        graphs.push_back(std::move(sub).value());
      }
      return Attribute(std::move(graphs));
    }
    default: {
      auto value = onnx_common::attribute_from_proto(proto, base_dir_);
      if (!value.is_ok()) return value.status().with_context(label);
      return value;
    }
  }
}

Status GraphImporter::import_graph(const onnx::GraphProto& proto, Scope& scope) {
  Graph& graph = *scope.graph;
  const std::string graph_label = "graph '" + graph.name() + "'";
  if (proto.sparse_initializer_size() > 0) {
    return unsupported(graph_label + " has sparse initializers ('" +
                       proto.sparse_initializer(0).values().name() +
                       "', ...); sparse tensors are not supported");
  }

  // Initializers first by name, so that graph inputs can say which of them they also are.
  std::unordered_map<std::string, const onnx::TensorProto*> initializers;
  for (const auto& init : proto.initializer()) {
    if (init.name().empty()) return parse_error(graph_label + " has an initializer without a name");
    if (!initializers.emplace(init.name(), &init).second) {
      return parse_error(graph_label + " has two initializers named '" + init.name() + "'");
    }
  }
  auto decode = [&](const onnx::TensorProto& init) -> Result<Tensor> {
    auto tensor = onnx_common::tensor_from_proto(init, base_dir_);
    if (!tensor.is_ok()) return tensor.status().with_context(graph_label + " initializer '" + init.name() + "'");
    return tensor;
  };

  // Graph inputs in their declared order; those with an initializer are overridable weights.
  std::unordered_set<std::string> initializer_inputs;
  for (const auto& input : proto.input()) {
    const std::string& name = input.name();
    if (name.empty()) return parse_error(graph_label + " has an input without a name");
    auto init = initializers.find(name);
    Value* value = nullptr;
    if (init != initializers.end()) {
      GE_ASSIGN_OR_RETURN(Tensor tensor, decode(*init->second));
      value = graph.add_initializer(name, std::move(tensor), /*also_input=*/true);
      initializer_inputs.insert(name);
    } else {
      auto desc = onnx_common::desc_from_type_proto(input.type());
      if (!desc.is_ok()) return desc.status().with_context(graph_label + " input '" + name + "'");
      value = graph.add_input(name, std::move(desc).value());
    }
    GE_RETURN_IF_ERROR(define(scope, name, value, "a graph input"));
  }
  for (const auto& init : proto.initializer()) {
    if (initializer_inputs.count(init.name()) != 0) continue;
    GE_ASSIGN_OR_RETURN(Tensor tensor, decode(init));
    Value* value = graph.add_initializer(init.name(), std::move(tensor));
    GE_RETURN_IF_ERROR(define(scope, init.name(), value, "an initializer"));
  }

  // Names taken in this graph, so generated node names never collide.
  std::unordered_set<std::string> taken;
  for (const auto& node : proto.node()) {
    if (!node.name().empty()) taken.insert(node.name());
    for (const auto& out : node.output()) taken.insert(out);
  }
  for (const auto& [name, value] : scope.values) taken.insert(name);
  std::unordered_map<std::string, int64_t> name_counters;
  auto fresh_name = [&](const std::string& op_type) {
    int64_t& counter = name_counters[op_type];
    std::string candidate;
    do {
      candidate = op_type + "_" + std::to_string(counter++);
    } while (taken.count(candidate) != 0);
    taken.insert(candidate);
    return candidate;
  };

  // Phase 1: create every node and define its outputs, so that inputs (and subgraphs'
  // captures) can refer to values defined by later nodes.
  struct Pending {
    const onnx::NodeProto* proto;
    Node* node;
    std::string label;
  };
  std::vector<Pending> pending;
  pending.reserve(proto.node_size());
  for (const auto& node_proto : proto.node()) {
    const std::string& op_type = node_proto.op_type();
    const std::string domain = is_onnx_domain(node_proto.domain()) ? std::string() : node_proto.domain();
    const std::string name = node_proto.name().empty() ? fresh_name(op_type) : node_proto.name();
    const std::string label = node_label(name, op_type);
    if (op_type.empty()) return parse_error(graph_label + ": node '" + name + "' has no op_type");
    if (local_functions_.count(node_proto.domain() + ":" + op_type) != 0) {
      return unsupported(graph_label + ": " + label + " calls the model-local function '" +
                         (domain.empty() ? op_type : domain + "." + op_type) +
                         "'; model-local functions are not supported");
    }
    if (domain.empty()) uses_default_domain_ = true;

    if (domain.empty() && op_type == "Constant") {
      if (node_proto.output_size() != 1) {
        return parse_error(graph_label + ": " + label + " must have exactly one output, has " +
                           std::to_string(node_proto.output_size()));
      }
      if (node_proto.output(0).empty()) continue;  // its only output is unused: nothing to keep
      auto tensor = constant_value(node_proto, label);
      if (!tensor.is_ok()) return tensor.status().with_context(graph_label);
      Value* value = graph.add_initializer(node_proto.output(0), std::move(tensor).value());
      GE_RETURN_IF_ERROR(define(scope, node_proto.output(0), value, label));
      continue;
    }

    std::vector<std::string> output_names(node_proto.output().begin(), node_proto.output().end());
    Node* node = graph.add_node(op_type, {}, output_names.size(), name, output_names, domain);
    for (size_t i = 0; i < output_names.size(); ++i) {
      if (output_names[i].empty()) continue;  // an omitted optional output
      GE_RETURN_IF_ERROR(define(scope, output_names[i], node->output(i), label));
    }
    pending.push_back({&node_proto, node, label});
  }

  // Declared types of intermediate values and outputs, before subgraphs capture them.
  auto apply_type = [&](const onnx::ValueInfoProto& info, const char* what) -> Status {
    if (info.type().value_case() == onnx::TypeProto::VALUE_NOT_SET) return Status::ok();
    auto it = scope.values.find(info.name());
    if (it == scope.values.end()) return Status::ok();  // describes nothing defined here
    Value* value = it->second;
    if (value->producer() == nullptr) return Status::ok();  // inputs and weights keep theirs
    auto desc = onnx_common::desc_from_type_proto(info.type());
    if (!desc.is_ok()) {
      // A type GE cannot hold (a map from ZipMap, say) only loses a hint here: the value
      // stays untyped and whatever consumes it reports the real problem.
      if (desc.status().code() != StatusCode::kUnsupported) {
        return desc.status().with_context(graph_label + " " + what + " '" + info.name() + "'");
      }
      GE_LOG_WARN("{} {} '{}': type ignored: {}", graph_label, what, info.name(),
                  desc.status().message());
      return Status::ok();
    }
    value->set_desc(std::move(desc).value());
    return Status::ok();
  };
  for (const auto& info : proto.value_info()) GE_RETURN_IF_ERROR(apply_type(info, "value_info"));
  for (const auto& info : proto.output()) GE_RETURN_IF_ERROR(apply_type(info, "output"));

  // Phase 2: attributes (subgraphs see every value of this graph) and inputs.
  for (const Pending& item : pending) {
    const std::string context = graph_label + ": " + item.label;
    for (const auto& attr_proto : item.proto->attribute()) {
      if (attr_proto.name().empty()) return parse_error(context + " has an attribute without a name");
      if (item.node->has_attribute(attr_proto.name())) {
        return parse_error(context + " has attribute '" + attr_proto.name() + "' twice");
      }
      auto attr = import_attribute(attr_proto, scope, item.label);
      if (!attr.is_ok()) return attr.status().with_context(graph_label);
      item.node->set_attribute(attr_proto.name(), std::move(attr).value());
    }
    for (const auto& input_name : item.proto->input()) {
      if (input_name.empty()) {
        item.node->add_input(nullptr);  // an omitted optional input
        continue;
      }
      auto value = resolve(scope, input_name, item.label);
      if (!value.is_ok()) return value.status().with_context(graph_label);
      item.node->add_input(*value);
    }
  }

  for (const auto& output : proto.output()) {
    if (output.name().empty()) return parse_error(graph_label + " has an output without a name");
    auto value = resolve(scope, output.name(), graph_label + " output");
    if (!value.is_ok()) return value.status();
    graph.add_output(*value);
  }

  // ONNX requires acyclic graphs; catch a cycle here rather than in a later pass.
  auto order = graph.topological_order();
  if (!order.is_ok()) return parse_error(graph_label + ": " + order.status().message());
  return Status::ok();
}

}  // namespace

int64_t max_supported_onnx_opset() { return onnx_common::kNewestOnnxOpset; }

Result<std::unique_ptr<Graph>> import_model(const onnx::ModelProto& model, const fs::path& base_dir) {
  GE_ASSIGN_OR_RETURN(std::unique_ptr<Graph> graph, GraphImporter(model, base_dir).run());
  GE_RETURN_IF_ERROR(expand_gradients(*graph));
  return graph;
}

}  // namespace ge::onnx_parser
