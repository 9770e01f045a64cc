// The greedy_by_size memory assigner plugin.
#include "ge/plugin_api/plugin.h"

#include "greedy_by_size_assigner.h"

namespace {

ge::Status register_greedy_by_size(ge::Registrar& registrar) {
  try {
    return registrar.add_memory_assigner(std::make_shared<ge::memory::GreedyBySizeAssigner>());
  } catch (const std::exception& e) {
    return ge::plugin_error(std::string("greedy_by_size memory assigner: ") + e.what());
  }
}

}  // namespace

GE_DEFINE_PLUGIN("greedy_by_size", "0.1.0", register_greedy_by_size)
