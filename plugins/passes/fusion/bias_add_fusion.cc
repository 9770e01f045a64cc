#include "bias_add_fusion.h"

#include "fusion_util.h"

namespace ge::fusion {
namespace {

/// The per-channel values of `c` added to a Conv output of `rank` with `channels`
/// channels, or nullopt when `c` varies along another axis.
std::optional<std::vector<double>> per_channel(const Tensor& c, int64_t rank, int64_t channels) {
  const std::vector<int64_t>& dims = c.shape();
  if (static_cast<int64_t>(dims.size()) > rank) return std::nullopt;
  const size_t offset = static_cast<size_t>(rank) - dims.size();
  for (size_t i = 0; i < dims.size(); ++i) {
    const size_t axis = offset + i;
    if (dims[i] != 1 && !(axis == 1 && dims[i] == channels)) return std::nullopt;
  }
  std::vector<int64_t> target(static_cast<size_t>(rank), 1);
  target[1] = channels;
  return broadcast_values(c, target);
}

}  // namespace

std::vector<Pattern> BiasAddFusion::patterns() const {
  std::vector<Pattern> list;
  Pattern conv("conv_add");
  PatternOp& c = conv.op("Conv", {conv.any("x"), conv.constant("w"), Pattern::maybe(conv.constant("b"))}, "conv");
  conv.op("Add", {c, conv.constant("c")}, "add").commutative();
  list.push_back(std::move(conv));
  Pattern gemm("gemm_add");
  PatternOp& g = gemm.op("Gemm", {gemm.any("a"), gemm.any("b"), Pattern::maybe(gemm.any("c"))}, "gemm");
  gemm.op("Add", {g, gemm.any("d")}, "add").commutative();
  list.push_back(std::move(gemm));
  return list;
}

bool BiasAddFusion::meets_requirements(const Match& match, const PassContext&, std::string& reason) const {
  if (!broadcasts_like_numpy(match, reason)) return false;
  if (match.pattern().name() == "conv_add") {
    const Tensor& w = *match.constant("w");
    const Tensor& c = *match.constant("c");
    if (!is_float_type(w.dtype()) || c.dtype() != w.dtype() || w.rank() < 3) {
      reason = "W and C must be float tensors of one dtype and W of rank >= 3";
      return false;
    }
    if (!per_channel(c, w.rank(), w.shape()[0])) {
      reason = "C " + shape_to_string(c.shape()) + " is not a per-channel bias for " + std::to_string(w.shape()[0]) +
               " output channels";
      return false;
    }
    return true;
  }
  if (!broadcasts_into(match.value("d")->desc(), match.node("gemm")->output(0)->desc())) {
    reason = "D " + match.value("d")->desc().to_string() + " does not broadcast into the Gemm output " +
             match.node("gemm")->output(0)->desc().to_string();
    return false;
  }
  if (match.value("c") != nullptr && (match.constant("c") == nullptr || match.constant("d") == nullptr)) {
    reason = "the Gemm already has a C: C and D must both be constants to be combined";
    return false;
  }
  return true;
}

Status BiasAddFusion::replacement(const Match& match, Replacement& r) const {
  if (match.pattern().name() == "conv_add") {
    const Node& conv = *match.node("conv");
    const Tensor& w = *match.constant("w");
    std::vector<double> bias = *per_channel(*match.constant("c"), w.rank(), w.shape()[0]);
    if (const Tensor* b = match.constant("b")) {
      std::vector<double> old = to_doubles(*b);
      for (size_t i = 0; i < bias.size() && i < old.size(); ++i) bias[i] += old[i];
    }
    Value* new_b = r.constant(conv.name() + "_bias", from_doubles(w.dtype(), {w.shape()[0]}, bias));
    Node* fused = r.add_node("Conv", {r.use("x"), r.use("w"), new_b}, conv.name());
    for (const auto& [key, attribute] : conv.attributes()) fused->set_attribute(key, attribute);
    return Status::ok();
  }
  const Node& gemm = *match.node("gemm");
  Value* c = r.use("d");
  if (match.value("c") != nullptr) {
    const Tensor& old_c = *match.constant("c");
    const Tensor& d = *match.constant("d");
    if (!is_float_type(d.dtype()) || old_c.dtype() != d.dtype()) return unsupported("C and D must be float tensors of one dtype");
    std::optional<std::vector<int64_t>> output = static_dims(gemm.output(0));
    if (!output) return unsupported("combining C and D needs the Gemm output's static shape");
    const std::vector<int64_t>& y = *output;
    if (!broadcasts_to(old_c.shape(), y)) return unsupported("C does not broadcast to the Gemm output");
    const double beta = gemm.get_float("beta", 1.0f);
    std::vector<double> sum = broadcast_values(d, y);
    const std::vector<double> c_values = broadcast_values(old_c, y);
    for (size_t i = 0; i < sum.size(); ++i) sum[i] += beta * c_values[i];
    c = r.constant(gemm.name() + "_c", from_doubles(d.dtype(), y, sum));
  }
  Node* fused = r.add_node("Gemm", {r.use("a"), r.use("b"), c}, gemm.name());
  for (const auto& [key, attribute] : gemm.attributes()) fused->set_attribute(key, attribute);
  fused->set_attribute("beta", 1.0f);
  return Status::ok();
}

}  // namespace ge::fusion
