#include "inference_supplements.h"

namespace ge::onnx_ops {
namespace {

bool is_default_domain(const Node& node) {
  return node.domain().empty() || node.domain() == "ai.onnx";
}

void supplement_reshape_rank(const Node& node, std::vector<onnx::TypeProto>& outputs) {
  if (outputs.empty() || node.input_count() < 2 || node.input(1) == nullptr) return;
  onnx::TypeProto& output = outputs[0];
  if (output.value_case() != onnx::TypeProto::kTensorType &&
      output.value_case() != onnx::TypeProto::VALUE_NOT_SET) {
    return;
  }
  if (output.has_tensor_type() && output.tensor_type().has_shape()) return;
  const TensorDesc& shape_desc = node.input(1)->desc();
  if (shape_desc.rank() != 1 || !(*shape_desc.shape)[0].is_static()) return;
  onnx::TensorShapeProto* shape = output.mutable_tensor_type()->mutable_shape();
  for (int64_t i = 0; i < (*shape_desc.shape)[0].value; ++i) shape->add_dim();
}

}  // namespace

void supplement_inference(const Node& node, std::vector<onnx::TypeProto>& outputs) {
  if (is_default_domain(node) && node.op_type() == "Reshape") supplement_reshape_rank(node, outputs);
}

}  // namespace ge::onnx_ops
