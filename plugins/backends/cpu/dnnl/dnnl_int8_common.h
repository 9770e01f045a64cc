#pragma once
// What the two int8 routes share: the VNNI route (dnnl_int8.cc, oneDNN's int8 kernels)
// and the float32 route (dnnl_int8_float.cc, oneDNN's float32 kernels on integer-valued
// floats, for CPUs without VNNI): the node queries and the launch-time accessors.

#include <oneapi/dnnl/dnnl.hpp>

#include <cstdint>
#include <optional>
#include <string_view>
#include <vector>

#include "dnnl_program.h"
#include "ge/graph.h"
#include "ge/kernel.h"
#include "ge/tensor.h"

namespace ge::cpu_dnnl::int8_detail {

/// The largest |integer| every float32 below it represents exactly: 2^24.
constexpr int64_t kExactSum = int64_t{1} << 24;

/// Whether oneDNN's int8 kernels multiply 8-bit pairs exactly here (VNNI, or AMX above it).
inline bool has_vnni() {
  const auto isa = static_cast<unsigned>(dnnl::get_effective_cpu_isa());
  constexpr auto kAvx512Vnni = static_cast<unsigned>(dnnl::cpu_isa::avx512_core_vnni);
  constexpr auto kAvx2Vnni = static_cast<unsigned>(dnnl::cpu_isa::avx2_vnni);
  return (isa & kAvx512Vnni) == kAvx512Vnni || (isa & kAvx2Vnni) == kAvx2Vnni;
}

inline bool is_8bit(const Value* value) {
  return value != nullptr && (value->desc().dtype == DataType::kUInt8 || value->desc().dtype == DataType::kInt8);
}

inline dnnl::memory::data_type dnnl_type(DataType dtype) {
  return dtype == DataType::kInt8 ? dnnl::memory::data_type::s8 : dnnl::memory::data_type::u8;
}

/// Element i of an 8-bit tensor as int32.
inline int32_t element(const Tensor& t, int64_t i) {
  return t.dtype() == DataType::kInt8 ? static_cast<int32_t>(t.data<int8_t>()[i])
                                      : static_cast<int32_t>(t.data<uint8_t>()[i]);
}

inline const Value* optional_input(const Node& node, size_t index) {
  return index < node.input_count() ? node.input(index) : nullptr;
}

/// Float32 constant values of input `index` (1 or `extent` of them), or nullopt.
inline std::optional<std::vector<float>> constant_floats(const Node& node, size_t index, int64_t extent) {
  const Value* v = optional_input(node, index);
  if (v == nullptr || v->constant() == nullptr || v->desc().dtype != DataType::kFloat32) return std::nullopt;
  const Tensor& t = *v->constant();
  if (t.element_count() != 1 && t.element_count() != extent) return std::nullopt;
  return std::vector<float>(t.data<float>(), t.data<float>() + t.element_count());
}

/// What a host step reads and writes, resolved from the launch's arguments.
inline const void* input_at(const KernelArgs& args, int index) { return index >= 0 ? args.inputs[index] : nullptr; }
inline char* workspace_at(const KernelArgs& args, size_t offset) { return static_cast<char*>(args.workspace) + offset; }

inline int32_t load_8bit(const void* data, bool is_signed) {
  return is_signed ? static_cast<int32_t>(*static_cast<const int8_t*>(data))
                   : static_cast<int32_t>(*static_cast<const uint8_t*>(data));
}

/// Whether a oneDNN implementation is generated code (not its reference loops).
inline bool is_jit(const char* implementation) {
  const std::string_view name = implementation != nullptr ? implementation : "";
  return name.starts_with("jit") || name.starts_with("brg");
}

}  // namespace ge::cpu_dnnl::int8_detail
