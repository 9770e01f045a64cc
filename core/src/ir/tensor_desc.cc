// The static description of a value (ge/tensor_desc.h).
#include "ge/tensor_desc.h"

namespace ge {

TensorDesc TensorDesc::of(DataType type, const std::vector<int64_t>& dims) {
  std::vector<Dim> shape;
  shape.reserve(dims.size());
  for (int64_t d : dims) shape.push_back(d >= 0 ? Dim::of(d) : Dim::unknown());
  return TensorDesc(type, std::move(shape));
}

bool TensorDesc::is_static() const {
  if (!shape) return false;
  for (const Dim& d : *shape) {
    if (!d.is_static()) return false;
  }
  return true;
}

std::vector<int64_t> TensorDesc::static_dims() const {
  std::vector<int64_t> dims;
  if (!shape) return dims;
  dims.reserve(shape->size());
  for (const Dim& d : *shape) dims.push_back(d.value);
  return dims;
}

int64_t TensorDesc::element_count() const {
  if (!is_static()) return -1;
  int64_t count = 1;
  for (const Dim& d : *shape) count *= d.value;
  return count;
}

std::string TensorDesc::to_string() const {
  std::string text(data_type_name(dtype));
  if (!shape) {
    text += "[*]";
  } else {
    text += "[";
    for (size_t i = 0; i < shape->size(); ++i) {
      if (i) text += ",";
      const Dim& d = (*shape)[i];
      text += d.is_static() ? std::to_string(d.value) : (d.symbol.empty() ? "?" : d.symbol);
    }
    text += "]";
  }
  if (!format.empty()) text += "{" + format + "}";
  switch (kind) {
    case ValueKind::kTensor: return text;
    case ValueKind::kSequence: return "seq(" + text + ")";
    case ValueKind::kOptional: return "opt(" + text + ")";
    case ValueKind::kOptionalSequence: return "opt(seq(" + text + "))";
  }
  return text;
}

std::string shape_to_string(const std::vector<int64_t>& dims) {
  std::string text = "[";
  for (size_t i = 0; i < dims.size(); ++i) {
    if (i) text += ",";
    text += std::to_string(dims[i]);
  }
  return text + "]";
}

}  // namespace ge
