// The math kernel family: registers its ops (see op_kernels.h and math_ops.h).
#include "math_ops.h"

namespace ge::cpu_kernels {

void add_math_family_kernels(std::vector<OpKernel>& table) {
  math::add_unary_math_kernels(table);
  math::add_compare_kernels(table);
  math::add_logical_kernels(table);
  math::add_pow_kernels(table);
  math::add_mod_kernels(table);
  math::add_prelu_kernels(table);
  math::add_variadic_kernels(table);
  math::add_clip_kernels(table);
  math::add_where_kernels(table);
  math::add_cast_kernels(table);
}

}  // namespace ge::cpu_kernels
