#pragma once
/// Half-precision widening: on a backend whose kernels compute float16 (or bfloat16) in
/// float32 anyway, rounding every kernel's output back to half precision
/// (Backend::has_native_arithmetic), runs each connected region of such an op graph in
/// float32 and rounds once, where the region hands a value to something that must see
/// half precision: a graph output, a Cast, an op with a subgraph or a dtype attribute.
///
/// What it rewrites (the top graph; nodes inside subgraphs are left alone):
/// - every ai.onnx node that reads or writes a half-precision tensor, has no dtype-bearing
///   attribute (to, dtype, output_dtype, a tensor value), no subgraph, is not Cast or
///   CastLike and writes no value a subgraph captures, computes in float32: its
///   half-precision outputs become float32;
/// - a half-precision constant it reads is widened once (exactly); a half-precision value
///   from elsewhere (a graph input, a Cast) goes through one Cast to float32;
/// - where a widened value meets a graph output or a node that stays, one Cast back to its
///   type rounds it (a graph output keeps its name and type).
/// The numbers differ from running each op in half precision by where they are rounded:
/// once per region, not once per op, so they are nearer the float32 model's (ONNX Runtime's
/// CPU provider does the same with its inserted Casts). -O0 and -O1 keep the per-op
/// rounding; on a backend with native half-precision arithmetic the pass changes nothing.

#include "ge/plugin_api/pass.h"

namespace ge::passes {

class HalfPrecisionWidening final : public Pass {
 public:
  std::string name() const override { return "widen_half_precision"; }
  Status run(Graph& graph, PassContext& context, bool& changed) override;
};

}  // namespace ge::passes
