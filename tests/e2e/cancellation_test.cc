// Stopping a run from outside (ge/cancellation.h, RunOptions): a Loop of 2^62 iterations
// stops within moments of its token being tripped from another thread, through the
// per-op executor and its sunk loop body; a task-sink run does not start; the session
// runs normally afterwards.
#include <gtest/gtest.h>

#include <chrono>
#include <thread>

#include "ge/graph_text.h"
#include "ge/session.h"
#include "plugin_test_env.h"

namespace ge {
namespace {

using pass_testing::PluginEnvironment;
using Clock = std::chrono::steady_clock;

Result<std::unique_ptr<Session>> session_for(const std::string& text) {
  PluginEnvironment& env = PluginEnvironment::get();
  GE_RETURN_IF_ERROR(env.require({"onnx_std", "cpu"}));
  GE_ASSIGN_OR_RETURN(std::unique_ptr<Graph> graph, parse_graph(text));
  return Session::create(env.host(), std::move(graph), SessionOptions{});
}

/// final = x + trips: one Add per iteration.
constexpr const char* kCountingLoop = R"(graph main (opset ""=17) {
  input %trips : int64[]
  input %x : float32[1]
  init %cond : bool[] = [true]
  %final = Loop(%trips, %cond, %x) {body: graph = graph body {
    input %i : int64[]
    input %c : bool[]
    input %state : float32[1]
    init %one : float32[] = [1]
    %next = Add(%state, %one) "step"
    %c_out = Identity(%c) "keep_going"
    output %c_out
    output %next
  }} "loop"
  output %final
})";

TEST(Cancellation, ALoopOfTwoToTheSixtyTwoTripsStopsSoonAfterItsTokenIsTripped) {
  auto session = session_for(kCountingLoop);
  ASSERT_TRUE(session.is_ok()) << session.status().to_string();
  const Tensor x = Tensor::from_vector<float>({1}, {0});
  CancellationToken token;
  std::vector<Tensor> outputs;
  const Clock::time_point start = Clock::now();
  std::thread canceller([&token] {
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
    token.cancel();
  });
  const Status status = (*session)->run({{"trips", Tensor::from_vector<int64_t>({}, {int64_t{1} << 62})}, {"x", x}},
                                        outputs, RunOptions{&token});
  const auto elapsed = Clock::now() - start;
  canceller.join();
  EXPECT_EQ(status.code(), StatusCode::kCancelled) << status.to_string();
  EXPECT_EQ(status.message(),
            "Loop 'loop': the run was cancelled (its CancellationToken was tripped) before a run of subgraph 'body'");
  EXPECT_LT(elapsed, std::chrono::seconds(10)) << "the loop ran on long after the token was tripped";

  token.reset();
  ASSERT_TRUE((*session)
                  ->run({{"trips", Tensor::from_vector<int64_t>({}, {3})}, {"x", x}}, outputs, RunOptions{&token})
                  .is_ok());
  ASSERT_EQ(outputs.size(), 1u);
  EXPECT_EQ(outputs[0].data<float>()[0], 3.0f) << "the session runs normally after a cancelled run";
}

TEST(Cancellation, ATaskSinkRunDoesNotStartOnceItsTokenIsTripped) {
  auto session = session_for(R"(graph main (opset ""=17) {
  input %x : float32[4]
  %y = Relu(%x) "relu"
  %z = Neg(%y) "neg"
  output %z
})");
  ASSERT_TRUE(session.is_ok()) << session.status().to_string();
  ASSERT_TRUE((*session)->uses_task_sink());
  const Tensor x = Tensor::from_vector<float>({4}, {-1, 2, -3, 4});
  CancellationToken token;
  token.cancel();
  std::vector<Tensor> outputs;
  const Status status = (*session)->run({{"x", x}}, outputs, RunOptions{&token});
  EXPECT_EQ(status.code(), StatusCode::kCancelled) << status.to_string();
  EXPECT_EQ(status.message(), "the run was cancelled (its CancellationToken was tripped) before graph 'main' ran");
  ASSERT_TRUE((*session)->run({{"x", x}}, outputs).is_ok());
  EXPECT_EQ(outputs[0].data<float>()[1], -2.0f);
}

}  // namespace
}  // namespace ge
