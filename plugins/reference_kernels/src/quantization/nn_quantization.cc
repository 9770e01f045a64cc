#include "quantization/nn_quantization.h"

#include <cmath>
#include <sstream>
#include <string>
#include <vector>

#include "nn/nn_element.h"

namespace ge::reference_kernels {

Result<bool> check_quantization_parameter(const KernelContext& context, int index, const char* name, DataType dtype,
                                          int64_t extent) {
  if (index < 0 || !has_input(context, static_cast<size_t>(index))) return false;
  GE_RETURN_IF_ERROR(check_input_dtype(context, static_cast<size_t>(index), dtype));
  GE_ASSIGN_OR_RETURN(std::vector<int64_t> dims, input_dims(context, static_cast<size_t>(index)));
  const int64_t count = product(dims);
  if (dims.size() <= 1 && count == 1) return false;
  if (extent > 0 && dims.size() == 1 && count == extent) return true;
  return invalid_node(
      context, std::string("input '") + name + "' has shape " + shape_to_string(dims) +
                   (extent > 0 ? ", expected a scalar or [" + std::to_string(extent) + "]" : ", expected a scalar"));
}

Status check_scale_values(const KernelContext& context, int index, const char* name) {
  if (index < 0 || !has_input(context, static_cast<size_t>(index))) return Status::ok();
  const Value* value = context.node.input(static_cast<size_t>(index));
  const Tensor* scale = value != nullptr ? value->constant() : nullptr;
  if (scale == nullptr) return Status::ok();
  const DataType dtype = scale->dtype();
  if (dtype != DataType::kFloat32 && dtype != DataType::kFloat16 && dtype != DataType::kBFloat16) return Status::ok();
  for (int64_t i = 0; i < scale->element_count(); ++i) {
    const double v = nn::load_as_double(scale->raw_data(), dtype, i);
    if (std::isfinite(v) && v > 0) continue;
    std::ostringstream problem;
    problem << "input '" << name << "' has "
            << (scale->element_count() == 1 ? std::string("value ") : "element " + std::to_string(i) + " = ") << v
            << ": a scale must be finite and > 0";
    return invalid_node(context, problem.str());
  }
  return Status::ok();
}

}  // namespace ge::reference_kernels
