// Clip: y = min(max(x, min), max) for every numeric type. Opset 11+ reads min and max
// from the optional scalar inputs 1 and 2 at launch (absent: unbounded); opsets 1-6 from
// the float attributes `min`/`max` (defaults: float's lowest/max). When min > max every
// element becomes max (the spec's rule); NaN stays NaN.

#include <limits>
#include <string>

#include "ge/tensor_desc.h"
#include "math/math_types.h"
#include "math/registration.h"

namespace ge::reference_kernels::math {
namespace {

struct ClipParams {
  int64_t elements = 0;
  bool attribute_bounds = false;  ///< opset < 11: the bounds below, else inputs 1 and 2
  bool min_input = false;         ///< input 1 is present
  bool max_input = false;         ///< input 2 is present
  double min = 0.0;
  double max = 0.0;
};

template <typename T>
int clip_kernel(const KernelArgs& args) {
  using C = Compute<T>;
  const auto& p = *static_cast<const ClipParams*>(args.params);
  const auto* x = static_cast<const T*>(args.inputs[0]);
  auto* y = static_cast<T*>(args.outputs[0]);
  if (x == nullptr || y == nullptr) return kKernelMissingAddress;
  C low;
  C high;
  if (p.attribute_bounds) {
    low = convert<C>(p.min);
    high = convert<C>(p.max);
  } else {
    // Unbounded sides: infinities for floating types so that +-inf pass unchanged.
    if constexpr (std::numeric_limits<C>::has_infinity) {
      low = -std::numeric_limits<C>::infinity();
      high = std::numeric_limits<C>::infinity();
    } else {
      low = std::numeric_limits<C>::lowest();
      high = std::numeric_limits<C>::max();
    }
    if (p.min_input) {
      if (args.inputs[1] == nullptr) return kKernelMissingAddress;
      low = load(*static_cast<const T*>(args.inputs[1]));
    }
    if (p.max_input) {
      if (args.inputs[2] == nullptr) return kKernelMissingAddress;
      high = load(*static_cast<const T*>(args.inputs[2]));
    }
  }
  for (int64_t i = 0; i < p.elements; ++i) {
    C v = load(x[i]);
    v = v < low ? low : v;
    v = v > high ? high : v;
    y[i] = convert<T>(v);
  }
  return kKernelOk;
}

Result<PreparedKernel> prepare_clip(const KernelContext& context) {
  const DataType dtype = input_dtype(context, 0);
  GE_ASSIGN_OR_RETURN(std::vector<int64_t> dims, input_dims(context, 0));
  GE_RETURN_IF_ERROR(check_output(context, 0, dtype, dims));
  ClipParams params;
  params.elements = product(dims);
  if (context.opset < 11) {
    params.attribute_bounds = true;
    GE_ASSIGN_OR_RETURN(float low, float_attribute(context, "min", std::numeric_limits<float>::lowest()));
    GE_ASSIGN_OR_RETURN(float high, float_attribute(context, "max", std::numeric_limits<float>::max()));
    params.min = low;
    params.max = high;
  } else {
    params.min_input = has_input(context, 1);
    params.max_input = has_input(context, 2);
    for (size_t index : {size_t{1}, size_t{2}}) {
      if (!has_input(context, index)) continue;
      GE_RETURN_IF_ERROR(check_input_dtype(context, index, dtype));
      GE_ASSIGN_OR_RETURN(std::vector<int64_t> bound_dims, input_dims(context, index));
      if (product(bound_dims) != 1) {
        return invalid_node(context, std::string(index == 1 ? "min" : "max") + " must be a scalar, got shape " +
                                         shape_to_string(bound_dims));
      }
    }
  }
  KernelFunction function =
      select_kernel(dtype, NumericTypes{}, []<typename T>() -> KernelFunction { return &clip_kernel<T>; });
  if (function == nullptr) return unsupported_dtype(context, dtype, data_types(NumericTypes{}));
  return make_kernel(context, function, params);
}

}  // namespace

void add_clip_kernels(std::vector<OpKernel>& table) {
  table.push_back({"Clip", data_types(NumericTypes{}), &prepare_clip});
}

}  // namespace ge::reference_kernels::math
