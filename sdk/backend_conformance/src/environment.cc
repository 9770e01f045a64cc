#include "environment.h"

#include <dlfcn.h>

#include <map>
#include <mutex>
#include <system_error>
#include <utility>
#include <vector>

namespace ge::backend_conformance {
namespace {

namespace fs = std::filesystem;

struct Loaded {
  std::unique_ptr<Environment> environment;
  Status status;
};

}  // namespace

fs::path default_reference_registry() {
  // Any function of libge_core locates the library, and so the installation.
  Dl_info info{};
  if (dladdr(reinterpret_cast<void*>(&status_code_name), &info) == 0 || info.dli_fname == nullptr) return {};
  std::error_code error;
  const fs::path core = fs::canonical(info.dli_fname, error);
  if (error) return {};
  const fs::path registry = core.parent_path().parent_path() / "bin" / "ge_plugins.toml";
  return fs::exists(registry, error) ? registry : fs::path();
}

Result<Environment*> Environment::get(const std::string& name, const Config& config) {
  // Leaked on purpose: plugins stay loaded until exit, after every test's objects are gone.
  static auto* loaded = new std::map<std::string, Loaded>();
  static std::mutex mutex;
  std::lock_guard<std::mutex> lock(mutex);
  auto it = loaded->find(name);
  if (it == loaded->end()) {
    Loaded entry;
    entry.environment.reset(new Environment(config));
    entry.status = entry.environment->load();
    it = loaded->emplace(name, std::move(entry)).first;
  }
  if (!it->second.status.is_ok()) return it->second.status;
  return it->second.environment.get();
}

Status Environment::load() {
  if (config_.backend.empty()) return invalid_argument("no backend to test: set Config::backend (--backend NAME)");
  const fs::path reference_registry =
      config_.reference_registry.empty() ? default_reference_registry() : config_.reference_registry;
  if (!config_.reference_registry.empty() && !fs::exists(config_.reference_registry)) {
    return not_found("reference registry '" + config_.reference_registry.string() + "' does not exist");
  }
  for (const fs::path& registry : config_.registries) {
    if (!fs::exists(registry)) return not_found("plugin registry '" + registry.string() + "' does not exist");
  }
  const std::vector<fs::path> registries = PluginHost::discover(config_.registries, reference_registry);
  for (const fs::path& registry : registries) {
    // Every failure stays in host_.failures(); it matters only when a plugin we need is missing.
    (void)host_.load_registry(registry);
  }
  ops_ = host_.make_op_registry();

  auto failures = [this] {
    std::string text;
    for (const Status& failure : host_.failures()) text += "\n  " + failure.to_string();
    return text.empty() ? std::string() : "; plugin failures:" + text;
  };
  auto read = [&registries] {
    std::string text;
    for (const fs::path& registry : registries) text += (text.empty() ? "" : ", ") + registry.string();
    return text.empty() ? std::string("none (GE's ge_plugins.toml was not found beside libge_core)") : text;
  };
  Result<Backend*> backend = host_.backend(config_.backend);
  if (!backend.is_ok()) {
    return not_found("backend '" + config_.backend + "' is not loaded from the registries read (" + read() + "): " +
                     backend.status().message() + failures());
  }
  Result<Backend*> reference = host_.backend(config_.reference_backend);
  if (!reference.is_ok()) {
    return not_found("reference backend '" + config_.reference_backend + "' is not loaded from the registries read (" +
                     read() + "): " + reference.status().message() + failures());
  }
  if (host_.op_libraries().empty()) {
    return not_found("no op library is loaded from the registries read (" + read() +
                     "): the kit needs GE's (onnx_std) to infer its test graphs" + failures());
  }
  backend_ = *backend;
  reference_ = *reference;
  return Status::ok();
}

}  // namespace ge::backend_conformance
