// Pad in modes constant, reflect, edge and wrap (opset 19). Opset 1 takes `paddings`,
// opsets 2-10 `pads` and `value` as attributes; from opset 11 pads and the constant
// value are inputs (opset 18 adds an `axes` input), read at launch and checked against
// the prepared output shape. Positive pads add as numpy.pad does (the ONNX reference);
// negative pads crop first, and the padding modes then read the cropped tensor (numpy.pad
// rejects negative pads; ONNX Runtime crops first, so a "wrap" pad after a crop repeats
// the cropped data). Each output row (the last axis) maps back to one input row, or is
// all the constant: its middle is one copy, and only its padding is mapped element by
// element (swin_t's window padding spent 13 ms per run in the per-element loop).

#include <algorithm>
#include <array>
#include <cstring>
#include <string>

#include "tensor/registration.h"
#include "tensor/tensor_common.h"

namespace ge::reference_kernels::tensor {
namespace {

enum class PadMode { kConstant, kReflect, kEdge, kWrap };

struct PadParams {
  int rank = 0;
  Index x_dims{}, y_dims{}, x_strides{};
  int64_t count = 0;
  PadMode mode = PadMode::kConstant;
  // Attribute form (opsets < 11), all axes.
  bool from_inputs = false;
  std::vector<int64_t> pads;
  // Input form: input 1 pads (int64), input 2 constant value, input 3 axes.
  int64_t pad_entries = 0;
  bool has_value_input = false;
  bool has_axes = false;
  bool axes64 = true;
  int64_t axis_entries = 0;
  // The constant when no value input: fixed-size bytes, or a string.
  std::array<unsigned char, 16> value{};
  std::string string_value;
};

// The input coordinate output coordinate `c` (already shifted by the begin pad) reads
// on an axis of `n`; -1 for the constant.
int64_t source_coordinate(int64_t c, int64_t n, PadMode mode) {
  if (c >= 0 && c < n) return c;
  switch (mode) {
    case PadMode::kConstant:
      return -1;
    case PadMode::kEdge:
      return std::clamp<int64_t>(c, 0, n - 1);
    case PadMode::kReflect: {
      if (n == 1) return 0;
      const int64_t period = 2 * (n - 1);
      c %= period;
      if (c < 0) c += period;
      return c < n ? c : period - c;
    }
    case PadMode::kWrap:
      c %= n;
      return c < 0 ? c + n : c;
  }
  return -1;
}

// Where one axis of the output reads: output coordinate i reads cropped coordinate
// i - pad_begin of the `kept` input elements that start at `crop_begin`.
struct AxisWindows {
  Index pad_begin{}, crop_begin{}, kept{};
};

// The windows of this launch; a TensorKernelError code when the pads are invalid or
// disagree with the output shape.
int pad_windows(const PadParams& p, const KernelArgs& args, AxisWindows& windows) {
  Index begin{}, end{};
  if (!p.from_inputs) {
    for (int d = 0; d < p.rank; ++d) {
      begin[d] = p.pads[d];
      end[d] = p.pads[d + p.rank];
    }
  } else {
    // args.inputs holds one address per node input: input 3 exists only with axes.
    const IntList pads{args.inputs[1], true, p.pad_entries};
    const IntList axes{p.has_axes ? args.inputs[3] : nullptr, p.axes64, p.axis_entries};
    if (p.pad_entries > 0 && pads.data == nullptr) return kKernelMissingAddress;
    if (p.has_axes && p.axis_entries > 0 && axes.data == nullptr) return kKernelMissingAddress;
    const int64_t n = p.has_axes ? p.axis_entries : p.rank;
    std::array<bool, kMaxRank> seen{};
    for (int64_t k = 0; k < n; ++k) {
      int64_t axis = p.has_axes ? axes[k] : k;
      if (axis < 0) axis += p.rank;
      if (axis < 0 || axis >= p.rank || seen[axis]) return kKernelInvalidRuntimeArgument;
      seen[axis] = true;
      begin[axis] = pads[k];
      end[axis] = pads[k + n];
    }
  }
  for (int d = 0; d < p.rank; ++d) {
    if (p.x_dims[d] + begin[d] + end[d] != p.y_dims[d]) return kKernelRuntimeShapeMismatch;
    windows.pad_begin[d] = std::max<int64_t>(begin[d], 0);
    windows.crop_begin[d] = std::max<int64_t>(-begin[d], 0);
    windows.kept[d] = p.x_dims[d] - windows.crop_begin[d] - std::max<int64_t>(-end[d], 0);
    if (windows.kept[d] < 0) {
      return kernel_error(kKernelInvalidRuntimeArgument, "the pads " + std::to_string(begin[d]) + ", " +
                                                             std::to_string(end[d]) + " of axis " + std::to_string(d) +
                                                             " crop more than its " + std::to_string(p.x_dims[d]) +
                                                             " elements");
    }
    // Only the constant fills an axis with nothing to copy from.
    if (windows.kept[d] == 0 && p.y_dims[d] > 0 && p.mode != PadMode::kConstant) {
      return kernel_error(kKernelInvalidRuntimeArgument,
                          "axis " + std::to_string(d) + " has no elements left to pad from in this mode");
    }
  }
  return kKernelOk;
}

template <typename T>
int pad_kernel(const KernelArgs& args) {
  const auto& p = *static_cast<const PadParams*>(args.params);
  AxisWindows windows;
  if (const int code = pad_windows(p, args, windows); code != kKernelOk) return code;
  if (p.count == 0) return kKernelOk;
  const auto* x = static_cast<const T*>(args.inputs[0]);
  auto* y = static_cast<T*>(args.outputs[0]);
  if (y == nullptr) return kKernelMissingAddress;
  T constant{};
  if (p.has_value_input && args.inputs[2] != nullptr) {
    constant = *static_cast<const T*>(args.inputs[2]);
  } else if constexpr (std::is_same_v<T, std::string>) {
    constant = p.string_value;
  } else {
    std::memcpy(&constant, p.value.data(), sizeof(T));
  }
  if (p.rank == 0) {  // a scalar pads to itself
    if (x == nullptr) return kKernelMissingAddress;
    y[0] = x[0];
    return kKernelOk;
  }
  // Row by row along the last axis: an output row reads one input row (or is all the
  // constant), copied in one run between the row's begin and end padding.
  const int inner = p.rank - 1;
  const int64_t row_length = p.y_dims[inner], kept = windows.kept[inner], begin = windows.pad_begin[inner];
  const int64_t copied_end = std::clamp<int64_t>(begin + kept, 0, row_length);
  const int64_t copied_begin = std::min(begin, copied_end);
  Index index{};  // the row's coordinates on the outer axes
  for (T* out = y; out < y + p.count; out += row_length) {
    int64_t offset = 0;
    bool inside = true;
    for (int d = 0; d < inner && inside; ++d) {
      const int64_t c = source_coordinate(index[d] - windows.pad_begin[d], windows.kept[d], p.mode);
      inside = c >= 0;
      offset += (windows.crop_begin[d] + c) * p.x_strides[d];
    }
    if (!inside) {
      std::fill(out, out + row_length, constant);
    } else {
      if (x == nullptr) return kKernelMissingAddress;
      const T* row = x + offset + windows.crop_begin[inner];
      auto padded = [&](int64_t i) {
        const int64_t c = source_coordinate(i - begin, kept, p.mode);
        return c >= 0 ? row[c] : constant;
      };
      for (int64_t i = 0; i < copied_begin; ++i) out[i] = padded(i);
      std::copy(row + (copied_begin - begin), row + (copied_end - begin), out + copied_begin);
      for (int64_t i = copied_end; i < row_length; ++i) out[i] = padded(i);
    }
    for (int d = inner - 1; d >= 0; --d) {
      if (++index[d] < p.y_dims[d]) break;
      index[d] = 0;
    }
  }
  return kKernelOk;
}

Result<PadMode> pad_mode(const KernelContext& context) {
  GE_ASSIGN_OR_RETURN(std::string mode, string_attribute(context, "mode", "constant"));
  if (mode == "constant") return PadMode::kConstant;
  if (mode == "reflect") return PadMode::kReflect;
  if (mode == "edge") return PadMode::kEdge;
  if (mode == "wrap") {
    if (context.opset < 19) {
      return invalid_attribute(context, "mode", "= 'wrap' needs opset 19 (the model imports opset " +
                                                    std::to_string(context.opset) + ")");
    }
    return PadMode::kWrap;
  }
  return invalid_attribute(context, "mode", "= '" + mode + "' is not one of constant, reflect, edge, wrap");
}

Result<PreparedKernel> prepare_pad(const KernelContext& context) {
  const DataType dtype = input_dtype(context, 0);
  GE_ASSIGN_OR_RETURN(std::vector<int64_t> x_dims, input_dims(context, 0));
  GE_ASSIGN_OR_RETURN(std::vector<int64_t> y_dims, output_dims(context, 0));
  GE_RETURN_IF_ERROR(check_rank(context, x_dims.size(), "an input"));
  if (y_dims.size() != x_dims.size()) {
    return invalid_node(
        context, "output " + shape_to_string(y_dims) + " and input " + shape_to_string(x_dims) + " differ in rank");
  }
  GE_RETURN_IF_ERROR(check_output(context, 0, dtype, y_dims));
  PadParams params;
  params.rank = static_cast<int>(x_dims.size());
  params.x_dims = to_index(x_dims);
  params.y_dims = to_index(y_dims);
  params.x_strides = strides_of(x_dims);
  params.count = product(y_dims);
  GE_ASSIGN_OR_RETURN(params.mode, pad_mode(context));
  if (context.opset < 11) {
    const char* name = context.opset < 2 ? "paddings" : "pads";
    GE_ASSIGN_OR_RETURN(params.pads, ints_attribute(context, name, {}));
    if (params.pads.size() != 2 * x_dims.size()) {
      return invalid_attribute(context, name, "must hold 2 * rank = " + std::to_string(2 * x_dims.size()) + " values");
    }
    GE_ASSIGN_OR_RETURN(float value, float_attribute(context, "value", 0.0f));
    if (dtype != DataType::kString && !encode_scalar(dtype, value, params.value.data())) {
      return unsupported_dtype(context, dtype, copy_types());
    }
  } else {
    params.from_inputs = true;
    if (!has_input(context, 1)) return invalid_node(context, "input 1 (pads) is missing");
    GE_RETURN_IF_ERROR(check_input_dtype(context, 1, DataType::kInt64));
    GE_ASSIGN_OR_RETURN(params.pad_entries, input_element_count(context, 1));
    params.has_value_input = has_input(context, 2);
    if (params.has_value_input) {
      GE_RETURN_IF_ERROR(check_input_dtype(context, 2, dtype));
      GE_ASSIGN_OR_RETURN(int64_t count, input_element_count(context, 2));
      if (count != 1) return invalid_node(context, "input 2 (constant_value) must hold one element");
    }
    params.has_axes = has_input(context, 3);
    if (params.has_axes) {
      GE_RETURN_IF_ERROR(check_index_dtype(context, 3, "axes"));
      params.axes64 = input_dtype(context, 3) == DataType::kInt64;
      GE_ASSIGN_OR_RETURN(params.axis_entries, input_element_count(context, 3));
    }
    const int64_t axes = params.has_axes ? params.axis_entries : params.rank;
    if (params.pad_entries != 2 * axes || axes > params.rank) {
      return invalid_node(context, "input 1 (pads) holds " + std::to_string(params.pad_entries) + " values, not 2 * " +
                                       std::to_string(axes));
    }
  }
  KernelFunction function = select_copy(dtype, []<typename T>() -> KernelFunction { return &pad_kernel<T>; });
  if (function == nullptr) return unsupported_dtype(context, dtype, copy_types());
  return make_kernel(context, function, std::move(params));
}

}  // namespace

void add_pad_kernels(std::vector<OpKernel>& table) { table.push_back({"Pad", copy_types(), &prepare_pad}); }

}  // namespace ge::reference_kernels::tensor
