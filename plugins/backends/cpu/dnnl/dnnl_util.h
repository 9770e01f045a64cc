#pragma once
// Shared pieces of the oneDNN fast paths: memory descs from value descs, fused
// activations as post-ops, and the node facts every fast path reads.

#include <oneapi/dnnl/dnnl.hpp>

#include <optional>
#include <string>
#include <vector>

#include "ge/graph.h"

namespace ge::cpu_dnnl {

using Tag = dnnl::memory::format_tag;
using Dims = dnnl::memory::dims;

/// Static dims of `value`.
Dims dims_of(const Value& value);
/// The plain (row-major) tag of a tensor of `rank` (1..6).
Tag plain_tag(size_t rank);
/// The memory desc of `value` as stored: plain or its channel-blocked format; nullopt
/// for a format oneDNN has no tag for.
std::optional<dnnl::memory::desc> stored_desc(const Value& value);
/// The memory desc of a tensor of `dims` stored in `format` ("" plain).
std::optional<dnnl::memory::desc> stored_desc(const Dims& dims, const std::string& format);
/// True when the node's input/output `value` exists and is float32.
bool is_float32(const Value* value);

/// Attributes every fast path's primitive gets: `ops` as post-ops and a user scratchpad
/// (carved from the launch workspace, so a launch never allocates).
dnnl::primitive_attr kernel_attributes(const dnnl::post_ops& ops = dnnl::post_ops());

/// Appends the node's fused activation (attributes `activation`, `activation_params` of
/// the ge::Fused* ops) to `ops`; false when oneDNN has no equivalent.
bool append_activation(const Node& node, dnnl::post_ops& ops);

/// "cpu.Conv.dnnl:jit:avx512_core" from the backend, the node's op type and oneDNN's
/// implementation name.
std::string fast_kernel_name(std::string_view backend, const Node& node, const char* implementation);

}  // namespace ge::cpu_dnnl
