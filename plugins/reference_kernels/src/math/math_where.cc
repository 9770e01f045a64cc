// Where: y = condition ? X : Y with the three inputs numpy-broadcast together, for X/Y of
// every dtype (strings included). Fixed-size elements are copied as raw bytes, so one
// kernel per element size serves all dtypes of that size.

#include <array>
#include <string>

#include "common/strided_loop.h"
#include "ge/tensor_desc.h"
#include "math/math_types.h"
#include "math/registration.h"

namespace ge::reference_kernels::math {
namespace {

constexpr int kOperands = 3;  // condition, X, Y

// A loop over the contiguous output reading three broadcast operands, built like
// StridedLoop (unit axes dropped, axes contiguous for every operand merged).
struct WhereParams {
  int rank = 1;
  bool empty = false;
  std::array<int64_t, kMaxLoopRank> dims{};
  std::array<std::array<int64_t, kMaxLoopRank>, kOperands> strides{};
};

struct Bytes16 {
  uint64_t low;
  uint64_t high;
};

template <typename T>
int where_kernel(const KernelArgs& args) {
  const auto& p = *static_cast<const WhereParams*>(args.params);
  const auto* condition = static_cast<const bool*>(args.inputs[0]);
  const auto* x = static_cast<const T*>(args.inputs[1]);
  const auto* y = static_cast<const T*>(args.inputs[2]);
  auto* out = static_cast<T*>(args.outputs[0]);
  if (condition == nullptr || x == nullptr || y == nullptr || out == nullptr) return kKernelMissingAddress;
  if (p.empty) return kKernelOk;
  const int last = p.rank - 1;
  const int64_t inner = p.dims[last];
  const int64_t c_step = p.strides[0][last];
  const int64_t x_step = p.strides[1][last];
  const int64_t y_step = p.strides[2][last];
  int64_t rows = 1;
  for (int d = 0; d < last; ++d) rows *= p.dims[d];
  std::array<int64_t, kMaxLoopRank> index{};
  std::array<int64_t, kOperands> offset{};
  for (int64_t row = 0; row < rows; ++row) {
    T* run = out + row * inner;
    const bool* c_run = condition + offset[0];
    const T* x_run = x + offset[1];
    const T* y_run = y + offset[2];
    for (int64_t i = 0; i < inner; ++i) run[i] = c_run[i * c_step] ? x_run[i * x_step] : y_run[i * y_step];
    for (int d = last - 1; d >= 0; --d) {
      ++index[d];
      for (int k = 0; k < kOperands; ++k) offset[k] += p.strides[k][d];
      if (index[d] < p.dims[d]) break;
      for (int k = 0; k < kOperands; ++k) offset[k] -= p.strides[k][d] * p.dims[d];
      index[d] = 0;
    }
  }
  return kKernelOk;
}

KernelFunction where_function(DataType dtype) {
  if (dtype == DataType::kString) return &where_kernel<std::string>;
  switch (element_size(dtype)) {
    case 1:
      return &where_kernel<uint8_t>;
    case 2:
      return &where_kernel<uint16_t>;
    case 4:
      return &where_kernel<uint32_t>;
    case 8:
      return &where_kernel<uint64_t>;
    case 16:
      return &where_kernel<Bytes16>;
    default:
      return nullptr;
  }
}

Result<PreparedKernel> prepare_where(const KernelContext& context) {
  const DataType dtype = input_dtype(context, 1);
  GE_RETURN_IF_ERROR(check_input_dtype(context, 2, dtype));
  std::array<std::vector<int64_t>, kOperands> dims;
  std::vector<int64_t> y_dims;
  for (int k = 0; k < kOperands; ++k) {
    GE_ASSIGN_OR_RETURN(dims[k], input_dims(context, k));
    std::optional<std::vector<int64_t>> joined = broadcast_shapes(y_dims, dims[k]);
    if (!joined) {
      return invalid_node(context, "input " + std::to_string(k) + " shape " + shape_to_string(dims[k]) +
                                       " does not broadcast with " + shape_to_string(y_dims));
    }
    y_dims = *joined;
  }
  GE_RETURN_IF_ERROR(check_output(context, 0, dtype, y_dims));
  KernelFunction function = where_function(dtype);
  if (function == nullptr) return unsupported_feature(context, "X dtype " + std::string(data_type_name(dtype)));

  // Drop unit axes; merge an axis into the previous kept one when that is contiguous
  // for every operand.
  std::array<std::vector<int64_t>, kOperands> strides;
  for (int k = 0; k < kOperands; ++k) strides[k] = broadcast_strides(dims[k], y_dims.size());
  WhereParams params;
  std::vector<int64_t> kept_dims;
  std::array<std::vector<int64_t>, kOperands> kept_strides;
  for (size_t axis = 0; axis < y_dims.size(); ++axis) {
    if (y_dims[axis] == 0) params.empty = true;
    if (y_dims[axis] == 1) continue;
    bool merge = !kept_dims.empty();
    for (int k = 0; k < kOperands && merge; ++k) merge = kept_strides[k].back() == strides[k][axis] * y_dims[axis];
    if (merge) {
      kept_dims.back() *= y_dims[axis];
      for (int k = 0; k < kOperands; ++k) kept_strides[k].back() = strides[k][axis];
    } else {
      kept_dims.push_back(y_dims[axis]);
      for (int k = 0; k < kOperands; ++k) kept_strides[k].push_back(strides[k][axis]);
    }
  }
  if (kept_dims.empty()) {  // a scalar or all-unit output: one run of one element
    kept_dims.push_back(1);
    for (int k = 0; k < kOperands; ++k) kept_strides[k].push_back(0);
  }
  if (kept_dims.size() > static_cast<size_t>(kMaxLoopRank)) {
    return unsupported_feature(context, "broadcast of rank " + std::to_string(y_dims.size()) +
                                            " that does not merge below " + std::to_string(kMaxLoopRank) + " axes");
  }
  params.rank = static_cast<int>(kept_dims.size());
  for (int d = 0; d < params.rank; ++d) {
    params.dims[d] = kept_dims[d];
    for (int k = 0; k < kOperands; ++k) params.strides[k][d] = kept_strides[k][d];
  }
  return make_kernel(context, function, params);
}

}  // namespace

void add_where_kernels(std::vector<OpKernel>& table) { table.push_back({"Where", {DataType::kBool}, &prepare_where}); }

}  // namespace ge::reference_kernels::math
