#pragma once
// Helpers for the golden fusion tests: run passes on IR, and compare with an expected IR
// that is written without types (inferred() adds them).
#include <string>
#include <utility>
#include <vector>

#include "plugin_test_env.h"

namespace ge::fusion::testing {

inline std::string run(const std::string& ir, const std::vector<std::string>& passes,
                       PassManagerOptions options = {}) {
  auto result = pass_testing::run_passes(ir, passes, std::move(options));
  return result.is_ok() ? *result : result.status().to_string();
}

using pass_testing::inferred;

/// Runs at -O`opt_level` with the numeric check of every pass that changes the graph on
/// the cpu backend (PassManagerOptions::check_passes); inputs not in `inputs` are
/// generated in [-1, 1].
inline PassManagerOptions checked_at(int opt_level, std::vector<std::pair<std::string, Tensor>> inputs = {}) {
  PassManagerOptions options;
  options.opt_level = opt_level;
  options.check_passes = true;
  options.check_inputs = std::move(inputs);
  return options;
}

/// `ir`, a graph importing ai.onnx 17, importing ai.onnx `opset` instead.
inline std::string at_opset(std::string ir, int opset) {
  const std::string header = "(opset \"\"=17";
  if (size_t at = ir.find(header); at != std::string::npos) {
    ir.replace(at, header.size(), "(opset \"\"=" + std::to_string(opset));
  }
  return ir;
}

/// The ai.onnx opsets every fusion is tested at: most transformer and detector exports
/// are opset 11 to 14, and 17 has LayerNormalization.
inline const std::vector<int> kOpsets = {11, 13, 17};
/// Names the instances of a test parameterised by opset "opset11", ...
inline std::string opset_name(const ::testing::TestParamInfo<int>& info) { return "opset" + std::to_string(info.param); }

}  // namespace ge::fusion::testing
