// Entry point of the "ge" domain op library (ops made by the fusion passes).

#include <exception>
#include <memory>
#include <string>

#include "fused_op_library.h"
#include "ge/plugin_api/plugin.h"

namespace {

ge::Status register_fused_ops(ge::Registrar& registrar) {
  try {
    return registrar.add_op_library(std::make_shared<ge::fused_ops::FusedOpLibrary>());
  } catch (const std::exception& error) {
    return ge::plugin_error(std::string("ge_fused op library: registration failed: ") + error.what());
  }
}

}  // namespace

GE_DEFINE_PLUGIN("ge_fused", "0.1.0", register_fused_ops)
