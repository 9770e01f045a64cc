#pragma once
/// The byte size memory planning gives a value: exact for a static tensor, refused for
/// anything else, and bounded so that offset arithmetic cannot overflow. Private to the core.

#include <cstddef>
#include <string>

#include "ge/tensor_desc.h"

namespace ge {

/// Sizes and offsets beyond this are refused rather than risking overflow in offset
/// arithmetic.
inline constexpr size_t kMaxBytes = size_t{1} << 56;

/// Exact byte size of a statically planable value into `bytes`; false with why not in
/// `reason` (a sequence or optional, an unknown or string element type, a dynamic shape,
/// a size past kMaxBytes).
bool static_bytes(const TensorDesc& desc, size_t& bytes, std::string& reason);

}  // namespace ge
