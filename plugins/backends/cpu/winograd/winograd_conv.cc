// Winograd F(4x4, 3x3) on nChw8c activations (see winograd_conv.h).
//
// A launch walks the output tiles of all images in batches sized to stay in L2; per
// batch and thread:
//   1. input transform: each tile's 6x6 input patch (zero outside the image) becomes
//      V = B^T d B, one 8-channel vector per element, stored as V[e][tile][c];
//   2. 36 GEMMs, M[e] (tiles x K) = V[e] (tiles x C) * U[e] (C x K), with a 6x16
//      register-blocked micro-kernel over the weights transformed at prepare time
//      (U = G g G^T, stored as U[e][K/16][C][16]);
//   3. output transform: Y = A^T M A per tile and 8 output channels, plus bias, the
//      residual and the activation, stored into the tile's (clipped) 4x4 outputs.
// The math is compiled for AVX2+FMA (a function attribute: the rest of the build stays
// generic x86-64) and taken only when the CPU has both.

#include "winograd_conv.h"

#include <immintrin.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <memory>
#include <mutex>
#include <string>
#include <unordered_map>
#include <vector>

#include "ge/logging.h"
#include "ge/reference_kernels/kernel_library.h"
#include "ge/reference_kernels/kernel_util.h"
#include "ge/reference_kernels/spatial_geometry.h"
#include "ge/reference_kernels/thread_budget.h"

#ifdef _OPENMP
#include <omp.h>
#endif

#define GE_AVX2 __attribute__((target("avx2,fma")))

namespace ge::cpu_winograd {
namespace {

constexpr int64_t kBlock = 8;      // channels per vector: nChw8c
constexpr int64_t kElements = 36;  // transformed elements of one 6x6 tile
constexpr int64_t kRows = 6;       // tiles per micro-kernel
constexpr int64_t kCols = 16;      // output channels per micro-kernel
// Bytes of V and M one thread keeps for a batch of tiles: within a 1 MiB L2 with room
// for the weights' panel and the activations.
constexpr int64_t kBatchBytes = 512 * 1024;
// Transformed weights above this are streamed from memory rather than cache, and V and M
// of a batch may grow to the second figure to read them fewer times.
constexpr int64_t kLargeWeightBytes = 2 << 20;
constexpr int64_t kLargeBatchBytes = 4 << 20;

// Fewest output tiles (all images) for which the transformed weights pay off.
constexpr int64_t kMinTiles = 12;

enum class Activation { kNone, kRelu, kLeakyRelu, kClip };

struct AlignedFree {
  void operator()(float* p) const { std::free(p); }
};
using Buffer = std::unique_ptr<float[], AlignedFree>;

Buffer aligned_floats(int64_t count) {
  const size_t bytes = (static_cast<size_t>(count) * sizeof(float) + 63) / 64 * 64;
  return Buffer(static_cast<float*>(std::aligned_alloc(64, std::max<size_t>(bytes, 64))));
}

struct Params {
  int64_t n = 0, c = 0, h = 0, w = 0, k = 0, oh = 0, ow = 0;
  int64_t pad_top = 0, pad_left = 0;
  int64_t k16 = 0;                       // k rounded up to kCols
  int64_t tiles_y = 0, tiles_x = 0;      // per image
  int64_t tiles = 0;                     // all images
  int64_t batch = 0;                     // tiles per batch
  size_t thread_floats = 0;              // V + M of one batch
  int threads = 1;
  Activation activation = Activation::kNone;
  float alpha = 0, low = 0, high = 0;
  bool has_residual = false;
  std::shared_ptr<const float> u;  // [36][k16 / 16][c][16], shared (TransformCache)
  Buffer bias;  // [k16], zeros without a bias input
};

// --- transforms -------------------------------------------------------------------------

// B^T applied to six values 'stride' apart in `in`, written six 'stride' apart in `out`.
GE_AVX2 inline void input_1d(const __m256* in, __m256* out, int stride) {
  const __m256 d0 = in[0], d1 = in[stride], d2 = in[2 * stride], d3 = in[3 * stride], d4 = in[4 * stride],
               d5 = in[5 * stride];
  const __m256 four = _mm256_set1_ps(4.f), five = _mm256_set1_ps(5.f), two = _mm256_set1_ps(2.f);
  out[0] = _mm256_fnmadd_ps(five, d2, _mm256_fmadd_ps(four, d0, d4));
  out[stride] = _mm256_fnmadd_ps(four, _mm256_add_ps(d1, d2), _mm256_add_ps(d4, d3));
  out[2 * stride] = _mm256_fmadd_ps(four, _mm256_sub_ps(d1, d2), _mm256_sub_ps(d4, d3));
  out[3 * stride] = _mm256_fmadd_ps(two, _mm256_sub_ps(d3, d1), _mm256_sub_ps(d4, d2));
  out[4 * stride] = _mm256_fnmadd_ps(two, _mm256_sub_ps(d3, d1), _mm256_sub_ps(d4, d2));
  out[5 * stride] = _mm256_fnmadd_ps(five, d3, _mm256_fmadd_ps(four, d1, d5));
}

// V = B^T d B of a 6x6 patch d (row-major), in place.
GE_AVX2 inline void input_transform(__m256* d) {
  __m256 t[kElements];
  for (int col = 0; col < 6; ++col) input_1d(d + col, t + col, 6);
  for (int row = 0; row < 6; ++row) input_1d(t + 6 * row, d + 6 * row, 1);
}

// A^T applied to six values 'stride' apart in `in`, four written 'out_stride' apart.
GE_AVX2 inline void output_1d(const __m256* in, int stride, __m256* out, int out_stride) {
  const __m256 m0 = in[0], m1 = in[stride], m2 = in[2 * stride], m3 = in[3 * stride], m4 = in[4 * stride],
               m5 = in[5 * stride];
  const __m256 sum12 = _mm256_add_ps(m1, m2), diff12 = _mm256_sub_ps(m1, m2);
  const __m256 sum34 = _mm256_add_ps(m3, m4), diff34 = _mm256_sub_ps(m3, m4);
  out[0] = _mm256_add_ps(_mm256_add_ps(m0, sum12), sum34);
  out[out_stride] = _mm256_fmadd_ps(_mm256_set1_ps(2.f), diff34, diff12);
  out[2 * out_stride] = _mm256_fmadd_ps(_mm256_set1_ps(4.f), sum34, sum12);
  out[3 * out_stride] = _mm256_add_ps(_mm256_fmadd_ps(_mm256_set1_ps(8.f), diff34, diff12), m5);
}

// Y = A^T m A: 6x6 -> 4x4 (row-major).
GE_AVX2 inline void output_transform(const __m256* m, __m256* y) {
  __m256 t[24];  // 4 rows x 6 columns
  for (int col = 0; col < 6; ++col) output_1d(m + col, 6, t + col, 6);
  for (int row = 0; row < 4; ++row) output_1d(t + 6 * row, 1, y + 4 * row, 1);
}

// U = G g G^T of one 3x3 filter, in double precision.
void weight_transform(const float* g, double* u) {
  static const double kG[6][3] = {{1.0 / 4, 0, 0},           {-1.0 / 6, -1.0 / 6, -1.0 / 6},
                                  {-1.0 / 6, 1.0 / 6, -1.0 / 6}, {1.0 / 24, 1.0 / 12, 1.0 / 6},
                                  {1.0 / 24, -1.0 / 12, 1.0 / 6}, {0, 0, 1}};
  double gg[6][3];  // G g
  for (int i = 0; i < 6; ++i) {
    for (int j = 0; j < 3; ++j) gg[i][j] = kG[i][0] * g[j] + kG[i][1] * g[3 + j] + kG[i][2] * g[6 + j];
  }
  for (int i = 0; i < 6; ++i) {
    for (int j = 0; j < 6; ++j) u[i * 6 + j] = gg[i][0] * kG[j][0] + gg[i][1] * kG[j][1] + gg[i][2] * kG[j][2];
  }
}

/// U[e][kb][c][16] = (G g G^T)[e] of filter (k = kb * 16 + lane, c), zero past k, of a
/// float32 [k, c, 3, 3] filter.
Buffer transform_filter(const float* filter, int64_t k_count, int64_t c_count, int64_t k16) {
  const int64_t col_blocks = k16 / kCols;
  Buffer u = aligned_floats(kElements * k16 * c_count);
  std::memset(u.get(), 0, sizeof(float) * kElements * k16 * c_count);
  double transformed[kElements];
  for (int64_t k = 0; k < k_count; ++k) {
    for (int64_t c = 0; c < c_count; ++c) {
      weight_transform(filter + (k * c_count + c) * 9, transformed);
      for (int64_t e = 0; e < kElements; ++e) {
        u[((e * col_blocks + k / kCols) * c_count + c) * kCols + k % kCols] = static_cast<float>(transformed[e]);
      }
    }
  }
  return u;
}

/// Transformed filters shared by every kernel that transforms the same tensor: a graph's
/// shape specialisations and the runners of a session pool prepare the same weights
/// again, and the transform is 4x the filter's bytes. Keyed by the source's address; an
/// entry holds the source tensor, so its bytes cannot be freed and the address reused
/// while the entry exists, and the entry goes when the last kernel using it does.
class TransformCache {
 public:
  std::shared_ptr<const float> get_or_transform(const Tensor& filter, int64_t k, int64_t c, int64_t k16) {
    std::lock_guard<std::mutex> lock(mutex_);
    const void* key = filter.raw_data();
    if (auto it = entries_.find(key); it != entries_.end()) {
      if (std::shared_ptr<const float> shared = it->second.transformed.lock()) return shared;
      entries_.erase(it);
    }
    float* address = transform_filter(filter.data<float>(), k, c, k16).release();
    std::shared_ptr<const float> transformed(address, [this, key](const float* p) {
      forget(key);
      std::free(const_cast<float*>(p));
    });
    entries_[key] = Entry{filter, transformed};
    return transformed;
  }

  size_t size() {
    std::lock_guard<std::mutex> lock(mutex_);
    return entries_.size();
  }

 private:
  struct Entry {
    Tensor source;
    std::weak_ptr<const float> transformed;
  };

  void forget(const void* key) {
    std::lock_guard<std::mutex> lock(mutex_);
    auto it = entries_.find(key);
    // A later transform of the same tensor may have replaced the expired entry.
    if (it != entries_.end() && it->second.transformed.expired()) entries_.erase(it);
  }

  std::mutex mutex_;
  std::unordered_map<const void*, Entry> entries_;
};

TransformCache& transform_cache() {
  static auto* cache = new TransformCache();  // never destroyed: kernels may outlive statics
  return *cache;
}

// --- GEMM -------------------------------------------------------------------------------

// c[r][0..16) = sum_k a[r][k] * b[k][0..16) for `rows` (1..6) rows of a and c.
template <int kTileRows>
GE_AVX2 void gemm_tile(const float* a, int64_t a_stride, const float* b, float* c, int64_t c_stride, int64_t depth) {
  __m256 lo[kTileRows], hi[kTileRows];
#pragma GCC unroll 6
  for (int r = 0; r < kTileRows; ++r) lo[r] = hi[r] = _mm256_setzero_ps();
  for (int64_t k = 0; k < depth; ++k) {
    const __m256 b0 = _mm256_load_ps(b + k * kCols), b1 = _mm256_load_ps(b + k * kCols + 8);
#pragma GCC unroll 6
    for (int r = 0; r < kTileRows; ++r) {
      const __m256 value = _mm256_broadcast_ss(a + r * a_stride + k);
      lo[r] = _mm256_fmadd_ps(value, b0, lo[r]);
      hi[r] = _mm256_fmadd_ps(value, b1, hi[r]);
    }
  }
#pragma GCC unroll 6
  for (int r = 0; r < kTileRows; ++r) {
    _mm256_storeu_ps(c + r * c_stride, lo[r]);
    _mm256_storeu_ps(c + r * c_stride + 8, hi[r]);
  }
}

GE_AVX2 void gemm_rows(int64_t rows, const float* a, int64_t a_stride, const float* b, float* c, int64_t c_stride,
                       int64_t depth) {
  switch (rows) {
    case 6: return gemm_tile<6>(a, a_stride, b, c, c_stride, depth);
    case 5: return gemm_tile<5>(a, a_stride, b, c, c_stride, depth);
    case 4: return gemm_tile<4>(a, a_stride, b, c, c_stride, depth);
    case 3: return gemm_tile<3>(a, a_stride, b, c, c_stride, depth);
    case 2: return gemm_tile<2>(a, a_stride, b, c, c_stride, depth);
    default: return gemm_tile<1>(a, a_stride, b, c, c_stride, depth);
  }
}

// --- one batch of tiles -----------------------------------------------------------------

struct TileOrigin {
  int64_t image, y, x;  // output coordinates of the tile's top-left corner
};

TileOrigin tile_origin(const Params& p, int64_t tile) {
  const int64_t per_image = p.tiles_y * p.tiles_x;
  const int64_t in_image = tile % per_image;
  return {tile / per_image, in_image / p.tiles_x * 4, in_image % p.tiles_x * 4};
}

GE_AVX2 void load_patch(const float* plane, const Params& p, int64_t iy0, int64_t ix0, __m256* d) {
  if (iy0 >= 0 && ix0 >= 0 && iy0 + 6 <= p.h && ix0 + 6 <= p.w) {
    for (int r = 0; r < 6; ++r) {
      const float* row = plane + ((iy0 + r) * p.w + ix0) * kBlock;
      for (int col = 0; col < 6; ++col) d[r * 6 + col] = _mm256_loadu_ps(row + col * kBlock);
    }
    return;
  }
  for (int r = 0; r < 6; ++r) {
    const int64_t iy = iy0 + r;
    for (int col = 0; col < 6; ++col) {
      const int64_t ix = ix0 + col;
      d[r * 6 + col] = iy >= 0 && iy < p.h && ix >= 0 && ix < p.w ? _mm256_loadu_ps(plane + (iy * p.w + ix) * kBlock)
                                                                   : _mm256_setzero_ps();
    }
  }
}

GE_AVX2 inline __m256 activate(const Params& p, __m256 value) {
  switch (p.activation) {
    case Activation::kNone: return value;
    case Activation::kRelu: return _mm256_max_ps(value, _mm256_setzero_ps());
    case Activation::kLeakyRelu: {
      const __m256 scaled = _mm256_mul_ps(value, _mm256_set1_ps(p.alpha));
      return _mm256_blendv_ps(value, scaled, _mm256_cmp_ps(value, _mm256_setzero_ps(), _CMP_LT_OQ));
    }
    case Activation::kClip:
      return _mm256_min_ps(_mm256_max_ps(value, _mm256_set1_ps(p.low)), _mm256_set1_ps(p.high));
  }
  return value;
}

GE_AVX2 void run_batch(const Params& p, const float* x, const float* z, float* y, int64_t first, int64_t count,
                       float* v, float* m) {
  const int64_t in_blocks = p.c / kBlock, out_blocks = p.k / kBlock;
  __m256 d[kElements];
  for (int64_t i = 0; i < count; ++i) {
    const TileOrigin o = tile_origin(p, first + i);
    for (int64_t cb = 0; cb < in_blocks; ++cb) {
      const float* plane = x + (o.image * in_blocks + cb) * p.h * p.w * kBlock;
      load_patch(plane, p, o.y - p.pad_top, o.x - p.pad_left, d);
      input_transform(d);
      for (int64_t e = 0; e < kElements; ++e) _mm256_storeu_ps(v + (e * count + i) * p.c + cb * kBlock, d[e]);
    }
  }
  const int64_t col_blocks = p.k16 / kCols;
  for (int64_t e = 0; e < kElements; ++e) {
    const float* a = v + e * count * p.c;
    float* out = m + e * count * p.k16;
    for (int64_t kb = 0; kb < col_blocks; ++kb) {
      const float* panel = p.u.get() + (e * col_blocks + kb) * p.c * kCols;
      for (int64_t i0 = 0; i0 < count; i0 += kRows) {
        gemm_rows(std::min(kRows, count - i0), a + i0 * p.c, p.c, panel, out + i0 * p.k16 + kb * kCols, p.k16, p.c);
      }
    }
  }
  __m256 s[kElements], tile[16];
  for (int64_t i = 0; i < count; ++i) {
    const TileOrigin o = tile_origin(p, first + i);
    const int64_t rows = std::min<int64_t>(4, p.oh - o.y), cols = std::min<int64_t>(4, p.ow - o.x);
    for (int64_t kb = 0; kb < out_blocks; ++kb) {
      for (int64_t e = 0; e < kElements; ++e) s[e] = _mm256_loadu_ps(m + (e * count + i) * p.k16 + kb * kBlock);
      output_transform(s, tile);
      const __m256 bias = _mm256_load_ps(p.bias.get() + kb * kBlock);
      const int64_t plane = (o.image * out_blocks + kb) * p.oh * p.ow;
      for (int64_t r = 0; r < rows; ++r) {
        for (int64_t col = 0; col < cols; ++col) {
          const int64_t at = (plane + (o.y + r) * p.ow + o.x + col) * kBlock;
          __m256 value = _mm256_add_ps(tile[r * 4 + col], bias);
          if (z != nullptr) value = _mm256_add_ps(value, _mm256_loadu_ps(z + at));
          _mm256_storeu_ps(y + at, activate(p, value));
        }
      }
    }
  }
}

int launch(const KernelArgs& args) {
  const Params& p = *static_cast<const Params*>(args.params);
  const auto* x = static_cast<const float*>(args.inputs[0]);
  const auto* z = p.has_residual ? static_cast<const float*>(args.inputs[3]) : nullptr;
  auto* y = static_cast<float*>(args.outputs[0]);
  auto* workspace = static_cast<float*>(args.workspace);
  const int64_t batches = (p.tiles + p.batch - 1) / p.batch;
  // At most p.threads (the workspace holds that many batches), fewer when other fast
  // kernels run at the same moment (thread_budget.h).
  const reference_kernels::FastKernelLaunch in_flight(p.threads);
  const int threads = in_flight.threads();
#ifdef _OPENMP
#pragma omp parallel for num_threads(threads) schedule(static) if (threads > 1)
#endif
  for (int64_t b = 0; b < batches; ++b) {
#ifdef _OPENMP
    const size_t thread = static_cast<size_t>(omp_get_thread_num());
#else
    const size_t thread = 0;
#endif
    float* v = workspace + thread * p.thread_floats;
    float* m = v + kElements * p.batch * p.c;
    const int64_t first = b * p.batch;
    run_batch(p, x, z, y, first, std::min(p.batch, p.tiles - first), v, m);
  }
  return 0;
}

// --- prepare ----------------------------------------------------------------------------

bool blocked_by_8(const Value* value) {
  return value != nullptr && reference_kernels::channel_block_of_format(value->desc().format, 4) == kBlock;
}

bool is_float32_constant(const Value* value) {
  return value != nullptr && value->desc().dtype == DataType::kFloat32 && value->constant() != nullptr;
}

bool cpu_has_avx2_fma() {
  static const bool has = __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
  return has;
}

std::optional<Activation> activation_of(const Node& node, Params& p) {
  if (node.domain() != "ge") return Activation::kNone;
  const std::string name = node.get_string("activation", "");
  const std::vector<float> params = node.get_floats("activation_params");
  auto param = [&](size_t i, float fallback) { return i < params.size() ? params[i] : fallback; };
  if (name.empty()) return Activation::kNone;
  if (name == "Relu") return Activation::kRelu;
  if (name == "LeakyRelu") {
    p.alpha = param(0, 0.01f);
    return Activation::kLeakyRelu;
  }
  if (name == "Clip") {
    p.low = param(0, -std::numeric_limits<float>::infinity());
    p.high = param(1, std::numeric_limits<float>::infinity());
    if (std::isnan(p.low) || std::isnan(p.high)) return std::nullopt;
    return Activation::kClip;
  }
  return std::nullopt;
}

}  // namespace

std::optional<PreparedKernel> prepare_conv(const Node& node, std::string_view backend, int threads) {
  if (!cpu_has_avx2_fma()) return std::nullopt;
  const bool fused = node.domain() == "ge";
  if (node.input_count() < 2 || node.output_count() < 1) return std::nullopt;
  const Value* x = node.input(0);
  const Value* w = node.input(1);
  const Value* b = node.input_count() > 2 ? node.input(2) : nullptr;
  const Value* z = fused && node.input_count() > 3 ? node.input(3) : nullptr;
  const Value* y = node.output(0);
  if (x == nullptr || y == nullptr || !is_float32_constant(w) || (b != nullptr && !is_float32_constant(b))) {
    return std::nullopt;
  }
  if (x->desc().dtype != DataType::kFloat32 || !x->desc().is_static() || !y->desc().is_static()) return std::nullopt;
  if (x->desc().rank() != 4 || w->desc().rank() != 4 || node.get_int("group", 1) != 1) return std::nullopt;
  if (!blocked_by_8(x) || !blocked_by_8(y) || (z != nullptr && (!blocked_by_8(z) || !(z->desc() == y->desc())))) {
    return std::nullopt;
  }
  const std::vector<int64_t> xd = x->desc().static_dims(), wd = w->desc().static_dims(), yd = y->desc().static_dims();
  if (wd[2] != 3 || wd[3] != 3 || wd[1] != xd[1] || wd[0] != yd[1]) return std::nullopt;
  reference_kernels::KernelContext context{node, backend, 17};
  Result<reference_kernels::SpatialGeometry> geometry =
      reference_kernels::compute_spatial_geometry(context, {xd[2], xd[3]}, {3, 3}, false);
  if (!geometry.is_ok()) return std::nullopt;
  const reference_kernels::SpatialGeometry& g = geometry.value();
  for (int axis = 1; axis < 3; ++axis) {
    if (g.strides[axis] != 1 || g.dilations[axis] != 1) return std::nullopt;
  }
  if (g.output[1] != yd[2] || g.output[2] != yd[3]) return std::nullopt;

  auto p = std::make_shared<Params>();
  p->n = xd[0], p->c = xd[1], p->h = xd[2], p->w = xd[3], p->k = yd[1], p->oh = yd[2], p->ow = yd[3];
  p->pad_top = g.pads_begin[1], p->pad_left = g.pads_begin[2];
  // Few channels leave the transforms' cost uncovered by the 4x fewer products.
  if (p->c < 16 || p->k < 16 || p->oh < 4 || p->ow < 4) return std::nullopt;
  const std::optional<Activation> activation = activation_of(node, *p);
  if (!activation) return std::nullopt;
  p->activation = *activation;
  p->has_residual = z != nullptr;
  p->k16 = (p->k + kCols - 1) / kCols * kCols;
  p->tiles_y = (p->oh + 3) / 4, p->tiles_x = (p->ow + 3) / 4;
  p->tiles = p->n * p->tiles_y * p->tiles_x;
  // The transformed weights are 4x the filter's bytes and are read once per batch of
  // tiles: over a small image (ResNet's 7x7 stages) streaming them costs more than the
  // products saved, and the memory is not worth it.
  if (p->tiles < kMinTiles) return std::nullopt;
  const int64_t per_tile_bytes = kElements * (p->c + p->k16) * static_cast<int64_t>(sizeof(float));
  p->batch = std::clamp<int64_t>(kBatchBytes / per_tile_bytes / kRows * kRows, kRows, 16 * kRows);
  // Every batch reads all the transformed weights: where they outgrow the caches (256
  // channels in and out: 9 MiB), one batch per thread reads them once per launch, as
  // long as its V and M stay within kLargeBatchBytes.
  const int64_t weight_bytes = kElements * p->c * p->k16 * static_cast<int64_t>(sizeof(float));
  if (weight_bytes > kLargeWeightBytes) {
    const int64_t per_thread = (p->tiles + p->threads - 1) / p->threads;
    p->batch = std::max(p->batch, std::min(per_thread, kLargeBatchBytes / per_tile_bytes));
  }
  p->threads = std::max(1, threads);
  // Each thread needs at least a batch: smaller batches spread a small image over them.
  p->batch = std::max<int64_t>(1, std::min(p->batch, (p->tiles + p->threads - 1) / p->threads));
  p->thread_floats = static_cast<size_t>(kElements * p->batch * (p->c + p->k16));

  p->u = transform_cache().get_or_transform(*w->constant(), p->k, p->c, p->k16);
  p->bias = aligned_floats(p->k16);
  std::memset(p->bias.get(), 0, sizeof(float) * p->k16);
  if (b != nullptr) std::memcpy(p->bias.get(), b->constant()->data<float>(), sizeof(float) * p->k);

  PreparedKernel kernel;
  kernel.function = &launch;
  kernel.workspace_bytes = p->thread_floats * sizeof(float) * static_cast<size_t>(p->threads);
  const std::string op = fused ? "ge::" + node.op_type() : node.op_type();
  kernel.name = std::string(backend) + "." + op + ".winograd_f4x4_3x3:avx2";
  kernel.params = std::move(p);
  return kernel;
}

size_t transformed_filters() { return transform_cache().size(); }

}  // namespace ge::cpu_winograd
