#pragma once
/// fuse_scatter_rows (-O3): ScatterElements(data, Expand(rows, shape), updates) on axis 0
/// with reduction none, where `rows` has the rank of data and unit dims after the first
/// (torchvision's MultiScaleRoIAlign writes each level's pooled regions back this way:
/// `index.view(-1, 1, 1, 1).expand(...)`), becomes ge::ScatterRows(data, rows, updates,
/// shape): one copy per row instead of an index per element. In Faster R-CNN the Expand
/// wrote 12.5M int64 indices (27 ms) and the ScatterElements read them (47 ms) per run.
/// The Expand stays where something else reads it. What stays (logged at -vv with the
/// reason): another axis or a reduction, indices not an Expand, rows of another rank or
/// with a dim after the first that is not a static 1.

#include "ge/plugin_api/pass.h"

namespace ge::fusion {

class ScatterRowsFusion final : public Pass {
 public:
  std::string name() const override { return "fuse_scatter_rows"; }
  Status run(Graph& graph, PassContext& context, bool& changed) override;
};

}  // namespace ge::fusion
