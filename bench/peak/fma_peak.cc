// The arithmetic peak of one core, measured: how many float32 FLOP/s its FMA units retire
// (AVX2 and AVX-512), and, where the CPU has them, int8 dot products (AVX-512 VNNI,
// vpdpbusd: 4 multiply-adds per 32-bit lane) and bfloat16 dot products (AVX512-BF16,
// vdpbf16ps: 2 per lane), each counted as 2 operations per multiply-add. Twelve
// independent accumulators hide the instructions' latency; the best of several timed
// repetitions is the peak. ge-run -v prints what a model's convolutions and matmuls
// achieve; divide by these (see README.md here).
//
//   fma_peak [--seconds S]      (default 0.2 s per measurement)

#include <immintrin.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

namespace {

constexpr int kChains = 12;
using Clock = std::chrono::steady_clock;

// Runs `kernel(iterations)` (which returns a value that depends on every result, so that
// nothing is optimised away) until `seconds` have passed, best rate of five repetitions.
template <typename Kernel>
double best_rate(double seconds, double operations_per_iteration, Kernel kernel) {
  long iterations = 1 << 14;
  double best = 0;
  volatile float sink = 0;
  for (int repetition = 0; repetition < 5; ++repetition) {
    const auto start = Clock::now();
    sink = sink + kernel(iterations);
    const double elapsed = std::chrono::duration<double>(Clock::now() - start).count();
    best = std::max(best, operations_per_iteration * static_cast<double>(iterations) / elapsed);
    if (elapsed < seconds / 5) iterations = static_cast<long>(static_cast<double>(iterations) * (seconds / 5) / elapsed);
  }
  return best;
}

__attribute__((target("avx2,fma"))) float fma_avx2(long iterations) {
  __m256 acc[kChains];
  for (int i = 0; i < kChains; ++i) acc[i] = _mm256_set1_ps(static_cast<float>(i));
  const __m256 a = _mm256_set1_ps(0.999f), b = _mm256_set1_ps(0.001f);
  for (long n = 0; n < iterations; ++n) {
#pragma GCC unroll 12
    for (int i = 0; i < kChains; ++i) acc[i] = _mm256_fmadd_ps(acc[i], a, b);
  }
  __m256 sum = acc[0];
  for (int i = 1; i < kChains; ++i) sum = _mm256_add_ps(sum, acc[i]);
  return _mm256_cvtss_f32(sum);
}

__attribute__((target("avx512f"))) float fma_avx512(long iterations) {
  __m512 acc[kChains];
  for (int i = 0; i < kChains; ++i) acc[i] = _mm512_set1_ps(static_cast<float>(i));
  const __m512 a = _mm512_set1_ps(0.999f), b = _mm512_set1_ps(0.001f);
  for (long n = 0; n < iterations; ++n) {
#pragma GCC unroll 12
    for (int i = 0; i < kChains; ++i) acc[i] = _mm512_fmadd_ps(acc[i], a, b);
  }
  __m512 sum = acc[0];
  for (int i = 1; i < kChains; ++i) sum = _mm512_add_ps(sum, acc[i]);
  return _mm512_reduce_add_ps(sum);
}

__attribute__((target("avx512f,avx512vnni"))) float dot_vnni(long iterations) {
  __m512i acc[kChains];
  for (int i = 0; i < kChains; ++i) acc[i] = _mm512_set1_epi32(i);
  const __m512i a = _mm512_set1_epi8(3), b = _mm512_set1_epi8(-2);
  for (long n = 0; n < iterations; ++n) {
#pragma GCC unroll 12
    for (int i = 0; i < kChains; ++i) acc[i] = _mm512_dpbusd_epi32(acc[i], a, b);
  }
  __m512i sum = acc[0];
  for (int i = 1; i < kChains; ++i) sum = _mm512_add_epi32(sum, acc[i]);
  return static_cast<float>(_mm512_reduce_add_epi32(sum));
}

__attribute__((target("avx512f,avx512bf16"))) float dot_bf16(long iterations) {
  __m512 acc[kChains];
  for (int i = 0; i < kChains; ++i) acc[i] = _mm512_set1_ps(static_cast<float>(i));
  const __m512bh a = _mm512_cvtne2ps_pbh(_mm512_set1_ps(0.5f), _mm512_set1_ps(0.25f));
  const __m512bh b = _mm512_cvtne2ps_pbh(_mm512_set1_ps(0.125f), _mm512_set1_ps(0.75f));
  for (long n = 0; n < iterations; ++n) {
#pragma GCC unroll 12
    for (int i = 0; i < kChains; ++i) acc[i] = _mm512_dpbf16_ps(acc[i], a, b);
  }
  __m512 sum = acc[0];
  for (int i = 1; i < kChains; ++i) sum = _mm512_add_ps(sum, acc[i]);
  return _mm512_reduce_add_ps(sum);
}

void report(const char* what, double rate, const char* unit) { std::printf("%-34s %8.1f %s\n", what, rate / 1e9, unit); }

}  // namespace

int main(int argc, char** argv) {
  double seconds = 0.2;
  for (int i = 1; i < argc; ++i) {
    if (std::strcmp(argv[i], "--seconds") == 0 && i + 1 < argc) {
      seconds = std::atof(argv[++i]);
    } else {
      std::fprintf(stderr, "usage: fma_peak [--seconds S]\n");
      return 2;
    }
  }
  if (!(seconds > 0)) {
    std::fprintf(stderr, "fma_peak: --seconds expects a positive number\n");
    return 2;
  }
  __builtin_cpu_init();
  std::printf("one core, best of 5 x %.2f s:\n", seconds / 5);
  if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma")) {
    report("float32 FMA, AVX2 (ymm)", best_rate(seconds, 2.0 * 8 * kChains, fma_avx2), "GFLOP/s");
  }
  if (__builtin_cpu_supports("avx512f")) {
    report("float32 FMA, AVX-512 (zmm)", best_rate(seconds, 2.0 * 16 * kChains, fma_avx512), "GFLOP/s");
  }
  if (__builtin_cpu_supports("avx512vnni")) {
    report("int8 dot, AVX-512 VNNI (vpdpbusd)", best_rate(seconds, 2.0 * 64 * kChains, dot_vnni), "GOP/s");
  }
  if (__builtin_cpu_supports("avx512bf16")) {
    report("bfloat16 dot, AVX512-BF16", best_rate(seconds, 2.0 * 32 * kChains, dot_bf16), "GFLOP/s");
  }
  return 0;
}
