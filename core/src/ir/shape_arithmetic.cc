// Checked arithmetic for sizes computed from shapes (ge/shape_arithmetic.h).
#include "ge/shape_arithmetic.h"

#include <string>

#include "ge/tensor_desc.h"

namespace ge {
namespace {

std::string dims_text(std::span<const int64_t> dims) {
  return shape_to_string(std::vector<int64_t>(dims.begin(), dims.end()));
}

}  // namespace

std::optional<int64_t> checked_multiply(int64_t a, int64_t b) {
  int64_t product = 0;
  if (__builtin_mul_overflow(a, b, &product)) return std::nullopt;
  return product;
}

Result<int64_t> checked_element_count(std::span<const int64_t> dims) {
  for (size_t i = 0; i < dims.size(); ++i) {
    if (dims[i] < 0) {
      return invalid_argument("dim " + std::to_string(i) + " of " + dims_text(dims) + " is negative (" +
                              std::to_string(dims[i]) + ")");
    }
  }
  int64_t count = 1;
  bool overflowed = false;
  for (int64_t d : dims) {
    if (d == 0) return int64_t{0};  // an empty tensor, however large its other dims
    std::optional<int64_t> product = checked_multiply(count, d);
    if (!product) overflowed = true;
    else count = *product;
  }
  if (overflowed) return invalid_argument("shape " + dims_text(dims) + " has more than 2^63 elements");
  return count;
}

Result<size_t> checked_byte_size(DataType type, std::span<const int64_t> dims) {
  GE_ASSIGN_OR_RETURN(int64_t count, checked_element_count(dims));
  std::optional<int64_t> bytes = checked_multiply(count, static_cast<int64_t>(element_size(type)));
  if (!bytes) {
    return invalid_argument("shape " + dims_text(dims) + " of " + std::string(data_type_name(type)) + " has " +
                            std::to_string(count) + " elements, more than 2^63 bytes");
  }
  return static_cast<size_t>(*bytes);
}

}  // namespace ge
