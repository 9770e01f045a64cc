// Errors: a kernel that fails on its data (returns non-zero) surfaces at submit() or the
// next synchronize() (Stream's contract), once, on its own stream, and the stream and the
// task sink work again afterwards.
#include <cstdio>
#include <string>
#include <utility>

#include "device_buffer.h"
#include "device_graph.h"
#include "ge/runtime/model_runner.h"
#include "suite.h"
#include "test_data.h"

namespace ge::backend_conformance {
namespace {

/// A one-node graph whose kernel runs on `good` inputs and must fail on `bad` ones.
struct FailingCase {
  std::string label;
  std::string text;
  NamedTensors good, bad;
};

std::vector<FailingCase> failing_cases() {
  const Tensor data = Tensor::from_vector<float>({4, 3}, {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11});
  return {
      {"Gather with an out-of-range index",
       R"(graph gather (opset ""=17) {
  input %data : float32[4,3]
  input %indices : int64[2]
  %y = Gather(%data, %indices) {axis: int = 0} "gather"
  output %y
})",
       {{"data", data}, {"indices", Tensor::from_vector<int64_t>({2}, {3, 1})}},
       {{"data", data}, {"indices", Tensor::from_vector<int64_t>({2}, {1, 9})}}},
      {"integer Div by zero",
       R"(graph divide (opset ""=17) {
  input %a : int32[4]
  input %b : int32[4]
  %q = Div(%a, %b) "divide"
  output %q
})",
       {{"a", Tensor::from_vector<int32_t>({4}, {7, 8, 9, 10})}, {"b", Tensor::from_vector<int32_t>({4}, {1, 2, 3, 4})}},
       {{"a", Tensor::from_vector<int32_t>({4}, {7, 8, 9, 10})}, {"b", Tensor::from_vector<int32_t>({4}, {1, 0, 3, 4})}}},
  };
}

Status write_all(DeviceGraph& graph, const NamedTensors& inputs) {
  for (const auto& [name, tensor] : inputs) GE_RETURN_IF_ERROR(graph.write(name, tensor));
  return Status::ok();
}

/// A loaded failing case whose kernel was seen to fail on its bad inputs (on a stream that
/// is then synchronized clean), with the output of its good inputs. kUnsupported when no
/// kernel of the backend checks its data; another error when the stream lost a failure.
struct LoadedFailingCase {
  FailingCase failing;
  std::unique_ptr<DeviceGraph> graph;
  Tensor good_output;
};

Result<LoadedFailingCase> load_failing_case(Environment& env) {
  std::string passed_over;
  for (FailingCase& failing : failing_cases()) {
    GE_ASSIGN_OR_RETURN(std::unique_ptr<Graph> graph, parse_and_infer(failing.text, env.ops()));
    if (std::string missing = unsupported_nodes(env.backend(), *graph); !missing.empty()) {
      passed_over += "\n  " + failing.label + ": not supported: " + missing;
      continue;
    }
    const std::string output = graph->outputs()[0]->name();
    GE_ASSIGN_OR_RETURN(std::unique_ptr<DeviceGraph> loaded, DeviceGraph::load(std::move(graph), env.backend()));
    GE_ASSIGN_OR_RETURN(std::unique_ptr<Stream> stream, env.backend().device().create_stream());
    GE_RETURN_IF_ERROR(write_all(*loaded, failing.good));
    GE_RETURN_IF_ERROR(loaded->run(*stream).with_context(failing.label + " on good inputs"));
    GE_ASSIGN_OR_RETURN(Tensor good_output, loaded->read(output));
    GE_RETURN_IF_ERROR(write_all(*loaded, failing.bad));
    const Status submitted = stream->submit(loaded->tasks());
    const Status synchronized = stream->synchronize();
    if (submitted.is_ok() && synchronized.is_ok()) {
      // On host memory the kit can call the kernel itself: a code the stream did not pass
      // on is the stream's bug, not a kernel that does not check its data.
      if (env.backend().device().host_accessible()) {
        const KernelTask& kernel = loaded->kernels()[0];
        if (const int code = kernel.function(kernel.args); code != 0) {
          return internal_error(failing.label + ": the kernel returns " + std::to_string(code) +
                                " when called directly, but the stream's submit() and synchronize() returned ok");
        }
      }
      passed_over += "\n  " + failing.label + ": the kernel did not report the bad input";
      continue;
    }
    return LoadedFailingCase{std::move(failing), std::move(loaded), std::move(good_output)};
  }
  return unsupported("no kernel of backend '" + env.backend().name() +
                     "' fails on bad data, so error propagation cannot be checked:" + passed_over);
}

void failing_kernel_surfaces_at_synchronize(Environment& env) {
  Result<LoadedFailingCase> found = load_failing_case(env);
  if (!found.is_ok() && found.status().code() == StatusCode::kUnsupported) GTEST_SKIP() << found.status().message();
  GE_ASSERT_OK(found.status());
  DeviceGraph& graph = *found->graph;
  const std::string output = graph.graph().outputs()[0]->name();
  GE_ASSERT_OK_AND_ASSIGN(std::unique_ptr<Stream> stream, env.backend().device().create_stream());
  GE_ASSERT_OK(write_all(graph, found->failing.bad));
  const Status submitted = stream->submit(graph.tasks());
  const Status synchronized = stream->synchronize();
  const Status& error = submitted.is_ok() ? synchronized : submitted;
  ASSERT_FALSE(error.is_ok()) << found->failing.label << ": neither submit() nor synchronize() reported the failure";
  EXPECT_FALSE(error.message().empty()) << "an error says what failed";
  std::printf("[ conformance ] %s on '%s' reports: %s\n", found->failing.label.c_str(), env.backend().name().c_str(),
              error.to_string().c_str());
  // Reported once: the next synchronize has no new error to return.
  GE_ASSERT_OK(stream->synchronize());
  // And the stream runs the next work normally.
  GE_ASSERT_OK(write_all(graph, found->failing.good));
  GE_ASSERT_OK(graph.run(*stream));
  GE_ASSERT_OK_AND_ASSIGN(Tensor again, graph.read(output));
  EXPECT_EQ(compare_tensors(again, found->good_output, 0, 0), "") << "the stream's first run after the failure";
}

void run_returns_the_error(Environment& env) {
  Result<LoadedFailingCase> found = load_failing_case(env);
  if (!found.is_ok() && found.status().code() == StatusCode::kUnsupported) GTEST_SKIP() << found.status().message();
  GE_ASSERT_OK(found.status());
  DeviceGraph& graph = *found->graph;
  GE_ASSERT_OK_AND_ASSIGN(std::unique_ptr<Stream> stream, env.backend().device().create_stream());
  GE_ASSERT_OK(write_all(graph, found->failing.bad));
  EXPECT_FALSE(stream->run(graph.tasks()).is_ok()) << "Stream::run must return the failure of the tasks it ran";
  GE_ASSERT_OK(write_all(graph, found->failing.good));
  GE_ASSERT_OK(stream->run(graph.tasks()));
}

void a_failure_stays_on_its_stream(Environment& env) {
  Result<LoadedFailingCase> found = load_failing_case(env);
  if (!found.is_ok() && found.status().code() == StatusCode::kUnsupported) GTEST_SKIP() << found.status().message();
  GE_ASSERT_OK(found.status());
  DeviceGraph& graph = *found->graph;
  Device& device = env.backend().device();
  GE_ASSERT_OK_AND_ASSIGN(std::unique_ptr<Stream> failing, device.create_stream());
  GE_ASSERT_OK_AND_ASSIGN(std::unique_ptr<Stream> healthy, device.create_stream());
  const std::vector<std::byte> data = random_bytes(4096, env.config().seed);
  GE_ASSERT_OK_AND_ASSIGN(DeviceBuffer source, DeviceBuffer::allocate(device, data.size()));
  GE_ASSERT_OK_AND_ASSIGN(DeviceBuffer copy, DeviceBuffer::allocate(device, data.size()));
  GE_ASSERT_OK(source.write(data));
  GE_ASSERT_OK(write_all(graph, found->failing.bad));
  const Status submitted = failing->submit(graph.tasks());
  const Task work = MemcpyTask{copy.get(), source.get(), data.size()};
  GE_ASSERT_OK(healthy->submit(std::span(&work, 1)));
  EXPECT_TRUE(healthy->synchronize().is_ok()) << "another stream's failure leaked into this one";
  GE_ASSERT_OK_AND_ASSIGN(std::vector<std::byte> back, copy.read());
  EXPECT_TRUE(back == data);
  const Status synchronized = failing->synchronize();
  EXPECT_FALSE(submitted.is_ok() && synchronized.is_ok()) << "the failing stream lost its error";
}

void task_sink_reports_a_failing_kernel_and_recovers(Environment& env) {
  Result<LoadedFailingCase> found = load_failing_case(env);
  if (!found.is_ok() && found.status().code() == StatusCode::kUnsupported) GTEST_SKIP() << found.status().message();
  GE_ASSERT_OK(found.status());
  GE_ASSERT_OK_AND_ASSIGN(std::unique_ptr<Graph> graph, parse_and_infer(found->failing.text, env.ops()));
  GE_ASSERT_OK_AND_ASSIGN(std::unique_ptr<ModelRunner> runner, ModelRunner::load(*graph, env.backend()));
  std::vector<Tensor> outputs;
  GE_ASSERT_OK(runner->execute(found->failing.good, outputs));
  ASSERT_EQ(outputs.size(), 1u);
  EXPECT_EQ(compare_tensors(outputs[0], found->good_output, 0, 0), "");
  const Status failed = runner->execute(found->failing.bad, outputs);
  EXPECT_FALSE(failed.is_ok()) << "ModelRunner::execute on " << found->failing.label;
  outputs.clear();
  GE_ASSERT_OK(runner->execute(found->failing.good, outputs));
  ASSERT_EQ(outputs.size(), 1u);
  EXPECT_EQ(compare_tensors(outputs[0], found->good_output, 0, 0), "") << "the first execute after the failure";
}

}  // namespace

std::vector<TestEntry> error_tests() {
  return {
      {"Errors", "FailingKernelSurfacesAtSynchronize", failing_kernel_surfaces_at_synchronize},
      {"Errors", "RunReturnsTheError", run_returns_the_error},
      {"Errors", "AFailureStaysOnItsStream", a_failure_stays_on_its_stream},
      {"Errors", "TaskSinkReportsAFailingKernelAndRecovers", task_sink_reports_a_failing_kernel_and_recovers},
  };
}

}  // namespace ge::backend_conformance
