// NegativeLogLikelihoodLoss and SoftmaxCrossEntropyLoss (opsets 12-13). The scores are
// [N, C, d1..dk] and the targets [N, d1..dk]; each position's loss is
//   -w[t] * s[n, t, d]        with t = target[n, d] and w = weight (ones when absent),
// where SoftmaxCrossEntropyLoss first replaces s by log_softmax(s) along C (its optional
// second output). A position whose target equals ignore_index contributes 0 with weight 0.
// reduction: none keeps [N, d1..dk]; sum adds; mean divides the sum by the total weight
// of the positions not ignored (0/0 gives NaN, as numpy does). Accumulation in double.

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "common/special_common.h"
#include "training/registration.h"

namespace ge::reference_kernels::special {
namespace {

enum class Reduction { kNone, kSum, kMean };

struct LossParams {
  bool softmax = false;  // SoftmaxCrossEntropyLoss
  int64_t batch = 0;     // N
  int64_t classes = 0;   // C
  int64_t inner = 0;     // d1 * ... * dk
  Reduction reduction = Reduction::kMean;
  bool has_ignore_index = false;
  int64_t ignore_index = 0;
  DataType target_dtype = DataType::kInt64;
  size_t input_count = 0;  // the node's, for the optional weight and log_prob
  size_t output_count = 0;
};

template <typename T>
int loss_kernel(const KernelArgs& args) {
  const auto& p = *static_cast<const LossParams*>(args.params);
  const auto* scores = static_cast<const T*>(args.inputs[0]);
  const void* target = args.inputs[1];
  const auto* weight = static_cast<const T*>(optional_input(args, p.input_count, 2));
  T* loss = static_cast<T*>(args.outputs[0]);
  T* log_prob = p.softmax ? static_cast<T*>(optional_output(args, p.output_count, 1)) : nullptr;
  if (scores == nullptr || target == nullptr || loss == nullptr) return kKernelMissingAddress;
  double total = 0.0;
  double total_weight = 0.0;
  for (int64_t n = 0; n < p.batch; ++n) {
    for (int64_t i = 0; i < p.inner; ++i) {
      const T* line = scores + n * p.classes * p.inner + i;  // the C scores of this position
      double maximum = 0.0, log_sum = 0.0;
      if (p.softmax && p.classes > 0) {
        maximum = load(line[0]);
        for (int64_t c = 1; c < p.classes; ++c) maximum = std::max(maximum, load(line[c * p.inner]));
        double sum = 0.0;
        for (int64_t c = 0; c < p.classes; ++c) sum += std::exp(load(line[c * p.inner]) - maximum);
        log_sum = std::log(sum);
        if (log_prob != nullptr) {
          T* out = log_prob + n * p.classes * p.inner + i;
          for (int64_t c = 0; c < p.classes; ++c) out[c * p.inner] = store<T>(load(line[c * p.inner]) - maximum - log_sum);
        }
      }
      const int64_t position = n * p.inner + i;
      const int64_t t = load_index(target, p.target_dtype, position);
      double value = 0.0, w = 0.0;
      if (!(p.has_ignore_index && t == p.ignore_index)) {
        if (t < 0 || t >= p.classes) return kClassIndexOutOfRange;
        const double score = p.softmax ? load(line[t * p.inner]) - maximum - log_sum : load(line[t * p.inner]);
        w = weight != nullptr ? load(weight[t]) : 1.0;
        value = -score * w;
      }
      if (p.reduction == Reduction::kNone) {
        loss[position] = store<T>(value);
      } else {
        total += value;
        total_weight += w;
      }
    }
  }
  if (p.reduction == Reduction::kSum) loss[0] = store<T>(total);
  if (p.reduction == Reduction::kMean) loss[0] = store<T>(total / total_weight);
  return kKernelOk;
}

Result<PreparedKernel> prepare_loss(const KernelContext& context, bool softmax) {
  const DataType dtype = input_dtype(context, 0);
  const std::vector<DataType> supported = data_types(RealTypes{});
  if (std::find(supported.begin(), supported.end(), dtype) == supported.end()) {
    return unsupported_dtype(context, dtype, supported);
  }
  LossParams p;
  p.softmax = softmax;
  p.input_count = context.node.input_count();
  p.output_count = context.node.output_count();
  GE_ASSIGN_OR_RETURN(std::string reduction, string_attribute(context, "reduction", "mean"));
  if (reduction == "none") {
    p.reduction = Reduction::kNone;
  } else if (reduction == "sum") {
    p.reduction = Reduction::kSum;
  } else if (reduction != "mean") {
    return invalid_attribute(context, "reduction", "is '" + reduction + "'; expected none, sum or mean");
  }
  if (context.node.has_attribute("ignore_index")) {
    GE_ASSIGN_OR_RETURN(p.ignore_index, int_attribute(context, "ignore_index", 0));
    p.has_ignore_index = true;
  }
  GE_ASSIGN_OR_RETURN(std::vector<int64_t> dims, input_dims(context, 0));
  if (dims.size() < 2) return invalid_node(context, "input 0 must be [N, C, d1..dk], got " + shape_to_string(dims));
  p.batch = dims[0];
  p.classes = dims[1];
  p.inner = product(dims, 2, dims.size());

  std::vector<int64_t> target_dims = {dims[0]};
  target_dims.insert(target_dims.end(), dims.begin() + 2, dims.end());
  GE_ASSIGN_OR_RETURN(std::vector<int64_t> actual_target_dims, input_dims(context, 1));
  if (actual_target_dims != target_dims) {
    return invalid_node(context, "input 1 (target) has shape " + shape_to_string(actual_target_dims) + ", expected " +
                                     shape_to_string(target_dims));
  }
  p.target_dtype = input_dtype(context, 1);
  if (p.target_dtype != DataType::kInt32 && p.target_dtype != DataType::kInt64) {
    return unsupported_feature(context, "target of dtype " + std::string(data_type_name(p.target_dtype)));
  }
  if (has_input(context, 2)) {
    GE_RETURN_IF_ERROR(check_input_dtype(context, 2, dtype));
    GE_ASSIGN_OR_RETURN(std::vector<int64_t> weight_dims, input_dims(context, 2));
    if (weight_dims != std::vector<int64_t>{p.classes}) {
      return invalid_node(context, "input 2 (weight) has shape " + shape_to_string(weight_dims) + ", expected [" +
                                       std::to_string(p.classes) + "]");
    }
  }
  GE_RETURN_IF_ERROR(check_output(context, 0, dtype,
                                  p.reduction == Reduction::kNone ? target_dims : std::vector<int64_t>{}));
  if (context.node.output_count() > (softmax ? 2u : 1u)) {
    return invalid_node(context, "has " + std::to_string(context.node.output_count()) + " outputs");
  }
  if (softmax && has_output(context, 1)) GE_RETURN_IF_ERROR(check_output(context, 1, dtype, dims));

  KernelFunction function =
      select_kernel(dtype, RealTypes{}, []<typename T>() -> KernelFunction { return &loss_kernel<T>; });
  return make_kernel(context, function, p);
}

Result<PreparedKernel> prepare_nll(const KernelContext& context) { return prepare_loss(context, false); }
Result<PreparedKernel> prepare_sce(const KernelContext& context) { return prepare_loss(context, true); }

}  // namespace

void add_loss_kernels(std::vector<OpKernel>& table) {
  table.push_back({"NegativeLogLikelihoodLoss", {}, &prepare_nll});
  table.push_back({"SoftmaxCrossEntropyLoss", {}, &prepare_sce});
}

}  // namespace ge::reference_kernels::special
