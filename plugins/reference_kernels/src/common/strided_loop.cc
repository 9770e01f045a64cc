#include "common/strided_loop.h"

#include <algorithm>

namespace ge::reference_kernels {

std::optional<std::vector<int64_t>> broadcast_shapes(const std::vector<int64_t>& a, const std::vector<int64_t>& b) {
  const size_t rank = std::max(a.size(), b.size());
  std::vector<int64_t> result(rank);
  for (size_t i = 0; i < rank; ++i) {
    const int64_t a_dim = i < rank - a.size() ? 1 : a[i - (rank - a.size())];
    const int64_t b_dim = i < rank - b.size() ? 1 : b[i - (rank - b.size())];
    if (a_dim == b_dim || b_dim == 1) {
      result[i] = a_dim;
    } else if (a_dim == 1) {
      result[i] = b_dim;
    } else {
      return std::nullopt;
    }
  }
  return result;
}

std::vector<int64_t> contiguous_strides(const std::vector<int64_t>& dims) {
  std::vector<int64_t> strides(dims.size(), 1);
  for (size_t i = dims.size(); i-- > 1;) strides[i - 1] = strides[i] * dims[i];
  return strides;
}

std::vector<int64_t> broadcast_strides(const std::vector<int64_t>& dims, size_t rank) {
  std::vector<int64_t> own = contiguous_strides(dims);
  std::vector<int64_t> strides(rank, 0);
  const size_t offset = rank - dims.size();
  for (size_t i = 0; i < dims.size(); ++i) strides[offset + i] = dims[i] == 1 ? 0 : own[i];
  return strides;
}

std::optional<StridedLoop> make_strided_loop(const std::vector<int64_t>& dims,
                                             const std::vector<std::vector<int64_t>>& operand_strides) {
  StridedLoop loop;
  const size_t operands = operand_strides.size();
  // Drop unit axes, then merge an axis into the previous kept one when, for every
  // operand, stepping the outer axis once equals stepping the inner axis dims times.
  std::vector<int64_t> kept_dims;
  std::vector<std::vector<int64_t>> kept_strides(operands);
  for (size_t axis = 0; axis < dims.size(); ++axis) {
    if (dims[axis] == 0) loop.empty = true;
    if (dims[axis] == 1) continue;
    bool merge = !kept_dims.empty();
    for (size_t k = 0; k < operands && merge; ++k) {
      merge = kept_strides[k].back() == operand_strides[k][axis] * dims[axis];
    }
    if (merge) {
      kept_dims.back() *= dims[axis];
      for (size_t k = 0; k < operands; ++k) kept_strides[k].back() = operand_strides[k][axis];
    } else {
      kept_dims.push_back(dims[axis]);
      for (size_t k = 0; k < operands; ++k) kept_strides[k].push_back(operand_strides[k][axis]);
    }
  }
  if (kept_dims.empty()) {  // a scalar or all-unit output: one run of one element
    kept_dims.push_back(1);
    for (size_t k = 0; k < operands; ++k) kept_strides[k].push_back(0);
  }
  if (kept_dims.size() > static_cast<size_t>(kMaxLoopRank)) return std::nullopt;
  loop.rank = static_cast<int>(kept_dims.size());
  for (int d = 0; d < loop.rank; ++d) {
    loop.dims[d] = kept_dims[d];
    for (size_t k = 0; k < operands && k < static_cast<size_t>(kMaxLoopOperands); ++k) {
      loop.strides[k][d] = kept_strides[k][d];
    }
  }
  return loop;
}

}  // namespace ge::reference_kernels
