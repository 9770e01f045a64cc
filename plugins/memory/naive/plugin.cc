// The naive memory assigner plugin.
#include "ge/plugin_api/plugin.h"

#include "naive_assigner.h"

namespace {

ge::Status register_naive(ge::Registrar& registrar) {
  try {
    return registrar.add_memory_assigner(std::make_shared<ge::memory::NaiveAssigner>());
  } catch (const std::exception& e) {
    return ge::plugin_error(std::string("naive memory assigner: ") + e.what());
  }
}

}  // namespace

GE_DEFINE_PLUGIN("naive", "0.1.0", register_naive)
