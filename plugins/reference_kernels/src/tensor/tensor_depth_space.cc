// DepthToSpace (modes DCR and CRD) and SpaceToDepth: both are a reshape, a transpose and
// a reshape of an NCHW tensor, i.e. one 6-D strided read whose walk order is the output
// layout. DepthToSpace walks [N, C/b², H, b, W, b]; SpaceToDepth walks
// [N, b, b, C, H/b, W/b] (output channel (i * b + j) * C + c, as ONNX defines it).

#include <string>

#include "tensor/registration.h"
#include "tensor/tensor_common.h"

namespace ge::reference_kernels::tensor {
namespace {

template <typename T>
int depth_space_kernel(const KernelArgs& args) {
  const auto& view = *static_cast<const StridedView*>(args.params);
  if (view.count() == 0) return kKernelOk;
  const auto* x = static_cast<const T*>(args.inputs[0]);
  auto* y = static_cast<T*>(args.outputs[0]);
  if (x == nullptr || y == nullptr) return kKernelMissingAddress;
  strided_copy(x, y, view);
  return kKernelOk;
}

StridedView make_view(std::array<int64_t, 6> dims, std::array<int64_t, 6> strides) {
  StridedView view;
  view.rank = 6;
  for (int d = 0; d < 6; ++d) {
    view.dims[d] = dims[d];
    view.strides[d] = strides[d];
  }
  return view;
}

Result<PreparedKernel> finish(const KernelContext& context, const StridedView& view) {
  const DataType dtype = input_dtype(context, 0);
  KernelFunction function = select_copy(dtype, []<typename T>() -> KernelFunction { return &depth_space_kernel<T>; });
  if (function == nullptr) return unsupported_dtype(context, dtype, copy_types());
  return make_kernel(context, function, view);
}

Result<int64_t> block_size(const KernelContext& context, const std::vector<int64_t>& x_dims) {
  if (x_dims.size() != 4) return invalid_node(context, "input " + shape_to_string(x_dims) + " must be 4-D (NCHW)");
  GE_ASSIGN_OR_RETURN(int64_t b, int_attribute(context, "blocksize", 0));
  if (b < 1) return invalid_attribute(context, "blocksize", "= " + std::to_string(b) + " must be >= 1");
  return b;
}

Result<PreparedKernel> prepare_depth_to_space(const KernelContext& context) {
  GE_ASSIGN_OR_RETURN(std::vector<int64_t> x_dims, input_dims(context, 0));
  GE_ASSIGN_OR_RETURN(int64_t b, block_size(context, x_dims));
  const int64_t n = x_dims[0], c = x_dims[1], h = x_dims[2], w = x_dims[3];
  if (c % (b * b) != 0) {
    return invalid_node(
        context, "channels " + std::to_string(c) + " are not a multiple of blocksize² = " + std::to_string(b * b));
  }
  GE_ASSIGN_OR_RETURN(std::string mode, string_attribute(context, "mode", "DCR"));
  const int64_t depth = c / (b * b);
  GE_RETURN_IF_ERROR(check_output(context, 0, input_dtype(context, 0), {n, depth, h * b, w * b}));
  const int64_t plane = h * w;
  // Walk (n, c', h, i, w, j); the input channel is (i * b + j) * C' + c' (DCR) or
  // c' * b² + i * b + j (CRD).
  if (mode == "DCR") {
    return finish(context,
                  make_view({n, depth, h, b, w, b}, {c * plane, plane, w, b * depth * plane, 1, depth * plane}));
  }
  if (mode == "CRD") {
    return finish(context, make_view({n, depth, h, b, w, b}, {c * plane, b * b * plane, w, b * plane, 1, plane}));
  }
  return invalid_attribute(context, "mode", "= '" + mode + "' is not DCR or CRD");
}

Result<PreparedKernel> prepare_space_to_depth(const KernelContext& context) {
  GE_ASSIGN_OR_RETURN(std::vector<int64_t> x_dims, input_dims(context, 0));
  GE_ASSIGN_OR_RETURN(int64_t b, block_size(context, x_dims));
  const int64_t n = x_dims[0], c = x_dims[1], h = x_dims[2], w = x_dims[3];
  if (h % b != 0 || w % b != 0) {
    return invalid_node(context, "height and width of " + shape_to_string(x_dims) + " are not multiples of blocksize " +
                                     std::to_string(b));
  }
  GE_RETURN_IF_ERROR(check_output(context, 0, input_dtype(context, 0), {n, c * b * b, h / b, w / b}));
  // Walk (n, i, j, c, h', w') reading x[n, c, h' * b + i, w' * b + j].
  return finish(context, make_view({n, b, b, c, h / b, w / b}, {c * h * w, w, 1, h * w, b * w, b}));
}

}  // namespace

void add_depth_space_kernels(std::vector<OpKernel>& table) {
  table.push_back({"DepthToSpace", copy_types(), &prepare_depth_to_space});
  table.push_back({"SpaceToDepth", copy_types(), &prepare_space_to_depth});
}

}  // namespace ge::reference_kernels::tensor
