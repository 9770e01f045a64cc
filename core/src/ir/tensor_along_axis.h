#pragma once
/// Copying tensors along one axis: the slices, ranges, stacks and concatenations the host
/// ops (Loop, Scan, the sequence ops) build their values from. Private to the core.

#include <cstdint>
#include <vector>

#include "ge/status.h"
#include "ge/tensor.h"

namespace ge::detail {

/// The `index`-th slice of `t` along `axis`, with that axis removed.
Tensor slice_along(const Tensor& t, int64_t axis, int64_t index);
/// Stacks equally-shaped tensors along a new axis `axis`.
Result<Tensor> stack_along(const std::vector<Tensor>& items, int64_t axis);
/// Concatenates tensors along existing axis `axis` (other dims must agree).
Result<Tensor> concat_along(const std::vector<Tensor>& items, int64_t axis);
/// Elements [begin, begin+length) of `t` along `axis`.
Tensor narrow(const Tensor& t, int64_t axis, int64_t begin, int64_t length);

}  // namespace ge::detail
