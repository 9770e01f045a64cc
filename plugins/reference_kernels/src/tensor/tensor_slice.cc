// Slice. Opsets 1-9 take starts/ends/axes as attributes; from opset 10 they are inputs
// (with optional axes and steps), usually computed at run time, so the kernel reads
// them at launch, clamps them as the spec says (negative values count from the end,
// out-of-range values saturate) and checks that they give the prepared output shape.
// The copy itself is one strided walk.

#include <algorithm>
#include <string>

#include "tensor/registration.h"
#include "tensor/tensor_common.h"

namespace ge::reference_kernels::tensor {
namespace {

struct SliceParams {
  int rank = 0;
  Index x_dims{}, y_dims{}, x_strides{};
  int64_t entries = 0;  // how many axes starts/ends name
  // Attribute form (opsets < 10); otherwise inputs 1-4.
  bool from_inputs = false;
  std::vector<int64_t> starts, ends, axes;
  bool has_axes = false, has_steps = false;
  bool starts64 = true, ends64 = true, axes64 = true, steps64 = true;
};

// The walk for this launch's starts/ends/axes/steps; a TensorKernelError code on bad data.
int slice_view(const SliceParams& p, const KernelArgs& args, StridedView& view) {
  IntList starts, ends, axes, steps;
  if (p.from_inputs) {
    starts = {args.inputs[1], p.starts64, p.entries};
    ends = {args.inputs[2], p.ends64, p.entries};
    if (p.has_axes) axes = {args.inputs[3], p.axes64, p.entries};
    if (p.has_steps) steps = {args.inputs[4], p.steps64, p.entries};
    if (p.entries > 0 && (starts.data == nullptr || ends.data == nullptr || (p.has_axes && axes.data == nullptr) ||
                          (p.has_steps && steps.data == nullptr))) {
      return kKernelMissingAddress;
    }
  } else {
    starts = {p.starts.data(), true, p.entries};
    ends = {p.ends.data(), true, p.entries};
    if (p.has_axes) axes = {p.axes.data(), true, p.entries};
  }
  Index start{}, step{};
  std::array<bool, kMaxRank> seen{};
  for (int d = 0; d < p.rank; ++d) step[d] = 1;
  for (int64_t k = 0; k < p.entries; ++k) {
    int64_t axis = p.has_axes ? axes[k] : k;
    if (axis < 0) axis += p.rank;
    if (axis < 0 || axis >= p.rank || seen[axis]) return kKernelInvalidRuntimeArgument;
    seen[axis] = true;
    const int64_t s = p.has_steps ? steps[k] : 1;
    if (s == 0) return kKernelInvalidRuntimeArgument;
    const int64_t dim = p.x_dims[axis];
    int64_t first = starts[k];
    int64_t last = ends[k];
    if (first < 0) first += dim;
    if (last < 0) last += dim;
    // ceil(span / |step|) as 1 + (span - 1) / |step| in unsigned arithmetic: |step| may
    // be 2^63 and span + |step| would overflow.
    const uint64_t magnitude = s > 0 ? static_cast<uint64_t>(s) : uint64_t{0} - static_cast<uint64_t>(s);
    int64_t span = 0;
    if (s > 0) {
      first = std::clamp<int64_t>(first, 0, dim);
      last = std::clamp<int64_t>(last, 0, dim);
      span = last - first;
    } else if (dim > 0) {
      first = std::clamp<int64_t>(first, 0, dim - 1);
      last = std::clamp<int64_t>(last, -1, dim - 1);
      span = first - last;
    } else {
      first = 0;
    }
    const int64_t count = span > 0 ? 1 + static_cast<int64_t>(static_cast<uint64_t>(span - 1) / magnitude) : 0;
    if (count != p.y_dims[axis]) return kKernelRuntimeShapeMismatch;
    start[axis] = first;
    step[axis] = count > 1 ? s : 1;  // one element: the step is never taken (and |s| * stride could overflow)
  }
  for (int d = 0; d < p.rank; ++d) {
    if (!seen[d] && p.y_dims[d] != p.x_dims[d]) return kKernelRuntimeShapeMismatch;
  }
  view.rank = p.rank;
  view.offset = 0;
  for (int d = 0; d < p.rank; ++d) {
    view.dims[d] = p.y_dims[d];
    view.strides[d] = step[d] * p.x_strides[d];
    view.offset += start[d] * p.x_strides[d];
  }
  return kKernelOk;
}

template <typename T>
int slice_kernel(const KernelArgs& args) {
  const auto& p = *static_cast<const SliceParams*>(args.params);
  StridedView view;
  if (const int code = slice_view(p, args, view); code != kKernelOk) return code;
  if (view.count() == 0) return kKernelOk;
  const auto* x = static_cast<const T*>(args.inputs[0]);
  auto* y = static_cast<T*>(args.outputs[0]);
  if (x == nullptr || y == nullptr) return kKernelMissingAddress;
  strided_copy(x, y, view);
  return kKernelOk;
}

Result<PreparedKernel> prepare_slice(const KernelContext& context) {
  const DataType dtype = input_dtype(context, 0);
  GE_ASSIGN_OR_RETURN(std::vector<int64_t> x_dims, input_dims(context, 0));
  GE_ASSIGN_OR_RETURN(std::vector<int64_t> y_dims, output_dims(context, 0));
  GE_RETURN_IF_ERROR(check_rank(context, x_dims.size(), "an input"));
  if (y_dims.size() != x_dims.size()) {
    return invalid_node(
        context, "output " + shape_to_string(y_dims) + " and input " + shape_to_string(x_dims) + " differ in rank");
  }
  GE_RETURN_IF_ERROR(check_output(context, 0, dtype, y_dims));
  SliceParams params;
  params.rank = static_cast<int>(x_dims.size());
  params.x_dims = to_index(x_dims);
  params.y_dims = to_index(y_dims);
  params.x_strides = strides_of(x_dims);
  if (context.opset < 10) {
    GE_ASSIGN_OR_RETURN(params.starts, ints_attribute(context, "starts", {}));
    GE_ASSIGN_OR_RETURN(params.ends, ints_attribute(context, "ends", {}));
    GE_ASSIGN_OR_RETURN(params.axes, ints_attribute(context, "axes", {}));
    params.has_axes = context.node.has_attribute("axes");
    params.entries = static_cast<int64_t>(params.starts.size());
    if (params.ends.size() != params.starts.size() || (params.has_axes && params.axes.size() != params.starts.size())) {
      return invalid_attribute(context, "ends", "and 'starts' (and 'axes') must have the same length");
    }
  } else {
    params.from_inputs = true;
    GE_RETURN_IF_ERROR(check_index_dtype(context, 1, "starts"));
    GE_RETURN_IF_ERROR(check_index_dtype(context, 2, "ends"));
    GE_ASSIGN_OR_RETURN(params.entries, input_element_count(context, 1));
    params.starts64 = input_dtype(context, 1) == DataType::kInt64;
    params.ends64 = input_dtype(context, 2) == DataType::kInt64;
    params.has_axes = has_input(context, 3);
    params.has_steps = has_input(context, 4);
    if (params.has_axes) {
      GE_RETURN_IF_ERROR(check_index_dtype(context, 3, "axes"));
      params.axes64 = input_dtype(context, 3) == DataType::kInt64;
    }
    if (params.has_steps) {
      GE_RETURN_IF_ERROR(check_index_dtype(context, 4, "steps"));
      params.steps64 = input_dtype(context, 4) == DataType::kInt64;
    }
    for (size_t i = 2; i <= 4; ++i) {
      GE_ASSIGN_OR_RETURN(int64_t count, input_element_count(context, i));
      if (has_input(context, i) && count != params.entries) {
        return invalid_node(context, "input " + std::to_string(i) + " has " + std::to_string(count) +
                                         " elements but starts has " + std::to_string(params.entries));
      }
    }
  }
  if (params.entries > params.rank) {
    return invalid_node(context, "slices " + std::to_string(params.entries) + " axes of a rank-" +
                                     std::to_string(params.rank) + " input");
  }
  KernelFunction function = select_copy(dtype, []<typename T>() -> KernelFunction { return &slice_kernel<T>; });
  if (function == nullptr) return unsupported_dtype(context, dtype, copy_types());
  return make_kernel(context, function, std::move(params));
}

}  // namespace

void add_slice_kernels(std::vector<OpKernel>& table) { table.push_back({"Slice", copy_types(), &prepare_slice}); }

}  // namespace ge::reference_kernels::tensor
