// ge::QLinearAdd kernel tests: every result bit-equal to DequantizeLinear(A),
// DequantizeLinear(B) -> Add -> [Relu] -> QuantizeLinear through the library's own
// kernels (what the unfused graph runs), over same-shape (the AVX-512 loop and its tail)
// and broadcast shapes, uint8 and int8, saturating sums and ties at .5; a hand-checked
// case; bad inputs refused naming the input.

#include <gtest/gtest.h>

#include <cstring>
#include <random>
#include <string>

#include "testing/kernel_test_util.h"

namespace ge::reference_kernels::testing {
namespace {

using F = DataType;

struct Case {
  DataType dtype = F::kUInt8;
  std::vector<int64_t> a_dims, b_dims;
  float a_scale = 0.5f, b_scale = 0.25f, c_scale = 1.0f;
  int a_zero = 0, b_zero = 0, c_zero = 0;
  bool relu = false;
};

std::vector<int64_t> broadcast(std::vector<int64_t> a, std::vector<int64_t> b) {
  while (a.size() < b.size()) a.insert(a.begin(), 1);
  while (b.size() < a.size()) b.insert(b.begin(), 1);
  for (size_t i = 0; i < a.size(); ++i) a[i] = a[i] == 1 ? b[i] : a[i];
  return a;
}

Tensor random_8bit(DataType dtype, const std::vector<int64_t>& dims, std::mt19937& rng) {
  Tensor t = Tensor::zeros(dtype, dims);
  std::uniform_int_distribution<int> byte(0, 255);
  auto* bytes = static_cast<uint8_t*>(t.raw_data());
  for (int64_t i = 0; i < t.element_count(); ++i) bytes[i] = static_cast<uint8_t>(byte(rng));
  return t;
}

Tensor scalar_8bit(DataType dtype, int value) {
  return dtype == F::kInt8 ? Tensor::from_vector<int8_t>({}, {static_cast<int8_t>(value)})
                           : Tensor::from_vector<uint8_t>({}, {static_cast<uint8_t>(value)});
}

Tensor run_one(KernelTest& test) {
  Result<std::vector<Tensor>> out = test.run();
  EXPECT_TRUE(out.is_ok()) << out.status().to_string();
  return out.is_ok() ? out.value()[0] : Tensor();
}

// The unfused graph's result, node by node through the library's kernels.
Tensor unfused(const Case& c, const Tensor& a, const Tensor& b) {
  const std::vector<int64_t> c_dims = broadcast(c.a_dims, c.b_dims);
  KernelTest dq_a("DequantizeLinear", 13);
  dq_a.input(a).input(f32({}, {c.a_scale})).input(scalar_8bit(c.dtype, c.a_zero)).output(F::kFloat32, c.a_dims);
  KernelTest dq_b("DequantizeLinear", 13);
  dq_b.input(b).input(f32({}, {c.b_scale})).input(scalar_8bit(c.dtype, c.b_zero)).output(F::kFloat32, c.b_dims);
  KernelTest add("Add", 14);
  add.input(run_one(dq_a)).input(run_one(dq_b)).output(F::kFloat32, c_dims);
  Tensor sum = run_one(add);
  if (c.relu) {
    KernelTest relu("Relu", 14);
    relu.input(sum).output(F::kFloat32, c_dims);
    sum = run_one(relu);
  }
  KernelTest q("QuantizeLinear", 13);
  q.input(sum).input(f32({}, {c.c_scale})).input(scalar_8bit(c.dtype, c.c_zero)).output(c.dtype, c_dims);
  return run_one(q);
}

Tensor fused(const Case& c, const Tensor& a, const Tensor& b) {
  KernelTest test("QLinearAdd", 14);
  test.input(a)
      .input(f32({}, {c.a_scale}))
      .input(scalar_8bit(c.dtype, c.a_zero))
      .input(b)
      .input(f32({}, {c.b_scale}))
      .input(scalar_8bit(c.dtype, c.b_zero))
      .input(f32({}, {c.c_scale}))
      .input(scalar_8bit(c.dtype, c.c_zero))
      .output(c.dtype, broadcast(c.a_dims, c.b_dims));
  if (c.relu) test.attribute("relu", int64_t{1});
  test.node().set_domain("ge");
  return run_one(test);
}

void expect_bit_equal(const Case& c, uint32_t seed) {
  std::mt19937 rng(seed);
  const Tensor a = random_8bit(c.dtype, c.a_dims, rng);
  const Tensor b = random_8bit(c.dtype, c.b_dims, rng);
  const Tensor expected = unfused(c, a, b);
  const Tensor actual = fused(c, a, b);
  ASSERT_EQ(actual.shape(), expected.shape());
  ASSERT_EQ(actual.dtype(), expected.dtype());
  const auto* x = static_cast<const uint8_t*>(actual.raw_data());
  const auto* y = static_cast<const uint8_t*>(expected.raw_data());
  int64_t differing = 0;
  for (int64_t i = 0; i < actual.element_count(); ++i) {
    if (x[i] != y[i]) {
      if (differing++ < 5) {
        ADD_FAILURE() << "element " << i << ": fused " << int(x[i]) << ", unfused " << int(y[i]) << " (seed " << seed
                      << ", " << data_type_name(c.dtype) << ", relu " << c.relu << ")";
      }
    }
  }
  EXPECT_EQ(differing, 0);
}

TEST(QLinearAddKernel, HandChecked) {
  // A: (x - 1) * 0.5 = 0, 0.5, 1, 126; B: (x - 0) * 1 = 0, 1, 0.5?: uint8 only holds
  // integers, so B = 0, 1, 2, 200. Sum = 0, 1.5, 3, 326; / 1 -> 0, 2 (half to even), 3,
  // 326; + 10 -> 10, 12, 13, 255 (saturated).
  Case c;
  c.a_dims = c.b_dims = {4};
  c.a_scale = 0.5f;
  c.a_zero = 1;
  c.b_scale = 1.0f;
  c.c_zero = 10;
  const Tensor a = Tensor::from_vector<uint8_t>({4}, {1, 2, 3, 253});
  const Tensor b = Tensor::from_vector<uint8_t>({4}, {0, 1, 2, 200});
  expect_tensor<uint8_t>(fused(c, a, b), {4}, {10, 12, 13, 255});
  expect_tensor<uint8_t>(unfused(c, a, b), {4}, {10, 12, 13, 255});
}

TEST(QLinearAddKernel, SameShapeBitEqualToUnfused) {
  uint32_t seed = 1;
  for (DataType dtype : {F::kUInt8, F::kInt8}) {
    for (bool relu : {false, true}) {
      // 1000 and 37: the 16-wide loop, its tail; 5: the tail only.
      for (std::vector<int64_t> dims : {std::vector<int64_t>{2, 500}, {37}, {5}}) {
        Case c;
        c.dtype = dtype;
        c.a_dims = c.b_dims = dims;
        c.relu = relu;
        // Quarter steps over a C scale of 0.5: many quotients end in .5 (ties), and A
        // and B spanning 255 steps push the sum past C's range (saturation).
        c.a_scale = 0.5f;
        c.b_scale = 0.25f;
        c.c_scale = 0.5f;
        c.a_zero = dtype == F::kInt8 ? -3 : 128;
        c.b_zero = dtype == F::kInt8 ? 5 : 100;
        c.c_zero = dtype == F::kInt8 ? 7 : 120;
        expect_bit_equal(c, seed++);
        // Scales no power of two: the float rounding of each step matters.
        c.a_scale = 0.0173f;
        c.b_scale = 0.0291f;
        c.c_scale = 0.0127f;
        expect_bit_equal(c, seed++);
      }
    }
  }
}

// Every pair (a, b) of 8-bit values, same shape, at scales where the order of the float
// operations shows: sum / 0.1 and sum * (1 / 0.1) round to different integers for 1389 of
// the 65536 uint8 pairs (numpy, float32), and a multiply-add contracted into one FMA for
// 3996 (seen: GCC contracted the AVX-512 loop's intrinsics), so either kernel fails.
TEST(QLinearAddKernel, EveryPairBitEqualToUnfused) {
  for (DataType dtype : {F::kUInt8, F::kInt8}) {
    for (bool relu : {false, true}) {
      Case c;
      c.dtype = dtype;
      c.a_dims = c.b_dims = {256, 256};
      c.a_scale = 0.05f;
      c.b_scale = 0.05f;
      c.c_scale = 0.1f;
      c.a_zero = dtype == F::kInt8 ? 0 : 128;
      c.b_zero = dtype == F::kInt8 ? -28 : 100;
      c.c_zero = dtype == F::kInt8 ? 3 : 120;
      c.relu = relu;
      Tensor a = Tensor::zeros(dtype, c.a_dims), b = Tensor::zeros(dtype, c.b_dims);
      for (int i = 0; i < 256 * 256; ++i) {
        static_cast<uint8_t*>(a.raw_data())[i] = static_cast<uint8_t>(i / 256);
        static_cast<uint8_t*>(b.raw_data())[i] = static_cast<uint8_t>(i % 256);
      }
      const Tensor expected = unfused(c, a, b), actual = fused(c, a, b);
      ASSERT_EQ(actual.element_count(), expected.element_count());
      int64_t differing = 0;
      for (int64_t i = 0; i < actual.element_count(); ++i) {
        differing +=
            static_cast<const uint8_t*>(actual.raw_data())[i] != static_cast<const uint8_t*>(expected.raw_data())[i];
      }
      EXPECT_EQ(differing, 0) << data_type_name(dtype) << " relu " << relu;
    }
  }
}

TEST(QLinearAddKernel, BroadcastBitEqualToUnfused) {
  uint32_t seed = 100;
  for (DataType dtype : {F::kUInt8, F::kInt8}) {
    for (bool relu : {false, true}) {
      const std::vector<std::pair<std::vector<int64_t>, std::vector<int64_t>>> shapes = {
          {{2, 3, 20}, {3, 1}}, {{1, 20}, {3, 1}}, {{2, 3, 20}, {}}, {{4}, {2, 3, 4}}};
      for (const auto& [a_dims, b_dims] : shapes) {
        Case c;
        c.dtype = dtype;
        c.a_dims = a_dims;
        c.b_dims = b_dims;
        c.relu = relu;
        c.a_scale = 0.031f;
        c.b_scale = 0.5f;
        c.c_scale = 0.25f;
        c.a_zero = dtype == F::kInt8 ? 0 : 3;
        c.b_zero = dtype == F::kInt8 ? -100 : 250;
        c.c_zero = dtype == F::kInt8 ? -1 : 64;
        expect_bit_equal(c, seed++);
      }
    }
  }
}

TEST(QLinearAddKernel, RefusesPerChannelScaleAndMixedTypes) {
  const Tensor a = Tensor::from_vector<uint8_t>({2}, {1, 2});
  {
    KernelTest test("QLinearAdd", 14);
    test.input(a).input(f32({2}, {1, 2})).input(scalar_8bit(F::kUInt8, 0)).input(a).input(f32({}, {1}));
    test.input(scalar_8bit(F::kUInt8, 0)).input(f32({}, {1})).input(scalar_8bit(F::kUInt8, 0));
    test.output(F::kUInt8, {2});
    test.node().set_domain("ge");
    Result<PreparedKernel> kernel = test.prepare();
    ASSERT_FALSE(kernel.is_ok());
    EXPECT_NE(kernel.status().message().find("A_scale"), std::string::npos) << kernel.status().message();
  }
  {
    KernelTest test("QLinearAdd", 14);
    test.input(a).input(f32({}, {1})).input(scalar_8bit(F::kUInt8, 0));
    test.input(Tensor::from_vector<int8_t>({2}, {1, 2})).input(f32({}, {1})).no_input();
    test.input(f32({}, {1})).no_input().output(F::kUInt8, {2});
    test.node().set_domain("ge");
    Result<PreparedKernel> kernel = test.prepare();
    ASSERT_FALSE(kernel.is_ok());
    EXPECT_NE(kernel.status().message().find("int8"), std::string::npos) << kernel.status().message();
  }
}

}  // namespace
}  // namespace ge::reference_kernels::testing
