#pragma once
/// The expected-failures list: one line per ONNX test case that is known not to pass,
/// `<category>/<case>  # reason`. Blank lines and lines starting with '#' are comments.

#include <filesystem>
#include <map>
#include <set>
#include <string>

#include "ge/status.h"

namespace ge::conformance {

/// Case id ("node/test_abs") → reason.
using ExpectedFailures = std::map<std::string, std::string>;

/// Parses the text of a list; errors name `source` and the line (a missing '/', a
/// duplicate entry, text where the id belongs).
Result<ExpectedFailures> parse_expected_failures(const std::string& text, const std::string& source);
/// Reads and parses a list file.
Result<ExpectedFailures> read_expected_failures(const std::filesystem::path& path);

/// The list as text, sorted by id, with a header saying how it is maintained.
std::string format_expected_failures(const ExpectedFailures& failures);
/// Writes format_expected_failures() to `path` (replacing it).
Status write_expected_failures(const ExpectedFailures& failures, const std::filesystem::path& path);

/// `existing` updated with one run: entries for the cases run (`run_ids`) are replaced by
/// that run's `failures`; entries in `whole_categories` (categories run without a filter)
/// that name no case run are dropped as stale; every other entry is kept.
ExpectedFailures merge_run_into_expectations(const ExpectedFailures& existing, const std::set<std::string>& run_ids,
                                             const std::set<std::string>& whole_categories,
                                             const ExpectedFailures& failures);

/// First non-empty line of `message`, trimmed and capped in length, so that it fits one
/// line of the list.
std::string one_line_reason(const std::string& message);

}  // namespace ge::conformance
