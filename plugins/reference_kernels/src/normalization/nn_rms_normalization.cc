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

#include "common/strided_loop.h"
#include "nn/nn_element.h"
#include "normalization/nn_normalization_common.h"
#include "normalization/registration.h"

namespace ge::reference_kernels {
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

Result<PreparedKernel> prepare_rms_normalization(const KernelContext& context) {
  const DataType dtype = input_dtype(context, 0);
  GE_ASSIGN_OR_RETURN(std::vector<int64_t> x_dims, input_dims(context, 0));
  GE_ASSIGN_OR_RETURN(NormalisedView view, normalised_view(context, x_dims));
  const std::vector<int64_t>& normalised = view.normalised;
  RmsNormalizationParams p;
  p.epsilon = view.epsilon;
  p.rows = view.rows;
  p.size = view.size;
  if (!has_input(context, 1)) return invalid_node(context, "input 'scale' is required");
  p.scale_dtype = input_dtype(context, 1);
  if (!nn::is_floating_dtype(p.scale_dtype)) {
    return unsupported_feature(context, "a scale of dtype " + std::string(data_type_name(p.scale_dtype)) +
                                            " (scale and Y must be floating point)");
  }
  GE_ASSIGN_OR_RETURN(std::vector<int64_t> scale_dims, input_dims(context, 1));
  GE_ASSIGN_OR_RETURN(p.scale_index, broadcast_index(context, "scale", scale_dims, normalised));
  // Y has scale's type V.
  GE_RETURN_IF_ERROR(check_output(context, 0, p.scale_dtype, x_dims));
  KernelFunction function = select_kernel(dtype, nn::FloatingTypes{},
                                          []<typename T>() -> KernelFunction { return &rms_normalization_kernel<T>; });
  if (function == nullptr) return unsupported_dtype(context, dtype, data_types(nn::FloatingTypes{}));
  return make_kernel(context, function, std::move(p));
}

}  // namespace

void add_nn_rms_normalization_kernels(std::vector<OpKernel>& table) {
  table.push_back({"RMSNormalization", data_types(nn::FloatingTypes{}), &prepare_rms_normalization});
}

}  // namespace ge::reference_kernels
