#pragma once
/// fuse_pad: a Pad of zeros is taken into the padding of the convolution or average pool
/// that reads it, so the padded copy is never made. torch exports avg_pool2d/3d with
/// `padding` (count_include_pad) as Pad + AveragePool: Inception-V3 has nine, each a copy
/// of its input on the reference kernel. A Pad whose amounts are all zero (DenseNet's and
/// S3D's exports write those before their pools) is an identity: its readers read its
/// input.
///
/// Taken: mode "constant" with the value absent or 0, constant amounts (the `pads` input,
/// or attribute before opset 11; `axes` when constant), none on the batch and channel axes
/// nor negative (a crop), read as input 0 of an ai.onnx Conv (auto_pad NOTSET) or of an
/// AveragePool (auto_pad NOTSET, ceil_mode 0) that either counts padding
/// (count_include_pad 1) or has no padding of its own (it then counts the taken padding,
/// as it counted the zeros read). Each reader is rewired on its own; the Pad stays for
/// readers that cannot take it (dce drops it when none is left). What stays is logged at
/// -vv with the reason.

#include "ge/plugin_api/pass.h"

namespace ge::fusion {

class PadFusion final : public Pass {
 public:
  std::string name() const override { return "fuse_pad"; }
  Status run(Graph& graph, PassContext& context, bool& changed) override;
};

}  // namespace ge::fusion
