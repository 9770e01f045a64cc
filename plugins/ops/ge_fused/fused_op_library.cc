#include "fused_op_library.h"

#include <algorithm>
#include <memory>

#include "ge/autofuse/loop_ir.h"

namespace ge::fused_ops {
namespace {

bool is_float(DataType type) {
  return type == DataType::kFloat32 || type == DataType::kFloat64 || type == DataType::kFloat16 ||
         type == DataType::kBFloat16;
}

/// The ge ops' own attributes have their types: Node::get_string and get_floats read one
/// of another type as the default (no activation, the erf form of Gelu).
Status check_own_attribute_types(const Node& node) {
  struct Own {
    const char* name;
    AttributeType type;
  };
  static const Own own[] = {{"activation", AttributeType::kString},
                            {"activation_params", AttributeType::kFloats},
                            {"approximate", AttributeType::kString},
                            {"program", AttributeType::kString}};
  for (const Own& expected : own) {
    const Attribute* a = node.attribute(expected.name);
    if (a == nullptr || a->type() == expected.type) continue;
    // An empty list imported without a type.
    if (a->holds<std::vector<int64_t>>() && a->get<std::vector<int64_t>>().empty() &&
        expected.type == AttributeType::kFloats) {
      continue;
    }
    return invalid_argument(node.describe() + ": attribute '" + expected.name + "' is " +
                            attribute_type_name(a->type()) + ", expected " + attribute_type_name(expected.type));
  }
  return Status::ok();
}

Status check_activation(const Node& node) {
  const std::string activation = node.get_string("activation", "");
  if (activation.empty()) return Status::ok();
  const int expected = activation_param_count(activation);
  if (expected < 0) {
    return invalid_argument(node.describe() + ": attribute 'activation' is '" + activation +
                            "', expected one of Relu, Sigmoid, Tanh, HardSwish, LeakyRelu, HardSigmoid, Clip, Gelu, Swish");
  }
  const std::vector<float> params = node.get_floats("activation_params");
  if (static_cast<int>(params.size()) != expected) {
    return invalid_argument(node.describe() + ": activation " + activation + " takes " + std::to_string(expected) +
                            " activation_params, got " + std::to_string(params.size()));
  }
  return Status::ok();
}

/// Keeps what the node's output already says where the inference left a dim unknown.
TensorDesc merged(const TensorDesc& existing, const TensorDesc& inferred) {
  if (!inferred.has_rank()) return existing.dtype == DataType::kUndefined ? inferred : existing;
  TensorDesc result = inferred;
  if (existing.has_rank() && existing.rank() == inferred.rank()) {
    for (size_t i = 0; i < result.shape->size(); ++i) {
      if (!(*result.shape)[i].is_static() && (*result.shape)[i].symbol.empty())
        (*result.shape)[i] = (*existing.shape)[i];
    }
  }
  return result;
}

/// Infers `node` as the standard op `onnx_type` over its first `input_count` inputs, in a
/// one-node scratch graph, and writes the result into output 0. The scratch graph imports
/// ai.onnx at `min_onnx_opset` or later: the "ge" versions of LayerNormalization and
/// HardSwish exist for models whose opset predates the standard op.
Status infer_as(const std::string& onnx_type, Node& node, size_t input_count, const InputDataProvider& data,
                const OpRegistry& registry, int64_t min_onnx_opset = 1) {
  Graph scratch("infer_" + node.name());
  for (const Graph* g = node.graph(); g != nullptr; g = g->parent()) {
    for (const auto& [domain, version] : g->opset_imports()) {
      if (!scratch.opset_imports().count(domain)) scratch.set_opset_import(domain, version);
    }
  }
  if (scratch.opset_version("") <= 0) scratch.set_opset_import("", 17);
  if (scratch.opset_version("") < min_onnx_opset) scratch.set_opset_import("", min_onnx_opset);
  std::vector<Value*> inputs;
  for (size_t i = 0; i < input_count && i < node.input_count(); ++i) {
    const Value* in = node.input(i);
    const std::string name = "input_" + std::to_string(i);
    const Tensor* known = in != nullptr && data ? data(node, i) : nullptr;
    inputs.push_back(in == nullptr      ? nullptr
                     : known != nullptr ? scratch.add_initializer(name, *known)
                                        : scratch.add_input(name, in->desc()));
  }
  Node* standard = scratch.add_node(onnx_type, inputs, 1, node.name(), {"output_0"});
  for (const auto& [key, attribute] : node.attributes()) {
    if (key != "activation" && key != "activation_params") standard->set_attribute(key, attribute);
  }
  GE_RETURN_IF_ERROR(registry
                         .infer_node(*standard,
                                     [](const Node& n, size_t i) -> const Tensor* {
                                       const Value* v = n.input(i);
                                       return v != nullptr ? v->constant() : nullptr;
                                     })
                         .with_context(node.describe() + " (inferred as " + onnx_type + ")"));
  node.output(0)->set_desc(merged(node.output(0)->desc(), standard->output(0)->desc()));
  return Status::ok();
}

/// Whether `bias` broadcasts to `output` without changing it (numpy rules, one way).
bool broadcasts_into(const TensorDesc& bias, const TensorDesc& output) {
  if (!bias.has_rank() || !output.has_rank()) return true;  // checked again at prepare time
  if (bias.rank() > output.rank()) return false;
  const size_t offset = static_cast<size_t>(output.rank() - bias.rank());
  for (size_t i = 0; i < bias.shape->size(); ++i) {
    const Dim& b = (*bias.shape)[i];
    const Dim& o = (*output.shape)[offset + i];
    if (b.is_static() && b.value != 1 && o.is_static() && b.value != o.value) return false;
  }
  return true;
}

/// ge_autofuse.Fused: the outputs have the dtypes and dims its program lists; every input
/// must have the dtype and dims the program expects.
Status infer_autofused(Node& node) {
  Result<autofuse::Program> parsed = autofuse::parse(node.get_string("program", ""));
  if (!parsed.is_ok()) return invalid_argument(node.describe() + ": attribute 'program': " + parsed.status().message());
  const autofuse::Program& program = parsed.value();
  if (node.input_count() != program.inputs.size() || node.output_count() != program.outputs.size()) {
    return invalid_argument(node.describe() + ": has " + std::to_string(node.input_count()) + " inputs and " +
                            std::to_string(node.output_count()) + " outputs, its program " +
                            std::to_string(program.inputs.size()) + " and " + std::to_string(program.outputs.size()));
  }
  for (size_t i = 0; i < node.input_count(); ++i) {
    const Value* in = node.input(i);
    if (in == nullptr) return invalid_argument(node.describe() + ": input " + std::to_string(i) + " is required");
    const TensorDesc expected = TensorDesc::of(program.inputs[i].dtype, program.inputs[i].dims);
    const TensorDesc& got = in->desc();
    bool matches = got.dtype == expected.dtype || got.dtype == DataType::kUndefined;
    if (matches && got.has_rank()) {
      matches = got.rank() == expected.rank();
      for (size_t d = 0; matches && d < got.shape->size(); ++d) {
        const Dim& dim = (*got.shape)[d];
        matches = !dim.is_static() || dim.value == program.inputs[i].dims[d];
      }
    }
    if (!matches) {
      return invalid_argument(node.describe() + ": input " + std::to_string(i) + " %" + in->name() + " is " +
                              got.to_string() + ", its program expects " + expected.to_string());
    }
  }
  for (size_t i = 0; i < node.output_count(); ++i) {
    TensorDesc desc = TensorDesc::of(program.outputs[i].dtype, program.outputs[i].dims);
    desc.format = node.output(i)->desc().format;
    node.output(i)->set_desc(std::move(desc));
  }
  return Status::ok();
}

/// ge::QLinearAdd(A, A_scale, [A_zero_point], B, B_scale, [B_zero_point], C_scale,
/// [C_zero_point]) {relu}: A and B of one 8-bit type, float32 scalar scales, scalar zero
/// points of that type; C broadcasts A and B as Add does.
Status infer_qlinear_add(Node& node) {
  if (node.input_count() < 7 || node.input_count() > 8 || node.output_count() != 1) {
    return invalid_argument(node.describe() + ": has " + std::to_string(node.input_count()) + " inputs and " +
                            std::to_string(node.output_count()) + " outputs, expected 7..8 inputs and 1 output");
  }
  static const char* const names[] = {"A",       "A_scale",      "A_zero_point", "B",
                                      "B_scale", "B_zero_point", "C_scale",      "C_zero_point"};
  for (size_t i : {0, 1, 3, 4, 6}) {
    if (node.input(i) == nullptr) {
      return invalid_argument(node.describe() + ": input " + std::to_string(i) + " (" + names[i] + ") is required");
    }
  }
  const TensorDesc& a = node.input(0)->desc();
  const TensorDesc& b = node.input(3)->desc();
  const DataType dtype = a.dtype;
  if (dtype != DataType::kUndefined && dtype != DataType::kUInt8 && dtype != DataType::kInt8) {
    return invalid_argument(node.describe() + ": input A is " + a.to_string() + ", expected uint8 or int8");
  }
  for (size_t i = 1; i < node.input_count(); ++i) {
    const Value* in = node.input(i);
    if (in == nullptr) continue;
    const TensorDesc& desc = in->desc();
    const bool scale = i == 1 || i == 4 || i == 6;
    const DataType expected = scale ? DataType::kFloat32 : dtype;
    if (desc.dtype != DataType::kUndefined && expected != DataType::kUndefined && desc.dtype != expected) {
      return invalid_argument(node.describe() + ": input " + names[i] + " %" + in->name() + " is " + desc.to_string() +
                              ", expected " + std::string(data_type_name(expected)));
    }
    if (i == 3) continue;
    if (desc.has_rank() && desc.is_static() && (desc.rank() > 1 || desc.element_count() != 1)) {
      return invalid_argument(node.describe() + ": input " + names[i] + " %" + in->name() + " is " + desc.to_string() +
                              ", expected a scalar (per-tensor quantisation)");
    }
  }
  const int64_t relu = node.get_int("relu", 0);
  if (relu != 0 && relu != 1) {
    return invalid_argument(node.describe() + ": attribute 'relu' is " + std::to_string(relu) + ", expected 0 or 1");
  }
  TensorDesc out;
  out.dtype = dtype;
  if (a.has_rank() && b.has_rank()) {
    const size_t rank = static_cast<size_t>(std::max(a.rank(), b.rank()));
    std::vector<Dim> dims(rank);
    for (size_t k = 0; k < rank; ++k) {
      const size_t from_end = rank - 1 - k;
      const Dim one = Dim::of(1);
      const Dim& x = from_end < a.shape->size() ? (*a.shape)[a.shape->size() - 1 - from_end] : one;
      const Dim& y = from_end < b.shape->size() ? (*b.shape)[b.shape->size() - 1 - from_end] : one;
      if (x == one) {
        dims[k] = y;
      } else if (y == one || x == y) {
        dims[k] = x;
      } else if (x.is_static() && y.is_static()) {
        return invalid_argument(node.describe() + ": A " + a.to_string() + " and B " + b.to_string() +
                                " do not broadcast");
      } else {
        dims[k] = x.is_static() ? x : y.is_static() ? y : Dim::unknown();
      }
    }
    out.shape = std::move(dims);
  }
  out.format = node.output(0)->desc().format;
  node.output(0)->set_desc(merged(node.output(0)->desc(), out));
  return Status::ok();
}

}  // namespace

int activation_param_count(const std::string& activation) {
  static const std::map<std::string, int> counts = {{"Relu", 0},      {"Sigmoid", 0},     {"Tanh", 0}, {"HardSwish", 0},
                                                    {"LeakyRelu", 1}, {"HardSigmoid", 2}, {"Clip", 2}, {"Gelu", 1},
                                                    {"Swish", 0}};
  auto it = counts.find(activation);
  return it == counts.end() ? -1 : it->second;
}

FusedOpLibrary::FusedOpLibrary() {
  auto add = [this](const char* op, int min_inputs, int max_inputs) {
    OpSchemaInfo info;
    info.domain = kDomain;
    info.op_type = op;
    info.since_version = 1;
    info.min_inputs = min_inputs;
    info.max_inputs = max_inputs;
    info.min_outputs = info.max_outputs = 1;
    const std::string name = op;
    info.fusion_kind = name == "Gelu" || name == "HardSwish" ? FusionKind::kElementwise : FusionKind::kOpaque;
    schemas_[op] = info;
  };
  add("FusedConv", 2, 4);           // X, W, [B], [Z: a residual added before the activation]
  add("FusedConvTranspose", 2, 3);  // X, W, [B]
  add("FusedGemm", 2, 3);
  add("FusedMatMul", 2, 3);
  add("Gelu", 1, 1);
  add("LayerNormalization", 2, 3);
  add("HardSwish", 1, 1);
  add("TransData", 1, 1);   // a storage-format reorder (layout assignment): same shape and dtype
  add("QLinearAdd", 7, 8);  // A, A_scale, [A_zp], B, B_scale, [B_zp], C_scale, [C_zp]
  add("ScatterRows", 4, 4);  // data, rows, updates, shape: ScatterElements(data, Expand(rows, shape), updates)
  autofused_.domain = kAutofuseDomain;
  autofused_.op_type = "Fused";
  autofused_.since_version = 1;
  autofused_.min_inputs = 0;
  autofused_.max_inputs = INT32_MAX;
  autofused_.min_outputs = 1;
  autofused_.max_outputs = INT32_MAX;
}

const OpSchemaInfo* FusedOpLibrary::find_schema(const std::string& domain, const std::string& op_type,
                                                int64_t /*opset_version*/) const {
  if (domain == kAutofuseDomain) return op_type == "Fused" ? &autofused_ : nullptr;
  if (domain != kDomain) return nullptr;
  auto it = schemas_.find(op_type);
  return it == schemas_.end() ? nullptr : &it->second;
}

Status FusedOpLibrary::infer(Node& node, int64_t, const InputDataProvider& data, const OpRegistry& registry) const {
  const OpSchemaInfo* schema = find_schema(node.domain(), node.op_type(), 1);
  if (schema == nullptr) return unsupported("op library 'ge_fused' does not know " + node.describe());
  GE_RETURN_IF_ERROR(check_own_attribute_types(node));
  if (schema == &autofused_) return infer_autofused(node);
  if (node.op_type() == "QLinearAdd") return infer_qlinear_add(node);
  if (static_cast<int>(node.input_count()) < schema->min_inputs ||
      static_cast<int>(node.input_count()) > schema->max_inputs || node.output_count() != 1) {
    return invalid_argument(node.describe() + ": has " + std::to_string(node.input_count()) + " inputs and " +
                            std::to_string(node.output_count()) + " outputs, expected " +
                            std::to_string(schema->min_inputs) + ".." + std::to_string(schema->max_inputs) +
                            " inputs and 1 output");
  }
  for (int i = 0; i < schema->min_inputs; ++i) {
    if (node.input(static_cast<size_t>(i)) == nullptr) {
      return invalid_argument(node.describe() + ": input " + std::to_string(i) + " is required");
    }
  }
  if (node.op_type() == "ScatterRows") {
    const TensorDesc& data = node.input(0)->desc();
    const TensorDesc& rows = node.input(1)->desc();
    const TensorDesc& updates = node.input(2)->desc();
    auto is_index = [](DataType t) { return t == DataType::kInt64 || t == DataType::kInt32; };
    if (!is_index(rows.dtype) || node.input(3)->desc().dtype != DataType::kInt64 || updates.dtype != data.dtype) {
      return invalid_argument(node.describe() + ": rows must be int32 or int64, shape int64, and updates " +
                              std::string(data_type_name(updates.dtype)) + " the dtype of data (" +
                              std::string(data_type_name(data.dtype)) + ")");
    }
    if (data.has_rank() && rows.has_rank() && (rows.rank() != data.rank() || data.rank() < 1)) {
      return invalid_argument(node.describe() + ": rows " + rows.to_string() + " must have the rank (>= 1) of data " +
                              data.to_string());
    }
    for (int64_t d = 1; rows.has_rank() && d < rows.rank(); ++d) {
      const Dim& dim = (*rows.shape)[static_cast<size_t>(d)];
      if (dim.is_static() && dim.value != 1) {
        return invalid_argument(node.describe() + ": rows " + rows.to_string() +
                                " must have unit dims after the first");
      }
    }
    TensorDesc out = data;
    out.format = node.output(0)->desc().format;
    node.output(0)->set_desc(merged(node.output(0)->desc(), out));
    return Status::ok();
  }
  if (node.op_type() == "TransData") {
    TensorDesc desc = node.input(0)->desc();
    desc.format = node.output(0)->desc().format;  // the format is the node's purpose, not inferred
    node.output(0)->set_desc(std::move(desc));
    return Status::ok();
  }
  if (node.op_type() == "Gelu") {
    const std::string approximate = node.get_string("approximate", "none");
    if (approximate != "none" && approximate != "tanh") {
      return invalid_argument(node.describe() + ": attribute 'approximate' is '" + approximate +
                              "', expected 'none' or 'tanh'");
    }
    const TensorDesc& x = node.input(0)->desc();
    if (x.dtype != DataType::kUndefined && !is_float(x.dtype)) {
      return invalid_argument(node.describe() + ": input X is " + x.to_string() + ", expected a float tensor");
    }
    node.output(0)->set_desc(merged(node.output(0)->desc(), x));
    return Status::ok();
  }
  if (node.op_type() == "LayerNormalization") return infer_as("LayerNormalization", node, 3, data, registry, 17);
  if (node.op_type() == "HardSwish") return infer_as("HardSwish", node, 1, data, registry, 14);
  GE_RETURN_IF_ERROR(check_activation(node));
  if (node.op_type() == "FusedConv") {
    GE_RETURN_IF_ERROR(infer_as("Conv", node, 3, data, registry));
    if (const Value* z = node.input(3); z != nullptr) {
      const TensorDesc& out = node.output(0)->desc();
      if (z->desc().has_rank() && out.has_rank() && (z->desc().shape != out.shape || z->desc().dtype != out.dtype)) {
        return invalid_argument(node.describe() + ": residual Z %" + z->name() + " is " + z->desc().to_string() +
                                ", the convolution gives " + out.to_string());
      }
    }
    return Status::ok();
  }
  if (node.op_type() == "FusedConvTranspose") return infer_as("ConvTranspose", node, 3, data, registry);
  if (node.op_type() == "FusedGemm") return infer_as("Gemm", node, 3, data, registry);
  GE_RETURN_IF_ERROR(infer_as("MatMul", node, 2, data, registry));
  if (const Value* bias = node.input(2); bias != nullptr) {
    const TensorDesc& out = node.output(0)->desc();
    if (bias->desc().dtype != DataType::kUndefined && bias->desc().dtype != out.dtype) {
      return invalid_argument(node.describe() + ": bias %" + bias->name() + " is " + bias->desc().to_string() +
                              ", the product is " + out.to_string());
    }
    if (!broadcasts_into(bias->desc(), out)) {
      return invalid_argument(node.describe() + ": bias %" + bias->name() + " " + bias->desc().to_string() +
                              " does not broadcast to the product " + out.to_string());
    }
  }
  return Status::ok();
}

}  // namespace ge::fused_ops
