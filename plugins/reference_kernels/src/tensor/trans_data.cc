// ge::TransData(x) -> y: the reorder GE's layout assignment inserts where a value changes
// storage format (TensorDesc::format). The formats come from the input and output descs;
// both share the logical shape [N, C, spatial...]. Supported: plain <-> channel-blocked
// "nC<spatial>Bc" (nChw8c, nChw16c, nCw16c, nCdhw16c, ...) with C a multiple of B, so
// neither side has padding, and plain <-> channels-last "nhwc" (the block is all of C).
// A plain -> plain or equal-format TransData is a copy.

#include <algorithm>
#include <cstring>
#include <string>

#include "tensor/registration.h"

namespace ge::reference_kernels {
namespace {

struct TransDataParams {
  int64_t outer = 0;    // N
  int64_t channels = 0;
  int64_t spatial = 0;  // product of the spatial dims
  int64_t block = 0;    // 0: a plain copy
  bool to_blocked = false;
  size_t bytes = 0;
};

template <typename T>
int trans_data_kernel(const KernelArgs& args) {
  const auto& p = *static_cast<const TransDataParams*>(args.params);
  const auto* x = static_cast<const T*>(args.inputs[0]);
  auto* y = static_cast<T*>(args.outputs[0]);
  if (x == nullptr || y == nullptr) return kKernelMissingAddress;
  if (p.block == 0) {
    if (x != y) std::memcpy(y, x, p.bytes);
    return kKernelOk;
  }
  // Each block of channels is a [block][spatial] plane stored as [spatial][block]:
  // transposed in tiles that stay in cache on both sides.
  constexpr int64_t kTile = 32;
  const int64_t b = p.block, hw = p.spatial, image = p.channels * hw;
  const int64_t rows = p.to_blocked ? b : hw, cols = p.to_blocked ? hw : b;
  for (int64_t n = 0; n < p.outer; ++n) {
    for (int64_t cb = 0; cb < p.channels / b; ++cb) {
      const T* from = x + n * image + cb * b * hw;
      T* to = y + n * image + cb * b * hw;
      for (int64_t r0 = 0; r0 < rows; r0 += kTile) {
        for (int64_t c0 = 0; c0 < cols; c0 += kTile) {
          const int64_t r1 = std::min(r0 + kTile, rows), c1 = std::min(c0 + kTile, cols);
          for (int64_t r = r0; r < r1; ++r) {
            for (int64_t c = c0; c < c1; ++c) to[c * rows + r] = from[r * cols + c];
          }
        }
      }
    }
  }
  return kKernelOk;
}

Result<PreparedKernel> prepare_trans_data(const KernelContext& context) {
  const DataType dtype = input_dtype(context, 0);
  GE_ASSIGN_OR_RETURN(std::vector<int64_t> dims, input_dims(context, 0));
  GE_RETURN_IF_ERROR(check_output(context, 0, dtype, dims));
  const std::string& from = context.node.input(0)->desc().format;
  const std::string& to = context.node.output(0)->desc().format;
  TransDataParams params;
  params.bytes = static_cast<size_t>(product(dims)) * element_size(dtype);
  if (from != to) {
    if (!from.empty() && !to.empty()) {
      return unsupported_feature(context, "a reorder between two non-plain formats (" + from + " -> " + to + ")");
    }
    const std::string& blocked = from.empty() ? to : from;
    const int64_t block =
        is_channels_last_format(blocked, dims.size()) ? dims[1] : channel_block_of_format(blocked, dims.size());
    if (block <= 0) return unsupported_feature(context, "format '" + blocked + "' for shape " + shape_to_string(dims));
    if (dims[1] % block != 0) {
      return invalid_node(context, "format " + blocked + " needs the " + std::to_string(dims[1]) +
                                       " channels to be a multiple of " + std::to_string(block));
    }
    params.outer = dims[0];
    params.channels = dims[1];
    params.spatial = product(dims, 2, dims.size());
    params.block = block;
    params.to_blocked = from.empty();
  }
  KernelFunction function = nullptr;
  switch (element_size(dtype)) {
    case 1: function = &trans_data_kernel<uint8_t>; break;
    case 2: function = &trans_data_kernel<uint16_t>; break;
    case 4: function = &trans_data_kernel<uint32_t>; break;
    case 8: function = &trans_data_kernel<uint64_t>; break;
    default: return unsupported_feature(context, "dtype " + std::string(data_type_name(dtype)));
  }
  return make_kernel(context, function, params, 0, params.block == 0 ? "copy" : "reorder");
}

}  // namespace

int64_t channel_block_of_format(const std::string& format, size_t rank) {
  // "n" "C" <one lowercase letter per spatial axis> <digits> "c"
  if (rank < 3 || format.size() < 4 + (rank - 2) || format[0] != 'n' || format[1] != 'C' || format.back() != 'c') {
    return 0;
  }
  static constexpr const char* kSpatial[] = {"w", "hw", "dhw"};
  if (rank - 2 > 3 || format.compare(2, rank - 2, kSpatial[rank - 3]) != 0) return 0;
  const std::string digits = format.substr(rank, format.size() - rank - 1);
  if (digits == "8") return 8;
  if (digits == "16") return 16;
  return 0;
}

bool is_channels_last_format(const std::string& format, size_t rank) { return rank == 4 && format == "nhwc"; }

void add_trans_data_kernels(std::vector<OpKernel>& table) {
  table.push_back({"ge::TransData", all_fixed_size_types(), &prepare_trans_data});
}

}  // namespace ge::reference_kernels
