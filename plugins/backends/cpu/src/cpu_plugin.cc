// The plugin entry of libge_backend_cpu.so: registers one backend named "cpu".

#include <exception>
#include <memory>

#include "cpu_backend.h"
#include "ge/plugin_api/plugin.h"

namespace {

ge::Status register_cpu_backend(ge::Registrar& registrar) {
  try {
    return registrar.add_backend(std::make_shared<ge::CpuBackend>());
  } catch (const std::exception& error) {
    return ge::plugin_error(std::string("cpu backend: registration failed: ") + error.what());
  }
}

}  // namespace

GE_DEFINE_PLUGIN("cpu", "0.1.0", register_cpu_backend)
