#include "cpu_backend.h"

#include <algorithm>
#include <exception>
#include <new>
#include <thread>

#include "autofuse_kernels.h"
#include "dnnl_kernels.h"
#include "dnnl_util.h"
#include "ge/cpu_kernels/kernel_library.h"

namespace ge {
namespace {

/// A super kernel's parameter block: the launches it makes, in order.
struct SuperKernelSpan {
  std::vector<KernelTask> tasks;
};

int run_super_kernel(const KernelArgs& args) {
  for (const KernelTask& task : static_cast<const SuperKernelSpan*>(args.params)->tasks) {
    if (const int code = task.function(task.args); code != 0) return code;
  }
  return 0;
}

// Every non-plain input and output format of `node` is one `capability` lists.
bool formats_accepted(const Node& node, const FormatCapability& capability) {
  auto listed = [](const std::vector<std::vector<std::string>>& lists, size_t i, const Value* value) {
    if (value == nullptr || value->desc().is_plain()) return true;
    return i < lists.size() && std::find(lists[i].begin(), lists[i].end(), value->desc().format) != lists[i].end();
  };
  for (size_t i = 0; i < node.input_count(); ++i) {
    if (!listed(capability.inputs, i, node.input(i))) return false;
  }
  for (size_t i = 0; i < node.output_count(); ++i) {
    if (!listed(capability.outputs, i, node.output(i))) return false;
  }
  return true;
}

}  // namespace

int CpuBackend::default_threads() {
  const unsigned cores = std::thread::hardware_concurrency();
  return cores == 0 ? 1 : static_cast<int>(cores);
}

Result<PreparedKernel> CpuBackend::prepare_super_kernel(std::span<const KernelTask> tasks) const {
  try {
    auto span = std::make_shared<SuperKernelSpan>();
    span->tasks.assign(tasks.begin(), tasks.end());
    PreparedKernel kernel;
    kernel.function = &run_super_kernel;
    kernel.params = std::move(span);
    kernel.name = "cpu.SuperKernel";
    return kernel;
  } catch (const std::bad_alloc&) {
    return internal_error("cpu backend ran out of memory preparing a super kernel");
  }
}

Status CpuBackend::set_intra_op_threads(int threads) {
  if (threads < 0) return invalid_argument("cpu backend: intra-op threads must be >= 0, got " + std::to_string(threads));
  intra_op_threads_ = threads == 0 ? default_threads() : threads;
  return Status::ok();
}

bool CpuBackend::has_bfloat16_arithmetic() { return cpu_dnnl::native_bf16(); }

Status CpuBackend::set_precision(Precision precision) {
  if (precision != Precision::kFp32 && !has_bfloat16_arithmetic()) {
    return unsupported("backend cpu: this CPU has no bfloat16 arithmetic (oneDNN dispatches below avx512_core_bf16)");
  }
  precision_ = precision;
  return Status::ok();
}

bool CpuBackend::supports(const Node& node, std::string* reason) const {
  try {
    // A node in a blocked format has no reference kernel: the fast path must take it.
    // Its capability answers without preparing (which would create primitives and
    // prepack weights only to throw them away).
    if (fast_paths_ && cpu_kernels::has_non_plain_format(node) && !cpu_kernels::is_format_agnostic(node)) {
      if (formats_accepted(node, cpu_dnnl::format_capability(node))) return true;
      // A format the capability does not prefer (another CPU's block) may still be one the
      // fast path reorders: only preparing tells.
      if (cpu_dnnl::prepare(node, name(), fast_options())) return true;
    }
    return cpu_kernels::supports(node, name(), reason);
  } catch (const std::exception& error) {
    if (reason != nullptr) *reason = node.describe() + ": cpu backend: " + error.what();
    return false;
  }
}

Result<PreparedKernel> CpuBackend::prepare(const Node& node) const {
  // No exception may leave the plugin; the library only throws std::bad_alloc.
  try {
    if (fast_paths_ && cpu_kernels::has_non_plain_format(node) && !cpu_kernels::is_format_agnostic(node)) {
      if (std::optional<PreparedKernel> fast = cpu_dnnl::prepare(node, name(), fast_options())) return *fast;
      return cpu_kernels::prepare(node, name());  // names the format it cannot run
    }
    // The reference prepare step validates the node (attributes, shapes) for both paths.
    GE_ASSIGN_OR_RETURN(PreparedKernel reference, cpu_kernels::prepare(node, name()));
    if (fast_paths_) {
      if (std::optional<PreparedKernel> fused = cpu_autofuse::prepare(node, name(), intra_op_threads())) {
        // The generated kernel takes the interpreter's name and workspace: a model file
        // compiled with either runs with either (the cache, or a compiler, may be gone).
        fused->name = reference.name;
        fused->workspace_bytes = reference.workspace_bytes;
        fused->zeroed = reference.zeroed;
        return *fused;
      }
      if (std::optional<PreparedKernel> fast = cpu_dnnl::prepare(node, name(), fast_options())) return *fast;
    }
    return reference;
  } catch (const std::bad_alloc&) {
    return internal_error(node.describe() + ": cpu backend ran out of memory preparing the kernel");
  } catch (const std::exception& error) {
    return internal_error(node.describe() + ": cpu backend failed to prepare the kernel: " + error.what());
  }
}

FormatCapability CpuBackend::format_capability(const Node& node) const {
  FormatCapability capability;
  try {
    if (fast_paths_) capability = cpu_dnnl::format_capability(node);
    capability.format_agnostic = cpu_kernels::is_format_agnostic(node);
  } catch (const std::exception&) {
    return {};
  }
  return capability;
}

}  // namespace ge
