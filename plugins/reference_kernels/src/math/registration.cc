// The math family: elementwise arithmetic and activations, comparison, logic, Cast, Clip, Where.
#include "math/registration.h"

#include "common/kernel_families.h"

namespace ge::reference_kernels {

void add_math_family_kernels(std::vector<OpKernel>& table) {
  add_binary_elementwise_kernels(table);
  add_unary_activation_kernels(table);
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

}  // namespace ge::reference_kernels
