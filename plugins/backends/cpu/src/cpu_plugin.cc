// The plugin entry of libge_backend_cpu.so: registers one backend named "cpu".
// Registry options ([plugin.options]): `synchronous = true` runs every stream's tasks on
// the submitting thread (debugging); `threads = N` sizes the worker pool (0: auto).

#include <exception>
#include <memory>
#include <utility>

#include "cpu_backend.h"
#include "ge/plugin_api/plugin.h"

namespace {

ge::Status register_cpu_backend(ge::Registrar& registrar) {
  try {
    GE_ASSIGN_OR_RETURN(ge::CpuDeviceOptions options, ge::CpuDeviceOptions::from_options(registrar.options()));
    auto backend = std::make_shared<ge::CpuBackend>();
    GE_RETURN_IF_ERROR(static_cast<ge::CpuDevice&>(backend->device()).configure(options));
    return registrar.add_backend(std::move(backend));
  } catch (const std::exception& error) {
    return ge::plugin_error(std::string("cpu backend: registration failed: ") + error.what());
  }
}

}  // namespace

GE_DEFINE_PLUGIN("cpu", "0.1.0", register_cpu_backend)
