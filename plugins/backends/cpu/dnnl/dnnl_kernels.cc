#include "dnnl_kernels.h"

#include <exception>

#include "dnnl_fast_paths.h"
#include "dnnl_util.h"

namespace ge::cpu_dnnl {
namespace {

bool is_onnx(const Node& node) { return node.domain().empty() || node.domain() == "ai.onnx"; }

bool is_conv(const Node& node) {
  return (is_onnx(node) && node.op_type() == "Conv") || (node.domain() == "ge" && node.op_type() == "FusedConv");
}

bool is_pool(const Node& node) {
  const std::string& op = node.op_type();
  return is_onnx(node) && (op == "MaxPool" || op == "AveragePool" || op == "GlobalAveragePool" || op == "GlobalMaxPool");
}

// The channel block oneDNN's fastest convolutions use on this CPU.
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

// {"nChw16c"} when a 4-D float32 `value` has a multiple of the native block of channels
// and more than one spatial position.
std::vector<std::string> blocked_formats(const Value* value) {
  if (!is_float32(value) || !value->desc().is_static() || value->desc().rank() != 4) return {};
  const std::vector<int64_t> dims = value->desc().static_dims();
  const int64_t channels = dims[1];
  if (dims[2] * dims[3] == 1) return {};  // [N, C, 1, 1] is stored alike in both
  const int64_t block = native_block();
  if (channels % block != 0) return {};
  return {"nChw" + std::to_string(block) + "c"};
}

}  // namespace

std::optional<PreparedKernel> prepare(const Node& node, std::string_view backend_name, const Options& options) {
  try {
    if (is_conv(node)) return prepare_conv(node, backend_name, options);
    if (is_pool(node)) return prepare_pool(node, backend_name, options);
    if ((is_onnx(node) && node.op_type() == "MatMul") || (node.domain() == "ge" && node.op_type() == "FusedMatMul")) {
      return prepare_matmul(node, backend_name, options);
    }
    if ((is_onnx(node) && node.op_type() == "Gemm") || (node.domain() == "ge" && node.op_type() == "FusedGemm")) {
      return prepare_gemm(node, backend_name, options);
    }
    if (is_onnx(node) && node.op_type() == "ConvTranspose") return prepare_deconv(node, backend_name, options);
    if (is_onnx(node) && node.op_type() == "Resize") return prepare_resample(node, backend_name, options);
    if (is_onnx(node) && node.op_type() == "Softmax") return prepare_softmax(node, backend_name, options);
    if (node.domain() == "ge" && node.op_type() == "Gelu") return prepare_gelu(node, backend_name, options);
  } catch (const std::exception&) {
    // Anything oneDNN or the allocator throws: the reference kernel runs the node.
  }
  return std::nullopt;
}

FormatCapability format_capability(const Node& node) {
  FormatCapability capability;
  if (is_conv(node)) {
    if (node.input_count() < 2 || node.input(1) == nullptr || node.input(1)->constant() == nullptr) return capability;
    capability.inputs.resize(node.input_count());
    capability.inputs[0] = blocked_formats(node.input(0));
    capability.outputs = {blocked_formats(node.output(0))};
    if (node.input_count() > 3 && node.domain() == "ge") capability.inputs[3] = capability.outputs[0];
  } else if (is_onnx(node) && node.op_type() == "ConvTranspose") {
    if (node.input_count() < 2 || node.input(1) == nullptr || node.input(1)->constant() == nullptr) return capability;
    if (node.has_attribute("output_shape")) return capability;
    capability.inputs.resize(node.input_count());
    capability.inputs[0] = blocked_formats(node.input(0));
    capability.outputs = {blocked_formats(node.output(0))};
  } else if (is_onnx(node) && node.op_type() == "Resize") {
    if (!resample_applies(node)) return capability;
    capability.inputs.resize(node.input_count());
    capability.inputs[0] = blocked_formats(node.input(0));
    capability.outputs = {blocked_formats(node.output(0))};
  } else if (is_pool(node)) {
    capability.inputs = {blocked_formats(node.input(0))};
    capability.outputs = {blocked_formats(node.output(0))};
  }
  return capability;
}

}  // namespace ge::cpu_dnnl
