// Unique (opset 11): the distinct elements (or, with `axis`, the distinct slices along
// it), sorted ascending (`sorted`=1, slices compared lexicographically) or in order of
// first occurrence, with the optional outputs indices (first occurrence), inverse_indices
// and counts, as numpy.unique. The distinct count depends on the data: the output descs
// must come from run-time shape inference (or a kernel-computed shape); the kernel checks
// them. Work arrays live in the workspace (6 int64 per slice).

#include <algorithm>
#include <string>

#include "tensor/registration.h"
#include "tensor/tensor_common.h"

namespace ge::reference_kernels::tensor {
namespace {

struct UniqueParams {
  int64_t outer = 0, n = 0, inner = 0;  // input as [outer, n, inner]; n slices
  int64_t unique = 0;                   // output extent of the distinct axis
  bool sorted = true;
  size_t outputs = 1;  // how many outputs the node lists (the args hold that many)
};

template <typename T>
auto key(const T& value) {
  if constexpr (is_half_v<T>) {
    return load(value);
  } else {
    return value;
  }
}

// -1, 0, 1 as slice a is before, equal to or after slice b.
template <typename T>
int compare_slices(const T* x, const UniqueParams& p, int64_t a, int64_t b) {
  for (int64_t o = 0; o < p.outer; ++o) {
    const T* slice_a = x + (o * p.n + a) * p.inner;
    const T* slice_b = x + (o * p.n + b) * p.inner;
    for (int64_t j = 0; j < p.inner; ++j) {
      if (key(slice_a[j]) < key(slice_b[j])) return -1;
      if (key(slice_b[j]) < key(slice_a[j])) return 1;
    }
  }
  return 0;
}

template <typename T>
int unique_kernel(const KernelArgs& args) {
  const auto& p = *static_cast<const UniqueParams*>(args.params);
  const auto* x = static_cast<const T*>(args.inputs[0]);
  auto* y = static_cast<T*>(args.outputs[0]);
  auto int64_output = [&](size_t i) { return i < p.outputs ? static_cast<int64_t*>(args.outputs[i]) : nullptr; };
  int64_t* first_indices = int64_output(1);
  int64_t* inverse = int64_output(2);
  int64_t* counts = int64_output(3);
  if (p.n == 0) return p.unique == 0 ? kKernelOk : kKernelRuntimeShapeMismatch;
  if (x == nullptr || args.workspace == nullptr) return kKernelMissingAddress;
  auto* order = static_cast<int64_t*>(args.workspace);  // slices, sorted
  int64_t* group_of = order + p.n;                      // slice -> sorted group
  int64_t* first_of = group_of + p.n;                   // sorted group -> first slice
  int64_t* count_of = first_of + p.n;                   // sorted group -> slices in it
  int64_t* output_order = count_of + p.n;               // output position -> sorted group
  int64_t* position_of = output_order + p.n;            // sorted group -> output position
  for (int64_t i = 0; i < p.n; ++i) order[i] = i;
  // Ties broken by index, so each group starts with its first occurrence.
  std::sort(order, order + p.n, [&](int64_t a, int64_t b) {
    const int c = compare_slices(x, p, a, b);
    return c != 0 ? c < 0 : a < b;
  });
  int64_t groups = 0;
  for (int64_t i = 0; i < p.n; ++i) {
    if (i == 0 || compare_slices(x, p, order[i - 1], order[i]) != 0) {
      first_of[groups] = order[i];
      count_of[groups] = 0;
      ++groups;
    }
    group_of[order[i]] = groups - 1;
    ++count_of[groups - 1];
  }
  if (groups != p.unique) return kKernelRuntimeShapeMismatch;
  for (int64_t g = 0; g < groups; ++g) output_order[g] = g;
  if (!p.sorted) {
    std::sort(output_order, output_order + groups, [&](int64_t a, int64_t b) { return first_of[a] < first_of[b]; });
  }
  for (int64_t position = 0; position < groups; ++position) position_of[output_order[position]] = position;
  for (int64_t position = 0; position < groups; ++position) {
    const int64_t g = output_order[position];
    if (y != nullptr) {
      for (int64_t o = 0; o < p.outer; ++o) {
        copy_elements(y + (o * groups + position) * p.inner, x + (o * p.n + first_of[g]) * p.inner, p.inner);
      }
    }
    if (first_indices != nullptr) first_indices[position] = first_of[g];
    if (counts != nullptr) counts[position] = count_of[g];
  }
  if (inverse != nullptr) {
    for (int64_t i = 0; i < p.n; ++i) inverse[i] = position_of[group_of[i]];
  }
  return kKernelOk;
}

using UniqueTypes = TypeList<float, double, Float16, BFloat16, int8_t, int16_t, int32_t, int64_t, uint8_t, uint16_t,
                             uint32_t, uint64_t, bool, std::string>;

Result<PreparedKernel> prepare_unique(const KernelContext& context) {
  const DataType dtype = input_dtype(context, 0);
  GE_ASSIGN_OR_RETURN(std::vector<int64_t> x_dims, input_dims(context, 0));
  if (!has_output(context, 0)) return invalid_node(context, "output 0 (Y) is missing");
  GE_ASSIGN_OR_RETURN(std::vector<int64_t> y_dims, output_dims(context, 0));
  UniqueParams params;
  GE_ASSIGN_OR_RETURN(int64_t sorted, int_attribute(context, "sorted", 1));
  params.sorted = sorted != 0;
  params.outputs = context.node.output_count();
  std::vector<int64_t> expected_y;
  if (context.node.has_attribute("axis")) {
    const int64_t rank = static_cast<int64_t>(x_dims.size());
    GE_ASSIGN_OR_RETURN(int64_t axis_value, int_attribute(context, "axis", 0));
    GE_ASSIGN_OR_RETURN(int64_t axis, normalize_axis(context, "axis", axis_value, rank));
    const size_t a = static_cast<size_t>(axis);
    params.outer = product(x_dims, 0, a);
    params.n = x_dims[a];
    params.inner = product(x_dims, a + 1, x_dims.size());
    expected_y = x_dims;
    if (y_dims.size() == x_dims.size()) expected_y[a] = y_dims[a];
    params.unique = expected_y[a];
  } else {
    params.outer = 1;
    params.n = product(x_dims);
    params.inner = 1;
    expected_y = {y_dims.size() == 1 ? y_dims[0] : 0};
    params.unique = expected_y[0];
  }
  GE_RETURN_IF_ERROR(check_output(context, 0, dtype, expected_y));
  const std::vector<int64_t> per_output[] = {{params.unique}, {params.n}, {params.unique}};
  for (size_t i = 1; i <= 3; ++i) {
    if (has_output(context, i)) GE_RETURN_IF_ERROR(check_output(context, i, DataType::kInt64, per_output[i - 1]));
  }
  KernelFunction function =
      select_kernel(dtype, UniqueTypes{}, []<typename T>() -> KernelFunction { return &unique_kernel<T>; });
  const size_t workspace = static_cast<size_t>(6 * params.n) * sizeof(int64_t);
  return make_kernel(context, function, params, workspace);
}

}  // namespace

void add_unique_kernels(std::vector<OpKernel>& table) {
  table.push_back({"Unique", data_types(UniqueTypes{}), &prepare_unique});
}

}  // namespace ge::reference_kernels::tensor
