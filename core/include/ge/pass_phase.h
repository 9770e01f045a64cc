#pragma once
/// The named phases of a pass pipeline, which replace numeric pass positions.

#include <optional>
#include <string>
#include <string_view>

namespace ge {

/// The phases a pipeline runs, in this order. A pass plugin declares its pass's phase;
/// the registry may move it (option "phase", by the names pass_phase_name() gives).
enum class PassPhase {
  kCanonicalize,  ///< removes no-ops so that later passes see one form of each thing
  kFold,          ///< evaluates constant subgraphs and merges equal subexpressions
  kFuse,          ///< pattern fusion, then autofusion
  kCleanup,       ///< removes what the passes before left dead
  kLayout,        ///< storage formats and reorders, which no other pass understands
};

/// Every phase, in pipeline order.
inline constexpr PassPhase kPassPhases[] = {PassPhase::kCanonicalize, PassPhase::kFold, PassPhase::kFuse,
                                            PassPhase::kCleanup, PassPhase::kLayout};

/// "canonicalize", "fold", "fuse", "cleanup", "layout".
const char* pass_phase_name(PassPhase phase);

/// The phase called `name` (as pass_phase_name() spells it), or nullopt.
std::optional<PassPhase> parse_pass_phase(std::string_view name);

/// "canonicalize, fold, fuse, cleanup or layout": for messages about a bad phase name.
std::string pass_phase_names();

}  // namespace ge
