#include "dnnl_util.h"

#include <cmath>
#include <limits>

#include "ge/graph_queries.h"
#include "ge/reference_kernels/kernel_library.h"

namespace ge::cpu_dnnl {

Dims dims_of(const Value& value) { return value.desc().static_dims(); }

Tag plain_tag(size_t rank) {
  switch (rank) {
    case 1: return Tag::a;
    case 2: return Tag::ab;
    case 3: return Tag::abc;
    case 4: return Tag::abcd;
    case 5: return Tag::abcde;
    case 6: return Tag::abcdef;
    default: return Tag::undef;
  }
}

std::optional<dnnl::memory::desc> stored_desc(const Value& value) {
  const DnnlType type = storage_type(&value);
  if (type == DnnlType::undef) return std::nullopt;
  return stored_desc(dims_of(value), value.desc().format, type);
}

std::optional<dnnl::memory::desc> stored_desc(const Dims& dims, const std::string& format, DnnlType type) {
  Tag tag = plain_tag(dims.size());
  if (reference_kernels::is_channels_last_format(format, dims.size())) {
    tag = Tag::nhwc;
  } else if (!format.empty()) {
    const int64_t block = reference_kernels::channel_block_of_format(format, dims.size());
    if (dims.size() == 4 && block == 16) tag = Tag::nChw16c;
    else if (dims.size() == 4 && block == 8) tag = Tag::nChw8c;
    else if (dims.size() == 3 && block == 16) tag = Tag::nCw16c;
    else if (dims.size() == 5 && block == 16) tag = Tag::nCdhw16c;
    else return std::nullopt;
  }
  if (tag == Tag::undef) return std::nullopt;
  return dnnl::memory::desc(dims, type, tag);
}

bool is_jit(const char* implementation) {
  const std::string_view name = implementation != nullptr ? implementation : "";
  // brg*: batch-reduce GEMM kernels; brdgmm: their depthwise (diagonal) form.
  return name.starts_with("jit") || name.starts_with("brg") || name.starts_with("brdgmm");
}

bool is_float32(const Value* value) { return value != nullptr && value->desc().dtype == DataType::kFloat32; }

bool is_float(const Value* value) { return storage_type(value) != DnnlType::undef; }

DnnlType storage_type(const Value* value) {
  if (value == nullptr) return DnnlType::undef;
  switch (value->desc().dtype) {
    case DataType::kFloat32: return DnnlType::f32;
    case DataType::kFloat16: return DnnlType::f16;
    case DataType::kBFloat16: return DnnlType::bf16;
    default: return DnnlType::undef;
  }
}

DnnlType compute_type(DnnlType storage) { return converted_half(storage) ? DnnlType::f32 : storage; }

bool native_bf16() {
  // The ISA values are feature masks (avx2_vnni's is numerically above avx512_core_bf16's).
  static const bool native = [] {
    try {
      const auto isa = static_cast<unsigned>(dnnl::get_effective_cpu_isa());
      const auto bf16 = static_cast<unsigned>(dnnl::cpu_isa::avx512_core_bf16);
      return (isa & bf16) == bf16;
    } catch (const dnnl::error&) {
      return false;
    }
  }();
  return native;
}

bool converted_half(DnnlType type) { return type == DnnlType::f16 || (type == DnnlType::bf16 && !native_bf16()); }

dnnl::memory::desc with_type(const dnnl::memory::desc& desc, DnnlType type) {
  dnnl_memory_desc_t data = desc.data;
  data.data_type = static_cast<dnnl_data_type_t>(type);
  return dnnl::memory::desc(data);
}

bool computes_in_bf16(const Node& node, const Options& options) {
  if (options.precision == Precision::kFp32) return false;
  const std::string& op = node.op_type();
  const bool onnx = is_onnx_domain(node), ge = node.domain() == "ge";
  const bool matmul = (onnx && op == "MatMul") || (ge && op == "FusedMatMul");
  const bool heavy = matmul || (onnx && (op == "Conv" || op == "ConvTranspose" || op == "Gemm")) ||
                     (ge && (op == "FusedConv" || op == "FusedConvTranspose" || op == "FusedGemm"));
  if (!heavy || node.input_count() < 2 || !is_float32(node.input(0)) || !is_float32(node.input(1)) ||
      !is_float32(node.output(0))) {
    return false;
  }
  if (options.precision == Precision::kBf16) return true;
  // kMixed
  if (matmul && node.input(1)->constant() == nullptr && node.input(0)->constant() == nullptr) return false;
  for (const Value* output : node.outputs()) {
    if (output != nullptr && node.graph() != nullptr && node.graph()->is_output(output)) return false;
  }
  // The model's inputs: the first layer reads them as given (through a layout reorder).
  const Value* x = node.input(0);
  while (x->producer() != nullptr && x->producer()->domain() == "ge" && x->producer()->op_type() == "TransData") {
    x = x->producer()->input(0);
  }
  return !x->is_graph_input();
}

const char* precision_suffix(DnnlType storage, bool bf16_arithmetic) {
  if (bf16_arithmetic || storage == DnnlType::bf16) return ".bf16";
  if (storage == DnnlType::f16) return ".f16";
  return "";
}

dnnl::primitive_attr kernel_attributes(const dnnl::post_ops& ops) {
  dnnl::primitive_attr attr;
  attr.set_post_ops(ops);
  attr.set_scratchpad_mode(dnnl::scratchpad_mode::user);
  return attr;
}

bool append_activation(const Node& node, dnnl::post_ops& ops) {
  using Alg = dnnl::algorithm;
  const std::string name = node.get_string("activation", "");
  const std::vector<float> p = node.get_floats("activation_params");
  auto param = [&](size_t i, float fallback) { return i < p.size() ? p[i] : fallback; };
  if (name.empty()) return true;
  if (name == "Relu") {
    ops.append_eltwise(1.f, Alg::eltwise_relu, 0.f, 0.f);
  } else if (name == "LeakyRelu") {
    ops.append_eltwise(1.f, Alg::eltwise_relu, param(0, 0.01f), 0.f);
  } else if (name == "Sigmoid") {
    ops.append_eltwise(1.f, Alg::eltwise_logistic, 0.f, 0.f);
  } else if (name == "Tanh") {
    ops.append_eltwise(1.f, Alg::eltwise_tanh, 0.f, 0.f);
  } else if (name == "HardSwish") {
    ops.append_eltwise(1.f, Alg::eltwise_hardswish, 0.f, 0.f);
  } else if (name == "Swish") {
    ops.append_eltwise(1.f, Alg::eltwise_swish, 1.f, 0.f);  // y * Sigmoid(1 * y)
  } else if (name == "HardSigmoid") {
    ops.append_eltwise(1.f, Alg::eltwise_linear, param(0, 0.2f), param(1, 0.5f));
    ops.append_eltwise(1.f, Alg::eltwise_clip, 0.f, 1.f);
  } else if (name == "Gelu") {
    ops.append_eltwise(1.f, param(0, 0.f) != 0 ? Alg::eltwise_gelu_tanh : Alg::eltwise_gelu_erf, 0.f, 0.f);
  } else if (name == "Clip") {
    const float low = param(0, -std::numeric_limits<float>::infinity());
    const float high = param(1, std::numeric_limits<float>::infinity());
    if (std::isnan(low) || std::isnan(high)) return false;
    ops.append_eltwise(1.f, Alg::eltwise_clip_v2, low, high);
  } else {
    return false;
  }
  return true;
}

std::string fast_kernel_name(std::string_view backend, const Node& node, const char* implementation) {
  std::string op = is_onnx_domain(node) ? node.op_type() : node.domain() + "::" + node.op_type();
  return std::string(backend) + "." + op + ".dnnl:" + (implementation != nullptr ? implementation : "?");
}

}  // namespace ge::cpu_dnnl
