#pragma once
/// The order of a pipeline's passes: by phase, then by declared run_after / run_before
/// constraints inside a phase.

#include <vector>

#include "ge/plugin_api/pass.h"
#include "ge/status.h"

namespace ge {

/// Every pass of `passes` once, in the order a pipeline runs them: phases in PassPhase
/// order; inside a phase, each pass after the passes its run_after names and before those
/// its run_before names, and otherwise in the order of `passes` (registration order: the
/// plugin host's registries as found, their entries as listed, each plugin's passes as it
/// added them). A constraint naming a pass not in `passes` is ignored; so is
/// one between passes of different phases, where the phase order decides (a warning is
/// logged when they disagree). Error: a cycle of constraints inside a phase; the message
/// names the passes of the cycle. Deterministic.
Result<std::vector<const PassInfo*>> order_passes(const std::vector<PassInfo>& passes);

}  // namespace ge
