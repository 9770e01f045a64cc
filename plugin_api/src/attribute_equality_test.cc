// Tests of attribute equality for pattern matching (ge/plugin_api/attribute_equality.h).
#include "ge/plugin_api/attribute_equality.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace ge {
namespace {

TEST(AttributeEquality, ComparesTensorsAndAttributes) {
  Tensor a = Tensor::from_vector<float>({2}, {1.f, 2.f});
  Tensor b = Tensor::from_vector<float>({2}, {1.f, 2.f});
  Tensor c = Tensor::from_vector<float>({1, 2}, {1.f, 2.f});
  EXPECT_TRUE(tensors_equal(a, b));
  EXPECT_EQ(hash_tensor(a), hash_tensor(b));
  EXPECT_FALSE(tensors_equal(a, c));
  EXPECT_TRUE(attributes_equal(Attribute(int64_t{1}), Attribute(1.f)));
  EXPECT_FALSE(attributes_equal(Attribute(int64_t{1}), Attribute(std::string("1"))));
  EXPECT_TRUE(attributes_equal(Attribute(std::vector<int64_t>{1, 2}), Attribute(std::vector<int64_t>{1, 2})));
  EXPECT_TRUE(attributes_equal(Attribute(a), Attribute(b)));
  EXPECT_FALSE(attributes_equal(Attribute(a), Attribute(c)));
}

}  // namespace
}  // namespace ge
