// StringConcat (opset 20): z = x + y per element, with numpy broadcasting (the math
// family's broadcasting engine over std::string).

#include <string>

#include "math/math_binary.h"
#include "text/registration.h"

namespace ge::reference_kernels::special {
namespace {

struct ConcatOp {
  static std::string apply(const std::string& a, const std::string& b) { return a + b; }
};

}  // namespace

void add_string_concat_kernels(std::vector<OpKernel>& table) {
  table.push_back(
      {"StringConcat", {DataType::kString}, &math::prepare_same_type_binary<ConcatOp, TypeList<std::string>>});
}

}  // namespace ge::reference_kernels::special
