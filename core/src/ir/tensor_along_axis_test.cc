// Tests of walking tensors along an axis (tensor_along_axis.h).
#include "tensor_along_axis.h"

#include <gtest/gtest.h>

namespace ge::detail {
namespace {

std::vector<float> values(const Tensor& t) { return {t.values<float>().begin(), t.values<float>().end()}; }

// t = [[0,1,2],[3,4,5]]
Tensor two_by_three() { return Tensor::from_vector<float>({2, 3}, {0, 1, 2, 3, 4, 5}); }

TEST(TensorAlongAxis, SliceAlongRemovesTheAxis) {
  Tensor col = slice_along(two_by_three(), 1, 2);
  EXPECT_EQ(col.shape(), std::vector<int64_t>{2});
  EXPECT_EQ(values(col), (std::vector<float>{2, 5}));
  Tensor row = slice_along(two_by_three(), 0, 1);
  EXPECT_EQ(values(row), (std::vector<float>{3, 4, 5}));
}

TEST(TensorAlongAxis, NarrowKeepsTheAxis) {
  Tensor n = narrow(two_by_three(), 1, 1, 2);
  EXPECT_EQ(n.shape(), (std::vector<int64_t>{2, 2}));
  EXPECT_EQ(values(n), (std::vector<float>{1, 2, 4, 5}));
}

TEST(TensorAlongAxis, StackAlongInsertsAnAxis) {
  Tensor a = Tensor::from_vector<float>({2}, {1, 2}), b = Tensor::from_vector<float>({2}, {3, 4});
  auto s0 = stack_along({a, b}, 0);
  ASSERT_TRUE(s0.is_ok());
  EXPECT_EQ(s0->shape(), (std::vector<int64_t>{2, 2}));
  EXPECT_EQ(values(*s0), (std::vector<float>{1, 2, 3, 4}));
  auto s1 = stack_along({a, b}, 1);
  ASSERT_TRUE(s1.is_ok());
  EXPECT_EQ(values(*s1), (std::vector<float>{1, 3, 2, 4}));
  EXPECT_FALSE(stack_along({a, two_by_three()}, 0).is_ok());
}

TEST(TensorAlongAxis, ConcatAlongJoinsAnAxis) {
  auto c = concat_along({two_by_three(), Tensor::from_vector<float>({2, 1}, {9, 8})}, 1);
  ASSERT_TRUE(c.is_ok());
  EXPECT_EQ(c->shape(), (std::vector<int64_t>{2, 4}));
  EXPECT_EQ(values(*c), (std::vector<float>{0, 1, 2, 9, 3, 4, 5, 8}));
  auto bad = concat_along({two_by_three(), Tensor::from_vector<float>({3, 1}, {1, 2, 3})}, 1);
  EXPECT_FALSE(bad.is_ok());
}

TEST(TensorAlongAxis, StringsAreCopiedAsObjects) {
  Tensor s = Tensor::from_strings({2, 2}, {"a", "bb", "ccc", "dddd"});
  Tensor col = slice_along(s, 1, 1);
  EXPECT_EQ(col.data<std::string>()[0], "bb");
  EXPECT_EQ(col.data<std::string>()[1], "dddd");
}

}  // namespace
}  // namespace ge::detail
