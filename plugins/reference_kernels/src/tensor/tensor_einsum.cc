// Einsum (opset 12): parses the equation in prepare into labels (letters, plus one
// label per broadcast ellipsis dim), each with an extent and, per input, a stride (the
// sum of the strides of the axes carrying it, which walks a diagonal when a label
// repeats; 0 where the input broadcasts). Without "->" the output is the ellipsis dims
// followed by the labels used once, in alphabetical order, as numpy.einsum. The kernel
// is the definition: for every output element, the sum over the other labels of the
// product of the inputs. Floating types accumulate in double.

#include <algorithm>
#include <array>
#include <string>

#include "tensor/registration.h"
#include "tensor/tensor_common.h"

namespace ge::reference_kernels::tensor {
namespace {

constexpr int kLetters = 52;
constexpr int kMaxLabels = kLetters + kMaxRank;
constexpr int kMaxInputs = 8;

struct EinsumParams {
  int inputs = 0;
  int output_labels = 0;  // the first labels of `dims`/`strides` are the output's, in order
  int labels = 0;         // then the summed ones
  std::array<int64_t, kMaxLabels> dims{};
  std::array<std::array<int64_t, kMaxLabels>, kMaxInputs> strides{};
};

template <typename T>
int einsum_kernel(const KernelArgs& args) {
  const auto& p = *static_cast<const EinsumParams*>(args.params);
  using Acc = std::conditional_t<std::is_floating_point_v<Compute<T>>, double, T>;
  int64_t output_count = 1, summed_count = 1;
  for (int l = 0; l < p.output_labels; ++l) output_count *= p.dims[l];
  for (int l = p.output_labels; l < p.labels; ++l) summed_count *= p.dims[l];
  if (output_count == 0) return kKernelOk;
  auto* y = static_cast<T*>(args.outputs[0]);
  if (y == nullptr) return kKernelMissingAddress;
  std::array<const T*, kMaxInputs> x{};
  for (int k = 0; k < p.inputs; ++k) {
    x[k] = static_cast<const T*>(args.inputs[k]);
    if (x[k] == nullptr && summed_count > 0) return kKernelMissingAddress;
  }
  std::array<int64_t, kMaxLabels> index{};
  std::array<int64_t, kMaxInputs> base{};  // input offsets of the current output element
  for (int64_t flat = 0; flat < output_count; ++flat) {
    Acc sum = Acc(0);
    std::array<int64_t, kMaxInputs> offset = base;
    for (int64_t s = 0; s < summed_count; ++s) {
      Acc term = Acc(1);
      for (int k = 0; k < p.inputs; ++k) term = wrapping_mul(term, static_cast<Acc>(load(x[k][offset[k]])));
      sum = wrapping_add(sum, term);
      for (int l = p.labels - 1; l >= p.output_labels; --l) {
        for (int k = 0; k < p.inputs; ++k) offset[k] += p.strides[k][l];
        if (++index[l] < p.dims[l]) break;
        for (int k = 0; k < p.inputs; ++k) offset[k] -= p.strides[k][l] * p.dims[l];
        index[l] = 0;
      }
    }
    y[flat] = store<T>(sum);
    for (int l = p.output_labels - 1; l >= 0; --l) {
      for (int k = 0; k < p.inputs; ++k) base[k] += p.strides[k][l];
      if (++index[l] < p.dims[l]) break;
      for (int k = 0; k < p.inputs; ++k) base[k] -= p.strides[k][l] * p.dims[l];
      index[l] = 0;
    }
  }
  return kKernelOk;
}

int letter_label(char c) {
  if (c >= 'a' && c <= 'z') return c - 'a' + 26;  // after the capitals: ASCII order
  if (c >= 'A' && c <= 'Z') return c - 'A';
  return -1;
}

// One subscript term as label ids; an ellipsis is -1 in place.
Result<std::vector<int>> parse_term(const KernelContext& context, const std::string& term) {
  std::vector<int> labels;
  bool ellipsis = false;
  for (size_t i = 0; i < term.size(); ++i) {
    if (term.compare(i, 3, "...") == 0) {
      if (ellipsis) return invalid_attribute(context, "equation", "has two ellipses in term '" + term + "'");
      ellipsis = true;
      labels.push_back(-1);
      i += 2;
      continue;
    }
    const int label = letter_label(term[i]);
    if (label < 0) return invalid_attribute(context, "equation", "has an invalid character in term '" + term + "'");
    labels.push_back(label);
  }
  return labels;
}

Result<PreparedKernel> prepare_einsum(const KernelContext& context) {
  const DataType dtype = input_dtype(context, 0);
  GE_ASSIGN_OR_RETURN(std::string raw, string_attribute(context, "equation", ""));
  std::string equation;
  for (char c : raw) {
    if (c != ' ') equation += c;
  }
  const size_t arrow = equation.find("->");
  const std::string left = equation.substr(0, arrow);
  std::vector<std::string> terms(1);
  for (char c : left) {
    if (c == ',') {
      terms.emplace_back();
    } else {
      terms.back() += c;
    }
  }
  const int inputs = static_cast<int>(context.node.input_count());
  if (static_cast<int>(terms.size()) != inputs) {
    return invalid_attribute(
        context, "equation",
        "'" + raw + "' has " + std::to_string(terms.size()) + " terms for " + std::to_string(inputs) + " inputs");
  }
  if (inputs > kMaxInputs) return unsupported_feature(context, "more than 8 inputs");
  // Label extents: letters first, then ellipsis dims right-aligned over all inputs.
  std::array<int64_t, kMaxLabels> dims;
  dims.fill(-1);
  std::array<int, kLetters> uses{};
  std::vector<std::vector<int>> input_labels(inputs);
  std::vector<std::vector<int64_t>> input_shapes(inputs);
  int ellipsis_rank = 0;
  for (int k = 0; k < inputs; ++k) {
    GE_RETURN_IF_ERROR(check_input_dtype(context, static_cast<size_t>(k), dtype));
    GE_ASSIGN_OR_RETURN(input_shapes[k], input_dims(context, static_cast<size_t>(k)));
    GE_ASSIGN_OR_RETURN(std::vector<int> term, parse_term(context, terms[k]));
    const int rank = static_cast<int>(input_shapes[k].size());
    const int letters = static_cast<int>(std::count_if(term.begin(), term.end(), [](int l) { return l >= 0; }));
    const bool has_ellipsis = letters != static_cast<int>(term.size());
    if (has_ellipsis ? letters > rank : letters != rank) {
      return invalid_attribute(
          context, "equation",
          "term '" + terms[k] + "' does not fit input " + std::to_string(k) + " " + shape_to_string(input_shapes[k]));
    }
    const int covered = rank - letters;
    if (covered > kMaxRank) return unsupported_feature(context, "an ellipsis over more than 16 axes");
    ellipsis_rank = std::max(ellipsis_rank, covered);
    // Expand the ellipsis into per-axis labels (kLetters + position from the right).
    std::vector<int>& labels = input_labels[k];
    for (int l : term) {
      if (l >= 0) {
        labels.push_back(l);
        ++uses[l];
      } else {
        for (int e = 0; e < covered; ++e) labels.push_back(-2 - (covered - 1 - e));  // -2 - distance from the right
      }
    }
  }
  auto label_id = [&](int l) { return l >= 0 ? l : kLetters + (ellipsis_rank - 1 - (-2 - l)); };
  for (int k = 0; k < inputs; ++k) {
    for (size_t a = 0; a < input_labels[k].size(); ++a) {
      const int id = label_id(input_labels[k][a]);
      const int64_t dim = input_shapes[k][a];
      if (dims[id] < 0 || dims[id] == 1) {
        dims[id] = dim;
      } else if (dim != 1 && dim != dims[id]) {
        return invalid_node(context, "label of axis " + std::to_string(a) + " of input " + std::to_string(k) +
                                         " has extent " + std::to_string(dim) + " elsewhere " +
                                         std::to_string(dims[id]));
      }
    }
  }
  // Output labels.
  std::vector<int> output;
  if (arrow != std::string::npos) {
    GE_ASSIGN_OR_RETURN(std::vector<int> term, parse_term(context, equation.substr(arrow + 2)));
    for (int l : term) {
      if (l < 0) {
        for (int e = 0; e < ellipsis_rank; ++e) output.push_back(kLetters + e);
      } else if (dims[l] < 0) {
        return invalid_attribute(context, "equation", "'" + raw + "' has an output label no input uses");
      } else if (std::find(output.begin(), output.end(), l) != output.end()) {
        return invalid_attribute(context, "equation", "'" + raw + "' repeats an output label");
      } else {
        output.push_back(l);
      }
    }
  } else {
    for (int e = 0; e < ellipsis_rank; ++e) output.push_back(kLetters + e);
    for (int l = 0; l < kLetters; ++l) {
      if (uses[l] == 1) output.push_back(l);
    }
  }
  std::vector<int> order = output;  // output labels, then the summed ones
  for (int id = 0; id < kLetters + ellipsis_rank; ++id) {
    if (dims[id] >= 0 && std::find(output.begin(), output.end(), id) == output.end()) order.push_back(id);
  }
  EinsumParams params;
  params.inputs = inputs;
  params.output_labels = static_cast<int>(output.size());
  params.labels = static_cast<int>(order.size());
  std::vector<int64_t> y_dims;
  for (size_t i = 0; i < order.size(); ++i) {
    params.dims[i] = dims[order[i]];
    if (i < output.size()) y_dims.push_back(dims[order[i]]);
  }
  for (int k = 0; k < inputs; ++k) {
    const Index strides = strides_of(input_shapes[k]);
    for (size_t a = 0; a < input_labels[k].size(); ++a) {
      const int id = label_id(input_labels[k][a]);
      if (input_shapes[k][a] == 1 && dims[id] != 1) continue;  // broadcast: stride 0
      const size_t position = static_cast<size_t>(std::find(order.begin(), order.end(), id) - order.begin());
      params.strides[k][position] += input_shapes[k][a] == 1 ? 0 : strides[a];
    }
  }
  GE_RETURN_IF_ERROR(check_output(context, 0, dtype, y_dims));
  KernelFunction function =
      select_kernel(dtype, NumericTypes{}, []<typename T>() -> KernelFunction { return &einsum_kernel<T>; });
  return make_kernel(context, function, params);
}

}  // namespace

void add_einsum_kernels(std::vector<OpKernel>& table) {
  table.push_back({"Einsum", data_types(NumericTypes{}), &prepare_einsum});
}

}  // namespace ge::reference_kernels::tensor
