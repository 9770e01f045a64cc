// Kernels of the "ge" domain ops the fusion passes produce:
// - ge::FusedConv(X, W, [B], [Z]) / ge::FusedConvTranspose / ge::FusedGemm: the Conv /
//   ConvTranspose / Gemm kernel, then (Conv) the residual Z added, then the activation over
//   the output in the same launch.
// - ge::FusedMatMul(A, B, [bias]): the MatMul kernel, the bias broadcast-added, then the
//   activation.
// - ge::Gelu {approximate: none | tanh}.
// - ge::LayerNormalization / ge::HardSwish: the standard ops for models whose opset
//   predates them; they run the ai.onnx kernels (nn_layer_normalization.cc,
//   unary_activation.cc) as those ops' first opsets define them.
// Activations compute in the element type with the formulas of the standalone kernels,
// so a fused node gives the same values as the chain it replaced. float16 and bfloat16
// compute in float (the inner kernels through nn_float_bridge.h) and round after the
// product, after each addition and after the activation, as the chain does.

#include <algorithm>
#include <cmath>
#include <string>
#include <string_view>

#include "common/float_compute.h"
#include "common/strided_loop.h"
#include "fused/registration.h"
#include "math/registration.h"           // the kernels the fused ones wrap
#include "nn/registration.h"
#include "normalization/registration.h"

namespace ge::reference_kernels {
namespace {

enum class Activation { kNone, kRelu, kSigmoid, kTanh, kHardSwish, kLeakyRelu, kHardSigmoid, kClip, kGelu, kSwish };

struct ActivationParams {
  Activation kind = Activation::kNone;
  float a = 0, b = 0;
};

Result<ActivationParams> read_activation(const KernelContext& context) {
  GE_ASSIGN_OR_RETURN(std::string name, string_attribute(context, "activation", ""));
  std::vector<float> values = context.node.get_floats("activation_params");
  struct Known {
    const char* name;
    Activation kind;
    size_t params;
    float a, b;  // defaults when the params are absent
  };
  static const Known known[] = {{"", Activation::kNone, 0, 0, 0},
                                {"Relu", Activation::kRelu, 0, 0, 0},
                                {"Sigmoid", Activation::kSigmoid, 0, 0, 0},
                                {"Tanh", Activation::kTanh, 0, 0, 0},
                                {"HardSwish", Activation::kHardSwish, 0, 0, 0},
                                {"Swish", Activation::kSwish, 0, 0, 0},
                                {"LeakyRelu", Activation::kLeakyRelu, 1, 0.01f, 0},
                                {"HardSigmoid", Activation::kHardSigmoid, 2, 0.2f, 0.5f},
                                {"Clip", Activation::kClip, 2, -INFINITY, INFINITY},
                                {"Gelu", Activation::kGelu, 1, 0, 0}};  // a: 0 erf, 1 tanh
  for (const Known& k : known) {
    if (name != k.name) continue;
    if (!values.empty() && values.size() != k.params) {
      return invalid_attribute(
          context, "activation_params",
          "has " + std::to_string(values.size()) + " values, " + name + " takes " + std::to_string(k.params));
    }
    ActivationParams params{k.kind, k.a, k.b};
    if (values.size() >= 1) params.a = values[0];
    if (values.size() >= 2) params.b = values[1];
    return params;
  }
  return unsupported_feature(context, "activation '" + name + "'");
}

template <typename T>
void apply_activation(T* y, int64_t count, const ActivationParams& p);

/// float16/bfloat16: a chunk at a time widened, activated in float and rounded back.
template <typename T>
requires float_compute::is_half_v<T>
void apply_activation(T* y, int64_t count, const ActivationParams& p) {
  if (p.kind == Activation::kNone) return;
  constexpr int64_t kChunk = float_compute::kFloat16Chunk;
  float values[kChunk];
  for (int64_t start = 0; start < count; start += kChunk) {
    const int64_t n = std::min(kChunk, count - start);
    for (int64_t k = 0; k < n; ++k) values[k] = float_compute::load(y[start + k]);
    apply_activation(values, n, p);
    for (int64_t k = 0; k < n; ++k) y[start + k] = float_compute::store<T>(values[k]);
  }
}

template <typename T>
void apply_activation(T* y, int64_t count, const ActivationParams& p) {
  const T a = static_cast<T>(p.a), b = static_cast<T>(p.b);
  switch (p.kind) {
    case Activation::kNone:
      return;
    case Activation::kRelu:
      for (int64_t i = 0; i < count; ++i) y[i] = y[i] < T(0) ? T(0) : y[i];  // NaN stays NaN, as in ReluOp
      return;
    case Activation::kSigmoid:
      for (int64_t i = 0; i < count; ++i) y[i] = T(1) / (T(1) + std::exp(-y[i]));
      return;
    case Activation::kTanh:
      for (int64_t i = 0; i < count; ++i) y[i] = std::tanh(y[i]);
      return;
    case Activation::kHardSwish:
      for (int64_t i = 0; i < count; ++i) y[i] = y[i] * std::max(T(0), std::min(T(1), y[i] / T(6) + T(0.5)));
      return;
    case Activation::kLeakyRelu:
      for (int64_t i = 0; i < count; ++i) y[i] = y[i] < T(0) ? a * y[i] : y[i];
      return;
    case Activation::kHardSigmoid:
      for (int64_t i = 0; i < count; ++i) {
        const T v = a * y[i] + b;  // comparisons, not std::min/max: NaN stays NaN
        y[i] = v < T(0) ? T(0) : (v > T(1) ? T(1) : v);
      }
      return;
    case Activation::kClip:
      for (int64_t i = 0; i < count; ++i) y[i] = y[i] < a ? a : (y[i] > b ? b : y[i]);
      return;
    case Activation::kSwish:  // y * Sigmoid(y) (SiLU), as the Mul of the Sigmoid it replaces
      for (int64_t i = 0; i < count; ++i) {
        const double v = static_cast<double>(y[i]);
        y[i] = static_cast<T>(v / (1.0 + std::exp(-v)));
      }
      return;
    case Activation::kGelu:  // the formulas of the standalone ge::Gelu kernel
      for (int64_t i = 0; i < count; ++i) {
        const double v = static_cast<double>(y[i]);
        const double inner = p.a != 0 ? std::tanh(0.79788456080286535588 * (v + 0.044715 * v * v * v))
                                      : std::erf(v * 0.70710678118654752440);
        y[i] = static_cast<T>(0.5 * v * (1.0 + inner));
      }
      return;
  }
}

/// The standard op kernels the fused ones wrap.
const OpKernel& standard_kernel(std::string_view op_type) {
  static const std::vector<OpKernel> table = [] {
    std::vector<OpKernel> entries;
    add_conv_kernels(entries);
    add_nn_conv_transpose_kernels(entries);
    add_gemm_kernels(entries);
    add_matmul_kernels(entries);
    add_unary_activation_kernels(entries);
    add_nn_layer_normalization_kernels(entries);
    return entries;
  }();
  for (const OpKernel& entry : table) {
    if (entry.op_type == op_type) return entry;
  }
  std::abort();  // every op asked for is in the table above
}

struct FusedParams {
  PreparedKernel inner;  // the Conv / Gemm / MatMul kernel
  ActivationParams activation;
  int64_t elements = 0;
  bool has_bias = false;
  StridedLoop bias_loop;      // operand 0: the bias, over the output
  bool has_residual = false;  // FusedConv's Z, added before the activation
};

/// a + b in T (float16/bfloat16: in float, rounded once).
template <typename T>
T add(T a, T b) {
  return float_compute::store<T>(float_compute::load(a) + float_compute::load(b));
}

template <typename T>
int fused_kernel(const KernelArgs& args) {
  const auto& p = *static_cast<const FusedParams*>(args.params);
  KernelArgs inner = args;
  inner.params = p.inner.params.get();
  if (int code = p.inner.function(inner)) return code;
  auto* y = static_cast<T*>(args.outputs[0]);
  if (p.has_bias) {
    const auto* bias = static_cast<const T*>(args.inputs[2]);
    if (bias == nullptr) return kKernelMissingAddress;
    const int64_t run = p.bias_loop.inner_size();
    const int64_t stride = p.bias_loop.inner_stride(0);
    for_each_run(p.bias_loop, [&](int64_t row, int64_t offset, int64_t) {
      T* out = y + row * run;
      for (int64_t j = 0; j < run; ++j) out[j] = add(out[j], bias[offset + j * stride]);
    });
  }
  if (p.has_residual) {
    const auto* z = static_cast<const T*>(args.inputs[3]);
    if (z == nullptr) return kKernelMissingAddress;
    for (int64_t i = 0; i < p.elements; ++i) y[i] = add(y[i], z[i]);
  }
  apply_activation(y, p.elements, p.activation);
  return kKernelOk;
}

Result<PreparedKernel> prepare_fused(const KernelContext& context, std::string_view standard, bool matmul_bias) {
  const DataType dtype = input_dtype(context, 0);
  GE_ASSIGN_OR_RETURN(ActivationParams activation, read_activation(context));
  GE_ASSIGN_OR_RETURN(PreparedKernel inner, standard_kernel(standard).prepare(context));
  GE_ASSIGN_OR_RETURN(std::vector<int64_t> y_dims, output_dims(context, 0));
  FusedParams params;
  params.activation = activation;
  params.elements = product(y_dims);
  if (matmul_bias && has_input(context, 2)) {
    GE_RETURN_IF_ERROR(check_input_dtype(context, 2, dtype));
    GE_ASSIGN_OR_RETURN(std::vector<int64_t> bias_dims, input_dims(context, 2));
    std::optional<std::vector<int64_t>> merged = broadcast_shapes(y_dims, bias_dims);
    if (bias_dims.size() > y_dims.size() || !merged || *merged != y_dims) {
      return invalid_node(context, "bias " + shape_to_string(bias_dims) + " does not broadcast to the product " +
                                       shape_to_string(y_dims));
    }
    std::optional<StridedLoop> loop = make_strided_loop(
        y_dims, {broadcast_strides(bias_dims, y_dims.size()), std::vector<int64_t>(y_dims.size(), 0)});
    if (!loop) return unsupported_feature(context, "a bias broadcast over more than 16 axes");
    params.has_bias = true;
    params.bias_loop = *loop;
  }
  if (standard == "Conv" && has_input(context, 3)) {
    GE_RETURN_IF_ERROR(check_input_dtype(context, 3, dtype));
    GE_ASSIGN_OR_RETURN(std::vector<int64_t> z_dims, input_dims(context, 3));
    if (z_dims != y_dims) {
      return invalid_node(context, "residual Z " + shape_to_string(z_dims) + " must have the output's shape " +
                                       shape_to_string(y_dims));
    }
    params.has_residual = true;
  }
  const size_t workspace = inner.workspace_bytes;
  const ZeroedMemory zeroed = inner.zeroed;                            // the inner kernel runs on this node's addresses
  std::string variant = inner.name.substr(inner.name.rfind('.') + 1);  // "cpu.Conv.im2col" -> "im2col"
  if (variant == context.node.op_type()) variant.clear();
  params.inner = std::move(inner);
  KernelFunction function =
      select_kernel(dtype, FloatingTypes{}, []<typename T>() -> KernelFunction { return &fused_kernel<T>; });
  PreparedKernel kernel = make_kernel(context, function, std::move(params), workspace, variant);
  kernel.zeroed = zeroed;
  return kernel;
}

Result<PreparedKernel> prepare_fused_conv(const KernelContext& context) {
  return prepare_fused(context, "Conv", false);
}
Result<PreparedKernel> prepare_fused_conv_transpose(const KernelContext& context) {
  return prepare_fused(context, "ConvTranspose", false);
}
Result<PreparedKernel> prepare_fused_gemm(const KernelContext& context) {
  return prepare_fused(context, "Gemm", false);
}
Result<PreparedKernel> prepare_fused_matmul(const KernelContext& context) {
  return prepare_fused(context, "MatMul", true);
}

// ---- Gelu ----

struct GeluParams {
  int64_t elements = 0;
  bool tanh = false;
};

template <typename T>
int gelu_kernel(const KernelArgs& args) {
  const auto& p = *static_cast<const GeluParams*>(args.params);
  const auto* x = static_cast<const T*>(args.inputs[0]);
  auto* y = static_cast<T*>(args.outputs[0]);
  if (x == nullptr || y == nullptr) return kKernelMissingAddress;
  constexpr double kInvSqrt2 = 0.70710678118654752440;
  constexpr double kSqrt2OverPi = 0.79788456080286535588;
  for (int64_t i = 0; i < p.elements; ++i) {
    const double v = static_cast<double>(float_compute::load(x[i]));
    const double inner = p.tanh ? std::tanh(kSqrt2OverPi * (v + 0.044715 * v * v * v)) : std::erf(v * kInvSqrt2);
    y[i] = float_compute::store<T>(0.5 * v * (1.0 + inner));
  }
  return kKernelOk;
}

Result<PreparedKernel> prepare_gelu(const KernelContext& context) {
  const DataType dtype = input_dtype(context, 0);
  GE_ASSIGN_OR_RETURN(std::vector<int64_t> dims, input_dims(context, 0));
  GE_RETURN_IF_ERROR(check_output(context, 0, dtype, dims));
  GE_ASSIGN_OR_RETURN(std::string approximate, string_attribute(context, "approximate", "none"));
  if (approximate != "none" && approximate != "tanh") {
    return invalid_attribute(context, "approximate", "is '" + approximate + "', expected 'none' or 'tanh'");
  }
  KernelFunction function =
      select_kernel(dtype, FloatingTypes{}, []<typename T>() -> KernelFunction { return &gelu_kernel<T>; });
  return make_kernel(context, function, GeluParams{product(dims), approximate == "tanh"});
}

// ---- standard ops in the "ge" domain ----

/// The ai.onnx kernel of `op_type`, prepared for a "ge" node with that op's semantics at
/// `since_opset` (the model's own opset is older).
Result<PreparedKernel> prepare_as_standard(const KernelContext& context, std::string_view op_type,
                                           int64_t since_opset) {
  const KernelContext standard{context.node, context.backend, std::max(context.opset, since_opset)};
  return standard_kernel(op_type).prepare(standard);
}

Result<PreparedKernel> prepare_layer_normalization(const KernelContext& context) {
  return prepare_as_standard(context, "LayerNormalization", 17);
}
Result<PreparedKernel> prepare_hard_swish(const KernelContext& context) {
  return prepare_as_standard(context, "HardSwish", 14);
}

}  // namespace

void add_fused_kernels(std::vector<OpKernel>& table) {
  table.push_back({"ge::FusedConv", data_types(FloatingTypes{}), &prepare_fused_conv});
  table.push_back({"ge::FusedConvTranspose", data_types(FloatingTypes{}), &prepare_fused_conv_transpose});
  table.push_back({"ge::FusedGemm", data_types(FloatingTypes{}), &prepare_fused_gemm});
  table.push_back({"ge::FusedMatMul", data_types(FloatingTypes{}), &prepare_fused_matmul});
  table.push_back({"ge::Gelu", data_types(FloatingTypes{}), &prepare_gelu});
  table.push_back(
      {"ge::LayerNormalization", standard_kernel("LayerNormalization").dtypes, &prepare_layer_normalization});
  table.push_back({"ge::HardSwish", standard_kernel("HardSwish").dtypes, &prepare_hard_swish});
}

}  // namespace ge::reference_kernels
