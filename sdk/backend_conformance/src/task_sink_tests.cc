// TaskSink: a static model loaded once into task lists (ge/runtime/model_runner.h) and
// run many times, only the I/O address slots refreshed per run, gives the reference
// backend's results: through a Session, through execute_bound on the device's own
// buffers, and on two streams joined by events.
#include <algorithm>
#include <cstdio>
#include <string>
#include <utility>

#include "device_buffer.h"
#include "device_graph.h"
#include "ge/runtime/model_runner.h"
#include "ge/session.h"
#include "model_graphs.h"
#include "suite.h"
#include "test_data.h"

namespace ge::backend_conformance {
namespace {

constexpr int kRounds = 3;

void expect_outputs_match(const Environment& env, const std::vector<Tensor>& got, const std::vector<Tensor>& want,
                          const std::string& what) {
  ASSERT_EQ(got.size(), want.size()) << what;
  for (size_t i = 0; i < want.size(); ++i) {
    EXPECT_EQ(compare_tensors(got[i], want[i], env.config().rtol, env.config().atol), "")
        << what << ", output " << i << " vs reference backend '" << env.reference().name() << "'";
  }
}

Result<std::unique_ptr<Graph>> pick(Environment& env, const std::vector<CandidateGraph>& candidates) {
  std::string chosen;
  GE_ASSIGN_OR_RETURN(std::unique_ptr<Graph> graph, first_supported(env, candidates, &chosen));
  ::testing::Test::RecordProperty("model", chosen);
  std::printf("[ conformance ] model: %s\n", chosen.c_str());
  return graph;
}

void session_runs_through_the_task_sink(Environment& env) {
  Result<std::unique_ptr<Graph>> picked = pick(env, model_candidates(env.config().seed));
  if (!picked.is_ok()) GTEST_SKIP() << picked.status().message();
  std::unique_ptr<Graph> graph = std::move(picked).value();
  SessionOptions options;
  options.backend = env.backend().name();
  GE_ASSERT_OK_AND_ASSIGN(std::unique_ptr<Session> session, Session::create(env.host(), graph->clone(), options));
  ASSERT_TRUE(session->uses_task_sink())
      << "a static-shape graph of supported ops must run through the task sink; it runs per op:\n"
      << session->describe_partition();
  options.backend = env.reference().name();
  GE_ASSERT_OK_AND_ASSIGN(std::unique_ptr<Session> reference, Session::create(env.host(), graph->clone(), options));
  std::vector<Tensor> first;
  for (int round = 0; round < kRounds; ++round) {
    const NamedTensors inputs = random_inputs(*graph, seed_for(env.config().seed, "session") + 100 * round);
    std::vector<Tensor> got, want;
    GE_ASSERT_OK(session->run(inputs, got));
    GE_ASSERT_OK(reference->run(inputs, want));
    expect_outputs_match(env, got, want, "Session::run round " + std::to_string(round));
    if (round == 0) {
      for (const Tensor& tensor : got) first.push_back(tensor.clone());
    }
  }
  // The first inputs again: nothing of the later runs lingers.
  std::vector<Tensor> again;
  GE_ASSERT_OK(session->run(random_inputs(*graph, seed_for(env.config().seed, "session")), again));
  expect_outputs_match(env, again, first, "Session::run of the first inputs again (vs its own first run)");
}

/// One device buffer per runtime input and graph output of `graph`.
struct BoundBuffers {
  std::vector<DeviceBuffer> inputs, outputs;
  std::vector<const void*> input_addresses;
  std::vector<void*> output_addresses;
};

Result<BoundBuffers> bind_buffers(Device& device, const Graph& graph, const NamedTensors& data) {
  BoundBuffers bound;
  for (const auto& [name, tensor] : data) {
    GE_ASSIGN_OR_RETURN(DeviceBuffer buffer, DeviceBuffer::allocate(device, std::max<size_t>(tensor.byte_size(), 1)));
    GE_RETURN_IF_ERROR(buffer.write(std::span(static_cast<const std::byte*>(tensor.raw_data()), tensor.byte_size())));
    bound.input_addresses.push_back(buffer.get());
    bound.inputs.push_back(std::move(buffer));
  }
  for (const Value* output : graph.outputs()) {
    const TensorDesc& desc = output->desc();
    const size_t bytes = static_cast<size_t>(element_count(desc.static_dims())) * element_size(desc.dtype);
    GE_ASSIGN_OR_RETURN(DeviceBuffer buffer, DeviceBuffer::allocate(device, std::max<size_t>(bytes, 1)));
    GE_RETURN_IF_ERROR(buffer.fill(kPoison));
    bound.output_addresses.push_back(buffer.get());
    bound.outputs.push_back(std::move(buffer));
  }
  return bound;
}

Result<std::vector<Tensor>> read_outputs(const Graph& graph, const BoundBuffers& bound) {
  std::vector<Tensor> outputs;
  for (size_t i = 0; i < graph.outputs().size(); ++i) {
    const TensorDesc& desc = graph.outputs()[i]->desc();
    Tensor tensor = Tensor::zeros(desc.dtype, desc.static_dims());
    GE_ASSIGN_OR_RETURN(std::vector<std::byte> bytes, bound.outputs[i].read(tensor.byte_size()));
    std::copy(bytes.begin(), bytes.end(), static_cast<std::byte*>(tensor.raw_data()));
    outputs.push_back(std::move(tensor));
  }
  return outputs;
}

void execute_bound_refreshes_io_addresses(Environment& env) {
  Result<std::unique_ptr<Graph>> picked = pick(env, model_candidates(env.config().seed));
  if (!picked.is_ok()) GTEST_SKIP() << picked.status().message();
  const Graph& graph = **picked;
  GE_ASSERT_OK_AND_ASSIGN(std::unique_ptr<ModelRunner> runner, ModelRunner::load(graph, env.backend()));
  GE_ASSERT_OK_AND_ASSIGN(std::unique_ptr<ModelRunner> reference, ModelRunner::load(graph, env.reference()));
  Device& device = env.backend().device();
  // Three sets of I/O buffers used in turn: every run must read and write only its own.
  std::vector<NamedTensors> inputs;
  std::vector<BoundBuffers> sets;
  for (int set = 0; set < kRounds; ++set) {
    inputs.push_back(random_inputs(graph, seed_for(env.config().seed, "bound") + 100 * set));
    GE_ASSERT_OK_AND_ASSIGN(BoundBuffers bound, bind_buffers(device, graph, inputs.back()));
    sets.push_back(std::move(bound));
  }
  for (BoundBuffers& set : sets) GE_ASSERT_OK(runner->execute_bound(set.input_addresses, set.output_addresses));
  for (int set = 0; set < kRounds; ++set) {
    std::vector<Tensor> want;
    GE_ASSERT_OK(reference->execute(inputs[set], want));
    GE_ASSERT_OK_AND_ASSIGN(std::vector<Tensor> got, read_outputs(graph, sets[set]));
    expect_outputs_match(env, got, want, "execute_bound with buffer set " + std::to_string(set) + " of " +
                                             std::to_string(kRounds) + " (read after all ran)");
  }
  // New data in the first set's buffers: read at execute time, not when first bound.
  const NamedTensors fresh = random_inputs(graph, seed_for(env.config().seed, "fresh"));
  for (size_t i = 0; i < fresh.size(); ++i) {
    const Tensor& tensor = fresh[i].second;
    GE_ASSERT_OK(sets[0].inputs[i].write(std::span(static_cast<const std::byte*>(tensor.raw_data()), tensor.byte_size())));
  }
  GE_ASSERT_OK(runner->execute_bound(sets[0].input_addresses, sets[0].output_addresses));
  std::vector<Tensor> want;
  GE_ASSERT_OK(reference->execute(fresh, want));
  GE_ASSERT_OK_AND_ASSIGN(std::vector<Tensor> got, read_outputs(graph, sets[0]));
  expect_outputs_match(env, got, want, "execute_bound on rewritten input buffers");
}

void two_streams_match_the_reference(Environment& env) {
  Result<std::unique_ptr<Graph>> picked = pick(env, branch_candidates(env.config().seed));
  if (!picked.is_ok()) GTEST_SKIP() << picked.status().message();
  const Graph& graph = **picked;
  ModelRunnerOptions options;
  options.max_streams = 2;
  options.stream_memory_ratio = 0;  // no memory limit: the branches side by side
  GE_ASSERT_OK_AND_ASSIGN(std::unique_ptr<ModelRunner> runner, ModelRunner::load(graph, env.backend(), options));
  ASSERT_EQ(runner->stream_plan().stream_count, 2) << "two independent branches go on two streams";
  ASSERT_FALSE(runner->stream_plan().events.empty()) << "the join waits for the other stream";
  GE_ASSERT_OK_AND_ASSIGN(std::unique_ptr<ModelRunner> reference, ModelRunner::load(graph, env.reference()));
  for (int round = 0; round < kRounds; ++round) {
    const NamedTensors inputs = random_inputs(graph, seed_for(env.config().seed, "streams") + 100 * round);
    std::vector<Tensor> got, want;
    GE_ASSERT_OK(runner->execute(inputs, got));
    GE_ASSERT_OK(reference->execute(inputs, want));
    expect_outputs_match(env, got, want, "two-stream execute round " + std::to_string(round));
  }
}

}  // namespace

std::vector<TestEntry> task_sink_tests() {
  return {
      {"TaskSink", "SessionRunsThroughTheTaskSink", session_runs_through_the_task_sink},
      {"TaskSink", "ExecuteBoundRefreshesIoAddresses", execute_bound_refreshes_io_addresses},
      {"TaskSink", "TwoStreamsMatchTheReference", two_streams_match_the_reference},
  };
}

}  // namespace ge::backend_conformance
