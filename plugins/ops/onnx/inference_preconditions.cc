#include "inference_preconditions.h"

#include <climits>
#include <cstddef>
#include <string>

#include <onnx/defs/schema.h>

#include "ge/graph_queries.h"

namespace ge::onnx_ops {
namespace {

std::string count_range(int min, int max) {
  if (max == INT_MAX) return "at least " + std::to_string(min);
  if (min == max) return std::to_string(min);
  return std::to_string(min) + " to " + std::to_string(max);
}

std::string schema_name(const onnx::OpSchema& schema) {
  return schema.Name() + "-" + std::to_string(schema.SinceVersion());
}

Status check_counts(const Node& node, const onnx::OpSchema& schema, const std::string& where) {
  const int inputs = static_cast<int>(node.input_count());
  if (inputs < schema.min_input() || inputs > schema.max_input()) {
    return invalid_argument(where + ": has " + std::to_string(inputs) + " inputs but " +
                            schema_name(schema) + " takes " +
                            count_range(schema.min_input(), schema.max_input()));
  }
  const int outputs = static_cast<int>(node.output_count());
  if (outputs < schema.min_output() || outputs > schema.max_output()) {
    return invalid_argument(where + ": has " + std::to_string(outputs) + " outputs but " +
                            schema_name(schema) + " produces " +
                            count_range(schema.min_output(), schema.max_output()));
  }
  const auto& formal = schema.inputs();
  for (size_t i = 0; i < node.input_count() && !formal.empty(); ++i) {
    // Inputs past the formal list belong to the last, variadic parameter.
    const auto& parameter = formal[i < formal.size() ? i : formal.size() - 1];
    if (node.input(i) == nullptr && parameter.GetOption() != onnx::OpSchema::Optional) {
      return invalid_argument(where + ": input " + std::to_string(i) + " ('" +
                              parameter.GetName() + "') is omitted but " + schema_name(schema) +
                              " requires it");
    }
  }
  return Status::ok();
}

// Indices of X and W for the ops whose libonnx inference reads the kernel's spatial dims
// from W and indexes X with them.
bool conv_input_indices(const Node& node, size_t& x_index, size_t& w_index) {
  const std::string& op = node.op_type();
  if (!is_onnx_domain(node)) return false;
  if (op == "Conv" || op == "ConvInteger" || op == "ConvTranspose") {
    x_index = 0;
    w_index = 1;
    return true;
  }
  if (op == "QLinearConv") {
    x_index = 0;
    w_index = 3;
    return true;
  }
  return false;
}

Status check_conv_ranks(const Node& node, const std::string& where) {
  size_t x_index = 0, w_index = 0;
  if (!conv_input_indices(node, x_index, w_index)) return Status::ok();
  const Value* x = node.input(x_index);
  const Value* w = node.input(w_index);
  if (x == nullptr || w == nullptr) return Status::ok();  // reported by check_counts
  const int64_t x_rank = x->desc().rank();
  const int64_t w_rank = w->desc().rank();
  if (x_rank >= 0 && x_rank < 3) {
    return invalid_argument(where + ": input " + std::to_string(x_index) + " '" + x->name() +
                            "' is " + x->desc().to_string() + " (rank " + std::to_string(x_rank) +
                            ") but " + node.op_type() +
                            " needs rank >= 3 (batch, channels and at least one spatial dim)");
  }
  if (x_rank >= 0 && w_rank >= 0 && x_rank != w_rank) {
    return invalid_argument(where + ": weight input " + std::to_string(w_index) + " '" +
                            w->name() + "' is " + w->desc().to_string() + " (rank " +
                            std::to_string(w_rank) + ") but input '" + x->name() + "' is " +
                            x->desc().to_string() + " (rank " + std::to_string(x_rank) +
                            "); their ranks must match");
  }
  return Status::ok();
}

}  // namespace

Status check_inference_preconditions(const Node& node, const onnx::OpSchema& schema,
                                     const std::string& where) {
  GE_RETURN_IF_ERROR(check_counts(node, schema, where));
  return check_conv_ranks(node, where);
}

}  // namespace ge::onnx_ops
