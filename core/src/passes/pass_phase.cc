// The names of the pass phases.
#include "ge/pass_phase.h"

#include <iterator>

namespace ge {

const char* pass_phase_name(PassPhase phase) {
  switch (phase) {
    case PassPhase::kCanonicalize: return "canonicalize";
    case PassPhase::kFold: return "fold";
    case PassPhase::kFuse: return "fuse";
    case PassPhase::kCleanup: return "cleanup";
    case PassPhase::kLayout: return "layout";
  }
  return "unknown";
}

std::optional<PassPhase> parse_pass_phase(std::string_view name) {
  for (PassPhase phase : kPassPhases) {
    if (name == pass_phase_name(phase)) return phase;
  }
  return std::nullopt;
}

std::string pass_phase_names() {
  std::string names;
  const size_t count = std::size(kPassPhases);
  for (size_t i = 0; i < count; ++i) {
    if (i > 0) names += i + 1 == count ? " or " : ", ";
    names += pass_phase_name(kPassPhases[i]);
  }
  return names;
}

}  // namespace ge
