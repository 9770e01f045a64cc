#include "nn_quantization.h"

#include <string>
#include <vector>

namespace ge::cpu_kernels {

Result<bool> check_quantization_parameter(const KernelContext& context, int index, const char* name, DataType dtype,
                                          int64_t extent) {
  if (index < 0 || !has_input(context, static_cast<size_t>(index))) return false;
  GE_RETURN_IF_ERROR(check_input_dtype(context, static_cast<size_t>(index), dtype));
  GE_ASSIGN_OR_RETURN(std::vector<int64_t> dims, input_dims(context, static_cast<size_t>(index)));
  const int64_t count = product(dims);
  if (dims.size() <= 1 && count == 1) return false;
  if (extent > 0 && dims.size() == 1 && count == extent) return true;
  return invalid_node(context, std::string("input '") + name + "' has shape " + shape_to_string(dims) +
                                   (extent > 0 ? ", expected a scalar or [" + std::to_string(extent) + "]"
                                               : ", expected a scalar"));
}

}  // namespace ge::cpu_kernels
