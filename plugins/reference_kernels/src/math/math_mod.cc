// Mod: every numeric type, numpy broadcasting. fmod = 0 (integers only) takes the sign
// of the divisor like Python's %; fmod = 1 takes the sign of the dividend like C's fmod
// (required for floating types). An integer zero divisor fails the launch.

#include <cmath>
#include <string>
#include <type_traits>

#include "math/math_binary.h"
#include "math/registration.h"

namespace ge::reference_kernels::math {
namespace {

struct ModOp {  // sign of the divisor
  static constexpr bool kIntegerDivision = true;
  template <typename T>
  static T apply(T a, T b) {
    if constexpr (std::is_signed_v<T>) {
      if (b == T(-1)) return T(0);  // lowest % -1 overflows in C++
      auto r = static_cast<T>(a % b);
      if (r != T(0) && ((r < T(0)) != (b < T(0)))) r = static_cast<T>(r + b);
      return r;
    } else {
      return static_cast<T>(a % b);
    }
  }
};
struct FmodOp {  // sign of the dividend
  static constexpr bool kIntegerDivision = true;
  template <typename T>
  static T apply(T a, T b) {
    if constexpr (std::is_floating_point_v<T>) {
      return std::fmod(a, b);
    } else {
      if constexpr (std::is_signed_v<T>) {
        if (b == T(-1)) return T(0);
      }
      return static_cast<T>(a % b);
    }
  }
};

Result<PreparedKernel> prepare_mod(const KernelContext& context) {
  GE_ASSIGN_OR_RETURN(int64_t fmod, int_attribute(context, "fmod", 0));
  if (fmod != 0 && fmod != 1) {
    return invalid_attribute(context, "fmod", "is " + std::to_string(fmod) + "; expected 0 or 1");
  }
  const DataType dtype = input_dtype(context, 0);
  if (fmod == 0 && contains(FloatingTypes{}, dtype)) {
    return invalid_attribute(context, "fmod", "must be 1 for floating-point inputs (dtype " +
                                                  std::string(data_type_name(dtype)) + ")");
  }
  if (fmod == 1) return prepare_same_type_binary<FmodOp, NumericTypes>(context);
  return prepare_same_type_binary<ModOp, IntegerTypes>(context);
}

}  // namespace

void add_mod_kernels(std::vector<OpKernel>& table) {
  table.push_back({"Mod", data_types(NumericTypes{}), &prepare_mod});
}

}  // namespace ge::reference_kernels::math
