#include "ge/autofuse/loop_plan.h"

namespace ge::autofuse {
namespace {

/// Input dims right-aligned to `rank` (missing leading dims are 1).
std::vector<int64_t> aligned(const std::vector<int64_t>& dims, size_t rank) {
  std::vector<int64_t> out(rank, 1);
  for (size_t i = 0; i < dims.size(); ++i) out[rank - dims.size() + i] = dims[i];
  return out;
}

}  // namespace

LoopPlan plan_loops(const Program& program) {
  const std::vector<int64_t>& shape = program.shape;
  const size_t rank = shape.size();
  std::vector<std::vector<int64_t>> dims;
  for (const Input& input : program.inputs) dims.push_back(aligned(input.dims, rank));

  // The inner suffix: the reduced axes, or (no reduction) the longest suffix that every
  // input either has whole or not at all.
  const size_t lane_axes = static_cast<size_t>(program.inner_axes);
  size_t suffix = static_cast<size_t>(program.reduced_axes) + lane_axes;
  if (suffix == 0) {
    auto walks_alike = [&](size_t length) {
      for (const auto& d : dims) {
        bool whole = true, none = true;
        for (size_t axis = rank - length; axis < rank; ++axis) {
          whole = whole && d[axis] == shape[axis];
          none = none && d[axis] == 1;
        }
        if (!whole && !none) return false;
      }
      return true;
    };
    suffix = 1;
    while (suffix < rank && walks_alike(suffix + 1)) ++suffix;
  }
  LoopPlan plan;
  for (size_t axis = rank - suffix; axis < rank - lane_axes; ++axis) plan.inner *= shape[axis];
  for (size_t axis = rank - lane_axes; axis < rank; ++axis) plan.lanes *= shape[axis];

  // Row-major element strides of each input over the shape's axes (0 where broadcast).
  std::vector<std::vector<int64_t>> strides(dims.size(), std::vector<int64_t>(rank, 0));
  for (size_t i = 0; i < dims.size(); ++i) {
    int64_t stride = 1;
    for (size_t axis = rank; axis-- > 0;) {
      strides[i][axis] = dims[i][axis] == 1 ? 0 : stride;
      stride *= dims[i][axis];
    }
    bool whole = true, whole_lanes = true;
    for (size_t axis = rank - suffix; axis < rank - lane_axes; ++axis) whole = whole && dims[i][axis] == shape[axis];
    for (size_t axis = rank - lane_axes; axis < rank; ++axis) whole_lanes = whole_lanes && dims[i][axis] == shape[axis];
    InputWalk walk;
    walk.contiguous_inner = whole && plan.inner > 1;
    // The reduced axes are whole in such an input, so they walk as one with the stride of
    // the last of them: the input's elements along the lanes.
    if (lane_axes > 0) {
      int64_t lane_elements = 1;
      for (size_t axis = rank - lane_axes; axis < rank; ++axis) lane_elements *= dims[i][axis];
      walk.inner_stride = walk.contiguous_inner ? lane_elements : 0;
    }
    walk.contiguous_lanes = lane_axes > 0 && whole_lanes && plan.lanes > 1;
    plan.inputs.push_back(std::move(walk));
  }
  // Coalesce the outer axes: drop extent-1 axes, merge neighbours that every input walks
  // contiguously across (stride of the outer = extent * stride of the inner, or both 0).
  std::vector<size_t> kept;
  for (size_t axis = 0; axis + suffix < rank; ++axis) {
    if (shape[axis] != 1) kept.push_back(axis);
  }
  for (size_t n = 0; n < kept.size(); ++n) {
    const size_t axis = kept[n];
    bool merge = !plan.outer_dims.empty();
    if (merge) {
      const size_t previous = kept[n - 1];
      for (size_t i = 0; i < dims.size() && merge; ++i) {
        merge = strides[i][previous] == strides[i][axis] * shape[axis];
      }
    }
    if (merge) {
      plan.outer_dims.back() *= shape[axis];
      for (size_t i = 0; i < dims.size(); ++i) plan.inputs[i].outer_strides.back() = strides[i][axis];
    } else {
      plan.outer_dims.push_back(shape[axis]);
      for (size_t i = 0; i < dims.size(); ++i) plan.inputs[i].outer_strides.push_back(strides[i][axis]);
    }
  }
  for (int64_t d : plan.outer_dims) plan.rows *= d;

  plan.per_row.assign(program.code.size(), false);
  for (size_t v = 0; v < program.code.size(); ++v) {
    const Instruction& in = program.code[v];
    if (in.op == Op::kConst || is_reduction(in.op)) {
      plan.per_row[v] = true;
    } else if (in.op == Op::kLoad) {
      plan.per_row[v] = !plan.inputs[static_cast<size_t>(in.input)].contiguous_inner;
    } else {
      plan.per_row[v] = true;
      for (int operand : operands(in)) plan.per_row[v] = plan.per_row[v] && plan.per_row[static_cast<size_t>(operand)];
    }
  }
  const std::vector<bool> row = row_values(program);
  for (const Output& out : program.outputs) {
    plan.output_per_row.push_back(program.reduced_axes > 0 && row[static_cast<size_t>(out.value)]);
  }
  return plan;
}

}  // namespace ge::autofuse
