// Ops whose output is made from shapes and attributes rather than input data: Shape
// (opset 15 start/end), Size, ConstantOfShape, EyeLike and Range. Everything but Range's
// scalars is known in prepare, so the kernels only fill memory.

#include <algorithm>
#include <array>
#include <cstring>
#include <string>

#include "tensor/registration.h"
#include "tensor/tensor_common.h"

namespace ge::reference_kernels::tensor {
namespace {

// ---- Shape, Size: a prepared int64 list ----

struct Int64ListParams {
  std::vector<int64_t> values;
};

int int64_list_kernel(const KernelArgs& args) {
  const auto& p = *static_cast<const Int64ListParams*>(args.params);
  if (p.values.empty()) return kKernelOk;
  auto* y = static_cast<int64_t*>(args.outputs[0]);
  if (y == nullptr) return kKernelMissingAddress;
  std::copy(p.values.begin(), p.values.end(), y);
  return kKernelOk;
}

Result<PreparedKernel> prepare_shape(const KernelContext& context) {
  GE_ASSIGN_OR_RETURN(std::vector<int64_t> x_dims, input_dims(context, 0));
  const int64_t rank = static_cast<int64_t>(x_dims.size());
  // Opset 15: dims[start:end] with Python slice clamping.
  GE_ASSIGN_OR_RETURN(int64_t start, int_attribute(context, "start", 0));
  GE_ASSIGN_OR_RETURN(int64_t end, int_attribute(context, "end", rank));
  auto clamp = [rank](int64_t v) { return std::clamp(v < 0 ? v + rank : v, int64_t{0}, rank); };
  start = clamp(start);
  end = clamp(end);
  Int64ListParams params;
  for (int64_t i = start; i < end; ++i) params.values.push_back(x_dims[i]);
  GE_RETURN_IF_ERROR(check_output(context, 0, DataType::kInt64, {static_cast<int64_t>(params.values.size())}));
  return make_kernel(context, &int64_list_kernel, std::move(params));
}

Result<PreparedKernel> prepare_size(const KernelContext& context) {
  GE_ASSIGN_OR_RETURN(std::vector<int64_t> x_dims, input_dims(context, 0));
  GE_RETURN_IF_ERROR(check_output(context, 0, DataType::kInt64, {}));
  return make_kernel(context, &int64_list_kernel, Int64ListParams{{product(x_dims)}});
}

// ---- ConstantOfShape, EyeLike: fill with one element's bytes ----

struct FillParams {
  int64_t count = 0;
  size_t element_bytes = 0;
  std::array<unsigned char, 16> value{};  // the fill element
  // EyeLike: `one` on the diagonal j = i + k of a rows x columns matrix.
  bool diagonal = false;
  int64_t rows = 0, columns = 0, k = 0;
  std::array<unsigned char, 16> one{};
};

int fill_kernel(const KernelArgs& args) {
  const auto& p = *static_cast<const FillParams*>(args.params);
  if (p.count == 0) return kKernelOk;
  auto* y = static_cast<unsigned char*>(args.outputs[0]);
  if (y == nullptr) return kKernelMissingAddress;
  // One element, then the filled part doubled (log2(count) copies), or a memset where
  // every byte of the value is the same (zeros, -1).
  const auto element = static_cast<size_t>(p.element_bytes);
  const size_t total = static_cast<size_t>(p.count) * element;
  if (std::all_of(p.value.begin(), p.value.begin() + static_cast<std::ptrdiff_t>(element),
                  [&](unsigned char byte) { return byte == p.value[0]; })) {
    std::memset(y, p.value[0], total);
  } else {
    std::memcpy(y, p.value.data(), element);
    for (size_t filled = element; filled < total; filled *= 2) std::memcpy(y + filled, y, std::min(filled, total - filled));
  }
  if (p.diagonal) {
    for (int64_t i = 0; i < p.rows; ++i) {
      const int64_t j = i + p.k;
      if (j >= 0 && j < p.columns)
        std::memcpy(y + (i * p.columns + j) * p.element_bytes, p.one.data(), p.element_bytes);
    }
  }
  return kKernelOk;
}

Result<PreparedKernel> prepare_constant_of_shape(const KernelContext& context) {
  GE_ASSIGN_OR_RETURN(std::vector<int64_t> shape_dims, input_dims(context, 0));
  GE_ASSIGN_OR_RETURN(std::vector<int64_t> y_dims, output_dims(context, 0));
  if (shape_dims.size() != 1 || shape_dims[0] != static_cast<int64_t>(y_dims.size())) {
    return invalid_node(context, "input 0 " + shape_to_string(shape_dims) + " must be a 1-D shape of output rank " +
                                     std::to_string(y_dims.size()));
  }
  FillParams params;
  DataType dtype = DataType::kFloat32;  // the default value is a float32 0
  const Attribute* attribute = context.node.attribute("value");
  if (attribute != nullptr) {
    if (!attribute->holds<Tensor>()) return invalid_attribute(context, "value", "must be a tensor");
    const Tensor& value = attribute->get<Tensor>();
    if (value.element_count() != 1) {
      return invalid_attribute(context, "value", "must hold one element, not " + std::to_string(value.element_count()));
    }
    dtype = value.dtype();
    if (dtype == DataType::kString || element_size(dtype) == 0 || element_size(dtype) > params.value.size()) {
      return unsupported_feature(context, "a 'value' of dtype " + std::string(data_type_name(dtype)));
    }
    std::memcpy(params.value.data(), value.raw_data(), element_size(dtype));
  }
  GE_RETURN_IF_ERROR(check_output(context, 0, dtype, y_dims));
  params.count = product(y_dims);
  params.element_bytes = element_size(dtype);
  return make_kernel(context, &fill_kernel, params);
}

Result<PreparedKernel> prepare_eye_like(const KernelContext& context) {
  GE_ASSIGN_OR_RETURN(std::vector<int64_t> x_dims, input_dims(context, 0));
  if (x_dims.size() != 2) return invalid_node(context, "input " + shape_to_string(x_dims) + " must be 2-D");
  DataType dtype = input_dtype(context, 0);
  if (context.node.has_attribute("dtype")) {
    GE_ASSIGN_OR_RETURN(int64_t code, int_attribute(context, "dtype", 0));
    if (!is_valid_data_type(static_cast<int32_t>(code))) {
      return invalid_attribute(context, "dtype", "= " + std::to_string(code) + " is not a dtype");
    }
    dtype = static_cast<DataType>(code);
  }
  FillParams params;
  if (!encode_scalar(dtype, 0.0, params.value.data()) || !encode_scalar(dtype, 1.0, params.one.data())) {
    return unsupported_feature(context, "an output of dtype " + std::string(data_type_name(dtype)));
  }
  GE_RETURN_IF_ERROR(check_output(context, 0, dtype, x_dims));
  GE_ASSIGN_OR_RETURN(params.k, int_attribute(context, "k", 0));
  params.count = product(x_dims);
  params.element_bytes = element_size(dtype);
  params.diagonal = true;
  params.rows = x_dims[0];
  params.columns = x_dims[1];
  return make_kernel(context, &fill_kernel, params);
}

// ---- Range ----

struct RangeParams {
  int64_t count = 0;
};

// max(0, ceil((limit - start) / delta)), exact: in 128 bits the span of two int64 values
// cannot overflow (Range(-2^63, 2^63-1, 2^62) has 4 elements).
__int128 range_count(int64_t start, int64_t limit, int64_t delta) {
  const __int128 span = static_cast<__int128>(limit) - start;
  if (span == 0 || (span > 0) != (delta > 0)) return 0;
  const __int128 step = delta;
  return (span + step + (delta > 0 ? -1 : 1)) / step;
}

template <typename T>
int range_kernel(const KernelArgs& args) {
  const auto& p = *static_cast<const RangeParams*>(args.params);
  const auto* start = static_cast<const T*>(args.inputs[0]);
  const auto* limit = static_cast<const T*>(args.inputs[1]);
  const auto* delta = static_cast<const T*>(args.inputs[2]);
  auto* y = static_cast<T*>(args.outputs[0]);
  if (start == nullptr || limit == nullptr || delta == nullptr) return kKernelMissingAddress;
  if constexpr (std::is_integral_v<T>) {
    // Integer counts are exact: check them against the output desc.
    if (*delta == 0) return kKernelInvalidRuntimeArgument;
    if (range_count(*start, *limit, *delta) != static_cast<__int128>(p.count)) return kKernelRuntimeShapeMismatch;
  }
  if (p.count > 0 && y == nullptr) return kKernelMissingAddress;
  for (int64_t i = 0; i < p.count; ++i) {
    if constexpr (std::is_integral_v<T>) {
      y[i] = wrapping_add(*start, wrapping_mul(static_cast<T>(i), *delta));
    } else {
      y[i] = *start + static_cast<T>(i) * *delta;
    }
  }
  return kKernelOk;
}

using RangeTypes = TypeList<float, double, int16_t, int32_t, int64_t>;

Result<PreparedKernel> prepare_range(const KernelContext& context) {
  const DataType dtype = input_dtype(context, 0);
  for (size_t i = 0; i < 3; ++i) {
    GE_RETURN_IF_ERROR(check_input_dtype(context, i, dtype));
    GE_ASSIGN_OR_RETURN(int64_t count, input_element_count(context, i));
    if (count != 1) return invalid_node(context, "input " + std::to_string(i) + " must be a scalar");
  }
  GE_ASSIGN_OR_RETURN(std::vector<int64_t> y_dims, output_dims(context, 0));
  if (y_dims.size() != 1) return invalid_node(context, "output must be 1-D, not " + shape_to_string(y_dims));
  GE_RETURN_IF_ERROR(check_output(context, 0, dtype, y_dims));
  KernelFunction function =
      select_kernel(dtype, RangeTypes{}, []<typename T>() -> KernelFunction { return &range_kernel<T>; });
  return make_kernel(context, function, RangeParams{y_dims[0]});
}

}  // namespace

void add_shape_kernels(std::vector<OpKernel>& table) {
  table.push_back({"Shape", {}, &prepare_shape});
  table.push_back({"Size", {}, &prepare_size});
  table.push_back({"ConstantOfShape", {DataType::kInt64}, &prepare_constant_of_shape});
  table.push_back({"EyeLike", all_fixed_size_types(), &prepare_eye_like});
  table.push_back({"Range", data_types(RangeTypes{}), &prepare_range});
}

}  // namespace ge::reference_kernels::tensor
