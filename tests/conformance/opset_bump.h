#pragma once
/// The "opset-bump" suite: a test case re-run with its ai.onnx opset import raised (to 18
/// ... 23), when none of its ops changed semantics between the two opsets, so that its
/// expected outputs stay valid. Which versions changed semantics is the ONNX op library's
/// table (plugins/ops/onnx/newer_opsets.h) on top of libonnx 1.12's registry.

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>

#include "ge/status.h"

namespace ge::conformance {

/// Why `model` cannot be raised to `opset` with its outputs unchanged (an op whose
/// semantics changed in between, named with its version), or nullopt when it can.
Result<std::optional<std::string>> opset_bump_blocker(const std::filesystem::path& model, int64_t opset);

/// Writes `model` with its ai.onnx opset import set to `opset` as `dir`/model.onnx and
/// returns that path.
Result<std::filesystem::path> write_bumped_model(const std::filesystem::path& model, int64_t opset,
                                                 const std::filesystem::path& dir);

}  // namespace ge::conformance
