// Span conversions of float16: the one-element conversions of ge/minifloat.h in a loop the
// compiler vectorises, or on x86 F16C (vcvtph2ps/vcvtps2ph, 8 lanes) and AVX-512 (16
// lanes) chosen at run time. vcvtps2ph rounds to nearest even exactly as
// float16_from_float does (NaN quieted, payload kept); vcvtph2ps quiets a signalling NaN,
// which float16_to_float keeps, so the loads put the quiet bit back where it was clear.

#include "float16_span.h"

#include <span>

#include "ge/minifloat.h"

#if defined(__x86_64__) || defined(__i386__)
#include <cpuid.h>
#include <immintrin.h>
#define GE_FLOAT16_X86 1
#endif

namespace ge {
namespace float16_span {
namespace {

void to_float_portable(const uint16_t* in, float* out, size_t n) {
  for (size_t i = 0; i < n; ++i) out[i] = float16_to_float(in[i]);
}

void from_float_portable(const float* in, uint16_t* out, size_t n) {
  for (size_t i = 0; i < n; ++i) out[i] = float16_from_float(in[i]);
}

#ifdef GE_FLOAT16_X86
__attribute__((target("avx2,f16c"))) void to_float_f16c(const uint16_t* in, float* out, size_t n) {
  size_t i = 0;
  const __m256i exponent = _mm256_set1_epi32(0x7c00), quiet_and_exponent = _mm256_set1_epi32(0x7e00);
  const __m256i payload = _mm256_set1_epi32(0x1ff), quiet = _mm256_set1_epi32(0x400000);
  for (; i + 8 <= n; i += 8) {
    const __m128i half = _mm_loadu_si128(reinterpret_cast<const __m128i*>(in + i));
    const __m256i wide = _mm256_cvtepu16_epi32(half);
    // Signalling NaN: exponent all ones, quiet bit clear, payload not zero.
    const __m256i signalling =
        _mm256_andnot_si256(_mm256_cmpeq_epi32(_mm256_and_si256(wide, payload), _mm256_setzero_si256()),
                            _mm256_cmpeq_epi32(_mm256_and_si256(wide, quiet_and_exponent), exponent));
    const __m256i value = _mm256_castps_si256(_mm256_cvtph_ps(half));
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(out + i),
                        _mm256_xor_si256(value, _mm256_and_si256(signalling, quiet)));
  }
  to_float_portable(in + i, out + i, n - i);
}

__attribute__((target("avx2,f16c"))) void from_float_f16c(const float* in, uint16_t* out, size_t n) {
  size_t i = 0;
  for (; i + 8 <= n; i += 8) {
    _mm_storeu_si128(reinterpret_cast<__m128i*>(out + i),
                     _mm256_cvtps_ph(_mm256_loadu_ps(in + i), _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC));
  }
  from_float_portable(in + i, out + i, n - i);
}

__attribute__((target("avx512f"))) void to_float_avx512(const uint16_t* in, float* out, size_t n) {
  size_t i = 0;
  const __m512i exponent = _mm512_set1_epi32(0x7c00), quiet_and_exponent = _mm512_set1_epi32(0x7e00);
  const __m512i payload = _mm512_set1_epi32(0x1ff), quiet = _mm512_set1_epi32(0x400000);
  for (; i + 16 <= n; i += 16) {
    const __m256i half = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(in + i));
    const __m512i wide = _mm512_cvtepu16_epi32(half);
    const __mmask16 signalling =
        _mm512_cmpeq_epi32_mask(_mm512_and_si512(wide, quiet_and_exponent), exponent) & _mm512_test_epi32_mask(wide, payload);
    const __m512i value = _mm512_castps_si512(_mm512_cvtph_ps(half));
    _mm512_storeu_si512(out + i, _mm512_mask_xor_epi32(value, signalling, value, quiet));
  }
  to_float_f16c(in + i, out + i, n - i);
}

__attribute__((target("avx512f"))) void from_float_avx512(const float* in, uint16_t* out, size_t n) {
  size_t i = 0;
  for (; i + 16 <= n; i += 16) {
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(out + i),
                        _mm512_cvtps_ph(_mm512_loadu_ps(in + i), _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC));
  }
  from_float_f16c(in + i, out + i, n - i);
}
#endif

}  // namespace

bool supported(Isa isa) {
#ifdef GE_FLOAT16_X86
  __builtin_cpu_init();
  // F16C from CPUID leaf 1 (clang's __builtin_cpu_supports knows no "f16c").
  unsigned eax = 0, ebx = 0, ecx = 0, edx = 0;
  const bool has_f16c = __get_cpuid(1, &eax, &ebx, &ecx, &edx) != 0 && (ecx & bit_F16C) != 0;
  const bool f16c = __builtin_cpu_supports("avx2") && has_f16c;
  if (isa == Isa::kF16c) return f16c;
  if (isa == Isa::kAvx512) return f16c && __builtin_cpu_supports("avx512f");
#endif
  return isa == Isa::kPortable;
}

Isa best() {
  static const Isa isa = supported(Isa::kAvx512) ? Isa::kAvx512 : supported(Isa::kF16c) ? Isa::kF16c : Isa::kPortable;
  return isa;
}

void to_float(Isa isa, const uint16_t* in, float* out, size_t n) {
#ifdef GE_FLOAT16_X86
  if (isa == Isa::kAvx512) return to_float_avx512(in, out, n);
  if (isa == Isa::kF16c) return to_float_f16c(in, out, n);
#endif
  (void)isa;
  to_float_portable(in, out, n);
}

void from_float(Isa isa, const float* in, uint16_t* out, size_t n) {
#ifdef GE_FLOAT16_X86
  if (isa == Isa::kAvx512) return from_float_avx512(in, out, n);
  if (isa == Isa::kF16c) return from_float_f16c(in, out, n);
#endif
  (void)isa;
  from_float_portable(in, out, n);
}

}  // namespace float16_span

void float16_to_float(std::span<const uint16_t> in, std::span<float> out) {
  float16_span::to_float(float16_span::best(), in.data(), out.data(), in.size());
}

void float16_from_float(std::span<const float> in, std::span<uint16_t> out) {
  float16_span::from_float(float16_span::best(), in.data(), out.data(), in.size());
}

bool cpu_converts_float16() { return float16_span::supported(float16_span::Isa::kF16c); }

}  // namespace ge
