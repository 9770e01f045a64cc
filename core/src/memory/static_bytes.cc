// The byte size memory planning gives a value (static_bytes.h).
#include "static_bytes.h"

namespace ge {

bool static_bytes(const TensorDesc& desc, size_t& bytes, std::string& reason) {
  if (desc.kind != ValueKind::kTensor) {
    reason = "a sequence or optional value";
    return false;
  }
  if (desc.dtype == DataType::kUndefined) {
    reason = "element type unknown";
    return false;
  }
  if (desc.dtype == DataType::kString) {
    reason = "string tensors hold constructed objects";
    return false;
  }
  if (!desc.is_static()) {
    reason = "shape " + desc.to_string() + " is not static";
    return false;
  }
  size_t total = element_size(desc.dtype);
  for (int64_t d : desc.static_dims()) {
    const auto extent = static_cast<size_t>(d);
    if (extent != 0 && total > kMaxBytes / extent) {
      reason = "size of " + desc.to_string() + " overflows";
      return false;
    }
    total *= extent;
  }
  bytes = total;
  return true;
}

}  // namespace ge
