#include "toy_kernels.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <limits>
#include <map>
#include <memory>
#include <vector>

#include "toy_device.h"

namespace toy {
namespace {

using Dims = std::vector<int64_t>;
constexpr int kOperandOutsideMemory = 1;
constexpr size_t kMaxInputs = 5;  // BatchNormalization's

/// What a launch gets as KernelArgs::params: the op's loop, the static facts of the node
/// and the attributes its op reads.
struct ToyKernelParams {
  void (*loop)(const ToyKernelParams& p, const float* const* inputs, float* output) = nullptr;
  const ToyDevice* device = nullptr;
  std::vector<Dims> input_dims;  // empty for an omitted optional input
  std::vector<size_t> input_bytes;
  Dims output_dims;
  size_t output_bytes = 0;
  Dims strides, pads, dilations, kernel_shape;  // 2-D Conv, MaxPool; pads: top, left, bottom, right
  int64_t group = 1;
  float alpha = 1, beta = 1, epsilon = 1e-5f;
  bool trans_a = false, trans_b = false;
};

int64_t element_count(const Dims& dims) {
  int64_t count = 1;
  for (int64_t dim : dims) count *= dim;
  return count;
}

// The loops write the output in row-major order; `inputs` has kMaxInputs entries, null
// for the absent ones.

void conv(const ToyKernelParams& p, const float* const* inputs, float* y) {
  const Dims &x_dims = p.input_dims[0], &w_dims = p.input_dims[1], &y_dims = p.output_dims;
  const int64_t channels = x_dims[1], height = x_dims[2], width = x_dims[3];
  const int64_t group_channels = w_dims[1], kernel_h = w_dims[2], kernel_w = w_dims[3];
  const int64_t maps_per_group = y_dims[1] / p.group;
  const float *x = inputs[0], *w = inputs[1], *bias = inputs[2];
  for (int64_t n = 0; n < y_dims[0]; ++n) {
    for (int64_t m = 0; m < y_dims[1]; ++m) {
      const int64_t first_channel = m / maps_per_group * group_channels;
      for (int64_t oh = 0; oh < y_dims[2]; ++oh) {
        for (int64_t ow = 0; ow < y_dims[3]; ++ow) {
          float sum = bias != nullptr ? bias[m] : 0.0f;
          for (int64_t c = 0; c < group_channels; ++c) {
            for (int64_t kh = 0; kh < kernel_h; ++kh) {
              for (int64_t kw = 0; kw < kernel_w; ++kw) {
                const int64_t ih = oh * p.strides[0] - p.pads[0] + kh * p.dilations[0];
                const int64_t iw = ow * p.strides[1] - p.pads[1] + kw * p.dilations[1];
                if (ih < 0 || ih >= height || iw < 0 || iw >= width) continue;  // padding
                sum += x[((n * channels + first_channel + c) * height + ih) * width + iw] *
                       w[((m * group_channels + c) * kernel_h + kh) * kernel_w + kw];
              }
            }
          }
          *y++ = sum;
        }
      }
    }
  }
}

void max_pool(const ToyKernelParams& p, const float* const* inputs, float* y) {
  const Dims &x_dims = p.input_dims[0], &y_dims = p.output_dims;
  const int64_t height = x_dims[2], width = x_dims[3];
  for (int64_t plane = 0; plane < y_dims[0] * y_dims[1]; ++plane) {
    const float* x = inputs[0] + plane * height * width;
    for (int64_t oh = 0; oh < y_dims[2]; ++oh) {
      for (int64_t ow = 0; ow < y_dims[3]; ++ow) {
        float best = -std::numeric_limits<float>::infinity();
        for (int64_t kh = 0; kh < p.kernel_shape[0]; ++kh) {
          for (int64_t kw = 0; kw < p.kernel_shape[1]; ++kw) {
            const int64_t ih = oh * p.strides[0] - p.pads[0] + kh * p.dilations[0];
            const int64_t iw = ow * p.strides[1] - p.pads[1] + kw * p.dilations[1];
            if (ih >= 0 && ih < height && iw >= 0 && iw < width) best = std::max(best, x[ih * width + iw]);
          }
        }
        *y++ = best;
      }
    }
  }
}

void batch_normalization(const ToyKernelParams& p, const float* const* inputs, float* y) {
  const Dims& dims = p.input_dims[0];
  const int64_t channels = dims[1], inner = element_count(dims) / (dims[0] * channels);
  const float *x = inputs[0], *scale = inputs[1], *bias = inputs[2], *mean = inputs[3], *variance = inputs[4];
  for (int64_t n = 0; n < dims[0]; ++n) {
    for (int64_t c = 0; c < channels; ++c) {
      const float factor = scale[c] / std::sqrt(variance[c] + p.epsilon);
      for (int64_t i = 0; i < inner; ++i) *y++ = (*x++ - mean[c]) * factor + bias[c];
    }
  }
}

void relu(const ToyKernelParams& p, const float* const* inputs, float* y) {
  for (int64_t i = 0; i < element_count(p.output_dims); ++i) y[i] = std::max(inputs[0][i], 0.0f);
}

void copy(const ToyKernelParams& p, const float* const* inputs, float* y) {  // Flatten, Reshape
  std::copy(inputs[0], inputs[0] + element_count(p.output_dims), y);
}

void gemm(const ToyKernelParams& p, const float* const* inputs, float* y) {
  const int64_t rows = p.output_dims[0], columns = p.output_dims[1];
  const int64_t depth = p.trans_a ? p.input_dims[0][0] : p.input_dims[0][1];
  const float *a = inputs[0], *b = inputs[1], *c = inputs[2];
  // C broadcasts to [rows, columns]: a missing or unit dim (right-aligned) repeats.
  static const Dims kNoBias;
  const Dims& c_dims = p.input_dims.size() > 2 ? p.input_dims[2] : kNoBias;
  const int64_t c_columns = c_dims.empty() ? 1 : c_dims.back(), c_rows = c_dims.size() == 2 ? c_dims[0] : 1;
  for (int64_t r = 0; r < rows; ++r) {
    for (int64_t col = 0; col < columns; ++col) {
      float sum = 0;
      for (int64_t k = 0; k < depth; ++k) {
        const float a_rk = p.trans_a ? a[k * rows + r] : a[r * depth + k];
        const float b_kc = p.trans_b ? b[col * depth + k] : b[k * columns + col];
        sum += a_rk * b_kc;
      }
      const float bias = c != nullptr ? c[(c_rows == 1 ? 0 : r) * c_columns + (c_columns == 1 ? 0 : col)] : 0.0f;
      *y++ = p.alpha * sum + p.beta * bias;
    }
  }
}

void softmax(const ToyKernelParams& p, const float* const* inputs, float* y) {  // over the last axis
  const int64_t length = p.output_dims.back();
  for (const float* x = inputs[0]; x != inputs[0] + element_count(p.output_dims); x += length, y += length) {
    const float largest = *std::max_element(x, x + length);
    float sum = 0;
    for (int64_t i = 0; i < length; ++i) {
      y[i] = std::exp(x[i] - largest);
      sum += y[i];
    }
    for (int64_t i = 0; i < length; ++i) y[i] /= sum;
  }
}

using Loop = decltype(ToyKernelParams::loop);
const std::map<std::string, Loop>& loops() {
  static const std::map<std::string, Loop> table{
      {"BatchNormalization", &batch_normalization},
      {"Conv", &conv},
      {"Flatten", &copy},
      {"Gemm", &gemm},
      {"MaxPool", &max_pool},
      {"Relu", &relu},
      {"Reshape", &copy},
      {"Softmax", &softmax},
  };
  return table;
}

/// Why the toy kernel cannot run `node`'s attributes or ranks; empty when it can.
std::string check_attributes(const ge::Node& node) {
  const std::string& op = node.op_type();
  auto rank = [&](size_t i) { return node.input(i) != nullptr ? node.input(i)->desc().rank() : -1; };
  if (op == "Conv" || op == "MaxPool") {
    if (rank(0) != 4) return "only 2-D " + op + " (an NCHW input of rank 4) is supported";
    if (op == "Conv" && rank(1) != 4) return "the weight must have rank 4";
    if (node.get_string("auto_pad", "NOTSET") != "NOTSET") return "auto_pad is not supported: give explicit pads";
    if (node.get_ints("strides", {1, 1}).size() != 2 || node.get_ints("dilations", {1, 1}).size() != 2 ||
        node.get_ints("pads", {0, 0, 0, 0}).size() != 4 ||
        (op == "MaxPool" && node.get_ints("kernel_shape").size() != 2)) {
      return "strides, dilations, pads or kernel_shape do not describe a 2-D window";
    }
  }
  if (op == "BatchNormalization" && rank(0) < 2) return "the input must have rank 2 or more (N, C, ...)";
  if (op == "Gemm" && (rank(0) != 2 || rank(1) != 2 || rank(2) > 2)) return "A and B must have rank 2 and C at most 2";
  if (op == "Softmax") {
    // ONNX opset 13 made -1 the default axis; before it, 1. Only the last axis means the same in both.
    const ge::Graph* graph = node.graph();
    const int64_t axis = node.get_int("axis", graph != nullptr && graph->opset_version("") < 13 ? 1 : -1);
    if (rank(0) < 1 || (axis + rank(0)) % rank(0) != rank(0) - 1) return "only Softmax over the last axis is supported";
  }
  return {};
}

}  // namespace

bool toy_supports(const ge::Node& node, std::string* reason) {
  auto refuse = [reason](const std::string& why) {
    if (reason != nullptr) *reason = "toy backend: " + why;
    return false;
  };
  if (!node.domain().empty() || loops().count(node.op_type()) == 0) {
    std::string ops;
    for (const auto& [op, loop] : loops()) ops += (ops.empty() ? "" : ", ") + op;
    return refuse("no kernel for op '" + (node.domain().empty() ? "" : node.domain() + ".") + node.op_type() +
                  "' (the toy kernels run the ONNX ops " + ops + ")");
  }
  auto check_value = [&](const ge::Value* value, const std::string& role) {
    if (value->desc().dtype != ge::DataType::kFloat32) {
      return refuse(role + " is " + std::string(ge::data_type_name(value->desc().dtype)) +
                    "; the toy kernels are float32 only");
    }
    if (!value->desc().is_plain()) {
      return refuse(role + " is in format " + value->desc().format + "; the toy kernels take plain layouts");
    }
    return true;
  };
  for (size_t i = 0; i < node.input_count(); ++i) {
    if (node.input(i) == nullptr || (node.op_type() == "Reshape" && i == 1)) continue;  // the shape is GE's to read
    if (!check_value(node.input(i), "input " + std::to_string(i))) return false;
  }
  for (size_t i = 1; i < node.output_count(); ++i) {
    if (!node.output(i)->name().empty()) return refuse("output " + std::to_string(i) + " is not supported (only one)");
  }
  if (node.output_count() == 0 || !check_value(node.output(0), "output 0")) return false;
  if (node.input_count() > kMaxInputs) return refuse("more than " + std::to_string(kMaxInputs) + " inputs");
  if (std::string why = check_attributes(node); !why.empty()) return refuse(why);
  return true;
}

ge::Result<ge::PreparedKernel> prepare_toy_kernel(const ge::Node& node, const ToyDevice& device) {
  std::string reason;
  if (!toy_supports(node, &reason)) return ge::unsupported(node.describe() + ": " + reason);
  auto params = std::make_shared<ToyKernelParams>();
  auto facts = [&](const ge::Value* value, Dims& dims, size_t& bytes) {
    if (value == nullptr) return ge::Status::ok();
    if (!value->desc().is_static()) {
      return ge::invalid_argument(node.describe() + ": the toy kernels need static shapes, '" + value->name() +
                                  "' is " + value->desc().to_string());
    }
    dims = value->desc().static_dims();
    bytes = static_cast<size_t>(element_count(dims)) * ge::element_size(value->desc().dtype);
    return ge::Status::ok();
  };
  params->input_dims.resize(node.input_count());
  params->input_bytes.resize(node.input_count());
  for (size_t i = 0; i < node.input_count(); ++i) {
    GE_RETURN_IF_ERROR(facts(node.input(i), params->input_dims[i], params->input_bytes[i]));
  }
  GE_RETURN_IF_ERROR(facts(node.output(0), params->output_dims, params->output_bytes));
  params->loop = loops().at(node.op_type());
  params->device = &device;
  params->strides = node.get_ints("strides", {1, 1});
  params->pads = node.get_ints("pads", {0, 0, 0, 0});
  params->dilations = node.get_ints("dilations", {1, 1});
  params->kernel_shape = node.get_ints("kernel_shape");
  params->group = node.get_int("group", 1);
  params->alpha = node.get_float("alpha", 1.0f);
  params->beta = node.get_float("beta", 1.0f);
  params->epsilon = node.get_float("epsilon", 1e-5f);
  params->trans_a = node.get_int("transA", 0) != 0;
  params->trans_b = node.get_int("transB", 0) != 0;
  if (node.op_type() == "Conv" &&
      (params->group <= 0 || params->input_dims[0][1] != params->input_dims[1][1] * params->group ||
       params->output_dims[1] % params->group != 0)) {
    return ge::invalid_argument(node.describe() + ": group " + std::to_string(params->group) +
                                " does not divide the input channels and output maps evenly");
  }
  ge::PreparedKernel kernel;
  kernel.function = &toy_kernel_entry;
  kernel.params = std::move(params);
  kernel.name = "toy." + node.op_type();
  return kernel;
}

int toy_kernel_entry(const ge::KernelArgs& args) {
  const auto& p = *static_cast<const ToyKernelParams*>(args.params);
  std::array<const float*, kMaxInputs> inputs{};  // a launch does not allocate
  for (size_t i = 0; i < p.input_bytes.size(); ++i) {
    if (args.inputs[i] == nullptr) continue;  // an omitted optional input
    inputs[i] = reinterpret_cast<const float*>(p.device->host_view(args.inputs[i], p.input_bytes[i]));
    if (inputs[i] == nullptr) return kOperandOutsideMemory;
  }
  auto* output = reinterpret_cast<float*>(p.device->host_view(args.outputs[0], p.output_bytes));
  if (output == nullptr) return kOperandOutsideMemory;
  if (p.output_bytes > 0) p.loop(p, inputs.data(), output);
  return 0;
}

std::string describe_toy_kernel_failure(int code) {
  if (code == kOperandOutsideMemory) return "an input or output address lies outside device memory";
  return "failed with unknown code " + std::to_string(code);
}

}  // namespace toy
