#include "ge/reference_kernels/kernel_util.h"

#include <string>

#include "ge/tensor_desc.h"

namespace ge::reference_kernels {

std::vector<DataType> all_fixed_size_types() {
  return {DataType::kFloat32, DataType::kUInt8,  DataType::kInt8,      DataType::kUInt16,     DataType::kInt16,
          DataType::kInt32,   DataType::kInt64,  DataType::kBool,      DataType::kFloat16,    DataType::kFloat64,
          DataType::kUInt32,  DataType::kUInt64, DataType::kComplex64, DataType::kComplex128, DataType::kBFloat16};
}

std::string data_type_list(std::span<const DataType> types) {
  std::string text;
  for (DataType type : types) {
    if (!text.empty()) text += ", ";
    text += data_type_name(type);
  }
  return text;
}

Status unsupported_dtype(const KernelContext& context, DataType dtype, std::span<const DataType> supported) {
  return unsupported("backend '" + std::string(context.backend) + "' does not support " + context.node.describe() +
                     " with dtype " + std::string(data_type_name(dtype)) + " (supported: " + data_type_list(supported) +
                     ")");
}

Status unsupported_feature(const KernelContext& context, std::string_view what) {
  return unsupported("backend '" + std::string(context.backend) + "' does not support " + context.node.describe() +
                     ": " + std::string(what));
}

Status invalid_attribute(const KernelContext& context, std::string_view attribute, std::string_view problem) {
  return invalid_argument(context.node.describe() + ": attribute '" + std::string(attribute) + "' " +
                          std::string(problem));
}

Status invalid_node(const KernelContext& context, std::string_view problem) {
  return invalid_argument(context.node.describe() + ": " + std::string(problem));
}

bool has_input(const KernelContext& context, size_t index) { return context.node.input(index) != nullptr; }

bool has_output(const KernelContext& context, size_t index) {
  const Value* value = context.node.output(index);
  return value != nullptr && !value->name().empty();
}

namespace {

Result<std::vector<int64_t>> value_dims(const KernelContext& context, const Value* value, std::string_view role,
                                        size_t index) {
  std::string what = std::string(role) + " " + std::to_string(index);
  if (value == nullptr) return invalid_node(context, what + " is missing");
  const TensorDesc& desc = value->desc();
  if (!desc.is_static()) {
    return invalid_node(context, what + " ('" + value->name() + "') has no static shape: " + desc.to_string());
  }
  return desc.static_dims();
}

}  // namespace

Result<std::vector<int64_t>> input_dims(const KernelContext& context, size_t index) {
  return value_dims(context, context.node.input(index), "input", index);
}

Result<std::vector<int64_t>> output_dims(const KernelContext& context, size_t index) {
  return value_dims(context, context.node.output(index), "output", index);
}

DataType input_dtype(const KernelContext& context, size_t index) {
  const Value* value = context.node.input(index);
  return value != nullptr ? value->desc().dtype : DataType::kUndefined;
}

Status check_input_dtype(const KernelContext& context, size_t index, DataType dtype) {
  const Value* value = context.node.input(index);
  if (value == nullptr) return invalid_node(context, "input " + std::to_string(index) + " is missing");
  if (value->desc().dtype != dtype) {
    return unsupported("backend '" + std::string(context.backend) + "' does not support " + context.node.describe() +
                       " with input " + std::to_string(index) + " of dtype " +
                       std::string(data_type_name(value->desc().dtype)) + " next to input 0 of dtype " +
                       std::string(data_type_name(dtype)));
  }
  return Status::ok();
}

Status check_output(const KernelContext& context, size_t index, DataType dtype, const std::vector<int64_t>& dims) {
  GE_ASSIGN_OR_RETURN(std::vector<int64_t> actual, output_dims(context, index));
  const Value* value = context.node.output(index);
  if (value->desc().dtype != dtype) {
    return invalid_node(context, "output " + std::to_string(index) + " ('" + value->name() + "') has dtype " +
                                     std::string(data_type_name(value->desc().dtype)) + " but the op yields " +
                                     std::string(data_type_name(dtype)));
  }
  if (actual != dims) {
    return invalid_node(context, "output " + std::to_string(index) + " ('" + value->name() + "') has shape " +
                                     shape_to_string(actual) + " but the inputs and attributes give " +
                                     shape_to_string(dims));
  }
  return Status::ok();
}

Result<int64_t> int_attribute(const KernelContext& context, const std::string& name, int64_t fallback) {
  const Attribute* attribute = context.node.attribute(name);
  if (attribute == nullptr) return fallback;
  if (!attribute->holds<int64_t>()) {
    return invalid_attribute(context, name,
                             std::string("must be an int, not ") + attribute_type_name(attribute->type()));
  }
  return attribute->get<int64_t>();
}

Result<float> float_attribute(const KernelContext& context, const std::string& name, float fallback) {
  const Attribute* attribute = context.node.attribute(name);
  if (attribute == nullptr) return fallback;
  if (attribute->holds<float>()) return attribute->get<float>();
  // An integral value written where a float is expected is still unambiguous.
  if (attribute->holds<int64_t>()) return static_cast<float>(attribute->get<int64_t>());
  return invalid_attribute(context, name,
                           std::string("must be a float, not ") + attribute_type_name(attribute->type()));
}

Result<std::string> string_attribute(const KernelContext& context, const std::string& name,
                                     const std::string& fallback) {
  const Attribute* attribute = context.node.attribute(name);
  if (attribute == nullptr) return fallback;
  if (!attribute->holds<std::string>()) {
    return invalid_attribute(context, name,
                             std::string("must be a string, not ") + attribute_type_name(attribute->type()));
  }
  return attribute->get<std::string>();
}

Result<std::vector<int64_t>> ints_attribute(const KernelContext& context, const std::string& name,
                                            std::vector<int64_t> fallback) {
  const Attribute* attribute = context.node.attribute(name);
  if (attribute == nullptr) return fallback;
  if (!attribute->holds<std::vector<int64_t>>()) {
    return invalid_attribute(context, name,
                             std::string("must be a list of ints, not ") + attribute_type_name(attribute->type()));
  }
  return attribute->get<std::vector<int64_t>>();
}

Result<int64_t> normalize_axis(const KernelContext& context, const std::string& name, int64_t axis, int64_t rank,
                               bool allow_rank) {
  int64_t upper = allow_rank ? rank : rank - 1;
  if (axis < -rank || axis > upper) {
    return invalid_attribute(context, name,
                             "= " + std::to_string(axis) + " is out of range [" + std::to_string(-rank) + ", " +
                                 std::to_string(upper) + "] for rank " + std::to_string(rank));
  }
  return axis < 0 ? axis + rank : axis;
}

int64_t product(std::span<const int64_t> dims) {
  int64_t result = 1;
  for (int64_t dim : dims) result *= dim;
  return result;
}

int64_t product(const std::vector<int64_t>& dims, size_t begin, size_t end) {
  int64_t result = 1;
  for (size_t i = begin; i < end && i < dims.size(); ++i) result *= dims[i];
  return result;
}

std::string kernel_name(const KernelContext& context, std::string_view variant) {
  // Appends rather than `"." + std::string(...)`, which trips GCC 12's -Wrestrict false
  // positive (bug 105329) at -O3.
  std::string name(context.backend);
  name += '.';
  name += context.node.op_type();
  if (!variant.empty()) {
    name += '.';
    name.append(variant);
  }
  return name;
}

}  // namespace ge::reference_kernels
