#include "attribute_rules.h"

#include <algorithm>
#include <cstdint>
#include <optional>
#include <string_view>
#include <utility>
#include <vector>

#include "ge/graph_queries.h"

namespace ge::onnx_ops {
namespace {

/// kBlockSize: 1 to 2^31 - 1, so that its square (libonnx divides the channels by it) does
/// not overflow to 0.
/// kAxisOfInput0: in [-r, r) for input 0 of rank r (unchecked while r is unknown).
enum class Bound { kAny, kAtLeastOne, kNonNegative, kZeroOrOne, kBlockSize, kAxisOfInput0 };

/// How many values an INTS attribute has, relative to the spatial rank S of input 0
/// (its rank - 2): any, S, or 2 * S (begin and end pads).
enum class Length { kAny, kSpatial, kTwiceSpatial };

struct AttributeRule {
  std::string_view name;
  Bound bound;
  Length length = Length::kAny;
  /// Axes of input 0: no axis named twice, negative ones counted from the end.
  bool distinct_axes = false;
};

struct OpRules {
  std::string_view op_type;
  std::vector<AttributeRule> rules;
};

const std::vector<OpRules>& rule_table() {
  static const std::vector<AttributeRule> conv = {
      {"strides", Bound::kAtLeastOne, Length::kSpatial},
      {"dilations", Bound::kAtLeastOne, Length::kSpatial},
      {"kernel_shape", Bound::kAtLeastOne, Length::kSpatial},
      {"pads", Bound::kNonNegative, Length::kTwiceSpatial},
      {"group", Bound::kAtLeastOne},
  };
  static const std::vector<AttributeRule> pool = {
      {"strides", Bound::kAtLeastOne, Length::kSpatial},
      {"dilations", Bound::kAtLeastOne, Length::kSpatial},
      {"kernel_shape", Bound::kAtLeastOne, Length::kSpatial},
      {"pads", Bound::kNonNegative, Length::kTwiceSpatial},
      {"ceil_mode", Bound::kZeroOrOne},
      {"count_include_pad", Bound::kZeroOrOne},
      {"storage_order", Bound::kZeroOrOne},
  };
  static const std::vector<AttributeRule> reduce = {{"axes", Bound::kAny, Length::kAny, /*distinct_axes=*/true}};
  auto with = [](std::vector<AttributeRule> rules, std::vector<AttributeRule> more) {
    rules.insert(rules.end(), more.begin(), more.end());
    return rules;
  };
  static const std::vector<OpRules> table = {
      {"Conv", conv},
      {"ConvInteger", conv},
      {"QLinearConv", conv},
      {"ConvTranspose", with(conv, {{"output_padding", Bound::kNonNegative, Length::kSpatial}})},
      {"DeformConv", with(conv, {{"offset_group", Bound::kAtLeastOne}})},
      {"MaxPool", pool},
      {"AveragePool", pool},
      {"LpPool", pool},
      {"MaxUnpool",
       {{"strides", Bound::kAtLeastOne, Length::kSpatial},
        {"kernel_shape", Bound::kAtLeastOne, Length::kSpatial},
        {"pads", Bound::kNonNegative, Length::kTwiceSpatial}}},
      {"MaxRoiPool", {{"pooled_shape", Bound::kAtLeastOne}}},
      // Col2Im's spatial rank is the length of its image_shape input, not of input 0.
      {"Col2Im", {{"strides", Bound::kAtLeastOne}, {"dilations", Bound::kAtLeastOne}, {"pads", Bound::kNonNegative}}},
      {"SpaceToDepth", {{"blocksize", Bound::kBlockSize}}},
      {"DepthToSpace", {{"blocksize", Bound::kBlockSize}}},
      // libonnx's LayerNormalization-17 inference indexes the shape with it unchecked
      // (axis 2^63 - 1: SIGSEGV).
      {"LayerNormalization", {{"axis", Bound::kAxisOfInput0}}},
      // num_scan_inputs = -1 reached libonnx's inference as a vector of size -1.
      {"Scan",
       {{"num_scan_inputs", Bound::kAtLeastOne},
        {"scan_input_directions", Bound::kZeroOrOne},
        {"scan_output_directions", Bound::kZeroOrOne},
        {"directions", Bound::kZeroOrOne}}},
      // axes is an attribute up to opset 17 (ReduceSum: 12); an input after.
      {"ReduceL1", reduce},
      {"ReduceL2", reduce},
      {"ReduceLogSum", reduce},
      {"ReduceLogSumExp", reduce},
      {"ReduceMax", reduce},
      {"ReduceMean", reduce},
      {"ReduceMin", reduce},
      {"ReduceProd", reduce},
      {"ReduceSum", reduce},
      {"ReduceSumSquare", reduce},
  };
  return table;
}

bool within(Bound bound, int64_t value) {
  switch (bound) {
    case Bound::kAny:
      return true;
    case Bound::kAtLeastOne:
      return value >= 1;
    case Bound::kNonNegative:
      return value >= 0;
    case Bound::kZeroOrOne:
      return value == 0 || value == 1;
    case Bound::kBlockSize:
      return value >= 1 && value <= INT32_MAX;
    case Bound::kAxisOfInput0:
      return true;  // against the rank, in check_rule
  }
  return false;
}

std::string_view describe(Bound bound) {
  switch (bound) {
    case Bound::kAny:
      return "any value";
    case Bound::kAtLeastOne:
      return ">= 1";
    case Bound::kNonNegative:
      return ">= 0";
    case Bound::kZeroOrOne:
      return "0 or 1";
    case Bound::kBlockSize:
      return "between 1 and 2147483647";
    case Bound::kAxisOfInput0:
      return "an axis of input 0";
  }
  return "";
}

std::string list(const std::vector<int64_t>& values) {
  std::string text = "[";
  for (size_t i = 0; i < values.size(); ++i) text += (i == 0 ? "" : ", ") + std::to_string(values[i]);
  return text + "]";
}

/// Two entries of `axes` that name the same axis of a tensor of `rank` (-1: unknown, then
/// only equal entries), as their indices; none when every axis is named once.
std::optional<std::pair<size_t, size_t>> repeated_axis(const std::vector<int64_t>& axes, int64_t rank) {
  auto normalised = [rank](int64_t axis) { return axis < 0 && rank >= 0 ? axis + rank : axis; };
  for (size_t i = 0; i < axes.size(); ++i) {
    for (size_t j = i + 1; j < axes.size(); ++j) {
      if (normalised(axes[i]) == normalised(axes[j])) return std::pair{i, j};
    }
  }
  return std::nullopt;
}

Status check_rule(const Node& node, const AttributeRule& rule, int64_t spatial_rank, const std::string& where) {
  const std::string name(rule.name);
  const Attribute* attribute = node.attribute(name);
  if (attribute == nullptr) return Status::ok();
  std::vector<int64_t> values;
  const bool repeated = attribute->holds<std::vector<int64_t>>();
  if (repeated) {
    values = attribute->get<std::vector<int64_t>>();
  } else if (attribute->holds<int64_t>()) {
    values = {attribute->get<int64_t>()};
  } else {
    return Status::ok();  // a wrongly typed attribute: libonnx names the type it expects
  }
  const std::string shown = repeated ? list(values) : std::to_string(values[0]);
  for (int64_t value : values) {
    if (!within(rule.bound, value)) {
      return invalid_argument(where + ": attribute '" + name + "' is " + shown + "; " + name + " must be " +
                              std::string(describe(rule.bound)));
    }
  }
  const int64_t rank = node.input_count() > 0 && node.input(0) != nullptr ? node.input(0)->desc().rank() : -1;
  if (rule.bound == Bound::kAxisOfInput0 && rank >= 0) {
    for (int64_t value : values) {
      if (value < -rank || value >= rank) {
        return invalid_argument(where + ": attribute '" + name + "' is " + shown + "; " + name + " must be in [" +
                                std::to_string(-rank) + ", " + std::to_string(rank) + ") for input 0 of rank " +
                                std::to_string(rank));
      }
    }
  }
  if (rule.distinct_axes) {
    if (const auto pair = repeated_axis(values, rank)) {
      const int64_t axis = values[pair->first] < 0 && rank >= 0 ? values[pair->first] + rank : values[pair->first];
      return invalid_argument(where + ": attribute '" + name + "' is " + shown + "; " + name +
                              " must name each axis once, but entries " + std::to_string(pair->first) + " and " +
                              std::to_string(pair->second) + " both name axis " + std::to_string(axis) +
                              (rank >= 0 ? " of input 0 (rank " + std::to_string(rank) + ")" : std::string()));
    }
  }
  if (!repeated || rule.length == Length::kAny || spatial_rank < 0) return Status::ok();
  const int64_t expected = rule.length == Length::kSpatial ? spatial_rank : 2 * spatial_rank;
  if (static_cast<int64_t>(values.size()) != expected) {
    return invalid_argument(where + ": attribute '" + name + "' is " + shown + " (" + std::to_string(values.size()) +
                            " values) but input 0 has " + std::to_string(spatial_rank) + " spatial dims, so " + name +
                            " needs " + std::to_string(expected));
  }
  return Status::ok();
}

}  // namespace

Status check_attribute_rules(const Node& node, const std::string& where) {
  if (!is_onnx_domain(node)) return Status::ok();
  const auto& table = rule_table();
  const auto found =
      std::find_if(table.begin(), table.end(), [&](const OpRules& entry) { return entry.op_type == node.op_type(); });
  if (found == table.end()) return Status::ok();
  // The spatial rank where input 0 has [N, C, spatial...] of a known rank.
  int64_t spatial_rank = -1;
  if (node.input_count() > 0 && node.input(0) != nullptr && node.input(0)->desc().rank() >= 2) {
    spatial_rank = node.input(0)->desc().rank() - 2;
  }
  for (const AttributeRule& rule : found->rules) GE_RETURN_IF_ERROR(check_rule(node, rule, spatial_rank, where));
  return Status::ok();
}

}  // namespace ge::onnx_ops
