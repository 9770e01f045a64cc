// Expand and Tile: the output repeats the input. Both read the target shape / repeats
// from an input that shape inference already turned into the output desc, so the kernel
// only needs the two shapes: Expand is a broadcast read (stride 0 on broadcast axes),
// Tile wraps each output coordinate around the input's extent.

#include <string>

#include "tensor/registration.h"
#include "tensor/tensor_common.h"

namespace ge::reference_kernels::tensor {
namespace {

// ---- Expand ----

template <typename T>
int expand_kernel(const KernelArgs& args) {
  const auto& view = *static_cast<const StridedView*>(args.params);
  if (view.count() == 0) return kKernelOk;
  const auto* x = static_cast<const T*>(args.inputs[0]);
  auto* y = static_cast<T*>(args.outputs[0]);
  if (x == nullptr || y == nullptr) return kKernelMissingAddress;
  strided_copy(x, y, view);
  return kKernelOk;
}

Result<PreparedKernel> prepare_expand(const KernelContext& context) {
  const DataType dtype = input_dtype(context, 0);
  GE_ASSIGN_OR_RETURN(std::vector<int64_t> x_dims, input_dims(context, 0));
  GE_ASSIGN_OR_RETURN(std::vector<int64_t> y_dims, output_dims(context, 0));
  GE_RETURN_IF_ERROR(check_rank(context, y_dims.size(), "an output"));
  bool broadcasts = y_dims.size() >= x_dims.size();
  for (size_t i = 0; broadcasts && i < x_dims.size(); ++i) {
    const int64_t x_dim = x_dims[x_dims.size() - 1 - i];
    broadcasts = x_dim == 1 || x_dim == y_dims[y_dims.size() - 1 - i];
  }
  if (!broadcasts) {
    return invalid_node(
        context, "input " + shape_to_string(x_dims) + " does not broadcast to output " + shape_to_string(y_dims));
  }
  GE_RETURN_IF_ERROR(check_output(context, 0, dtype, y_dims));
  StridedView view;
  view.rank = static_cast<int>(y_dims.size());
  view.dims = to_index(y_dims);
  view.strides = to_index(broadcast_strides(x_dims, y_dims.size()));
  KernelFunction function = select_copy(dtype, []<typename T>() -> KernelFunction { return &expand_kernel<T>; });
  if (function == nullptr) return unsupported_dtype(context, dtype, copy_types());
  return make_kernel(context, function, view);
}

// ---- Tile ----

struct TileParams {
  int rank = 0;
  Index x_dims{}, y_dims{}, x_strides{};
  int64_t count = 0;
};

template <typename T>
int tile_kernel(const KernelArgs& args) {
  const auto& p = *static_cast<const TileParams*>(args.params);
  if (p.count == 0) return kKernelOk;
  const auto* x = static_cast<const T*>(args.inputs[0]);
  auto* y = static_cast<T*>(args.outputs[0]);
  if (x == nullptr || y == nullptr) return kKernelMissingAddress;
  // y index and the x index it reads (y index modulo the x dims), advanced together.
  Index y_index{}, x_index{};
  int64_t x_offset = 0;
  for (int64_t flat = 0; flat < p.count; ++flat) {
    y[flat] = x[x_offset];
    for (int d = p.rank - 1; d >= 0; --d) {
      x_offset += p.x_strides[d];
      if (++x_index[d] == p.x_dims[d]) {
        x_index[d] = 0;
        x_offset -= p.x_strides[d] * p.x_dims[d];
      }
      if (++y_index[d] < p.y_dims[d]) break;
      y_index[d] = 0;  // y dims are multiples of x dims: x_index[d] wrapped to 0 too
    }
  }
  return kKernelOk;
}

Result<PreparedKernel> prepare_tile(const KernelContext& context) {
  const DataType dtype = input_dtype(context, 0);
  GE_ASSIGN_OR_RETURN(std::vector<int64_t> x_dims, input_dims(context, 0));
  GE_ASSIGN_OR_RETURN(std::vector<int64_t> y_dims, output_dims(context, 0));
  GE_RETURN_IF_ERROR(check_rank(context, x_dims.size(), "an input"));
  bool tiles = y_dims.size() == x_dims.size();
  for (size_t i = 0; tiles && i < x_dims.size(); ++i) {
    tiles = x_dims[i] == 0 ? y_dims[i] == 0 : y_dims[i] % x_dims[i] == 0;
  }
  if (!tiles) {
    return invalid_node(context,
                        "output " + shape_to_string(y_dims) + " is not a tiling of input " + shape_to_string(x_dims));
  }
  GE_RETURN_IF_ERROR(check_output(context, 0, dtype, y_dims));
  TileParams params{static_cast<int>(x_dims.size()), to_index(x_dims), to_index(y_dims), strides_of(x_dims),
                    product(y_dims)};
  KernelFunction function = select_copy(dtype, []<typename T>() -> KernelFunction { return &tile_kernel<T>; });
  if (function == nullptr) return unsupported_dtype(context, dtype, copy_types());
  return make_kernel(context, function, params);
}

}  // namespace

void add_broadcast_kernels(std::vector<OpKernel>& table) {
  table.push_back({"Expand", copy_types(), &prepare_expand});
  table.push_back({"Tile", copy_types(), &prepare_tile});
}

}  // namespace ge::reference_kernels::tensor
