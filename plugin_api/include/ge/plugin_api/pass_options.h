#pragma once
/// The registry options that move a pass in the pipeline, read alike by every pass plugin.

#include <string>
#include <vector>

#include "ge/plugin_api/pass.h"
#include "ge/plugin_options.h"
#include "ge/status.h"

namespace ge {

/// `pass` with the options of its registry entry applied, each looked up as `prefix` +
/// key (a plugin registering several passes uses "<pass name>."):
///   min_opt_level  integer 0..4      the lowest -O level that runs it
///   phase          string            one of pass_phase_name()'s names
///   after, before  array of strings  replace pass.run_after / pass.run_before
/// Errors name the option and what it must be. The retired numeric `order` option is an
/// error that says what replaced it.
Result<PassInfo> apply_pass_options(PassInfo pass, const PluginOptions& options, const std::string& prefix = "");

/// The keys apply_pass_options reads (with `prefix`), for a pass plugin to list among its
/// known options (PluginOptions::check_known_keys).
std::vector<std::string> pass_option_keys(const std::string& prefix = "");

}  // namespace ge
