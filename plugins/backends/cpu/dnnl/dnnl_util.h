#pragma once
// Shared pieces of the oneDNN fast paths: memory descs from value descs, fused
// activations as post-ops, and the node facts every fast path reads.

#include <oneapi/dnnl/dnnl.hpp>

#include <optional>
#include <string>
#include <vector>

#include "dnnl_kernels.h"
#include "ge/graph.h"

namespace ge::cpu_dnnl {

using Tag = dnnl::memory::format_tag;
using Dims = dnnl::memory::dims;
using DnnlType = dnnl::memory::data_type;

/// Static dims of `value`.
Dims dims_of(const Value& value);
/// The plain (row-major) tag of a tensor of `rank` (1..6).
Tag plain_tag(size_t rank);
/// The memory desc of `value` as stored (its element type, plain or its channel-blocked
/// format); nullopt for a format oneDNN has no tag for or a type the fast paths do not take.
std::optional<dnnl::memory::desc> stored_desc(const Value& value);
/// The memory desc of a tensor of `dims` of `type` stored in `format` ("" plain).
std::optional<dnnl::memory::desc> stored_desc(const Dims& dims, const std::string& format,
                                              DnnlType type = DnnlType::f32);
/// True when the node's input/output `value` exists and is float32.
bool is_float32(const Value* value);
/// True when `value` exists and is float32, float16 or bfloat16: the types the fast paths
/// store.
bool is_float(const Value* value);
/// oneDNN's type for `value`'s element type (f32, f16, bf16); undef for any other.
DnnlType storage_type(const Value* value);
/// What a primitive computes on for values stored as `storage`: bfloat16 natively where
/// oneDNN dispatches bf16 kernels (AVX512-BF16, AMX: native_bf16()), float16, and
/// bfloat16 elsewhere, as float32 (oneDNN 2.6 has no CPU float16 primitive, and none for
/// bfloat16 below AVX512-BF16: the program converts at the kernel's boundary).
DnnlType compute_type(DnnlType storage);
/// Whether oneDNN, as it dispatches here (ONEDNN_MAX_CPU_ISA included), has bfloat16
/// arithmetic (avx512_core_bf16 and above).
bool native_bf16();
/// Whether values of `type` are stored in half precision but computed in float32: the
/// program converts them on the host at a kernel's boundary (dnnl_program.cc).
bool converted_half(DnnlType type);
/// `desc` with its element type replaced (same dims and layout).
dnnl::memory::desc with_type(const dnnl::memory::desc& desc, DnnlType type);

/// True when the precision mode runs `node` (Conv, ConvTranspose, MatMul, Gemm and their
/// ge::Fused forms, of float32 tensors) in bfloat16: src and weights rounded to bfloat16,
/// float32 accumulation, bias and output. kBf16: every such node. kMixed: not a MatMul
/// whose two operands are both computed (attention scores and their weighting), not a
/// node writing a graph output and not one reading a graph input. kFp32: none.
bool computes_in_bf16(const Node& node, const Options& options);

/// The suffix a kernel's name carries for its arithmetic: ".bf16" where the primitive
/// computes in bfloat16 (bfloat16 tensors or the precision mode), ".f16" where float16
/// tensors are computed in float32, "" for float32.
const char* precision_suffix(DnnlType storage, bool bf16_arithmetic);

/// Attributes every fast path's primitive gets: `ops` as post-ops and a user scratchpad
/// (carved from the launch workspace, so a launch never allocates).
dnnl::primitive_attr kernel_attributes(const dnnl::post_ops& ops = dnnl::post_ops());

/// Appends the node's fused activation (attributes `activation`, `activation_params` of
/// the ge::Fused* ops) to `ops`; false when oneDNN has no equivalent.
bool append_activation(const Node& node, dnnl::post_ops& ops);

/// Whether a oneDNN implementation ("jit:avx512_core", "jit_1x1:avx2", "brgconv:avx512_core",
/// "brdgmm_dw:avx512_core") is generated code, not its gemm-based or reference loops.
bool is_jit(const char* implementation);

/// "cpu.Conv.dnnl:jit:avx512_core" from the backend, the node's op type and oneDNN's
/// implementation name.
std::string fast_kernel_name(std::string_view backend, const Node& node, const char* implementation);

}  // namespace ge::cpu_dnnl
