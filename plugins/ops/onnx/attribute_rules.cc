#include "attribute_rules.h"

#include <algorithm>
#include <cstdint>
#include <string_view>
#include <vector>

#include "ge/graph_queries.h"

namespace ge::onnx_ops {
namespace {

enum class Bound { kAtLeastOne, kNonNegative, kZeroOrOne };

/// How many values an INTS attribute has, relative to the spatial rank S of input 0
/// (its rank - 2): any, S, or 2 * S (begin and end pads).
enum class Length { kAny, kSpatial, kTwiceSpatial };

struct AttributeRule {
  std::string_view name;
  Bound bound;
  Length length = Length::kAny;
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
      {"SpaceToDepth", {{"blocksize", Bound::kAtLeastOne}}},
      {"DepthToSpace", {{"blocksize", Bound::kAtLeastOne}}},
  };
  return table;
}

bool within(Bound bound, int64_t value) {
  switch (bound) {
    case Bound::kAtLeastOne:
      return value >= 1;
    case Bound::kNonNegative:
      return value >= 0;
    case Bound::kZeroOrOne:
      return value == 0 || value == 1;
  }
  return false;
}

std::string_view describe(Bound bound) {
  switch (bound) {
    case Bound::kAtLeastOne:
      return ">= 1";
    case Bound::kNonNegative:
      return ">= 0";
    case Bound::kZeroOrOne:
      return "0 or 1";
  }
  return "";
}

std::string list(const std::vector<int64_t>& values) {
  std::string text = "[";
  for (size_t i = 0; i < values.size(); ++i) text += (i == 0 ? "" : ", ") + std::to_string(values[i]);
  return text + "]";
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
