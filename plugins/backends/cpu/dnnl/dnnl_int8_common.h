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
#include "dnnl_util.h"
#include "ge/graph.h"
#include "ge/plugin_api/kernel.h"
#include "ge/reference_kernels/kernel_library.h"
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

using cpu_dnnl::is_jit;

/// A weight zero point read per output row: none (0), one for all rows, or one per row.
struct WeightZeroPoints {
  const Tensor* zero = nullptr;
  int32_t operator()(int64_t row) const {
    return zero == nullptr ? 0 : element(*zero, zero->element_count() == 1 ? 0 : row);
  }
};
/// The zero points of weights `w` of `rows` rows (input `zero_point`, or null for none);
/// nullopt unless they are a constant of w's type with 1 or `rows` elements.
inline std::optional<WeightZeroPoints> weight_zero_points(const Tensor& w, const Value* zero_point, int64_t rows) {
  if (zero_point == nullptr) return WeightZeroPoints{};
  const Tensor* zero = zero_point->constant();
  if (zero == nullptr || zero->dtype() != w.dtype()) return std::nullopt;
  if (zero->element_count() != 1 && zero->element_count() != rows) return std::nullopt;
  return WeightZeroPoints{zero};
}

/// The operands both routes take of ConvInteger/QLinearConv (`qlinear_op` "QLinearConv")
/// or MatMulInteger/QLinearMatMul: 8-bit input 0 and constant 8-bit weights, input 0 and
/// the output plain, the output 8-bit (QLinear*) or int32. Nullopt for anything else.
struct Int8Operands {
  const Value* x = nullptr;  ///< input 0 (A of a matmul)
  const Value* w = nullptr;  ///< the constant weights (B)
  const Value* y = nullptr;
  bool qlinear = false;
  size_t w_index = 1, w_zero_index = 3;
};
/// `channels_last`: x and y may also be stored channels-last ("nhwc", rank 4).
inline std::optional<Int8Operands> int8_operands(const Node& node, std::string_view qlinear_op,
                                                 bool channels_last = false) {
  Int8Operands o;
  o.qlinear = node.op_type() == qlinear_op;
  o.w_index = o.qlinear ? 3 : 1;
  o.w_zero_index = o.qlinear ? 5 : 3;
  o.x = node.input(0);
  o.w = optional_input(node, o.w_index);
  o.y = node.output(0);
  if (!is_8bit(o.x) || !is_8bit(o.w) || o.w->constant() == nullptr) return std::nullopt;
  auto stored = [&](const Value* value) {
    return value->desc().is_plain() ||
           (channels_last && reference_kernels::is_channels_last_format(value->desc().format, static_cast<size_t>(value->desc().rank())));
  };
  if (!stored(o.x) || !stored(o.y)) return std::nullopt;
  if (o.qlinear ? !is_8bit(o.y) : o.y->desc().dtype != DataType::kInt32) return std::nullopt;
  return o;
}

/// A matmul's A dims (a vector as one row) and B dims, where B is one matrix (any batch
/// dims of 1, no more of them than A has) whose rows match A's columns; nullopt otherwise.
struct MatMulShape {
  Dims a, b;
  int64_t rows = 1, k = 0, n = 0;  ///< A as [rows, k], B [k, n]
};
inline std::optional<MatMulShape> matmul_shape(const Value& a, const Value& b) {
  MatMulShape shape{dims_of(a), dims_of(b)};
  if (shape.a.empty() || shape.b.size() < 2) return std::nullopt;
  for (size_t i = 0; i + 2 < shape.b.size(); ++i) {
    if (shape.b[i] != 1) return std::nullopt;  // a batch of B matrices
  }
  if (shape.a.size() == 1) shape.a.insert(shape.a.begin(), 1);
  if (shape.b.size() > shape.a.size()) return std::nullopt;  // Y has B's unit batch dims: fine, but rare
  shape.k = shape.a.back();
  shape.n = shape.b.back();
  if (shape.b[shape.b.size() - 2] != shape.k) return std::nullopt;
  for (size_t i = 0; i + 1 < shape.a.size(); ++i) shape.rows *= shape.a[i];
  return shape;
}

}  // namespace ge::cpu_dnnl::int8_detail
