#include "desc_merge.h"

#include <gtest/gtest.h>

namespace ge::onnx_ops {
namespace {

TensorDesc desc(DataType type, std::vector<Dim> dims) { return TensorDesc(type, std::move(dims)); }

TEST(DescMergeTest, InferredStaticDimsAndDtypeFillAnEmptyDesc) {
  auto merged = merge_inferred_desc(TensorDesc(), TensorDesc::of(DataType::kFloat32, {2, 3}), "v");
  ASSERT_TRUE(merged.is_ok()) << merged.status().to_string();
  EXPECT_EQ(*merged, TensorDesc::of(DataType::kFloat32, {2, 3}));
}

TEST(DescMergeTest, ExistingStaticOrNamedDimSurvivesAnUnknownInferredDim) {
  TensorDesc existing = desc(DataType::kFloat32, {Dim::of(4), Dim::named("N"), Dim::unknown()});
  TensorDesc inferred = desc(DataType::kFloat32, {Dim::unknown(), Dim::unknown(), Dim::of(7)});
  auto merged = merge_inferred_desc(existing, inferred, "v");
  ASSERT_TRUE(merged.is_ok()) << merged.status().to_string();
  EXPECT_EQ(*merged, desc(DataType::kFloat32, {Dim::of(4), Dim::named("N"), Dim::of(7)}));
}

TEST(DescMergeTest, InferredStaticBeatsExistingNamedAndExistingStaticBeatsInferredNamed) {
  TensorDesc existing = desc(DataType::kInt64, {Dim::named("N"), Dim::of(5), Dim::unknown()});
  TensorDesc inferred = desc(DataType::kInt64, {Dim::of(8), Dim::named("M"), Dim::named("K")});
  auto merged = merge_inferred_desc(existing, inferred, "v");
  ASSERT_TRUE(merged.is_ok()) << merged.status().to_string();
  EXPECT_EQ(*merged, desc(DataType::kInt64, {Dim::of(8), Dim::of(5), Dim::named("K")}));
}

TEST(DescMergeTest, UnknownInferredRankKeepsTheExistingDesc) {
  TensorDesc existing = TensorDesc::of(DataType::kFloat16, {1, 2});
  TensorDesc inferred;
  inferred.dtype = DataType::kFloat16;
  auto merged = merge_inferred_desc(existing, inferred, "v");
  ASSERT_TRUE(merged.is_ok());
  EXPECT_EQ(*merged, existing);
}

TEST(DescMergeTest, InferredDtypeFillsAnUndefinedExistingDtype) {
  TensorDesc existing(DataType::kUndefined, {Dim::of(3)});
  TensorDesc inferred;
  inferred.dtype = DataType::kBool;
  auto merged = merge_inferred_desc(existing, inferred, "v");
  ASSERT_TRUE(merged.is_ok());
  EXPECT_EQ(*merged, TensorDesc::of(DataType::kBool, {3}));
}

TEST(DescMergeTest, ConflictingStaticDimsNameWhatBothShapesAndTheValues) {
  auto merged = merge_inferred_desc(TensorDesc::of(DataType::kFloat32, {2, 4}),
                                    TensorDesc::of(DataType::kFloat32, {2, 3}), "Relu 'r' output 0 'y'");
  ASSERT_FALSE(merged.is_ok());
  EXPECT_EQ(merged.status().code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(merged.status().message(),
            "Relu 'r' output 0 'y': inferred float32[2,3] conflicts with existing float32[2,4]: "
            "dim 1 is 3 vs 4");
}

TEST(DescMergeTest, ConflictingRanksAndDtypesAreErrors) {
  auto rank = merge_inferred_desc(TensorDesc::of(DataType::kFloat32, {2}),
                                  TensorDesc::of(DataType::kFloat32, {2, 1}), "v");
  ASSERT_FALSE(rank.is_ok());
  EXPECT_NE(rank.status().message().find("rank 2 vs 1"), std::string::npos);

  auto dtype = merge_inferred_desc(TensorDesc::of(DataType::kInt32, {2}),
                                   TensorDesc::of(DataType::kFloat32, {2}), "v");
  ASSERT_FALSE(dtype.is_ok());
  EXPECT_NE(dtype.status().message().find("dtype float32 vs int32"), std::string::npos);
}

}  // namespace
}  // namespace ge::onnx_ops
