#pragma once
/// Helpers the mapping families share.

#include <string>
#include <vector>

#include "importer.h"

namespace ge::torchscript {

/// The recorded output `o`'s sizes.
inline std::vector<int64_t> output_sizes(const Importer& im, const jit::Node* node, size_t o = 0) {
  const at::Tensor& t = im.output_example(node, o);
  return std::vector<int64_t>(t.sizes().begin(), t.sizes().end());
}

/// `axis` in [0, rank): negative axes count from the end.
inline int64_t normalise_axis(int64_t axis, int64_t rank) {
  const int64_t a = axis < 0 ? axis + rank : axis;
  if (a < 0 || a >= std::max<int64_t>(rank, 1)) fail("axis " + std::to_string(axis) + " is out of rank " + std::to_string(rank));
  return a;
}

/// A Reshape of `value` to the recorded shape of `node`'s output `o` (the import is for
/// static shapes, so every view is a constant shape).
inline Value* reshape_to_output(Importer& im, const jit::Node* node, Value* value, size_t o = 0) {
  const std::vector<int64_t> sizes = output_sizes(im, node, o);
  bool zero = false;
  for (int64_t d : sizes) zero = zero || d == 0;
  std::map<std::string, Attribute> attributes;
  if (zero) attributes["allowzero"] = int64_t{1};
  return im.op("Reshape", {value, im.const_i64(sizes)}, std::move(attributes));
}

/// The dtype torch computes a binary op of inputs `a` and `b` in (at::result_type of the
/// example run's values: tensors, 0-d tensors and Python numbers as torch promotes them).
DataType promoted_dtype(const Importer& im, const jit::Node* node, size_t a, size_t b);

/// Input `i` as a tensor of `dtype` (a Python number made in it; a tensor cast to it).
Value* operand(Importer& im, const jit::Node* node, size_t i, DataType dtype);

}  // namespace ge::torchscript
