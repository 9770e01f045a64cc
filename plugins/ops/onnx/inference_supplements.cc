#include "inference_supplements.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <optional>
#include <string>

#include "status_error.h"

#include "ge/graph_queries.h"

namespace ge::onnx_ops {
namespace {

void supplement_reshape_rank(const Node& node, std::vector<onnx::TypeProto>& outputs) {
  if (outputs.empty() || node.input_count() < 2 || node.input(1) == nullptr) return;
  onnx::TypeProto& output = outputs[0];
  if (output.value_case() != onnx::TypeProto::kTensorType &&
      output.value_case() != onnx::TypeProto::VALUE_NOT_SET) {
    return;
  }
  if (output.has_tensor_type() && output.tensor_type().has_shape()) return;
  const TensorDesc& shape_desc = node.input(1)->desc();
  if (shape_desc.rank() != 1 || !(*shape_desc.shape)[0].is_static()) return;
  onnx::TensorShapeProto* shape = output.mutable_tensor_type()->mutable_shape();
  for (int64_t i = 0; i < (*shape_desc.shape)[0].value; ++i) shape->add_dim();
}

const Tensor* input_data(const Node& node, const InputDataProvider& data, size_t index) {
  if (!data || index >= node.input_count() || node.input(index) == nullptr) return nullptr;
  return data(node, index);
}

bool element_is_non_zero(const Tensor& t, int64_t i) {
  if (t.dtype() == DataType::kString) return !t.data<std::string>()[i].empty();
  return t.scalar_as_double(i) != 0.0;  // -0 is zero; NaN is not
}

/// Sets output 0 to `dims` when libonnx left it a tensor of unknown or partly unknown shape.
void set_output_dims(std::vector<onnx::TypeProto>& outputs, const std::vector<int64_t>& dims) {
  if (outputs.empty()) return;
  onnx::TypeProto& output = outputs[0];
  if (output.value_case() != onnx::TypeProto::kTensorType && output.value_case() != onnx::TypeProto::VALUE_NOT_SET) return;
  onnx::TensorShapeProto* shape = output.mutable_tensor_type()->mutable_shape();
  shape->clear_dim();
  for (int64_t d : dims) shape->add_dim()->set_dim_value(d);
}

void supplement_non_zero(const Node& node, const InputDataProvider& data, std::vector<onnx::TypeProto>& outputs) {
  const Tensor* x = input_data(node, data, 0);
  if (x == nullptr || x->dtype() == DataType::kComplex64 || x->dtype() == DataType::kComplex128) return;
  int64_t count = 0;
  for (int64_t i = 0; i < x->element_count(); ++i) count += element_is_non_zero(*x, i) ? 1 : 0;
  set_output_dims(outputs, {std::max<int64_t>(x->rank(), 1), count});
}

void supplement_compress(const Node& node, const InputDataProvider& data, std::vector<onnx::TypeProto>& outputs) {
  const Tensor* condition = input_data(node, data, 1);
  const TensorDesc& x = node.input(0) != nullptr ? node.input(0)->desc() : TensorDesc();
  if (condition == nullptr || condition->rank() != 1 || !x.is_static()) return;
  const std::vector<int64_t> x_dims = x.static_dims();
  const Attribute* axis_attr = node.attribute("axis");
  const bool flat = axis_attr == nullptr || !axis_attr->holds<int64_t>();
  int64_t axis = flat ? 0 : axis_attr->get<int64_t>();
  const int64_t rank = static_cast<int64_t>(x_dims.size());
  if (!flat && (axis < -rank || axis >= rank)) return;  // the kernel names the bad axis
  if (axis < 0) axis += rank;
  const int64_t extent = flat ? x.element_count() : x_dims[static_cast<size_t>(axis)];
  int64_t selected = 0;
  for (int64_t i = 0; i < std::min(extent, condition->element_count()); ++i) {
    selected += element_is_non_zero(*condition, i) ? 1 : 0;
  }
  if (flat) return set_output_dims(outputs, {selected});
  std::vector<int64_t> dims = x_dims;
  dims[static_cast<size_t>(axis)] = selected;
  set_output_dims(outputs, dims);
}

// With ceil_mode, ONNX >= 1.13 (and ONNX Runtime) drop a last window that would start in
// the end padding; libonnx 1.12 counts it. Applied to the pooled outputs' spatial dims.
void supplement_ceil_mode_pool(const Node& node, std::vector<onnx::TypeProto>& outputs) {
  if (node.get_int("ceil_mode", 0) == 0) return;
  const std::string auto_pad = node.get_string("auto_pad", "NOTSET");
  if (auto_pad != "NOTSET" || node.input(0) == nullptr || !node.input(0)->desc().is_static()) return;
  const std::vector<int64_t> x_dims = node.input(0)->desc().static_dims();
  if (x_dims.size() < 3) return;
  const size_t spatial = x_dims.size() - 2;
  const std::vector<int64_t> pads = node.get_ints("pads", std::vector<int64_t>(2 * spatial, 0));
  const std::vector<int64_t> strides = node.get_ints("strides", std::vector<int64_t>(spatial, 1));
  if (pads.size() != 2 * spatial || strides.size() != spatial) return;  // libonnx has refused these
  for (onnx::TypeProto& output : outputs) {
    if (!output.has_tensor_type() || !output.tensor_type().has_shape()) continue;
    onnx::TensorShapeProto* shape = output.mutable_tensor_type()->mutable_shape();
    if (static_cast<size_t>(shape->dim_size()) != x_dims.size()) continue;
    for (size_t i = 0; i < spatial; ++i) {
      auto* dim = shape->mutable_dim(static_cast<int>(i + 2));
      if (!dim->has_dim_value() || dim->dim_value() < 2) continue;
      if ((dim->dim_value() - 1) * strides[i] >= x_dims[i + 2] + pads[i]) dim->set_dim_value(dim->dim_value() - 1);
    }
  }
}

bool is_integer(DataType type) {
  switch (type) {
    case DataType::kInt8: case DataType::kInt16: case DataType::kInt32: case DataType::kInt64:
    case DataType::kUInt8: case DataType::kUInt16: case DataType::kUInt32: case DataType::kUInt64: return true;
    default: return false;
  }
}

// The exact element count of an integer Range, max(0, ceil((limit - start) / delta)):
// libonnx 1.12 subtracts in int64, so Range(-2^63, 2^63-1, 2^62) overflows to 0 elements
// (4 is right). nullopt unless all three are known integer scalars.
std::optional<__int128> integer_range_count(const Node& node, const InputDataProvider& data) {
  const Tensor* inputs[] = {input_data(node, data, 0), input_data(node, data, 1), input_data(node, data, 2)};
  int64_t values[3];
  for (size_t i = 0; i < 3; ++i) {
    const Tensor* t = inputs[i];
    if (t == nullptr || t->element_count() != 1) return std::nullopt;
    switch (t->dtype()) {
      case DataType::kInt64:
        values[i] = t->data<int64_t>()[0];
        break;
      case DataType::kInt32:
        values[i] = t->data<int32_t>()[0];
        break;
      case DataType::kInt16:
        values[i] = t->data<int16_t>()[0];
        break;
      default:
        return std::nullopt;
    }
  }
  const int64_t start = values[0], limit = values[1], delta = values[2];
  const __int128 span = static_cast<__int128>(limit) - start;
  if (delta == 0 || span == 0 || (span > 0) != (delta > 0)) return 0;
  return (span + delta + (delta > 0 ? -1 : 1)) / delta;
}

void check_range_data(const Node& node, const InputDataProvider& data) {
  const Tensor* start = input_data(node, data, 0);
  const Tensor* limit = input_data(node, data, 1);
  const Tensor* delta = input_data(node, data, 2);
  if (start == nullptr || limit == nullptr || delta == nullptr) return;
  if (start->element_count() != 1 || limit->element_count() != 1 || delta->element_count() != 1) return;
  static const char* const kNames[] = {"start", "limit", "delta"};
  const Tensor* inputs[] = {start, limit, delta};
  for (size_t i = 0; i < 3; ++i) {
    const double value = inputs[i]->scalar_as_double();
    if (!is_integer(inputs[i]->dtype()) && !std::isfinite(value)) {
      throw StatusError(invalid_argument("input " + std::to_string(i) + " (" + kNames[i] + ") is " +
                                         std::to_string(value) + "; Range needs finite start, limit and delta"));
    }
  }
  if (delta->scalar_as_double() == 0.0) {
    throw StatusError(invalid_argument("input 2 (delta) is 0; Range needs a non-zero step"));
  }
  if (std::optional<__int128> count = integer_range_count(node, data); count && *count > (__int128{1} << 62)) {
    auto exact = [](const Tensor& t) {
      return std::to_string(t.dtype() == DataType::kInt64 ? t.data<int64_t>()[0]
                                                          : static_cast<int64_t>(t.scalar_as_double()));
    };
    throw StatusError(invalid_argument("Range from " + exact(*start) + " to " + exact(*limit) + " by " + exact(*delta) +
                                       " has " + std::to_string(static_cast<double>(*count)) +
                                       " elements, more than 2^62"));
  }
  if (!is_integer(delta->dtype())) {
    const double count = std::ceil((limit->scalar_as_double() - start->scalar_as_double()) / delta->scalar_as_double());
    if (count >= 0x1p62) {
      throw StatusError(invalid_argument("Range from " + std::to_string(start->scalar_as_double()) + " to " +
                                         std::to_string(limit->scalar_as_double()) + " by " +
                                         std::to_string(delta->scalar_as_double()) + " has " + std::to_string(count) +
                                         " elements, more than 2^62"));
    }
  }
}

// ONNX requires every scale of Resize (and Upsample) to be greater than 0; libonnx
// multiplies the input's dims by them unchecked, so 0 gave an empty output and inf or NaN
// a dim of -2^63.
void check_resize_scales(const Node& node, const InputDataProvider& data) {
  // Upsample and Resize-10 take (X, scales); Resize-11 and later (X, roi, scales, sizes).
  const bool with_roi = node.op_type() == "Resize" && node.graph() != nullptr && node.graph()->opset_version("") >= 11;
  const size_t index = with_roi ? 2 : 1;
  const Tensor* scales = input_data(node, data, index);
  if (scales == nullptr || is_integer(scales->dtype())) return;  // unknown; or of a type libonnx names
  for (int64_t i = 0; i < scales->element_count(); ++i) {
    const double scale = scales->scalar_as_double(i);
    if (std::isfinite(scale) && scale > 0) continue;
    char shown[32];
    std::snprintf(shown, sizeof(shown), "%g", scale);
    throw StatusError(invalid_argument("input " + std::to_string(index) + " (scales) has " + shown + " at index " +
                                       std::to_string(i) + "; every scale must be finite and greater than 0"));
  }
}

// libonnx multiplies each dim by its repeat count unchecked: 2 x 2^62 wrapped to a
// negative dim.
void check_tile_data(const Node& node, const InputDataProvider& data) {
  const Tensor* repeats = input_data(node, data, 1);
  if (repeats == nullptr || node.input(0) == nullptr || !node.input(0)->desc().is_static()) return;
  if (repeats->dtype() != DataType::kInt64 || repeats->rank() != 1) return;  // libonnx names these
  const std::vector<int64_t> dims = node.input(0)->desc().static_dims();
  if (static_cast<size_t>(repeats->element_count()) != dims.size()) return;
  for (size_t i = 0; i < dims.size(); ++i) {
    const int64_t r = repeats->data<int64_t>()[i];
    if (r < 0) {
      throw StatusError(invalid_argument("input 1 (repeats) is " + std::to_string(r) + " at index " +
                                         std::to_string(i) + "; Tile repeats must not be negative"));
    }
    int64_t product = 0;
    if (__builtin_mul_overflow(dims[i], r, &product)) {
      throw StatusError(invalid_argument("input 1 (repeats) is " + std::to_string(r) + " at index " + std::to_string(i) +
                                         ": dim " + std::to_string(i) + " (" + std::to_string(dims[i]) +
                                         ") times it exceeds 2^63 - 1"));
    }
  }
}

}  // namespace

void check_inference_data(const Node& node, const InputDataProvider& data) {
  if (!is_onnx_domain(node)) return;
  if (node.op_type() == "Range") check_range_data(node, data);
  if (node.op_type() == "Resize" || node.op_type() == "Upsample") check_resize_scales(node, data);
  if (node.op_type() == "Tile") check_tile_data(node, data);
}

void supplement_inference(const Node& node, const InputDataProvider& data, std::vector<onnx::TypeProto>& outputs) {
  if (!is_onnx_domain(node)) return;
  if (node.op_type() == "Reshape") supplement_reshape_rank(node, outputs);
  if (node.op_type() == "NonZero") supplement_non_zero(node, data, outputs);
  if (node.op_type() == "Compress") supplement_compress(node, data, outputs);
  if (node.op_type() == "Range") {
    if (std::optional<__int128> count = integer_range_count(node, data)) {
      set_output_dims(outputs, {static_cast<int64_t>(*count)});
    }
  }
  const std::string& op = node.op_type();
  if (op == "MaxPool" || op == "AveragePool" || op == "LpPool") supplement_ceil_mode_pool(node, outputs);
}

}  // namespace ge::onnx_ops
