#include "onnx_op_library.h"

#include <cctype>
#include <climits>
#include <exception>
#include <mutex>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include <onnx/defs/schema.h>
#include <onnx/shape_inference/implementation.h>

#include "attribute_rules.h"
#include "desc_merge.h"
#include "fusion_kind.h"
#include "memory_sharing.h"
#include "inference_preconditions.h"
#include "data_dependent_shapes.h"
#include "inference_supplements.h"
#include "ge/onnx_common/tensor_proto.h"
#include "newer_opsets.h"
#include "node_inference_context.h"
#include "status_error.h"

namespace ge::onnx_ops {
namespace {

// libonnx names the default domain "".
std::string onnx_domain(const std::string& domain) { return domain == "ai.onnx" ? "" : domain; }

std::string display_domain(const std::string& domain) {
  return domain.empty() ? "ai.onnx" : domain;
}

// The schema of an op version: from this plugin's table of opsets 18 to 23 (`newer`
// set; its schema is null for a version GE does not run), else from libonnx's registry.
struct Lookup {
  const onnx::OpSchema* schema = nullptr;
  const NewerVersion* newer = nullptr;
};

Lookup lookup_uncached(const std::string& domain, const std::string& op_type, int64_t opset_version) {
  if (opset_version < 1) return {};
  const std::string libonnx_domain = onnx_domain(domain);
  if (libonnx_domain.empty()) {
    if (const NewerVersion* newer = find_newer_version(op_type, opset_version)) return {newer->schema, newer};
  }
  int version = opset_version > INT_MAX ? INT_MAX : static_cast<int>(opset_version);
  return {onnx::OpSchemaRegistry::Schema(op_type, version, libonnx_domain), nullptr};
}

// Found schemas, memoised: libonnx's registry lookup costs about a microsecond (nested
// string-keyed maps), and the per-op executor infers a data-dependent node on every run.
// Schemas live as long as the process and are never replaced, so a found one stays
// right; a miss is looked up again (a schema registered later is then seen).
Lookup lookup(const std::string& domain, const std::string& op_type, int64_t opset_version) {
  static std::mutex mutex;
  static std::unordered_map<std::string, Lookup> found;
  std::string key = domain;
  key += '\0';
  key += op_type;
  key += '\0';
  key += std::to_string(opset_version);
  {
    std::lock_guard<std::mutex> lock(mutex);
    if (auto it = found.find(key); it != found.end()) return it->second;
  }
  const Lookup result = lookup_uncached(domain, op_type, opset_version);
  if (result.schema != nullptr || result.newer != nullptr) {
    std::lock_guard<std::mutex> lock(mutex);
    found.emplace(std::move(key), result);
  }
  return result;
}

std::string schema_label(const onnx::OpSchema& schema) {
  return schema.Name() + "-" + std::to_string(schema.SinceVersion());
}

/// Whether `value` has the type a schema declares (an int where a float is declared is
/// read as that float; a list imported empty and untyped fits every list type).
bool fits_declared_type(const Attribute& value, onnx::AttributeProto::AttributeType declared) {
  using Proto = onnx::AttributeProto;
  if (value.holds<std::vector<int64_t>>() && value.get<std::vector<int64_t>>().empty()) {
    return declared == Proto::INTS || declared == Proto::FLOATS || declared == Proto::STRINGS ||
           declared == Proto::TENSORS || declared == Proto::GRAPHS || declared == Proto::TYPE_PROTOS;
  }
  switch (value.type()) {
    case AttributeType::kInt:
      return declared == Proto::INT || declared == Proto::FLOAT;
    case AttributeType::kFloat:
      return declared == Proto::FLOAT;
    case AttributeType::kString:
      return declared == Proto::STRING;
    case AttributeType::kTensor:
      return declared == Proto::TENSOR;
    case AttributeType::kGraph:
      return declared == Proto::GRAPH;
    case AttributeType::kInts:
      return declared == Proto::INTS;
    case AttributeType::kFloats:
      return declared == Proto::FLOATS;
    case AttributeType::kStrings:
      return declared == Proto::STRINGS;
    case AttributeType::kTensors:
      return declared == Proto::TENSORS;
    case AttributeType::kGraphs:
      return declared == Proto::GRAPHS;
    case AttributeType::kType:
      return declared == Proto::TYPE_PROTO;
    case AttributeType::kTypes:
      return declared == Proto::TYPE_PROTOS;
  }
  return false;
}

// ONNX's checker refuses attributes a schema does not declare, or of another type; so
// does GE, rather than run the node as if they were absent: Node::get_int("keepdims", 1)
// reads a float keepdims as the default, and so do passes that fuse the node away.
Status check_attributes(const Node& node, const onnx::OpSchema& schema, const std::string& where) {
  const auto& declared = schema.attributes();
  for (const auto& [name, value] : node.attributes()) {
    auto found = declared.find(name);
    if (found == declared.end()) {
      std::string known;
      for (const auto& [declared_name, attribute] : declared) known += (known.empty() ? "" : ", ") + declared_name;
      return invalid_argument(where + ": attribute '" + name + "' is not an attribute of " + schema_label(schema) +
                              " (it has " + (known.empty() ? std::string("none") : known) + ")");
    }
    if (!fits_declared_type(value, found->second.type)) {
      std::string declared_type = onnx::AttributeProto::AttributeType_Name(found->second.type);
      for (char& c : declared_type) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
      return invalid_argument(where + ": attribute '" + name + "' is " + attribute_type_name(value.type()) + ", but " +
                              schema_label(schema) + " declares it " + declared_type);
    }
  }
  return Status::ok();
}

std::string describe_with_opset(const Node& node, int64_t opset_version) {
  return node.describe() + " (" + display_domain(node.domain()) + " opset " +
         std::to_string(opset_version) + ")";
}

// Converts and merges every output first, then writes, so a failure leaves the node as it
// was.
Status write_outputs(Node& node, const std::vector<onnx::TypeProto>& types,
                     const std::string& where) {
  std::vector<std::pair<Value*, TensorDesc>> updates;
  for (size_t i = 0; i < types.size() && i < node.output_count(); ++i) {
    Value* output = node.output(i);
    // Omitted optional outputs have no name and nothing to describe.
    if (output == nullptr || output->name().empty()) continue;
    if (types[i].value_case() == onnx::TypeProto::VALUE_NOT_SET) continue;
    std::string what = where + " output " + std::to_string(i) + " '" + output->name() + "'";
    // A negative extent (ConstantOfShape of [2,-3]) would read as an unknown dim.
    if (types[i].has_tensor_type() && types[i].tensor_type().has_shape()) {
      const onnx::TensorShapeProto& shape = types[i].tensor_type().shape();
      for (int d = 0; d < shape.dim_size(); ++d) {
        if (shape.dim(d).has_dim_value() && shape.dim(d).dim_value() < 0) {
          return invalid_argument(what + ": dim " + std::to_string(d) + " is negative (" +
                                  std::to_string(shape.dim(d).dim_value()) + ")");
        }
      }
    }
    Result<TensorDesc> inferred = onnx_common::desc_from_type_proto(types[i]);
    if (!inferred.is_ok()) return inferred.status().with_context(what);
    GE_ASSIGN_OR_RETURN(TensorDesc merged, merge_inferred_desc(output->desc(), *inferred, what));
    updates.emplace_back(output, std::move(merged));
  }
  for (auto& [output, desc] : updates) output->set_desc(std::move(desc));
  return Status::ok();
}

}  // namespace

const OpSchemaInfo* OnnxOpLibrary::find_schema(const std::string& domain,
                                               const std::string& op_type,
                                               int64_t opset_version) const {
  const Lookup found = lookup(domain, op_type, opset_version);
  const onnx::OpSchema* schema = found.schema;
  std::lock_guard<std::mutex> lock(mutex_);
  if (schema == nullptr) {
    // A version GE knows but does not run: a schema without arity limits, so that infer()
    // is reached and says why.
    if (found.newer == nullptr) return nullptr;
    std::unique_ptr<OpSchemaInfo>& info = unsupported_infos_[found.newer];
    if (!info) {
      info = std::make_unique<OpSchemaInfo>();
      info->domain = "";
      info->op_type = found.newer->op_type;
      info->since_version = found.newer->since_version;
      info->max_inputs = INT_MAX;
      info->max_outputs = INT_MAX;
    }
    return info.get();
  }
  std::unique_ptr<OpSchemaInfo>& info = infos_[schema];
  if (!info) {
    info = std::make_unique<OpSchemaInfo>();
    info->domain = schema->domain();
    info->op_type = schema->Name();
    info->since_version = schema->SinceVersion();
    info->min_inputs = schema->min_input();
    info->max_inputs = schema->max_input();
    info->min_outputs = schema->min_output();
    info->max_outputs = schema->max_output();
    info->fusion_kind = fusion_kind_for(schema->domain(), schema->Name());
    info->deprecated = schema->Deprecated();
    info->in_place = in_place_pairs_for(schema->domain(), schema->Name());
    info->is_view = is_view_op(schema->domain(), schema->Name());
    info->concatenates_along = concatenation_axis_attribute(schema->domain(), schema->Name());
    info->is_constant = is_constant_op(schema->domain(), schema->Name());
  }
  return info.get();
}

Status OnnxOpLibrary::infer(Node& node, int64_t opset_version, const InputDataProvider& data,
                            const OpRegistry& registry) const {
  const std::string where = describe_with_opset(node, opset_version);
  const Lookup found = lookup(node.domain(), node.op_type(), opset_version);
  const onnx::OpSchema* schema = found.schema;
  if (schema == nullptr && found.newer != nullptr) {
    return unsupported(where + ": " + found.newer->op_type + "-" + std::to_string(found.newer->since_version) +
                       " is not supported: " + found.newer->unsupported);
  }
  if (schema == nullptr) {
    return unsupported(where + ": no schema for op '" + node.op_type() + "' in domain '" +
                       display_domain(node.domain()) + "' at opset " + std::to_string(opset_version));
  }
  GE_RETURN_IF_ERROR(check_inference_preconditions(node, *schema, where));
  GE_RETURN_IF_ERROR(check_attributes(node, *schema, where));
  GE_RETURN_IF_ERROR(check_attribute_rules(node, where));
  // Ops defined by a function body (LessOrEqual, MeanVarianceNormalization, ...) have no
  // inference function of their own: libonnx infers them through the body.
  const bool has_function = schema->has_type_and_shape_inference_function();
  const bool has_body = !has_function && schema->HasFunction() && schema->GetFunction() != nullptr;
  if (!has_function && !has_body) return Status::ok();

  std::vector<onnx::TypeProto> inferred;
  try {
    check_inference_data(node, data);
    NodeInferenceContext context(node, *schema, data, registry);
    if (has_function) {
      schema->GetTypeAndShapeInferenceFunction()(context);
    } else {
      onnx::ShapeInferenceOptions strict(/*check_type=*/false, /*strict_mode=*/1);
      onnx::shape_inference::InferShapeForFunctionNode(
          *schema->GetFunction(), onnx::OpSchemaRegistry::Instance(), context, strict);
    }
    inferred = context.output_types();
    supplement_inference(node, data, inferred);
    supplement_data_dependent_shapes(node, data, inferred);
  } catch (const StatusError& failure) {
    return failure.status().with_context(where);
  } catch (const onnx::InferenceError& error) {
    return invalid_argument(where + ": type/shape inference failed: " + error.what());
  } catch (const std::exception& error) {
    return invalid_argument(where + ": type/shape inference failed: " + error.what());
  } catch (...) {
    return internal_error(where + ": type/shape inference threw a non-standard exception");
  }
  return write_outputs(node, inferred, where);
}

}  // namespace ge::onnx_ops
