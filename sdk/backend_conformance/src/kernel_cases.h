#pragma once
/// The generated per-op cases: one-node graphs of common ONNX ops (opset 17) with a few
/// shapes and attributes each, run on the backend and the reference on seeded inputs.

#include <cstdint>
#include <string>
#include <vector>

namespace ge::backend_conformance {

/// An initializer filled with seeded values in [low, high].
struct RandomConstant {
  std::string name;
  std::string type;  ///< "float32[4,3,3,3]"
  double low = -1, high = 1;
};

/// Where a runtime input's seeded values lie (default [-2, 2]).
struct InputRange {
  std::string name;
  double low = -2, high = 2;
};

struct KernelCase {
  std::string op;     ///< the ONNX op type; cases are grouped by it into one test
  std::string label;  ///< what distinguishes this case: "3x3, pads 1, bias"
  /// Text IR statements inside the graph: inputs, literal initializers, the node, outputs.
  std::string body;
  std::vector<RandomConstant> constants;
  std::vector<InputRange> ranges;
  /// Tolerance of this case when looser than the configuration's; 0: the configuration's.
  double rtol = 0, atol = 0;

  /// The whole graph text, `constants` filled from `seed`.
  std::string graph_text(uint32_t seed) const;
};

std::vector<KernelCase> kernel_cases();

/// The ops of kernel_cases(), in order, each once.
std::vector<std::string> kernel_case_ops();

}  // namespace ge::backend_conformance
