// NonMaxSuppression (opsets 10-11). For each batch and class, the boxes whose score is
// above score_threshold (all boxes when it is omitted) are visited by descending score
// (ties by lower box index) and kept unless their IOU with a box already kept exceeds
// iou_threshold, up to max_output_boxes_per_class (0 or omitted: none). Boxes are
// [y1, x1, y2, x2] corners in either order (center_point_box 0) or
// [x_center, y_center, width, height] (1); a box of zero area overlaps nothing. Output
// rows are [batch, class, box] in batch, class, selection order.
//
// The row count depends on the data: the output desc must already hold it (run-time
// shape inference cannot give it today; see the family report). A launch whose
// selection count differs from the output rows returns kRuntimeSizeMismatch.

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "common/special_common.h"
#include "detection/registration.h"
#include "ge/box_suppression.h"

namespace ge::reference_kernels::special {
namespace {

struct NmsParams {
  int64_t batches = 0;
  int64_t classes = 0;
  int64_t boxes = 0;
  bool center_point_box = false;
  int64_t output_rows = 0;
  DataType max_output_dtype = DataType::kInt64;
  size_t input_count = 0;  // the node's: inputs 2-4 are optional
};

int non_max_suppression_kernel(const KernelArgs& args) {
  const auto& p = *static_cast<const NmsParams*>(args.params);
  const auto* boxes = static_cast<const float*>(args.inputs[0]);
  const auto* scores = static_cast<const float*>(args.inputs[1]);
  auto* out = static_cast<int64_t*>(args.outputs[0]);
  if (boxes == nullptr || scores == nullptr || (p.output_rows > 0 && out == nullptr)) return kKernelMissingAddress;
  const void* max_output = optional_input(args, p.input_count, 2);
  const auto* iou = static_cast<const float*>(optional_input(args, p.input_count, 3));
  const auto* min_score = static_cast<const float*>(optional_input(args, p.input_count, 4));
  const int64_t max_per_class = max_output != nullptr ? load_index(max_output, p.max_output_dtype, 0) : int64_t{0};
  const float iou_threshold = iou != nullptr ? iou[0] : 0.0f;
  const bool filter_scores = min_score != nullptr;
  const float score_threshold = filter_scores ? min_score[0] : 0.0f;
  if (iou_threshold < 0.0f || iou_threshold > 1.0f) return kInvalidRuntimeValue;
  if (p.boxes > 0 && args.workspace == nullptr) return kKernelMissingAddress;
  BoxSuppression suppression(args.workspace, p.boxes);
  int64_t rows = 0;
  for (int64_t b = 0; b < p.batches; ++b) {
    suppression.set_boxes(boxes + b * p.boxes * 4, p.boxes, p.center_point_box);
    for (int64_t c = 0; c < p.classes; ++c) {
      const float* class_scores = scores + (b * p.classes + c) * p.boxes;
      suppression.select(class_scores, max_per_class, iou_threshold, filter_scores ? &score_threshold : nullptr,
                         [&](int64_t index) {
                           if (rows < p.output_rows) {
                             out[rows * 3] = b;
                             out[rows * 3 + 1] = c;
                             out[rows * 3 + 2] = index;
                           }
                           ++rows;
                         });
    }
  }
  return rows == p.output_rows ? kKernelOk : kRuntimeSizeMismatch;
}

Result<PreparedKernel> prepare_non_max_suppression(const KernelContext& context) {
  for (size_t i : {size_t{0}, size_t{1}, size_t{3}, size_t{4}}) {
    if (has_input(context, i) && input_dtype(context, i) != DataType::kFloat32) {
      return unsupported_feature(context, "input " + std::to_string(i) + " of dtype " +
                                              std::string(data_type_name(input_dtype(context, i))) +
                                              " (float32 expected)");
    }
  }
  NmsParams p;
  p.input_count = context.node.input_count();
  GE_ASSIGN_OR_RETURN(int64_t center, int_attribute(context, "center_point_box", 0));
  if (center != 0 && center != 1) return invalid_attribute(context, "center_point_box", "must be 0 or 1");
  p.center_point_box = center == 1;
  GE_ASSIGN_OR_RETURN(std::vector<int64_t> box_dims, input_dims(context, 0));
  GE_ASSIGN_OR_RETURN(std::vector<int64_t> score_dims, input_dims(context, 1));
  if (box_dims.size() != 3 || box_dims[2] != 4) {
    return invalid_node(context, "input 0 (boxes) must be [batches, boxes, 4], got " + shape_to_string(box_dims));
  }
  p.batches = box_dims[0];
  p.boxes = box_dims[1];
  if (score_dims.size() != 3 || score_dims[0] != p.batches || score_dims[2] != p.boxes) {
    return invalid_node(context, "input 1 (scores) must be [" + std::to_string(p.batches) + ", classes, " +
                                     std::to_string(p.boxes) + "], got " + shape_to_string(score_dims));
  }
  p.classes = score_dims[1];
  if (has_input(context, 2)) {
    p.max_output_dtype = input_dtype(context, 2);
    if (p.max_output_dtype != DataType::kInt64 && p.max_output_dtype != DataType::kInt32) {
      return unsupported_feature(context, "max_output_boxes_per_class of dtype " +
                                              std::string(data_type_name(p.max_output_dtype)));
    }
  }
  for (size_t i = 2; i < 5; ++i) {
    if (!has_input(context, i)) continue;
    GE_ASSIGN_OR_RETURN(std::vector<int64_t> dims, input_dims(context, i));
    if (product(dims) != 1) {
      return invalid_node(context, "input " + std::to_string(i) + " must hold one value, got " + shape_to_string(dims));
    }
  }
  GE_ASSIGN_OR_RETURN(std::vector<int64_t> out_dims, output_dims(context, 0));
  if (out_dims.size() != 2 || out_dims[1] != 3) {
    return invalid_node(context, "output 0 must be [selected, 3], got " + shape_to_string(out_dims));
  }
  p.output_rows = out_dims[0];
  GE_RETURN_IF_ERROR(check_output(context, 0, DataType::kInt64, out_dims));
  const size_t workspace = BoxSuppression::scratch_bytes(p.boxes);
  return make_kernel(context, &non_max_suppression_kernel, p, workspace);
}

}  // namespace

void add_non_max_suppression_kernels(std::vector<OpKernel>& table) {
  table.push_back({"NonMaxSuppression", {DataType::kFloat32}, &prepare_non_max_suppression});
}

}  // namespace ge::reference_kernels::special
