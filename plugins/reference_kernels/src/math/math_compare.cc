// Less, Greater, LessOrEqual, GreaterOrEqual (every numeric type) and Equal (also bool
// and string): bool results with numpy broadcasting (legacy attributes below opset 7).
// Comparisons with NaN are false, as in IEEE and numpy.

#include <string>

#include "math/math_binary.h"
#include "math/registration.h"

namespace ge::reference_kernels::math {
namespace {

struct LessOp {
  template <typename T>
  static bool apply(const T& a, const T& b) {
    return a < b;
  }
};
struct GreaterOp {
  template <typename T>
  static bool apply(const T& a, const T& b) {
    return a > b;
  }
};
struct LessOrEqualOp {
  template <typename T>
  static bool apply(const T& a, const T& b) {
    return a <= b;
  }
};
struct GreaterOrEqualOp {
  template <typename T>
  static bool apply(const T& a, const T& b) {
    return a >= b;
  }
};
struct EqualOp {
  template <typename T>
  static bool apply(const T& a, const T& b) {
    return a == b;
  }
};

using EqualTypes = Concat<NumericTypes, BoolTypes, TypeList<std::string>>;

}  // namespace

void add_compare_kernels(std::vector<OpKernel>& table) {
  const std::vector<DataType> numeric = data_types(NumericTypes{});
  table.push_back({"Less", numeric, &prepare_predicate_binary<LessOp, NumericTypes>});
  table.push_back({"Greater", numeric, &prepare_predicate_binary<GreaterOp, NumericTypes>});
  table.push_back({"LessOrEqual", numeric, &prepare_predicate_binary<LessOrEqualOp, NumericTypes>});
  table.push_back({"GreaterOrEqual", numeric, &prepare_predicate_binary<GreaterOrEqualOp, NumericTypes>});
  table.push_back({"Equal", data_types(EqualTypes{}), &prepare_predicate_binary<EqualOp, EqualTypes>});
}

}  // namespace ge::reference_kernels::math
