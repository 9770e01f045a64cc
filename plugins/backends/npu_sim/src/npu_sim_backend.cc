#include "npu_sim_backend.h"

#include <algorithm>
#include <exception>
#include <memory>
#include <new>

#include "ge/autofuse/loop_ir.h"
#include "ge/logging.h"
#include "ge/reference_kernels/kernel_library.h"

namespace ge {
namespace {

size_t static_bytes(const Value* value, size_t* elements) {
  if (value == nullptr || !value->desc().is_static()) return 0;
  const auto count = static_cast<size_t>(element_count(value->desc().static_dims()));
  *elements += count;
  return count * element_size(value->desc().dtype);
}

}  // namespace

NpuSimDevice& NpuSimBackend::sim_device() {
  std::lock_guard<std::mutex> lock(mutex_);
  if (device_ == nullptr) {
    device_ = std::make_unique<NpuSimDevice>(config_);
    GE_LOG_INFO("npu_sim: simulated device created ({} bytes of device memory, queue depth {})",
                config_.capacity_bytes, config_.queue_depth);
  }
  return *device_;
}

bool NpuSimBackend::device_created() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return device_ != nullptr;
}

bool NpuSimBackend::supports(const Node& node, std::string* reason) const {
  try {
    return reference_kernels::supports(node, name(), reason);
  } catch (const std::exception& error) {
    if (reason != nullptr) *reason = node.describe() + ": npu_sim backend: " + error.what();
    return false;
  }
}

Result<PreparedKernel> NpuSimBackend::prepare_super_kernel(std::span<const KernelTask> tasks) const {
  for (const KernelTask& task : tasks) {
    if (task.function != &npu_sim_kernel_entry || task.args.params == nullptr) {
      return invalid_argument(std::string("npu_sim super kernel: kernel '") + (task.name != nullptr ? task.name : "") +
                              "' was not prepared by the npu_sim backend");
    }
  }
  try {
    auto params = std::make_shared<NpuSimKernelParams>();
    params->span.assign(tasks.begin(), tasks.end());
    PreparedKernel kernel;
    kernel.function = &npu_sim_kernel_entry;
    kernel.params = std::move(params);
    kernel.name = "npu_sim.SuperKernel";
    return kernel;
  } catch (const std::bad_alloc&) {
    return internal_error("npu_sim backend ran out of memory preparing a super kernel");
  }
}

Result<PreparedKernel> NpuSimBackend::prepare(const Node& node) const {
  try {
    GE_ASSIGN_OR_RETURN(PreparedKernel inner, reference_kernels::prepare(node, name()));
    auto params = std::make_shared<NpuSimKernelParams>();
    params->inner = inner.function;
    params->inner_params = inner.params;
    params->workspace_bytes = inner.workspace_bytes;
    const std::string& op = node.op_type();
    params->matrix = op == "Conv" || op == "ConvTranspose" || op == "Gemm" || op == "MatMul";
    for (const Value* in : node.inputs()) params->input_bytes.push_back(static_bytes(in, &params->elements));
    for (const Value* out : node.outputs()) params->output_bytes.push_back(static_bytes(out, &params->elements));
    if (node.domain() == "ge_autofuse") {
      // A fused group moves only its inputs and outputs, but its vector unit computes every
      // instruction over the whole iteration space.
      if (Result<autofuse::Program> program = autofuse::parse(node.get_string("program", "")); program.is_ok()) {
        size_t operations = 0;
        for (const autofuse::Instruction& in : program->code) operations += autofuse::arity(in.op) > 0 ? 1 : 0;
        const size_t iteration = static_cast<size_t>(autofuse::row_count(*program) * autofuse::row_length(*program));
        params->elements = std::max(params->elements, iteration * operations);
      }
    }
    PreparedKernel kernel;
    kernel.function = &npu_sim_kernel_entry;
    kernel.params = std::move(params);
    kernel.workspace_bytes = inner.workspace_bytes;
    kernel.zeroed = inner.zeroed;  // the inner kernel runs on the same addresses
    kernel.name = std::move(inner.name);
    return kernel;
  } catch (const std::bad_alloc&) {
    return internal_error(node.describe() + ": npu_sim backend ran out of memory preparing the kernel");
  } catch (const std::exception& error) {
    return internal_error(node.describe() + ": npu_sim backend failed to prepare the kernel: " + error.what());
  }
}

Result<NpuSimConfig> NpuSimConfig::from_options(const PluginOptions& options) {
  NpuSimConfig config;
  GE_RETURN_IF_ERROR(options.check_known_keys(
      "npu_sim", {"capacity_mib", "queue_depth", "launch_ns", "bandwidth_gbps", "vector_gelems", "matrix_gelems"}));
  const int64_t capacity_mib = options.get_int("capacity_mib", static_cast<int64_t>(config.capacity_bytes >> 20));
  const int64_t depth = options.get_int("queue_depth", static_cast<int64_t>(config.queue_depth));
  if (capacity_mib <= 0 || capacity_mib > (int64_t{1} << 20)) {
    return invalid_argument("npu_sim: option capacity_mib must be in 1..1048576, got " + std::to_string(capacity_mib));
  }
  if (depth <= 0) return invalid_argument("npu_sim: option queue_depth must be positive, got " + std::to_string(depth));
  config.capacity_bytes = static_cast<size_t>(capacity_mib) << 20;
  config.queue_depth = static_cast<size_t>(depth);
  struct Rate { const char* key; double* field; };
  for (Rate rate : {Rate{"launch_ns", &config.launch_ns}, Rate{"bandwidth_gbps", &config.bandwidth_bytes_per_ns},
                    Rate{"vector_gelems", &config.vector_elements_per_ns}, Rate{"matrix_gelems", &config.matrix_elements_per_ns}}) {
    *rate.field = options.get_double(rate.key, *rate.field);
    const bool may_be_zero = std::string(rate.key) == "launch_ns";
    if (!(*rate.field > 0) && !(may_be_zero && *rate.field == 0)) {
      return invalid_argument(std::string("npu_sim: option ") + rate.key + " must be positive, got " + std::to_string(*rate.field));
    }
  }
  return config;
}

}  // namespace ge
