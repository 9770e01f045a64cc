// RotaryEmbedding kernel tests. Expected values from numpy (/usr/bin/python3) running a
// transcription of the ONNX reference implementation
// (onnx/reference/ops/op_rotary_embedding.py) on the float32 inputs below; the caches
// are np.cos / np.sin of angles [[0, 0], [0.5, 0.25], [1, 0.5], [1.5, 0.75]] (and
// [0.3, -0.7, 1.2] for the 3-D case), rounded to float32.

#include <gtest/gtest.h>

#include "testing/kernel_test_util.h"

namespace ge::reference_kernels::testing {
namespace {

using F = DataType;

// X [1, 2, 3, 4] = arange(24) * 0.25 - 2.
Tensor rope_input() { return f32_iota({1, 2, 3, 4}, -2.0f, 0.25f); }
Tensor cos_cache() {
  return f32({4, 2}, {1, 1, 0.87758255f, 0.96891242f, 0.54030228f, 0.87758255f, 0.070737198f, 0.73168886f});
}
Tensor sin_cache() {
  return f32({4, 2}, {0, 0, 0.47942555f, 0.24740396f, 0.84147096f, 0.47942555f, 0.997495f, 0.68163878f});
}

TEST(NnRotaryEmbeddingKernel, FourDimensionalHalvesWithPositionIds) {
  KernelTest test("RotaryEmbedding", 23);
  test.input(rope_input())
      .input(cos_cache())
      .input(sin_cache())
      .input(i64({1, 3}, {3, 1, 0}))
      .output(F::kFloat32, {1, 2, 3, 4});
  GE_RUN_KERNEL(out, test);
  expect_tensor<float>(out[0], {1, 2, 3, 4},
                       {1.3547682f, -0.42840701f, -2.1010957f, -2.1074791f, -0.63786978f, -0.66483337f, -0.91821682f,
                        -0.42778108f, 0, 0.25f, 0.5f, 0.75f, -1.4255053f, -0.27825677f, 1.1036007f, 2.132504f,
                        0.55660129f, 1.4996921f, 3.1528075f, 3.221168f, 3, 3.25f, 3.5f, 3.75f});
}

TEST(NnRotaryEmbeddingKernel, FourDimensionalInterleaved) {
  KernelTest test("RotaryEmbedding", 23);
  test.input(rope_input())
      .input(cos_cache())
      .input(sin_cache())
      .input(i64({1, 3}, {3, 1, 0}))
      .attribute("interleaved", int64_t{1})
      .output(F::kFloat32, {1, 2, 3, 4});
  GE_RUN_KERNEL(out, test);
  expect_tensor<float>(out[0], {1, 2, 3, 4},
                       {1.6041418f, -2.1187801f, -0.24548477f, -1.9370693f, -0.51801336f, -1.1376125f, -0.42260522f,
                        -0.36593008f, 0, 0.25f, 0.5f, 0.75f, -1.1761315f, 1.0859165f, -0.095334649f, 2.3029137f,
                        0.67645764f, 2.9334118f, 1.7419201f, 3.2830191f, 3, 3.25f, 3.5f, 3.75f});
}

TEST(NnRotaryEmbeddingKernel, ThreeDimensionalPartialRotationWithoutPositionIds) {
  // X [1, 3, 8] = arange(24) * 0.5 - 3, two heads of 4, rotary_embedding_dim 2; caches
  // [1, 3, 1] per token.
  KernelTest test("RotaryEmbedding", 23);
  test.input(f32_iota({1, 3, 8}, -3.0f, 0.5f))
      .input(f32({1, 3, 1}, {0.95533651f, 0.76484221f, 0.36235777f}))
      .input(f32({1, 3, 1}, {0.29552022f, -0.64421767f, 0.93203908f}))
      .no_input()
      .attribute("num_heads", int64_t{2})
      .attribute("rotary_embedding_dim", int64_t{2})
      .output(F::kFloat32, {1, 3, 8});
  GE_RUN_KERNEL(out, test);
  expect_tensor<float>(out[0], {1, 3, 8},
                       {-2.1272089f, -3.2749019f, -2, -1.5f, -0.80757642f, -0.77318847f, 0, 0.5f, 1.7311687f,
                        0.50304562f, 2, 2.5f, 4.5492887f, 0.74429488f, 4, 4.5f, -3.3144262f, 6.653163f, 6, 6.5f,
                        -4.4537888f, 9.2419567f, 8, 8.5f});
}

TEST(NnRotaryEmbeddingKernel, Float64) {
  // One head of 2, angle 90 degrees (cos 0, sin 1): [x1, x2] -> [-x2, x1].
  KernelTest test("RotaryEmbedding", 23);
  test.input(f64({1, 1, 1, 2}, {3, 5}))
      .input(f64({1, 1, 1}, {0}))
      .input(f64({1, 1, 1}, {1}))
      .output(F::kFloat64, {1, 1, 1, 2});
  GE_RUN_KERNEL(out, test);
  expect_tensor<double>(out[0], {1, 1, 1, 2}, {-5, 3});
}

TEST(NnRotaryEmbeddingKernel, PositionIdOutsideTheCacheFailsAtLaunch) {
  KernelTest test("RotaryEmbedding", 23);
  test.input(rope_input())
      .input(cos_cache())
      .input(sin_cache())
      .input(i64({1, 3}, {4, 1, 0}))
      .output(F::kFloat32, {1, 2, 3, 4});
  int code = 0;
  auto result = test.run(&code);
  ASSERT_FALSE(result.is_ok());
  EXPECT_EQ(code, kKernelIndexOutOfRange);
}

TEST(NnRotaryEmbeddingKernel, RejectsBadShapesAndAttributes) {
  {
    KernelTest test("RotaryEmbedding", 23);  // 3-D X without num_heads
    test.input(f32_iota({1, 3, 8})).input(f32_iota({1, 3, 4})).input(f32_iota({1, 3, 4}));
    test.output(F::kFloat32, {1, 3, 8});
    Result<PreparedKernel> kernel = test.prepare();
    ASSERT_FALSE(kernel.is_ok());
    EXPECT_NE(kernel.status().message().find("num_heads"), std::string::npos) << kernel.status().message();
  }
  {
    KernelTest test("RotaryEmbedding", 23);  // cache width is not rotary_dim / 2
    test.input(rope_input()).input(f32_iota({4, 1})).input(f32_iota({4, 1})).input(i64({1, 3}, {0, 1, 2}));
    test.output(F::kFloat32, {1, 2, 3, 4});
    Result<PreparedKernel> kernel = test.prepare();
    ASSERT_FALSE(kernel.is_ok());
    EXPECT_NE(kernel.status().message().find("cos_cache has shape [4,1], expected [max_position_id + 1, 2]"),
              std::string::npos)
        << kernel.status().message();
  }
  {
    KernelTest test("RotaryEmbedding", 23);  // odd rotary dim
    test.input(rope_input()).input(cos_cache()).input(sin_cache()).input(i64({1, 3}, {0, 1, 2}));
    test.attribute("rotary_embedding_dim", int64_t{3}).output(F::kFloat32, {1, 2, 3, 4});
    Result<PreparedKernel> kernel = test.prepare();
    ASSERT_FALSE(kernel.is_ok());
    EXPECT_NE(kernel.status().message().find("rotary_embedding_dim"), std::string::npos) << kernel.status().message();
  }
  {
    KernelTest test("RotaryEmbedding", 23);  // 2-D X
    test.input(f32_iota({3, 4})).input(cos_cache()).input(sin_cache()).output(F::kFloat32, {3, 4});
    EXPECT_EQ(test.prepare().status().code(), StatusCode::kInvalidArgument);
  }
}

}  // namespace
}  // namespace ge::reference_kernels::testing
