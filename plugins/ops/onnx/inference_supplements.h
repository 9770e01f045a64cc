#pragma once
/// Facts libonnx 1.12's inference functions leave out but newer ONNX releases infer; added
/// after libonnx has run, only where its result is less precise.

#include <vector>

#include <onnx/onnx_pb.h>

#include "ge/graph.h"

namespace ge::onnx_ops {

/// Refines `outputs` (as libonnx left them for `node`) in place. Today: Reshape whose
/// shape input has no known content but a static length k gets rank k (dims unknown), as
/// ONNX >= 1.13 does.
void supplement_inference(const Node& node, std::vector<onnx::TypeProto>& outputs);

}  // namespace ge::onnx_ops
