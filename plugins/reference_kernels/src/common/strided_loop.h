#pragma once
// A loop over a contiguous output whose operands are read through strides (0 on
// broadcast axes, permuted for Transpose). Built in prepare, walked at launch without
// allocating: the walk keeps its index on the stack, so the loop rank is bounded.

#include <array>
#include <cstdint>
#include <optional>
#include <vector>

namespace ge::reference_kernels {

/// Axes a strided loop keeps after merging; more is refused in prepare.
inline constexpr int kMaxLoopRank = 16;
/// Operands a strided loop reads.
inline constexpr int kMaxLoopOperands = 2;

struct StridedLoop {
  int rank = 1;        ///< >= 1; the last axis is the inner run
  bool empty = false;  ///< the output has no elements
  std::array<int64_t, kMaxLoopRank> dims{};
  std::array<std::array<int64_t, kMaxLoopRank>, kMaxLoopOperands> strides{};

  int64_t inner_size() const { return dims[rank - 1]; }
  int64_t inner_stride(int operand) const { return strides[operand][rank - 1]; }
};

/// numpy multidirectional broadcast of two shapes; nullopt when they do not broadcast.
std::optional<std::vector<int64_t>> broadcast_shapes(const std::vector<int64_t>& a, const std::vector<int64_t>& b);

/// Element strides of a contiguous tensor of `dims` read as an operand of an output of
/// rank `rank` (right-aligned): 0 on axes where `dims` is 1 or absent.
std::vector<int64_t> broadcast_strides(const std::vector<int64_t>& dims, size_t rank);

/// Plain row-major element strides of `dims`.
std::vector<int64_t> contiguous_strides(const std::vector<int64_t>& dims);

/// A loop over `dims` (the contiguous output) with one stride vector per operand (each
/// of dims.size()). Unit axes are dropped and axes contiguous for every operand merged;
/// nullopt when more than kMaxLoopRank axes remain.
std::optional<StridedLoop> make_strided_loop(const std::vector<int64_t>& dims,
                                             const std::vector<std::vector<int64_t>>& operand_strides);

/// Calls `visit(row, offset0, offset1)` for each inner run in output order: the run
/// writes output elements [row * inner_size(), (row + 1) * inner_size()) and reads
/// operand k from offset_k with inner_stride(k).
template <typename Visit>
void for_each_run(const StridedLoop& loop, Visit&& visit) {
  if (loop.empty) return;
  const int last = loop.rank - 1;
  int64_t rows = 1;
  for (int d = 0; d < last; ++d) rows *= loop.dims[d];
  std::array<int64_t, kMaxLoopRank> index{};
  int64_t offset0 = 0;
  int64_t offset1 = 0;
  for (int64_t row = 0; row < rows; ++row) {
    visit(row, offset0, offset1);
    for (int d = last - 1; d >= 0; --d) {
      ++index[d];
      offset0 += loop.strides[0][d];
      offset1 += loop.strides[1][d];
      if (index[d] < loop.dims[d]) break;
      offset0 -= loop.strides[0][d] * loop.dims[d];
      offset1 -= loop.strides[1][d] * loop.dims[d];
      index[d] = 0;
    }
  }
}

}  // namespace ge::reference_kernels
