#include "normalization/nn_normalization_common.h"

#include <optional>
#include <string>

#include "common/strided_loop.h"
#include "nn/nn_element.h"

namespace ge::reference_kernels {

Result<NormalisedView> normalised_view(const KernelContext& context, const std::vector<int64_t>& x_dims) {
  const int64_t rank = static_cast<int64_t>(x_dims.size());
  if (rank < 1) return invalid_node(context, "input X must have rank >= 1");
  GE_ASSIGN_OR_RETURN(int64_t axis_value, int_attribute(context, "axis", -1));
  GE_ASSIGN_OR_RETURN(int64_t axis, normalize_axis(context, "axis", axis_value, rank));
  GE_ASSIGN_OR_RETURN(int64_t stash_type, int_attribute(context, "stash_type", 1));
  if (!is_valid_data_type(static_cast<int32_t>(stash_type)) ||
      !nn::is_floating_dtype(static_cast<DataType>(stash_type))) {
    return invalid_attribute(context, "stash_type", "= " + std::to_string(stash_type) + " is not a floating dtype");
  }
  NormalisedView view;
  GE_ASSIGN_OR_RETURN(view.epsilon, float_attribute(context, "epsilon", 1e-5f));
  view.normalised.assign(x_dims.begin() + axis, x_dims.end());
  view.rows = product(x_dims, 0, static_cast<size_t>(axis));
  view.size = product(view.normalised);
  return view;
}

Result<std::vector<int64_t>> broadcast_index(const KernelContext& context, const char* what,
                                             const std::vector<int64_t>& dims, const std::vector<int64_t>& target) {
  std::optional<std::vector<int64_t>> merged = broadcast_shapes(target, dims);
  if (dims.size() > target.size() || !merged || *merged != target) {
    return invalid_node(context, std::string(what) + " " + shape_to_string(dims) +
                                     " does not broadcast to the normalised shape " + shape_to_string(target));
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

}  // namespace ge::reference_kernels
