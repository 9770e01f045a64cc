#pragma once
/// Layout assignment (GE's tensor "format", seeds 001/002): keeps activations in the
/// target backend's blocked format (e.g. nChw16c) along chains of ops that prefer it, so
/// that reorders (ge::TransData) appear only at chain boundaries.
///
/// Values joined by format-agnostic (elementwise) ops form groups of one shape; a group
/// is blocked when an op that prefers a blocked format produces or consumes one of its
/// values, and no member is a graph input, output, constant or subgraph capture. A
/// consumer that cannot read the blocked format gets a ge::TransData to plain (one per
/// value); a producer that cannot write it writes a plain value that a ge::TransData
/// reorders. Formats are only chosen for tensors whose blocked storage needs no padding.
/// Without a target backend, or with one that states no formats, the pass does nothing.

#include "ge/plugin_api/pass.h"

namespace ge::passes {

class LayoutAssignment final : public Pass {
 public:
  std::string name() const override { return "layout_assignment"; }
  Status run(Graph& graph, PassContext& context, bool& changed) override;
};

}  // namespace ge::passes
