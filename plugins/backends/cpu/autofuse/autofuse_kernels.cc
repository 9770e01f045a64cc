#include "autofuse_kernels.h"

#include <cstdlib>
#include <map>
#include <memory>
#include <mutex>
#include <string>

#include "autofuse_codegen.h"
#include "autofuse_compiler.h"
#include "ge/autofuse/loop_ir.h"
#include "ge/logging.h"

namespace ge::cpu_autofuse {
namespace {

struct LaunchParams {
  CompiledKernel kernel;  // keeps the shared object loaded
};

int launch(const KernelArgs& args) {
  const auto& p = *static_cast<const LaunchParams*>(args.params);
  p.kernel.run(args.inputs, args.outputs);
  return 0;
}

/// Kernels of this process by source: a node prepared again (another specialisation, a
/// second session) neither recompiles nor reloads; a source that failed is not retried.
struct ProcessCache {
  std::mutex mutex;
  std::map<std::string, std::shared_ptr<const LaunchParams>> kernels;
  std::map<std::string, std::string> failures;
};

ProcessCache& process_cache() {
  static ProcessCache* cache = new ProcessCache;  // never destroyed: kernels outlive statics' order
  return *cache;
}

}  // namespace

std::optional<PreparedKernel> prepare(const Node& node, std::string_view backend_name, int threads,
                                      std::string_view forced_mode, bool vector_math) {
  if (node.domain() != "ge_autofuse" || node.op_type() != "Fused") return std::nullopt;
  const std::string mode = !forced_mode.empty() ? std::string(forced_mode) : node.get_string("mode", "codegen");
  if (mode != "codegen") return std::nullopt;
  Result<autofuse::Program> program = autofuse::parse(node.get_string("program", ""));
  if (!program.is_ok()) return std::nullopt;  // the reference prepare step reports it
  const std::string source = generate_source(program.value(), threads, vector_math);

  ProcessCache& cache = process_cache();
  std::lock_guard<std::mutex> lock(cache.mutex);
  std::shared_ptr<const LaunchParams> params;
  if (auto it = cache.kernels.find(source); it != cache.kernels.end()) {
    params = it->second;
  } else if (cache.failures.count(source) != 0) {
    return std::nullopt;
  } else {
    Result<CompiledKernel> compiled = compile(source, settings_from_environment());
    if (!compiled.is_ok()) {
      GE_LOG_WARN("autofusion: {} runs interpreted: {}", node.describe(), compiled.status().message());
      cache.failures.emplace(source, compiled.status().message());
      return std::nullopt;
    }
    const CompiledKernel& kernel = compiled.value();
    if (kernel.cache_hit) {
      GE_LOG_INFO("autofusion: {} kernel {} (cache hit)", node.describe(), kernel.key);
    } else {
      GE_LOG_INFO("autofusion: {} kernel {} (cache miss, compiled in {:.0f} ms)", node.describe(), kernel.key,
                  kernel.compile_milliseconds);
    }
    auto made = std::make_shared<LaunchParams>();
    made->kernel = std::move(compiled).value();
    params = made;
    cache.kernels.emplace(source, params);
  }
  PreparedKernel prepared;
  prepared.function = &launch;
  prepared.params = params;
  prepared.name = std::string(backend_name) + ".ge_autofuse.Fused.codegen";
  return prepared;
}

}  // namespace ge::cpu_autofuse
