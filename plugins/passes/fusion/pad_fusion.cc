#include "pad_fusion.h"

#include <optional>
#include <string>
#include <vector>

#include "fusion_util.h"
#include "ge/graph_queries.h"
#include "ge/logging.h"
#include "ge/plugin_api/constant_values.h"

namespace ge::fusion {
namespace {

/// Per axis of the data, the amounts [begin, end] a zero Pad adds, or nullopt with
/// `reason` when it is not a Pad of zeros with constant amounts.
std::optional<std::vector<std::pair<int64_t, int64_t>>> zero_padding(const Node& pad, std::string& reason) {
  const Value* data = pad.input_count() > 0 ? pad.input(0) : nullptr;
  if (data == nullptr || !data->desc().has_rank()) return reason = "data of unknown rank", std::nullopt;
  const int64_t rank = data->desc().rank();
  if (pad.get_string("mode", "constant") != "constant") return reason = "mode " + pad.get_string("mode", ""), std::nullopt;
  std::optional<std::vector<int64_t>> amounts;
  double value = 0;
  if (pad.has_attribute("pads")) {  // opset 2
    amounts = pad.get_ints("pads");
    value = pad.get_float("value", 0.0f);
  } else {
    amounts = constant_ints(pad.input_count() > 1 ? pad.input(1) : nullptr);
    if (!amounts) return reason = "amounts not constant", std::nullopt;
    const Value* fill = pad.input_count() > 2 ? pad.input(2) : nullptr;
    if (fill != nullptr) {
      const std::optional<double> scalar = constant_scalar(fill);
      if (!scalar) return reason = "a fill value that is not constant", std::nullopt;
      value = *scalar;
    }
  }
  if (value != 0) return reason = "a fill value of " + std::to_string(value), std::nullopt;
  std::vector<int64_t> axes;
  if (const Value* axes_input = pad.input_count() > 3 ? pad.input(3) : nullptr) {
    std::optional<std::vector<int64_t>> given = constant_ints(axes_input);
    if (!given) return reason = "axes not constant", std::nullopt;
    axes = *given;
  } else {
    for (int64_t a = 0; a < rank; ++a) axes.push_back(a);
  }
  if (amounts->size() != 2 * axes.size()) return reason = "amounts not two per axis", std::nullopt;
  std::vector<std::pair<int64_t, int64_t>> per_axis(static_cast<size_t>(rank), {0, 0});
  const size_t n = axes.size();
  for (size_t i = 0; i < n; ++i) {
    const int64_t axis = axes[i] < 0 ? axes[i] + rank : axes[i];
    if (axis < 0 || axis >= rank) return reason = "an axis out of range", std::nullopt;
    per_axis[static_cast<size_t>(axis)].first += (*amounts)[i];
    per_axis[static_cast<size_t>(axis)].second += (*amounts)[n + i];
  }
  for (const auto& [begin, end] : per_axis) {
    if (begin < 0 || end < 0) return reason = "a negative amount (a crop)", std::nullopt;
  }
  return per_axis;
}

bool all_zero(const std::vector<std::pair<int64_t, int64_t>>& padding) {
  for (const auto& [begin, end] : padding) {
    if (begin != 0 || end != 0) return false;
  }
  return true;
}

/// Whether `reader` (input 0 the Pad's output) takes the spatial `padding` into its pads
/// attribute; sets them when it does, else `reason`.
bool take_padding(Node& reader, const std::vector<std::pair<int64_t, int64_t>>& padding, std::string& reason) {
  const bool conv = reader.op_type() == "Conv", pool = reader.op_type() == "AveragePool";
  if (!is_onnx_domain(reader) || !(conv || pool)) return reason = "read by " + reader.describe(), false;
  if (padding.size() < 3) return reason = "no spatial axes", false;
  if (padding[0] != std::pair<int64_t, int64_t>{0, 0} || padding[1] != std::pair<int64_t, int64_t>{0, 0}) {
    return reason = "padding on the batch or channel axis", false;
  }
  if (reader.get_string("auto_pad", "NOTSET") != "NOTSET") return reason = reader.describe() + " has auto_pad", false;
  const size_t spatial = padding.size() - 2;
  std::vector<int64_t> pads = reader.get_ints("pads");
  if (pads.empty()) pads.assign(2 * spatial, 0);
  if (pads.size() != 2 * spatial) return reason = reader.describe() + " has pads of another rank", false;
  if (pool) {
    if (reader.get_int("ceil_mode", 0) != 0) return reason = reader.describe() + " has ceil_mode", false;
    bool own_padding = false;
    for (int64_t p : pads) own_padding = own_padding || p != 0;
    if (reader.get_int("count_include_pad", 0) == 0 && own_padding) {
      return reason = reader.describe() + " excludes its own padding from the count", false;
    }
    reader.set_attribute("count_include_pad", Attribute(int64_t{1}));
  }
  for (size_t i = 0; i < spatial; ++i) {
    pads[i] += padding[2 + i].first;
    pads[spatial + i] += padding[2 + i].second;
  }
  reader.set_attribute("pads", Attribute(pads));
  return true;
}

}  // namespace

Status PadFusion::run(Graph& graph, PassContext& context, bool& changed) {
  (void)context;
  std::vector<Node*> pads;
  for (const auto& node : graph.nodes()) {
    if (is_onnx_domain(*node) && node->op_type() == "Pad" && node->output_count() == 1) pads.push_back(node.get());
  }
  for (Node* pad : pads) {
    std::string reason;
    std::optional<std::vector<std::pair<int64_t, int64_t>>> padding = zero_padding(*pad, reason);
    Value* out = pad->output(0);
    Value* in = pad->input(0);
    if (padding && all_zero(*padding) && !graph.is_output(out) && in->desc().dtype == out->desc().dtype) {
      graph.replace_all_uses(out, in);  // an identity
      changed = true;
      continue;
    }
    if (padding && !is_float_type(in->desc().dtype)) {
      padding.reset();
      reason = "not a float tensor";
    }
    if (!padding) {
      GE_LOG_DEBUG("fuse_pad: {} stays: {}", pad->describe(), reason);
      continue;
    }
    const std::vector<Use> uses = out->uses();
    for (const Use& use : uses) {
      if (use.input_index != 0) {
        GE_LOG_DEBUG("fuse_pad: {} stays for {}: not its data input", pad->describe(), use.user->describe());
        continue;
      }
      std::string why;
      if (!take_padding(*use.user, *padding, why)) {
        GE_LOG_DEBUG("fuse_pad: {} stays for {}: {}", pad->describe(), use.user->describe(), why);
        continue;
      }
      use.user->set_input(0, in);
      changed = true;
    }
  }
  return Status::ok();
}

}  // namespace ge::fusion
