// Random generators: RandomUniform, RandomNormal (shape from the `shape` attribute),
// RandomUniformLike, RandomNormalLike (shape of input 0), Bernoulli (1 with the
// probability in input 0) and Multinomial (sample_size class indices per row of input 0's
// unnormalised log-probabilities).
//
// With the `seed` attribute every launch restarts a Mersenne Twister (mt19937_64) from
// that seed, so one model gives the same numbers on every run and thread. Without it each
// launch draws from a fresh stream (a random_device seed taken at prepare plus a launch
// counter). No implementation can match another's numbers: the ONNX tests of these ops
// compare against numpy's unseeded generator.

#include <algorithm>
#include <atomic>
#include <bit>
#include <cmath>
#include <memory>
#include <numbers>
#include <random>
#include <string>
#include <vector>

#include "common/special_common.h"
#include "random/registration.h"

namespace ge::reference_kernels::special {
namespace {

enum class Distribution { kUniform, kNormal, kBernoulli, kMultinomial };

struct RandomParams {
  Distribution distribution = Distribution::kUniform;
  double low = 0.0, high = 1.0;     // uniform
  double mean = 0.0, scale = 1.0;   // normal
  int64_t count = 0;                // output elements (uniform, normal, Bernoulli)
  int64_t batch = 0, classes = 0, samples = 0;  // Multinomial
  bool seeded = false;
  uint64_t seed = 0;
  // Unseeded: launch k uses seed + k. Shared so the params block stays copyable.
  std::shared_ptr<std::atomic<uint64_t>> launches;
};

uint64_t launch_seed(const RandomParams& p) {
  if (p.seeded) return p.seed;
  return p.seed + p.launches->fetch_add(1, std::memory_order_relaxed);
}

// Uniform in [0, 1) with 53 random bits.
double unit(std::mt19937_64& engine) { return static_cast<double>(engine() >> 11) * 0x1.0p-53; }

// Standard normal by Box-Muller (one value per call keeps it stateless).
double standard_normal(std::mt19937_64& engine) {
  const double u1 = 1.0 - unit(engine);  // (0, 1]: log stays finite
  const double u2 = unit(engine);
  return std::sqrt(-2.0 * std::log(u1)) * std::cos(2.0 * std::numbers::pi * u2);
}

// Uniform, normal and Bernoulli: one output element per element (Bernoulli reads the
// probabilities of type In).
template <typename Out, typename In>
int elementwise_random_kernel(const KernelArgs& args) {
  const auto& p = *static_cast<const RandomParams*>(args.params);
  Out* y = static_cast<Out*>(args.outputs[0]);
  if (y == nullptr && p.count > 0) return kKernelMissingAddress;
  // RandomUniform and RandomNormal have no inputs: only Bernoulli reads a slot.
  const In* probabilities =
      p.distribution == Distribution::kBernoulli ? static_cast<const In*>(args.inputs[0]) : nullptr;
  if (p.distribution == Distribution::kBernoulli && probabilities == nullptr && p.count > 0) {
    return kKernelMissingAddress;
  }
  std::mt19937_64 engine(launch_seed(p));
  for (int64_t i = 0; i < p.count; ++i) {
    double value = 0.0;
    switch (p.distribution) {
      case Distribution::kUniform:
        value = p.low + (p.high - p.low) * unit(engine);
        break;
      case Distribution::kNormal:
        value = p.mean + p.scale * standard_normal(engine);
        break;
      case Distribution::kBernoulli: {
        const double probability = load(probabilities[i]);
        if (!(probability >= 0.0 && probability <= 1.0)) return kInvalidRuntimeValue;
        value = unit(engine) < probability ? 1.0 : 0.0;
        break;
      }
      case Distribution::kMultinomial:
        break;
    }
    y[i] = store<Out>(value);
  }
  return kKernelOk;
}

template <typename Out, typename In>
int multinomial_kernel(const KernelArgs& args) {
  const auto& p = *static_cast<const RandomParams*>(args.params);
  const auto* logits = static_cast<const In*>(args.inputs[0]);
  Out* y = static_cast<Out*>(args.outputs[0]);
  if (logits == nullptr || y == nullptr) return kKernelMissingAddress;
  if (p.classes > 0 && args.workspace == nullptr) return kKernelMissingAddress;
  auto* cumulative = static_cast<double*>(args.workspace);
  std::mt19937_64 engine(launch_seed(p));
  for (int64_t b = 0; b < p.batch; ++b) {
    const In* row = logits + b * p.classes;
    double maximum = -INFINITY;
    for (int64_t c = 0; c < p.classes; ++c) maximum = std::max(maximum, load(row[c]));
    double total = 0.0;
    for (int64_t c = 0; c < p.classes; ++c) {
      total += std::exp(load(row[c]) - maximum);  // shifted by the maximum: no overflow
      cumulative[c] = total;
    }
    for (int64_t s = 0; s < p.samples; ++s) {
      const double u = unit(engine) * total;
      const int64_t index = std::upper_bound(cumulative, cumulative + p.classes, u) - cumulative;
      y[b * p.samples + s] = static_cast<Out>(std::min(index, p.classes - 1));
    }
  }
  return kKernelOk;
}

Result<bool> read_seed(const KernelContext& context, RandomParams& p) {
  if (!context.node.has_attribute("seed")) {
    p.seed = std::random_device{}();
    p.seed = (p.seed << 32) ^ std::random_device{}();
    p.launches = std::make_shared<std::atomic<uint64_t>>(0);
    return false;
  }
  GE_ASSIGN_OR_RETURN(float seed, float_attribute(context, "seed", 0.0f));
  p.seeded = true;
  p.seed = std::bit_cast<uint32_t>(seed);  // every float names its own stream
  return true;
}

// The output dtype: the `dtype` attribute, or `fallback` when it is absent.
Result<DataType> dtype_attribute(const KernelContext& context, DataType fallback, const std::vector<DataType>& allowed) {
  DataType dtype = fallback;
  if (context.node.has_attribute("dtype")) {
    GE_ASSIGN_OR_RETURN(int64_t code, int_attribute(context, "dtype", 0));
    if (!is_valid_data_type(static_cast<int32_t>(code))) {
      return invalid_attribute(context, "dtype", "= " + std::to_string(code) + " is not a dtype");
    }
    dtype = static_cast<DataType>(code);
  }
  if (std::find(allowed.begin(), allowed.end(), dtype) == allowed.end()) return unsupported_dtype(context, dtype, allowed);
  return dtype;
}

Result<PreparedKernel> prepare_generator(const KernelContext& context, Distribution distribution, bool like) {
  RandomParams p;
  p.distribution = distribution;
  GE_RETURN_IF_ERROR(read_seed(context, p).status());
  const std::vector<DataType> real = data_types(RealTypes{});
  DataType fallback = DataType::kFloat32;
  std::vector<int64_t> dims;
  if (like) {
    GE_ASSIGN_OR_RETURN(dims, input_dims(context, 0));
    fallback = input_dtype(context, 0);
  } else {
    GE_ASSIGN_OR_RETURN(dims, ints_attribute(context, "shape", {}));
    if (!context.node.has_attribute("shape")) return invalid_attribute(context, "shape", "is required");
    for (int64_t dim : dims) {
      if (dim < 0) return invalid_attribute(context, "shape", "has a negative dim");
    }
  }
  GE_ASSIGN_OR_RETURN(DataType dtype, dtype_attribute(context, fallback, real));
  if (distribution == Distribution::kUniform) {
    GE_ASSIGN_OR_RETURN(float low, float_attribute(context, "low", 0.0f));
    GE_ASSIGN_OR_RETURN(float high, float_attribute(context, "high", 1.0f));
    p.low = low;
    p.high = high;
  } else {
    GE_ASSIGN_OR_RETURN(float mean, float_attribute(context, "mean", 0.0f));
    GE_ASSIGN_OR_RETURN(float scale, float_attribute(context, "scale", 1.0f));
    p.mean = mean;
    p.scale = scale;
  }
  GE_RETURN_IF_ERROR(check_output(context, 0, dtype, dims));
  p.count = product(dims);
  KernelFunction function = select_kernel(
      dtype, RealTypes{}, []<typename T>() -> KernelFunction { return &elementwise_random_kernel<T, float>; });
  return make_kernel(context, function, std::move(p));
}

Result<PreparedKernel> prepare_random_uniform(const KernelContext& context) {
  return prepare_generator(context, Distribution::kUniform, false);
}
Result<PreparedKernel> prepare_random_normal(const KernelContext& context) {
  return prepare_generator(context, Distribution::kNormal, false);
}
Result<PreparedKernel> prepare_random_uniform_like(const KernelContext& context) {
  return prepare_generator(context, Distribution::kUniform, true);
}
Result<PreparedKernel> prepare_random_normal_like(const KernelContext& context) {
  return prepare_generator(context, Distribution::kNormal, true);
}

Status check_real_input(const KernelContext& context) {
  const std::vector<DataType> real = data_types(RealTypes{});
  const DataType dtype = input_dtype(context, 0);
  if (std::find(real.begin(), real.end(), dtype) == real.end()) return unsupported_dtype(context, dtype, real);
  return Status::ok();
}

Result<PreparedKernel> prepare_bernoulli(const KernelContext& context) {
  GE_RETURN_IF_ERROR(check_real_input(context));
  RandomParams p;
  p.distribution = Distribution::kBernoulli;
  GE_RETURN_IF_ERROR(read_seed(context, p).status());
  const DataType in = input_dtype(context, 0);
  GE_ASSIGN_OR_RETURN(DataType out, dtype_attribute(context, in, data_types(RealIntegerAndBoolTypes{})));
  GE_ASSIGN_OR_RETURN(std::vector<int64_t> dims, input_dims(context, 0));
  GE_RETURN_IF_ERROR(check_output(context, 0, out, dims));
  p.count = product(dims);
  // Dispatch on the output type, then on the probability type.
  KernelFunction function = select_kernel(out, RealIntegerAndBoolTypes{}, [in]<typename O>() -> KernelFunction {
    return select_kernel(in, RealTypes{},
                                 []<typename I>() -> KernelFunction { return &elementwise_random_kernel<O, I>; });
  });
  return make_kernel(context, function, std::move(p));
}

Result<PreparedKernel> prepare_multinomial(const KernelContext& context) {
  GE_RETURN_IF_ERROR(check_real_input(context));
  RandomParams p;
  p.distribution = Distribution::kMultinomial;
  GE_RETURN_IF_ERROR(read_seed(context, p).status());
  const DataType in = input_dtype(context, 0);
  GE_ASSIGN_OR_RETURN(DataType out, dtype_attribute(context, DataType::kInt32, {DataType::kInt32, DataType::kInt64}));
  GE_ASSIGN_OR_RETURN(std::vector<int64_t> dims, input_dims(context, 0));
  if (dims.size() != 2) return invalid_node(context, "input 0 must be [batch, classes], got " + shape_to_string(dims));
  GE_ASSIGN_OR_RETURN(int64_t samples, int_attribute(context, "sample_size", 1));
  if (samples < 0) return invalid_attribute(context, "sample_size", "must not be negative");
  if (dims[1] == 0 && samples > 0) return invalid_node(context, "cannot sample from zero classes");
  p.batch = dims[0];
  p.classes = dims[1];
  p.samples = samples;
  GE_RETURN_IF_ERROR(check_output(context, 0, out, {p.batch, p.samples}));
  KernelFunction function = select_kernel(out, TypeList<int32_t, int64_t>{}, [in]<typename O>() -> KernelFunction {
    return select_kernel(in, RealTypes{}, []<typename I>() -> KernelFunction { return &multinomial_kernel<O, I>; });
  });
  const size_t workspace = static_cast<size_t>(p.classes) * sizeof(double);
  return make_kernel(context, function, std::move(p), workspace);
}

}  // namespace

void add_random_kernels(std::vector<OpKernel>& table) {
  table.push_back({"RandomUniform", {}, &prepare_random_uniform});
  table.push_back({"RandomNormal", {}, &prepare_random_normal});
  table.push_back({"RandomUniformLike", {}, &prepare_random_uniform_like});
  table.push_back({"RandomNormalLike", {}, &prepare_random_normal_like});
  table.push_back({"Bernoulli", {}, &prepare_bernoulli});
  table.push_back({"Multinomial", {}, &prepare_multinomial});
}

}  // namespace ge::reference_kernels::special
