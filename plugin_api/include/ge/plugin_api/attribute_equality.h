#pragma once
/// Comparing and hashing tensors and attributes by content, as passes that merge equal
/// nodes or constants need.

#include <cstddef>

#include "ge/attribute.h"
#include "ge/tensor.h"

namespace ge {

/// Same dtype, shape and elements (bitwise for floats, so NaN payloads count).
bool tensors_equal(const Tensor& a, const Tensor& b);
/// A hash consistent with tensors_equal.
size_t hash_tensor(const Tensor& tensor);
/// Same type and value; tensors by tensors_equal, graphs by identity. An int and a float
/// attribute are equal when their values are.
bool attributes_equal(const Attribute& a, const Attribute& b);

}  // namespace ge
