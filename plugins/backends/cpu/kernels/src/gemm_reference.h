#pragma once
// The one matrix-multiply loop Conv, Gemm and MatMul share. Plain and cache-blocked,
// written so the compiler vectorises the inner loop; fast paths replace it later.

#include <algorithm>
#include <cstdint>

#include "kernel_util.h"

namespace ge::cpu_kernels {

/// c[m * ldc + n] += sum over k of A(m, k) * B(k, n) for m < rows, n < cols, k < depth, with
/// A(m, k) = a[m * a_row_stride + k * a_col_stride] and
/// B(k, n) = b[k * b_row_stride + n * b_col_stride].
template <typename T>
void gemm_accumulate(int64_t rows, int64_t cols, int64_t depth, const T* a, int64_t a_row_stride,
                     int64_t a_col_stride, const T* b, int64_t b_row_stride, int64_t b_col_stride, T* c,
                     int64_t ldc) {
  if (b_col_stride == 1) {
    // B rows are contiguous: stream them into C rows (i-k-j order), blocked so that a
    // kBlockDepth x kBlockCols panel of B stays in cache across all rows of A.
    constexpr int64_t kBlockDepth = 128;
    constexpr int64_t kBlockCols = 512;
    for (int64_t col_begin = 0; col_begin < cols; col_begin += kBlockCols) {
      const int64_t col_end = std::min(cols, col_begin + kBlockCols);
      for (int64_t depth_begin = 0; depth_begin < depth; depth_begin += kBlockDepth) {
        const int64_t depth_end = std::min(depth, depth_begin + kBlockDepth);
        for (int64_t m = 0; m < rows; ++m) {
          T* c_row = c + m * ldc;
          for (int64_t k = depth_begin; k < depth_end; ++k) {
            const T a_value = a[m * a_row_stride + k * a_col_stride];
            const T* b_row = b + k * b_row_stride;
            for (int64_t n = col_begin; n < col_end; ++n) {
              c_row[n] = wrapping_add(c_row[n], wrapping_mul(a_value, b_row[n]));
            }
          }
        }
      }
    }
    return;
  }
  // B transposed (or strided): one dot product per output element.
  for (int64_t m = 0; m < rows; ++m) {
    for (int64_t n = 0; n < cols; ++n) {
      T sum = T(0);
      for (int64_t k = 0; k < depth; ++k) {
        sum = wrapping_add(sum, wrapping_mul(a[m * a_row_stride + k * a_col_stride], b[k * b_row_stride + n * b_col_stride]));
      }
      c[m * ldc + n] = wrapping_add(c[m * ldc + n], sum);
    }
  }
}

}  // namespace ge::cpu_kernels
