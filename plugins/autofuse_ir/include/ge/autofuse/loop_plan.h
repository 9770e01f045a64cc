#pragma once
/// How a row-major CPU loop nest walks a loop-IR program: rows (the coalesced outer dims)
/// times an inner extent, each input either contiguous along the inner extent or constant
/// along it, each row's input offsets computed from per-dim strides. A program with inner
/// axes (a reduction over axes that are not innermost) walks rows of the outer dims, the
/// reduced extent, then `lanes` elements of the inner axes: the inner extent is the
/// reduced one, strided, and the lanes are the vector lanes. The interpreter and the
/// generated code both follow this plan, so they agree element by element.

#include <cstdint>
#include <vector>

#include "ge/autofuse/loop_ir.h"

namespace ge::autofuse {

struct InputWalk {
  std::vector<int64_t> outer_strides;  ///< element stride per LoopPlan::outer_dims entry (0: broadcast)
  bool contiguous_inner = true;        ///< false: one element per row, repeated along the inner extent
  int64_t inner_stride = 1;            ///< element stride along the inner extent (1 without lanes)
  bool contiguous_lanes = false;       ///< with lanes: stride 1 along them, else constant along them
};

struct LoopPlan {
  std::vector<int64_t> outer_dims;  ///< coalesced dims of the rows, outermost first (may be empty)
  int64_t rows = 1;
  int64_t inner = 1;  ///< elements per row: the reduced extent, or a suffix every input walks alike
  int64_t lanes = 1;  ///< elements of the inner axes (1 without them): a full value's element (row, i, lane)
                      ///< is at (row * inner + i) * lanes + lane, a row value's at row * lanes + lane
  std::vector<InputWalk> inputs;
  /// Per value: computed once per row (constants, row loads, reductions and what only uses
  /// them) rather than per inner element.
  std::vector<bool> per_row;
  /// Per output: stored once per row (its value is per_row in a program with reductions).
  std::vector<bool> output_per_row;
};

/// The plan of a valid program.
LoopPlan plan_loops(const Program& program);

/// Offset of input `input`'s first element of row `row`.
inline int64_t row_offset(const LoopPlan& plan, size_t input, int64_t row) {
  const std::vector<int64_t>& strides = plan.inputs[input].outer_strides;
  int64_t offset = 0;
  for (size_t d = plan.outer_dims.size(); d-- > 0;) {
    const int64_t extent = plan.outer_dims[d];
    offset += (row % extent) * strides[d];
    row /= extent;
  }
  return offset;
}

}  // namespace ge::autofuse
