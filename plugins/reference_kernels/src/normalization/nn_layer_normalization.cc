// LayerNormalization (opset 17): X viewed as [rows, size] where size is the product of
// X's dims from `axis` on; each row is normalised with its mean and biased variance,
//   Y = (X - mean) / sqrt(var + epsilon) * Scale + B
// with Scale and the optional B broadcast (unidirectionally) to the normalised shape.
// The optional outputs Mean and InvStdDev have X's dims with the normalised ones set to
// 1, in the stash type (float32 for stash_type 1). float16/bfloat16 compute in double
// like the others; statistics are always double so the float32 reference is accurate.

#include <cmath>
#include <string>

#include "common/strided_loop.h"
#include "nn/nn_element.h"
#include "normalization/nn_normalization_common.h"
#include "normalization/registration.h"

namespace ge::reference_kernels {
namespace {

using nn::load;
using nn::store;

struct LayerNormalizationParams {
  int64_t rows = 0, size = 0;
  double epsilon = 1e-5;
  // Per element of a row: where its scale and bias live.
  std::vector<int64_t> scale_index, bias_index;
  bool has_bias = false;
  DataType scale_dtype = DataType::kUndefined, bias_dtype = DataType::kUndefined;
  DataType mean_dtype = DataType::kUndefined, inv_std_dtype = DataType::kUndefined;  // undefined: not produced
};

template <typename T>
int layer_normalization_kernel(const KernelArgs& args) {
  const auto& p = *static_cast<const LayerNormalizationParams*>(args.params);
  const auto* x = static_cast<const T*>(args.inputs[0]);
  const void* scale = args.inputs[1];
  const void* bias = p.has_bias ? args.inputs[2] : nullptr;
  auto* y = static_cast<T*>(args.outputs[0]);
  void* mean_out = p.mean_dtype != DataType::kUndefined ? args.outputs[1] : nullptr;
  void* inv_std_out = p.inv_std_dtype != DataType::kUndefined ? args.outputs[2] : nullptr;
  if (x == nullptr || scale == nullptr || y == nullptr || (p.has_bias && bias == nullptr)) return kKernelMissingAddress;
  for (int64_t r = 0; r < p.rows; ++r) {
    const T* row = x + r * p.size;
    T* out = y + r * p.size;
    double mean = 0;
    for (int64_t i = 0; i < p.size; ++i) mean += load(row[i]);
    mean /= static_cast<double>(p.size);
    double variance = 0;
    for (int64_t i = 0; i < p.size; ++i) {
      const double d = load(row[i]) - mean;
      variance += d * d;
    }
    variance /= static_cast<double>(p.size);
    const double inv_std = 1.0 / std::sqrt(variance + p.epsilon);
    for (int64_t i = 0; i < p.size; ++i) {
      double v = (load(row[i]) - mean) * inv_std * nn::load_as_double(scale, p.scale_dtype, p.scale_index[i]);
      if (bias != nullptr) v += nn::load_as_double(bias, p.bias_dtype, p.bias_index[i]);
      out[i] = store<T>(v);
    }
    if (mean_out != nullptr) nn::store_from_double(mean_out, p.mean_dtype, r, mean);
    if (inv_std_out != nullptr) nn::store_from_double(inv_std_out, p.inv_std_dtype, r, inv_std);
  }
  return kKernelOk;
}

Result<PreparedKernel> prepare_layer_normalization(const KernelContext& context) {
  const DataType dtype = input_dtype(context, 0);
  GE_ASSIGN_OR_RETURN(std::vector<int64_t> x_dims, input_dims(context, 0));
  GE_ASSIGN_OR_RETURN(NormalisedView view, normalised_view(context, x_dims));
  const int64_t rank = static_cast<int64_t>(x_dims.size());
  const int64_t axis = rank - static_cast<int64_t>(view.normalised.size());
  const std::vector<int64_t>& normalised = view.normalised;
  LayerNormalizationParams p;
  p.epsilon = view.epsilon;
  p.rows = view.rows;
  p.size = view.size;
  if (!has_input(context, 1)) return invalid_node(context, "input 'Scale' is required");
  p.scale_dtype = input_dtype(context, 1);
  if (!nn::is_floating_dtype(p.scale_dtype)) return unsupported_feature(context, "a Scale that is not floating point");
  GE_ASSIGN_OR_RETURN(std::vector<int64_t> scale_dims, input_dims(context, 1));
  GE_ASSIGN_OR_RETURN(p.scale_index, broadcast_index(context, "Scale", scale_dims, normalised));
  p.has_bias = has_input(context, 2);
  if (p.has_bias) {
    p.bias_dtype = input_dtype(context, 2);
    if (!nn::is_floating_dtype(p.bias_dtype)) return unsupported_feature(context, "a B that is not floating point");
    GE_ASSIGN_OR_RETURN(std::vector<int64_t> bias_dims, input_dims(context, 2));
    GE_ASSIGN_OR_RETURN(p.bias_index, broadcast_index(context, "B", bias_dims, normalised));
  }
  GE_RETURN_IF_ERROR(check_output(context, 0, dtype, x_dims));
  std::vector<int64_t> stat_dims(x_dims.begin(), x_dims.begin() + axis);
  stat_dims.resize(x_dims.size(), 1);
  for (size_t o = 1; o <= 2; ++o) {
    if (!has_output(context, o)) continue;
    const DataType stat = context.node.output(o)->desc().dtype;
    if (!nn::is_floating_dtype(stat)) {
      return invalid_node(context, "output " + std::to_string(o) + " must be floating point, got " +
                                       std::string(data_type_name(stat)));
    }
    GE_RETURN_IF_ERROR(check_output(context, o, stat, stat_dims));
    (o == 1 ? p.mean_dtype : p.inv_std_dtype) = stat;
  }
  KernelFunction function = select_kernel(
      dtype, nn::FloatingTypes{}, []<typename T>() -> KernelFunction { return &layer_normalization_kernel<T>; });
  return make_kernel(context, function, std::move(p));
}

}  // namespace

void add_nn_layer_normalization_kernels(std::vector<OpKernel>& table) {
  table.push_back({"LayerNormalization", data_types(nn::FloatingTypes{}), &prepare_layer_normalization});
}

}  // namespace ge::reference_kernels
