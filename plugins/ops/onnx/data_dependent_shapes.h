#pragma once
/// Output shapes that libonnx 1.12 leaves unknown although the node's inputs (their
/// shapes, or at run time their contents) determine them:
/// - Einsum: every output dim from the equation and the operands' dims (libonnx gives the
///   rank at most);
/// - OneHot: the indices' shape with `depth` (input 1's value) inserted at `axis`;
/// - NonMaxSuppression: [selected, 3], where `selected` is counted from the boxes, scores
///   and thresholds at run time, by the same selection rule as the cpu kernel (which
///   refuses a launch whose selection count differs from the output rows, so the two can
///   never silently disagree).
/// Each sets output 0 only where libonnx left it unknown or partly unknown, and leaves it
/// alone when an input it needs is missing or malformed (the kernel names the problem).

#include <vector>

#include <onnx/onnx_pb.h>

#include "ge/graph.h"
#include "ge/op_registry.h"

namespace ge::onnx_ops {

void supplement_data_dependent_shapes(const Node& node, const InputDataProvider& data,
                                      std::vector<onnx::TypeProto>& outputs);

/// The rows NonMaxSuppression selects (the kernel's rule: per batch and class, boxes with
/// a score above score_threshold by descending score, ties by lower index, kept unless
/// their IOU with a kept box exceeds iou_threshold, up to max_per_class).
int64_t count_non_max_suppression(const float* boxes, const float* scores, int64_t batches, int64_t classes,
                                  int64_t boxes_per_batch, bool center_point_box, int64_t max_per_class,
                                  float iou_threshold, const float* score_threshold);

}  // namespace ge::onnx_ops
