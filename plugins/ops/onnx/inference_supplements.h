#pragma once
/// Facts libonnx 1.12's inference functions leave out but newer ONNX releases infer; added
/// after libonnx has run, only where its result is less precise.

#include <vector>

#include <onnx/onnx_pb.h>

#include "ge/graph.h"
#include "ge/op_registry.h"

namespace ge::onnx_ops {

/// Refines `outputs` (as libonnx left them for `node`) in place:
/// - Reshape whose shape input has no known content but a static length k gets rank k
///   (dims unknown), as ONNX >= 1.13 does;
/// - pools with ceil_mode drop a last window that would start in the end padding, as
///   ONNX >= 1.13 and ONNX Runtime do;
/// - data-dependent extents libonnx never computes, when `data` has the input contents
///   (run-time inference): NonZero's count, Compress's selected length.
/// Rejects input data the op's libonnx inference would turn into a wrong shape (Range
/// with a zero delta or a non-finite bound is an empty tensor there; a Resize or Upsample
/// scale of 0, inf or NaN an empty or negative dim): throws StatusError.
void check_inference_data(const Node& node, const InputDataProvider& data);

void supplement_inference(const Node& node, const InputDataProvider& data, std::vector<onnx::TypeProto>& outputs);

}  // namespace ge::onnx_ops
