// Col2Im (opset 18): sums the column blocks of input [N, C * prod(block_shape), L] back
// into images [N, C, *image_shape], as PyTorch's fold and the ONNX reference
// (onnx/reference/ops/op_col2im.py, col2im_naive_implementation): block position `k`
// (row-major over block_shape) of sliding block `b` (row-major over the block grid) adds
// to image element b * strides - pads_begin + k * dilations when that lies inside the
// image. The additions run in the reference's order (block positions outer, blocks inner)
// and in the element type (float16/bfloat16 rounded after each, integers wrapping).
// image_shape comes from the output desc; a constant image_shape/block_shape is checked
// in prepare, a runtime one at launch. The images start from the runtime's zeros: the
// kernel declares its output zeroed (atomic clean, ge::ZeroedMemory) and only adds.

#include <optional>
#include <string>
#include <vector>

#include "ge/reference_kernels/spatial_geometry.h"
#include "nn/registration.h"
#include "tensor/tensor_common.h"

namespace ge::reference_kernels {
namespace {

using tensor::Index;
using tensor::IntList;
using tensor::kMaxRank;

constexpr int kMaxSpatial = kMaxRank - 2;

struct Col2ImParams {
  int spatial = 0;                 // number of image axes
  int64_t batch = 0, channels = 0;  // N, C
  int64_t columns = 0, blocks = 0;  // input dims 1 (C * prod(block_shape)) and 2 (L)
  Index image{}, dilations{}, pads_begin{}, pads_end{}, strides{};
  // block_shape: prepared, or read from input 2 at launch.
  bool block_from_input = false;
  Index block{};
  bool image_from_input = false;  // input 1 at launch: must equal `image`
};

// The block grid of `block` for this image; false when some extent is below 1.
bool block_grid(const Col2ImParams& p, const Index& block, Index& grid) {
  for (int d = 0; d < p.spatial; ++d) {
    const int64_t span = p.dilations[d] * (block[d] - 1) + 1;
    const int64_t room = p.image[d] + p.pads_begin[d] + p.pads_end[d] - span;
    if (room < 0) return false;
    grid[d] = room / p.strides[d] + 1;
  }
  return true;
}

// Why `block` cannot fold the input into the image ("" when it can).
std::string block_problem(const Col2ImParams& p, const Index& block) {
  int64_t block_size = 1;
  for (int d = 0; d < p.spatial; ++d) {
    if (block[d] < 1) return "block_shape[" + std::to_string(d) + "] = " + std::to_string(block[d]) + " is below 1";
    block_size *= block[d];
  }
  if (p.channels * block_size != p.columns) {
    return "input dim 1 (" + std::to_string(p.columns) + ") is not C (" + std::to_string(p.channels) +
           ") * the block size " + std::to_string(block_size);
  }
  Index grid{};
  if (!block_grid(p, block, grid)) return "a dilated block does not fit the padded image";
  int64_t blocks = 1;
  for (int d = 0; d < p.spatial; ++d) blocks *= grid[d];
  if (blocks != p.blocks) {
    return "input dim 2 (" + std::to_string(p.blocks) + ") is not the " + std::to_string(blocks) +
           " sliding blocks of the image";
  }
  return "";
}

template <typename T>
int col2im_kernel(const KernelArgs& args) {
  const auto& p = *static_cast<const Col2ImParams*>(args.params);
  Index block = p.block;
  if (p.block_from_input) {
    if (args.inputs[2] == nullptr) return kKernelMissingAddress;
    const IntList values{args.inputs[2], true, p.spatial};
    for (int d = 0; d < p.spatial; ++d) block[d] = values[d];
    if (std::string problem = block_problem(p, block); !problem.empty()) {
      return kernel_error(kKernelRuntimeSizeMismatch, "block_shape: " + problem);
    }
  }
  if (p.image_from_input) {
    if (args.inputs[1] == nullptr) return kKernelMissingAddress;
    const IntList values{args.inputs[1], true, p.spatial};
    for (int d = 0; d < p.spatial; ++d) {
      if (values[d] != p.image[d]) {
        return kernel_error(kKernelRuntimeSizeMismatch, "image_shape[" + std::to_string(d) + "] = " +
                                                            std::to_string(values[d]) + " but the output has " +
                                                            std::to_string(p.image[d]));
      }
    }
  }
  Index grid{};
  if (!block_grid(p, block, grid)) return kKernelRuntimeSizeMismatch;
  int64_t image_size = 1, block_size = 1;
  for (int d = 0; d < p.spatial; ++d) {
    image_size *= p.image[d];
    block_size *= block[d];
  }
  const int64_t images = p.batch * p.channels;
  if (images * image_size == 0) return kKernelOk;
  const auto* x = static_cast<const T*>(args.inputs[0]);
  auto* y = static_cast<T*>(args.outputs[0]);
  if (y == nullptr || (p.blocks * block_size > 0 && x == nullptr)) return kKernelMissingAddress;
  // y holds zeros (ZeroedMemory: zero bytes are 0 in every numeric type).
  for (int64_t image = 0; image < images; ++image) {
    const T* columns = x + image * block_size * p.blocks;
    T* out = y + image * image_size;
    Index k{};  // position inside the block
    for (int64_t k_flat = 0; k_flat < block_size; ++k_flat) {
      Index b{};  // block of the grid
      for (int64_t b_flat = 0; b_flat < p.blocks; ++b_flat) {
        int64_t offset = 0;
        bool inside = true;
        for (int d = 0; d < p.spatial && inside; ++d) {
          const int64_t at = b[d] * p.strides[d] - p.pads_begin[d] + k[d] * p.dilations[d];
          inside = at >= 0 && at < p.image[d];
          offset = offset * p.image[d] + at;
        }
        if (inside) {
          const T value = columns[k_flat * p.blocks + b_flat];
          if constexpr (std::is_integral_v<T>) {
            out[offset] = wrapping_add(out[offset], value);
          } else {
            out[offset] = tensor::store<T>(tensor::load(out[offset]) + tensor::load(value));
          }
        }
        for (int d = p.spatial - 1; d >= 0; --d) {
          if (++b[d] < grid[d]) break;
          b[d] = 0;
        }
      }
      for (int d = p.spatial - 1; d >= 0; --d) {
        if (++k[d] < block[d]) break;
        k[d] = 0;
      }
    }
  }
  return kKernelOk;
}

Result<PreparedKernel> prepare_col2im(const KernelContext& context) {
  const DataType dtype = input_dtype(context, 0);
  GE_ASSIGN_OR_RETURN(std::vector<int64_t> x_dims, input_dims(context, 0));
  if (x_dims.size() != 3) {
    return invalid_node(context, "input 0 " + shape_to_string(x_dims) + " must be 3-D [N, C * prod(block_shape), L]");
  }
  for (size_t index : {size_t{1}, size_t{2}}) {
    const char* role = index == 1 ? "image_shape" : "block_shape";
    if (!has_input(context, index)) {
      return invalid_node(context, "input " + std::to_string(index) + " (" + role + ") is missing");
    }
    GE_RETURN_IF_ERROR(check_input_dtype(context, index, DataType::kInt64));
  }
  GE_ASSIGN_OR_RETURN(std::vector<int64_t> image_dims, input_dims(context, 1));
  GE_ASSIGN_OR_RETURN(std::vector<int64_t> block_dims, input_dims(context, 2));
  if (image_dims.size() != 1 || block_dims != image_dims) {
    return invalid_node(context, "inputs 1 (image_shape) " + shape_to_string(image_dims) + " and 2 (block_shape) " +
                                     shape_to_string(block_dims) + " must be 1-D of the same length");
  }
  const int64_t spatial = image_dims[0];
  if (spatial < 1 || spatial > kMaxSpatial) {
    return unsupported_feature(context, std::to_string(spatial) + " image axes (1-" + std::to_string(kMaxSpatial) +
                                            " are supported)");
  }
  GE_ASSIGN_OR_RETURN(std::vector<int64_t> y_dims, output_dims(context, 0));
  if (static_cast<int64_t>(y_dims.size()) != 2 + spatial || y_dims[0] != x_dims[0]) {
    return invalid_node(context, "output " + shape_to_string(y_dims) + " must be [N = " + std::to_string(x_dims[0]) +
                                     ", C, " + std::to_string(spatial) + " image extents]");
  }
  const auto count = static_cast<size_t>(spatial);
  GE_ASSIGN_OR_RETURN(std::vector<int64_t> dilations, spatial_attribute(context, "dilations", count, 1, 1));
  GE_ASSIGN_OR_RETURN(std::vector<int64_t> strides, spatial_attribute(context, "strides", count, 1, 1));
  GE_ASSIGN_OR_RETURN(std::vector<int64_t> pads, spatial_attribute(context, "pads", 2 * count, 0, 0));

  Col2ImParams p;
  p.spatial = static_cast<int>(spatial);
  p.batch = x_dims[0];
  p.channels = y_dims[1];
  p.columns = x_dims[1];
  p.blocks = x_dims[2];
  for (size_t d = 0; d < count; ++d) {
    p.image[d] = y_dims[2 + d];
    p.dilations[d] = dilations[d];
    p.strides[d] = strides[d];
    p.pads_begin[d] = pads[d];
    p.pads_end[d] = pads[count + d];
  }
  if (std::optional<std::vector<int64_t>> image = tensor::constant_ints(context, 1)) {
    for (size_t d = 0; d < count; ++d) {
      if ((*image)[d] != p.image[d]) {
        return invalid_node(context, "input 1 (image_shape) has " + std::to_string((*image)[d]) + " on image axis " +
                                         std::to_string(d) + " but the output " + shape_to_string(y_dims) +
                                         " has " + std::to_string(p.image[d]));
      }
    }
  } else {
    p.image_from_input = true;
  }
  if (std::optional<std::vector<int64_t>> block = tensor::constant_ints(context, 2)) {
    for (size_t d = 0; d < count; ++d) p.block[d] = (*block)[d];
    if (std::string problem = block_problem(p, p.block); !problem.empty()) {
      return invalid_node(context, "block_shape " + shape_to_string(*block) + ": " + problem);
    }
  } else {
    p.block_from_input = true;
    if (p.channels == 0 ? p.columns != 0 : p.columns % p.channels != 0) {
      return invalid_node(context, "input dim 1 (" + std::to_string(p.columns) + ") is not a multiple of C (" +
                                       std::to_string(p.channels) + ")");
    }
  }
  GE_RETURN_IF_ERROR(check_output(context, 0, dtype, y_dims));
  KernelFunction function =
      select_kernel(dtype, NumericTypes{}, []<typename T>() -> KernelFunction { return &col2im_kernel<T>; });
  if (function == nullptr) return unsupported_dtype(context, dtype, data_types(NumericTypes{}));
  PreparedKernel kernel = make_kernel(context, function, p);
  kernel.zeroed.outputs = 1;  // the images: the runtime zeroes them before each launch
  return kernel;
}

}  // namespace

void add_nn_col2im_kernels(std::vector<OpKernel>& table) {
  table.push_back({"Col2Im", data_types(NumericTypes{}), &prepare_col2im});
}

}  // namespace ge::reference_kernels
