/// Entry point of the TorchScript parser plugin: registers the "torchscript" parser.

#include <exception>
#include <memory>

#include "ge/plugin_api/plugin.h"
#include "torchscript_parser.h"

namespace {

ge::Status register_torchscript_parser(ge::Registrar& registrar) {
  try {
    return registrar.add_parser(std::make_shared<ge::torchscript::TorchScriptParser>());
  } catch (const std::exception& e) {
    return ge::plugin_error(std::string("torchscript parser plugin: registration failed: ") + e.what());
  } catch (...) {
    return ge::plugin_error("torchscript parser plugin: registration failed with a non-standard exception");
  }
}

}  // namespace

GE_DEFINE_PLUGIN("torchscript", "1.0.0", register_torchscript_parser)
