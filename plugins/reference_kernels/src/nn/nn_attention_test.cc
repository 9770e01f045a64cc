// Attention-23 kernel tests. Expected values from numpy (/usr/bin/python3) running the
// ONNX reference implementation (onnx/reference/ops/op_attention.py, its
// _compute_attention executed verbatim with the onnx imports stubbed) on the float32
// inputs below (multiples of 1/8 drawn with np.random.RandomState).

#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "testing/kernel_test_util.h"
#include "testing/math_test_util.h"

namespace ge::reference_kernels::testing {
namespace {

using F = DataType;
using math_testing::bools;

constexpr float kNegInf = -std::numeric_limits<float>::infinity();

// expect_tensor, but -inf entries must be exactly -inf.
void expect_with_infinities(const Tensor& actual, const std::vector<int64_t>& dims,
                            const std::vector<float>& expected) {
  ASSERT_EQ(actual.shape(), dims);
  ASSERT_EQ(static_cast<size_t>(actual.element_count()), expected.size());
  for (size_t i = 0; i < expected.size(); ++i) {
    const float got = actual.data<float>()[i];
    if (std::isinf(expected[i])) {
      EXPECT_EQ(got, expected[i]) << "element " << i;
    } else {
      EXPECT_NEAR(got, expected[i], 1e-5 * (1 + std::fabs(expected[i]))) << "element " << i;
    }
  }
}

TEST(NnAttentionKernel, FourDimensionalDefaultScaleWithQkOutput) {
  KernelTest test("Attention", 23);
  test.input(f32({1, 2, 2, 4}, {-0.5f, -1, -0.875f, -0.625f, -1.375f, -0.125f, -2, 0, -1.875f, -0.5f, -1.125f, -1.25f,
                                1.125f, 0.5f, 0.25f, 0.5f}))
      .input(f32({1, 2, 3, 4}, {-0.125f, -1, 0.75f, 0.25f, -0.625f, -1.125f, 1.875f, -0.625f, 0.625f, 1.875f, 1.25f,
                                0.5f, -1.625f, -1.5f, -1.625f, -1.375f, 1, -1.5f, -1.25f, 1.875f, 0.375f, 1.875f,
                                -1.75f, 0}))
      .input(f32({1, 2, 3, 2}, {1, -1.625f, -1, -2, 0.625f, 0.375f, -0.75f, -0.75f, 0.625f, 2, 0.5f, 1.625f}))
      .no_input()
      .no_input()
      .no_input()
      .output(F::kFloat32, {1, 2, 2, 2})
      .output(F::kFloat32, {1, 2, 3, 4})  // present_key without a past: K itself
      .output(F::kFloat32, {1, 2, 3, 2})
      .output(F::kFloat32, {1, 2, 2, 3});
  GE_RUN_KERNEL(out, test);
  expect_tensor<float>(out[0], {1, 2, 2, 2},
                       {0.057773944f, -1.6584651f, 0.41252434f, -1.380002f, -0.7019552f, -0.65751493f, 0.50199199f,
                        1.6955838f});
  expect_tensor<float>(out[1], {1, 2, 3, 4},
                       {-0.125f, -1, 0.75f, 0.25f, -0.625f, -1.125f, 1.875f, -0.625f, 0.625f, 1.875f, 1.25f, 0.5f,
                        -1.625f, -1.5f, -1.625f, -1.375f, 1, -1.5f, -1.25f, 1.875f, 0.375f, 1.875f, -1.75f, 0});
  expect_tensor<float>(out[2], {1, 2, 3, 2},
                       {1, -1.625f, -1, -2, 0.625f, 0.375f, -0.75f, -0.75f, 0.625f, 2, 0.5f, 1.625f});
  expect_tensor<float>(out[3], {1, 2, 2, 3},
                       {0.12499994f, 0.09374994f, -1.796875f, -0.60156244f, -1.375f, -1.796875f, 3.6718748f,
                        -1.03125f, 0.1640625f, -1.8359374f, 0.49999997f, 0.4609375f});
}

TEST(NnAttentionKernel, ThreeDimensionalGroupedQueryCausalWithPast) {
  // 4 query heads over 2 kv heads (head size 2), 2 new tokens after 2 cached ones.
  KernelTest test("Attention", 23);
  test.input(f32({1, 2, 8}, {-1.375f, -1.875f, 0.875f, -1, -0.875f, 1.75f, -1.625f, -2, 0.625f, 0.625f, -0.875f,
                             -1.75f, 1.75f, -1, -1.75f, 0.875f}))
      .input(f32({1, 2, 4}, {-0.25f, 0, -0.875f, -1, 1.375f, 1.75f, 0, -1.125f}))
      .input(f32({1, 2, 4}, {-0.75f, -0.875f, 0.5f, -0.125f, 0, 1.125f, -1.875f, -0.625f}))
      .no_input()
      .input(f32({1, 2, 2, 2}, {-1.5f, 1.125f, -1.625f, 0.375f, 0.875f, 1.5f, -0.25f, 0.875f}))
      .input(f32({1, 2, 2, 2}, {-1.625f, 0.5f, -1.375f, 1.25f, -1, 0.375f, 0.625f, -0.75f}))
      .attribute("q_num_heads", int64_t{4})
      .attribute("kv_num_heads", int64_t{2})
      .attribute("is_causal", int64_t{1})
      .attribute("qk_matmul_output_mode", int64_t{3})
      .output(F::kFloat32, {1, 2, 8})
      .output(F::kFloat32, {1, 2, 4, 2})
      .output(F::kFloat32, {1, 2, 4, 2})
      .output(F::kFloat32, {1, 4, 2, 4});
  GE_RUN_KERNEL(out, test);
  expect_tensor<float>(out[0], {1, 2, 8},
                       {-1.2681503f, 0.58878475f, -1.0019724f, -0.23526222f, -0.17217056f, -0.16310942f, 0.49850443f,
                        -0.1438259f, -0.45094281f, 0.76796198f, -1.1954734f, 0.41984594f, -1.0615617f, -0.32029188f,
                        0.088354111f, -0.36790976f});
  expect_tensor<float>(out[1], {1, 2, 4, 2},
                       {-1.5f, 1.125f, -1.625f, 0.375f, -0.25f, 0, 1.375f, 1.75f, 0.875f, 1.5f, -0.25f, 0.875f,
                        -0.875f, -1, 0, -1.125f});
  expect_tensor<float>(out[2], {1, 2, 4, 2},
                       {-1.625f, 0.5f, -1.375f, 1.25f, -0.75f, -0.875f, 0, 1.125f, -1, 0.375f, 0.625f, -0.75f, 0.5f,
                        -0.125f, -1.875f, -0.625f});
  expect_tensor<float>(out[3], {1, 4, 2, 4},
                       {0.18620406f, 0.5683549f, 0.24544102f, 0, 0.13454437f, 0.091395378f, 0.14218611f, 0.63187414f,
                        0.13560537f, 0.21330844f, 0.65108621f, 0, 0.1764445f, 0.48223129f, 0.32757756f, 0.013746617f,
                        0.48556605f, 0.44942793f, 0.06500604f, 0, 0.2366515f, 0.091506846f, 0.15898997f, 0.51285172f,
                        0.0037576864f, 0.033127598f, 0.96311474f, 0, 0.16203409f, 0.44284695f, 0.30082396f,
                        0.094294995f});
}

TEST(NnAttentionKernel, BoolMaskWithFullyMaskedRowGivesZeros) {
  KernelTest test("Attention", 23);
  test.input(f32({1, 1, 3, 2}, {1.5f, 0.75f, -1.875f, 0.75f, 1.375f, 1.625f}))
      .input(f32({1, 1, 3, 2}, {-0.875f, -0.125f, -2, 1.5f, 1.125f, 1.625f}))
      .input(f32({1, 1, 3, 2}, {1.125f, 0, 1.375f, 0.125f, -0.375f, -0.5f}))
      .input(bools({3, 3}, {1, 0, 1, 0, 0, 0, 1, 1, 1}))
      .attribute("scale", 0.5f)
      .attribute("qk_matmul_output_mode", int64_t{3})
      .output(F::kFloat32, {1, 1, 3, 2})
      .output(F::kFloat32, {1, 1, 3, 2})
      .output(F::kFloat32, {1, 1, 3, 2})
      .output(F::kFloat32, {1, 1, 3, 3});
  GE_RUN_KERNEL(out, test);
  expect_tensor<float>(out[0], {1, 1, 3, 2}, {-0.21937707f, -0.44812569f, 0, 0, -0.13841793f, -0.41737422f});
  expect_tensor<float>(out[3], {1, 1, 3, 3},
                       {0.10374862f, 0, 0.89625138f, 0, 0, 0, 0.052298035f, 0.090362877f, 0.85733914f});
}

void add_softcap_case(KernelTest& test, int64_t mode) {
  test.input(f32({1, 2, 2, 2}, {-0.625f, 1.375f, -1.25f, -1.75f, -1.625f, -1.625f, -0.5f, 0.75f}))
      .input(f32({1, 2, 3, 2}, {0.25f, -0.75f, 0, 1.125f, 1.25f, -1.75f, -0.375f, -0.75f, -0.875f, -0.625f, -1.75f, 2}))
      .input(f32({1, 2, 3, 3}, {1, -0.5f, 0.75f, -1.125f, 1.5f, -0.75f, 0, 1.25f, 1.125f, 0.875f, 2, -1.5f, -0.375f,
                                -0.75f, -0.75f, -2, 0.75f, 0.5f}))
      .input(f32({1, 2, 1, 3}, {0, -1, 0.5f, kNegInf, 0, 2}))  // additive, per head
      .no_input()
      .no_input()
      .attribute("softcap", 1.5f)
      .attribute("qk_matmul_output_mode", mode)
      .output(F::kFloat32, {1, 2, 2, 3})
      .output(F::kFloat32, {1, 2, 3, 2})
      .output(F::kFloat32, {1, 2, 3, 3})
      .output(F::kFloat32, {1, 2, 2, 3});
}

const std::vector<float> kSoftcapY{-0.32088181f, 0.93084604f, 0.068399101f, 0.29103249f, 0.70636898f, 0.96999329f,
                                   -1.3826888f,  0.18017414f, 0.025145113f, -1.9383571f, 0.6930989f,  0.45258239f};

TEST(NnAttentionKernel, FloatMaskAndSoftcapQkAfterSoftcap) {
  KernelTest test("Attention", 23);
  add_softcap_case(test, 1);
  GE_RUN_KERNEL(out, test);
  expect_tensor<float>(out[0], {1, 2, 2, 3}, kSoftcapY);
  expect_tensor<float>(out[3], {1, 2, 2, 3},
                       {-0.76173574f, 0.9338671f, -1.358426f, 0.65900022f, -1.0945446f, 0.91328907f, 1.0457656f,
                        1.226158f, -0.28380114f, -0.26243705f, -0.022095483f, 1.2111373f});
}

TEST(NnAttentionKernel, FloatMaskAndSoftcapQkAfterMask) {
  KernelTest test("Attention", 23);
  add_softcap_case(test, 2);
  GE_RUN_KERNEL(out, test);
  expect_tensor<float>(out[0], {1, 2, 2, 3}, kSoftcapY);
  expect_with_infinities(out[3], {1, 2, 2, 3},
                         {-0.76173574f, -0.066132903f, -0.85842597f, 0.65900022f, -2.0945446f, 1.4132891f, kNegInf,
                          1.226158f, 1.7161989f, kNegInf, -0.022095483f, 3.2111373f});
}

TEST(NnAttentionKernel, Float64ThreeDimensionalCausal) {
  KernelTest test("Attention", 23);
  test.input(f64({2, 3, 2}, {-1, -0.5, -1.375, -2, 1.5, 1.375, -1.125, -0.625, 0.625, 1.625, 0.125, 1.875}))
      .input(f64({2, 3, 2}, {-1.375, -1.875, -1.5, 1.875, -1.5, 2, 0, 1.75, 0.25, 2, -1.875, 1.875}))
      .input(f64({2, 3, 2}, {-0.125, -1.25, 0.75, 0.75, 1.875, -1.5, 0.5, -1.125, -1.875, 0.125, -0.75, -1.625}))
      .attribute("q_num_heads", int64_t{1})
      .attribute("kv_num_heads", int64_t{1})
      .attribute("is_causal", int64_t{1})
      .attribute("scale", 1.0f)
      .output(F::kFloat64, {2, 3, 2});
  GE_RUN_KERNEL(out, test);
  expect_tensor<double>(out[0], {2, 3, 2},
                        {-0.125, -1.25, -0.12442567377161967, -1.2486872543351306, 1.3560146211663975,
                         -0.47390875686513917, 0.5, -1.125, -1.0129481368909099, -0.32871150689952106,
                         -0.91575983328581068, -0.69720585718359107},
                        1e-12);
}

// A 4-D Q [1, 4, 2, 2], K/V [1, kv_heads, 3, 2] attention for the error tests.
void add_small_inputs(KernelTest& test, int64_t kv_heads) {
  test.input(f32_iota({1, 4, 2, 2})).input(f32_iota({1, kv_heads, 3, 2})).input(f32_iota({1, kv_heads, 3, 2}));
}

TEST(NnAttentionKernel, RejectsBadHeadsCacheMaskAndMode) {
  {
    KernelTest test("Attention", 23);
    add_small_inputs(test, 3);
    test.output(F::kFloat32, {1, 4, 2, 2});
    expect_invalid(test, "q_heads 4 is not a multiple of kv_heads 3");
  }
  {
    KernelTest test("Attention", 23);
    add_small_inputs(test, 2);
    test.no_input().input(f32_iota({1, 2, 1, 2})).output(F::kFloat32, {1, 4, 2, 2});
    expect_invalid(test, "past_key and past_value must be given together");
  }
  {
    KernelTest test("Attention", 23);
    add_small_inputs(test, 2);
    test.input(bools({2, 4}, {1, 1, 1, 1, 1, 1, 1, 1})).output(F::kFloat32, {1, 4, 2, 2});
    expect_invalid(test, "attn_mask [2,4] has more keys than total_sequence_length 3");
  }
  {
    KernelTest test("Attention", 23);
    add_small_inputs(test, 2);
    test.input(bools({3, 3}, {1, 1, 1, 1, 1, 1, 1, 1, 1})).output(F::kFloat32, {1, 4, 2, 2});
    expect_invalid(test, "attn_mask [3,3] does not broadcast");
  }
  {
    KernelTest test("Attention", 23);
    add_small_inputs(test, 2);
    test.attribute("qk_matmul_output_mode", int64_t{4}).output(F::kFloat32, {1, 4, 2, 2});
    expect_invalid(test, "qk_matmul_output_mode");
  }
  {
    KernelTest test("Attention", 23);  // 3-D without head counts
    test.input(f32_iota({1, 2, 8})).input(f32_iota({1, 3, 4})).input(f32_iota({1, 3, 4}));
    test.output(F::kFloat32, {1, 2, 8});
    expect_invalid(test, "q_num_heads");
  }
  {
    KernelTest test("Attention", 23);  // wrong present_key shape
    add_small_inputs(test, 2);
    test.no_input().no_input().no_input().output(F::kFloat32, {1, 4, 2, 2}).output(F::kFloat32, {1, 2, 4, 2});
    EXPECT_FALSE(test.prepare().is_ok());
  }
}

// V (and past_value, present_value) may have their own dtype (T2); Y keeps Q's (T1).
TEST(NnAttentionKernel, ValueOfAnotherDtype) {
  const std::vector<float> q = {-0.5f, -1, -0.875f, -0.625f, 0.25f, 1.5f, -2, 0.75f};
  const std::vector<float> k = {-0.125f, -1, 0.75f, 0.25f, -0.625f, -1.125f, 1.875f, -0.625f, 0.625f, 1.875f, 1.25f,
                                0.5f};
  const std::vector<float> v = {1, -1.625f, -1, -2, 0.625f, 0.375f};
  const std::vector<float> past = {0.5f, -0.25f, 1.5f, 2, -0.75f, 0.125f, 0.25f, 1};
  auto run = [&](bool float64_value) {
    KernelTest test("Attention", 23);
    test.input(f32({1, 1, 2, 4}, q)).input(f32({1, 1, 3, 4}, k));
    if (float64_value) {
      test.input(f64({1, 1, 3, 2}, std::vector<double>(v.begin(), v.end())));
    } else {
      test.input(f32({1, 1, 3, 2}, v));
    }
    test.no_input().input(f32({1, 1, 1, 4}, {past.begin(), past.begin() + 4}));
    if (float64_value) {
      test.input(f64({1, 1, 1, 2}, {past[4], past[5]}));
    } else {
      test.input(f32({1, 1, 1, 2}, {past[4], past[5]}));
    }
    test.output(F::kFloat32, {1, 1, 2, 2}).output(F::kFloat32, {1, 1, 4, 4});
    test.output(float64_value ? F::kFloat64 : F::kFloat32, {1, 1, 4, 2});
    return test.run();
  };
  auto same = run(false);
  auto mixed = run(true);
  ASSERT_TRUE(same.is_ok()) << same.status().to_string();
  ASSERT_TRUE(mixed.is_ok()) << mixed.status().to_string();
  ASSERT_EQ((*mixed)[0].dtype(), F::kFloat32);
  ASSERT_EQ((*mixed)[2].dtype(), F::kFloat64);
  for (int64_t i = 0; i < 4; ++i) {
    EXPECT_NEAR((*mixed)[0].data<float>()[i], (*same)[0].data<float>()[i], 1e-6) << i;
  }
  for (int64_t i = 0; i < 8; ++i) {
    EXPECT_EQ((*mixed)[2].data<double>()[i], static_cast<double>((*same)[2].data<float>()[i])) << i;
  }
}

TEST(NnAttentionKernel, KeyOfAnotherDtypeThanQueryIsInvalid) {
  KernelTest test("Attention", 23);
  test.input(f32_iota({1, 1, 2, 2})).input(f64({1, 1, 2, 2}, {0, 1, 2, 3})).input(f32_iota({1, 1, 2, 2}));
  test.output(F::kFloat32, {1, 1, 2, 2});
  Result<PreparedKernel> kernel = test.prepare();
  ASSERT_FALSE(kernel.is_ok());
  EXPECT_NE(kernel.status().message().find("float64"), std::string::npos) << kernel.status().to_string();
}

}  // namespace
}  // namespace ge::reference_kernels::testing
