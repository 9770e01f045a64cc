// Capture: kernels launched on a capturing stream (ge/runtime/stream_capture.h) are
// recorded, not run; the captured model replays them on the backend's streams, with the
// backend's events, as often as asked, and a task group's arguments can be replaced.
#include <cstdio>
#include <string>
#include <utility>

#include "device_buffer.h"
#include "device_graph.h"
#include "ge/runtime/stream_capture.h"
#include "model_graphs.h"
#include "suite.h"
#include "test_data.h"

namespace ge::backend_conformance {
namespace {

constexpr int kRounds = 3;

/// The picked graph loaded on the backend under test and on the reference.
struct Pair {
  std::unique_ptr<DeviceGraph> device, reference;
  std::unique_ptr<Stream> reference_stream;
  std::string output;

  /// Writes seeded inputs into both, runs the reference, and returns its output.
  Result<Tensor> prepare_round(uint32_t seed) {
    for (const auto& [name, tensor] : random_inputs(reference->graph(), seed)) {
      GE_RETURN_IF_ERROR(device->write(name, tensor));
      GE_RETURN_IF_ERROR(reference->write(name, tensor));
    }
    GE_RETURN_IF_ERROR(reference->run(*reference_stream));
    return reference->read(output);
  }
};

Result<Pair> load_pair(Environment& env, const std::vector<CandidateGraph>& candidates) {
  std::string chosen;
  GE_ASSIGN_OR_RETURN(std::unique_ptr<Graph> graph, first_supported(env, candidates, &chosen));
  ::testing::Test::RecordProperty("graph", chosen);
  Pair pair;
  pair.output = graph->outputs()[0]->name();
  std::unique_ptr<Graph> copy = graph->clone();
  GE_ASSIGN_OR_RETURN(pair.device, DeviceGraph::load(std::move(graph), env.backend()));
  GE_ASSIGN_OR_RETURN(pair.reference, DeviceGraph::load(std::move(copy), env.reference()));
  GE_ASSIGN_OR_RETURN(pair.reference_stream, env.reference().device().create_stream());
  return pair;
}

/// Ok when every byte of `name` on the device still is kPoison (nothing wrote it).
Status expect_untouched(const DeviceGraph& graph, const std::string& name, const std::string& when) {
  GE_ASSIGN_OR_RETURN(Tensor tensor, graph.read(name));
  const auto* bytes = static_cast<const std::byte*>(tensor.raw_data());
  for (size_t i = 0; i < tensor.byte_size(); ++i) {
    if (bytes[i] != kPoison) return internal_error("'" + name + "' was written " + when);
  }
  return Status::ok();
}

void replay_matches_the_reference(Environment& env) {
  Result<Pair> loaded = load_pair(env, chain_candidates());
  if (!loaded.is_ok()) GTEST_SKIP() << loaded.status().message();
  Pair& pair = *loaded;
  Device& device = env.backend().device();
  GE_ASSERT_OK_AND_ASSIGN(std::unique_ptr<CaptureStream> capturing, CaptureStream::create(device));
  GE_ASSERT_OK(begin_capture(*capturing, CaptureMode::kGlobal));
  for (size_t i = 0; i < pair.device->kernels().size(); ++i) {
    GE_ASSERT_OK(capturing->launch(pair.device->kernels()[i], pair.device->input_count(i), pair.device->output_count(i)));
  }
  GE_ASSERT_OK_AND_ASSIGN(std::unique_ptr<CapturedModel> model, end_capture(*capturing));
  EXPECT_EQ(model->task_count(), pair.device->kernels().size());
  GE_ASSERT_OK(expect_untouched(*pair.device, pair.output, "while capturing: capture must record, not run"));
  GE_ASSERT_OK_AND_ASSIGN(std::unique_ptr<Stream> replay, device.create_stream());
  Stream* streams[] = {replay.get()};
  for (int round = 0; round < kRounds; ++round) {
    GE_ASSERT_OK_AND_ASSIGN(Tensor want, pair.prepare_round(seed_for(env.config().seed, "replay") + 100 * round));
    GE_ASSERT_OK(model->run(streams));
    GE_ASSERT_OK_AND_ASSIGN(Tensor got, pair.device->read(pair.output));
    EXPECT_EQ(compare_tensors(got, want, env.config().rtol, env.config().atol), "") << "replay round " << round;
  }
  // Replayed on the capturing stream itself, through execute + synchronize.
  GE_ASSERT_OK_AND_ASSIGN(Tensor want, pair.prepare_round(seed_for(env.config().seed, "replay-origin")));
  GE_ASSERT_OK(model->execute(*capturing));
  GE_ASSERT_OK(capturing->synchronize());
  GE_ASSERT_OK_AND_ASSIGN(Tensor got, pair.device->read(pair.output));
  EXPECT_EQ(compare_tensors(got, want, env.config().rtol, env.config().atol), "") << "replay on the capturing stream";
  GE_ASSERT_OK(pair.device->check_guards());
}

void task_group_update_redirects_an_output(Environment& env) {
  Result<Pair> loaded = load_pair(env, chain_candidates());
  if (!loaded.is_ok()) GTEST_SKIP() << loaded.status().message();
  Pair& pair = *loaded;
  Device& device = env.backend().device();
  const size_t last = pair.device->kernels().size() - 1;
  GE_ASSERT_OK_AND_ASSIGN(std::unique_ptr<CaptureStream> capturing, CaptureStream::create(device));
  GE_ASSERT_OK(begin_capture(*capturing, CaptureMode::kGlobal));
  TaskGroupHandle group;
  for (size_t i = 0; i <= last; ++i) {
    if (i == last) GE_ASSERT_OK(begin_task_group(*capturing));
    GE_ASSERT_OK(capturing->launch(pair.device->kernels()[i], pair.device->input_count(i), pair.device->output_count(i)));
    if (i == last) {
      GE_ASSERT_OK_AND_ASSIGN(group, end_task_group(*capturing));
    }
  }
  GE_ASSERT_OK_AND_ASSIGN(std::unique_ptr<CapturedModel> model, end_capture(*capturing));
  GE_ASSERT_OK_AND_ASSIGN(std::unique_ptr<Stream> replay, device.create_stream());
  Stream* streams[] = {replay.get()};
  GE_ASSERT_OK_AND_ASSIGN(Tensor want, pair.prepare_round(seed_for(env.config().seed, "group")));
  GE_ASSERT_OK(model->run(streams));
  GE_ASSERT_OK_AND_ASSIGN(Tensor got, pair.device->read(pair.output));
  EXPECT_EQ(compare_tensors(got, want, env.config().rtol, env.config().atol), "") << "replay before the update";

  // The last kernel now writes into another buffer; the captured output stays as poisoned.
  const size_t bytes = want.byte_size();
  GE_ASSERT_OK_AND_ASSIGN(DeviceBuffer elsewhere, DeviceBuffer::allocate(device, bytes));
  GE_ASSERT_OK(elsewhere.fill(kPoison));
  GE_ASSERT_OK_AND_ASSIGN(Tensor poison, pair.device->read(pair.output));
  std::fill_n(static_cast<std::byte*>(poison.raw_data()), bytes, kPoison);
  GE_ASSERT_OK(pair.device->write(pair.output, poison));
  std::vector<void*> outputs(pair.device->output_count(last), nullptr);
  outputs[0] = elsewhere.get();
  KernelTask redirected = pair.device->kernels()[last];
  redirected.args.outputs = outputs.data();
  const Task update[] = {redirected};
  GE_ASSERT_OK(model->update_task_group(group, update));
  GE_ASSERT_OK_AND_ASSIGN(want, pair.prepare_round(seed_for(env.config().seed, "group-updated")));
  GE_ASSERT_OK(model->run(streams));
  GE_ASSERT_OK_AND_ASSIGN(std::vector<std::byte> moved, elsewhere.read());
  const Tensor moved_tensor = Tensor::borrow(want.dtype(), want.shape(), moved.data());
  EXPECT_EQ(compare_tensors(moved_tensor, want, env.config().rtol, env.config().atol), "")
      << "the updated group's new output address";
  GE_ASSERT_OK(expect_untouched(*pair.device, pair.output, "after update_task_group moved the output elsewhere"));
}

void fork_join_replays_on_two_streams(Environment& env) {
  Result<Pair> loaded = load_pair(env, fork_join_candidates());
  if (!loaded.is_ok()) GTEST_SKIP() << loaded.status().message();
  Pair& pair = *loaded;
  Device& device = env.backend().device();
  const auto& kernels = pair.device->kernels();  // a, b, c, d
  ASSERT_EQ(kernels.size(), 4u);
  auto launch = [&](CaptureStream& stream, size_t i) {
    return stream.launch(kernels[i], pair.device->input_count(i), pair.device->output_count(i));
  };
  GE_ASSERT_OK_AND_ASSIGN(std::unique_ptr<CaptureStream> origin, CaptureStream::create(device));
  GE_ASSERT_OK_AND_ASSIGN(std::unique_ptr<CaptureStream> side, CaptureStream::create(device));
  GE_ASSERT_OK_AND_ASSIGN(std::unique_ptr<Event> fork, device.create_event());
  GE_ASSERT_OK_AND_ASSIGN(std::unique_ptr<Event> join, device.create_event());
  const Task record_fork[] = {EventRecordTask{fork.get()}}, wait_fork[] = {EventWaitTask{fork.get()}};
  const Task record_join[] = {EventRecordTask{join.get()}}, wait_join[] = {EventWaitTask{join.get()}};
  GE_ASSERT_OK(begin_capture(*origin, CaptureMode::kGlobal));
  GE_ASSERT_OK(launch(*origin, 0));
  GE_ASSERT_OK(origin->submit(record_fork));
  GE_ASSERT_OK(side->submit(wait_fork));  // joins the capture
  GE_ASSERT_OK(launch(*side, 1));
  GE_ASSERT_OK(side->submit(record_join));
  GE_ASSERT_OK(launch(*origin, 2));
  GE_ASSERT_OK(origin->submit(wait_join));
  GE_ASSERT_OK(launch(*origin, 3));
  GE_ASSERT_OK_AND_ASSIGN(std::unique_ptr<CapturedModel> model, end_capture(*origin));
  EXPECT_EQ(model->stream_count(), 2u);
  GE_ASSERT_OK(expect_untouched(*pair.device, pair.output, "while capturing"));

  GE_ASSERT_OK_AND_ASSIGN(std::unique_ptr<Stream> first, device.create_stream());
  GE_ASSERT_OK_AND_ASSIGN(std::unique_ptr<Stream> second, device.create_stream());
  Stream* two[] = {first.get(), second.get()};
  for (int round = 0; round < kRounds; ++round) {
    GE_ASSERT_OK_AND_ASSIGN(Tensor want, pair.prepare_round(seed_for(env.config().seed, "fork") + 100 * round));
    GE_ASSERT_OK(model->run(two));
    GE_ASSERT_OK_AND_ASSIGN(Tensor got, pair.device->read(pair.output));
    EXPECT_EQ(compare_tensors(got, want, env.config().rtol, env.config().atol), "")
        << "two-stream replay round " << round;
  }
  // The same model replayed on one stream (its replay events become record-then-wait).
  GE_ASSERT_OK_AND_ASSIGN(Tensor want, pair.prepare_round(seed_for(env.config().seed, "fork-one")));
  GE_ASSERT_OK(model->execute(*first));
  GE_ASSERT_OK(first->synchronize());
  GE_ASSERT_OK_AND_ASSIGN(Tensor got, pair.device->read(pair.output));
  EXPECT_EQ(compare_tensors(got, want, env.config().rtol, env.config().atol), "") << "one-stream replay";
}

}  // namespace

std::vector<TestEntry> capture_tests() {
  return {
      {"Capture", "ReplayMatchesTheReference", replay_matches_the_reference},
      {"Capture", "TaskGroupUpdateRedirectsAnOutput", task_group_update_redirects_an_output},
      {"Capture", "ForkJoinReplaysOnTwoStreams", fork_join_replays_on_two_streams},
  };
}

}  // namespace ge::backend_conformance
