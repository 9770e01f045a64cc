// bfloat16 for the ops whose T gained tensor(bfloat16) in ONNX opset 22. Each case runs
// the kernel in bfloat16 and in float32 on the same inputs rounded to bfloat16, and
// expects the bfloat16 result within one bfloat16 rounding of the float32 one (the
// kernels compute in float32 or double and round once on store). The random ops are
// checked for dtype, shape and value range. The test rounds with its own
// round-to-nearest-even, apart from the kernels' conversion.

#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <ostream>
#include <string>
#include <utility>
#include <vector>

#include "testing/kernel_test_util.h"

namespace ge::reference_kernels::testing {
namespace {

using F = DataType;

uint16_t bfloat16_bits(float value) {
  if (std::isnan(value)) return 0x7fc0;
  const uint32_t bits = std::bit_cast<uint32_t>(value);
  return static_cast<uint16_t>((bits + 0x7fffu + ((bits >> 16) & 1u)) >> 16);
}

float bfloat16_value(uint16_t bits) { return std::bit_cast<float>(static_cast<uint32_t>(bits) << 16); }

// A float32 tensor as bfloat16 (to_bfloat16) or rounded through bfloat16 and back to float32.
Tensor to_bfloat16(const Tensor& source) {
  Tensor result = Tensor::zeros(F::kBFloat16, source.shape());
  for (int64_t i = 0; i < source.element_count(); ++i) {
    result.data<uint16_t>()[i] = bfloat16_bits(source.data<float>()[i]);
  }
  return result;
}

Tensor rounded_to_bfloat16(const Tensor& source) {
  Tensor result = Tensor::zeros(F::kFloat32, source.shape());
  for (int64_t i = 0; i < source.element_count(); ++i) {
    result.data<float>()[i] = bfloat16_value(bfloat16_bits(source.data<float>()[i]));
  }
  return result;
}

struct Output {
  DataType dtype;  // kFloat32 stands for T (bfloat16 in the bfloat16 run)
  std::vector<int64_t> dims;
};

struct Case {
  std::string op;
  std::vector<Tensor> inputs;  // float32 inputs are T; others pass unchanged
  std::vector<std::pair<std::string, Attribute>> attributes;
  std::vector<Output> outputs;
};

void PrintTo(const Case& c, std::ostream* os) { *os << c.op; }

std::string case_name(const ::testing::TestParamInfo<Case>& info) {
  return info.param.op + "_" + std::to_string(info.index);
}

Result<std::vector<Tensor>> run_case(const Case& c, bool bfloat16) {
  KernelTest test(c.op, 22);
  for (const Tensor& input : c.inputs) {
    if (input.dtype() != F::kFloat32) {
      test.input(input);
    } else {
      test.input(bfloat16 ? to_bfloat16(input) : rounded_to_bfloat16(input));
    }
  }
  for (const auto& [name, value] : c.attributes) test.attribute(name, value);
  for (const Output& output : c.outputs) {
    test.output(output.dtype == F::kFloat32 && bfloat16 ? F::kBFloat16 : output.dtype, output.dims);
  }
  return test.run();
}

class BFloat16Opset22 : public ::testing::TestWithParam<Case> {};

TEST_P(BFloat16Opset22, MatchesFloat32OnRoundedInputs) {
  const Case& c = GetParam();
  auto reference = run_case(c, false);
  ASSERT_TRUE(reference.is_ok()) << reference.status().to_string();
  auto actual = run_case(c, true);
  ASSERT_TRUE(actual.is_ok()) << actual.status().to_string();
  for (size_t o = 0; o < c.outputs.size(); ++o) {
    const Tensor& want = reference.value()[o];
    const Tensor& got = actual.value()[o];
    ASSERT_EQ(got.shape(), want.shape()) << "output " << o;
    if (c.outputs[o].dtype != F::kFloat32) {
      ASSERT_EQ(got.dtype(), want.dtype()) << "output " << o;
      EXPECT_EQ(std::memcmp(got.raw_data(), want.raw_data(), got.byte_size()), 0) << "output " << o;
      continue;
    }
    ASSERT_EQ(got.dtype(), F::kBFloat16) << "output " << o;
    for (int64_t i = 0; i < want.element_count(); ++i) {
      const float expected = want.data<float>()[i];
      const float value = bfloat16_value(got.data<uint16_t>()[i]);
      if (std::isnan(expected)) {
        EXPECT_TRUE(std::isnan(value)) << "output " << o << " element " << i;
        continue;
      }
      // bfloat16 keeps 8 significant bits: one rounding is within 2^-8 relative.
      EXPECT_NEAR(value, expected, (1.0 + std::fabs(expected)) / 256.0) << "output " << o << " element " << i;
    }
  }
}

Case unary(std::string op, float start = -2.5f, float step = 1.1f) {
  return {std::move(op), {f32_iota({2, 3}, start, step)}, {}, {{F::kFloat32, {2, 3}}}};
}

std::vector<Case> cases() {
  using A = std::vector<std::pair<std::string, Attribute>>;
  using Ints = std::vector<int64_t>;
  std::vector<Case> all;
  // Elementwise math and activations.
  for (const char* op : {"Acos", "Asin", "Atanh"}) all.push_back(unary(op, -0.9f, 0.35f));
  all.push_back(unary("Acosh", 1.0f, 0.7f));
  for (const char* op : {"Asinh", "Atan", "Cos", "Cosh", "Sin", "Sinh", "Tan", "Round", "Elu", "HardSigmoid",
                         "HardSwish", "Mish", "Selu", "Softplus", "Softsign", "ThresholdedRelu"}) {
    all.push_back(unary(op));
  }
  all.push_back({"Round", {f32({6}, {-2.5f, -1.5f, -0.5f, 0.5f, 1.5f, 2.5f})}, {}, {{F::kFloat32, {6}}}});
  // Pools.
  const Tensor image = f32_iota({1, 2, 4, 4}, -3.1f, 0.37f);
  all.push_back({"AveragePool", {image}, A{{"kernel_shape", Ints{2, 2}}}, {{F::kFloat32, {1, 2, 3, 3}}}});
  all.push_back({"MaxPool",
                 {image},
                 A{{"kernel_shape", Ints{2, 2}}},
                 {{F::kFloat32, {1, 2, 3, 3}}, {F::kInt64, {1, 2, 3, 3}}}});
  all.push_back({"LpPool", {image}, A{{"kernel_shape", Ints{2, 2}}}, {{F::kFloat32, {1, 2, 3, 3}}}});
  for (const char* op : {"GlobalAveragePool", "GlobalMaxPool", "GlobalLpPool"}) {
    all.push_back({op, {image}, {}, {{F::kFloat32, {1, 2, 1, 1}}}});
  }
  all.push_back({"MaxUnpool",
                 {f32_iota({1, 1, 2, 2}, -1.3f, 0.9f), i64({1, 1, 2, 2}, {0, 6, 9, 15})},
                 A{{"kernel_shape", Ints{2, 2}}, {"strides", Ints{2, 2}}},
                 {{F::kFloat32, {1, 1, 4, 4}}}});
  all.push_back({"MaxRoiPool",
                 {image, f32({1, 5}, {0, 0, 0, 2, 3})},
                 A{{"pooled_shape", Ints{2, 2}}},
                 {{F::kFloat32, {1, 2, 2, 2}}}});
  all.push_back({"RoiAlign",
                 {image, f32({2, 4}, {0.3f, 0.2f, 2.7f, 3.1f, 1, 0.5f, 3, 2.5f}), i64({2}, {0, 0})},
                 A{{"output_height", int64_t{2}}, {"output_width", int64_t{2}}, {"sampling_ratio", int64_t{2}}},
                 {{F::kFloat32, {2, 2, 2, 2}}}});
  // Convolutions.
  all.push_back({"Conv",
                 {image, f32_iota({3, 2, 2, 2}, -0.8f, 0.13f), f32({3}, {0.25f, -0.5f, 0.1f})},
                 A{{"pads", Ints{1, 1, 0, 0}}},
                 {{F::kFloat32, {1, 3, 4, 4}}}});
  all.push_back({"ConvTranspose",
                 {image, f32_iota({2, 3, 2, 2}, -0.8f, 0.11f)},
                 A{{"strides", Ints{2, 2}}},
                 {{F::kFloat32, {1, 3, 8, 8}}}});
  all.push_back({"DeformConv",
                 {f32_iota({1, 1, 3, 3}, -1.1f, 0.3f), f32_iota({1, 1, 2, 2}, 0.4f, -0.3f),
                  f32_iota({1, 8, 2, 2}, -0.6f, 0.04f)},
                 {},
                 {{F::kFloat32, {1, 1, 2, 2}}}});
  all.push_back({"GridSample",
                 {f32_iota({1, 1, 3, 3}, -1.1f, 0.3f), f32_iota({1, 2, 2, 2}, -0.9f, 0.27f)},
                 {},
                 {{F::kFloat32, {1, 1, 2, 2}}}});
  // Normalization, Dropout, Det, the loss.
  all.push_back({"InstanceNormalization",
                 {f32_iota({2, 2, 3}, -1.7f, 0.45f), f32({2}, {1.5f, -0.5f}), f32({2}, {0.25f, 1})},
                 {},
                 {{F::kFloat32, {2, 2, 3}}}});
  all.push_back({"LpNormalization", {f32_iota({2, 3}, -1.7f, 0.45f)}, {}, {{F::kFloat32, {2, 3}}}});
  all.push_back({"Dropout", {f32_iota({2, 3}, -1.7f, 0.45f)}, {}, {{F::kFloat32, {2, 3}}, {F::kBool, {2, 3}}}});
  all.push_back({"Det",
                 {f32({2, 3, 3}, {2, -1, 0.5f, 1, 3, -2, 0.25f, 1, 1.5f, 1, 2, 3, 0, 1, 4, 5, 6, 0})},
                 {},
                 {{F::kFloat32, {2}}}});
  all.push_back({"NegativeLogLikelihoodLoss",
                 {f32_iota({3, 4}, -2.1f, 0.3f), i64({3}, {1, 3, 0}), f32({4}, {0.5f, 1, 2, 0.75f})},
                 {},
                 {{F::kFloat32, {}}}});
  all.push_back({"EyeLike", {f32_iota({3, 4}, 0, 1)}, A{{"k", int64_t{1}}}, {{F::kFloat32, {3, 4}}}});
  all.push_back({"Bernoulli", {f32({4}, {0, 1, 1, 0})}, {}, {{F::kFloat32, {4}}}});
  // Recurrent: X [seq 2, batch 1, input 2], hidden 2, B and an initial state.
  const Tensor x = f32({2, 1, 2}, {-0.8f, 2, 0.4f, -1.2f});
  const Tensor h0 = f32({1, 1, 2}, {0.3f, -0.6f});
  const A hidden = {{"hidden_size", int64_t{2}}};
  const std::vector<Output> rnn_outputs = {{F::kFloat32, {2, 1, 1, 2}}, {F::kFloat32, {1, 1, 2}}};
  all.push_back({"RNN",
                 {x, f32_iota({1, 2, 2}, -0.3f, 0.35f), f32_iota({1, 2, 2}, 0.45f, -0.2f),
                  f32_iota({1, 4}, -0.2f, 0.15f), i32({1}, {2}), h0},
                 hidden,
                 rnn_outputs});
  all.push_back({"GRU",
                 {x, f32_iota({1, 6, 2}, -0.3f, 0.11f), f32_iota({1, 6, 2}, 0.45f, -0.07f),
                  f32_iota({1, 12}, -0.2f, 0.05f), i32({1}, {2}), h0},
                 hidden,
                 rnn_outputs});
  std::vector<Output> lstm_outputs = rnn_outputs;
  lstm_outputs.push_back({F::kFloat32, {1, 1, 2}});
  all.push_back({"LSTM",
                 {x, f32_iota({1, 8, 2}, -0.3f, 0.09f), f32_iota({1, 8, 2}, 0.45f, -0.05f),
                  f32_iota({1, 16}, -0.2f, 0.03f), i32({1}, {2}), h0, f32({1, 1, 2}, {-0.2f, 0.7f})},
                 hidden,
                 lstm_outputs});
  return all;
}

INSTANTIATE_TEST_SUITE_P(Ops, BFloat16Opset22, ::testing::ValuesIn(cases()), case_name);

// ---- random generators: dtype, shape and range ----

std::vector<float> bfloat16_values(const Tensor& tensor) {
  std::vector<float> values;
  for (int64_t i = 0; i < tensor.element_count(); ++i) values.push_back(bfloat16_value(tensor.data<uint16_t>()[i]));
  return values;
}

// RandomUniform and RandomNormal (no inputs) cannot be prepared through the kernel
// library yet: it selects every kernel by input 0. Their *Like forms share the generator.
TEST(BFloat16Opset22Random, UniformLikeStaysInRange) {
  KernelTest test("RandomUniformLike", 22);
  test.input(Tensor::zeros(F::kBFloat16, {4, 50}))
      .attribute("low", -2.0f)
      .attribute("high", 5.0f)
      .attribute("seed", 2.0f)
      .output(F::kBFloat16, {4, 50});
  GE_RUN_KERNEL(out, test);
  ASSERT_EQ(out[0].dtype(), F::kBFloat16);
  ASSERT_EQ(out[0].shape(), (std::vector<int64_t>{4, 50}));
  const std::vector<float> values = bfloat16_values(out[0]);
  for (float v : values) {
    EXPECT_GE(v, -2.0f);
    EXPECT_LE(v, 5.0f);  // a value just under high may round up to it
  }
  EXPECT_NE(values.front(), values.back());
}

TEST(BFloat16Opset22Random, NormalLikeHasRoughlyItsMean) {
  KernelTest test("RandomNormalLike", 22);
  test.input(Tensor::zeros(F::kFloat32, {2000}))
      .attribute("dtype", int64_t{16})
      .attribute("mean", 10.0f)
      .attribute("scale", 2.0f)
      .attribute("seed", 1.0f)
      .output(F::kBFloat16, {2000});
  GE_RUN_KERNEL(out, test);
  ASSERT_EQ(out[0].dtype(), F::kBFloat16);
  ASSERT_EQ(out[0].shape(), (std::vector<int64_t>{2000}));
  double sum = 0;
  for (float v : bfloat16_values(out[0])) {
    ASSERT_TRUE(std::isfinite(v));
    sum += v;
  }
  EXPECT_NEAR(sum / 2000, 10.0, 0.3);  // 6 standard errors and the rounding
}

TEST(BFloat16Opset22Random, BernoulliGivesZerosAndOnes) {
  KernelTest test("Bernoulli", 22);
  test.input(to_bfloat16(f32({64}, std::vector<float>(64, 0.5f)))).output(F::kBFloat16, {64});
  GE_RUN_KERNEL(out, test);
  ASSERT_EQ(out[0].dtype(), F::kBFloat16);
  for (float v : bfloat16_values(out[0])) EXPECT_TRUE(v == 0.0f || v == 1.0f) << v;
}

TEST(BFloat16Opset22Random, MultinomialReadsBFloat16Logits) {
  // Class 1 has all the probability mass that float32 can tell apart.
  KernelTest test("Multinomial", 22);
  test.input(to_bfloat16(f32({2, 3}, {-100, 50, -100, -100, -100, 50})))
      .attribute("sample_size", int64_t{5})
      .output(F::kInt32, {2, 5});
  GE_RUN_KERNEL(out, test);
  expect_tensor<int32_t>(out[0], {2, 5}, {1, 1, 1, 1, 1, 2, 2, 2, 2, 2});
}

}  // namespace
}  // namespace ge::reference_kernels::testing
