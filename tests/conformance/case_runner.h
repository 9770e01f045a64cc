#pragma once
/// Runs one ONNX test case the way ge-run does: parse, passes at the chosen level, build on
/// the cpu backend, run every test_data_set_* and compare with its output_K.pb.

#include <cstdint>
#include <string>

#include "ge/plugin_host.h"
#include "ge/tensor_compare.h"
#include "test_case.h"

namespace ge::conformance {

/// The tolerance of ONNX's backend tests (numpy.testing.assert_allclose there).
inline constexpr Tolerance kOnnxTestTolerance{.rtol = 1e-3, .atol = 1e-5};

struct CaseOutcome {
  bool passed = false;
  std::string reason;  ///< one line; empty when passed
};

/// Reason given to cases whose graph inputs or outputs are sequences or optionals.

/// Never throws: every error (including exceptions) becomes a failed outcome whose reason
/// is the first line of the message. A crash or hang is not caught here: callers isolate
/// cases in child processes (process_pool.h).
/// With `opset` (non-zero) the model runs with its ai.onnx opset import raised to it (see
/// opset_bump.h; the caller picks the cases for which that keeps the outputs valid).
CaseOutcome run_case(const PluginHost& host, const TestCase& test_case, int opt_level, const Tolerance& tolerance,
                     int64_t opset = 0);

}  // namespace ge::conformance
