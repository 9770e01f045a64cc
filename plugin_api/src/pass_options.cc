// The registry options that move a pass: min_opt_level, phase, after, before.
#include "ge/plugin_api/pass_options.h"

#include <variant>
#include <vector>

namespace ge {
namespace {

/// The option `key`'s value when it holds a T; null when absent; an error naming the
/// option and `expected` when it holds something else.
template <typename T>
Result<const T*> lookup(const PluginOptions& options, const std::string& pass, const std::string& key,
                        const char* expected) {
  auto it = options.values().find(key);
  if (it == options.values().end()) return static_cast<const T*>(nullptr);
  if (const T* value = std::get_if<T>(&it->second)) return value;
  return invalid_argument("pass '" + pass + "': option '" + key + "' must be " + expected);
}

}  // namespace

Result<PassInfo> apply_pass_options(PassInfo pass, const PluginOptions& options, const std::string& prefix) {
  if (options.contains(prefix + "order")) {
    return invalid_argument("pass '" + pass.name + "': option '" + prefix +
                            "order' is no longer read: set '" + prefix + "phase' (" + pass_phase_names() +
                            ") and, inside a phase, '" + prefix + "after' / '" + prefix +
                            "before' (arrays of pass names)");
  }
  GE_ASSIGN_OR_RETURN(const int64_t* level,
                      lookup<int64_t>(options, pass.name, prefix + "min_opt_level", "an integer from 0 to 4"));
  if (level != nullptr) {
    if (*level < 0 || *level > 4) {
      return invalid_argument("pass '" + pass.name + "': option '" + prefix + "min_opt_level' = " +
                              std::to_string(*level) + " must be an integer from 0 to 4 (4: never in an -O pipeline)");
    }
    pass.min_opt_level = static_cast<int>(*level);
  }
  const std::string phase_expected = "a string, one of " + pass_phase_names();
  GE_ASSIGN_OR_RETURN(const std::string* phase,
                      lookup<std::string>(options, pass.name, prefix + "phase", phase_expected.c_str()));
  if (phase != nullptr) {
    std::optional<PassPhase> parsed = parse_pass_phase(*phase);
    if (!parsed) {
      return invalid_argument("pass '" + pass.name + "': option '" + prefix + "phase' = \"" + *phase +
                              "\" is not a phase (expected " + pass_phase_names() + ")");
    }
    pass.phase = *parsed;
  }
  using Names = std::vector<std::string>;
  GE_ASSIGN_OR_RETURN(const Names* after,
                      lookup<Names>(options, pass.name, prefix + "after", "an array of pass names"));
  if (after != nullptr) pass.run_after = *after;
  GE_ASSIGN_OR_RETURN(const Names* before,
                      lookup<Names>(options, pass.name, prefix + "before", "an array of pass names"));
  if (before != nullptr) pass.run_before = *before;
  return pass;
}

std::vector<std::string> pass_option_keys(const std::string& prefix) {
  return {prefix + "min_opt_level", prefix + "phase", prefix + "after", prefix + "before"};
}

}  // namespace ge
