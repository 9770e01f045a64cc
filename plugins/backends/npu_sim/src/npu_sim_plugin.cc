// The plugin entry of libge_backend_npu_sim.so: registers one backend named "npu_sim"
// configured from the registry entry's [plugin.options] (see npu_sim_config.h).

#include <exception>
#include <memory>

#include "ge/plugin_api/plugin.h"
#include "npu_sim_backend.h"

namespace {

ge::Status register_npu_sim_backend(ge::Registrar& registrar) {
  try {
    GE_ASSIGN_OR_RETURN(ge::NpuSimConfig config, ge::NpuSimConfig::from_options(registrar.options()));
    return registrar.add_backend(std::make_shared<ge::NpuSimBackend>(config));
  } catch (const std::exception& error) {
    return ge::plugin_error(std::string("npu_sim backend: registration failed: ") + error.what());
  }
}

}  // namespace

GE_DEFINE_PLUGIN("npu_sim", "0.1.0", register_npu_sim_backend)
