#include "dnnl_kernels.h"

#include "dnnl_openmp.h"

#include <algorithm>
#include <exception>
#include <set>

#include "dnnl_fast_paths.h"
#include "dnnl_util.h"
#include "winograd_conv.h"

#include "ge/graph_queries.h"
#include "ge/reference_kernels/kernel_library.h"

namespace ge::cpu_dnnl {
namespace {

bool is_conv(const Node& node) {
  return (is_onnx_domain(node) && node.op_type() == "Conv") || (node.domain() == "ge" && node.op_type() == "FusedConv");
}

bool is_deconv(const Node& node) {
  return (is_onnx_domain(node) && node.op_type() == "ConvTranspose") ||
         (node.domain() == "ge" && node.op_type() == "FusedConvTranspose");
}

// True when some input or output of `node` has no elements. oneDNN divides by dims when
// it creates primitives (a K = 0 matmul is SIGFPE in dnnl_primitive_desc_iterator_create)
// and its kernels want non-null addresses, while an empty tensor is legal and has none:
// the reference kernels run these nodes, for every fast path (and Winograd) at once.
bool has_empty_value(const Node& node) {
  auto empty = [](const Value* value) {
    if (value == nullptr || value->desc().kind != ValueKind::kTensor || !value->desc().is_static()) return false;
    return value->desc().element_count() == 0;
  };
  return std::any_of(node.inputs().begin(), node.inputs().end(), empty) ||
         std::any_of(node.outputs().begin(), node.outputs().end(), empty);
}

bool is_pool(const Node& node) {
  const std::string& op = node.op_type();
  return is_onnx_domain(node) &&
         (op == "MaxPool" || op == "AveragePool" || op == "GlobalAveragePool" || op == "GlobalMaxPool");
}

}  // namespace

int64_t native_block() {
  static const int64_t block = [] {
    const dnnl::cpu_isa isa = dnnl::get_effective_cpu_isa();
    return isa == dnnl::cpu_isa::avx512_core || isa == dnnl::cpu_isa::avx512_core_vnni ||
                   isa == dnnl::cpu_isa::avx512_core_bf16 || isa == dnnl::cpu_isa::avx512_core_amx
               ? int64_t{16}
               : int64_t{8};
  }();
  return block;
}

namespace {

// {"nChw16c"} when a 4-D float32, float16 or bfloat16 `value` has a multiple of the
// native block of channels and more than one spatial position. (TransData moves 16-bit
// elements as it moves 32-bit ones; the fast paths convert float16 as stored.)
std::vector<std::string> blocked_formats(const Value* value) {
  if (!is_float(value) || !value->desc().is_static() || value->desc().rank() != 4) return {};
  if (value->desc().element_count() == 0) return {};  // no fast path takes an empty tensor
  const std::vector<int64_t> dims = value->desc().static_dims();
  const int64_t channels = dims[1];
  if (dims[2] * dims[3] == 1) return {};  // [N, C, 1, 1] is stored alike in both
  const int64_t block = native_block();
  if (channels % block != 0) return {};
  return {"nChw" + std::to_string(block) + "c"};
}

// oneDNN sizes a primitive's parallel decomposition from omp_get_max_threads() when it
// is created and then asks for exactly that many threads at every launch: create it
// under the kernel's own thread count.
class ScopedOpenMpThreads {
 public:
  explicit ScopedOpenMpThreads(int threads) : saved_(omp_get_max_threads()) { omp_set_num_threads(threads); }
  ~ScopedOpenMpThreads() { omp_set_num_threads(saved_); }
  ScopedOpenMpThreads(const ScopedOpenMpThreads&) = delete;
  ScopedOpenMpThreads& operator=(const ScopedOpenMpThreads&) = delete;

 private:
  int saved_;
};

}  // namespace

// Floating-point operations of one launch, roughly: multiply-adds of convolutions and
// GEMMs, output elements otherwise.
double estimated_work(const Node& node) {
  if (std::optional<double> work = int8_work(node)) return *work;
  const Value* y = node.output(0);
  if (y == nullptr || !y->desc().is_static()) return 0;
  const double outputs = static_cast<double>(y->desc().element_count());
  const Value* w = node.input_count() > 1 ? node.input(1) : nullptr;
  if ((is_conv(node) || is_deconv(node)) && w != nullptr && w->desc().is_static()) {
    const std::vector<int64_t> dims = w->desc().static_dims();
    double per_output = 1;  // W [M, C/g, k...]: C/g * k... taps per output of Conv
    for (size_t i = 1; i < dims.size(); ++i) per_output *= static_cast<double>(dims[i]);
    return 2 * outputs * per_output;
  }
  if ((node.op_type() == "MatMul" || node.op_type() == "FusedMatMul" || node.op_type() == "Gemm" ||
       node.op_type() == "FusedGemm") && node.input(0) != nullptr && node.input(0)->desc().is_static()) {
    const std::vector<int64_t> a = node.input(0)->desc().static_dims();
    const bool trans_a = node.get_int("transA", 0) != 0;
    const int64_t k = a.empty() ? 1 : (trans_a && a.size() == 2 ? a[0] : a.back());
    return 2 * outputs * static_cast<double>(k);
  }
  return outputs;
}

// Below this much work a launch stays on the calling thread: an OpenMP fork/join costs
// about a microsecond, more than a second thread saves on a small kernel.
constexpr double kParallelWork = 2e6;

// Below this much work a transient plan's node whose inputs are all computed (nothing to
// prepack) runs on the reference kernel: creating a oneDNN primitive costs 30-100
// microseconds, about what the reference kernel needs for 2 MFLOP (a decode step's
// attention products and softmaxes are far below, and are new shapes at every step).
constexpr double kTransientWork = 2e6;

// Whether a transient plan's `node` runs fast enough on its reference kernel: below
// kTransientWork for products and single-pass element-wise ops; for ops that compute an
// exponential or a square root per element, up to 4096 elements (their reference loops
// take about 20 ns an element: BERT's Softmax over [1,12,200,200] took 9 ms there, 0.4
// ms on oneDNN's); never for convolutions, pools and other spatial ops, whose reference
// loops run 10-50x slower per operation (ResNet-18's stem MaxPool at 160x192: 5.3 ms
// on the reference kernel, 0.13 ms jit).
bool reference_suffices_when_transient(const Node& node) {
  if (is_conv(node) || is_deconv(node) || is_pool(node)) return false;
  if (!is_onnx_domain(node) && node.domain() != "ge") return false;
  static const std::set<std::string, std::less<>> kSpatial{
      "Resize", "LRN", "InstanceNormalization", "BatchNormalization", "RoiAlign", "GridSample"};
  if (kSpatial.contains(node.op_type())) return false;
  static const std::set<std::string, std::less<>> kPerElementMath{"Softmax", "LogSoftmax", "LayerNormalization"};
  if (kPerElementMath.contains(node.op_type())) {
    const Value* y = node.output(0);
    return y != nullptr && y->desc().is_static() && y->desc().element_count() <= 4096;
  }
  return estimated_work(node) < kTransientWork;
}

bool reads_a_constant(const Node& node) {
  return std::any_of(node.inputs().begin(), node.inputs().end(),
                     [](const Value* in) { return in != nullptr && in->constant() != nullptr; });
}

std::optional<PreparedKernel> prepare(const Node& node, std::string_view backend_name, const Options& requested) {
  if (has_empty_value(node)) return std::nullopt;
  if (requested.transient && !reads_a_constant(node) && reference_suffices_when_transient(node) &&
      !reference_kernels::has_non_plain_format(node)) {
    return std::nullopt;
  }
  Options options = requested;
  if (estimated_work(node) < kParallelWork) options.threads = 1;
  const ScopedOpenMpThreads threads(std::max(1, options.threads));
  try {
    if (is_conv(node)) {
      // The AVX2 Winograd is float32 arithmetic: not for the precision mode's bf16 nodes;
      // nor for a transient plan (its filter transform is made per kernel).
      if (options.winograd && !options.transient && !computes_in_bf16(node, options)) {
        if (std::optional<PreparedKernel> kernel = cpu_winograd::prepare_conv(node, backend_name, options.threads)) {
          return kernel;
        }
      }
      return prepare_conv(node, backend_name, options);
    }
    if (is_pool(node)) return prepare_pool(node, backend_name, options);
    if (std::optional<PreparedKernel> kernel = prepare_int8(node, backend_name, options)) return kernel;
    if ((is_onnx_domain(node) && node.op_type() == "MatMul") ||
        (node.domain() == "ge" && node.op_type() == "FusedMatMul")) {
      return prepare_matmul(node, backend_name, options);
    }
    if ((is_onnx_domain(node) && node.op_type() == "Gemm") ||
        (node.domain() == "ge" && node.op_type() == "FusedGemm")) {
      return prepare_gemm(node, backend_name, options);
    }
    if (is_deconv(node)) return prepare_deconv(node, backend_name, options);
    if (is_onnx_domain(node) && node.op_type() == "Resize") return prepare_resample(node, backend_name, options);
    if (is_onnx_domain(node) && node.op_type() == "Softmax") return prepare_softmax(node, backend_name, options);
    if ((is_onnx_domain(node) || node.domain() == "ge") && node.op_type() == "LayerNormalization") {
      return prepare_layer_norm(node, backend_name, options);
    }
    if (is_onnx_domain(node) && node.op_type() == "Concat") return prepare_concat(node, backend_name, options);
    if (std::optional<PreparedKernel> kernel = prepare_binary(node, backend_name, options)) return kernel;
    if (std::optional<PreparedKernel> kernel = prepare_eltwise(node, backend_name, options)) return kernel;
    if (std::optional<PreparedKernel> kernel = prepare_roi_split(node, backend_name, options)) return kernel;
    // Memory-bound: it splits from far less work than kParallelWork.
    if (std::optional<PreparedKernel> kernel = prepare_split(node, backend_name, requested)) return kernel;
  } catch (const std::exception&) {
    // Anything oneDNN or the allocator throws: the reference kernel runs the node.
  }
  return std::nullopt;
}

FormatCapability format_capability(const Node& node, const Options& options) {
  FormatCapability capability;
  if (has_empty_value(node)) return capability;
  if (int8_conv_takes_channels_last(node, options)) {
    capability.inputs.resize(node.input_count());
    capability.inputs[0] = {"nhwc"};
    capability.outputs = {{"nhwc"}};
  } else if (is_conv(node)) {
    if (node.input_count() < 2 || node.input(1) == nullptr || node.input(1)->constant() == nullptr) return capability;
    capability.inputs.resize(node.input_count());
    capability.inputs[0] = blocked_formats(node.input(0));
    capability.outputs = {blocked_formats(node.output(0))};
    if (node.input_count() > 3 && node.domain() == "ge") capability.inputs[3] = capability.outputs[0];
  } else if (is_deconv(node)) {
    if (node.input_count() < 2 || node.input(1) == nullptr || node.input(1)->constant() == nullptr) return capability;
    if (node.has_attribute("output_shape")) return capability;
    capability.inputs.resize(node.input_count());
    capability.inputs[0] = blocked_formats(node.input(0));
    capability.outputs = {blocked_formats(node.output(0))};
  } else if (is_onnx_domain(node) && node.op_type() == "Resize") {
    if (!resample_applies(node)) return capability;
    capability.inputs.resize(node.input_count());
    capability.inputs[0] = blocked_formats(node.input(0));
    capability.outputs = {blocked_formats(node.output(0))};
  } else if (is_onnx_domain(node) && node.op_type() == "Concat") {
    // Blocked when every input is: a branch that cannot be keeps the Concat plain.
    for (const Value* x : node.inputs()) {
      capability.inputs.push_back(blocked_formats(x));
      if (capability.inputs.back().empty()) return {};
    }
    capability.outputs = {blocked_formats(node.output(0))};
  } else if (std::optional<ChannelBinary> binary = channel_binary(node)) {
    capability.inputs.resize(2);
    capability.inputs[binary->full] = blocked_formats(node.input(binary->full));
    capability.outputs = {blocked_formats(node.output(0))};
  } else if (is_pool(node)) {
    capability.inputs = {blocked_formats(node.input(0))};
    capability.outputs = {blocked_formats(node.output(0))};
  }
  return capability;
}

}  // namespace ge::cpu_dnnl
