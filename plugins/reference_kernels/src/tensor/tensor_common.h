#pragma once
// Shared pieces of the tensor kernel family (indexing, shape, reductions, ...): element
// types (float16/bfloat16 bit patterns, strings, plain byte blobs for copy-only kernels)
// with copy-only dtype dispatch, launch error codes, reading small integer inputs (starts, axes,
// pads, k) at launch, and a strided walk with its index on the stack. Internal to the
// kernel library.

#include <algorithm>
#include <array>
#include <bit>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <optional>
#include <string>
#include <type_traits>
#include <vector>

#include "common/float_compute.h"
#include "common/strided_loop.h"
#include "ge/reference_kernels/half_float.h"
#include "ge/reference_kernels/kernel_util.h"

namespace ge::reference_kernels::tensor {

/// The highest rank a tensor-family kernel walks (its index lives on the stack).
inline constexpr int kMaxRank = kMaxLoopRank;
using Index = std::array<int64_t, kMaxRank>;

/// The launch error of an index outside [-dim, dim), naming it.
inline int index_out_of_range(int64_t index, int64_t dim) {
  return kernel_error(kKernelIndexOutOfRange,
                      "index " + std::to_string(index) + " is outside [" + std::to_string(-dim) + ", " +
                          std::to_string(dim) + ")");
}

// ---- element types ----

using reference_kernels::bfloat16_from_float;
using reference_kernels::float16_from_float;
using reference_kernels::BFloat16;
using reference_kernels::bfloat16_to_float;
using reference_kernels::Float16;
using reference_kernels::float16_to_float;

using float_compute::Compute;  // float for the 16-bit floats
using float_compute::is_half_v;
using float_compute::load;
using float_compute::store;
template <typename T>
inline constexpr bool is_floating_v = is_half_v<T> || std::is_floating_point_v<T>;

/// Fixed-size elements that copy-only kernels move without looking inside.
template <size_t kBytes>
struct Bytes {
  unsigned char bytes[kBytes];
};

// ---- copy-only dtype dispatch (the typed one is dtype_dispatch.h) ----

/// For copy-only kernels: std::string for strings, Bytes<element size> otherwise; null
/// for kUndefined.
template <typename Make>
KernelFunction select_copy(DataType dtype, Make&& make) {
  if (dtype == DataType::kString) return make.template operator()<std::string>();
  switch (element_size(dtype)) {
    case 1:
      return make.template operator()<Bytes<1>>();
    case 2:
      return make.template operator()<Bytes<2>>();
    case 4:
      return make.template operator()<Bytes<4>>();
    case 8:
      return make.template operator()<Bytes<8>>();
    case 16:
      return make.template operator()<Bytes<16>>();
    default:
      return nullptr;
  }
}

/// Every dtype a copy-only kernel moves: all fixed-size ones and string.
std::vector<DataType> copy_types();

/// Copies `count` elements; std::string elements are assigned, the others memcpy'd.
template <typename T>
void copy_elements(T* to, const T* from, int64_t count) {
  if constexpr (std::is_same_v<T, std::string>) {
    for (int64_t i = 0; i < count; ++i) to[i] = from[i];
  } else {
    if (count > 0) std::memcpy(to, from, static_cast<size_t>(count) * sizeof(T));
  }
}

/// Writes `value` converted to `dtype` (numeric, bool or a 4-/8-bit type) into `out` (at least
/// element_size(dtype) bytes); false for other dtypes.
bool encode_scalar(DataType dtype, double value, unsigned char* out);

// ---- integer inputs read at launch ----

/// A 1-D (or scalar) int32/int64 tensor: an input buffer or a prepared list.
struct IntList {
  const void* data = nullptr;
  bool is_int64 = true;
  int64_t size = 0;

  int64_t operator[](int64_t i) const {
    return is_int64 ? static_cast<const int64_t*>(data)[i] : static_cast<const int32_t*>(data)[i];
  }
};

/// Requires input `index` to be int32 or int64 (kUnsupported otherwise, naming `role`).
Status check_index_dtype(const KernelContext& context, size_t index, std::string_view role);
/// Element count of input `index` when it is present, else 0.
Result<int64_t> input_element_count(const KernelContext& context, size_t index);
/// The integer data of input `index` when it is an initializer/constant, else nullopt.
std::optional<std::vector<int64_t>> constant_ints(const KernelContext& context, size_t index);

/// Reads element `i` of a numeric or bool buffer of `dtype` as int64 (floats truncate
/// toward zero; NaN gives 0).
int64_t read_as_int64(const void* data, DataType dtype, int64_t i);
/// Whether read_as_int64 reads `dtype`.
bool is_readable_as_int64(DataType dtype);

// ---- shapes ----

/// kUnsupported when `rank` exceeds kMaxRank (`what` names the tensor).
Status check_rank(const KernelContext& context, size_t rank, std::string_view what);
/// `values` (at most kMaxRank of them) as a fixed array, zero-filled.
Index to_index(const std::vector<int64_t>& values);

/// A walk over `dims` (row-major) that reads one operand through `strides` from
/// `offset`: the general strided copy (Slice, Expand, DepthToSpace, ...).
struct StridedView {
  int rank = 0;
  Index dims{};
  Index strides{};
  int64_t offset = 0;

  int64_t count() const {
    int64_t n = 1;
    for (int d = 0; d < rank; ++d) n *= dims[d];
    return n;
  }
};

/// Calls `visit(flat, offset)` for every element of `view` in row-major order.
template <typename Visit>
void for_each_offset(const StridedView& view, Visit&& visit) {
  const int64_t total = view.count();
  if (total == 0) return;
  Index index{};
  int64_t offset = view.offset;
  for (int64_t flat = 0; flat < total; ++flat) {
    visit(flat, offset);
    for (int d = view.rank - 1; d >= 0; --d) {
      offset += view.strides[d];
      if (++index[d] < view.dims[d]) break;
      offset -= view.strides[d] * view.dims[d];
      index[d] = 0;
    }
  }
}

/// The same walk with unit dims dropped and dims that continue each other in memory
/// merged, so the innermost dim is as long as it can be.
StridedView coalesced(const StridedView& view);

/// y[flat] = x[offset] over `view`: whole rows at a time where the innermost dim is
/// contiguous.
template <typename T>
void strided_copy(const T* x, T* y, const StridedView& view) {
  const StridedView v = coalesced(view);
  if (v.rank == 0) {
    if (view.count() > 0) y[0] = x[v.offset];
    return;
  }
  const int inner_axis = v.rank - 1;
  const int64_t inner = v.dims[inner_axis];
  const int64_t inner_stride = v.strides[inner_axis];
  StridedView outer = v;
  outer.rank = inner_axis;  // the rows: one visit per row start
  int64_t row = 0;
  for_each_offset(outer, [&](int64_t, int64_t offset) {
    T* out = y + row * inner;
    const T* in = x + offset;
    if (inner_stride == 1) {
      std::copy(in, in + inner, out);
    } else {
      for (int64_t i = 0; i < inner; ++i) out[i] = in[i * inner_stride];
    }
    ++row;
  });
}

/// Row-major strides of `dims` as a fixed array.
Index strides_of(const std::vector<int64_t>& dims);

}  // namespace ge::reference_kernels::tensor
