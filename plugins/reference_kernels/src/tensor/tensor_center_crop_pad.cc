// CenterCropPad (opset 18): crops or zero-pads the axes named by `axes` (all by default)
// to the extents of the `shape` input, centred: a crop starts at floor((in - out) / 2)
// and a pad puts floor((out - in) / 2) zeros first, the odd one last, as the ONNX
// reference (onnx/reference/ops/op_center_crop_pad.py). The extents come from the output
// desc; a constant `shape` is checked in prepare, a runtime one at launch.

#include <algorithm>
#include <optional>
#include <string>
#include <vector>

#include "tensor/registration.h"
#include "tensor/tensor_common.h"

namespace ge::reference_kernels::tensor {
namespace {

struct CenterCropPadParams {
  int rank = 0;
  Index x_dims{}, y_dims{}, x_strides{};
  Index pad_begin{}, crop_begin{}, kept{};  // per axis: y[i] reads x[i - pad + crop] for i - pad in [0, kept)
  int64_t count = 0;
  // A runtime `shape` input (input 1): its values for `axes` must be the output extents.
  bool shape_from_input = false;
  bool shape64 = true;
  std::vector<int64_t> axes;
};

int check_shape_input(const CenterCropPadParams& p, const KernelArgs& args) {
  if (!p.shape_from_input) return kKernelOk;
  if (!p.axes.empty() && args.inputs[1] == nullptr) return kKernelMissingAddress;
  const IntList shape{args.inputs[1], p.shape64, static_cast<int64_t>(p.axes.size())};
  for (size_t i = 0; i < p.axes.size(); ++i) {
    const int64_t wanted = shape[static_cast<int64_t>(i)];
    if (wanted != p.y_dims[p.axes[i]]) {
      return kernel_error(kKernelRuntimeSizeMismatch, "shape[" + std::to_string(i) + "] = " + std::to_string(wanted) +
                                                          " but the output has " +
                                                          std::to_string(p.y_dims[p.axes[i]]) + " on axis " +
                                                          std::to_string(p.axes[i]));
    }
  }
  return kKernelOk;
}

template <typename T>
int center_crop_pad_kernel(const KernelArgs& args) {
  const auto& p = *static_cast<const CenterCropPadParams*>(args.params);
  if (const int code = check_shape_input(p, args); code != kKernelOk) return code;
  if (p.count == 0) return kKernelOk;
  const auto* x = static_cast<const T*>(args.inputs[0]);
  auto* y = static_cast<T*>(args.outputs[0]);
  if (y == nullptr) return kKernelMissingAddress;
  const T zero{};
  Index index{};
  for (int64_t flat = 0; flat < p.count; ++flat) {
    int64_t offset = 0;
    bool inside = true;
    for (int d = 0; d < p.rank && inside; ++d) {
      const int64_t c = index[d] - p.pad_begin[d];
      inside = c >= 0 && c < p.kept[d];
      offset += (c + p.crop_begin[d]) * p.x_strides[d];
    }
    if (inside && x == nullptr) return kKernelMissingAddress;
    y[flat] = inside ? x[offset] : zero;
    for (int d = p.rank - 1; d >= 0; --d) {
      if (++index[d] < p.y_dims[d]) break;
      index[d] = 0;
    }
  }
  return kKernelOk;
}

Result<PreparedKernel> prepare_center_crop_pad(const KernelContext& context) {
  const DataType dtype = input_dtype(context, 0);
  GE_ASSIGN_OR_RETURN(std::vector<int64_t> x_dims, input_dims(context, 0));
  GE_ASSIGN_OR_RETURN(std::vector<int64_t> y_dims, output_dims(context, 0));
  GE_RETURN_IF_ERROR(check_rank(context, x_dims.size(), "an input"));
  const auto rank = static_cast<int64_t>(x_dims.size());
  if (!has_input(context, 1)) return invalid_node(context, "input 1 (shape) is missing");
  GE_RETURN_IF_ERROR(check_index_dtype(context, 1, "shape"));
  GE_ASSIGN_OR_RETURN(std::vector<int64_t> shape_dims, input_dims(context, 1));
  if (shape_dims.size() > 1) {
    return invalid_node(context, "input 1 (shape) must be 1-D, not " + shape_to_string(shape_dims));
  }

  CenterCropPadParams params;
  std::vector<int64_t> all_axes;
  for (int64_t d = 0; d < rank; ++d) all_axes.push_back(d);
  GE_ASSIGN_OR_RETURN(std::vector<int64_t> axis_values, ints_attribute(context, "axes", all_axes));
  std::vector<bool> seen(static_cast<size_t>(rank), false);
  for (int64_t value : axis_values) {
    GE_ASSIGN_OR_RETURN(int64_t axis, normalize_axis(context, "axes", value, rank));
    if (seen[static_cast<size_t>(axis)]) {
      return invalid_attribute(context, "axes", "names axis " + std::to_string(axis) + " twice");
    }
    seen[static_cast<size_t>(axis)] = true;
    params.axes.push_back(axis);
  }
  GE_ASSIGN_OR_RETURN(int64_t shape_count, input_element_count(context, 1));
  if (shape_count != static_cast<int64_t>(params.axes.size())) {
    return invalid_node(context, "input 1 (shape) holds " + std::to_string(shape_count) + " values for " +
                                     std::to_string(params.axes.size()) + " axes");
  }
  // Axes not named keep their extent; the named ones take the output's, which a
  // constant `shape` must give.
  std::vector<int64_t> expected = x_dims;
  if (y_dims.size() == x_dims.size()) {
    for (int64_t axis : params.axes) expected[axis] = y_dims[axis];
  }
  if (std::optional<std::vector<int64_t>> shape = constant_ints(context, 1)) {
    for (size_t i = 0; i < params.axes.size(); ++i) {
      if ((*shape)[i] < 0) {
        return invalid_node(context, "input 1 (shape) holds the negative extent " + std::to_string((*shape)[i]));
      }
      expected[params.axes[i]] = (*shape)[i];
    }
  } else {
    params.shape_from_input = true;
    params.shape64 = input_dtype(context, 1) == DataType::kInt64;
  }
  GE_RETURN_IF_ERROR(check_output(context, 0, dtype, expected));

  params.rank = static_cast<int>(rank);
  params.x_dims = to_index(x_dims);
  params.y_dims = to_index(expected);
  params.x_strides = strides_of(x_dims);
  params.count = product(expected);
  for (int64_t d = 0; d < rank; ++d) {
    const int64_t in = x_dims[d], out = expected[d];
    params.crop_begin[d] = in > out ? (in - out) / 2 : 0;
    params.pad_begin[d] = out > in ? (out - in) / 2 : 0;
    params.kept[d] = std::min(in, out);
  }
  KernelFunction function =
      select_copy(dtype, []<typename T>() -> KernelFunction { return &center_crop_pad_kernel<T>; });
  if (function == nullptr) return unsupported_dtype(context, dtype, copy_types());
  return make_kernel(context, function, std::move(params));
}

}  // namespace

void add_center_crop_pad_kernels(std::vector<OpKernel>& table) {
  table.push_back({"CenterCropPad", copy_types(), &prepare_center_crop_pad});
}

}  // namespace ge::reference_kernels::tensor
