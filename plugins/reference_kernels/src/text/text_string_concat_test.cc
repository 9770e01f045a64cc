// StringConcat kernel tests (ONNX's backend cases and broadcasting by hand). The outputs
// are constructed here: KernelTest::run's 0xFF fill would corrupt std::string objects.

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "testing/kernel_test_util.h"

namespace ge::reference_kernels::testing {
namespace {

using F = DataType;

Result<std::vector<std::string>> concat(const Tensor& x, const Tensor& y, const std::vector<int64_t>& z_dims) {
  KernelTest test("StringConcat", 20);
  test.input(x).input(y).output(F::kString, z_dims);
  GE_ASSIGN_OR_RETURN(PreparedKernel kernel, test.prepare());
  Tensor z = Tensor::zeros(F::kString, z_dims);
  const void* inputs[] = {x.raw_data(), y.raw_data()};
  void* outputs[] = {z.raw_data()};
  KernelArgs args;
  args.inputs = inputs;
  args.outputs = outputs;
  args.params = kernel.params.get();
  if (int code = kernel.function(args); code != 0) return invalid_argument("kernel returned " + std::to_string(code));
  return std::vector<std::string>(z.data<std::string>(), z.data<std::string>() + z.element_count());
}

TEST(StringConcatKernel, ElementwiseUtf8AndEmptyStrings) {
  auto out =
      concat(Tensor::from_strings({3}, {"abc", "", "的"}), Tensor::from_strings({3}, {".com", "abc", "中"}), {3});
  ASSERT_TRUE(out.is_ok()) << out.status().to_string();
  EXPECT_EQ(out.value(), (std::vector<std::string>{"abc.com", "abc", "的中"}));
}

TEST(StringConcatKernel, BroadcastsBothWaysAndScalars) {
  auto out = concat(Tensor::from_strings({2, 1}, {"a", "b"}), Tensor::from_strings({3}, {"1", "2", "3"}), {2, 3});
  ASSERT_TRUE(out.is_ok()) << out.status().to_string();
  EXPECT_EQ(out.value(), (std::vector<std::string>{"a1", "a2", "a3", "b1", "b2", "b3"}));
  auto scalar = concat(Tensor::from_strings({}, {"cat"}), Tensor::from_strings({}, {"s"}), {});
  ASSERT_TRUE(scalar.is_ok()) << scalar.status().to_string();
  EXPECT_EQ(scalar.value(), (std::vector<std::string>{"cats"}));
}

TEST(StringConcatKernel, NonStringOperandsAreRefused) {
  KernelTest test("StringConcat", 20);
  test.input(Tensor::from_strings({1}, {"a"})).input(i64({1}, {1})).output(F::kString, {1});
  Result<PreparedKernel> kernel = test.prepare();
  ASSERT_FALSE(kernel.is_ok());
  EXPECT_EQ(kernel.status().code(), StatusCode::kUnsupported);
}

}  // namespace
}  // namespace ge::reference_kernels::testing
