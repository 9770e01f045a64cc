#pragma once
/// The values of the options the tools share, parsed one way with one wording of errors:
/// "OPTION expects ..., got 'TEXT'". ge-run, ge-compile and ge-opt bind their options
/// through these.

#include <string>
#include <vector>

#include "ge/plugin_options.h"
#include "ge/precision.h"
#include "ge/status.h"

namespace ge::tools {

/// An integer in [min, max]: "OPTION expects an integer in [MIN, MAX], got 'TEXT'".
Result<int> parse_int_value(const std::string& option, const std::string& text, int min, int max);

/// A finite number >= 0 (tolerances, ratios).
Result<double> parse_non_negative(const std::string& option, const std::string& text);

/// "a,b,c" as pass names; "" is an explicitly empty pipeline; an empty name is an error.
Result<std::vector<std::string>> parse_pass_list(const std::string& option, const std::string& text);

/// fp32, bf16 or mixed.
Result<Precision> parse_precision_value(const std::string& option, const std::string& text);

/// Parses "PLUGIN.KEY=VALUE" as a registry's `[PLUGIN.options]` line `KEY = VALUE` would
/// read: true/false a bool, an integer, a number, [a, b, c] a list of strings, anything
/// else (quotes optional) a string. A missing plugin, key or '=' is an error naming
/// `option` and the expected form.
Result<PluginSetting> parse_plugin_setting(const std::string& option, const std::string& text);

}  // namespace ge::tools
