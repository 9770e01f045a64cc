#include "cpu_backend.h"

#include <algorithm>
#include <cstdlib>
#include <string_view>
#include <exception>
#include <new>
#include <thread>

#include "autofuse_kernels.h"
#include "dnnl_kernels.h"
#include "dnnl_util.h"
#include "ge/reference_kernels/kernel_library.h"

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

Result<CpuKernelSettings> CpuKernelSettings::from_options(const PluginOptions& options) {
  CpuKernelSettings settings;
  const std::vector<std::string> known = {"autofuse", "dnnl", "reference"};
  settings.providers = options.get_strings("kernel_providers", settings.providers);
  std::string listed;
  for (const std::string& provider : settings.providers) listed += (listed.empty() ? "" : ", ") + provider;
  const std::string where = "cpu backend: option kernel_providers = [" + listed + "]";
  for (size_t i = 0; i < settings.providers.size(); ++i) {
    const std::string& provider = settings.providers[i];
    if (std::find(known.begin(), known.end(), provider) == known.end()) {
      return invalid_argument(where + ": unknown kernel provider '" + provider +
                              "'; the providers are autofuse, dnnl and reference");
    }
    if (std::find(settings.providers.begin(), settings.providers.begin() + static_cast<std::ptrdiff_t>(i), provider) !=
        settings.providers.begin() + static_cast<std::ptrdiff_t>(i)) {
      return invalid_argument(where + ": '" + provider + "' is listed twice");
    }
  }
  if (settings.providers.empty() || settings.providers.back() != "reference") {
    return invalid_argument(where + ": the list must end with 'reference', the provider that takes every node");
  }
  settings.winograd = options.get_bool("winograd", true);
  const std::string int8 = options.get_string("int8", "auto");
  if (int8 == "auto") {
    settings.int8 = cpu_dnnl::Options::Int8::kAuto;
  } else if (int8 == "f32") {
    settings.int8 = cpu_dnnl::Options::Int8::kFloat32;
  } else if (int8 == "off") {
    settings.int8 = cpu_dnnl::Options::Int8::kOff;
  } else {
    return invalid_argument("cpu backend: option int8 = \"" + int8 + "\" is none of \"auto\", \"f32\" and \"off\"");
  }
  settings.autofuse_mode = options.get_string("autofuse_mode", "");
  if (!settings.autofuse_mode.empty() && settings.autofuse_mode != "codegen" && settings.autofuse_mode != "interpret") {
    return invalid_argument("cpu backend: option autofuse_mode = \"" + settings.autofuse_mode +
                            "\" is neither \"codegen\" nor \"interpret\"");
  }
  return settings;
}

CpuKernelSettings CpuKernelSettings::with_environment() const {
  CpuKernelSettings settings = *this;
  if (const char* mode = std::getenv("GE_AUTOFUSE_MODE"); mode != nullptr && *mode != '\0') {
    settings.autofuse_mode = mode;
  }
  if (const char* winograd = std::getenv("GE_CPU_WINOGRAD");
      winograd != nullptr && (std::string_view(winograd) == "off" || std::string_view(winograd) == "0")) {
    settings.winograd = false;
  }
  if (const char* int8 = std::getenv("GE_CPU_INT8"); int8 != nullptr) {
    if (std::string_view(int8) == "off") settings.int8 = cpu_dnnl::Options::Int8::kOff;
    if (std::string_view(int8) == "f32") settings.int8 = cpu_dnnl::Options::Int8::kFloat32;
  }
  return settings;
}

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

bool CpuBackend::has_native_arithmetic(DataType type) const {
  if (type != DataType::kBFloat16) return type != DataType::kFloat16;
  const std::vector<std::string>& providers = settings_.providers;
  return fast_paths_ && std::find(providers.begin(), providers.end(), "dnnl") != providers.end() &&
         has_bfloat16_arithmetic();
}

bool CpuBackend::supports(const Node& node, std::string* reason) const {
  try {
    // A node in a blocked format has no reference kernel: the fast path must take it.
    // Its capability answers without preparing (which would create primitives and
    // prepack weights only to throw them away).
    if (fast_paths_ && reference_kernels::has_non_plain_format(node) && !reference_kernels::is_format_agnostic(node)) {
      if (formats_accepted(node, cpu_dnnl::format_capability(node, fast_options(settings_.with_environment())))) {
        return true;
      }
      // A format the capability does not prefer (another CPU's block) may still be one the
      // fast path reorders: only preparing tells.
      if (cpu_dnnl::prepare(node, name(), fast_options(settings_.with_environment()))) return true;
    }
    return reference_kernels::supports(node, name(), reason);
  } catch (const std::exception& error) {
    if (reason != nullptr) *reason = node.describe() + ": cpu backend: " + error.what();
    return false;
  }
}

Result<PreparedKernel> CpuBackend::prepare(const Node& node) const {
  // No exception may leave the plugin; the library only throws std::bad_alloc.
  try {
    const CpuKernelSettings settings = settings_.with_environment();
    // A plan for shapes that may not come back (cpu_dnnl::Options::transient): no Winograd
    // weight transform is made for it (about 10 ms per ResNet layer, more than it saves in
    // a run or two), one another kernel made is shared.
    const bool transient = node.has_attribute(kTransientPlanAttribute);
    const bool dnnl = fast_paths_ && std::find(settings.providers.begin(), settings.providers.end(), "dnnl") !=
                                         settings.providers.end();
    if (reference_kernels::has_non_plain_format(node) && !reference_kernels::is_format_agnostic(node)) {
      // Blocked storage (layout assignment asked the fast paths, format_capability).
      if (dnnl) {
        cpu_dnnl::Options options = fast_options(settings);
        options.transient = transient;
        if (std::optional<PreparedKernel> fast = cpu_dnnl::prepare(node, name(), options)) return *fast;
      }
      return reference_kernels::prepare(node, name());  // names the format it cannot run
    }
    // The reference prepare step validates the node (attributes, shapes) for every provider.
    GE_ASSIGN_OR_RETURN(PreparedKernel reference, reference_kernels::prepare(node, name()));
    for (const std::string& provider : fast_paths_ ? settings.providers : std::vector<std::string>{}) {
      if (provider == "reference") break;
      if (provider == "autofuse") {
        if (std::optional<PreparedKernel> fused =
                cpu_autofuse::prepare(node, name(), intra_op_threads(), settings.autofuse_mode)) {
          // The generated kernel takes the interpreter's name and workspace: a model file
          // compiled with either runs with either (the cache, or a compiler, may be gone).
          fused->name = reference.name;
          fused->workspace_bytes = reference.workspace_bytes;
          fused->zeroed = reference.zeroed;
          return *fused;
        }
      } else if (provider == "dnnl") {
        cpu_dnnl::Options options = fast_options(settings);
        options.transient = transient;
        if (std::optional<PreparedKernel> fast = cpu_dnnl::prepare(node, name(), options)) return *fast;
      }
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
    const std::vector<std::string>& providers = settings_.providers;
    if (fast_paths_ && std::find(providers.begin(), providers.end(), "dnnl") != providers.end()) {
      capability = cpu_dnnl::format_capability(node, fast_options(settings_.with_environment()));
    }
    capability.format_agnostic = reference_kernels::is_format_agnostic(node);
  } catch (const std::exception&) {
    return {};
  }
  return capability;
}

}  // namespace ge
