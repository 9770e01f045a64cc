#pragma once
// Helpers every reference kernel's prepare step shares: messages, checked attribute and
// shape access, dtype dispatch (dtype_dispatch.h) and building the PreparedKernel. Internal to the library.

#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

#include "ge/data_type.h"
#include "ge/graph.h"
#include "ge/plugin_api/kernel.h"
#include "ge/reference_kernels/dtype_dispatch.h"
#include "ge/reference_kernels/kernel_library.h"
#include "ge/status.h"

namespace ge::reference_kernels {

/// What a prepare function sees: the node, the backend name for messages and kernel
/// names, and the ai.onnx opset of the node's graph (semantics changed across opsets).
struct KernelContext {
  const Node& node;
  std::string_view backend;
  int64_t opset = 0;
};

/// One op's entry in the library: the dtypes of input 0 it runs and its prepare step.
/// prepare is only called once the dtype check passed and every present input/output
/// desc is a static tensor.
struct OpKernel {
  std::string_view op_type;
  std::vector<DataType> dtypes;
  Result<PreparedKernel> (*prepare)(const KernelContext& context) = nullptr;
};

// ---- dtype lists (the TypeLists are in dtype_dispatch.h) ----

/// Every dtype whose elements are plain bytes (copy-only kernels): all but string.
std::vector<DataType> all_fixed_size_types();

/// "float32, float64".
std::string data_type_list(std::span<const DataType> types);

// ---- messages ----

/// kUnsupported: "backend 'cpu' does not support Conv 'c1' with dtype int32 (supported: ...)".
Status unsupported_dtype(const KernelContext& context, DataType dtype, std::span<const DataType> supported);
/// kUnsupported naming node, backend and `what` ("3-D spatial input", "training_mode=1").
Status unsupported_feature(const KernelContext& context, std::string_view what);
/// kInvalidArgument: "Conv 'c1': attribute 'group' ...: <problem>".
Status invalid_attribute(const KernelContext& context, std::string_view attribute, std::string_view problem);
/// kInvalidArgument: "Conv 'c1': <problem>".
Status invalid_node(const KernelContext& context, std::string_view problem);

// ---- inputs and outputs ----

bool has_input(const KernelContext& context, size_t index);
bool has_output(const KernelContext& context, size_t index);
/// Static dims of input `index`; kInvalidArgument when it is omitted.
Result<std::vector<int64_t>> input_dims(const KernelContext& context, size_t index);
Result<std::vector<int64_t>> output_dims(const KernelContext& context, size_t index);
DataType input_dtype(const KernelContext& context, size_t index);
/// Requires input `index` to be present with `dtype` (kUnsupported otherwise, e.g. a
/// float64 bias on a float32 Conv).
Status check_input_dtype(const KernelContext& context, size_t index, DataType dtype);
/// Requires output `index` to have `dtype` and exactly `dims`: a mismatch means the
/// descs disagree with the op's semantics and the kernel would index out of bounds.
Status check_output(const KernelContext& context, size_t index, DataType dtype, const std::vector<int64_t>& dims);

// ---- attributes (an attribute of the wrong type is kInvalidArgument) ----

Result<int64_t> int_attribute(const KernelContext& context, const std::string& name, int64_t fallback);
Result<float> float_attribute(const KernelContext& context, const std::string& name, float fallback);
Result<std::string> string_attribute(const KernelContext& context, const std::string& name,
                                     const std::string& fallback);
Result<std::vector<int64_t>> ints_attribute(const KernelContext& context, const std::string& name,
                                            std::vector<int64_t> fallback);
/// Maps `axis` in [-rank, rank) (or [-rank, rank] when `allow_rank`) to [0, rank).
Result<int64_t> normalize_axis(const KernelContext& context, const std::string& name, int64_t axis, int64_t rank,
                               bool allow_rank = false);

// ---- shapes ----

int64_t product(std::span<const int64_t> dims);
/// Product of dims[begin, end).
int64_t product(const std::vector<int64_t>& dims, size_t begin, size_t end);

// ---- building the kernel ----

/// "cpu.Conv" or "cpu.Conv.im2col".
std::string kernel_name(const KernelContext& context, std::string_view variant = {});

template <typename Params>
PreparedKernel make_kernel(const KernelContext& context, KernelFunction function, Params params,
                           size_t workspace_bytes = 0, std::string_view variant = {}) {
  PreparedKernel kernel;
  kernel.function = function;
  kernel.params = std::make_shared<const Params>(std::move(params));
  kernel.workspace_bytes = workspace_bytes;
  kernel.name = kernel_name(context, variant);
  return kernel;
}

/// Integer arithmetic that wraps instead of overflowing (signed overflow is undefined
/// behaviour); plain arithmetic for floating point.
template <typename T>
T wrapping_add(T a, T b) {
  if constexpr (std::is_integral_v<T>) {
    using U = std::make_unsigned_t<T>;
    return static_cast<T>(static_cast<U>(static_cast<U>(a) + static_cast<U>(b)));
  } else {
    return a + b;
  }
}
template <typename T>
T wrapping_sub(T a, T b) {
  if constexpr (std::is_integral_v<T>) {
    using U = std::make_unsigned_t<T>;
    return static_cast<T>(static_cast<U>(static_cast<U>(a) - static_cast<U>(b)));
  } else {
    return a - b;
  }
}
template <typename T>
T wrapping_mul(T a, T b) {
  if constexpr (std::is_integral_v<T>) {
    using U = std::make_unsigned_t<T>;
    // Promote through unsigned int so that uint8/uint16 products do not go through a
    // signed int multiply that could overflow.
    using Wide = std::conditional_t<(sizeof(U) < sizeof(unsigned)), unsigned, U>;
    return static_cast<T>(static_cast<U>(static_cast<Wide>(static_cast<U>(a)) * static_cast<Wide>(static_cast<U>(b))));
  } else {
    return a * b;
  }
}

}  // namespace ge::reference_kernels
