// Copying tensors along one axis (tensor_along_axis.h): slice, narrow, stack, concatenate.
#include "tensor_along_axis.h"

#include <cstring>
#include <string>

#include "ge/tensor_desc.h"

namespace ge::detail {
namespace {

void copy_elements(Tensor& dst, int64_t dst_index, const Tensor& src, int64_t src_index, int64_t count) {
  if (count <= 0) return;
  if (src.dtype() == DataType::kString) {
    for (int64_t i = 0; i < count; ++i) dst.data<std::string>()[dst_index + i] = src.data<std::string>()[src_index + i];
    return;
  }
  const size_t size = element_size(src.dtype());
  std::memcpy(static_cast<char*>(dst.raw_data()) + dst_index * size,
              static_cast<const char*>(src.raw_data()) + src_index * size, static_cast<size_t>(count) * size);
}

int64_t product(const std::vector<int64_t>& dims, size_t begin, size_t end) {
  int64_t p = 1;
  for (size_t i = begin; i < end && i < dims.size(); ++i) p *= dims[i];
  return p;
}

}  // namespace

Tensor narrow(const Tensor& t, int64_t axis, int64_t begin, int64_t length) {
  std::vector<int64_t> dims = t.shape();
  const int64_t outer = product(dims, 0, static_cast<size_t>(axis));
  const int64_t inner = product(dims, static_cast<size_t>(axis) + 1, dims.size());
  const int64_t extent = dims[axis];
  dims[axis] = length;
  Tensor out = Tensor::zeros(t.dtype(), dims);
  for (int64_t o = 0; o < outer; ++o) copy_elements(out, o * length * inner, t, (o * extent + begin) * inner, length * inner);
  return out;
}

Tensor slice_along(const Tensor& t, int64_t axis, int64_t index) {
  Tensor slice = narrow(t, axis, index, 1);
  std::vector<int64_t> dims = t.shape();
  dims.erase(dims.begin() + axis);
  return slice.reshaped(dims).value();
}

Result<Tensor> stack_along(const std::vector<Tensor>& items, int64_t axis) {
  if (items.empty()) return invalid_argument("cannot stack an empty list of tensors");
  const std::vector<int64_t>& shape = items[0].shape();
  for (const Tensor& t : items) {
    if (t.shape() != shape || t.dtype() != items[0].dtype()) {
      return invalid_argument("cannot stack " + std::string(data_type_name(t.dtype())) + shape_to_string(t.shape()) + " with " +
                              std::string(data_type_name(items[0].dtype())) + shape_to_string(shape));
    }
  }
  const auto n = static_cast<int64_t>(items.size());
  std::vector<int64_t> dims = shape;
  dims.insert(dims.begin() + axis, n);
  const int64_t outer = product(shape, 0, static_cast<size_t>(axis));
  const int64_t inner = product(shape, static_cast<size_t>(axis), shape.size());
  Tensor out = Tensor::zeros(items[0].dtype(), dims);
  for (int64_t o = 0; o < outer; ++o) {
    for (int64_t i = 0; i < n; ++i) copy_elements(out, (o * n + i) * inner, items[i], o * inner, inner);
  }
  return out;
}

Result<Tensor> concat_along(const std::vector<Tensor>& items, int64_t axis) {
  if (items.empty()) return invalid_argument("cannot concatenate an empty list of tensors");
  std::vector<int64_t> dims = items[0].shape();
  int64_t total = 0;
  for (const Tensor& t : items) {
    bool ok = t.rank() == items[0].rank() && t.dtype() == items[0].dtype();
    for (size_t d = 0; ok && d < dims.size(); ++d) ok = static_cast<int64_t>(d) == axis || t.shape()[d] == dims[d];
    if (!ok) return invalid_argument("cannot concatenate " + shape_to_string(t.shape()) + " with " + shape_to_string(dims) +
                                     " along axis " + std::to_string(axis));
    total += t.shape()[axis];
  }
  dims[axis] = total;
  const int64_t outer = product(dims, 0, static_cast<size_t>(axis));
  const int64_t inner = product(dims, static_cast<size_t>(axis) + 1, dims.size());
  Tensor out = Tensor::zeros(items[0].dtype(), dims);
  for (int64_t o = 0; o < outer; ++o) {
    int64_t offset = 0;
    for (const Tensor& t : items) {
      const int64_t len = t.shape()[axis] * inner;
      copy_elements(out, o * total * inner + offset, t, o * len, len);
      offset += len;
    }
  }
  return out;
}

}  // namespace ge::detail
