#pragma once
/// Autofusion: groups elementwise, broadcasting and reduction ONNX ops of the top-level
/// graph and replaces each group of two or more by one ge_autofuse.Fused node whose
/// `program` attribute (ge/autofuse/loop_ir.h) computes it. The ops: float32 arithmetic
/// and reductions over one contiguous range of axes (innermost or not: a channel norm
/// over axis 1 of NCHW); Softmax and LogSoftmax over any axis (spelled out as max,
/// subtract, exp, sum and divide or log); every reduction of a group reduces the same
/// axes; comparisons, Not/And/Or/Xor and Where on
/// float32 and bool values; Cast between float32 and bool, and from float16 to float32.
///
/// Groups grow greedily in topological order: a node joins the group of one of its
/// producers when its shape fits the group's iteration shape (or the group's row shape,
/// after a reduction), when the group stays within max_ops nodes and max_inputs program
/// inputs, and when the contracted graph stays acyclic. Groups are never merged. A group
/// whose program does not validate, or whose Fused node the pass context's op registry
/// cannot infer or its target backend cannot run (each when given), is left as it was;
/// the pass never fails for that.

#include <cstddef>

#include "ge/plugin_api/pass.h"

namespace ge::passes {

struct AutofusionOptions {
  size_t max_ops = 64;     ///< nodes per group
  size_t max_inputs = 16;  ///< program inputs per group (one-element constants are inlined)
};

class Autofusion final : public Pass {
 public:
  explicit Autofusion(AutofusionOptions options = {}) : options_(options) {}
  std::string name() const override { return "autofusion"; }
  Status run(Graph& graph, PassContext& context, bool& changed) override;

 private:
  AutofusionOptions options_;
};

}  // namespace ge::passes
