#include "subgraph_inferencer.h"

#include <utility>

#include "desc_merge.h"
#include "ge/logging.h"
#include "ge/onnx_common/tensor_proto.h"

namespace ge::onnx_ops {
namespace {

/// The inputs that steer If and Loop. libonnx's inference of them never checks these
/// against the schemas' type constraints (B: tensor(bool), I: tensor(int64)), so a float
/// condition or trip count would reach the run and be read as whatever its bits say.
Status check_steering_inputs(const Node& owner) {
  struct Steering {
    const char* op_type;
    size_t index;
    const char* name;
    DataType dtype;
    const char* constraint;
  };
  static constexpr Steering kSteering[] = {
      {"If", 0, "cond", DataType::kBool, "B: tensor(bool)"},
      {"Loop", 0, "M", DataType::kInt64, "I: tensor(int64)"},
      {"Loop", 1, "cond", DataType::kBool, "B: tensor(bool)"},
  };
  if (!owner.domain().empty()) return Status::ok();
  for (const Steering& steering : kSteering) {
    if (owner.op_type() != steering.op_type || steering.index >= owner.input_count()) continue;
    const Value* input = owner.input(steering.index);
    if (input == nullptr) continue;
    const DataType dtype = input->desc().dtype;
    if (dtype == DataType::kUndefined || dtype == steering.dtype) continue;
    return invalid_argument("input " + std::to_string(steering.index) + " '" + steering.name + "' ('" + input->name() +
                            "') is " + input->desc().to_string() + ", but " + steering.op_type + "'s " + steering.name +
                            " must be " + std::string(data_type_name(steering.dtype)) + " (type constraint " +
                            steering.constraint + ")");
  }
  return Status::ok();
}

}  // namespace

SubgraphInferencer::SubgraphInferencer(const Node& owner, std::string attribute_name,
                                       Graph& subgraph, const OpRegistry& registry)
    : owner_(owner),
      attribute_name_(std::move(attribute_name)),
      subgraph_(subgraph),
      registry_(registry) {}

std::vector<const onnx::TypeProto*> SubgraphInferencer::doInferencing(
    const std::vector<const onnx::TypeProto*>& input_types,
    const std::vector<const onnx::TensorProto*>& /*input_data*/) {
  // Input data is not forwarded: infer_graph already offers the subgraph's initializers,
  // and the values ONNX passes here (Loop/Scan state) are never constant.
  if (Status steering = check_steering_inputs(owner_); !steering.is_ok()) throw StatusError(steering);
  std::string where = "subgraph '" + attribute_name_ + "' ('" + subgraph_.name() + "')";
  std::vector<Value*> inputs = subgraph_.runtime_inputs();
  if (input_types.size() != inputs.size()) {
    fail_type_inference(where, " has ", inputs.size(), " inputs but ", owner_.op_type(),
                        " provides ", input_types.size());
  }
  Status status = bind_inputs(input_types);
  if (!status.is_ok()) throw StatusError(status.with_context(where));
  status = registry_.infer_graph(subgraph_);
  output_types_.clear();
  output_types_.reserve(subgraph_.outputs().size());
  if (!status.is_ok()) {
    // A branch of an If may never run (a model's 8 kHz path given 16 kHz input): its
    // failure is not the graph's. Its outputs keep only their declared element types,
    // and the error surfaces at run time, with the same message, if the branch is taken.
    bool typed = owner_.op_type() == "If" && owner_.domain().empty();
    for (const Value* output : subgraph_.outputs()) typed = typed && output->desc().dtype != DataType::kUndefined;
    if (!typed) throw StatusError(status.with_context(where));
    GE_LOG_INFO("{} of {} does not infer ({}); it fails only if taken", where, owner_.describe(), status.message());
    for (const Value* output : subgraph_.outputs()) {
      TensorDesc relaxed = output->desc();
      relaxed.shape.reset();
      output_types_.push_back(onnx_common::desc_to_type_proto(relaxed));
    }
  } else {
    for (const Value* output : subgraph_.outputs()) {
      output_types_.push_back(onnx_common::desc_to_type_proto(output->desc()));
    }
  }
  std::vector<const onnx::TypeProto*> result;
  result.reserve(output_types_.size());
  for (const onnx::TypeProto& type : output_types_) result.push_back(&type);
  return result;
}

Status SubgraphInferencer::bind_inputs(const std::vector<const onnx::TypeProto*>& input_types) {
  std::vector<Value*> inputs = subgraph_.runtime_inputs();
  for (size_t i = 0; i < inputs.size(); ++i) {
    if (input_types[i] == nullptr) continue;  // the op knows nothing about this input
    GE_ASSIGN_OR_RETURN(TensorDesc given, onnx_common::desc_from_type_proto(*input_types[i]));
    GE_ASSIGN_OR_RETURN(TensorDesc merged,
                        merge_inferred_desc(inputs[i]->desc(), given,
                                            "input " + std::to_string(i) + " '" +
                                                inputs[i]->name() + "'"));
    inputs[i]->set_desc(std::move(merged));
  }
  return Status::ok();
}

}  // namespace ge::onnx_ops
