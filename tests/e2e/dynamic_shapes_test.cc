// The executor on data-dependent shapes with the real ONNX op library and cpu backend:
// repeated runs whose data changes an output's shape, and loop bodies whose values
// change shape from one iteration to the next.
#include <gtest/gtest.h>

#include "ge/graph_text.h"
#include "ge/session.h"
#include "plugin_test_env.h"

namespace ge {
namespace {

using pass_testing::PluginEnvironment;

Result<std::unique_ptr<Session>> session_for(const std::string& text) {
  PluginEnvironment& env = PluginEnvironment::get();
  GE_RETURN_IF_ERROR(env.require({"onnx_std", "cpu"}));
  GE_ASSIGN_OR_RETURN(std::unique_ptr<Graph> graph, parse_graph(text));
  return Session::create(env.host(), std::move(graph), SessionOptions{});
}

std::vector<int64_t> int64s(const Tensor& t) { return {t.values<int64_t>().begin(), t.values<int64_t>().end()}; }

TEST(DynamicShapes, RepeatedRunsReinferDataDependentShapes) {
  auto session = session_for(R"(graph main (opset ""=17) {
  input %x : float32[6]
  %nz = NonZero(%x) "nz"
  %y = Mul(%nz, %nz) "square"
  output %y
})");
  ASSERT_TRUE(session.is_ok()) << session.status().to_string();
  std::vector<Tensor> out;
  Status first = (*session)->run({{"x", Tensor::from_vector<float>({6}, {0, 1, 0, 2, 0, 3})}}, out);
  ASSERT_TRUE(first.is_ok()) << first.to_string();
  EXPECT_EQ(out.at(0).shape(), (std::vector<int64_t>{1, 3}));
  EXPECT_EQ(int64s(out[0]), (std::vector<int64_t>{1, 9, 25}));
  // Same input shape, more non-zeros: the output grows, the plan is kept.
  Status second = (*session)->run({{"x", Tensor::from_vector<float>({6}, {1, 1, 0, 1, 1, 1})}}, out);
  ASSERT_TRUE(second.is_ok()) << second.to_string();
  EXPECT_EQ(out.at(0).shape(), (std::vector<int64_t>{1, 5}));
  EXPECT_EQ(int64s(out[0]), (std::vector<int64_t>{0, 1, 9, 16, 25}));
}

TEST(DynamicShapes, CompressSelectsAsManyRowsAsTheConditionHolds) {
  auto session = session_for(R"(graph main (opset ""=17) {
  input %x : int64[3,2]
  input %keep : bool[3]
  %rows = Compress(%x, %keep) {axis: int = 0} "select"
  %flat = Compress(%x, %keep) "select_flat"
  output %rows
  output %flat
})");
  ASSERT_TRUE(session.is_ok()) << session.status().to_string();
  std::vector<Tensor> out;
  Tensor x = Tensor::from_vector<int64_t>({3, 2}, {1, 2, 3, 4, 5, 6});
  Tensor keep = Tensor::zeros(DataType::kBool, {3});
  keep.data<uint8_t>()[0] = 1;
  keep.data<uint8_t>()[2] = 1;
  Status s = (*session)->run({{"x", x}, {"keep", keep}}, out);
  ASSERT_TRUE(s.is_ok()) << s.to_string();
  EXPECT_EQ(out.at(0).shape(), (std::vector<int64_t>{2, 2}));
  EXPECT_EQ(int64s(out[0]), (std::vector<int64_t>{1, 2, 5, 6}));
  EXPECT_EQ(int64s(out.at(1)), (std::vector<int64_t>{1, 3}));  // flattened x[0], x[2]
}

TEST(DynamicShapes, LoopCarriedValueGrowsEachIteration) {
  // acc = Concat(acc, [i]) for i in 0..3: the body's Concat output has a new shape on
  // every iteration.
  auto session = session_for(R"(graph main (opset ""=17) {
  input %trips : int64[]
  init %cond : bool[] = [true]
  init %start : int64[1] = [7]
  %acc = Loop(%trips, %cond, %start) {body: graph = graph body {
    input %i : int64[]
    input %c : bool[]
    input %prev : int64[?]
    init %axes : int64[1] = [0]
    %item = Unsqueeze(%i, %axes) "item"
    %next = Concat(%prev, %item) {axis: int = 0} "append"
    %c_out = Identity(%c) "keep_going"
    output %c_out
    output %next
  }} "loop"
  output %acc
})");
  ASSERT_TRUE(session.is_ok()) << session.status().to_string();
  std::vector<Tensor> out;
  Status s = (*session)->run({{"trips", Tensor::from_vector<int64_t>({}, {4})}}, out);
  ASSERT_TRUE(s.is_ok()) << s.to_string();
  EXPECT_EQ(int64s(out.at(0)), (std::vector<int64_t>{7, 0, 1, 2, 3}));
  s = (*session)->run({{"trips", Tensor::from_vector<int64_t>({}, {2})}}, out);
  ASSERT_TRUE(s.is_ok()) << s.to_string();
  EXPECT_EQ(int64s(out.at(0)), (std::vector<int64_t>{7, 0, 1}));
}

}  // namespace
}  // namespace ge
