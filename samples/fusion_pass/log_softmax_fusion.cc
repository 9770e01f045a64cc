// A pass plugin written with the pattern-fusion SDK: Log(Softmax(x)) -> LogSoftmax(x).
// Exporters write `log(softmax(x))` as the two ops; LogSoftmax computes x - max - log(sum
// exp(x - max)) in one kernel, and stays finite where Softmax underflows to 0 and Log
// would give -inf.
#include <exception>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include <ge/plugin_api/pass_options.h>
#include <ge/plugin_api/pattern_fusion.h>
#include <ge/plugin_api/plugin.h>

namespace {

class LogSoftmaxFusion final : public ge::PatternFusionPass {
 public:
  std::string name() const override { return "fuse_log_softmax"; }

  std::vector<ge::Pattern> patterns() const override {
    ge::Pattern p("log_softmax");
    p.op("Log", {p.op("Softmax", {p.any("x")}, "softmax")}, "log");
    std::vector<ge::Pattern> list;
    list.push_back(std::move(p));
    return list;
  }

  // No meets_requirements(): Softmax and LogSoftmax share their `axis` semantics in every
  // opset (both flatten to 2-D before opset 13), and the framework already refuses a match
  // whose Softmax output is used elsewhere or is a graph output.
  ge::Status replacement(const ge::Match& match, ge::Replacement& r) const override {
    ge::Node* fused = r.add_node("LogSoftmax", {r.use("x")});  // named after the Log
    for (const auto& [name, value] : match.node("softmax")->attributes()) fused->set_attribute(name, value);
    return ge::Status::ok();
  }
};

ge::Status register_log_softmax_fusion(ge::Registrar& registrar) {
  try {
    ge::PassInfo info;
    info.name = "fuse_log_softmax";
    // -O2 (ge-run's default) and up, in phase fuse after the built-in fuse_softmax, so a
    // decomposed Exp / ReduceSum / Div softmax under a Log is fused too, and before
    // autofusion, which would take the Log into a fused group.
    info.min_opt_level = 2;
    info.phase = ge::PassPhase::kFuse;
    info.run_after = {"fuse_softmax"};
    info.run_before = {"autofusion"};
    info.create = [] { return std::make_unique<LogSoftmaxFusion>(); };
    // The registry entry may move it: min_opt_level, phase, after, before.
    GE_ASSIGN_OR_RETURN(info, ge::apply_pass_options(std::move(info), registrar.options()));
    return registrar.add_pass(std::move(info));
  } catch (const std::exception& error) {  // no exception may cross the plugin boundary
    return ge::plugin_error(std::string("fuse_log_softmax: registration failed: ") + error.what());
  }
}

}  // namespace

GE_DEFINE_PLUGIN("log_softmax_fusion", "1.0.0", register_log_softmax_fusion)
