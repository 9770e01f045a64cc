// Tests of reading constant values in passes (ge/plugin_api/constant_values.h).
#include "ge/plugin_api/constant_values.h"

#include <gtest/gtest.h>

#include "ge/testing/sdk.h"

namespace ge {
namespace {

using sdk_testing::parse;

TEST(ConstantValues, ReadsConstants) {
  auto g = parse(R"(graph g {
    init %s : float32[3] = [2, 2, 2]
    init %m : float32[2] = [2, 3]
    init %i : int64[2] = [-1, 4]
    init input %o : float32[] = [1]
    input %x : float32[2]
    output %x
  })");
  EXPECT_EQ(constant_scalar(g->find_value("s")), 2.0);
  EXPECT_EQ(constant_scalar(g->find_value("m")), std::nullopt);
  EXPECT_EQ(constant_scalar(g->find_value("o")), std::nullopt) << "an overridable initializer is not a constant";
  EXPECT_EQ(constant_ints(g->find_value("i")), (std::vector<int64_t>{-1, 4}));
  EXPECT_EQ(constant_ints(g->find_value("s")), std::nullopt);
}

TEST(ConstantValues, NodeAxesFromAttributeOrInput) {
  auto g = parse(R"(graph g {
    input %x : float32[2,3,4]
    init %axes : int64[1] = [-1]
    %a : float32[2,3,1] = ReduceMean(%x) {axes: ints = [-1, 0]} "attr"
    %b : float32[2,3,1] = ReduceSum(%x, %axes) "input"
    output %a
    output %b
  })");
  EXPECT_EQ(node_axes(*g->find_node("attr"), "axes", 1, 3), (std::vector<int64_t>{2, 0}));
  EXPECT_EQ(node_axes(*g->find_node("input"), "axes", 1, 3), (std::vector<int64_t>{2}));
  EXPECT_EQ(node_axes(*g->find_node("input"), "axes", 1, 0), std::nullopt);
}

}  // namespace
}  // namespace ge
