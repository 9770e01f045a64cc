#pragma once
/// Command-line options of ge-conformance. See usage().

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "ge/status.h"

namespace ge::conformance {

struct ConformanceOptions {
  std::filesystem::path data_dir = "/usr/share/libonnx-testdata/data";  ///< --data-dir
  std::vector<std::string> categories;                ///< --category (repeatable); empty: default_categories()
  std::vector<std::string> filters;                   ///< --filter: run cases whose "<category>/<case>" contains one
  std::vector<int> opt_levels;                        ///< -O N (repeatable); empty: {2}
  std::optional<std::filesystem::path> expectations;  ///< --expectations FILE
  std::optional<std::filesystem::path> update_expectations;  ///< --update-expectations FILE
  bool list_failures = false;                                ///< --list-failures
  int jobs = 2;                                              ///< -j N: forked children at a time
  double timeout_seconds = 20;                               ///< --timeout S, per case
  std::vector<std::filesystem::path> plugin_files;           ///< --plugins FILE (repeatable)
  bool no_fork = false;                                      ///< --no-fork: run cases in-process (debugging)
  int64_t opset = 0;  ///< --opset N: raise each case's ai.onnx import to N (cases whose ops kept their semantics)
  int verbosity = 0;                                         ///< -v (repeatable): per-case lines, then GE logging
  bool help = false;
};

/// The categories run when none is given.
const std::vector<std::string>& default_categories();

/// Parses argv[1..]; errors name the offending argument.
Result<ConformanceOptions> parse_options(const std::vector<std::string>& args);

std::string usage();

}  // namespace ge::conformance
