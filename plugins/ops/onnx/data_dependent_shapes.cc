// Output shapes libonnx 1.12 leaves unknown: Einsum, OneHot, NonMaxSuppression
// (data_dependent_shapes.h).
#include "data_dependent_shapes.h"

#include <algorithm>
#include <array>
#include <cctype>
#include <cstddef>
#include <map>
#include <numeric>
#include <optional>
#include <string>
#include <vector>

#include "ge/box_suppression.h"
#include "ge/graph_queries.h"

namespace ge::onnx_ops {
// Named, not anonymous: the unity build puts this file beside inference_supplements.cc,
// whose helpers have the same names.
namespace data_dependent {
namespace {

const Tensor* input_data(const Node& node, const InputDataProvider& data, size_t index) {
  if (!data || index >= node.input_count() || node.input(index) == nullptr) return nullptr;
  return data(node, index);
}

std::optional<std::vector<int64_t>> static_input_dims(const Node& node, size_t index) {
  if (index >= node.input_count() || node.input(index) == nullptr) return std::nullopt;
  const TensorDesc& desc = node.input(index)->desc();
  if (desc.kind != ValueKind::kTensor || !desc.is_static()) return std::nullopt;
  return desc.static_dims();
}

/// Whether libonnx left output 0 a tensor without a full static shape.
bool output_unknown(const std::vector<onnx::TypeProto>& outputs) {
  if (outputs.empty()) return false;
  const onnx::TypeProto& output = outputs[0];
  if (output.value_case() != onnx::TypeProto::kTensorType && output.value_case() != onnx::TypeProto::VALUE_NOT_SET) {
    return false;
  }
  if (!output.has_tensor_type() || !output.tensor_type().has_shape()) return true;
  for (const auto& dim : output.tensor_type().shape().dim()) {
    if (!dim.has_dim_value()) return true;
  }
  return false;
}

void set_output_dims(std::vector<onnx::TypeProto>& outputs, const std::vector<int64_t>& dims) {
  onnx::TensorShapeProto* shape = outputs[0].mutable_tensor_type()->mutable_shape();
  shape->clear_dim();
  for (int64_t d : dims) shape->add_dim()->set_dim_value(d);
}

// --- Einsum ------------------------------------------------------------------------

/// One operand's term: its letters, and where "..." stands (npos when absent).
struct Term {
  std::string letters;
  size_t ellipsis = std::string::npos;
};

std::optional<Term> parse_term(const std::string& text) {
  Term term;
  for (size_t i = 0; i < text.size();) {
    if (text.compare(i, 3, "...") == 0) {
      if (term.ellipsis != std::string::npos) return std::nullopt;
      term.ellipsis = term.letters.size();
      i += 3;
    } else if (std::isalpha(static_cast<unsigned char>(text[i]))) {
      term.letters += text[i++];
    } else if (text[i] == ' ') {
      ++i;
    } else {
      return std::nullopt;
    }
  }
  return term;
}

std::optional<std::vector<int64_t>> einsum_dims(const Node& node) {
  const Attribute* attribute = node.attribute("equation");
  if (attribute == nullptr || !attribute->holds<std::string>()) return std::nullopt;
  const std::string equation = attribute->get<std::string>();
  const size_t arrow = equation.find("->");
  const std::string lhs = equation.substr(0, arrow);
  std::vector<Term> terms;
  for (size_t start = 0;;) {
    const size_t comma = lhs.find(',', start);
    std::optional<Term> term = parse_term(lhs.substr(start, comma == std::string::npos ? std::string::npos : comma - start));
    if (!term) return std::nullopt;
    terms.push_back(*term);
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
  if (terms.size() != node.input_count()) return std::nullopt;
  std::map<char, int64_t> extent;
  std::map<char, int> count;
  std::vector<int64_t> broadcast;  // the ellipsis dims, broadcast over the operands (right-aligned)
  for (size_t i = 0; i < terms.size(); ++i) {
    std::optional<std::vector<int64_t>> dims = static_input_dims(node, i);
    if (!dims) return std::nullopt;
    const Term& term = terms[i];
    const size_t named = term.letters.size();
    if (term.ellipsis == std::string::npos ? dims->size() != named : dims->size() < named) return std::nullopt;
    const size_t covered = dims->size() - named;  // dims under "..."
    std::vector<int64_t> ellipsis_dims;
    for (size_t k = 0, d = 0; k < named; ++k, ++d) {
      if (k == term.ellipsis) {
        ellipsis_dims.assign(dims->begin() + static_cast<std::ptrdiff_t>(d),
                             dims->begin() + static_cast<std::ptrdiff_t>(d + covered));
        d += covered;
      }
      const char letter = term.letters[k];
      const int64_t dim = (*dims)[d];
      auto [it, fresh] = extent.emplace(letter, dim);
      if (!fresh && it->second != dim) {
        if (it->second == 1) it->second = dim;
        else if (dim != 1) return std::nullopt;  // the kernel names the mismatch
      }
      ++count[letter];
    }
    if (term.ellipsis == named) ellipsis_dims.assign(dims->end() - static_cast<std::ptrdiff_t>(covered), dims->end());
    if (ellipsis_dims.size() > broadcast.size()) broadcast.insert(broadcast.begin(), ellipsis_dims.size() - broadcast.size(), 1);
    for (size_t k = 0; k < ellipsis_dims.size(); ++k) {
      int64_t& b = broadcast[broadcast.size() - ellipsis_dims.size() + k];
      const int64_t d = ellipsis_dims[k];
      if (b == 1) b = d;
      else if (d != 1 && d != b) return std::nullopt;
    }
  }
  Term output;
  if (arrow != std::string::npos) {
    std::optional<Term> parsed = parse_term(equation.substr(arrow + 2));
    if (!parsed) return std::nullopt;
    output = *parsed;
  } else {  // implicit: the letters used once, in alphabetical order, after the ellipsis
    bool any_ellipsis = false;
    for (const Term& t : terms) any_ellipsis = any_ellipsis || t.ellipsis != std::string::npos;
    if (any_ellipsis) output.ellipsis = 0;
    for (const auto& [letter, n] : count) {
      if (n == 1) output.letters += letter;
    }
  }
  std::vector<int64_t> dims;
  for (size_t k = 0; k <= output.letters.size(); ++k) {
    if (k == output.ellipsis) dims.insert(dims.end(), broadcast.begin(), broadcast.end());
    if (k == output.letters.size()) break;
    auto it = extent.find(output.letters[k]);
    if (it == extent.end()) return std::nullopt;
    dims.push_back(it->second);
  }
  return dims;
}

// --- OneHot ------------------------------------------------------------------------

std::optional<std::vector<int64_t>> one_hot_dims(const Node& node, const InputDataProvider& data) {
  std::optional<std::vector<int64_t>> indices = static_input_dims(node, 0);
  const Tensor* depth = input_data(node, data, 1);
  if (!indices || depth == nullptr || depth->element_count() != 1) return std::nullopt;
  const double value = depth->scalar_as_double();
  if (!(value >= 1) || value > 0x1p62) return std::nullopt;  // the kernel refuses it
  const int64_t rank = static_cast<int64_t>(indices->size()) + 1;
  int64_t axis = node.get_int("axis", -1);
  if (axis < -rank || axis >= rank) return std::nullopt;
  if (axis < 0) axis += rank;
  indices->insert(indices->begin() + axis, static_cast<int64_t>(value));
  return indices;
}

// --- NonMaxSuppression --------------------------------------------------------------

std::optional<int64_t> scalar_int(const Tensor* t) {
  if (t == nullptr || t->element_count() != 1) return std::nullopt;
  if (t->dtype() != DataType::kInt64 && t->dtype() != DataType::kInt32) return std::nullopt;
  // Exactly: torchvision writes INT64_MAX, which a double rounds out of range.
  return t->dtype() == DataType::kInt64 ? t->data<int64_t>()[0] : int64_t{t->data<int32_t>()[0]};
}

std::optional<std::vector<int64_t>> non_max_suppression_dims(const Node& node, const InputDataProvider& data) {
  const Tensor* boxes = input_data(node, data, 0);
  const Tensor* scores = input_data(node, data, 1);
  if (boxes == nullptr || scores == nullptr) return std::nullopt;
  if (boxes->dtype() != DataType::kFloat32 || scores->dtype() != DataType::kFloat32) return std::nullopt;
  const std::vector<int64_t>& b = boxes->shape();
  const std::vector<int64_t>& s = scores->shape();
  if (b.size() != 3 || b[2] != 4 || s.size() != 3 || s[0] != b[0] || s[2] != b[1]) return std::nullopt;
  int64_t max_per_class = 0;
  if (const Tensor* max_output = input_data(node, data, 2)) {
    std::optional<int64_t> value = scalar_int(max_output);
    if (!value) return std::nullopt;
    max_per_class = *value;
  } else if (node.input_count() > 2 && node.input(2) != nullptr) {
    return std::nullopt;  // given but its contents are not known here
  }
  float iou = 0.0f;
  if (const Tensor* t = input_data(node, data, 3)) {
    if (t->dtype() != DataType::kFloat32 || t->element_count() != 1) return std::nullopt;
    iou = t->data<float>()[0];
  } else if (node.input_count() > 3 && node.input(3) != nullptr) {
    return std::nullopt;
  }
  if (!(iou >= 0.0f && iou <= 1.0f)) return std::nullopt;  // the kernel refuses it
  std::optional<float> score_threshold;
  if (const Tensor* t = input_data(node, data, 4)) {
    if (t->dtype() != DataType::kFloat32 || t->element_count() != 1) return std::nullopt;
    score_threshold = t->data<float>()[0];
  } else if (node.input_count() > 4 && node.input(4) != nullptr) {
    return std::nullopt;
  }
  const int64_t center = node.get_int("center_point_box", 0);
  if (center != 0 && center != 1) return std::nullopt;
  const int64_t rows = count_non_max_suppression(boxes->data<float>(), scores->data<float>(), b[0], s[1], b[1],
                                                 center == 1, max_per_class, iou,
                                                 score_threshold ? &*score_threshold : nullptr);
  return std::vector<int64_t>{rows, 3};
}

}  // namespace
}  // namespace data_dependent

int64_t count_non_max_suppression(const float* boxes, const float* scores, int64_t batches, int64_t classes,
                                  int64_t boxes_per_batch, bool center_point_box, int64_t max_per_class,
                                  float iou_threshold, const float* score_threshold) {
  std::vector<std::byte> scratch(BoxSuppression::scratch_bytes(boxes_per_batch));
  BoxSuppression suppression(scratch.data(), boxes_per_batch);
  int64_t rows = 0;
  for (int64_t b = 0; b < batches; ++b) {
    suppression.set_boxes(boxes + b * boxes_per_batch * 4, boxes_per_batch, center_point_box);
    for (int64_t c = 0; c < classes; ++c) {
      rows += suppression.select(scores + (b * classes + c) * boxes_per_batch, max_per_class, iou_threshold,
                                 score_threshold, [](int64_t) {});
    }
  }
  return rows;
}

void supplement_data_dependent_shapes(const Node& node, const InputDataProvider& data,
                                      std::vector<onnx::TypeProto>& outputs) {
  using namespace data_dependent;
  if (!is_onnx_domain(node) || !output_unknown(outputs)) return;
  std::optional<std::vector<int64_t>> dims;
  if (node.op_type() == "Einsum") dims = einsum_dims(node);
  else if (node.op_type() == "OneHot") dims = one_hot_dims(node, data);
  else if (node.op_type() == "NonMaxSuppression") dims = non_max_suppression_dims(node, data);
  if (dims) set_output_dims(outputs, *dims);
}

}  // namespace ge::onnx_ops
