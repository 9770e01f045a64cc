#include "ge/reference_kernels/kernel_library.h"

#include <algorithm>
#include <string>
#include <vector>

#include "common/kernel_families.h"
#include "ge/graph_queries.h"
#include "ge/reference_kernels/kernel_util.h"
#include "ge/shape_arithmetic.h"

namespace ge::reference_kernels {
namespace {

constexpr int64_t kNewestOpset = 17;

const std::vector<OpKernel>& kernel_table() {
  // Built once, then only read: safe to share between threads.
  static const std::vector<OpKernel> table = [] {
    std::vector<OpKernel> entries;
    add_math_family_kernels(entries);
    add_nn_family_kernels(entries);
    add_pooling_family_kernels(entries);
    add_normalization_family_kernels(entries);
    add_quantization_family_kernels(entries);
    add_detection_family_kernels(entries);
    add_tensor_family_kernels(entries);
    add_recurrent_family_kernels(entries);
    add_training_family_kernels(entries);
    add_random_family_kernels(entries);
    add_signal_family_kernels(entries);
    add_text_family_kernels(entries);
    add_fused_family_kernels(entries);
    return entries;
  }();
  return table;
}

const OpKernel* find_kernel(const Node& node) {
  // Entries of other domains are keyed "domain::Op" (the "ge" domain's fused ops).
  const std::string key = is_onnx_domain(node.domain()) ? node.op_type() : node.domain() + "::" + node.op_type();
  for (const OpKernel& entry : kernel_table()) {
    if (entry.op_type == key) return &entry;
  }
  return nullptr;
}

int64_t onnx_opset(const Node& node) {
  const Graph* graph = node.graph();
  if (graph == nullptr) return 0;
  int64_t version = graph->opset_version("");
  if (version <= 0) version = graph->opset_version("ai.onnx");
  // A hand-built graph without an opset import gets the newest semantics we know.
  return version > 0 ? version : kNewestOpset;
}

// The dtype an op's kernel is selected by: input 0 for every op in the table.
DataType selecting_dtype(const Node& node) {
  // Ops without inputs (RandomUniform, RandomNormal) select by what they produce.
  const Value* value = node.input_count() == 0 && node.output_count() > 0 ? node.output(0) : node.input(0);
  return value != nullptr ? value->desc().dtype : DataType::kUndefined;
}

// The op/dtype check shared by supports() and prepare(); ok when a kernel exists.
Status check_supported(const Node& node, std::string_view backend_name) {
  KernelContext context{node, backend_name, onnx_opset(node)};
  const OpKernel* entry = find_kernel(node);
  DataType dtype = selecting_dtype(node);
  if (entry == nullptr) {
    return unsupported("backend '" + std::string(backend_name) + "' has no kernel for " + node.describe() +
                       " (domain '" + (node.domain().empty() ? std::string("ai.onnx") : node.domain()) + "', dtype " +
                       std::string(data_type_name(dtype)) + ")");
  }
  if (node.input_count() > 0 && node.input(0) == nullptr) {
    return invalid_node(context, "input 0 is missing");
  }
  if (!entry->dtypes.empty() && std::find(entry->dtypes.begin(), entry->dtypes.end(), dtype) == entry->dtypes.end()) {
    return unsupported_dtype(context, dtype, entry->dtypes);
  }
  auto check_kind = [&](const Value* value, const char* role, size_t index) -> Status {
    if (value == nullptr || value->desc().kind == ValueKind::kTensor) return Status::ok();
    return unsupported_feature(context, std::string(role) + " " + std::to_string(index) + " ('" + value->name() +
                                            "') is not a tensor: " + value->desc().to_string());
  };
  for (size_t i = 0; i < node.input_count(); ++i) GE_RETURN_IF_ERROR(check_kind(node.input(i), "input", i));
  for (size_t i = 0; i < node.output_count(); ++i) GE_RETURN_IF_ERROR(check_kind(node.output(i), "output", i));
  return Status::ok();
}

// Ops whose reference kernel computes each output element from the input elements at
// the same flat index (or a single broadcast element), whatever the storage order.
bool is_elementwise_op(const Node& node) {
  static const std::vector<std::string_view> kOps = {
      "Abs",  "Add",      "Ceil",     "Clip",        "Div",      "Elu",  "Erf",      "Exp",        "Floor",
      "HardSigmoid", "HardSwish", "Identity", "LeakyRelu", "Log", "Max", "Mean", "Min", "Mish",  "Mul",
      "Neg",  "Pow",      "Reciprocal", "Relu",      "Round",    "Selu", "Sigmoid",  "Softplus",   "Softsign",
      "Sqrt", "Sub",      "Sum",      "Tanh"};
  if (node.domain() == "ge") return node.op_type() == "Gelu" || node.op_type() == "HardSwish";
  if (!is_onnx_domain(node.domain())) return false;
  return std::find(kOps.begin(), kOps.end(), node.op_type()) != kOps.end();
}

// Non-plain formats: only elementwise kernels run them, with every full-shape operand in
// the output's format (the others single elements).
Status check_formats(const Node& node, std::string_view backend_name) {
  if (!has_non_plain_format(node)) return Status::ok();
  if (is_format_agnostic(node)) return Status::ok();
  if (node.domain() == "ge" && node.op_type() == "TransData") return Status::ok();  // reads its formats
  std::string formats;
  for (const Value* value : node.inputs()) {
    if (value != nullptr && !value->desc().is_plain()) formats += " input '" + value->name() + "' is " + value->desc().format + ";";
  }
  for (const Value* value : node.outputs()) {
    if (!value->desc().is_plain()) formats += " output '" + value->name() + "' is " + value->desc().format + ";";
  }
  return unsupported("backend '" + std::string(backend_name) + "': the reference kernel of " + node.describe() +
                     " runs plain (row-major) tensors only, but" + formats.substr(0, formats.size() - 1));
}

bool has_static_descs(const Node& node) {
  for (const Value* value : node.inputs()) {
    if (value != nullptr && !value->desc().is_static()) return false;
  }
  for (const Value* value : node.outputs()) {
    if (!value->name().empty() && !value->desc().is_static()) return false;
  }
  return true;
}

}  // namespace

const char* kernel_error_message(int code) {
  switch (code) {
    case kKernelOk:
      return "ok";
    case kKernelIntegerDivisionByZero:
      return "integer division by zero";
    case kKernelMissingAddress:
      return "a required input or output address is null";
    case kKernelLibraryFailure:
      return "oneDNN failed to execute the primitive";
    case kKernelCastUnparsableString:
      return "a string element is not a number of the target type";
    case kKernelIndexOutOfRange:
      return "an index input holds a value outside the axis or tensor it indexes";
    case kKernelRuntimeShapeMismatch:
      return "a run-time input contradicts the output shape the kernel was prepared for";
    case kKernelInvalidRuntimeArgument:
      return "a run-time input is invalid (a zero step, a repeated axis, ...)";
    case kKernelSequenceLengthOutOfRange:
      return "a sequence_lens entry is outside [0, seq_length]";
    case kKernelClassIndexOutOfRange:
      return "a class index (loss target) is outside [0, C) and not ignore_index";
    case kKernelRuntimeSizeMismatch:
      return "a size read from an input disagrees with the output shape";
    case kKernelInvalidRuntimeValue:
      return "a scalar input has a value the op forbids";
    default:
      return "unknown kernel error";
  }
}

namespace {
thread_local std::string last_error_detail;
}  // namespace

int kernel_error(int code, std::string detail) {
  last_error_detail = std::move(detail);
  return code;
}

std::string take_kernel_error_detail() {
  std::string detail = std::move(last_error_detail);
  last_error_detail.clear();
  return detail;
}

std::string describe_kernel_failure(int code) {
  std::string text = "failed with code " + std::to_string(code) + ": " + kernel_error_message(code);
  const std::string detail = take_kernel_error_detail();
  if (!detail.empty()) text += ": " + detail;
  return text;
}

bool supports(const Node& node, std::string_view backend_name, std::string* reason) {
  Status status = check_supported(node, backend_name);
  // With static descs the whole prepare step can run: it finds what the op/dtype check
  // cannot (a training-mode BatchNormalization, a 4-D Conv), so that supports() and
  // prepare() agree. Its other errors are the node's fault, not a missing kernel.
  if (status.is_ok() && has_static_descs(node)) {
    Result<PreparedKernel> kernel = prepare(node, backend_name);
    if (!kernel.is_ok() && kernel.status().code() == StatusCode::kUnsupported) status = kernel.status();
  }
  if (!status.is_ok() && reason != nullptr) *reason = status.message();
  return status.is_ok();
}

bool has_non_plain_format(const Node& node) {
  for (const Value* value : node.inputs()) {
    if (value != nullptr && !value->desc().is_plain()) return true;
  }
  for (const Value* value : node.outputs()) {
    if (!value->desc().is_plain()) return true;
  }
  return false;
}

// Quantising ops that convert element by element with one scale and zero point (a
// per-axis or blocked scale has more than one element, which is_format_agnostic refuses).
bool converts_elementwise(const Node& node) {
  if (is_onnx_domain(node.domain())) return node.op_type() == "QuantizeLinear" || node.op_type() == "DequantizeLinear";
  return node.domain() == "ge" && node.op_type() == "QLinearAdd";
}

bool is_format_agnostic(const Node& node) {
  const bool converts = converts_elementwise(node);
  if ((!converts && !is_elementwise_op(node)) || node.output_count() != 1) return false;
  const TensorDesc& out = node.output(0)->desc();
  if (!out.is_static()) return false;
  for (const Value* value : node.inputs()) {
    if (value == nullptr) continue;
    const TensorDesc& in = value->desc();
    if (!in.is_static()) return false;
    if (in.element_count() == 1 && in.is_plain()) continue;
    if (in.shape != out.shape || in.format != out.format || (in.dtype != out.dtype && !converts)) return false;
  }
  return true;
}

Result<PreparedKernel> prepare(const Node& node, std::string_view backend_name) {
  GE_RETURN_IF_ERROR(check_supported(node, backend_name));
  GE_RETURN_IF_ERROR(check_formats(node, backend_name));
  KernelContext context{node, backend_name, onnx_opset(node)};
  // Static descs are the kernel ABI's precondition; check them once for every op. Their
  // byte sizes must not overflow: every kernel multiplies dims (product()) unchecked.
  auto check_size = [&](const Value* value, const std::string& role, size_t index) -> Status {
    Result<size_t> bytes = checked_byte_size(value->desc().dtype, value->desc().static_dims());
    if (bytes.is_ok()) return Status::ok();
    return invalid_node(context, role + " " + std::to_string(index) + " '" + value->name() + "': " +
                                     bytes.status().message());
  };
  for (size_t i = 0; i < node.input_count(); ++i) {
    if (node.input(i) == nullptr) continue;
    GE_RETURN_IF_ERROR(input_dims(context, i).status());
    GE_RETURN_IF_ERROR(check_size(node.input(i), "input", i));
  }
  for (size_t i = 0; i < node.output_count(); ++i) {
    if (!has_output(context, i)) continue;
    GE_RETURN_IF_ERROR(output_dims(context, i).status());
    GE_RETURN_IF_ERROR(check_size(node.output(i), "output", i));
  }
  return find_kernel(node)->prepare(context);
}

std::vector<std::string> supported_op_types() {
  std::vector<std::string> names;
  for (const OpKernel& entry : kernel_table()) names.emplace_back(entry.op_type);
  std::sort(names.begin(), names.end());
  return names;
}

}  // namespace ge::reference_kernels
