#pragma once
/// The values of the options the tools share, parsed one way with one wording of errors:
/// "OPTION expects ..., got 'TEXT'". ge-run, ge-compile and ge-opt bind their options
/// through these.

#include <string>
#include <vector>

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

}  // namespace ge::tools
