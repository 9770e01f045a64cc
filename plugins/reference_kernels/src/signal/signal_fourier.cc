// DFT and STFT (opset 17), as plain O(n^2) discrete Fourier sums in double.
//
// DFT: x is [batch, n1..nk, 1 (real) or 2 (complex)]; the transform runs along `axis`
// (default 1) over dft_length points (input 1, read at launch; default the axis' extent):
// shorter signals are zero-padded, longer ones truncated. inverse=1 uses e^{+i...} and
// divides by the length; onesided=1 keeps the first length/2 + 1 frequencies.
// STFT: signal [batch, length, 1 or 2]; frames of frame_length samples start every
// frame_step (input 1) samples; each frame is multiplied by `window` (input 2, when
// given) and transformed; onesided (default 1) keeps length/2 + 1 frequencies. Output
// [batch, frames, frequencies, 2].
// Sizes read from inputs at launch must agree with the output desc (run-time shape
// inference computed it from the same values); otherwise kRuntimeSizeMismatch.

#include <algorithm>
#include <cmath>
#include <numbers>
#include <optional>
#include <string>
#include <vector>

#include "common/special_common.h"
#include "signal/registration.h"
#include "tensor/tensor_common.h"

namespace ge::reference_kernels::special {
namespace {

// exp(sign * 2*pi*i * j*k / n) for 0 <= j, k; the product is reduced mod n first so that
// the angle stays exact for long transforms.
void twiddle(int64_t j, int64_t k, int64_t n, double sign, double& re, double& im) {
  const double angle = sign * 2.0 * std::numbers::pi * static_cast<double>((j * k) % n) / static_cast<double>(n);
  re = std::cos(angle);
  im = std::sin(angle);
}

struct DftParams {
  int64_t outer = 0;       // product of the dims before the axis
  int64_t in_length = 0;   // input extent along the axis
  int64_t inner = 0;       // product of the dims between the axis and the complex dim
  bool complex_input = false;
  int64_t out_length = 0;  // output extent along the axis
  bool inverse = false;
  bool onesided = false;
  // DFT-20's IRFFT (inverse and onesided): a one-sided complex spectrum in, a real signal
  // of dft_length (default 2 * (in_length - 1)) points out, [..., n, 1].
  bool irfft = false;
  DataType length_dtype = DataType::kInt64;
  size_t input_count = 0;  // the node's: dft_length is optional
  // DFT-20 with an axis input that is no constant: the layout above is set per launch from
  // these shapes and the axis value.
  bool axis_at_launch = false;
  DataType axis_dtype = DataType::kInt64;
  std::vector<int64_t> in_dims, out_dims;
};

// Sets outer/in_length/inner/out_length for the axis read from input 2; false when the
// axis is out of range or the output shape does not fit it.
bool layout_for_axis(DftParams& p, int64_t axis) {
  const auto rank = static_cast<int64_t>(p.in_dims.size());
  if (axis < -rank || axis > rank - 2 || axis == -1) return false;
  if (axis < 0) axis += rank;
  const auto split = static_cast<size_t>(axis);
  for (size_t d = 0; d + 1 < p.in_dims.size(); ++d) {
    if (d != split && p.in_dims[d] != p.out_dims[d]) return false;
  }
  p.outer = product(p.in_dims, 0, split);
  p.in_length = p.in_dims[split];
  p.inner = product(p.in_dims, split + 1, p.in_dims.size() - 1);
  p.out_length = p.out_dims[split];
  return true;
}

// IRFFT: the first n/2 + 1 spectrum values (zero-padded) extended by conjugate symmetry,
// inverse-transformed; the real part is the signal.
template <typename T>
void irfft(const DftParams& p, const T* x, T* y, int64_t n) {
  const int64_t half = n / 2 + 1;
  const int64_t used = std::min(half, p.in_length);
  for (int64_t o = 0; o < p.outer; ++o) {
    for (int64_t i = 0; i < p.inner; ++i) {
      for (int64_t k = 0; k < n; ++k) {
        double sum = 0.0;
        for (int64_t j = 0; j < n; ++j) {
          const int64_t source = j < half ? j : n - j;  // F[j] = conj(F[n - j]) past the half
          if (source >= used) continue;
          const T* element = x + ((o * p.in_length + source) * p.inner + i) * 2;
          const double re = load(element[0]);
          const double im = j < half ? load(element[1]) : -load(element[1]);
          double w_re, w_im;
          twiddle(j, k, n, 1.0, w_re, w_im);
          sum += re * w_re - im * w_im;
        }
        y[(o * n + k) * p.inner + i] = store<T>(sum / static_cast<double>(n));
      }
    }
  }
}

template <typename T>
int dft_kernel(const KernelArgs& args) {
  const auto& prepared = *static_cast<const DftParams*>(args.params);
  DftParams launch;  // with a run-time axis, a copy laid out for it
  if (prepared.axis_at_launch) {
    if (args.inputs[2] == nullptr) return kKernelMissingAddress;
    launch = prepared;
    const int64_t axis = load_index(args.inputs[2], prepared.axis_dtype, 0);
    if (!layout_for_axis(launch, axis)) {
      return kernel_error(kRuntimeSizeMismatch, "axis " + std::to_string(axis) + " does not fit input " +
                                                    shape_to_string(prepared.in_dims) + " and output " +
                                                    shape_to_string(prepared.out_dims));
    }
  }
  const DftParams& p = prepared.axis_at_launch ? launch : prepared;
  const auto* x = static_cast<const T*>(args.inputs[0]);
  T* y = static_cast<T*>(args.outputs[0]);
  if (x == nullptr || y == nullptr) return kKernelMissingAddress;
  const void* length = optional_input(args, p.input_count, 1);
  const int64_t default_length = p.irfft ? 2 * (p.in_length - 1) : p.in_length;
  const int64_t n = length != nullptr ? load_index(length, p.length_dtype, 0) : default_length;
  if (n <= 0) return kInvalidRuntimeValue;
  if (p.irfft) {
    if (n != p.out_length) return kRuntimeSizeMismatch;
    irfft(p, x, y, n);
    return kKernelOk;
  }
  if ((p.onesided ? n / 2 + 1 : n) != p.out_length) return kRuntimeSizeMismatch;
  const int64_t channels = p.complex_input ? 2 : 1;
  const int64_t used = std::min(n, p.in_length);
  const double sign = p.inverse ? 1.0 : -1.0;
  for (int64_t o = 0; o < p.outer; ++o) {
    for (int64_t i = 0; i < p.inner; ++i) {
      for (int64_t k = 0; k < p.out_length; ++k) {
        double sum_re = 0.0, sum_im = 0.0;
        for (int64_t j = 0; j < used; ++j) {
          const T* element = x + ((o * p.in_length + j) * p.inner + i) * channels;
          const double re = load(element[0]);
          const double im = p.complex_input ? load(element[1]) : 0.0;
          double w_re, w_im;
          twiddle(j, k, n, sign, w_re, w_im);
          sum_re += re * w_re - im * w_im;
          sum_im += re * w_im + im * w_re;
        }
        if (p.inverse) {
          sum_re /= static_cast<double>(n);
          sum_im /= static_cast<double>(n);
        }
        T* out = y + ((o * p.out_length + k) * p.inner + i) * 2;
        out[0] = store<T>(sum_re);
        out[1] = store<T>(sum_im);
      }
    }
  }
  return kKernelOk;
}

Status check_real_dtype(const KernelContext& context, DataType dtype) {
  const std::vector<DataType> supported = data_types(RealTypes{});
  if (std::find(supported.begin(), supported.end(), dtype) == supported.end()) {
    return unsupported_dtype(context, dtype, supported);
  }
  return Status::ok();
}

Status check_integer_scalar(const KernelContext& context, size_t index, const char* role) {
  const DataType dtype = input_dtype(context, index);
  if (dtype != DataType::kInt32 && dtype != DataType::kInt64) {
    return unsupported_feature(context, std::string(role) + " (input " + std::to_string(index) + ") of dtype " +
                                            std::string(data_type_name(dtype)));
  }
  GE_ASSIGN_OR_RETURN(std::vector<int64_t> dims, input_dims(context, index));
  if (product(dims) != 1) {
    return invalid_node(context, std::string(role) + " (input " + std::to_string(index) + ") must hold one value, got " +
                                     shape_to_string(dims));
  }
  return Status::ok();
}

// DFT-20 whose axis (input 2) is known only at launch: the output shape (inferred with the
// run's axis) fixes every dim but the axis; the layout is computed per launch.
Result<PreparedKernel> prepare_dft_with_launch_axis(const KernelContext& context, const std::vector<int64_t>& dims) {
  const DataType dtype = input_dtype(context, 0);
  GE_ASSIGN_OR_RETURN(int64_t inverse, int_attribute(context, "inverse", 0));
  GE_ASSIGN_OR_RETURN(int64_t onesided, int_attribute(context, "onesided", 0));
  DftParams p;
  p.input_count = context.node.input_count();
  p.complex_input = dims.back() == 2;
  p.inverse = inverse != 0;
  p.onesided = onesided != 0;
  p.irfft = p.inverse && p.onesided;
  if (p.irfft && !p.complex_input) {
    return invalid_node(context, "an inverse one-sided DFT (IRFFT) needs a complex input ([..., 2]), got " +
                                     shape_to_string(dims));
  }
  if (has_input(context, 1)) {
    GE_RETURN_IF_ERROR(check_integer_scalar(context, 1, "dft_length"));
    p.length_dtype = input_dtype(context, 1);
  }
  p.axis_at_launch = true;
  p.axis_dtype = input_dtype(context, 2);
  p.in_dims = dims;
  GE_ASSIGN_OR_RETURN(p.out_dims, output_dims(context, 0));
  if (p.out_dims.size() != dims.size() || p.out_dims.back() != (p.irfft ? 1 : 2)) {
    return invalid_node(context, "output shape " + shape_to_string(p.out_dims) + " does not fit input " +
                                     shape_to_string(dims));
  }
  GE_RETURN_IF_ERROR(check_output(context, 0, dtype, p.out_dims));
  KernelFunction function =
      select_kernel(dtype, RealTypes{}, []<typename T>() -> KernelFunction { return &dft_kernel<T>; });
  return make_kernel(context, function, p);
}

Result<PreparedKernel> prepare_dft(const KernelContext& context) {
  const DataType dtype = input_dtype(context, 0);
  GE_RETURN_IF_ERROR(check_real_dtype(context, dtype));
  GE_ASSIGN_OR_RETURN(std::vector<int64_t> dims, input_dims(context, 0));
  const int64_t rank = static_cast<int64_t>(dims.size());
  // DFT-20 takes the axis as input 2 (default -2) and drops the batch dim's special role.
  const bool axis_input = context.opset >= 20;
  if (rank < (axis_input ? 2 : 3) || (dims.back() != 1 && dims.back() != 2)) {
    return invalid_node(context, std::string("input 0 must be [") + (axis_input ? "" : "batch, ") +
                                     "n1..nk, 1 or 2], got " + shape_to_string(dims));
  }
  int64_t axis = 1;
  if (axis_input) {
    axis = -2;
    if (has_input(context, 2)) {
      GE_RETURN_IF_ERROR(check_integer_scalar(context, 2, "axis"));
      std::optional<std::vector<int64_t>> value = tensor::constant_ints(context, 2);
      if (!value) return prepare_dft_with_launch_axis(context, dims);
      axis = value->front();
    }
    if (axis < -rank || axis > rank - 2 || axis == -1) {
      return invalid_node(context, "axis " + std::to_string(axis) + " is outside [" + std::to_string(-rank) +
                                       ", -2] and [0, " + std::to_string(rank - 2) + "]");
    }
    if (axis < 0) axis += rank;
  } else {
    GE_ASSIGN_OR_RETURN(axis, int_attribute(context, "axis", 1));
    if (axis < 0) axis += rank;
    if (axis < 1 || axis > rank - 2) {
      return invalid_attribute(context, "axis", "must name a signal dim in [1, " + std::to_string(rank - 2) + "]");
    }
  }
  GE_ASSIGN_OR_RETURN(int64_t inverse, int_attribute(context, "inverse", 0));
  GE_ASSIGN_OR_RETURN(int64_t onesided, int_attribute(context, "onesided", 0));
  DftParams p;
  p.input_count = context.node.input_count();
  const size_t split = static_cast<size_t>(axis);
  p.outer = product(dims, 0, split);
  p.in_length = dims[split];
  p.inner = product(dims, split + 1, dims.size() - 1);
  p.complex_input = dims.back() == 2;
  p.inverse = inverse != 0;
  p.onesided = onesided != 0;
  if (has_input(context, 1)) {
    GE_RETURN_IF_ERROR(check_integer_scalar(context, 1, "dft_length"));
    p.length_dtype = input_dtype(context, 1);
  }
  p.irfft = axis_input && p.inverse && p.onesided;
  if (p.irfft && !p.complex_input) {
    return invalid_node(context, "an inverse one-sided DFT (IRFFT) needs a complex input ([..., 2]), got " +
                                     shape_to_string(dims));
  }
  GE_ASSIGN_OR_RETURN(std::vector<int64_t> out_dims, output_dims(context, 0));
  std::vector<int64_t> expected = dims;
  expected.back() = p.irfft ? 1 : 2;
  if (out_dims.size() == dims.size()) expected[split] = out_dims[split];  // the length is checked at launch
  GE_RETURN_IF_ERROR(check_output(context, 0, dtype, expected));
  p.out_length = expected[split];
  KernelFunction function =
      select_kernel(dtype, RealTypes{}, []<typename T>() -> KernelFunction { return &dft_kernel<T>; });
  return make_kernel(context, function, p);
}

struct StftParams {
  int64_t batch = 0;
  int64_t signal_length = 0;
  bool complex_input = false;
  int64_t window_length = -1;  // -1: no window input
  int64_t frames = 0;          // output dims
  int64_t bins = 0;
  bool onesided = true;
  DataType step_dtype = DataType::kInt64;
  DataType length_dtype = DataType::kInt64;
  size_t input_count = 0;  // the node's: window and frame_length are optional
};

template <typename T>
int stft_kernel(const KernelArgs& args) {
  const auto& p = *static_cast<const StftParams*>(args.params);
  const auto* signal = static_cast<const T*>(args.inputs[0]);
  const auto* window = static_cast<const T*>(optional_input(args, p.input_count, 2));
  const void* length = optional_input(args, p.input_count, 3);
  T* y = static_cast<T*>(args.outputs[0]);
  if (signal == nullptr || args.inputs[1] == nullptr || y == nullptr) return kKernelMissingAddress;
  const int64_t step = load_index(args.inputs[1], p.step_dtype, 0);
  const int64_t n = length != nullptr ? load_index(length, p.length_dtype, 0) : p.window_length;
  if (step <= 0 || n <= 0 || n > p.signal_length) return kInvalidRuntimeValue;
  if (window != nullptr && n != p.window_length) return kRuntimeSizeMismatch;
  if ((p.signal_length - n) / step + 1 != p.frames || (p.onesided ? n / 2 + 1 : n) != p.bins) {
    return kRuntimeSizeMismatch;
  }
  const int64_t channels = p.complex_input ? 2 : 1;
  for (int64_t b = 0; b < p.batch; ++b) {
    for (int64_t f = 0; f < p.frames; ++f) {
      const T* frame = signal + (b * p.signal_length + f * step) * channels;
      for (int64_t k = 0; k < p.bins; ++k) {
        double sum_re = 0.0, sum_im = 0.0;
        for (int64_t j = 0; j < n; ++j) {
          const double scale = window != nullptr ? load(window[j]) : 1.0;
          const double re = load(frame[j * channels]) * scale;
          const double im = p.complex_input ? load(frame[j * channels + 1]) * scale : 0.0;
          double w_re, w_im;
          twiddle(j, k, n, -1.0, w_re, w_im);
          sum_re += re * w_re - im * w_im;
          sum_im += re * w_im + im * w_re;
        }
        T* out = y + ((b * p.frames + f) * p.bins + k) * 2;
        out[0] = store<T>(sum_re);
        out[1] = store<T>(sum_im);
      }
    }
  }
  return kKernelOk;
}

Result<PreparedKernel> prepare_stft(const KernelContext& context) {
  const DataType dtype = input_dtype(context, 0);
  GE_RETURN_IF_ERROR(check_real_dtype(context, dtype));
  GE_ASSIGN_OR_RETURN(std::vector<int64_t> dims, input_dims(context, 0));
  if (dims.size() != 3 || (dims[2] != 1 && dims[2] != 2)) {
    return invalid_node(context, "input 0 (signal) must be [batch, length, 1 or 2], got " + shape_to_string(dims));
  }
  StftParams p;
  p.input_count = context.node.input_count();
  p.batch = dims[0];
  p.signal_length = dims[1];
  p.complex_input = dims[2] == 2;
  GE_ASSIGN_OR_RETURN(int64_t onesided, int_attribute(context, "onesided", 1));
  p.onesided = onesided != 0;
  if (!has_input(context, 1)) return invalid_node(context, "input 1 (frame_step) is missing");
  GE_RETURN_IF_ERROR(check_integer_scalar(context, 1, "frame_step"));
  p.step_dtype = input_dtype(context, 1);
  if (has_input(context, 2)) {
    GE_RETURN_IF_ERROR(check_input_dtype(context, 2, dtype));
    GE_ASSIGN_OR_RETURN(std::vector<int64_t> window_dims, input_dims(context, 2));
    if (window_dims.size() != 1) {
      return invalid_node(context, "input 2 (window) must be 1-D, got " + shape_to_string(window_dims));
    }
    p.window_length = window_dims[0];
  }
  if (has_input(context, 3)) {
    GE_RETURN_IF_ERROR(check_integer_scalar(context, 3, "frame_length"));
    p.length_dtype = input_dtype(context, 3);
  } else if (!has_input(context, 2)) {
    return invalid_node(context, "needs a window (input 2) or a frame_length (input 3)");
  }
  GE_ASSIGN_OR_RETURN(std::vector<int64_t> out_dims, output_dims(context, 0));
  if (out_dims.size() != 4 || out_dims[0] != p.batch || out_dims[3] != 2) {
    return invalid_node(context, "output 0 must be [" + std::to_string(p.batch) + ", frames, bins, 2], got " +
                                     shape_to_string(out_dims));
  }
  GE_RETURN_IF_ERROR(check_output(context, 0, dtype, out_dims));
  p.frames = out_dims[1];
  p.bins = out_dims[2];
  KernelFunction function =
      select_kernel(dtype, RealTypes{}, []<typename T>() -> KernelFunction { return &stft_kernel<T>; });
  return make_kernel(context, function, p);
}

}  // namespace

void add_fourier_kernels(std::vector<OpKernel>& table) {
  table.push_back({"DFT", {}, &prepare_dft});
  table.push_back({"STFT", {}, &prepare_stft});
}

}  // namespace ge::reference_kernels::special
