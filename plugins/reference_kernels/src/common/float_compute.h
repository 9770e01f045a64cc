#pragma once
// The one load and store of the kernel families that compute 16-bit floats in float (math
// and tensor): an element widened to its compute type, and a computed value stored back.
// Internal to the kernel library.

#include <algorithm>
#include <cstdint>
#include <span>
#include <type_traits>
#include <utility>

#include "ge/reference_kernels/half_float.h"

namespace ge::reference_kernels::float_compute {

/// True for the 16-bit floats, which kernels compute in float.
template <typename T>
inline constexpr bool is_half_v = std::is_same_v<T, Float16> || std::is_same_v<T, BFloat16>;

/// The type an element of T is computed in: float for the 16-bit floats, T otherwise.
/// Families bring these in with `using float_compute::load;`: a namespace of its own, so
/// that argument-dependent lookup on Float16 does not meet element::load (half_float.h).
template <typename T>
using Compute = std::conditional_t<is_half_v<T>, float, T>;

/// An element as its Compute type: float16/bfloat16 decoded (exactly), others as they are.
template <typename T>
Compute<T> load(T value) {
  if constexpr (std::is_same_v<T, Float16>) {
    return float16_to_float(value.bits);
  } else if constexpr (std::is_same_v<T, BFloat16>) {
    return bfloat16_to_float(value.bits);
  } else {
    return value;
  }
}

/// Stores a computed value (float/double for floating T, T otherwise) as T; the 16-bit
/// floats round to nearest even through float.
template <typename T, typename From>
T store(From value) {
  if constexpr (std::is_same_v<T, Float16>) {
    return Float16{float16_from_float(static_cast<float>(value))};
  } else if constexpr (std::is_same_v<T, BFloat16>) {
    return BFloat16{bfloat16_from_float(static_cast<float>(value))};
  } else {
    return static_cast<T>(value);
  }
}

/// Float16 elements the elementwise engines widen, compute and round a chunk at a time
/// (stack buffers of floats), so that the conversions run vectorised (core's span
/// conversions) rather than element by element.
inline constexpr int64_t kFloat16Chunk = 512;

/// out[k] = the float of element (start + k) * step of `run` for k < count (step 0: the
/// first element, repeated).
inline void widen(const Float16* run, int64_t step, int64_t start, int64_t count, float* out) {
  if (step == 1) {
    float16_to_float(std::span<const uint16_t>(&run[start].bits, static_cast<size_t>(count)),
                     std::span<float>(out, static_cast<size_t>(count)));
  } else if (step == 0) {
    std::fill_n(out, count, float16_to_float(run->bits));
  } else {
    for (int64_t k = 0; k < count; ++k) out[k] = float16_to_float(run[(start + k) * step].bits);
  }
}

/// y[k] = values[k] rounded to float16 (nearest even) for k < count.
inline void narrow(const float* values, int64_t count, Float16* y) {
  float16_from_float(std::span<const float>(values, static_cast<size_t>(count)),
                     std::span<uint16_t>(&y->bits, static_cast<size_t>(count)));
}

/// y[i] = to_output(compute(operand values at i...)) for i < n, each operand a (pointer,
/// step) pair of float16 elements read as `widen` reads them, a chunk at a time;
/// `compute` takes one float per operand. A float result stored as float16 rounds a chunk
/// at once (to_output would be float16_from_float). `y` may be an operand read with step
/// 1 (each chunk is read before it is written).
template <typename TY, typename Compute, typename ToOutput, typename... Operands>
void map_float16(int64_t n, TY* y, Compute compute, ToOutput to_output, Operands... operands) {
  [&]<size_t... I>(std::index_sequence<I...>) {
    using Result = std::invoke_result_t<Compute, decltype(I, 0.0f)...>;
    float widened[sizeof...(I)][kFloat16Chunk];
    for (int64_t start = 0; start < n; start += kFloat16Chunk) {
      const int64_t count = std::min(kFloat16Chunk, n - start);
      (widen(operands.first, operands.second, start, count, widened[I]), ...);
      if constexpr (std::is_same_v<TY, Float16> && std::is_same_v<Result, float>) {
        float results[kFloat16Chunk];
        for (int64_t k = 0; k < count; ++k) results[k] = compute(widened[I][k]...);
        narrow(results, count, y + start);
      } else {
        for (int64_t k = 0; k < count; ++k) y[start + k] = to_output(compute(widened[I][k]...));
      }
    }
  }(std::index_sequence_for<Operands...>{});
}

}  // namespace ge::reference_kernels::float_compute
