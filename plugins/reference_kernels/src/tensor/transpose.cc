// Transpose (opsets 1, 13): output axis i is input axis perm[i]; perm defaults to the
// reversed axes. A strided copy by element size, so every fixed-size dtype works, and
// by std::string assignment for strings.

#include <cstring>
#include <string>

#include "common/strided_loop.h"
#include "tensor/registration.h"
#include "tensor/tensor_common.h"

namespace ge::reference_kernels {
namespace {

struct TransposeParams {
  StridedLoop loop;  // operand 0 is the input
};

// T is tensor::Bytes<element size> or std::string.
template <typename T>
int transpose_kernel(const KernelArgs& args) {
  const auto& p = *static_cast<const TransposeParams*>(args.params);
  const auto* x = static_cast<const T*>(args.inputs[0]);
  auto* y = static_cast<T*>(args.outputs[0]);
  if (p.loop.empty) return kKernelOk;
  if (x == nullptr || y == nullptr) return kKernelMissingAddress;
  const int64_t inner = p.loop.inner_size();
  const int64_t step = p.loop.inner_stride(0);
  for_each_run(p.loop, [&](int64_t row, int64_t x_offset, int64_t) {
    T* out = y + row * inner;
    const T* in = x + x_offset;
    if (step == 1) {
      tensor::copy_elements(out, in, inner);
    } else {
      for (int64_t i = 0; i < inner; ++i) out[i] = in[i * step];
    }
  });
  return kKernelOk;
}

Result<PreparedKernel> prepare_transpose(const KernelContext& context) {
  const DataType dtype = input_dtype(context, 0);
  GE_ASSIGN_OR_RETURN(std::vector<int64_t> x_dims, input_dims(context, 0));
  const size_t rank = x_dims.size();
  std::vector<int64_t> reversed(rank);
  for (size_t i = 0; i < rank; ++i) reversed[i] = static_cast<int64_t>(rank - 1 - i);
  GE_ASSIGN_OR_RETURN(std::vector<int64_t> perm, ints_attribute(context, "perm", reversed));
  std::vector<bool> seen(rank, false);
  bool valid = perm.size() == rank;
  for (size_t i = 0; valid && i < rank; ++i) {
    valid = perm[i] >= 0 && perm[i] < static_cast<int64_t>(rank) && !seen[perm[i]];
    if (valid) seen[perm[i]] = true;
  }
  if (!valid) {
    return invalid_attribute(context, "perm",
                             "= " + shape_to_string(perm) + " is not a permutation of the " + std::to_string(rank) +
                                 " axes of input " + shape_to_string(x_dims));
  }
  const std::vector<int64_t> x_strides = contiguous_strides(x_dims);
  std::vector<int64_t> y_dims(rank), read_strides(rank);
  for (size_t i = 0; i < rank; ++i) {
    y_dims[i] = x_dims[perm[i]];
    read_strides[i] = x_strides[perm[i]];
  }
  GE_RETURN_IF_ERROR(check_output(context, 0, dtype, y_dims));
  std::optional<StridedLoop> loop = make_strided_loop(y_dims, {read_strides});
  if (!loop)
    return unsupported_feature(
        context, "a permutation that keeps more than " + std::to_string(kMaxLoopRank) + " axes after merging");
  TransposeParams params{*loop};
  KernelFunction function =
      tensor::select_copy(dtype, []<typename T>() -> KernelFunction { return &transpose_kernel<T>; });
  if (function == nullptr) return unsupported_dtype(context, dtype, tensor::copy_types());
  return make_kernel(context, function, params);
}

}  // namespace

void add_transpose_kernels(std::vector<OpKernel>& table) {
  table.push_back({"Transpose", tensor::copy_types(), &prepare_transpose});
}

}  // namespace ge::reference_kernels
