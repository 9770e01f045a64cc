#pragma once
// What LayerNormalization and RMSNormalization share: X viewed as [rows, size] from `axis`
// on, and the per-element index of a scale (or bias) broadcast to the normalised shape.

#include <cstdint>
#include <vector>

#include "normalization/registration.h"

namespace ge::reference_kernels {

struct NormalisedView {
  int64_t rows = 0;                 ///< product of X's dims before axis
  int64_t size = 0;                 ///< product of the normalised dims
  std::vector<int64_t> normalised;  ///< X's dims from axis on
  float epsilon = 1e-5f;
};

/// Reads axis (default -1), stash_type (a floating dtype) and epsilon of `context`'s node
/// for an input X of `x_dims`; errors name the attribute.
Result<NormalisedView> normalised_view(const KernelContext& context, const std::vector<int64_t>& x_dims);

/// Flat index into a tensor of `dims` broadcast (unidirectionally) to `target`, per element
/// of `target`; an error naming `what` when it does not broadcast.
Result<std::vector<int64_t>> broadcast_index(const KernelContext& context, const char* what,
                                             const std::vector<int64_t>& dims, const std::vector<int64_t>& target);

}  // namespace ge::reference_kernels
