// ReduceMax/Min/Mean/Sum/Prod/L1/L2/LogSum/LogSumExp/SumSquare. The axes are the
// `axes` attribute, or input 1 when the node has one (ReduceSum from opset 13, all of
// them from opset 18), read at launch and checked against the prepared output shape.
// No axes means all of them, unless noop_with_empty_axes=1 (then each element is
// "reduced" on its own). keepdims keeps reduced axes as unit axes. An empty reduction
// gives the operation's identity (0, 1, -inf for Max/LogSum/LogSumExp, +inf for Min,
// NaN for Mean). Floating types accumulate in double; integer Sum/Prod/SumSquare/L1
// wrap in their own type, Max/Min stay exact, and the others go through double.
// ReduceMax/ReduceMin take bool from opset 20 (False < True; an empty reduction gives
// False for Max and True for Min).

#include <algorithm>
#include <cmath>
#include <limits>
#include <string>
#include <type_traits>

#include "tensor/registration.h"
#include "tensor/tensor_common.h"

namespace ge::reference_kernels::tensor {
namespace {

enum class ReduceOp { kMax, kMin, kMean, kSum, kProd, kL1, kL2, kLogSum, kLogSumExp, kSumSquare };

struct ReduceParams {
  int rank = 0;
  Index x_dims{}, x_strides{};
  int y_rank = 0;
  Index y_dims{};
  bool keepdims = true;
  bool noop_with_empty_axes = false;
  // Axes from input 1 at launch, or prepared.
  bool axes_from_input = false;
  bool axes64 = true;
  int64_t axis_entries = 0;
  std::array<bool, kMaxRank> mask{};
};

// The reduced axes of this launch; a TensorKernelError code when they are invalid or
// disagree with the output shape.
int reduced_axes(const ReduceParams& p, const KernelArgs& args, std::array<bool, kMaxRank>& mask) {
  if (!p.axes_from_input) {
    mask = p.mask;
  } else {
    mask = {};
    const IntList axes{args.inputs[1], p.axes64, p.axis_entries};
    if (p.axis_entries > 0 && axes.data == nullptr) return kKernelMissingAddress;
    if (p.axis_entries == 0 && !p.noop_with_empty_axes) {
      for (int d = 0; d < p.rank; ++d) mask[d] = true;
    }
    for (int64_t k = 0; k < p.axis_entries; ++k) {
      int64_t axis = axes[k];
      if (axis < 0) axis += p.rank;
      if (axis < 0 || axis >= p.rank) return kKernelInvalidRuntimeArgument;
      mask[axis] = true;
    }
  }
  int y_rank = 0;
  for (int d = 0; d < p.rank; ++d) {
    if (!mask[d]) {
      if (y_rank >= p.y_rank || p.y_dims[y_rank] != p.x_dims[d]) return kKernelRuntimeShapeMismatch;
      ++y_rank;
    } else if (p.keepdims) {
      if (y_rank >= p.y_rank || p.y_dims[y_rank] != 1) return kKernelRuntimeShapeMismatch;
      ++y_rank;
    }
  }
  return y_rank == p.y_rank ? kKernelOk : kKernelRuntimeShapeMismatch;
}

template <typename T>
constexpr bool kIntegral = std::is_integral_v<T>;

// The result of reducing `count` elements read through `walk`, from `base`.
template <typename T, ReduceOp op>
T reduce_one(const T* x, const StridedView& walk, int64_t base) {
  const int64_t count = walk.count();
  if constexpr (op == ReduceOp::kMax || op == ReduceOp::kMin) {
    using C = Compute<T>;
    if (count == 0) {
      if constexpr (kIntegral<T>) {
        return op == ReduceOp::kMax ? std::numeric_limits<T>::lowest() : std::numeric_limits<T>::max();
      } else {
        return store<T>(op == ReduceOp::kMax ? -std::numeric_limits<double>::infinity()
                                             : std::numeric_limits<double>::infinity());
      }
    }
    C best = load(x[base + walk.offset]);
    bool nan = false;
    for_each_offset(walk, [&](int64_t, int64_t offset) {
      const C v = load(x[base + offset]);
      if constexpr (!kIntegral<T>) {
        if (std::isnan(v)) nan = true;  // NaN propagates, as numpy's max/min
      }
      best = op == ReduceOp::kMax ? std::max(best, v) : std::min(best, v);
    });
    if (nan) return store<T>(std::numeric_limits<double>::quiet_NaN());
    return store<T>(best);
  } else if constexpr (kIntegral<T> && (op == ReduceOp::kSum || op == ReduceOp::kProd || op == ReduceOp::kL1 ||
                                        op == ReduceOp::kSumSquare)) {
    T result = op == ReduceOp::kProd ? T(1) : T(0);
    for_each_offset(walk, [&](int64_t, int64_t offset) {
      const T v = x[base + offset];
      if constexpr (op == ReduceOp::kSum) {
        result = wrapping_add(result, v);
      } else if constexpr (op == ReduceOp::kProd) {
        result = wrapping_mul(result, v);
      } else if constexpr (op == ReduceOp::kL1) {
        result = wrapping_add(result, v < T(0) ? wrapping_sub(T(0), v) : v);
      } else {
        result = wrapping_add(result, wrapping_mul(v, v));
      }
    });
    return result;
  } else {
    auto value = [&](int64_t offset) { return static_cast<double>(load(x[base + offset])); };
    double result = 0.0;
    if constexpr (op == ReduceOp::kLogSumExp) {
      double maximum = -std::numeric_limits<double>::infinity();
      for_each_offset(walk, [&](int64_t, int64_t offset) { maximum = std::max(maximum, value(offset)); });
      if (std::isinf(maximum)) {
        result = maximum;  // all -inf (or empty): -inf; any +inf: +inf
      } else {
        double sum = 0.0;
        for_each_offset(walk, [&](int64_t, int64_t offset) { sum += std::exp(value(offset) - maximum); });
        result = maximum + std::log(sum);
      }
    } else {
      if constexpr (op == ReduceOp::kProd) result = 1.0;
      for_each_offset(walk, [&](int64_t, int64_t offset) {
        const double v = value(offset);
        if constexpr (op == ReduceOp::kProd) {
          result *= v;
        } else if constexpr (op == ReduceOp::kL1) {
          result += std::fabs(v);
        } else if constexpr (op == ReduceOp::kL2 || op == ReduceOp::kSumSquare) {
          result += v * v;
        } else {
          result += v;  // Sum, Mean, LogSum
        }
      });
      if constexpr (op == ReduceOp::kMean) {
        result = count > 0 ? result / static_cast<double>(count) : std::numeric_limits<double>::quiet_NaN();
      } else if constexpr (op == ReduceOp::kL2) {
        result = std::sqrt(result);
      } else if constexpr (op == ReduceOp::kLogSum) {
        result = std::log(result);
      }
    }
    if constexpr (kIntegral<T>) {
      if (!std::isfinite(result)) return T(0);
      return static_cast<T>(std::trunc(result));
    } else {
      return store<T>(result);
    }
  }
}

// Sum of `count` contiguous floats in double, in eight independent lanes so that the
// compiler vectorises it (the lanes' partial sums are added at the end).
double sum_contiguous(const float* x, int64_t count) {
  constexpr int kLanes = 8;
  double lanes[kLanes] = {};
  int64_t i = 0;
  for (; i + kLanes <= count; i += kLanes) {
    for (int l = 0; l < kLanes; ++l) lanes[l] += static_cast<double>(x[i + l]);
  }
  double sum = 0.0;
  for (; i < count; ++i) sum += static_cast<double>(x[i]);
  for (int l = 0; l < kLanes; ++l) sum += lanes[l];
  return sum;
}

// Whether the reduced axes are exactly the innermost ones (each output element reduces
// one contiguous run of the input).
bool reduces_innermost(const ReduceParams& p, const std::array<bool, kMaxRank>& mask) {
  int d = p.rank;
  while (d > 0 && mask[d - 1]) --d;
  for (int k = 0; k < d; ++k) {
    if (mask[k]) return false;
  }
  return d < p.rank;
}

// On x86-64 the column sums are compiled for AVX-512 and AVX2 as well, picked at load
// time by the CPU (the library's baseline is SSE2): 2-3x faster there.
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__)
#define GE_REDUCE_VECTOR_CLONES __attribute__((target_clones("avx512f", "avx2", "default")))
#else
#define GE_REDUCE_VECTOR_CLONES
#endif

// Whether the reduced axes are exactly the outermost ones (each output element reduces
// one column of a [reduced, kept] matrix: a sum or mean over rows).
bool reduces_outermost(const ReduceParams& p, const std::array<bool, kMaxRank>& mask) {
  int d = 0;
  while (d < p.rank && mask[d]) ++d;
  for (int k = d; k < p.rank; ++k) {
    if (mask[k]) return false;
  }
  return d > 0 && d < p.rank;
}

// Column sums of the [rows, columns] floats at `x` into `y`, as the general walk adds
// them (in double, row after row: the same result), a block of columns at a time so
// that each row's block is one vectorised pass; a mean divides by `rows`.
GE_REDUCE_VECTOR_CLONES void sum_columns(const float* x, int64_t rows, int64_t columns, bool mean, float* y) {
  constexpr int64_t kBlock = 256;
  double sums[kBlock];
  for (int64_t c0 = 0; c0 < columns; c0 += kBlock) {
    const int64_t width = std::min(kBlock, columns - c0);
    std::fill(sums, sums + width, 0.0);
    for (int64_t r = 0; r < rows; ++r) {
      const float* row = x + r * columns + c0;
      for (int64_t c = 0; c < width; ++c) sums[c] += static_cast<double>(row[c]);
    }
    for (int64_t c = 0; c < width; ++c) {
      y[c0 + c] = static_cast<float>(mean ? sums[c] / static_cast<double>(rows) : sums[c]);
    }
  }
}

template <typename T, ReduceOp op>
int reduce_kernel(const KernelArgs& args) {
  const auto& p = *static_cast<const ReduceParams*>(args.params);
  std::array<bool, kMaxRank> mask;
  if (const int code = reduced_axes(p, args, mask); code != kKernelOk) return code;
  // Kept axes walk the output in order; reduced axes are walked for each output element.
  StridedView kept, reduced;
  for (int d = 0; d < p.rank; ++d) {
    StridedView& view = mask[d] ? reduced : kept;
    view.dims[view.rank] = p.x_dims[d];
    view.strides[view.rank] = p.x_strides[d];
    ++view.rank;
  }
  if (kept.count() == 0) return kKernelOk;
  const auto* x = static_cast<const T*>(args.inputs[0]);
  auto* y = static_cast<T*>(args.outputs[0]);
  if (y == nullptr || (reduced.count() > 0 && x == nullptr)) return kKernelMissingAddress;
  if constexpr (std::is_same_v<T, float> && (op == ReduceOp::kSum || op == ReduceOp::kMean)) {
    // The common case (LayerNorm's and SE blocks' means, logits' sums): contiguous rows.
    const int64_t length = reduced.count();
    if (length > 0 && reduces_innermost(p, mask)) {
      const int64_t rows = kept.count();
      for (int64_t r = 0; r < rows; ++r) {
        const double sum = sum_contiguous(x + r * length, length);
        y[r] = static_cast<float>(op == ReduceOp::kMean ? sum / static_cast<double>(length) : sum);
      }
      return kKernelOk;
    }
    if (length > 0 && reduces_outermost(p, mask)) {  // pooling over rows, frames, tokens
      sum_columns(x, length, kept.count(), op == ReduceOp::kMean, y);
      return kKernelOk;
    }
  }
  for_each_offset(kept, [&](int64_t flat, int64_t base) { y[flat] = reduce_one<T, op>(x, reduced, base); });
  return kKernelOk;
}

template <ReduceOp op>
Result<PreparedKernel> prepare_reduce(const KernelContext& context) {
  const DataType dtype = input_dtype(context, 0);
  GE_ASSIGN_OR_RETURN(std::vector<int64_t> x_dims, input_dims(context, 0));
  GE_ASSIGN_OR_RETURN(std::vector<int64_t> y_dims, output_dims(context, 0));
  GE_RETURN_IF_ERROR(check_rank(context, x_dims.size(), "an input"));
  GE_RETURN_IF_ERROR(check_rank(context, y_dims.size(), "an output"));
  const int64_t rank = static_cast<int64_t>(x_dims.size());
  ReduceParams params;
  params.rank = static_cast<int>(rank);
  params.x_dims = to_index(x_dims);
  params.x_strides = strides_of(x_dims);
  params.y_rank = static_cast<int>(y_dims.size());
  params.y_dims = to_index(y_dims);
  GE_ASSIGN_OR_RETURN(int64_t keepdims, int_attribute(context, "keepdims", 1));
  GE_ASSIGN_OR_RETURN(int64_t noop, int_attribute(context, "noop_with_empty_axes", 0));
  params.keepdims = keepdims != 0;
  params.noop_with_empty_axes = noop != 0;
  std::optional<std::vector<int64_t>> axes;
  if (has_input(context, 1)) {
    GE_RETURN_IF_ERROR(check_index_dtype(context, 1, "axes"));
    params.axes64 = input_dtype(context, 1) == DataType::kInt64;
    GE_ASSIGN_OR_RETURN(params.axis_entries, input_element_count(context, 1));
    axes = constant_ints(context, 1);
    params.axes_from_input = !axes.has_value();
  } else {
    GE_ASSIGN_OR_RETURN(std::vector<int64_t> attribute, ints_attribute(context, "axes", {}));
    axes = attribute;
  }
  if (axes) {
    if (axes->empty() && !params.noop_with_empty_axes) {
      for (int64_t d = 0; d < rank; ++d) params.mask[d] = true;
    }
    for (int64_t axis_value : *axes) {
      GE_ASSIGN_OR_RETURN(int64_t axis, normalize_axis(context, "axes", axis_value, rank));
      params.mask[axis] = true;
    }
    std::vector<int64_t> expected;
    for (int64_t d = 0; d < rank; ++d) {
      if (!params.mask[d]) {
        expected.push_back(x_dims[d]);
      } else if (params.keepdims) {
        expected.push_back(1);
      }
    }
    GE_RETURN_IF_ERROR(check_output(context, 0, dtype, expected));
  } else {
    GE_RETURN_IF_ERROR(check_output(context, 0, dtype, y_dims));
  }
  KernelFunction function = nullptr;
  if (dtype == DataType::kBool) {
    if constexpr (op == ReduceOp::kMax || op == ReduceOp::kMin) {
      if (context.opset < 20) {
        return unsupported_feature(context, "bool input before opset 20 (ReduceMax-20/ReduceMin-20 add it)");
      }
      function = &reduce_kernel<bool, op>;
    }
  } else {
    function =
        select_kernel(dtype, NumericTypes{}, []<typename T>() -> KernelFunction { return &reduce_kernel<T, op>; });
  }
  if (function == nullptr) return unsupported_dtype(context, dtype, data_types(NumericTypes{}));
  return make_kernel(context, function, params);
}

}  // namespace

void add_reduce_kernels(std::vector<OpKernel>& table) {
  const std::vector<DataType> types = data_types(NumericTypes{});
  std::vector<DataType> with_bool = types;
  with_bool.push_back(DataType::kBool);
  table.push_back({"ReduceMax", with_bool, &prepare_reduce<ReduceOp::kMax>});
  table.push_back({"ReduceMin", with_bool, &prepare_reduce<ReduceOp::kMin>});
  table.push_back({"ReduceMean", types, &prepare_reduce<ReduceOp::kMean>});
  table.push_back({"ReduceSum", types, &prepare_reduce<ReduceOp::kSum>});
  table.push_back({"ReduceProd", types, &prepare_reduce<ReduceOp::kProd>});
  table.push_back({"ReduceL1", types, &prepare_reduce<ReduceOp::kL1>});
  table.push_back({"ReduceL2", types, &prepare_reduce<ReduceOp::kL2>});
  table.push_back({"ReduceLogSum", types, &prepare_reduce<ReduceOp::kLogSum>});
  table.push_back({"ReduceLogSumExp", types, &prepare_reduce<ReduceOp::kLogSumExp>});
  table.push_back({"ReduceSumSquare", types, &prepare_reduce<ReduceOp::kSumSquare>});
}

}  // namespace ge::reference_kernels::tensor
