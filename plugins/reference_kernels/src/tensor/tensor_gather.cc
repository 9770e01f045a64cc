// Gather, GatherElements and GatherND: copy elements (or slices) of `data` picked by an
// int32/int64 index tensor read at launch. Negative indices count from the end of their
// axis; an index outside [-dim, dim) stops the kernel with kKernelIndexOutOfRange.

#include <string>

#include "tensor/registration.h"
#include "tensor/tensor_common.h"

namespace ge::reference_kernels::tensor {
namespace {

/// `index` of an axis of `dim` made non-negative; -1 when out of range.
int64_t resolve_index(int64_t index, int64_t dim) {
  if (index < 0) index += dim;
  return index >= 0 && index < dim ? index : -1;
}

// ---- Gather: y[o, j, i] = x[o, indices[j], i] ----

struct GatherParams {
  int64_t outer = 0, axis_dim = 0, inner = 0;
  int64_t index_count = 0;
  bool index64 = true;
};

template <typename T>
int gather_kernel(const KernelArgs& args) {
  const auto& p = *static_cast<const GatherParams*>(args.params);
  if (p.outer * p.index_count == 0) return kKernelOk;
  const auto* x = static_cast<const T*>(args.inputs[0]);
  const IntList indices{args.inputs[1], p.index64, p.index_count};
  auto* y = static_cast<T*>(args.outputs[0]);
  if (indices.data == nullptr || y == nullptr || (p.inner > 0 && x == nullptr)) return kKernelMissingAddress;
  for (int64_t j = 0; j < p.index_count; ++j) {
    if (resolve_index(indices[j], p.axis_dim) < 0) return index_out_of_range(indices[j], p.axis_dim);
  }
  for (int64_t o = 0; o < p.outer; ++o) {
    for (int64_t j = 0; j < p.index_count; ++j) {
      const int64_t index = resolve_index(indices[j], p.axis_dim);
      copy_elements(y + (o * p.index_count + j) * p.inner, x + (o * p.axis_dim + index) * p.inner, p.inner);
    }
  }
  return kKernelOk;
}

Result<PreparedKernel> prepare_gather(const KernelContext& context) {
  const DataType dtype = input_dtype(context, 0);
  GE_ASSIGN_OR_RETURN(std::vector<int64_t> x_dims, input_dims(context, 0));
  GE_ASSIGN_OR_RETURN(std::vector<int64_t> index_dims, input_dims(context, 1));
  GE_RETURN_IF_ERROR(check_index_dtype(context, 1, "indices"));
  const int64_t rank = static_cast<int64_t>(x_dims.size());
  if (rank == 0) return invalid_node(context, "input 0 must have rank >= 1");
  GE_ASSIGN_OR_RETURN(int64_t axis_value, int_attribute(context, "axis", 0));
  GE_ASSIGN_OR_RETURN(int64_t axis, normalize_axis(context, "axis", axis_value, rank));
  const size_t a = static_cast<size_t>(axis);
  std::vector<int64_t> y_dims(x_dims.begin(), x_dims.begin() + axis);
  y_dims.insert(y_dims.end(), index_dims.begin(), index_dims.end());
  y_dims.insert(y_dims.end(), x_dims.begin() + axis + 1, x_dims.end());
  GE_RETURN_IF_ERROR(check_output(context, 0, dtype, y_dims));
  GatherParams params{product(x_dims, 0, a), x_dims[a], product(x_dims, a + 1, x_dims.size()), product(index_dims),
                      input_dtype(context, 1) == DataType::kInt64};
  KernelFunction function = select_copy(dtype, []<typename T>() -> KernelFunction { return &gather_kernel<T>; });
  if (function == nullptr) return unsupported_dtype(context, dtype, copy_types());
  return make_kernel(context, function, params);
}

// ---- GatherElements: y[i] = x[i with i[axis] replaced by indices[i]] ----

struct GatherElementsParams {
  StridedView walk;  // over the indices' dims, reading x with stride 0 on axis
  int64_t axis_dim = 0, axis_stride = 0;
  bool index64 = true;
};

template <typename T>
int gather_elements_kernel(const KernelArgs& args) {
  const auto& p = *static_cast<const GatherElementsParams*>(args.params);
  const int64_t count = p.walk.count();
  if (count == 0) return kKernelOk;
  const auto* x = static_cast<const T*>(args.inputs[0]);
  const IntList indices{args.inputs[1], p.index64, count};
  auto* y = static_cast<T*>(args.outputs[0]);
  if (x == nullptr || indices.data == nullptr || y == nullptr) return kKernelMissingAddress;
  for (int64_t i = 0; i < count; ++i) {
    if (resolve_index(indices[i], p.axis_dim) < 0) return index_out_of_range(indices[i], p.axis_dim);
  }
  for_each_offset(p.walk, [&](int64_t flat, int64_t offset) {
    y[flat] = x[offset + resolve_index(indices[flat], p.axis_dim) * p.axis_stride];
  });
  return kKernelOk;
}

Result<PreparedKernel> prepare_gather_elements(const KernelContext& context) {
  const DataType dtype = input_dtype(context, 0);
  GE_ASSIGN_OR_RETURN(std::vector<int64_t> x_dims, input_dims(context, 0));
  GE_ASSIGN_OR_RETURN(std::vector<int64_t> index_dims, input_dims(context, 1));
  GE_RETURN_IF_ERROR(check_index_dtype(context, 1, "indices"));
  GE_RETURN_IF_ERROR(check_rank(context, x_dims.size(), "an input"));
  const int64_t rank = static_cast<int64_t>(x_dims.size());
  if (rank == 0 || index_dims.size() != x_dims.size()) {
    return invalid_node(context, "indices " + shape_to_string(index_dims) + " must have the rank (>= 1) of input " +
                                     shape_to_string(x_dims));
  }
  GE_ASSIGN_OR_RETURN(int64_t axis_value, int_attribute(context, "axis", 0));
  GE_ASSIGN_OR_RETURN(int64_t axis, normalize_axis(context, "axis", axis_value, rank));
  for (int64_t d = 0; d < rank; ++d) {
    if (d != axis && index_dims[d] > x_dims[d]) {
      return invalid_node(context, "indices " + shape_to_string(index_dims) + " exceed input " +
                                       shape_to_string(x_dims) + " on axis " + std::to_string(d));
    }
  }
  GE_RETURN_IF_ERROR(check_output(context, 0, dtype, index_dims));
  GatherElementsParams params;
  const Index x_strides = strides_of(x_dims);
  params.walk.rank = static_cast<int>(rank);
  params.walk.dims = to_index(index_dims);
  params.walk.strides = x_strides;
  params.walk.strides[axis] = 0;
  params.axis_dim = x_dims[axis];
  params.axis_stride = x_strides[axis];
  params.index64 = input_dtype(context, 1) == DataType::kInt64;
  KernelFunction function =
      select_copy(dtype, []<typename T>() -> KernelFunction { return &gather_elements_kernel<T>; });
  if (function == nullptr) return unsupported_dtype(context, dtype, copy_types());
  return make_kernel(context, function, params);
}

// ---- GatherND: each index tuple (the last indices axis) picks a slice ----

struct GatherNdParams {
  int64_t batches = 0;                  // product of the first batch_dims dims
  int64_t tuples = 0;                   // index tuples per batch
  int64_t tuple_size = 0;               // k
  int64_t slice = 0;                    // elements per picked slice
  int64_t batch_stride = 0;             // x elements per batch
  Index tuple_dims{}, tuple_strides{};  // the k indexed axes of x
  bool index64 = true;
};

// The x offset (within a batch) that tuple `t` picks; -1 when an index is out of range.
int64_t tuple_offset(const IntList& indices, int64_t first, int64_t size, const Index& dims, const Index& strides) {
  int64_t offset = 0;
  for (int64_t j = 0; j < size; ++j) {
    const int64_t index = resolve_index(indices[first + j], dims[j]);
    if (index < 0) return -1;
    offset += index * strides[j];
  }
  return offset;
}

template <typename T>
int gather_nd_kernel(const KernelArgs& args) {
  const auto& p = *static_cast<const GatherNdParams*>(args.params);
  const int64_t tuple_count = p.batches * p.tuples;
  if (tuple_count == 0) return kKernelOk;
  const auto* x = static_cast<const T*>(args.inputs[0]);
  const IntList indices{args.inputs[1], p.index64, tuple_count * p.tuple_size};
  auto* y = static_cast<T*>(args.outputs[0]);
  if (indices.data == nullptr || (p.slice > 0 && (x == nullptr || y == nullptr))) return kKernelMissingAddress;
  for (int64_t t = 0; t < tuple_count; ++t) {
    if (tuple_offset(indices, t * p.tuple_size, p.tuple_size, p.tuple_dims, p.tuple_strides) < 0) {
      return kernel_error(kKernelIndexOutOfRange, "index tuple " + std::to_string(t) + " is outside the data's dims");
    }
  }
  for (int64_t b = 0; b < p.batches; ++b) {
    for (int64_t t = 0; t < p.tuples; ++t) {
      const int64_t tuple = b * p.tuples + t;
      const int64_t offset = tuple_offset(indices, tuple * p.tuple_size, p.tuple_size, p.tuple_dims, p.tuple_strides);
      copy_elements(y + tuple * p.slice, x + b * p.batch_stride + offset, p.slice);
    }
  }
  return kKernelOk;
}

Result<PreparedKernel> prepare_gather_nd(const KernelContext& context) {
  const DataType dtype = input_dtype(context, 0);
  GE_ASSIGN_OR_RETURN(std::vector<int64_t> x_dims, input_dims(context, 0));
  GE_ASSIGN_OR_RETURN(std::vector<int64_t> index_dims, input_dims(context, 1));
  GE_RETURN_IF_ERROR(check_index_dtype(context, 1, "indices"));
  GE_RETURN_IF_ERROR(check_rank(context, x_dims.size(), "an input"));
  GE_ASSIGN_OR_RETURN(int64_t batch_dims, int_attribute(context, "batch_dims", 0));
  const int64_t r = static_cast<int64_t>(x_dims.size());
  const int64_t q = static_cast<int64_t>(index_dims.size());
  if (q < 1 || batch_dims < 0 || batch_dims >= std::min(q, r)) {
    return invalid_attribute(context, "batch_dims",
                             "= " + std::to_string(batch_dims) + " must be in [0, min(rank(data), rank(indices)))");
  }
  const int64_t k = index_dims.back();
  if (k < 1 || k > r - batch_dims) {
    return invalid_node(context, "the last dim of indices " + shape_to_string(index_dims) + " must be in [1, " +
                                     std::to_string(r - batch_dims) + "]");
  }
  for (int64_t d = 0; d < batch_dims; ++d) {
    if (x_dims[d] != index_dims[d]) {
      return invalid_node(context, "batch dim " + std::to_string(d) + " differs between data " +
                                       shape_to_string(x_dims) + " and indices " + shape_to_string(index_dims));
    }
  }
  std::vector<int64_t> y_dims(index_dims.begin(), index_dims.end() - 1);
  y_dims.insert(y_dims.end(), x_dims.begin() + batch_dims + k, x_dims.end());
  GE_RETURN_IF_ERROR(check_output(context, 0, dtype, y_dims));
  const Index x_strides = strides_of(x_dims);
  const size_t b = static_cast<size_t>(batch_dims);
  GatherNdParams params;
  params.batches = product(x_dims, 0, b);
  params.tuples = product(index_dims, b, index_dims.size() - 1);
  params.tuple_size = k;
  params.slice = product(x_dims, b + static_cast<size_t>(k), x_dims.size());
  params.batch_stride = product(x_dims, b, x_dims.size());
  for (int64_t j = 0; j < k; ++j) {
    params.tuple_dims[j] = x_dims[batch_dims + j];
    params.tuple_strides[j] = x_strides[batch_dims + j];
  }
  params.index64 = input_dtype(context, 1) == DataType::kInt64;
  KernelFunction function = select_copy(dtype, []<typename T>() -> KernelFunction { return &gather_nd_kernel<T>; });
  if (function == nullptr) return unsupported_dtype(context, dtype, copy_types());
  return make_kernel(context, function, params);
}

}  // namespace

void add_gather_kernels(std::vector<OpKernel>& table) {
  table.push_back({"Gather", copy_types(), &prepare_gather});
  table.push_back({"GatherElements", copy_types(), &prepare_gather_elements});
  table.push_back({"GatherND", copy_types(), &prepare_gather_nd});
}

}  // namespace ge::reference_kernels::tensor
