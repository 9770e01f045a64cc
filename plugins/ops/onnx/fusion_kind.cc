#include "fusion_kind.h"

#include <string_view>
#include <unordered_map>

#include "ge/graph_queries.h"

namespace ge::onnx_ops {
namespace {

// Built once on first use; function-local static initialisation is thread-safe and the
// table is never written afterwards.
const std::unordered_map<std::string_view, FusionKind>& fusion_table() {
  static const std::unordered_map<std::string_view, FusionKind> table = [] {
    std::unordered_map<std::string_view, FusionKind> kinds;
    // One input element maps to one output element, same shape.
    for (std::string_view op :
         {"Abs",      "Neg",        "Exp",       "Log",      "Sqrt",    "Reciprocal", "Floor",
          "Ceil",     "Round",      "Sign",      "Sin",      "Cos",     "Tan",        "Asin",
          "Acos",     "Atan",       "Sinh",      "Cosh",     "Asinh",   "Acosh",      "Atanh",
          "Erf",      "Relu",       "LeakyRelu", "Elu",      "Selu",    "Celu",       "Sigmoid",
          "HardSigmoid", "HardSwish", "Tanh",    "Softplus", "Softsign", "ThresholdedRelu",
          "Not",      "IsNaN",      "IsInf",     "Cast",     "CastLike", "Identity",  "Clip"}) {
      kinds.emplace(op, FusionKind::kElementwise);
    }
    // Elementwise under numpy-style broadcasting of several inputs.
    for (std::string_view op :
         {"Add", "Sub", "Mul", "Div", "Pow", "Mod", "And", "Or", "Xor", "Equal", "Less",
          "Greater", "LessOrEqual", "GreaterOrEqual", "Max", "Min", "Sum", "Mean", "Where",
          "PRelu", "BitShift"}) {
      kinds.emplace(op, FusionKind::kBroadcast);
    }
    // Every output element is a copy of one input element (index arithmetic only).
    for (std::string_view op :
         {"Reshape", "Transpose", "Concat", "Slice", "Gather", "GatherElements", "GatherND",
          "Squeeze", "Unsqueeze", "Flatten", "Expand", "Tile", "Pad", "Split", "DepthToSpace",
          "SpaceToDepth"}) {
      kinds.emplace(op, FusionKind::kInjective);
    }
    for (std::string_view op :
         {"ReduceSum", "ReduceMean", "ReduceMax", "ReduceMin", "ReduceProd", "ReduceL1",
          "ReduceL2", "ReduceLogSum", "ReduceLogSumExp", "ReduceSumSquare"}) {
      kinds.emplace(op, FusionKind::kReduction);
    }
    return kinds;
  }();
  return table;
}

}  // namespace

FusionKind fusion_kind_for(const std::string& domain, const std::string& op_type) {
  if (!is_onnx_domain(domain)) return FusionKind::kOpaque;
  const auto& table = fusion_table();
  auto it = table.find(op_type);
  return it == table.end() ? FusionKind::kOpaque : it->second;
}

}  // namespace ge::onnx_ops
