// RMSNormalization (opset 23): X viewed as [rows, size] where size is the product of X's
// dims from `axis` on; each row is divided by its root mean square,
//   Y = X / sqrt(mean(X^2) + epsilon) * scale
// with scale broadcast (unidirectionally) to the normalised shape. Y has scale's type
// (V), which may differ from X's (T). Statistics are computed in double whatever
// stash_type says; the normalised value is rounded to X's type before the scale, as the
// spec's function body casts it back.

#include <cmath>
#include <optional>
#include <string>

#include "nn_element.h"
#include "nn_kernels.h"
#include "op_kernels.h"
#include "strided_loop.h"

namespace ge::cpu_kernels {
namespace {

using nn::load;
using nn::store;

struct RmsNormalizationParams {
  int64_t rows = 0, size = 0;
  double epsilon = 1e-5;
  std::vector<int64_t> scale_index;  // per element of a row: where its scale lives
  DataType scale_dtype = DataType::kUndefined;  // also Y's dtype
};

template <typename T>
int rms_normalization_kernel(const KernelArgs& args) {
  const auto& p = *static_cast<const RmsNormalizationParams*>(args.params);
  const auto* x = static_cast<const T*>(args.inputs[0]);
  const void* scale = args.inputs[1];
  void* y = args.outputs[0];
  if (x == nullptr || scale == nullptr || y == nullptr) return kKernelMissingAddress;
  for (int64_t r = 0; r < p.rows; ++r) {
    const T* row = x + r * p.size;
    double mean_square = 0;
    for (int64_t i = 0; i < p.size; ++i) {
      const double v = load(row[i]);
      mean_square += v * v;
    }
    mean_square /= static_cast<double>(p.size);
    const double inv_rms = 1.0 / std::sqrt(mean_square + p.epsilon);
    for (int64_t i = 0; i < p.size; ++i) {
      const double normalized = load(store<T>(load(row[i]) * inv_rms));
      const double value = normalized * nn::load_as_double(scale, p.scale_dtype, p.scale_index[i]);
      nn::store_from_double(y, p.scale_dtype, r * p.size + i, value);
    }
  }
  return kKernelOk;
}

// Flat index into scale (of `dims`, broadcast unidirectionally to `target`) per element
// of `target`.
Result<std::vector<int64_t>> broadcast_index(const KernelContext& context, const std::vector<int64_t>& dims,
                                             const std::vector<int64_t>& target) {
  std::optional<std::vector<int64_t>> merged = broadcast_shapes(target, dims);
  if (dims.size() > target.size() || !merged || *merged != target) {
    return invalid_node(context, "scale " + shape_to_string(dims) + " does not broadcast to the normalised shape " +
                                     shape_to_string(target));
  }
  const std::vector<int64_t> strides = broadcast_strides(dims, target.size());
  std::vector<int64_t> index(static_cast<size_t>(product(target)));
  std::vector<int64_t> position(target.size(), 0);
  for (size_t flat = 0; flat < index.size(); ++flat) {
    int64_t offset = 0;
    for (size_t d = 0; d < target.size(); ++d) offset += position[d] * strides[d];
    index[flat] = offset;
    for (size_t d = target.size(); d-- > 0;) {
      if (++position[d] < target[d]) break;
      position[d] = 0;
    }
  }
  return index;
}

Result<PreparedKernel> prepare_rms_normalization(const KernelContext& context) {
  const DataType dtype = input_dtype(context, 0);
  GE_ASSIGN_OR_RETURN(std::vector<int64_t> x_dims, input_dims(context, 0));
  const int64_t rank = static_cast<int64_t>(x_dims.size());
  if (rank < 1) return invalid_node(context, "input X must have rank >= 1");
  GE_ASSIGN_OR_RETURN(int64_t axis_value, int_attribute(context, "axis", -1));
  GE_ASSIGN_OR_RETURN(int64_t axis, normalize_axis(context, "axis", axis_value, rank));
  GE_ASSIGN_OR_RETURN(int64_t stash_type, int_attribute(context, "stash_type", 1));
  if (!is_valid_data_type(static_cast<int32_t>(stash_type)) ||
      !nn::is_floating_dtype(static_cast<DataType>(stash_type))) {
    return invalid_attribute(context, "stash_type", "= " + std::to_string(stash_type) + " is not a floating dtype");
  }
  RmsNormalizationParams p;
  GE_ASSIGN_OR_RETURN(float epsilon, float_attribute(context, "epsilon", 1e-5f));
  p.epsilon = epsilon;
  const std::vector<int64_t> normalised(x_dims.begin() + axis, x_dims.end());
  p.rows = product(x_dims, 0, static_cast<size_t>(axis));
  p.size = product(normalised);
  if (!has_input(context, 1)) return invalid_node(context, "input 'scale' is required");
  p.scale_dtype = input_dtype(context, 1);
  if (!nn::is_floating_dtype(p.scale_dtype)) {
    return unsupported_feature(context, "a scale of dtype " + std::string(data_type_name(p.scale_dtype)) +
                                            " (scale and Y must be floating point)");
  }
  GE_ASSIGN_OR_RETURN(std::vector<int64_t> scale_dims, input_dims(context, 1));
  GE_ASSIGN_OR_RETURN(p.scale_index, broadcast_index(context, scale_dims, normalised));
  // Y has scale's type V.
  GE_RETURN_IF_ERROR(check_output(context, 0, p.scale_dtype, x_dims));
  KernelFunction function = nn::select(dtype, nn::FloatingTypes{},
                                       []<typename T>() -> KernelFunction { return &rms_normalization_kernel<T>; });
  if (function == nullptr) return unsupported_dtype(context, dtype, nn::dtypes(nn::FloatingTypes{}));
  return make_kernel(context, function, std::move(p));
}

}  // namespace

void add_nn_rms_normalization_kernels(std::vector<OpKernel>& table) {
  table.push_back({"RMSNormalization", nn::dtypes(nn::FloatingTypes{}), &prepare_rms_normalization});
}

}  // namespace ge::cpu_kernels
