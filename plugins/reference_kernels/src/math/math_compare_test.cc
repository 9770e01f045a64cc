// Comparison kernel tests: Equal on strings (opset 19 added tensor(string) to Equal).

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "testing/kernel_test_util.h"

namespace ge::reference_kernels::testing {
namespace {

using F = DataType;

TEST(EqualKernel, StringsCompareByValueWithBroadcasting) {
  KernelTest test("Equal", 19);
  test.input(Tensor::from_strings({2, 1}, {"abc", ""}))
      .input(Tensor::from_strings({3}, {"abc", "ab", ""}))
      .output(F::kBool, {2, 3});
  GE_RUN_KERNEL(out, test);
  const std::vector<bool> expected = {true, false, false, false, false, true};
  ASSERT_EQ(out[0].shape(), (std::vector<int64_t>{2, 3}));
  for (size_t i = 0; i < expected.size(); ++i) EXPECT_EQ(out[0].data<bool>()[i], expected[i]) << "element " << i;
}

TEST(EqualKernel, AStringAgainstANumberIsRefused) {
  KernelTest test("Equal", 19);
  test.input(Tensor::from_strings({1}, {"1"})).input(i64({1}, {1})).output(F::kBool, {1});
  Result<PreparedKernel> kernel = test.prepare();
  ASSERT_FALSE(kernel.is_ok());
  EXPECT_EQ(kernel.status().code(), StatusCode::kUnsupported);
}

}  // namespace
}  // namespace ge::reference_kernels::testing
