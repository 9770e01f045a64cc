#pragma once
// Helpers for the golden fusion tests: run passes on IR, and compare with an expected IR
// that is written without types (inferred() adds them).
#include <string>
#include <vector>

#include "plugin_test_env.h"

namespace ge::fusion::testing {

inline std::string run(const std::string& ir, const std::vector<std::string>& passes) {
  auto result = pass_testing::run_passes(ir, passes);
  return result.is_ok() ? *result : result.status().to_string();
}

using pass_testing::inferred;

}  // namespace ge::fusion::testing
