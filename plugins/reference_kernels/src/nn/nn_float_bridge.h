#pragma once
// Runs a float32 kernel for float16/bfloat16 tensors: the launch converts the listed
// inputs to float32 in the workspace, calls the float32 kernel with those copies (and the
// rest of the workspace as its own), and rounds the listed outputs back (to nearest
// even). Conv, ConvTranspose and the pools use it so that their one reference loop
// serves every floating dtype the spec allows.

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <string_view>
#include <vector>

#include "ge/reference_kernels/kernel_util.h"
#include "nn/nn_element.h"

namespace ge::reference_kernels::nn {

inline constexpr size_t kMaxBridgedSlots = 16;

/// Which inputs and outputs a bridged launch converts (element counts; 0 passes the
/// address through unchanged, e.g. an int64 Indices output).
struct FloatBridge {
  std::vector<int64_t> input_counts;
  std::vector<int64_t> output_counts;
  size_t inner_workspace = 0;  ///< bytes the float32 kernel itself needs

  /// Bytes of float32 copies, rounded up so the inner workspace stays 64-byte aligned.
  size_t copy_bytes() const {
    int64_t floats = 0;
    for (int64_t count : input_counts) floats += count;
    for (int64_t count : output_counts) floats += count;
    return (static_cast<size_t>(floats) * sizeof(float) + 63) / 64 * 64;
  }
  size_t workspace_bytes() const { return copy_bytes() + inner_workspace; }
};

template <typename P>
struct Bridged {
  P inner;
  FloatBridge bridge;
};

template <typename H, KernelFunction Inner, typename P>
int bridged_kernel(const KernelArgs& args) {
  const auto& params = *static_cast<const Bridged<P>*>(args.params);
  const FloatBridge& b = params.bridge;
  if (b.input_counts.size() > kMaxBridgedSlots || b.output_counts.size() > kMaxBridgedSlots) return kKernelMissingAddress;
  if (b.workspace_bytes() > 0 && args.workspace == nullptr) return kKernelMissingAddress;
  auto* cursor = static_cast<float*>(args.workspace);
  const void* inputs[kMaxBridgedSlots] = {};
  void* outputs[kMaxBridgedSlots] = {};
  for (size_t i = 0; i < b.input_counts.size(); ++i) {
    inputs[i] = args.inputs[i];
    if (b.input_counts[i] == 0 || args.inputs[i] == nullptr) continue;
    const H* source = static_cast<const H*>(args.inputs[i]);
    for (int64_t k = 0; k < b.input_counts[i]; ++k) cursor[k] = static_cast<float>(load(source[k]));
    inputs[i] = cursor;
    cursor += b.input_counts[i];
  }
  for (size_t o = 0; o < b.output_counts.size(); ++o) {
    outputs[o] = args.outputs[o];
    if (b.output_counts[o] == 0 || args.outputs[o] == nullptr) continue;
    outputs[o] = cursor;
    cursor += b.output_counts[o];
  }
  KernelArgs inner;
  inner.inputs = inputs;
  inner.outputs = outputs;
  inner.workspace = b.inner_workspace > 0 ? static_cast<unsigned char*>(args.workspace) + b.copy_bytes() : nullptr;
  inner.params = &params.inner;
  const int code = Inner(inner);
  if (code != kKernelOk) return code;
  for (size_t o = 0; o < b.output_counts.size(); ++o) {
    if (b.output_counts[o] == 0 || args.outputs[o] == nullptr) continue;
    const auto* result = static_cast<const float*>(outputs[o]);
    H* destination = static_cast<H*>(args.outputs[o]);
    for (int64_t k = 0; k < b.output_counts[o]; ++k) destination[k] = store<H>(result[k]);
  }
  return kKernelOk;
}

/// The kernel for `dtype`: `make.template operator()<T>()` for float32/float64, and the
/// float32 kernel bridged for float16/bfloat16 (params wrapped with `bridge`). Null for
/// other dtypes.
template <typename P, KernelFunction Float32Kernel, typename Make>
PreparedKernel prepare_with_bridge(const KernelContext& context, DataType dtype, P params, FloatBridge bridge,
                                   size_t float_workspace, size_t element_workspace, std::string_view variant,
                                   Make&& make) {
  if (dtype == DataType::kFloat16 || dtype == DataType::kBFloat16) {
    // A launch passes one address per node input and output: trailing optional ones
    // (a bias, a mask) may be absent altogether, and must not be read.
    bridge.input_counts.resize(std::min(bridge.input_counts.size(), context.node.input_count()));
    bridge.output_counts.resize(std::min(bridge.output_counts.size(), context.node.output_count()));
    bridge.inner_workspace = float_workspace;
    const size_t workspace = bridge.workspace_bytes();
    KernelFunction function = dtype == DataType::kFloat16 ? &bridged_kernel<Half, Float32Kernel, P>
                                                          : &bridged_kernel<BFloat16, Float32Kernel, P>;
    return make_kernel(context, function, Bridged<P>{std::move(params), std::move(bridge)}, workspace, variant);
  }
  KernelFunction function = select_kernel(dtype, Float32And64Types{}, make);
  return make_kernel(context, function, std::move(params), element_workspace, variant);
}

}  // namespace ge::reference_kernels::nn
