// HannWindow, HammingWindow, BlackmanWindow and MelWeightMatrix (opset 17).
//
// A window of `size` (input 0) samples is w[n] = a0 - a1 cos(2 pi n / N) + a2 cos(4 pi n / N)
// with N = size (periodic=1, the default) or size - 1 (periodic=0); Hann a = (0.5, 0.5, 0),
// Hamming (25/46, 21/46, 0), Blackman (0.42, 0.5, 0.08). The output dtype is
// output_datatype (default float32). A symmetric window of one sample is [1].
//
// MelWeightMatrix maps dft_length/2 + 1 linear frequency bins to num_mel_bins triangular
// mel filters between lower_edge_hertz and upper_edge_hertz, as the ONNX reference
// computes it: num_mel_bins + 2 points evenly spaced in mel (2595 log10(1 + f/700)) are
// converted back to Hz and to bin indices floor((dft_length + 1) f / sample_rate); filter
// i rises linearly from point i to point i+1 and falls to point i+2.
//
// Sizes come from the output desc; the size inputs are checked against it at launch.

#include <algorithm>
#include <cmath>
#include <numbers>
#include <string>
#include <vector>

#include "common/special_common.h"
#include "signal/registration.h"

namespace ge::reference_kernels::special {
namespace {

struct WindowParams {
  double a0 = 0.0, a1 = 0.0, a2 = 0.0;
  int64_t size = 0;
  bool periodic = true;
  DataType size_dtype = DataType::kInt64;
};

template <typename T>
int window_kernel(const KernelArgs& args) {
  const auto& p = *static_cast<const WindowParams*>(args.params);
  T* y = static_cast<T*>(args.outputs[0]);
  if (args.inputs[0] == nullptr || (p.size > 0 && y == nullptr)) return kKernelMissingAddress;
  if (load_index(args.inputs[0], p.size_dtype, 0) != p.size) return kRuntimeSizeMismatch;
  const int64_t period = p.periodic ? p.size : p.size - 1;
  for (int64_t n = 0; n < p.size; ++n) {
    double value = 1.0;
    if (period > 0) {
      const double phase = 2.0 * std::numbers::pi * static_cast<double>(n) / static_cast<double>(period);
      value = p.a0 - p.a1 * std::cos(phase) + p.a2 * std::cos(2.0 * phase);
    }
    y[n] = store<T>(value);
  }
  return kKernelOk;
}

Result<DataType> output_datatype(const KernelContext& context) {
  GE_ASSIGN_OR_RETURN(int64_t code, int_attribute(context, "output_datatype", 1));
  const std::vector<DataType> supported = data_types(RealAndIntegerTypes{});
  if (!is_valid_data_type(static_cast<int32_t>(code)) ||
      std::find(supported.begin(), supported.end(), static_cast<DataType>(code)) == supported.end()) {
    return invalid_attribute(context, "output_datatype", "= " + std::to_string(code) + " is not a numeric dtype");
  }
  return static_cast<DataType>(code);
}

Result<DataType> integer_scalar_dtype(const KernelContext& context, size_t index, const char* role) {
  if (!has_input(context, index)) return invalid_node(context, std::string(role) + " (input " + std::to_string(index) + ") is missing");
  const DataType dtype = input_dtype(context, index);
  if (dtype != DataType::kInt32 && dtype != DataType::kInt64) {
    return unsupported_feature(context, std::string(role) + " of dtype " + std::string(data_type_name(dtype)));
  }
  GE_ASSIGN_OR_RETURN(std::vector<int64_t> dims, input_dims(context, index));
  if (product(dims) != 1) {
    return invalid_node(context, std::string(role) + " (input " + std::to_string(index) + ") must hold one value, got " +
                                     shape_to_string(dims));
  }
  return dtype;
}

Result<PreparedKernel> prepare_window(const KernelContext& context, double a0, double a1, double a2) {
  WindowParams p{a0, a1, a2};
  GE_ASSIGN_OR_RETURN(p.size_dtype, integer_scalar_dtype(context, 0, "size"));
  GE_ASSIGN_OR_RETURN(int64_t periodic, int_attribute(context, "periodic", 1));
  p.periodic = periodic != 0;
  GE_ASSIGN_OR_RETURN(DataType dtype, output_datatype(context));
  GE_ASSIGN_OR_RETURN(std::vector<int64_t> out_dims, output_dims(context, 0));
  if (out_dims.size() != 1) return invalid_node(context, "output 0 must be 1-D, got " + shape_to_string(out_dims));
  GE_RETURN_IF_ERROR(check_output(context, 0, dtype, out_dims));
  p.size = out_dims[0];
  KernelFunction function = select_kernel(
      dtype, RealAndIntegerTypes{}, []<typename T>() -> KernelFunction { return &window_kernel<T>; });
  return make_kernel(context, function, p);
}

Result<PreparedKernel> prepare_hann(const KernelContext& context) { return prepare_window(context, 0.5, 0.5, 0.0); }
Result<PreparedKernel> prepare_hamming(const KernelContext& context) {
  return prepare_window(context, 25.0 / 46.0, 21.0 / 46.0, 0.0);
}
Result<PreparedKernel> prepare_blackman(const KernelContext& context) {
  return prepare_window(context, 0.42, 0.5, 0.08);
}

struct MelParams {
  int64_t spectrogram_bins = 0;  // output rows: dft_length / 2 + 1
  int64_t mel_bins = 0;          // output columns
  DataType integer_dtypes[3] = {DataType::kInt64, DataType::kInt64, DataType::kInt64};
  DataType edge_dtype = DataType::kFloat32;
};

double load_real(const void* data, DataType dtype) {
  switch (dtype) {
    case DataType::kFloat16:
      return load(*static_cast<const Float16*>(data));
    case DataType::kBFloat16:
      return load(*static_cast<const BFloat16*>(data));
    case DataType::kFloat64:
      return *static_cast<const double*>(data);
    default:
      return *static_cast<const float*>(data);
  }
}

template <typename T>
int mel_weight_matrix_kernel(const KernelArgs& args) {
  const auto& p = *static_cast<const MelParams*>(args.params);
  T* y = static_cast<T*>(args.outputs[0]);
  for (int i = 0; i < 5; ++i) {
    if (args.inputs[i] == nullptr) return kKernelMissingAddress;
  }
  if (y == nullptr && p.spectrogram_bins * p.mel_bins > 0) return kKernelMissingAddress;
  const int64_t mel_bins = load_index(args.inputs[0], p.integer_dtypes[0], 0);
  const int64_t dft_length = load_index(args.inputs[1], p.integer_dtypes[1], 0);
  const int64_t sample_rate = load_index(args.inputs[2], p.integer_dtypes[2], 0);
  const double lower_hz = load_real(args.inputs[3], p.edge_dtype);
  const double upper_hz = load_real(args.inputs[4], p.edge_dtype);
  if (mel_bins != p.mel_bins || dft_length / 2 + 1 != p.spectrogram_bins) return kRuntimeSizeMismatch;
  if (sample_rate <= 0 || dft_length <= 0 || mel_bins <= 0 || lower_hz < 0.0 || upper_hz < lower_hz) {
    return kInvalidRuntimeValue;
  }
  const double low_mel = 2595.0 * std::log10(1.0 + lower_hz / 700.0);
  const double high_mel = 2595.0 * std::log10(1.0 + upper_hz / 700.0);
  const double mel_step = (high_mel - low_mel) / static_cast<double>(mel_bins + 2);
  auto point = [&](int64_t i) -> int64_t {
    const double hz = 700.0 * (std::pow(10.0, (static_cast<double>(i) * mel_step + low_mel) / 2595.0) - 1.0);
    return static_cast<int64_t>(std::floor(static_cast<double>(dft_length + 1) * hz / static_cast<double>(sample_rate)));
  };
  const int64_t rows = p.spectrogram_bins;
  for (int64_t k = 0; k < rows * mel_bins; ++k) y[k] = store<T>(0.0);
  auto set = [&](int64_t row, int64_t column, double value) {
    if (row >= 0 && row < rows) y[row * mel_bins + column] = store<T>(value);
  };
  for (int64_t i = 0; i < mel_bins; ++i) {
    const int64_t left = point(i), center = point(i + 1), right = point(i + 2);
    const int64_t rise = center - left;
    if (rise == 0) {
      set(center, i, 1.0);
    } else {
      for (int64_t j = left; j <= center; ++j) set(j, i, static_cast<double>(j - left) / static_cast<double>(rise));
    }
    const int64_t fall = right - center;
    if (fall > 0) {
      for (int64_t j = center; j < right; ++j) set(j, i, static_cast<double>(right - j) / static_cast<double>(fall));
    }
  }
  return kKernelOk;
}

Result<PreparedKernel> prepare_mel_weight_matrix(const KernelContext& context) {
  MelParams p;
  const char* roles[] = {"num_mel_bins", "dft_length", "sample_rate"};
  for (size_t i = 0; i < 3; ++i) {
    GE_ASSIGN_OR_RETURN(p.integer_dtypes[i], integer_scalar_dtype(context, i, roles[i]));
  }
  for (size_t i = 3; i < 5; ++i) {
    if (!has_input(context, i)) return invalid_node(context, "input " + std::to_string(i) + " is missing");
    const DataType dtype = input_dtype(context, i);
    const std::vector<DataType> supported = data_types(RealTypes{});
    if (std::find(supported.begin(), supported.end(), dtype) == supported.end()) {
      return unsupported_feature(context, "input " + std::to_string(i) + " of dtype " +
                                              std::string(data_type_name(dtype)));
    }
    GE_ASSIGN_OR_RETURN(std::vector<int64_t> dims, input_dims(context, i));
    if (product(dims) != 1) {
      return invalid_node(context, "input " + std::to_string(i) + " must hold one value, got " + shape_to_string(dims));
    }
  }
  p.edge_dtype = input_dtype(context, 3);
  if (input_dtype(context, 4) != p.edge_dtype) {
    return unsupported_feature(context, "lower_edge_hertz and upper_edge_hertz of different dtypes");
  }
  GE_ASSIGN_OR_RETURN(DataType dtype, output_datatype(context));
  GE_ASSIGN_OR_RETURN(std::vector<int64_t> out_dims, output_dims(context, 0));
  if (out_dims.size() != 2) return invalid_node(context, "output 0 must be 2-D, got " + shape_to_string(out_dims));
  GE_RETURN_IF_ERROR(check_output(context, 0, dtype, out_dims));
  p.spectrogram_bins = out_dims[0];
  p.mel_bins = out_dims[1];
  KernelFunction function = select_kernel(
      dtype, RealAndIntegerTypes{}, []<typename T>() -> KernelFunction { return &mel_weight_matrix_kernel<T>; });
  return make_kernel(context, function, p);
}

}  // namespace

void add_window_kernels(std::vector<OpKernel>& table) {
  // Input 0 is the int32/int64 size; prepare checks it and the output_datatype.
  table.push_back({"HannWindow", {}, &prepare_hann});
  table.push_back({"HammingWindow", {}, &prepare_hamming});
  table.push_back({"BlackmanWindow", {}, &prepare_blackman});
  table.push_back({"MelWeightMatrix", {}, &prepare_mel_weight_matrix});
}

}  // namespace ge::reference_kernels::special
