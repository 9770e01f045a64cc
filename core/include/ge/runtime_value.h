#pragma once
/// A value at run time: a tensor, a sequence of tensors, or an optional (possibly empty)
/// tensor or sequence. Kernels see only tensors; sequences and optionals are handled by
/// the executor's host ops.

#include <string>
#include <vector>

#include "ge/tensor.h"
#include "ge/tensor_desc.h"

namespace ge {

struct RuntimeValue {
  ValueKind kind = ValueKind::kTensor;
  bool has_element = true;        ///< false for an empty optional
  Tensor tensor;                  ///< kTensor, or kOptional holding a tensor
  std::vector<Tensor> sequence;   ///< kSequence, or kOptionalSequence holding a sequence
  DataType element_type = DataType::kUndefined;  ///< element dtype of an empty sequence/optional

  static RuntimeValue of(Tensor t) {
    RuntimeValue v;
    v.element_type = t.dtype();
    v.tensor = std::move(t);
    return v;
  }
  static RuntimeValue of_sequence(std::vector<Tensor> items, DataType element_type) {
    RuntimeValue v;
    v.kind = ValueKind::kSequence;
    v.sequence = std::move(items);
    v.element_type = element_type;
    return v;
  }
  static RuntimeValue empty_optional(ValueKind kind, DataType element_type) {
    RuntimeValue v;
    v.kind = kind;
    v.has_element = false;
    v.element_type = element_type;
    return v;
  }

  bool is_tensor() const { return kind == ValueKind::kTensor; }
  /// Whether this holds a tensor (plain, or a non-empty tensor optional).
  bool holds_tensor() const { return kind == ValueKind::kTensor || (kind == ValueKind::kOptional && has_element); }
  bool holds_sequence() const {
    return kind == ValueKind::kSequence || (kind == ValueKind::kOptionalSequence && has_element);
  }
  /// The static description of what is held now (for run-time shape inference).
  TensorDesc desc() const;
  /// "float32[2,3]", "seq(3 x float32)", "optional(empty)" for messages.
  std::string to_string() const;
};

}  // namespace ge
