// RNN/GRU/LSTM kernel tests. Inputs are v(shape, scale, offset) =
// ((arange(n) * 7 + 3) % 11 - 5 + offset) * scale; expected values come from a plain
// numpy loop over the ONNX equations (/usr/bin/python3, written apart from the kernel).

#include <gtest/gtest.h>

#include "testing/kernel_test_util.h"

namespace ge::reference_kernels::testing {
namespace {

using F = DataType;

TEST(RecurrentKernel, RnnBidirectionalWithLengthsAndInitialState) {
  KernelTest test("RNN", 14);
  test.input(f32({3, 2, 2}, {-0.6f, 1.5f, 0.3f, -0.9f, 1.2f, 0, -1.2f, 0.9f, -0.3f, -1.5f, 0.6f, -0.6f}))
      .input(f32({2, 2, 2}, {-0.3f, 1.1f, 0.3f, -0.5f, 0.9f, 0.1f, -0.7f, 0.7f}))
      .input(f32({2, 2, 2}, {-0.15f, 0.9f, 0.3f, -0.3f, 0.75f, 0.15f, -0.45f, 0.6f}))
      .input(f32({2, 4}, {-0.2f, 0.5f, 0.1f, -0.3f, 0.4f, 0, -0.4f, 0.3f}))
      .input(i32({2}, {3, 2}))
      .input(f32({2, 2, 2}, {-0.5f, 1.25f, 0.25f, -0.75f, 1, 0, -1, 0.75f}))
      .attribute("hidden_size", int64_t{2})
      .attribute("direction", "bidirectional")
      .output(F::kFloat32, {3, 2, 2, 2})
      .output(F::kFloat32, {2, 2, 2});
  GE_RUN_KERNEL(out, test);
  // Row 1 has 2 steps: its Y entries at t = 2 stay zero in both directions.
  expect_tensor<float>(out[0], {3, 2, 2, 2},
                       {0.99431373f, -0.84967978f, -0.95559076f, 0.77788807f, 0.11390017f, 0.7191777f, -0.350234f,
                        0.43887741f, -0.87956865f, 0.80518995f, 0.97006743f, -0.8110342f, 0.83525992f, -0.81365565f,
                        -0.92570473f, 0.99045404f, -0.66592979f, 0.34042435f, 0, 0, 0.31852078f, -0.75736232f, 0, 0});
  expect_tensor<float>(out[1], {2, 2, 2},
                       {-0.66592979f, 0.34042435f, 0.97006743f, -0.8110342f, 0.11390017f, 0.7191777f, -0.350234f,
                        0.43887741f});
}

void add_gru_inputs(KernelTest& test, int64_t linear_before_reset) {
  test.input(f32({2, 1, 2}, {-0.8f, 2, 0.4f, -1.2f}))
      .input(f32({1, 6, 2}, {-0.3f, 1.1f, 0.3f, -0.5f, 0.9f, 0.1f, -0.7f, 0.7f, -0.1f, -0.9f, 0.5f, -0.3f}))
      .input(f32({1, 6, 2}, {-0.15f, 0.9f, 0.3f, -0.3f, 0.75f, 0.15f, -0.45f, 0.6f, 0, -0.6f, 0.45f, -0.15f}))
      .input(f32({1, 12}, {-0.2f, 0.5f, 0.1f, -0.3f, 0.4f, 0, -0.4f, 0.3f, -0.1f, -0.5f, 0.2f, -0.2f}))
      .attribute("hidden_size", int64_t{2})
      .attribute("linear_before_reset", linear_before_reset)
      .output(F::kFloat32, {2, 1, 1, 2})
      .output(F::kFloat32, {1, 1, 2});
}

TEST(RecurrentKernel, GruResetsBeforeTheRecurrentProduct) {
  KernelTest test("GRU", 14);
  add_gru_inputs(test, 0);
  GE_RUN_KERNEL(out, test);
  expect_tensor<float>(out[0], {2, 1, 1, 2}, {-0.11067836f, -0.50707794f, 0.85112754f, -0.3711002f});
  expect_tensor<float>(out[1], {1, 1, 2}, {0.85112754f, -0.3711002f});
}

TEST(RecurrentKernel, GruLinearBeforeReset) {
  KernelTest test("GRU", 14);
  add_gru_inputs(test, 1);
  GE_RUN_KERNEL(out, test);
  expect_tensor<float>(out[0], {2, 1, 1, 2}, {-0.11608204f, -0.49786217f, 0.85335274f, -0.3359297f});
}

TEST(RecurrentKernel, LstmReverseBatchMajorWithPeepholes) {
  // layout = 1: X is [batch, seq, input], Y [batch, seq, dirs, hidden], states [batch, dirs, hidden].
  KernelTest test("LSTM", 14);
  test.input(f32({2, 3, 2}, {-0.6f, 1.5f, 1.2f, 0, -0.3f, -1.5f, 0.3f, -0.9f, -1.2f, 0.9f, 0.6f, -0.6f}))
      .input(f32({1, 8, 2}, {-0.3f, 1.1f, 0.3f, -0.5f, 0.9f, 0.1f, -0.7f, 0.7f, -0.1f, -0.9f, 0.5f, -0.3f, 1.1f, 0.3f,
                             -0.5f, 0.9f}))
      .input(f32({1, 8, 2}, {-0.15f, 0.9f, 0.3f, -0.3f, 0.75f, 0.15f, -0.45f, 0.6f, 0, -0.6f, 0.45f, -0.15f, 0.9f,
                             0.3f, -0.3f, 0.75f}))
      .input(f32({1, 16}, {-0.2f, 0.5f, 0.1f, -0.3f, 0.4f, 0, -0.4f, 0.3f, -0.1f, -0.5f, 0.2f, -0.2f, 0.5f, 0.1f, -0.3f,
                           0.4f}))
      .no_input()
      .input(f32({2, 1, 2}, {-0.4f, 1, 0.2f, -0.6f}))
      .input(f32({2, 1, 2}, {-0.7f, 1.75f, 0.35f, -1.05f}))
      .input(f32({1, 6}, {-0.6f, 1.5f, 0.3f, -0.9f, 1.2f, 0}))
      .attribute("hidden_size", int64_t{2})
      .attribute("direction", "reverse")
      .attribute("layout", int64_t{1})
      .output(F::kFloat32, {2, 3, 1, 2})
      .output(F::kFloat32, {2, 1, 2})
      .output(F::kFloat32, {2, 1, 2});
  GE_RUN_KERNEL(out, test);
  expect_tensor<float>(out[0], {2, 3, 1, 2},
                       {-0.24518643f, 0.41143f, -0.11528346f, 0.086504692f, -0.25502368f, 0.13323649f, -0.24733845f,
                        -0.07146766f, -0.13325442f, -0.13609883f, 0.19951652f, -0.19182408f});
  expect_tensor<float>(out[1], {2, 1, 2}, {-0.24518643f, 0.41143f, -0.24733845f, -0.07146766f});
  expect_tensor<float>(out[2], {2, 1, 2}, {-0.69438513f, 0.96505349f, -0.48061424f, -0.29375995f});
}

TEST(RecurrentKernel, LstmClipAndCoupledInputForgetGate) {
  KernelTest test("LSTM", 14);
  test.input(f32({3, 2, 2}, {-0.6f, 1.5f, 0.3f, -0.9f, 1.2f, 0, -1.2f, 0.9f, -0.3f, -1.5f, 0.6f, -0.6f}))
      .input(f32({1, 8, 2}, {-0.3f, 1.1f, 0.3f, -0.5f, 0.9f, 0.1f, -0.7f, 0.7f, -0.1f, -0.9f, 0.5f, -0.3f, 1.1f, 0.3f,
                             -0.5f, 0.9f}))
      .input(f32({1, 8, 2}, {-0.15f, 0.9f, 0.3f, -0.3f, 0.75f, 0.15f, -0.45f, 0.6f, 0, -0.6f, 0.45f, -0.15f, 0.9f,
                             0.3f, -0.3f, 0.75f}))
      .input(f32({1, 16}, {-0.2f, 0.5f, 0.1f, -0.3f, 0.4f, 0, -0.4f, 0.3f, -0.1f, -0.5f, 0.2f, -0.2f, 0.5f, 0.1f, -0.3f,
                           0.4f}))
      .attribute("hidden_size", int64_t{2})
      .attribute("clip", 0.5f)
      .attribute("input_forget", int64_t{1})
      .output(F::kFloat32, {3, 1, 2, 2})
      .output(F::kFloat32, {1, 2, 2})
      .output(F::kFloat32, {1, 2, 2});
  GE_RUN_KERNEL(out, test);
  expect_tensor<float>(out[0], {3, 1, 2, 2},
                       {-0.13368975f, 0.10751061f, -0.10669685f, -0.059266241f, -0.0028520069f, 0.074117674f,
                        -0.12817193f, 0.047178773f, -0.082876696f, -0.068773006f, -0.20234622f, -0.0037792827f});
  expect_tensor<float>(out[2], {1, 2, 2}, {-0.17732005f, -0.18421646f, -0.33731184f, -0.010010601f});
}

TEST(RecurrentKernel, Float64RnnWithReluActivation) {
  // h1 = relu(1*2 + 0) = 2; h2 = relu(1*(-1) + 0.5*2) = 0; h3 = relu(3 + 0) = 3.
  KernelTest test("RNN", 14);
  test.input(f64({3, 1, 1}, {2, -1, 3}))
      .input(f64({1, 1, 1}, {1}))
      .input(f64({1, 1, 1}, {0.5}))
      .attribute("activations", std::vector<std::string>{"Relu"})
      .output(F::kFloat64, {3, 1, 1, 1})
      .output(F::kFloat64, {1, 1, 1});
  GE_RUN_KERNEL(out, test);
  expect_tensor<double>(out[0], {3, 1, 1, 1}, {2, 0, 3});
  expect_tensor<double>(out[1], {1, 1, 1}, {3});
}

TEST(RecurrentKernel, SequenceLengthBeyondTheSequenceFailsAtLaunch) {
  KernelTest test("RNN", 14);
  test.input(f32({2, 1, 1}, {1, 2}))
      .input(f32({1, 1, 1}, {1}))
      .input(f32({1, 1, 1}, {1}))
      .no_input()
      .input(i32({1}, {3}))
      .output(F::kFloat32, {2, 1, 1, 1})
      .output(F::kFloat32, {1, 1, 1});
  int code = 0;
  EXPECT_FALSE(test.run(&code).is_ok());
  EXPECT_EQ(code, 301);
}

TEST(RecurrentKernel, WrongWeightShapeIsInvalid) {
  KernelTest test("GRU", 14);
  test.input(f32({1, 1, 2}, {1, 2}))
      .input(f32({1, 4, 2}, {1, 2, 3, 4, 5, 6, 7, 8}))  // GRU needs 3 * hidden rows
      .input(f32({1, 6, 2}, {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12}))
      .attribute("hidden_size", int64_t{2})
      .output(F::kFloat32, {1, 1, 1, 2});
  Result<PreparedKernel> kernel = test.prepare();
  ASSERT_FALSE(kernel.is_ok());
  EXPECT_EQ(kernel.status().code(), StatusCode::kInvalidArgument);
  EXPECT_NE(kernel.status().message().find("(W)"), std::string::npos) << kernel.status().message();
}

TEST(RecurrentKernel, UnknownActivationIsUnsupported) {
  KernelTest test("RNN", 14);
  test.input(f32({1, 1, 1}, {1}))
      .input(f32({1, 1, 1}, {1}))
      .input(f32({1, 1, 1}, {1}))
      .attribute("activations", std::vector<std::string>{"Swish"})
      .output(F::kFloat32, {1, 1, 1, 1});
  Result<PreparedKernel> kernel = test.prepare();
  ASSERT_FALSE(kernel.is_ok());
  EXPECT_EQ(kernel.status().code(), StatusCode::kUnsupported);
  EXPECT_NE(kernel.status().message().find("Swish"), std::string::npos) << kernel.status().message();
}

}  // namespace
}  // namespace ge::reference_kernels::testing
