#include <gtest/gtest.h>

#include "fusion_test_util.h"

namespace ge::fusion {
namespace {

using testing::at_opset;
using testing::checked_at;
using testing::inferred;
using testing::run;

const char* const kMatMuls = R"(graph main (opset ""=17) {
  input %a : float32[2,3]
  input %x : float32[B,5,3]
  init %w : float32[3,4] = [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12]
  init %bias : float32[4] = [1, 2, 3, 4]
  %m1 = MatMul(%a, %w) "mm2d"
  %y1 = Add(%m1, %bias) "add2d"
  %m2 = MatMul(%x, %w) "mm3d"
  %y2 = Add(%bias, %m2) "add3d"
  output %y1
  output %y2
})";

TEST(MatMulFusion, TwoDimensionalProductsBecomeGemm) {
  EXPECT_EQ(run(kMatMuls, {"fuse_matmul_add"}), inferred(R"(graph main (opset ""=17) {
  input %a : float32[2,3]
  input %x : float32[B,5,3]
  init %w : float32[3,4] = [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12]
  init %bias : float32[4] = [1, 2, 3, 4]
  %m2 = MatMul(%x, %w) "mm3d"
  %y2 = Add(%bias, %m2) "add3d"
  %y1 = Gemm(%a, %w, %bias) "mm2d"
  output %y1
  output %y2
})"));
}

const char* const kMatMulsAtO3 = R"(graph main (opset ""=17, "ge"=1) {
  input %a : float32[2,3]
  input %x : float32[B,5,3]
  init %w : float32[3,4] = [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12]
  init %bias : float32[4] = [1, 2, 3, 4]
  %y1 = Gemm(%a, %w, %bias) "mm2d"
  %y2 = ge::FusedMatMul(%x, %w, %bias) "mm3d"
  output %y1
  output %y2
})";

TEST(MatMulFusion, AtO3BatchedProductsTakeTheirBias) {
  EXPECT_EQ(run(kMatMuls, {"fuse_matmul_add", "fuse_matmul_bias"}), inferred(kMatMulsAtO3));
}

TEST(MatMulFusion, NotWhereTheBackendLacksTheDtype) {
  // The cpu backend's FusedMatMul runs float32/float64 only: an int32 product stays.
  const std::string ir = R"(graph main (opset ""=17) {
  input %x : int32[2,2,3]
  init %w : int32[3,2] = [1, 2, 3, 4, 5, 6]
  init %bias : int32[2] = [1, 2]
  %m = MatMul(%x, %w) "mm"
  %y = Add(%m, %bias) "add"
  output %y
})";
  EXPECT_EQ(run(ir, {"fuse_matmul_bias"}), inferred(ir));
}

TEST(MatMulFusion, NotWhereTheAddWouldBroadcastTheProduct) {
  const std::string ir = R"(graph main (opset ""=17) {
  input %a : float32[2,3]
  input %big : float32[5,2,4]
  init %w : float32[3,4] = [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12]
  %m = MatMul(%a, %w) "mm"
  %y = Add(%m, %big) "add"
  output %y
})";
  EXPECT_EQ(run(ir, {"fuse_matmul_add", "fuse_matmul_bias"}), inferred(ir));
}

TEST(MatMulFusion, NotWhereALegacyAddLinesTheBiasUpWithTheRows) {
  // Before opset 7, Add(broadcast = 1, axis = 0) adds bias[i] to row i of the product;
  // Gemm's C (and FusedMatMul's bias) would add it to column i.
  const std::string ir = R"(graph main (opset ""=6) {
  input %a : float32[2,3]
  init %w : float32[3,2] = [1, 2, 3, 4, 5, 6]
  init %bias : float32[2] = [1, 2]
  %m = MatMul(%a, %w) "mm"
  %y = Add(%m, %bias) {axis: int = 0, broadcast: int = 1} "add"
  output %y
})";
  EXPECT_EQ(run(ir, {"fuse_matmul_add"}), inferred(ir));
  EXPECT_EQ(run(ir, {"fuse_matmul_bias"}, checked_at(3)), inferred(ir));
}

class MatMulFusionAtOpset : public ::testing::TestWithParam<int> {};

TEST_P(MatMulFusionAtOpset, GemmAndFusedMatMulStillInfer) {
  EXPECT_EQ(run(at_opset(kMatMuls, GetParam()), {"fuse_matmul_add", "fuse_matmul_bias"}, checked_at(3)),
            inferred(at_opset(kMatMulsAtO3, GetParam())));
}

INSTANTIATE_TEST_SUITE_P(Opsets, MatMulFusionAtOpset, ::testing::ValuesIn(testing::kOpsets), testing::opset_name);

// float16/bfloat16 products become Gemm and FusedMatMul as float32 ones do (the kernels
// take both; golden IR only: the batch dim is symbolic).
class MatMulFusionInHalf : public ::testing::TestWithParam<std::string> {};

TEST_P(MatMulFusionInHalf, ProductsTakeTheirBias) {
  const std::string dtype = GetParam();
  EXPECT_EQ(run(testing::as_dtype(kMatMuls, dtype), {"fuse_matmul_add", "fuse_matmul_bias"}),
            inferred(testing::as_dtype(kMatMulsAtO3, dtype)));
}

INSTANTIATE_TEST_SUITE_P(Dtypes, MatMulFusionInHalf, ::testing::ValuesIn(testing::kHalfDtypes), testing::dtype_name);

}  // namespace
}  // namespace ge::fusion
