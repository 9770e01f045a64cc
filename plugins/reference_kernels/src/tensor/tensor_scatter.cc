// Scatter (opsets 9-10), ScatterElements and ScatterND: the output is `data` with the
// elements (or slices) picked by an int32/int64 index tensor replaced by, or combined
// (`reduction` add/mul from opset 16, max/min from opset 18) with, `updates`. Updates apply in index
// order, so with reduction "none" a duplicate index keeps the last update.

#include <algorithm>
#include <string>

#include "tensor/registration.h"
#include "tensor/tensor_common.h"

namespace ge::reference_kernels::tensor {
namespace {

enum class Reduction { kNone, kAdd, kMul, kMax, kMin };

Result<Reduction> reduction_attribute(const KernelContext& context) {
  GE_ASSIGN_OR_RETURN(std::string text, string_attribute(context, "reduction", "none"));
  if (text == "none") return Reduction::kNone;
  if (text == "add") return Reduction::kAdd;
  if (text == "mul") return Reduction::kMul;
  if ((text == "max" || text == "min") && context.opset < 18) {
    return invalid_attribute(context, "reduction", "= '" + text + "' needs opset 18 (the model imports opset " +
                                                       std::to_string(context.opset) + ")");
  }
  if (text == "max") return Reduction::kMax;
  if (text == "min") return Reduction::kMin;
  return invalid_attribute(context, "reduction", "= '" + text + "' is not one of none, add, mul, max, min");
}

template <typename T>
inline constexpr bool is_arithmetic_v = is_half_v<T> || std::is_arithmetic_v<T>;

template <typename T>
void combine(T& out, const T& update, Reduction reduction) {
  if constexpr (is_arithmetic_v<T>) {
    const Compute<T> a = load(out);
    const Compute<T> b = load(update);
    switch (reduction) {
      case Reduction::kNone:
        out = update;
        return;
      case Reduction::kAdd:
        out = store<T>(wrapping_add(a, b));
        return;
      case Reduction::kMul:
        out = store<T>(wrapping_mul(a, b));
        return;
      case Reduction::kMax:
        out = store<T>(std::max(a, b));
        return;
      case Reduction::kMin:
        out = store<T>(std::min(a, b));
        return;
    }
  } else {
    (void)reduction;  // copy-only types are prepared with kNone only
    out = update;
  }
}

int64_t resolve_index(int64_t index, int64_t dim) {
  if (index < 0) index += dim;
  return index >= 0 && index < dim ? index : -1;
}

// ---- Scatter, ScatterElements ----

struct ScatterElementsParams {
  int64_t data_count = 0;
  StridedView walk;  // over the updates/indices dims, into the output with stride 0 on axis
  int64_t axis_dim = 0, axis_stride = 0;
  bool index64 = true;
  Reduction reduction = Reduction::kNone;
};

template <typename T>
int scatter_elements_kernel(const KernelArgs& args) {
  const auto& p = *static_cast<const ScatterElementsParams*>(args.params);
  const auto* x = static_cast<const T*>(args.inputs[0]);
  const int64_t count = p.walk.count();
  const IntList indices{args.inputs[1], p.index64, count};
  const auto* updates = static_cast<const T*>(args.inputs[2]);
  auto* y = static_cast<T*>(args.outputs[0]);
  if (p.data_count == 0) return kKernelOk;
  if (x == nullptr || y == nullptr) return kKernelMissingAddress;
  if (count > 0 && (indices.data == nullptr || updates == nullptr)) return kKernelMissingAddress;
  for (int64_t i = 0; i < count; ++i) {
    if (resolve_index(indices[i], p.axis_dim) < 0) return index_out_of_range(indices[i], p.axis_dim);
  }
  if (x != y) copy_elements(y, x, p.data_count);
  for_each_offset(p.walk, [&](int64_t flat, int64_t offset) {
    combine(y[offset + resolve_index(indices[flat], p.axis_dim) * p.axis_stride], updates[flat], p.reduction);
  });
  return kKernelOk;
}

// A kernel for `dtype`: copy types without a reduction, numeric types with one.
template <template <typename> class Kernel>
KernelFunction select_scatter(DataType dtype, Reduction reduction) {
  if (reduction == Reduction::kNone) {
    return select_copy(dtype, []<typename T>() -> KernelFunction { return &Kernel<T>::run; });
  }
  return select_kernel(dtype, NumericTypes{}, []<typename T>() -> KernelFunction { return &Kernel<T>::run; });
}

template <typename T>
struct ScatterElementsKernel {
  static int run(const KernelArgs& args) { return scatter_elements_kernel<T>(args); }
};

Status check_scatter_dtype(const KernelContext& context, KernelFunction function, Reduction reduction) {
  if (function != nullptr) return Status::ok();
  const DataType dtype = input_dtype(context, 0);
  return unsupported_dtype(context, dtype, reduction == Reduction::kNone ? copy_types() : data_types(NumericTypes{}));
}

Result<PreparedKernel> prepare_scatter_elements(const KernelContext& context) {
  const DataType dtype = input_dtype(context, 0);
  GE_ASSIGN_OR_RETURN(std::vector<int64_t> x_dims, input_dims(context, 0));
  GE_ASSIGN_OR_RETURN(std::vector<int64_t> index_dims, input_dims(context, 1));
  GE_ASSIGN_OR_RETURN(std::vector<int64_t> update_dims, input_dims(context, 2));
  GE_RETURN_IF_ERROR(check_index_dtype(context, 1, "indices"));
  GE_RETURN_IF_ERROR(check_input_dtype(context, 2, dtype));
  GE_RETURN_IF_ERROR(check_rank(context, x_dims.size(), "an input"));
  const int64_t rank = static_cast<int64_t>(x_dims.size());
  if (rank == 0 || index_dims.size() != x_dims.size() || update_dims != index_dims) {
    return invalid_node(context, "indices " + shape_to_string(index_dims) + " and updates " +
                                     shape_to_string(update_dims) + " must have one shape of the rank (>= 1) of data " +
                                     shape_to_string(x_dims));
  }
  GE_ASSIGN_OR_RETURN(int64_t axis_value, int_attribute(context, "axis", 0));
  GE_ASSIGN_OR_RETURN(int64_t axis, normalize_axis(context, "axis", axis_value, rank));
  for (int64_t d = 0; d < rank; ++d) {
    if (d != axis && index_dims[d] > x_dims[d]) {
      return invalid_node(context, "indices " + shape_to_string(index_dims) + " exceed data " +
                                       shape_to_string(x_dims) + " on axis " + std::to_string(d));
    }
  }
  GE_RETURN_IF_ERROR(check_output(context, 0, dtype, x_dims));
  ScatterElementsParams params;
  GE_ASSIGN_OR_RETURN(params.reduction, reduction_attribute(context));
  const Index x_strides = strides_of(x_dims);
  params.data_count = product(x_dims);
  params.walk.rank = static_cast<int>(rank);
  params.walk.dims = to_index(index_dims);
  params.walk.strides = x_strides;
  params.walk.strides[axis] = 0;
  params.axis_dim = x_dims[axis];
  params.axis_stride = x_strides[axis];
  params.index64 = input_dtype(context, 1) == DataType::kInt64;
  KernelFunction function = select_scatter<ScatterElementsKernel>(dtype, params.reduction);
  GE_RETURN_IF_ERROR(check_scatter_dtype(context, function, params.reduction));
  return make_kernel(context, function, params);
}

// ---- ScatterND ----

struct ScatterNdParams {
  int64_t data_count = 0;
  int64_t tuples = 0, tuple_size = 0, slice = 0;
  Index tuple_dims{}, tuple_strides{};
  bool index64 = true;
  Reduction reduction = Reduction::kNone;
};

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
int scatter_nd_kernel(const KernelArgs& args) {
  const auto& p = *static_cast<const ScatterNdParams*>(args.params);
  const auto* x = static_cast<const T*>(args.inputs[0]);
  const IntList indices{args.inputs[1], p.index64, p.tuples * p.tuple_size};
  const auto* updates = static_cast<const T*>(args.inputs[2]);
  auto* y = static_cast<T*>(args.outputs[0]);
  if (p.data_count == 0) return kKernelOk;
  if (x == nullptr || y == nullptr) return kKernelMissingAddress;
  if (p.tuples > 0 && (indices.data == nullptr || (p.slice > 0 && updates == nullptr))) return kKernelMissingAddress;
  for (int64_t t = 0; t < p.tuples; ++t) {
    if (tuple_offset(indices, t * p.tuple_size, p.tuple_size, p.tuple_dims, p.tuple_strides) < 0) {
      return kernel_error(kKernelIndexOutOfRange, "index tuple " + std::to_string(t) + " is outside the data's dims");
    }
  }
  if (x != y) copy_elements(y, x, p.data_count);
  for (int64_t t = 0; t < p.tuples; ++t) {
    const int64_t offset = tuple_offset(indices, t * p.tuple_size, p.tuple_size, p.tuple_dims, p.tuple_strides);
    for (int64_t i = 0; i < p.slice; ++i) combine(y[offset + i], updates[t * p.slice + i], p.reduction);
  }
  return kKernelOk;
}

template <typename T>
struct ScatterNdKernel {
  static int run(const KernelArgs& args) { return scatter_nd_kernel<T>(args); }
};

Result<PreparedKernel> prepare_scatter_nd(const KernelContext& context) {
  const DataType dtype = input_dtype(context, 0);
  GE_ASSIGN_OR_RETURN(std::vector<int64_t> x_dims, input_dims(context, 0));
  GE_ASSIGN_OR_RETURN(std::vector<int64_t> index_dims, input_dims(context, 1));
  GE_ASSIGN_OR_RETURN(std::vector<int64_t> update_dims, input_dims(context, 2));
  GE_RETURN_IF_ERROR(check_index_dtype(context, 1, "indices"));
  GE_RETURN_IF_ERROR(check_input_dtype(context, 2, dtype));
  GE_RETURN_IF_ERROR(check_rank(context, x_dims.size(), "an input"));
  const int64_t r = static_cast<int64_t>(x_dims.size());
  const int64_t k = index_dims.empty() ? 0 : index_dims.back();
  if (index_dims.empty() || k < 1 || k > r) {
    return invalid_node(context, "the last dim of indices " + shape_to_string(index_dims) + " must be in [1, " +
                                     std::to_string(r) + "]");
  }
  std::vector<int64_t> expected_updates(index_dims.begin(), index_dims.end() - 1);
  expected_updates.insert(expected_updates.end(), x_dims.begin() + k, x_dims.end());
  if (update_dims != expected_updates) {
    return invalid_node(
        context, "updates " + shape_to_string(update_dims) + " must have shape " + shape_to_string(expected_updates));
  }
  GE_RETURN_IF_ERROR(check_output(context, 0, dtype, x_dims));
  const Index x_strides = strides_of(x_dims);
  ScatterNdParams params;
  GE_ASSIGN_OR_RETURN(params.reduction, reduction_attribute(context));
  params.data_count = product(x_dims);
  params.tuples = product(index_dims, 0, index_dims.size() - 1);
  params.tuple_size = k;
  params.slice = product(x_dims, static_cast<size_t>(k), x_dims.size());
  for (int64_t j = 0; j < k; ++j) {
    params.tuple_dims[j] = x_dims[j];
    params.tuple_strides[j] = x_strides[j];
  }
  params.index64 = input_dtype(context, 1) == DataType::kInt64;
  KernelFunction function = select_scatter<ScatterNdKernel>(dtype, params.reduction);
  GE_RETURN_IF_ERROR(check_scatter_dtype(context, function, params.reduction));
  return make_kernel(context, function, params);
}

// ---- ge::ScatterRows: ScatterElements(data, Expand(rows, shape), updates) on axis 0 ----

struct ScatterRowsParams {
  int64_t data_count = 0;
  int rank = 0;
  Index row_dims{}, update_dims{};
  int64_t shape_length = 0;  // Expand's shape, read at launch
  int64_t axis_dim = 0, row_stride = 0, update_row = 0;
  bool whole_rows = false;  // an update row is a data row: one copy each
  StridedView walk;         // over an update row, into a data row
  bool index64 = true;
};

template <typename T>
int scatter_rows_kernel(const KernelArgs& args) {
  const auto& p = *static_cast<const ScatterRowsParams*>(args.params);
  const auto* x = static_cast<const T*>(args.inputs[0]);
  const IntList rows{args.inputs[1], p.index64, p.row_dims[0]};
  const auto* updates = static_cast<const T*>(args.inputs[2]);
  const auto* shape = static_cast<const int64_t*>(args.inputs[3]);
  auto* y = static_cast<T*>(args.outputs[0]);
  if (p.shape_length > 0 && shape == nullptr) return kKernelMissingAddress;
  // Expand(rows, shape) must have the shape of updates (ScatterElements' indices do).
  for (int d = 0; d < p.rank; ++d) {
    const int64_t lead = p.rank - p.shape_length;
    const int64_t wanted = d >= lead ? shape[d - lead] : 1;
    const int64_t a = p.row_dims[d];
    const int64_t expanded = a == 1 ? wanted : (wanted == 1 || wanted == a ? a : -1);
    if (expanded != p.update_dims[d]) {
      return kernel_error(kKernelRuntimeShapeMismatch,
                          "the indices, rows expanded to the shape input, do not have "
                          "the shape of updates on axis " +
                              std::to_string(d));
    }
  }
  if (p.data_count == 0) return kKernelOk;
  if (x == nullptr || y == nullptr) return kKernelMissingAddress;
  const int64_t count = p.update_dims[0];
  if (count > 0 && p.update_row > 0 && (rows.data == nullptr || updates == nullptr)) return kKernelMissingAddress;
  for (int64_t i = 0; i < (p.update_row > 0 ? p.row_dims[0] : 0); ++i) {
    if (resolve_index(rows[i], p.axis_dim) < 0) return index_out_of_range(rows[i], p.axis_dim);
  }
  if (x != y) copy_elements(y, x, p.data_count);
  if (p.update_row == 0) return kKernelOk;
  for (int64_t i = 0; i < count; ++i) {
    const int64_t row = resolve_index(rows[p.row_dims[0] == 1 ? 0 : i], p.axis_dim);
    T* out = y + row * p.row_stride;
    const T* in = updates + i * p.update_row;
    if (p.whole_rows) {
      copy_elements(out, in, p.update_row);
    } else {
      for_each_offset(p.walk, [&](int64_t flat, int64_t offset) { out[offset] = in[flat]; });
    }
  }
  return kKernelOk;
}

template <typename T>
struct ScatterRowsKernel {
  static int run(const KernelArgs& args) { return scatter_rows_kernel<T>(args); }
};

Result<PreparedKernel> prepare_scatter_rows(const KernelContext& context) {
  const DataType dtype = input_dtype(context, 0);
  GE_ASSIGN_OR_RETURN(std::vector<int64_t> x_dims, input_dims(context, 0));
  GE_ASSIGN_OR_RETURN(std::vector<int64_t> row_dims, input_dims(context, 1));
  GE_ASSIGN_OR_RETURN(std::vector<int64_t> update_dims, input_dims(context, 2));
  GE_ASSIGN_OR_RETURN(std::vector<int64_t> shape_dims, input_dims(context, 3));
  GE_RETURN_IF_ERROR(check_index_dtype(context, 1, "rows"));
  GE_RETURN_IF_ERROR(check_input_dtype(context, 2, dtype));
  GE_RETURN_IF_ERROR(check_input_dtype(context, 3, DataType::kInt64));
  GE_RETURN_IF_ERROR(check_rank(context, x_dims.size(), "an input"));
  const size_t rank = x_dims.size();
  bool unit_tail = row_dims.size() == rank;
  for (size_t d = 1; unit_tail && d < rank; ++d) unit_tail = row_dims[d] == 1;
  if (rank == 0 || !unit_tail || update_dims.size() != rank || (row_dims[0] != 1 && row_dims[0] != update_dims[0])) {
    return invalid_node(context, "rows " + shape_to_string(row_dims) +
                                     " must be [K, 1, ...] or [1, 1, ...] of the rank "
                                     "(>= 1) of data " +
                                     shape_to_string(x_dims) + ", and updates " + shape_to_string(update_dims) +
                                     " [K, ...] of that rank");
  }
  if (shape_dims.size() != 1 || shape_dims[0] > static_cast<int64_t>(rank)) {
    return invalid_node(context, "shape " + shape_to_string(shape_dims) + " must be 1-D of at most " +
                                     std::to_string(rank) + " elements");
  }
  for (size_t d = 1; d < rank; ++d) {
    if (update_dims[d] > x_dims[d]) {
      return invalid_node(context, "updates " + shape_to_string(update_dims) + " exceed data " +
                                       shape_to_string(x_dims) + " on axis " + std::to_string(d));
    }
  }
  GE_RETURN_IF_ERROR(check_output(context, 0, dtype, x_dims));
  ScatterRowsParams params;
  params.data_count = product(x_dims);
  params.rank = static_cast<int>(rank);
  params.row_dims = to_index(row_dims);
  params.update_dims = to_index(update_dims);
  params.shape_length = shape_dims[0];
  params.axis_dim = x_dims[0];
  params.row_stride = product(x_dims, 1, rank);
  params.update_row = product(update_dims, 1, rank);
  params.whole_rows = std::equal(update_dims.begin() + 1, update_dims.end(), x_dims.begin() + 1);
  const Index x_strides = strides_of(x_dims);
  params.walk.rank = static_cast<int>(rank) - 1;
  for (size_t d = 1; d < rank; ++d) {
    params.walk.dims[d - 1] = update_dims[d];
    params.walk.strides[d - 1] = x_strides[d];
  }
  params.index64 = input_dtype(context, 1) == DataType::kInt64;
  KernelFunction function = select_scatter<ScatterRowsKernel>(dtype, Reduction::kNone);
  GE_RETURN_IF_ERROR(check_scatter_dtype(context, function, Reduction::kNone));
  return make_kernel(context, function, params);
}

}  // namespace

void add_scatter_kernels(std::vector<OpKernel>& table) {
  table.push_back({"ge::ScatterRows", copy_types(), &prepare_scatter_rows});
  table.push_back({"Scatter", copy_types(), &prepare_scatter_elements});
  table.push_back({"ScatterElements", copy_types(), &prepare_scatter_elements});
  table.push_back({"ScatterND", copy_types(), &prepare_scatter_nd});
}

}  // namespace ge::reference_kernels::tensor
