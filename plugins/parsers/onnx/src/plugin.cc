/// Entry point of the ONNX parser plugin: registers the "onnx" parser.

#include <exception>
#include <memory>

#include "ge/plugin_api/plugin.h"
#include "onnx_parser.h"

namespace {

ge::Status register_onnx_parser(ge::Registrar& registrar) {
  try {
    return registrar.add_parser(std::make_shared<ge::onnx_parser::OnnxParser>());
  } catch (const std::exception& e) {
    return ge::plugin_error(std::string("onnx parser plugin: registration failed: ") + e.what());
  } catch (...) {
    return ge::plugin_error("onnx parser plugin: registration failed with a non-standard exception");
  }
}

}  // namespace

GE_DEFINE_PLUGIN("onnx", "1.0.0", register_onnx_parser)
