#pragma once
/// Static description of a value: its kind, element type and (possibly partial) shape.

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "ge/data_type.h"

namespace ge {

/// One dimension: a static extent, a named symbolic extent ("N", "seq"), or unknown.
struct Dim {
  int64_t value = -1;   ///< >= 0 when static
  std::string symbol;   ///< non-empty for a named dim (value is then -1)

  static Dim of(int64_t extent) { return Dim{extent, {}}; }
  static Dim unknown() { return Dim{}; }
  static Dim named(std::string name) { return Dim{-1, std::move(name)}; }

  bool is_static() const { return value >= 0; }
  bool operator==(const Dim& other) const = default;
};

/// What a value holds. Sequences and optionals describe their element tensor with
/// the dtype/shape of the enclosing TensorDesc.
enum class ValueKind { kTensor, kSequence, kOptional, kOptionalSequence };

struct TensorDesc {
  ValueKind kind = ValueKind::kTensor;
  DataType dtype = DataType::kUndefined;
  std::optional<std::vector<Dim>> shape;  ///< nullopt: rank unknown
  /// Storage format of the elements (GE's tensor "format"): empty is plain row-major
  /// order of `shape`; a backend's blocked format such as "nChw16c" (channels split into
  /// blocks of 16, innermost) otherwise. The shape stays the logical one. Formats are
  /// only given to tensors whose blocked storage needs no padding, so the byte size is
  /// always element_count() * element size. Producer and consumers of a value agree on
  /// it because it belongs to the value: a kernel reads its formats at prepare time.
  std::string format;

  TensorDesc() = default;
  TensorDesc(DataType type, std::vector<Dim> dims) : dtype(type), shape(std::move(dims)) {}
  static TensorDesc of(DataType type, const std::vector<int64_t>& dims);

  bool has_rank() const { return shape.has_value(); }
  int64_t rank() const { return shape ? static_cast<int64_t>(shape->size()) : -1; }
  /// Rank known and every dim static.
  bool is_static() const;
  /// Static extents; requires is_static().
  std::vector<int64_t> static_dims() const;
  /// Product of static extents, or -1 when not static.
  int64_t element_count() const;
  /// True when the elements are stored in plain row-major order.
  bool is_plain() const { return format.empty(); }
  /// "float32[1,3,N,?]"; "float32[*]" for unknown rank; "seq(float32[2])" for sequences;
  /// "float32[1,64,8,8]{nChw16c}" for a non-plain format.
  std::string to_string() const;

  bool operator==(const TensorDesc& other) const = default;
};

/// "[1,3,224,224]" for messages.
std::string shape_to_string(const std::vector<int64_t>& dims);

}  // namespace ge
