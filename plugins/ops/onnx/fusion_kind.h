#pragma once
/// How autofusion may group each ONNX standard op.

#include <string>

#include "ge/op_registry.h"

namespace ge::onnx_ops {

/// The fusion kind of `op_type` in `domain` ("" is ai.onnx): elementwise for unary math
/// and activations, broadcast for binary (and variadic) arithmetic, logic and compare,
/// injective for pure data movement, reduction for Reduce*, opaque for everything else,
/// including every op outside ai.onnx. Thread-safe.
FusionKind fusion_kind_for(const std::string& domain, const std::string& op_type);

}  // namespace ge::onnx_ops
