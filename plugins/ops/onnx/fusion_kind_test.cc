#include "fusion_kind.h"

#include <gtest/gtest.h>

namespace ge::onnx_ops {
namespace {

TEST(FusionKindTest, ClassifiesStandardOps) {
  EXPECT_EQ(fusion_kind_for("", "Relu"), FusionKind::kElementwise);
  EXPECT_EQ(fusion_kind_for("", "Sqrt"), FusionKind::kElementwise);
  EXPECT_EQ(fusion_kind_for("ai.onnx", "Add"), FusionKind::kBroadcast);
  EXPECT_EQ(fusion_kind_for("", "GreaterOrEqual"), FusionKind::kBroadcast);
  EXPECT_EQ(fusion_kind_for("", "Transpose"), FusionKind::kInjective);
  EXPECT_EQ(fusion_kind_for("", "Gather"), FusionKind::kInjective);
  EXPECT_EQ(fusion_kind_for("", "ReduceMean"), FusionKind::kReduction);
  EXPECT_EQ(fusion_kind_for("", "Conv"), FusionKind::kOpaque);
  EXPECT_EQ(fusion_kind_for("", "NoSuchOp"), FusionKind::kOpaque);
}

TEST(FusionKindTest, OtherDomainsAreOpaque) {
  EXPECT_EQ(fusion_kind_for("ai.onnx.ml", "Relu"), FusionKind::kOpaque);
  EXPECT_EQ(fusion_kind_for("com.example", "Add"), FusionKind::kOpaque);
}

}  // namespace
}  // namespace ge::onnx_ops
