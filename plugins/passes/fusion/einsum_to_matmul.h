#pragma once
/// einsum_to_matmul: a two-operand Einsum that is a batched matrix product becomes a
/// MatMul, with a Transpose of the last two axes of an operand stored the other way
/// round: "bgik,bgkj->bgij" is MatMul(A, B), "bhid,bhjd->bhij" MatMul(A, B^T) (attention
/// scores as MaxViT and other exporters write them), "bkid,..." transposes A. The MatMul
/// runs on the backend's matrix kernels (oneDNN's brgemm on the cpu backend) where an
/// Einsum runs the reference kernel's loops. Equations with spaces, as torch exports them,
/// are read; what stays an Einsum (logged at -vv with the reason): one operand or three,
/// an implicit output, an ellipsis, a repeated letter, a letter summed over one operand
/// only, batch letters in different orders, more or fewer than one row, column and
/// contracted letter, non-float types.

#include "ge/plugin_api/pass.h"

namespace ge::fusion {

class EinsumToMatMul final : public Pass {
 public:
  std::string name() const override { return "einsum_to_matmul"; }
  Status run(Graph& graph, PassContext& context, bool& changed) override;
};

}  // namespace ge::fusion
