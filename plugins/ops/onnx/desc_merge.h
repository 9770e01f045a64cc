#pragma once
/// Combining what shape inference found with what a value's desc already said.

#include <string>

#include "ge/status.h"
#include "ge/tensor_desc.h"

namespace ge::onnx_ops {

/// Merges `inferred` into `existing`: inferred static dims and dtype win; where inference
/// left a dim unknown, the existing static or named dim stays; an inferred unknown rank
/// keeps the existing desc. Two different static extents, two different ranks, two
/// different defined dtypes or two different value kinds are kInvalidArgument errors whose
/// message starts with `what` (e.g. "Conv 'c' output 0 'y'") and shows both descs.
Result<TensorDesc> merge_inferred_desc(const TensorDesc& existing, const TensorDesc& inferred,
                                       const std::string& what);

}  // namespace ge::onnx_ops
