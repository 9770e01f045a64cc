// And, Or, Xor (bool), BitShift (unsigned integers; `direction` LEFT or RIGHT, a shift by
// the bit width or more gives 0) and BitwiseAnd/Or/Xor (integers), with numpy
// broadcasting (legacy attributes below opset 7 for And/Or/Xor).

#include <cstdint>
#include <string>

#include "math/math_binary.h"
#include "math/registration.h"

namespace ge::reference_kernels::math {
namespace {

struct AndOp {
  static bool apply(bool a, bool b) { return a && b; }
};
struct OrOp {
  static bool apply(bool a, bool b) { return a || b; }
};
struct XorOp {
  static bool apply(bool a, bool b) { return a != b; }
};
struct BitwiseAndOp {
  template <typename T>
  static T apply(T a, T b) {
    return static_cast<T>(a & b);
  }
};
struct BitwiseOrOp {
  template <typename T>
  static T apply(T a, T b) {
    return static_cast<T>(a | b);
  }
};
struct BitwiseXorOp {
  template <typename T>
  static T apply(T a, T b) {
    return static_cast<T>(a ^ b);
  }
};
// Shifts go through uint64_t so that narrow types do not shift a promoted signed int.
struct ShiftLeftOp {
  template <typename T>
  static T apply(T a, T b) {
    return b >= sizeof(T) * 8 ? T(0) : static_cast<T>(static_cast<uint64_t>(a) << b);
  }
};
struct ShiftRightOp {
  template <typename T>
  static T apply(T a, T b) {
    return b >= sizeof(T) * 8 ? T(0) : static_cast<T>(static_cast<uint64_t>(a) >> b);
  }
};

Result<PreparedKernel> prepare_bit_shift(const KernelContext& context) {
  if (!context.node.has_attribute("direction")) {
    return invalid_attribute(context, "direction", "is required (LEFT or RIGHT)");
  }
  GE_ASSIGN_OR_RETURN(std::string direction, string_attribute(context, "direction", ""));
  if (direction == "LEFT") return prepare_same_type_binary<ShiftLeftOp, UnsignedIntegerTypes>(context);
  if (direction == "RIGHT") return prepare_same_type_binary<ShiftRightOp, UnsignedIntegerTypes>(context);
  return invalid_attribute(context, "direction", "is '" + direction + "'; expected LEFT or RIGHT");
}

}  // namespace

void add_logical_kernels(std::vector<OpKernel>& table) {
  const std::vector<DataType> boolean = data_types(BoolTypes{});
  const std::vector<DataType> integer = data_types(IntegerTypes{});
  table.push_back({"And", boolean, &prepare_same_type_binary<AndOp, BoolTypes>});
  table.push_back({"Or", boolean, &prepare_same_type_binary<OrOp, BoolTypes>});
  table.push_back({"Xor", boolean, &prepare_same_type_binary<XorOp, BoolTypes>});
  table.push_back({"BitShift", data_types(UnsignedIntegerTypes{}), &prepare_bit_shift});
  table.push_back({"BitwiseAnd", integer, &prepare_same_type_binary<BitwiseAndOp, IntegerTypes>});
  table.push_back({"BitwiseOr", integer, &prepare_same_type_binary<BitwiseOrOp, IntegerTypes>});
  table.push_back({"BitwiseXor", integer, &prepare_same_type_binary<BitwiseXorOp, IntegerTypes>});
}

}  // namespace ge::reference_kernels::math
