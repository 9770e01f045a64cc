// Entry point of the ONNX standard op-library plugin.

#include <exception>
#include <memory>
#include <string>

#include "ge/plugin_api/plugin.h"
#include "onnx_op_library.h"

namespace {

ge::Status register_onnx_ops(ge::Registrar& registrar) {
  try {
    return registrar.add_op_library(std::make_shared<ge::onnx_ops::OnnxOpLibrary>());
  } catch (const std::exception& error) {
    return ge::plugin_error(std::string("onnx_std op library: registration failed: ") +
                            error.what());
  } catch (...) {
    return ge::plugin_error("onnx_std op library: registration failed");
  }
}

}  // namespace

GE_DEFINE_PLUGIN("onnx_std", "1.0.0", register_onnx_ops)
