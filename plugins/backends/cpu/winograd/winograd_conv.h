#pragma once
/// Winograd convolution F(4x4, 3x3) for the cpu backend: 3x3, stride 1, ungrouped
/// float32 convolutions whose input and output are stored channel-blocked by 8 (nChw8c,
/// what layout assignment gives them on AVX2). Each 4x4 output tile costs 36 products per
/// input/output channel pair instead of 144, so the multiplies fall 4x; the transforms
/// are vectorised over the 8 channels of a block. Bias, a residual input (ge::FusedConv's
/// Z) and the activations Relu, LeakyRelu and Clip are applied in the output transform.
///
/// Numerics: the transforms add and scale by small powers of two and 1/6, 1/12, 1/24;
/// results differ from a direct convolution by rounding, a few units in the last place of
/// the largest partial sums (tests bound it).

#include <cstddef>
#include <optional>
#include <string_view>

#include "ge/graph.h"
#include "ge/plugin_api/kernel.h"

namespace ge::cpu_winograd {

/// The Winograd kernel for Conv / ge::FusedConv `node`, or nullopt when it does not take
/// the node: not 3x3 stride 1 dilation 1 ungrouped, input/output/residual not stored
/// nChw8c, non-constant weights or bias, an activation it does not apply, a CPU without
/// AVX2 and FMA, or too few channels to win (the backend's `winograd = false` setting
/// keeps callers from asking). `threads`: the launch's OpenMP team (>= 1).
std::optional<PreparedKernel> prepare_conv(const Node& node, std::string_view backend, int threads);

/// How many filters have a transform alive. Kernels of the same filter tensor (shape
/// specialisations, a session's runner pool) share one transform; it goes with the last.
size_t transformed_filters();

}  // namespace ge::cpu_winograd
