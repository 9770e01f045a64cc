#pragma once
// The fast paths dnnl_kernels.cc dispatches to, one per op family. Each returns nullopt
// for a node it does not take.

#include <optional>
#include <string_view>

#include <oneapi/dnnl/dnnl.hpp>

#include "dnnl_kernels.h"

namespace ge::cpu_dnnl {

/// Conv, ge::FusedConv.
std::optional<PreparedKernel> prepare_conv(const Node& node, std::string_view backend, const Options& options);
/// MatMul, ge::FusedMatMul.
std::optional<PreparedKernel> prepare_matmul(const Node& node, std::string_view backend, const Options& options);
/// Gemm, ge::FusedGemm.
std::optional<PreparedKernel> prepare_gemm(const Node& node, std::string_view backend, const Options& options);
/// MaxPool, AveragePool, GlobalAveragePool, GlobalMaxPool.
std::optional<PreparedKernel> prepare_pool(const Node& node, std::string_view backend, const Options& options);

/// ConvTranspose, ge::FusedConvTranspose.
std::optional<PreparedKernel> prepare_deconv(const Node& node, std::string_view backend, const Options& options);
/// Resize (nearest integer upscaling, half-pixel linear).
std::optional<PreparedKernel> prepare_resample(const Node& node, std::string_view backend, const Options& options);
/// Whether prepare_resample takes `node` (its formats aside).
bool resample_applies(const Node& node);
/// Softmax.
std::optional<PreparedKernel> prepare_softmax(const Node& node, std::string_view backend, const Options& options);
/// LayerNormalization, ge::LayerNormalization.
std::optional<PreparedKernel> prepare_layer_norm(const Node& node, std::string_view backend, const Options& options);
/// Add, Sub, Mul, Div of a tensor (input `full`, the output's dims) and a per-channel
/// operand (input `channel`, [1 or N, C, 1, ...], plain).
struct ChannelBinary {
  int full = 0, channel = 1;
  dnnl::algorithm algorithm = dnnl::algorithm::binary_add;
};
/// The operands of `node` when it is such a binary op (its formats and size aside).
std::optional<ChannelBinary> channel_binary(const Node& node);
std::optional<PreparedKernel> prepare_binary(const Node& node, std::string_view backend, const Options& options);
/// Concat with a channel-blocked input or output.
std::optional<PreparedKernel> prepare_concat(const Node& node, std::string_view backend, const Options& options);
/// Unary activations (Sigmoid, Tanh, Exp, HardSwish, Softplus, Elu, LeakyRelu, ge::Gelu).
std::optional<PreparedKernel> prepare_eltwise(const Node& node, std::string_view backend, const Options& options);

/// ConvInteger, QLinearConv, MatMulInteger, QLinearMatMul with constant 8-bit weights
/// (dnnl_int8.cc): the reference kernels' integer results exactly. oneDNN's int8 kernels
/// on CPUs with VNNI, else (or where that route refuses a node) the float32 route below.
/// Options::int8 kOff: neither; kFloat32: the float32 route only.
std::optional<PreparedKernel> prepare_int8(const Node& node, std::string_view backend, const Options& options);
/// The float32 route (dnnl_int8_float.cc): oneDNN's float32 kernels on the integers,
/// cut into chunks whose sums float32 holds exactly; on any x86 CPU.
std::optional<PreparedKernel> prepare_int8_conv_float(const Node& node, std::string_view backend,
                                                      const Options& options);
std::optional<PreparedKernel> prepare_int8_matmul_float(const Node& node, std::string_view backend,
                                                        const Options& options);
/// Whether the int8 route runs this QLinearConv with channels-last ("nhwc") input and
/// output and no host step (VNNI, constant scales, weights without compensation, rank 4):
/// what format_capability offers, so that quantised activations stay channels-last
/// between int8 convolutions.
bool int8_conv_takes_channels_last(const Node& node, const Options& options);
/// A large elementwise op no other fast path takes (reference_kernels::is_format_agnostic, at
/// least 131072 elements, more than one thread): its reference kernel run on slices split
/// across the kernel's threads, with the reference kernel's name (dnnl_split.cc).
std::optional<PreparedKernel> prepare_split(const Node& node, std::string_view backend, const Options& options);
/// A RoiAlign of at least 16 regions on more than one thread: its reference kernel run on
/// runs of 8 regions split across the kernel's threads, each thread tabulating its samples
/// in a table of its own; the reference kernel's name and workspace (dnnl_split.cc).
std::optional<PreparedKernel> prepare_roi_split(const Node& node, std::string_view backend, const Options& options);
/// Multiply-adds (times 2) of one launch of those ops; nullopt for any other op.
std::optional<double> int8_work(const Node& node);

}  // namespace ge::cpu_dnnl
