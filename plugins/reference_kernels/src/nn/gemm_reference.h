#pragma once
// The one matrix-multiply loop Conv, Gemm and MatMul share. Plain C++ the compiler can
// vectorise: the output is computed in small fixed-size tiles whose accumulators stay in
// registers, over cache-sized blocks of the depth and column axes. Fast paths (oneDNN)
// replace it later and are checked against it.

#include <algorithm>
#include <cstdint>
#include <type_traits>

namespace ge::reference_kernels {

/// Integers accumulate in their unsigned type, where overflow wraps instead of being
/// undefined; floating point accumulates in itself.
template <typename T, bool = std::is_integral_v<T>>
struct GemmAccumulatorOf {
  using type = T;
};
template <typename T>
struct GemmAccumulatorOf<T, true> {
  using type = std::make_unsigned_t<T>;
};
template <typename T>
using GemmAccumulator = typename GemmAccumulatorOf<T>::type;

namespace gemm_detail {

// 8 x 8 accumulators fit the 16 SSE registers of baseline x86-64 (no spills) and vectorise
// at any -O level >= 2; measured about 25 GFLOP/s at -O3 on a 64-channel 3x3 conv here.
inline constexpr int64_t kTileRows = 8;
inline constexpr int64_t kTileCols = 8;
inline constexpr int64_t kBlockDepth = 256;  // B panel of kBlockDepth x kBlockCols stays in L2
inline constexpr int64_t kBlockCols = 256;

// c[i * ldc + j] += sum over k < depth of a[i * a_rs + k * a_cs] * b[k * b_rs + j] for
// i < kRows, j < kCols. Fixed extents let the accumulators live in registers.
template <typename T, int64_t kRows, int64_t kCols>
void full_tile(int64_t depth, const T* a, int64_t a_rs, int64_t a_cs, const T* b, int64_t b_rs, T* c, int64_t ldc) {
  using Acc = GemmAccumulator<T>;
  Acc acc[kRows][kCols];
  for (int64_t i = 0; i < kRows; ++i)
    for (int64_t j = 0; j < kCols; ++j) acc[i][j] = static_cast<Acc>(c[i * ldc + j]);
  for (int64_t k = 0; k < depth; ++k) {
    const T* b_row = b + k * b_rs;
    for (int64_t i = 0; i < kRows; ++i) {
      const Acc a_value = static_cast<Acc>(a[i * a_rs + k * a_cs]);
      // Vectorise across the tile's columns, not along k (which GCC -O3 otherwise picks
      // when A is contiguous in k, spilling the accumulators). Needs -fopenmp-simd.
#pragma omp simd
      for (int64_t j = 0; j < kCols; ++j) acc[i][j] += a_value * static_cast<Acc>(b_row[j]);
    }
  }
  for (int64_t i = 0; i < kRows; ++i)
    for (int64_t j = 0; j < kCols; ++j) c[i * ldc + j] = static_cast<T>(acc[i][j]);
}

// The same for a partial tile at the bottom or right edge (rows <= kTileRows, cols <= kTileCols).
template <typename T>
void edge_tile(int64_t rows, int64_t cols, int64_t depth, const T* a, int64_t a_rs, int64_t a_cs, const T* b,
               int64_t b_rs, T* c, int64_t ldc) {
  using Acc = GemmAccumulator<T>;
  for (int64_t i = 0; i < rows; ++i) {
    for (int64_t j = 0; j < cols; ++j) {
      Acc sum = static_cast<Acc>(c[i * ldc + j]);
      for (int64_t k = 0; k < depth; ++k) {
        sum += static_cast<Acc>(a[i * a_rs + k * a_cs]) * static_cast<Acc>(b[k * b_rs + j]);
      }
      c[i * ldc + j] = static_cast<T>(sum);
    }
  }
}

}  // namespace gemm_detail

/// c[m * ldc + n] += sum over k of A(m, k) * B(k, n) for m < rows, n < cols, k < depth, with
/// A(m, k) = a[m * a_row_stride + k * a_col_stride] and
/// B(k, n) = b[k * b_row_stride + n * b_col_stride]. Integer products wrap.
template <typename T>
void gemm_accumulate(int64_t rows, int64_t cols, int64_t depth, const T* a, int64_t a_row_stride, int64_t a_col_stride,
                     const T* b, int64_t b_row_stride, int64_t b_col_stride, T* c, int64_t ldc) {
  static_assert(std::is_floating_point_v<T> || sizeof(T) >= sizeof(int),
                "narrow integers would be promoted to int, where overflow is undefined");
  using namespace gemm_detail;
  using Acc = GemmAccumulator<T>;
  if (b_col_stride != 1) {
    // B transposed (or strided): one dot product per output element.
    for (int64_t m = 0; m < rows; ++m) {
      for (int64_t n = 0; n < cols; ++n) {
        Acc sum = static_cast<Acc>(c[m * ldc + n]);
        for (int64_t k = 0; k < depth; ++k) {
          sum += static_cast<Acc>(a[m * a_row_stride + k * a_col_stride]) *
                 static_cast<Acc>(b[k * b_row_stride + n * b_col_stride]);
        }
        c[m * ldc + n] = static_cast<T>(sum);
      }
    }
    return;
  }
  for (int64_t col_begin = 0; col_begin < cols; col_begin += kBlockCols) {
    const int64_t col_end = std::min(cols, col_begin + kBlockCols);
    for (int64_t depth_begin = 0; depth_begin < depth; depth_begin += kBlockDepth) {
      const int64_t block_depth = std::min(depth, depth_begin + kBlockDepth) - depth_begin;
      const T* a_block = a + depth_begin * a_col_stride;
      const T* b_block = b + depth_begin * b_row_stride;
      for (int64_t m = 0; m < rows; m += kTileRows) {
        const int64_t tile_rows = std::min(kTileRows, rows - m);
        for (int64_t n = col_begin; n < col_end; n += kTileCols) {
          const int64_t tile_cols = std::min(kTileCols, col_end - n);
          const T* a_tile = a_block + m * a_row_stride;
          const T* b_tile = b_block + n;
          T* c_tile = c + m * ldc + n;
          if (tile_rows == kTileRows && tile_cols == kTileCols) {
            full_tile<T, kTileRows, kTileCols>(block_depth, a_tile, a_row_stride, a_col_stride, b_tile, b_row_stride,
                                               c_tile, ldc);
          } else {
            edge_tile(tile_rows, tile_cols, block_depth, a_tile, a_row_stride, a_col_stride, b_tile, b_row_stride,
                      c_tile, ldc);
          }
        }
      }
    }
  }
}

}  // namespace ge::reference_kernels
