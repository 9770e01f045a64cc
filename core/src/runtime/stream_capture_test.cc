// Tests of stream capture and captured models (ge/runtime/stream_capture.h).
#include "ge/runtime/stream_capture.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <array>

#include <atomic>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <thread>
#include <vector>

#include "ge/graph.h"
#include "ge/op_registry.h"
#include "ge/plugin_host.h"
#include "ge/runtime/model_runner.h"
#include "ge/testing/fake_components.h"

namespace ge {
namespace {

using testing::ElementCount;
using ::testing::HasSubstr;

/// An event that knows whether it was recorded, so a replay in a wrong order fails.
class TestEvent final : public Event {
 public:
  Status synchronize() override { return Status::ok(); }
  bool recorded = false;
};

/// A synchronous stream that runs kernels and copies, checks waits, and counts what it
/// was given.
class TestStream final : public Stream {
 public:
  Status submit(std::span<const Task> tasks) override {
    ++submits;
    largest_submit = std::max(largest_submit, tasks.size());
    for (const Task& task : tasks) {
      ++tasks_run;
      if (const auto* kernel = std::get_if<KernelTask>(&task)) {
        if (int rc = kernel->function(kernel->args)) {
          return internal_error(std::string(kernel->name) + " failed with " + std::to_string(rc));
        }
      } else if (const auto* copy = std::get_if<MemcpyTask>(&task)) {
        std::memcpy(copy->destination, copy->source, copy->bytes);
      } else if (const auto* record = std::get_if<EventRecordTask>(&task)) {
        static_cast<TestEvent*>(record->event)->recorded = true;
      } else if (const auto* wait = std::get_if<EventWaitTask>(&task)) {
        if (!static_cast<TestEvent*>(wait->event)->recorded) return internal_error("wait on an event never recorded");
      }
    }
    return Status::ok();
  }
  Status synchronize() override {
    ++synchronizes;
    return Status::ok();
  }
  int submits = 0;
  int synchronizes = 0;
  size_t tasks_run = 0;
  size_t largest_submit = 0;
};

class TestDevice final : public Device {
 public:
  std::string name() const override { return "test"; }
  bool host_accessible() const override { return true; }
  Result<void*> allocate(size_t bytes, size_t) override { return ::operator new(bytes); }
  void deallocate(void* p) override {
    ++deallocations;
    ::operator delete(p);
  }
  Status copy_to_device(void* d, const void* s, size_t n) override {
    std::memcpy(d, s, n);
    return Status::ok();
  }
  Status copy_to_host(void* d, const void* s, size_t n) override {
    std::memcpy(d, s, n);
    return Status::ok();
  }
  Result<std::unique_ptr<Stream>> create_stream() override {
    if (fail_streams) return internal_error("out of streams");
    return std::unique_ptr<Stream>(new TestStream());
  }
  bool fail_streams = false;
  Result<std::unique_ptr<Event>> create_event() override {
    ++events_created;
    return std::unique_ptr<Event>(new TestEvent());
  }
  std::atomic<int> events_created = 0;
  std::atomic<int> deallocations = 0;
  size_t queue_depth() const override { return depth; }
  size_t depth = 0;  ///< 0: unbounded
};

std::string this_thread_name() {
  std::ostringstream out;
  out << std::this_thread::get_id();
  return out.str();
}

constexpr int64_t kCount = 4;
const ElementCount kParams{kCount};

int failing_kernel(const KernelArgs&) { return 7; }

/// Buffers and argument tables for launches on kCount floats.
struct Buffer {
  std::vector<float> data = std::vector<float>(kCount, 0.0f);
  float* ptr() { return data.data(); }
};

/// A kernel task plus the address arrays it points into.
struct Launch {
  std::vector<const void*> inputs;
  std::vector<void*> outputs;
  KernelTask task;
  Launch(KernelFunction function, const char* name, std::vector<const void*> in, std::vector<void*> out)
      : inputs(std::move(in)), outputs(std::move(out)) {
    task.function = function;
    task.name = name;
    task.args.inputs = inputs.data();
    task.args.outputs = outputs.data();
    task.args.params = &kParams;
  }
  Launch(const Launch&) = delete;
};

class StreamCaptureTest : public ::testing::Test {
 protected:
  std::unique_ptr<CaptureStream> make_stream(CaptureStreamOptions options = {}) {
    auto stream = CaptureStream::create(device, options);
    EXPECT_TRUE(stream.is_ok()) << stream.status().to_string();
    return std::move(stream).value();
  }
  static TestStream& backend(CaptureStream& stream) { return static_cast<TestStream&>(stream.backend_stream()); }
  static void fill(Buffer& b, float v) { std::fill(b.data.begin(), b.data.end(), v); }
  TestDevice device;
};

// ---- state transitions -------------------------------------------------------------

TEST_F(StreamCaptureTest, BeginAndEndMoveTheStreamThroughActiveBackToNone) {
  auto stream = make_stream();
  EXPECT_EQ(capture_status(*stream), CaptureStatus::kNone);
  ASSERT_TRUE(begin_capture(*stream, CaptureMode::kGlobal));
  EXPECT_EQ(capture_status(*stream), CaptureStatus::kActive);
  auto model = end_capture(*stream);
  ASSERT_TRUE(model.is_ok()) << model.status().to_string();
  EXPECT_EQ(capture_status(*stream), CaptureStatus::kNone);
  EXPECT_EQ((*model)->task_count(), 0u);
  // A second capture on the same stream works.
  ASSERT_TRUE(begin_capture(*stream, CaptureMode::kRelaxed));
  EXPECT_TRUE(end_capture(*stream).is_ok());
  EXPECT_STREQ(capture_status_name(CaptureStatus::kInvalidated), "INVALIDATED");
  EXPECT_STREQ(capture_mode_name(CaptureMode::kThreadLocal), "THREAD_LOCAL");
  EXPECT_STREQ(capture_status_name(CaptureStatus::kCompleted), "COMPLETED");
  EXPECT_STREQ(captured_model_state_name(CapturedModelState::kFault), "FAULT");
}

TEST_F(StreamCaptureTest, WithoutCaptureSubmitsAreForwarded) {
  auto stream = make_stream();
  Buffer a, b;
  fill(a, 1);
  Launch add(testing::add_one, "add_one", {a.ptr()}, {b.ptr()});
  ASSERT_TRUE(stream->launch(add.task, 1, 1));
  EXPECT_EQ(b.data[0], 2.0f);
  const Task task = add.task;
  ASSERT_TRUE(stream->submit({&task, 1}));
  EXPECT_EQ(backend(*stream).submits, 2);
  EXPECT_TRUE(stream->synchronize());
  EXPECT_EQ(backend(*stream).synchronizes, 1);
}

// ---- capture and replay ------------------------------------------------------------

TEST_F(StreamCaptureTest, CaptureRunsNothingAndReplayMatchesEagerManyTimes) {
  auto stream = make_stream();
  Buffer a, b, c, d;
  Launch add(testing::add_one, "add_one", {a.ptr()}, {b.ptr()});
  Launch twice(testing::twice, "twice", {b.ptr()}, {c.ptr()});
  const Task copy = MemcpyTask{d.ptr(), c.ptr(), kCount * sizeof(float)};

  // Eager reference.
  fill(a, 3);
  ASSERT_TRUE(stream->launch(add.task, 1, 1));
  ASSERT_TRUE(stream->launch(twice.task, 1, 1));
  ASSERT_TRUE(stream->submit({&copy, 1}));
  const std::vector<float> eager = d.data;
  EXPECT_EQ(eager[0], 8.0f);
  fill(b, 0), fill(c, 0), fill(d, 0);
  const int submits_before = backend(*stream).submits;

  ASSERT_TRUE(begin_capture(*stream, CaptureMode::kGlobal));
  ASSERT_TRUE(stream->launch(add.task, 1, 1));
  ASSERT_TRUE(stream->launch(twice.task, 1, 1));
  ASSERT_TRUE(stream->submit({&copy, 1}));
  auto model = end_capture(*stream);
  ASSERT_TRUE(model.is_ok()) << model.status().to_string();
  // Nothing ran during the capture.
  EXPECT_EQ(backend(*stream).submits, submits_before);
  EXPECT_EQ(d.data, std::vector<float>(kCount, 0.0f));
  EXPECT_EQ(b.data, std::vector<float>(kCount, 0.0f));
  EXPECT_EQ((*model)->task_count(), 3u);
  EXPECT_EQ((*model)->stream_count(), 1u);
  EXPECT_EQ((*model)->list_count(), 1u);
  EXPECT_EQ((*model)->cascade_list_count(), 0u);
  EXPECT_EQ((*model)->event_count(), 0u);

  for (int run = 0; run < 5; ++run) {
    fill(a, 3);
    fill(d, 0);
    ASSERT_TRUE((*model)->execute(*stream));
    EXPECT_EQ(d.data, eager) << "run " << run;
  }
  // New input values flow through the same captured addresses.
  fill(a, 10);
  ASSERT_TRUE((*model)->execute(*stream));
  EXPECT_EQ(d.data[3], 22.0f);
}

/// Counts its runs and trips `trip_token` at the tenth.
std::atomic<int> counted_runs = 0;
CancellationToken* trip_token = nullptr;
int counting_kernel(const KernelArgs&) {
  if (++counted_runs == 10 && trip_token != nullptr) trip_token->cancel();
  return 0;
}

TEST_F(StreamCaptureTest, RunStopsBetweenSlicesOnceItsTokenIsTripped) {
  auto stream = make_stream();
  Buffer a, b;
  Launch count(counting_kernel, "count", {a.ptr()}, {b.ptr()});
  ASSERT_TRUE(begin_capture(*stream, CaptureMode::kGlobal));
  for (int i = 0; i < 300; ++i) ASSERT_TRUE(stream->launch(count.task, 1, 1));
  auto model = end_capture(*stream);
  ASSERT_TRUE(model.is_ok()) << model.status().to_string();
  Stream* streams[] = {stream.get()};

  CancellationToken token;
  trip_token = &token;
  counted_runs = 0;
  const Status status = (*model)->run(streams, &token);
  EXPECT_EQ(status.code(), StatusCode::kCancelled) << status.to_string();
  EXPECT_EQ(status.message(), "the run was cancelled (its CancellationToken was tripped) after 64 of its 300 tasks");
  EXPECT_EQ(counted_runs, static_cast<int>(CapturedModel::kCancellationSlice)) << "the slice the token tripped in ends";

  token.reset();
  trip_token = nullptr;
  counted_runs = 0;
  ASSERT_TRUE((*model)->run(streams, &token));
  EXPECT_EQ(counted_runs, 300);
  token.cancel();
  counted_runs = 0;
  EXPECT_EQ((*model)->run(streams, &token).message(),
            "the run was cancelled (its CancellationToken was tripped) after 0 of its 300 tasks");
  EXPECT_EQ(counted_runs, 0);
  ASSERT_TRUE((*model)->run(streams));
  EXPECT_EQ(counted_runs, 300) << "no token: the whole model";
}

TEST_F(StreamCaptureTest, ReplayRunsOnAnyStream) {
  auto stream = make_stream();
  Buffer a, b;
  Launch add(testing::add_one, "add_one", {a.ptr()}, {b.ptr()});
  ASSERT_TRUE(begin_capture(*stream, CaptureMode::kGlobal));
  ASSERT_TRUE(stream->launch(add.task, 1, 1));
  auto model = end_capture(*stream);
  ASSERT_TRUE(model.is_ok());
  TestStream other;
  fill(a, 5);
  ASSERT_TRUE((*model)->execute(other));
  EXPECT_EQ(b.data[1], 6.0f);
  EXPECT_EQ(other.submits, 1);
  // Also on a second runtime stream, through its forwarding path.
  auto second = make_stream();
  fill(a, 1);
  ASSERT_TRUE((*model)->execute(*second));
  EXPECT_EQ(b.data[1], 2.0f);
}

TEST_F(StreamCaptureTest, LaunchCopiesTheAddressArraysSoLaterChangesDoNotLeakIn) {
  auto stream = make_stream();
  Buffer a, b, other;
  Launch add(testing::add_one, "add_one", {a.ptr()}, {b.ptr()});
  ASSERT_TRUE(begin_capture(*stream, CaptureMode::kGlobal));
  ASSERT_TRUE(stream->launch(add.task, 1, 1));
  auto model = end_capture(*stream);
  ASSERT_TRUE(model.is_ok());
  add.outputs[0] = other.ptr();  // the caller reuses its argument table
  fill(a, 1);
  ASSERT_TRUE((*model)->execute(*stream));
  EXPECT_EQ(b.data[0], 2.0f);
  EXPECT_EQ(other.data[0], 0.0f);
}

TEST_F(StreamCaptureTest, SubmitBorrowsKernelAddressArrays) {
  auto stream = make_stream();
  Buffer a, b, other;
  Launch add(testing::add_one, "add_one", {a.ptr()}, {b.ptr()});
  const Task task = add.task;
  ASSERT_TRUE(begin_capture(*stream, CaptureMode::kGlobal));
  ASSERT_TRUE(stream->submit({&task, 1}));
  auto model = end_capture(*stream);
  ASSERT_TRUE(model.is_ok());
  add.outputs[0] = other.ptr();  // borrowed: the replay sees the change (address refresh)
  fill(a, 1);
  ASSERT_TRUE((*model)->execute(*stream));
  EXPECT_EQ(other.data[0], 2.0f);
  EXPECT_EQ(b.data[0], 0.0f);
}

TEST_F(StreamCaptureTest, AFailingKernelFailsTheReplay) {
  auto stream = make_stream();
  Buffer a, b;
  Launch bad(failing_kernel, "bad", {a.ptr()}, {b.ptr()});
  ASSERT_TRUE(begin_capture(*stream, CaptureMode::kGlobal));
  ASSERT_TRUE(stream->launch(bad.task, 1, 1));
  auto model = end_capture(*stream);
  ASSERT_TRUE(model.is_ok());
  Status status = (*model)->execute(*stream);
  EXPECT_EQ(status.code(), StatusCode::kInternal);
  EXPECT_EQ(status.message(),
            "CapturedModel::execute (capture " + std::to_string((*model)->capture_id()) + "): bad failed with 7");
}

// ---- cross-stream capture ----------------------------------------------------------

TEST_F(StreamCaptureTest, ForkJoinCapturesBothStreamsAndReplaysOnOneOrTwo) {
  auto s0 = make_stream();
  auto s1 = make_stream();
  Buffer a, b, c, d;
  Launch add(testing::add_one, "add_one", {a.ptr()}, {b.ptr()});
  Launch twice(testing::twice, "twice", {b.ptr()}, {c.ptr()});
  Launch sum(testing::sum2, "sum2", {b.ptr(), c.ptr()}, {d.ptr()});
  TestEvent fork, join;
  const Task record_fork = EventRecordTask{&fork}, wait_fork = EventWaitTask{&fork};
  const Task record_join = EventRecordTask{&join}, wait_join = EventWaitTask{&join};

  ASSERT_TRUE(begin_capture(*s0, CaptureMode::kGlobal));
  ASSERT_TRUE(s0->launch(add.task, 1, 1));
  ASSERT_TRUE(s0->submit({&record_fork, 1}));
  EXPECT_EQ(capture_status(*s1), CaptureStatus::kNone);
  ASSERT_TRUE(s1->submit({&wait_fork, 1}));  // joins s1 into the capture
  EXPECT_EQ(capture_status(*s1), CaptureStatus::kActive);
  ASSERT_TRUE(s1->launch(twice.task, 1, 1));
  ASSERT_TRUE(s1->submit({&record_join, 1}));
  ASSERT_TRUE(s0->submit({&wait_join, 1}));
  ASSERT_TRUE(s0->launch(sum.task, 2, 1));
  EXPECT_EQ(backend(*s0).submits + backend(*s1).submits, 0);
  EXPECT_FALSE(fork.recorded);  // the caller's events were not touched

  auto model = end_capture(*s0);
  ASSERT_TRUE(model.is_ok()) << model.status().to_string();
  EXPECT_EQ(capture_status(*s0), CaptureStatus::kNone);
  EXPECT_EQ(capture_status(*s1), CaptureStatus::kNone);
  EXPECT_EQ((*model)->stream_count(), 2u);
  EXPECT_EQ((*model)->task_count(), 7u);
  EXPECT_EQ((*model)->event_count(), 2u);
  EXPECT_EQ(device.events_created, 2);

  fill(a, 1);  // b = 2, c = 4, d = 6
  ASSERT_TRUE((*model)->execute(*s0));
  EXPECT_EQ(d.data, std::vector<float>(kCount, 6.0f));

  TestStream r0, r1;
  Stream* streams[] = {&r0, &r1};
  fill(a, 2), fill(d, 0);  // b = 3, c = 6, d = 9
  ASSERT_TRUE((*model)->execute(streams));
  EXPECT_EQ(d.data, std::vector<float>(kCount, 9.0f));
  EXPECT_EQ(r0.tasks_run, 4u);
  EXPECT_EQ(r1.tasks_run, 3u);

  Stream* one[] = {&r0};
  Status wrong = (*model)->execute(one);
  EXPECT_EQ(wrong.message(), "CapturedModel::execute: the model captured 2 stream(s) but 1 were given");
  Stream* null_streams[] = {&r0, nullptr};
  EXPECT_EQ((*model)->execute(null_streams).message(), "CapturedModel::execute: stream 1 is null");

  // Streams are free again: eager work runs.
  fill(a, 0);
  ASSERT_TRUE(s1->launch(add.task, 1, 1));
  EXPECT_EQ(b.data[0], 1.0f);
}

TEST_F(StreamCaptureTest, UnjoinedWorkFailsEndCaptureAndEndsIt) {
  auto s0 = make_stream();
  auto s1 = make_stream();
  Buffer a, b;
  Launch add(testing::add_one, "add_one", {a.ptr()}, {b.ptr()});
  TestEvent fork;
  const Task record = EventRecordTask{&fork}, wait = EventWaitTask{&fork};
  ASSERT_TRUE(begin_capture(*s0, CaptureMode::kGlobal));
  ASSERT_TRUE(s0->submit({&record, 1}));
  ASSERT_TRUE(s1->submit({&wait, 1}));
  ASSERT_TRUE(s1->launch(add.task, 1, 1));
  auto model = end_capture(*s0);
  ASSERT_FALSE(model.is_ok());
  EXPECT_EQ(model.status().message(),
            "end_capture: unjoined work: captured stream 1 has 2 task(s) the origin stream does not wait on; record "
            "an event on that stream after its last task and wait on it on the origin stream before end_capture");
  EXPECT_EQ(capture_status(*s0), CaptureStatus::kNone);
  EXPECT_EQ(capture_status(*s1), CaptureStatus::kNone);
}

TEST_F(StreamCaptureTest, WorkAfterTheJoinPointIsUnjoinedToo) {
  auto s0 = make_stream();
  auto s1 = make_stream();
  Buffer a, b;
  Launch add(testing::add_one, "add_one", {a.ptr()}, {b.ptr()});
  TestEvent fork, join;
  const Task records[] = {EventRecordTask{&fork}};
  const Task s1_tasks[] = {EventWaitTask{&fork}, EventRecordTask{&join}};
  const Task s0_wait[] = {EventWaitTask{&join}};
  ASSERT_TRUE(begin_capture(*s0, CaptureMode::kGlobal));
  ASSERT_TRUE(s0->submit(records));
  ASSERT_TRUE(s1->submit(s1_tasks));
  ASSERT_TRUE(s0->submit(s0_wait));
  ASSERT_TRUE(s1->launch(add.task, 1, 1));  // after the join
  auto model = end_capture(*s0);
  ASSERT_FALSE(model.is_ok());
  EXPECT_THAT(model.status().message(),
              HasSubstr("captured stream 1 has 1 task(s) the origin stream does not wait on"));
}

TEST_F(StreamCaptureTest, EagerTasksBeforeAJoiningWaitInOneSubmitStillRun) {
  auto s0 = make_stream();
  auto s1 = make_stream();
  Buffer a, b, c;
  Launch add(testing::add_one, "add_one", {a.ptr()}, {b.ptr()});
  Launch twice(testing::twice, "twice", {b.ptr()}, {c.ptr()});
  TestEvent fork, join;
  const Task s0_record[] = {EventRecordTask{&fork}};
  ASSERT_TRUE(begin_capture(*s0, CaptureMode::kGlobal));
  ASSERT_TRUE(s0->submit(s0_record));
  fill(a, 1);
  const Task s1_tasks[] = {add.task, EventWaitTask{&fork}, twice.task, EventRecordTask{&join}};
  ASSERT_TRUE(s1->submit(s1_tasks));
  EXPECT_EQ(b.data[0], 2.0f);  // ran eagerly
  EXPECT_EQ(c.data[0], 0.0f);  // captured
  const Task s0_wait[] = {EventWaitTask{&join}};
  ASSERT_TRUE(s0->submit(s0_wait));
  auto model = end_capture(*s0);
  ASSERT_TRUE(model.is_ok()) << model.status().to_string();
  EXPECT_EQ((*model)->task_count(), 5u);
  ASSERT_TRUE((*model)->execute(*s0));
  EXPECT_EQ(c.data[0], 4.0f);
}

TEST_F(StreamCaptureTest, EndCaptureOnAJoinedStreamIsTheWrongStream) {
  auto s0 = make_stream();
  auto s1 = make_stream();
  TestEvent fork, join;
  const Task record_fork[] = {EventRecordTask{&fork}};
  const Task s1_tasks[] = {EventWaitTask{&fork}, EventRecordTask{&join}};
  const Task wait_join[] = {EventWaitTask{&join}};
  ASSERT_TRUE(begin_capture(*s0, CaptureMode::kGlobal));
  ASSERT_TRUE(s0->submit(record_fork));
  ASSERT_TRUE(s1->submit(s1_tasks));
  auto wrong = end_capture(*s1);
  ASSERT_FALSE(wrong.is_ok());
  EXPECT_THAT(wrong.status().message(), HasSubstr("end_capture: the stream joined capture "));
  EXPECT_THAT(wrong.status().message(), HasSubstr(" begun on another stream; call end_capture on that origin stream"));
  EXPECT_EQ(capture_status(*s1), CaptureStatus::kActive);
  Status begin = begin_capture(*s1, CaptureMode::kGlobal);
  EXPECT_THAT(begin.message(), HasSubstr("(status ACTIVE, joined); end that capture first"));
  ASSERT_TRUE(s0->submit(wait_join));
  EXPECT_TRUE(end_capture(*s0).is_ok());
}

TEST_F(StreamCaptureTest, WaitingOnAnEventFromOutsideTheCaptureInvalidatesIt) {
  auto stream = make_stream();
  TestEvent outside;
  const Task record[] = {EventRecordTask{&outside}};
  ASSERT_TRUE(stream->submit(record));  // eager record before the capture
  ASSERT_TRUE(begin_capture(*stream, CaptureMode::kGlobal));
  const Task wait[] = {EventWaitTask{&outside}};
  Status status = stream->submit(wait);
  EXPECT_THAT(status.message(), HasSubstr("was invalidated (captured stream 0 waited on an event whose latest record "
                                          "is not part of this capture (capture isolation))"));
  EXPECT_EQ(capture_status(*stream), CaptureStatus::kInvalidated);
  auto model = end_capture(*stream);
  ASSERT_FALSE(model.is_ok());
  EXPECT_THAT(model.status().message(), HasSubstr("capture isolation"));
  EXPECT_EQ(capture_status(*stream), CaptureStatus::kNone);
}

TEST_F(StreamCaptureTest, AnEagerReRecordTakesTheEventOutOfTheCapture) {
  auto s0 = make_stream();
  auto s1 = make_stream();
  TestEvent event;
  const Task record[] = {EventRecordTask{&event}};
  const Task wait[] = {EventWaitTask{&event}};
  ASSERT_TRUE(begin_capture(*s0, CaptureMode::kGlobal));
  ASSERT_TRUE(s0->submit(record));
  ASSERT_TRUE(s1->submit(record));  // eager: the latest record is outside the capture
  EXPECT_FALSE(s0->submit(wait).is_ok());
  EXPECT_EQ(capture_status(*s0), CaptureStatus::kInvalidated);
  EXPECT_EQ(capture_status(*s1), CaptureStatus::kNone);
  EXPECT_FALSE(end_capture(*s0).is_ok());
}

TEST_F(StreamCaptureTest, DestroyingAJoinedStreamInvalidatesAndDestroyingTheOriginEndsTheCapture) {
  auto s0 = make_stream();
  auto s1 = make_stream();
  TestEvent fork;
  const Task record[] = {EventRecordTask{&fork}};
  const Task wait[] = {EventWaitTask{&fork}};
  ASSERT_TRUE(begin_capture(*s0, CaptureMode::kGlobal));
  ASSERT_TRUE(s0->submit(record));
  ASSERT_TRUE(s1->submit(wait));
  s1.reset();
  EXPECT_EQ(capture_status(*s0), CaptureStatus::kInvalidated);
  auto model = end_capture(*s0);
  EXPECT_THAT(model.status().message(), HasSubstr("joined stream 1 was destroyed during the capture"));

  auto s2 = make_stream();
  ASSERT_TRUE(begin_capture(*s0, CaptureMode::kGlobal));
  ASSERT_TRUE(s0->submit(record));
  ASSERT_TRUE(s2->submit(wait));
  s0.reset();
  EXPECT_EQ(capture_status(*s2), CaptureStatus::kNone);
}

// ---- queue depth -------------------------------------------------------------------

TEST_F(StreamCaptureTest, ExceedingTheQueueDepthContinuesOnCascadeLists) {
  CaptureStreamOptions options;
  options.queue_depth = kCaptureReservedTasks + 2;  // two tasks per list beside the headroom
  auto stream = make_stream(options);
  Buffer b0, b1, b2, b3, b4, b5;
  Buffer* chain[] = {&b0, &b1, &b2, &b3, &b4, &b5};
  std::vector<std::unique_ptr<Launch>> launches;
  for (int i = 0; i < 5; ++i) {
    launches.push_back(std::make_unique<Launch>(testing::add_one, "add_one", std::vector<const void*>{chain[i]->ptr()},
                                                std::vector<void*>{chain[i + 1]->ptr()}));
  }
  ASSERT_TRUE(begin_capture(*stream, CaptureMode::kGlobal));
  for (auto& launch : launches) ASSERT_TRUE(stream->launch(launch->task, 1, 1));
  auto model = end_capture(*stream);
  ASSERT_TRUE(model.is_ok());
  EXPECT_EQ((*model)->task_count(), 5u);
  EXPECT_EQ((*model)->list_count(), 3u);  // 2 + 2 + 1
  EXPECT_EQ((*model)->cascade_list_count(), 2u);
  fill(b0, 1);
  TestStream replay;
  ASSERT_TRUE((*model)->execute(replay));
  EXPECT_EQ(b5.data, std::vector<float>(kCount, 6.0f));
  EXPECT_EQ(replay.submits, 3);
  EXPECT_EQ(replay.largest_submit, 2u);
}

TEST_F(StreamCaptureTest, ACascadeOnAJoinedStreamKeepsTheOrder) {
  CaptureStreamOptions options;
  options.queue_depth = kCaptureReservedTasks + 1;
  auto s0 = make_stream(options);
  auto s1 = make_stream(options);
  Buffer a, b, c;
  Launch add(testing::add_one, "add_one", {a.ptr()}, {b.ptr()});
  Launch twice(testing::twice, "twice", {b.ptr()}, {c.ptr()});
  TestEvent fork, join;
  const Task record_fork[] = {EventRecordTask{&fork}};
  const Task s1_tasks[] = {EventWaitTask{&fork}, add.task, EventRecordTask{&join}};
  const Task wait_join[] = {EventWaitTask{&join}};
  ASSERT_TRUE(begin_capture(*s0, CaptureMode::kGlobal));
  ASSERT_TRUE(s0->submit(record_fork));
  ASSERT_TRUE(s1->submit(s1_tasks));
  ASSERT_TRUE(s0->submit(wait_join));
  ASSERT_TRUE(s0->launch(twice.task, 1, 1));
  auto model = end_capture(*s0);
  ASSERT_TRUE(model.is_ok()) << model.status().to_string();
  EXPECT_EQ((*model)->list_count(), 6u);
  EXPECT_EQ((*model)->cascade_list_count(), 4u);
  TestStream r0, r1;
  Stream* streams[] = {&r0, &r1};
  fill(a, 1);
  ASSERT_TRUE((*model)->execute(streams));
  EXPECT_EQ(c.data[0], 4.0f);
  EXPECT_EQ(r0.largest_submit, 1u);
  EXPECT_EQ(r1.largest_submit, 1u);
}

// ---- modes -------------------------------------------------------------------------

TEST_F(StreamCaptureTest, GlobalSynchronizeOnTheCapturingThreadInvalidates) {
  auto stream = make_stream();
  Buffer a, b;
  Launch add(testing::add_one, "add_one", {a.ptr()}, {b.ptr()});
  ASSERT_TRUE(begin_capture(*stream, CaptureMode::kGlobal));
  const std::string id = std::to_string(capture_info(*stream).capture_id);
  ASSERT_TRUE(stream->launch(add.task, 1, 1));
  Status sync = stream->synchronize();
  EXPECT_EQ(sync.message(), "synchronize(): not allowed on thread " + this_thread_name() +
                                " (capture mode GLOBAL): GLOBAL capture " + id +
                                " begun on this thread forbids potentially unsafe calls on its own thread; the capture "
                                "is invalidated. Make the call outside the capture, capture in RELAXED mode, or "
                                "exchange_capture_mode(kRelaxed) on this thread around the call");
  EXPECT_EQ(backend(*stream).synchronizes, 0);
  EXPECT_EQ(capture_status(*stream), CaptureStatus::kInvalidated);
  // Further work on the invalidated stream fails and records nothing.
  Status submit = stream->launch(add.task, 1, 1);
  EXPECT_THAT(submit.message(), HasSubstr("submit: the stream capture "));
  EXPECT_THAT(submit.message(), HasSubstr("call end_capture on its origin stream to end it"));
  EXPECT_THAT(stream->synchronize().message(), HasSubstr("synchronize(): the stream capture "));
  auto model = end_capture(*stream);
  ASSERT_FALSE(model.is_ok());
  EXPECT_THAT(model.status().message(), HasSubstr("was invalidated: synchronize() was called on thread " +
                                                  this_thread_name() + " (capture mode GLOBAL) during GLOBAL capture " +
                                                  id + " begun on thread " + this_thread_name() +
                                                  ", which forbids it there"));
  EXPECT_THAT(model.status().message(), HasSubstr("; no model was built"));
  EXPECT_EQ(capture_status(*stream), CaptureStatus::kNone);
  EXPECT_TRUE(stream->synchronize());
}

TEST_F(StreamCaptureTest, GlobalSynchronizeFromAnotherThreadInvalidates) {
  auto stream = make_stream();
  ASSERT_TRUE(begin_capture(*stream, CaptureMode::kGlobal));
  Status sync;
  std::thread([&] { sync = stream->synchronize(); }).join();
  EXPECT_FALSE(sync.is_ok());
  EXPECT_EQ(capture_status(*stream), CaptureStatus::kInvalidated);
  EXPECT_FALSE(end_capture(*stream).is_ok());
}

TEST_F(StreamCaptureTest, ThreadLocalOnlyForbidsTheCapturingThread) {
  auto stream = make_stream();
  Buffer a, b;
  Launch add(testing::add_one, "add_one", {a.ptr()}, {b.ptr()});
  ASSERT_TRUE(begin_capture(*stream, CaptureMode::kThreadLocal));
  ASSERT_TRUE(stream->launch(add.task, 1, 1));
  Status other_sync;
  std::thread([&] { other_sync = stream->synchronize(); }).join();
  EXPECT_TRUE(other_sync) << other_sync.to_string();
  EXPECT_EQ(backend(*stream).synchronizes, 1);
  EXPECT_EQ(b.data[0], 0.0f);  // nothing captured ran
  EXPECT_EQ(capture_status(*stream), CaptureStatus::kActive);

  Status own = stream->synchronize();
  EXPECT_THAT(own.message(), HasSubstr("THREAD_LOCAL capture "));
  EXPECT_THAT(own.message(), HasSubstr(" begun on this thread forbids potentially unsafe calls on its own thread"));
  EXPECT_EQ(capture_status(*stream), CaptureStatus::kInvalidated);
  EXPECT_FALSE(end_capture(*stream).is_ok());
}

TEST_F(StreamCaptureTest, ThreadLocalCaptureSurvivesAndReplaysAfterOtherThreadsSync) {
  auto stream = make_stream();
  Buffer a, b;
  Launch add(testing::add_one, "add_one", {a.ptr()}, {b.ptr()});
  ASSERT_TRUE(begin_capture(*stream, CaptureMode::kThreadLocal));
  ASSERT_TRUE(stream->launch(add.task, 1, 1));
  std::thread([&] { EXPECT_TRUE(stream->synchronize()); }).join();
  auto model = end_capture(*stream);
  ASSERT_TRUE(model.is_ok()) << model.status().to_string();
  EXPECT_EQ((*model)->task_count(), 1u);
}

TEST_F(StreamCaptureTest, RelaxedNeverInvalidates) {
  auto stream = make_stream();
  Buffer a, b, c;
  Launch add(testing::add_one, "add_one", {a.ptr()}, {b.ptr()});
  ASSERT_TRUE(begin_capture(*stream, CaptureMode::kRelaxed));
  ASSERT_TRUE(stream->launch(add.task, 1, 1));
  fill(a, 1);
  EXPECT_TRUE(stream->synchronize());
  std::thread([&] { EXPECT_TRUE(stream->synchronize()); }).join();
  EXPECT_EQ(b.data[0], 0.0f);  // the sync ran nothing captured
  // A synchronous copy is done at once and not captured.
  ASSERT_TRUE(stream->copy_sync(c.ptr(), a.ptr(), kCount * sizeof(float)));
  EXPECT_EQ(c.data[0], 1.0f);
  EXPECT_EQ(capture_status(*stream), CaptureStatus::kActive);
  auto model = end_capture(*stream);
  ASSERT_TRUE(model.is_ok());
  EXPECT_EQ((*model)->task_count(), 1u);
  ASSERT_TRUE((*model)->execute(*stream));
  EXPECT_EQ(b.data[0], 2.0f);
}

TEST_F(StreamCaptureTest, SynchronousCopyFollowsTheModeRules) {
  auto stream = make_stream();
  Buffer a, c;
  fill(a, 3);
  ASSERT_TRUE(stream->copy_sync(c.ptr(), a.ptr(), kCount * sizeof(float)));  // eager
  EXPECT_EQ(c.data[0], 3.0f);
  fill(c, 0);
  ASSERT_TRUE(begin_capture(*stream, CaptureMode::kGlobal));
  Status copy = stream->copy_sync(c.ptr(), a.ptr(), kCount * sizeof(float));
  EXPECT_THAT(copy.message(), HasSubstr("copy_sync(): not allowed on thread "));
  EXPECT_THAT(copy.message(), HasSubstr("GLOBAL capture "));
  EXPECT_EQ(c.data[0], 0.0f);
  EXPECT_EQ(capture_status(*stream), CaptureStatus::kInvalidated);
  auto model = end_capture(*stream);
  EXPECT_THAT(model.status().message(), HasSubstr("copy_sync() was called on thread "));
}

TEST_F(StreamCaptureTest, SynchronousCallsOnStreamsOutsideTheCaptureDoNotAffectIt) {
  auto captured = make_stream();
  auto other = make_stream();
  ASSERT_TRUE(begin_capture(*captured, CaptureMode::kGlobal));
  EXPECT_TRUE(other->synchronize());
  std::thread([&] { EXPECT_TRUE(other->synchronize()); }).join();
  EXPECT_EQ(capture_status(*captured), CaptureStatus::kActive);
  EXPECT_TRUE(end_capture(*captured).is_ok());
}

TEST_F(StreamCaptureTest, GlobalSynchronizeOnAJoinedStreamInvalidatesTheWholeCapture) {
  auto s0 = make_stream();
  auto s1 = make_stream();
  TestEvent fork;
  const Task record[] = {EventRecordTask{&fork}};
  const Task wait[] = {EventWaitTask{&fork}};
  ASSERT_TRUE(begin_capture(*s0, CaptureMode::kGlobal));
  ASSERT_TRUE(s0->submit(record));
  ASSERT_TRUE(s1->submit(wait));
  EXPECT_FALSE(s1->synchronize().is_ok());
  EXPECT_EQ(capture_status(*s0), CaptureStatus::kInvalidated);
  EXPECT_EQ(capture_status(*s1), CaptureStatus::kInvalidated);
  EXPECT_FALSE(end_capture(*s0).is_ok());
  EXPECT_EQ(capture_status(*s1), CaptureStatus::kNone);
}

// ---- task groups -------------------------------------------------------------------

TEST_F(StreamCaptureTest, UpdatingATaskGroupChangesTheReplayResults) {
  auto stream = make_stream();
  Buffer a, a2, b, c, d;
  Launch add(testing::add_one, "add_one", {a.ptr()}, {b.ptr()});
  Launch twice(testing::twice, "twice", {b.ptr()}, {c.ptr()});
  const Task copy = MemcpyTask{d.ptr(), c.ptr(), kCount * sizeof(float)};
  ASSERT_TRUE(begin_capture(*stream, CaptureMode::kGlobal));
  ASSERT_TRUE(begin_task_group(*stream));
  ASSERT_TRUE(stream->launch(add.task, 1, 1));
  ASSERT_TRUE(stream->submit({&copy, 1}));
  auto group = end_task_group(*stream);
  ASSERT_TRUE(group.is_ok()) << group.status().to_string();
  ASSERT_TRUE(stream->launch(twice.task, 1, 1));
  auto model = end_capture(*stream);
  ASSERT_TRUE(model.is_ok()) << model.status().to_string();
  EXPECT_EQ((*model)->task_group_count(), 1u);

  fill(a, 1), fill(a2, 10);
  ASSERT_TRUE((*model)->execute(*stream));
  EXPECT_EQ(c.data[0], 4.0f);
  EXPECT_EQ(d.data[0], 0.0f);  // the copy ran before twice

  // Relaunch the same kinds with new arguments: read a2, copy b instead of c.
  Launch add2(testing::add_one, "add_one", {a2.ptr()}, {b.ptr()});
  const Task update[] = {add2.task, MemcpyTask{d.ptr(), b.ptr(), kCount * sizeof(float)}};
  ASSERT_TRUE((*model)->update_task_group(*group, update));
  add2.inputs[0] = a.ptr();  // the update copied the arrays too
  ASSERT_TRUE((*model)->execute(*stream));
  EXPECT_EQ(c.data[0], 22.0f);
  EXPECT_EQ(d.data[0], 11.0f);
}

TEST_F(StreamCaptureTest, TaskGroupUpdateErrors) {
  auto stream = make_stream();
  Buffer a, b;
  Launch add(testing::add_one, "add_one", {a.ptr()}, {b.ptr()});
  Launch twice(testing::twice, "twice", {a.ptr()}, {b.ptr()});
  ASSERT_TRUE(begin_capture(*stream, CaptureMode::kGlobal));
  ASSERT_TRUE(begin_task_group(*stream));
  ASSERT_TRUE(stream->launch(add.task, 1, 1));
  auto group = end_task_group(*stream);
  ASSERT_TRUE(group.is_ok());
  auto model = end_capture(*stream);
  ASSERT_TRUE(model.is_ok());
  CapturedModel& m = **model;
  const std::string id = std::to_string(m.capture_id());

  const Task two[] = {add.task, add.task};
  EXPECT_EQ(m.update_task_group(*group, two).message(),
            "update_task_group: task group 0 has 1 task(s) but the update gives 2");
  const Task memcpy_task[] = {MemcpyTask{}};
  EXPECT_EQ(m.update_task_group(*group, memcpy_task).message(),
            "update_task_group: task 0 of task group 0 is a kernel launch but the update gives a memcpy");
  const Task other_kernel[] = {twice.task};
  EXPECT_EQ(m.update_task_group(*group, other_kernel).message(),
            "update_task_group: task 0 of task group 0 launches kernel 'add_one' but the update launches a "
            "different kernel function ('twice')");
  KernelTask null_arrays = add.task;
  null_arrays.args.inputs = nullptr;
  const Task null_task[] = {null_arrays};
  EXPECT_EQ(m.update_task_group(*group, null_task).message(),
            "update_task_group: task 0 of task group 0 (kernel 'add_one') has a null address array in the update");
  const Task one[] = {add.task};
  EXPECT_EQ(m.update_task_group(TaskGroupHandle{}, one).message(),
            "update_task_group: invalid handle (not returned by end_task_group)");
  EXPECT_EQ(m.update_task_group(TaskGroupHandle{group->capture_id, 3}, one).message(),
            "update_task_group: the handle names task group 3 but the model has 1");
  EXPECT_EQ(m.update_task_group(TaskGroupHandle{group->capture_id + 1000, 0}, one).message(),
            "update_task_group: the handle belongs to capture " + std::to_string(group->capture_id + 1000) +
                ", not to this model (capture " + id + ")");
  // A failed update changed nothing: the model stays READY.
  EXPECT_EQ(m.state(), CapturedModelState::kReady);
  fill(a, 1);
  ASSERT_TRUE(m.execute(*stream));
  EXPECT_EQ(b.data[0], 2.0f);
}

TEST_F(StreamCaptureTest, TaskGroupStateErrors) {
  auto stream = make_stream();
  Buffer a, b;
  Launch add(testing::add_one, "add_one", {a.ptr()}, {b.ptr()});
  EXPECT_EQ(begin_task_group(*stream).message(), "begin_task_group: the stream is not capturing (status NONE)");
  EXPECT_EQ(end_task_group(*stream).status().message(), "end_task_group: the stream is not capturing (status NONE)");
  ASSERT_TRUE(begin_capture(*stream, CaptureMode::kGlobal));
  EXPECT_EQ(end_task_group(*stream).status().message(),
            "end_task_group: the stream has no open task group; call begin_task_group first");
  ASSERT_TRUE(begin_task_group(*stream));
  EXPECT_EQ(begin_task_group(*stream).message(),
            "begin_task_group: the stream already has an open task group; call end_task_group first");
  EXPECT_EQ(end_task_group(*stream).status().message(),
            "end_task_group: task group 0 recorded no task; launch its tasks between begin_task_group and "
            "end_task_group");
  ASSERT_TRUE(begin_task_group(*stream));
  ASSERT_TRUE(stream->launch(add.task, 1, 1));
  auto model = end_capture(*stream);  // the group is still open
  ASSERT_FALSE(model.is_ok());
  EXPECT_EQ(model.status().message(),
            "end_capture: captured stream 0 still has an open task group; call end_task_group before end_capture");
  EXPECT_EQ(capture_status(*stream), CaptureStatus::kNone);
}

TEST_F(StreamCaptureTest, TaskGroupCallsOnAnInvalidatedCaptureFail) {
  auto stream = make_stream();
  ASSERT_TRUE(begin_capture(*stream, CaptureMode::kGlobal));
  ASSERT_TRUE(begin_task_group(*stream));
  EXPECT_FALSE(stream->synchronize().is_ok());
  EXPECT_THAT(end_task_group(*stream).status().message(), HasSubstr("end_task_group: the stream capture "));
  EXPECT_THAT(begin_task_group(*stream).message(), HasSubstr("begin_task_group: the stream capture "));
  EXPECT_FALSE(end_capture(*stream).is_ok());
}

// ---- other errors ------------------------------------------------------------------

TEST_F(StreamCaptureTest, StateErrors) {
  auto stream = make_stream();
  auto end = end_capture(*stream);
  EXPECT_EQ(end.status().message(), "end_capture: the stream is not capturing (status NONE); call begin_capture first");
  EXPECT_EQ(begin_capture(*stream, static_cast<CaptureMode>(9)).message(), "begin_capture: unknown capture mode 9");
  ASSERT_TRUE(begin_capture(*stream, CaptureMode::kGlobal));
  Status twice = begin_capture(*stream, CaptureMode::kGlobal);
  EXPECT_EQ(twice.code(), StatusCode::kInvalidArgument);
  EXPECT_THAT(twice.message(), HasSubstr("begin_capture: the stream already takes part in capture "));
  EXPECT_THAT(twice.message(), HasSubstr("(status ACTIVE, its origin); end that capture first"));
  EXPECT_EQ(capture_status(*stream), CaptureStatus::kActive);

  KernelTask no_function;
  no_function.name = "broken";
  EXPECT_EQ(stream->launch(no_function, 0, 0).message(),
            "submit: kernel task 'broken' has no function; nothing was recorded");
  Buffer b;
  Launch null_inputs(testing::add_one, "add_one", {}, {b.ptr()});
  null_inputs.task.args.inputs = nullptr;
  EXPECT_EQ(stream->launch(null_inputs.task, 1, 1).message(),
            "launch: kernel 'add_one' declares inputs or outputs but its args hold a null address array");
  const Task null_record[] = {EventRecordTask{nullptr}};
  EXPECT_EQ(stream->submit(null_record).message(),
            "submit: an event record task has a null event; nothing was recorded");
  const Task null_wait[] = {EventWaitTask{nullptr}};
  EXPECT_EQ(stream->submit(null_wait).message(), "submit: an event wait task has a null event; nothing was recorded");
  EXPECT_EQ(capture_status(*stream), CaptureStatus::kActive);

  auto model = end_capture(*stream);
  ASSERT_TRUE(model.is_ok());
  EXPECT_EQ((*model)->task_count(), 0u);
  EXPECT_EQ((*model)->execute(*stream).message(),
            "CapturedModel::execute: the model is empty (its capture recorded no task); nothing to replay");
  Stream* streams[] = {stream.get()};
  EXPECT_EQ((*model)->execute(streams).message(),
            "CapturedModel::execute: the model is empty (its capture recorded no task); nothing to replay");
}

TEST_F(StreamCaptureTest, EndCaptureFailsWhenTheDeviceCannotCreateReplayEvents) {
  testing::FakeDevice fake;  // create_event is unsupported
  auto stream = CaptureStream::create(fake);
  ASSERT_TRUE(stream.is_ok());
  TestEvent event;
  const Task tasks[] = {EventRecordTask{&event}, EventWaitTask{&event}};
  ASSERT_TRUE(begin_capture(**stream, CaptureMode::kGlobal));
  ASSERT_TRUE((*stream)->submit(tasks));
  auto model = end_capture(**stream);
  ASSERT_FALSE(model.is_ok());
  EXPECT_EQ(model.status().code(), StatusCode::kUnsupported);
  EXPECT_EQ(model.status().message(), "end_capture: creating the replay events on device 'fake': no events");
  EXPECT_EQ(capture_status(**stream), CaptureStatus::kNone);
  // Without events the fake device captures fine.
  ASSERT_TRUE(begin_capture(**stream, CaptureMode::kGlobal));
  EXPECT_TRUE(end_capture(**stream).is_ok());
}

TEST_F(StreamCaptureTest, CapturesOnDifferentStreamsAreIndependent) {
  auto s0 = make_stream();
  auto s1 = make_stream();
  Buffer a, b, c;
  Launch add(testing::add_one, "add_one", {a.ptr()}, {b.ptr()});
  Launch twice(testing::twice, "twice", {a.ptr()}, {c.ptr()});
  ASSERT_TRUE(begin_capture(*s0, CaptureMode::kGlobal));
  std::thread([&] {
    ASSERT_TRUE(begin_capture(*s1, CaptureMode::kThreadLocal));
    ASSERT_TRUE(s1->launch(twice.task, 1, 1));
    auto model = end_capture(*s1);
    ASSERT_TRUE(model.is_ok());
    EXPECT_EQ((*model)->task_count(), 1u);
  }).join();
  ASSERT_TRUE(s0->launch(add.task, 1, 1));
  auto model = end_capture(*s0);
  ASSERT_TRUE(model.is_ok());
  EXPECT_EQ((*model)->task_count(), 1u);
  EXPECT_NE((*model)->capture_id(), 0u);
}

TEST_F(StreamCaptureTest, ConcurrentCapturesAndReplaysOnSeparateStreams) {
  constexpr int kThreads = 4;
  std::vector<std::thread> threads;
  std::vector<float> results(kThreads, 0.0f);
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      auto stream = make_stream();
      Buffer a, b;
      Launch add(testing::add_one, "add_one", {a.ptr()}, {b.ptr()});
      TestEvent event;
      const Task events[] = {EventRecordTask{&event}, EventWaitTask{&event}};
      for (int round = 0; round < 20; ++round) {
        if (!begin_capture(*stream, t % 2 == 0 ? CaptureMode::kThreadLocal : CaptureMode::kRelaxed)) return;
        if (!stream->launch(add.task, 1, 1) || !stream->submit(events)) return;
        auto model = end_capture(*stream);
        if (!model) return;
        fill(a, static_cast<float>(t));
        if (!(*model)->execute(*stream)) return;
      }
      results[t] = b.data[0];
    });
  }
  for (auto& thread : threads) thread.join();
  for (int t = 0; t < kThreads; ++t) EXPECT_EQ(results[t], t + 1.0f) << "thread " << t;
}

// ---- ModelRunner's sunk task lists -------------------------------------------------

TEST_F(StreamCaptureTest, CapturesModelRunnerTaskListsAndReplaysThem) {
  OpRegistry ops;
  ops.add_library(std::make_shared<testing::FakeOps>());
  testing::FakeBackend fake_backend;
  Graph graph;
  Value* x = graph.add_input("x", TensorDesc(DataType::kFloat32, {Dim::of(3)}));
  Value* w = graph.add_initializer("w", Tensor::from_vector<float>({3}, {10, 20, 30}));
  Node* a = graph.add_node("AddOne", {x}, 1, "a");
  Node* b = graph.add_node("Twice", {a->output(0)}, 1, "b");
  Node* c = graph.add_node("Sum2", {b->output(0), w}, 1, "c", {"y"});
  graph.add_output(c->output(0));
  ASSERT_TRUE(ops.infer_graph(graph).is_ok());
  auto runner = ModelRunner::load(graph, fake_backend);
  ASSERT_TRUE(runner.is_ok()) << runner.status().to_string();

  // Bind the I/O slots of the runner's argument tables to our buffers once (aligned for
  // zero copy: a misaligned buffer would be copied, and the slots hold the runner's copy).
  alignas(kZeroCopyAlignment) std::array<float, 3> input = {1, 2, 3}, output = {};
  const void* inputs[] = {input.data()};
  void* outputs[] = {output.data()};
  ASSERT_TRUE((*runner)->execute_bound(inputs, outputs));
  EXPECT_TRUE((*runner)->copied_io().empty());
  EXPECT_EQ(output, (std::array<float, 3>{14, 26, 38}));

  auto stream = make_stream();
  ASSERT_TRUE(begin_capture(*stream, CaptureMode::kGlobal));
  for (const auto& tasks : (*runner)->stream_tasks()) ASSERT_TRUE(stream->submit(tasks));
  auto model = end_capture(*stream);
  ASSERT_TRUE(model.is_ok()) << model.status().to_string();
  EXPECT_GE((*model)->task_count(), 3u);
  for (float base : {0.0f, 5.0f}) {
    input = {base, base, base};
    std::fill(output.begin(), output.end(), 0.0f);
    ASSERT_TRUE((*model)->execute(*stream));
    EXPECT_EQ(output, (std::array<float, 3>{2 * (base + 1) + 10, 2 * (base + 1) + 20, 2 * (base + 1) + 30}));
  }
}

TEST_F(StreamCaptureTest, CreateFailsWhenTheDeviceCannotCreateAStream) {
  device.fail_streams = true;
  auto stream = CaptureStream::create(device);
  ASSERT_FALSE(stream.is_ok());
  EXPECT_EQ(stream.status().code(), StatusCode::kInternal);
  EXPECT_EQ(stream.status().message(), "CaptureStream::create on device 'test': out of streams");
}

TEST_F(StreamCaptureTest, BeginCaptureOnAnInvalidatedStreamFails) {
  auto stream = make_stream();
  ASSERT_TRUE(begin_capture(*stream, CaptureMode::kGlobal));
  EXPECT_FALSE(stream->synchronize().is_ok());
  EXPECT_THAT(begin_capture(*stream, CaptureMode::kGlobal).message(),
              HasSubstr("(status INVALIDATED, its origin); end that capture first"));
  EXPECT_FALSE(end_capture(*stream).is_ok());
  EXPECT_TRUE(begin_capture(*stream, CaptureMode::kGlobal));
  EXPECT_TRUE(end_capture(*stream).is_ok());
}

TEST_F(StreamCaptureTest, WaitingOnAnEventOfAnotherCaptureInvalidatesOnlyTheWaiter) {
  auto s0 = make_stream();
  auto s1 = make_stream();
  TestEvent event;
  const Task record[] = {EventRecordTask{&event}};
  const Task wait[] = {EventWaitTask{&event}};
  ASSERT_TRUE(begin_capture(*s0, CaptureMode::kGlobal));
  ASSERT_TRUE(begin_capture(*s1, CaptureMode::kGlobal));
  ASSERT_TRUE(s0->submit(record));
  EXPECT_THAT(s1->submit(wait).message(), HasSubstr("capture isolation"));
  EXPECT_EQ(capture_status(*s1), CaptureStatus::kInvalidated);
  EXPECT_EQ(capture_status(*s0), CaptureStatus::kActive);
  EXPECT_FALSE(end_capture(*s1).is_ok());
  auto model = end_capture(*s0);
  ASSERT_TRUE(model.is_ok());
  EXPECT_EQ((*model)->task_count(), 1u);
}

TEST_F(StreamCaptureTest, AFailingKernelFailsAMultiStreamReplayNamingTheStream) {
  auto s0 = make_stream();
  auto s1 = make_stream();
  Buffer a, b;
  Launch bad(failing_kernel, "bad", {a.ptr()}, {b.ptr()});
  TestEvent fork, join;
  const Task record_fork[] = {EventRecordTask{&fork}};
  const Task s1_tasks[] = {EventWaitTask{&fork}, bad.task, EventRecordTask{&join}};
  const Task wait_join[] = {EventWaitTask{&join}};
  ASSERT_TRUE(begin_capture(*s0, CaptureMode::kGlobal));
  ASSERT_TRUE(s0->submit(record_fork));
  ASSERT_TRUE(s1->submit(s1_tasks));
  ASSERT_TRUE(s0->submit(wait_join));
  auto model = end_capture(*s0);
  ASSERT_TRUE(model.is_ok()) << model.status().to_string();
  TestStream r0, r1;
  Stream* streams[] = {&r0, &r1};
  EXPECT_EQ(
      (*model)->execute(streams).message(),
      "CapturedModel::execute (capture " + std::to_string((*model)->capture_id()) + ", stream 1): bad failed with 7");
}


// ---- thread capture modes and unsafe calls (seed 004: GLOBAL, THREAD_LOCAL, RELAXED) ----

TEST_F(StreamCaptureTest, ExchangeCaptureModeSwapsTheCallingThreadsModeOnly) {
  CaptureMode mode = CaptureMode::kRelaxed;
  ASSERT_TRUE(exchange_capture_mode(mode));
  EXPECT_EQ(mode, CaptureMode::kGlobal);  // the default
  CaptureMode other = CaptureMode::kThreadLocal;
  std::thread([&] { EXPECT_TRUE(exchange_capture_mode(other)); }).join();
  EXPECT_EQ(other, CaptureMode::kGlobal);  // that thread still had the default
  CaptureMode bad = static_cast<CaptureMode>(7);
  EXPECT_EQ(exchange_capture_mode(bad).message(),
            "exchange_capture_mode: unknown capture mode 7; the thread keeps mode RELAXED");
  mode = CaptureMode::kGlobal;
  ASSERT_TRUE(exchange_capture_mode(mode));
  EXPECT_EQ(mode, CaptureMode::kRelaxed);
}

TEST_F(StreamCaptureTest, GlobalCaptureForbidsUnsafeCallsOnEveryThread) {
  CaptureDevice guarded(device);
  auto stream = make_stream();
  auto outside = make_stream();  // takes part in no capture
  ASSERT_TRUE(begin_capture(*stream, CaptureMode::kGlobal));
  const std::string id = std::to_string(capture_info(*stream).capture_id);
  const std::string capturing_thread = this_thread_name();
  std::string other_thread;
  Result<void*> allocated = internal_error("not run");
  Status synced;
  std::thread([&] {
    other_thread = this_thread_name();
    allocated = guarded.allocate(16);
    synced = outside->synchronize();  // outside every capture: safe
  }).join();
  ASSERT_FALSE(allocated.is_ok());
  EXPECT_EQ(allocated.status().message(),
            "CaptureDevice::allocate: not allowed on thread " + other_thread +
                " (capture mode GLOBAL): GLOBAL capture " + id + " begun on thread " + capturing_thread +
                " forbids potentially unsafe calls on every thread in GLOBAL capture mode; the capture is invalidated. "
                "Make the call outside the capture, capture in RELAXED mode, or exchange_capture_mode(kRelaxed) on "
                "this thread around the call");
  EXPECT_TRUE(synced) << synced.to_string();
  EXPECT_EQ(capture_status(*stream), CaptureStatus::kInvalidated);
  const CaptureInfo info = capture_info(*stream);
  EXPECT_EQ(info.invalidation_reason, "CaptureDevice::allocate was called on thread " + other_thread +
                                          " (capture mode GLOBAL) during GLOBAL capture " + id + " begun on thread " +
                                          capturing_thread + ", which forbids it there");
  auto model = end_capture(*stream);
  EXPECT_THAT(model.status().message(), HasSubstr("was invalidated: CaptureDevice::allocate was called on thread"));
  // Outside every capture the wrapper is the device.
  auto memory = guarded.allocate(16);
  ASSERT_TRUE(memory.is_ok()) << memory.status().to_string();
  guarded.deallocate(*memory);
  EXPECT_EQ(device.deallocations, 1);
}

TEST_F(StreamCaptureTest, EveryCaptureDeviceCopyAndFreeIsAnUnsafeCall) {
  CaptureDevice guarded(device);
  Buffer a, b;
  fill(a, 5);
  auto stream = make_stream();
  const auto on_other_thread = [](auto call) { std::thread(call).join(); };

  ASSERT_TRUE(begin_capture(*stream, CaptureMode::kGlobal));
  Status to_device;
  on_other_thread([&] { to_device = guarded.copy_to_device(b.ptr(), a.ptr(), kCount * sizeof(float)); });
  EXPECT_THAT(to_device.message(), HasSubstr("CaptureDevice::copy_to_device: not allowed on thread "));
  EXPECT_EQ(b.data[0], 0.0f);  // nothing copied
  EXPECT_EQ(capture_status(*stream), CaptureStatus::kInvalidated);
  EXPECT_FALSE(end_capture(*stream).is_ok());

  ASSERT_TRUE(begin_capture(*stream, CaptureMode::kGlobal));
  Status to_host;
  on_other_thread([&] { to_host = guarded.copy_to_host(b.ptr(), a.ptr(), kCount * sizeof(float)); });
  EXPECT_THAT(to_host.message(), HasSubstr("CaptureDevice::copy_to_host: not allowed on thread "));
  EXPECT_EQ(b.data[0], 0.0f);
  EXPECT_EQ(capture_status(*stream), CaptureStatus::kInvalidated);
  EXPECT_FALSE(end_capture(*stream).is_ok());

  // deallocate cannot fail: it frees and invalidates.
  void* memory = *guarded.allocate(16);
  ASSERT_TRUE(begin_capture(*stream, CaptureMode::kGlobal));
  on_other_thread([&] { guarded.deallocate(memory); });
  EXPECT_EQ(device.deallocations, 1);
  EXPECT_EQ(capture_status(*stream), CaptureStatus::kInvalidated);
  EXPECT_THAT(end_capture(*stream).status().message(), HasSubstr("CaptureDevice::deallocate was called on thread "));
}

TEST_F(StreamCaptureTest, ThreadLocalCaptureForbidsUnsafeCallsOnlyOnItsThread) {
  CaptureDevice guarded(device);
  auto stream = make_stream();
  ASSERT_TRUE(begin_capture(*stream, CaptureMode::kThreadLocal));
  const std::string id = std::to_string(capture_info(*stream).capture_id);
  Status other_thread = internal_error("not run");
  std::thread([&] {
    auto memory = guarded.allocate(16);
    other_thread = memory.status();
    if (memory.is_ok()) guarded.deallocate(*memory);
  }).join();
  EXPECT_TRUE(other_thread) << other_thread.to_string();
  EXPECT_EQ(capture_status(*stream), CaptureStatus::kActive);
  auto own = guarded.allocate(16);
  EXPECT_THAT(own.status().message(), HasSubstr("(capture mode GLOBAL): THREAD_LOCAL capture " + id +
                                                " begun on this thread forbids potentially unsafe calls on its own "
                                                "thread; the capture is invalidated."));
  EXPECT_EQ(capture_status(*stream), CaptureStatus::kInvalidated);
  EXPECT_FALSE(end_capture(*stream).is_ok());
}

TEST_F(StreamCaptureTest, RelaxedCaptureForbidsNoUnsafeCall) {
  CaptureDevice guarded(device);
  auto stream = make_stream();
  Buffer a, c;
  fill(a, 2);
  ASSERT_TRUE(begin_capture(*stream, CaptureMode::kRelaxed));
  auto own = guarded.allocate(16);
  ASSERT_TRUE(own.is_ok()) << own.status().to_string();
  guarded.deallocate(*own);
  ASSERT_TRUE(stream->copy_sync(c.ptr(), a.ptr(), kCount * sizeof(float)));
  Status other_thread = internal_error("not run");
  std::thread([&] { other_thread = guarded.copy_to_host(c.ptr(), a.ptr(), kCount * sizeof(float)); }).join();
  EXPECT_TRUE(other_thread) << other_thread.to_string();
  EXPECT_EQ(capture_status(*stream), CaptureStatus::kActive);
  EXPECT_TRUE(end_capture(*stream).is_ok());
}

TEST_F(StreamCaptureTest, AThreadInRelaxedModeMayMakeUnsafeCallsDuringAGlobalCapture) {
  CaptureDevice guarded(device);
  auto stream = make_stream();
  ASSERT_TRUE(begin_capture(*stream, CaptureMode::kGlobal));
  Status other_thread = internal_error("not run");
  std::thread([&] {
    CaptureMode mode = CaptureMode::kRelaxed;
    if (!exchange_capture_mode(mode)) return;
    auto memory = guarded.allocate(16);
    other_thread = memory.status();
    if (memory.is_ok()) guarded.deallocate(*memory);
    (void)exchange_capture_mode(mode);
  }).join();
  EXPECT_TRUE(other_thread) << other_thread.to_string();
  // The capturing thread too (CUDA's pattern around a call it knows is safe).
  CaptureMode mode = CaptureMode::kRelaxed;
  ASSERT_TRUE(exchange_capture_mode(mode));
  auto own = guarded.allocate(16);
  EXPECT_TRUE(own.is_ok());
  if (own.is_ok()) guarded.deallocate(*own);
  ASSERT_TRUE(exchange_capture_mode(mode));
  EXPECT_EQ(mode, CaptureMode::kRelaxed);
  EXPECT_EQ(capture_status(*stream), CaptureStatus::kActive);
  EXPECT_TRUE(end_capture(*stream).is_ok());
}

TEST_F(StreamCaptureTest, AThreadInThreadLocalModeIgnoresOtherThreadsGlobalCaptures) {
  CaptureDevice guarded(device);
  auto stream = make_stream();
  ASSERT_TRUE(begin_capture(*stream, CaptureMode::kGlobal));
  const std::string id = std::to_string(capture_info(*stream).capture_id);
  Status other_thread = internal_error("not run");
  std::thread([&] {
    CaptureMode mode = CaptureMode::kThreadLocal;
    if (!exchange_capture_mode(mode)) return;
    auto memory = guarded.allocate(16);
    other_thread = memory.status();
    if (memory.is_ok()) guarded.deallocate(*memory);
  }).join();
  EXPECT_TRUE(other_thread) << other_thread.to_string();
  EXPECT_EQ(capture_status(*stream), CaptureStatus::kActive);
  // In THREAD_LOCAL mode a thread's own capture still forbids its unsafe calls.
  CaptureMode mode = CaptureMode::kThreadLocal;
  ASSERT_TRUE(exchange_capture_mode(mode));
  auto own = guarded.allocate(16);
  ASSERT_TRUE(exchange_capture_mode(mode));
  EXPECT_THAT(own.status().message(), HasSubstr("(capture mode THREAD_LOCAL): GLOBAL capture " + id +
                                                " begun on this thread forbids potentially unsafe calls on its own "
                                                "thread"));
  EXPECT_EQ(capture_status(*stream), CaptureStatus::kInvalidated);
  EXPECT_FALSE(end_capture(*stream).is_ok());
}

TEST_F(StreamCaptureTest, ASynchronousCopyOnAnyStreamIsUnsafe) {
  auto stream = make_stream();
  auto outside = make_stream();
  Buffer a, c;
  fill(a, 4);
  ASSERT_TRUE(begin_capture(*stream, CaptureMode::kGlobal));
  Status copy = outside->copy_sync(c.ptr(), a.ptr(), kCount * sizeof(float));
  EXPECT_THAT(copy.message(), HasSubstr("copy_sync(): not allowed on thread "));
  EXPECT_EQ(c.data[0], 0.0f);
  EXPECT_EQ(backend(*outside).submits, 0);
  EXPECT_EQ(capture_status(*stream), CaptureStatus::kInvalidated);
  EXPECT_FALSE(end_capture(*stream).is_ok());
  ASSERT_TRUE(outside->copy_sync(c.ptr(), a.ptr(), kCount * sizeof(float)));
  EXPECT_EQ(c.data[0], 4.0f);
}

TEST_F(StreamCaptureTest, CheckUnsafeCallLetsOtherLayersJoinTheRules) {
  EXPECT_TRUE(check_unsafe_call("my_sync_call"));
  auto stream = make_stream();
  ASSERT_TRUE(begin_capture(*stream, CaptureMode::kGlobal));
  EXPECT_THAT(check_unsafe_call("my_sync_call").message(), HasSubstr("my_sync_call: not allowed on thread "));
  EXPECT_THAT(end_capture(*stream).status().message(), HasSubstr("my_sync_call was called on thread "));
}

// ---- only the capturing thread records (seed 004: THREAD_LOCAL "only the current thread") ----

TEST_F(StreamCaptureTest, OnlyTheCapturingThreadRecordsIntoAGlobalOrThreadLocalCapture) {
  for (CaptureMode mode : {CaptureMode::kGlobal, CaptureMode::kThreadLocal}) {
    SCOPED_TRACE(capture_mode_name(mode));
    auto stream = make_stream();
    Buffer a, b;
    Launch add(testing::add_one, "add_one", {a.ptr()}, {b.ptr()});
    ASSERT_TRUE(begin_capture(*stream, mode));
    const std::string id = std::to_string(capture_info(*stream).capture_id);
    ASSERT_TRUE(stream->launch(add.task, 1, 1));
    Status other;
    std::string other_thread;
    std::thread([&] {
      other_thread = this_thread_name();
      other = stream->launch(add.task, 1, 1);
    }).join();
    EXPECT_EQ(other.message(), "submit: " + std::string(capture_mode_name(mode)) + " capture " + id +
                                   " records only work from thread " + this_thread_name() +
                                   ", which began it; thread " + other_thread +
                                   " may not record into it (a submit onto captured stream 0). Nothing was recorded "
                                   "and the capture is invalidated; begin it in RELAXED mode to record from several "
                                   "threads");
    EXPECT_EQ(backend(*stream).submits, 0);  // not run either
    EXPECT_EQ(capture_info(*stream).task_count, 1u);
    EXPECT_EQ(capture_status(*stream), CaptureStatus::kInvalidated);
    auto model = end_capture(*stream);
    EXPECT_THAT(model.status().message(),
                HasSubstr("a submit onto captured stream 0 came from thread " + other_thread));
  }
}

TEST_F(StreamCaptureTest, ARelaxedCaptureTakesWorkAndEndCaptureFromEveryThread) {
  auto stream = make_stream();
  Buffer a, b, c;
  Launch add(testing::add_one, "add_one", {a.ptr()}, {b.ptr()});
  Launch twice(testing::twice, "twice", {b.ptr()}, {c.ptr()});
  ASSERT_TRUE(begin_capture(*stream, CaptureMode::kRelaxed));
  ASSERT_TRUE(stream->launch(add.task, 1, 1));
  Result<std::unique_ptr<CapturedModel>> model = internal_error("not run");
  std::thread([&] {
    if (stream->launch(twice.task, 1, 1)) model = end_capture(*stream);
  }).join();
  ASSERT_TRUE(model.is_ok()) << model.status().to_string();
  EXPECT_EQ((*model)->task_count(), 2u);
  fill(a, 1);
  ASSERT_TRUE((*model)->execute(*stream));
  EXPECT_EQ(c.data[0], 4.0f);
}

TEST_F(StreamCaptureTest, AWaitFromAnotherThreadCannotJoinTheCapture) {
  auto s0 = make_stream();
  auto s1 = make_stream();
  Buffer a, b;
  Launch add(testing::add_one, "add_one", {a.ptr()}, {b.ptr()});
  TestEvent fork;
  const Task record[] = {EventRecordTask{&fork}};
  ASSERT_TRUE(begin_capture(*s0, CaptureMode::kGlobal));
  ASSERT_TRUE(s0->submit(record));
  Status joined;
  fill(a, 1);
  std::thread([&] {
    const Task s1_tasks[] = {add.task, EventWaitTask{&fork}};
    joined = s1->submit(s1_tasks);
  }).join();
  EXPECT_THAT(joined.message(), HasSubstr("may not record into it (a wait on an event it recorded, which would join a "
                                          "stream). Nothing was recorded and the capture is invalidated"));
  EXPECT_EQ(b.data[0], 2.0f);  // the eager task before the wait ran
  EXPECT_EQ(capture_status(*s1), CaptureStatus::kNone);
  EXPECT_EQ(capture_status(*s0), CaptureStatus::kInvalidated);
  EXPECT_FALSE(end_capture(*s0).is_ok());
}

TEST_F(StreamCaptureTest, EndCaptureFromAnotherThreadFailsAndChangesNothing) {
  auto stream = make_stream();
  Buffer a, b;
  Launch add(testing::add_one, "add_one", {a.ptr()}, {b.ptr()});
  ASSERT_TRUE(begin_capture(*stream, CaptureMode::kGlobal));
  const std::string id = std::to_string(capture_info(*stream).capture_id);
  ASSERT_TRUE(stream->launch(add.task, 1, 1));
  Result<std::unique_ptr<CapturedModel>> ended = internal_error("not run");
  Status group;
  std::string other_thread;
  std::thread([&] {
    other_thread = this_thread_name();
    ended = end_capture(*stream);
    group = begin_task_group(*stream);
  }).join();
  ASSERT_FALSE(ended.is_ok());
  EXPECT_EQ(ended.status().message(), "end_capture: GLOBAL capture " + id + " was begun on thread " +
                                          this_thread_name() + "; only that thread may call end_capture on it (called "
                                          "from thread " + other_thread +
                                          "); nothing changed. A RELAXED capture takes calls from every thread");
  EXPECT_THAT(group.message(), HasSubstr("only that thread may call begin_task_group on it"));
  EXPECT_EQ(capture_status(*stream), CaptureStatus::kActive);
  auto model = end_capture(*stream);
  ASSERT_TRUE(model.is_ok()) << model.status().to_string();
  EXPECT_EQ((*model)->task_count(), 1u);
}

// ---- capture info and COMPLETED -------------------------------------------------------

TEST_F(StreamCaptureTest, CaptureInfoReportsTheCaptureSoFarAndTheModelReportsCompleted) {
  auto s0 = make_stream();
  auto s1 = make_stream();
  EXPECT_EQ(capture_info(*s0).status, CaptureStatus::kNone);
  EXPECT_EQ(capture_info(*s0).capture_id, 0u);
  Buffer a, b;
  Launch add(testing::add_one, "add_one", {a.ptr()}, {b.ptr()});
  TestEvent fork, join;
  const Task record_fork[] = {EventRecordTask{&fork}};
  const Task s1_tasks[] = {EventWaitTask{&fork}, EventRecordTask{&join}};
  const Task wait_join[] = {EventWaitTask{&join}};
  ASSERT_TRUE(begin_capture(*s0, CaptureMode::kThreadLocal));
  ASSERT_TRUE(s0->launch(add.task, 1, 1));
  ASSERT_TRUE(s0->submit(record_fork));
  ASSERT_TRUE(s1->submit(s1_tasks));
  const CaptureInfo origin = capture_info(*s0);
  EXPECT_EQ(origin.status, CaptureStatus::kActive);
  EXPECT_NE(origin.capture_id, 0u);
  EXPECT_EQ(origin.mode, CaptureMode::kThreadLocal);
  EXPECT_EQ(origin.thread, std::this_thread::get_id());
  EXPECT_TRUE(origin.origin);
  EXPECT_EQ(origin.task_count, 4u);
  EXPECT_EQ(origin.stream_count, 2u);
  EXPECT_EQ(origin.list_count, 2u);
  EXPECT_EQ(origin.invalidation_reason, "");
  const CaptureInfo joined = capture_info(*s1);
  EXPECT_EQ(joined.capture_id, origin.capture_id);
  EXPECT_FALSE(joined.origin);
  ASSERT_TRUE(s0->submit(wait_join));
  auto model = end_capture(*s0);
  ASSERT_TRUE(model.is_ok()) << model.status().to_string();
  EXPECT_EQ(capture_info(*s0).status, CaptureStatus::kNone);
  const CaptureInfo done = (*model)->capture_info();
  EXPECT_EQ(done.status, CaptureStatus::kCompleted);
  EXPECT_EQ(done.capture_id, origin.capture_id);
  EXPECT_EQ(done.mode, CaptureMode::kThreadLocal);
  EXPECT_EQ(done.thread, std::this_thread::get_id());
  EXPECT_EQ(done.task_count, 5u);
  EXPECT_EQ(done.stream_count, 2u);
}

// ---- captured model state: READY, UPDATING, FAULT ----------------------------------

/// A model with one task group of one add_one launch reading `a` into `b`.
struct GroupModel {
  Buffer a, a2, b;
  Launch add{testing::add_one, "add_one", {a.ptr()}, {b.ptr()}};
  Launch add2{testing::add_one, "add_one", {a2.ptr()}, {b.ptr()}};
  TaskGroupHandle group;
  std::unique_ptr<CapturedModel> model;
  Status build(CaptureStream& stream) {
    GE_RETURN_IF_ERROR(begin_capture(stream, CaptureMode::kGlobal));
    GE_RETURN_IF_ERROR(begin_task_group(stream));
    GE_RETURN_IF_ERROR(stream.launch(add.task, 1, 1));
    GE_ASSIGN_OR_RETURN(group, end_task_group(stream));
    GE_ASSIGN_OR_RETURN(model, end_capture(stream));
    return Status::ok();
  }
};

TEST_F(StreamCaptureTest, ExecutingAModelBeingUpdatedFails) {
  auto stream = make_stream();
  GroupModel m;
  ASSERT_TRUE(m.build(*stream));
  const std::string id = std::to_string(m.model->capture_id());
  EXPECT_EQ(m.model->state(), CapturedModelState::kReady);
  EXPECT_EQ(m.model->end_update().message(),
            "end_update: the model of capture " + id + " is READY: no update is in progress; call begin_update first");
  ASSERT_TRUE(m.model->begin_update());
  EXPECT_EQ(m.model->state(), CapturedModelState::kUpdating);
  EXPECT_EQ(m.model->execute(*stream).message(),
            "CapturedModel::execute: the model of capture " + id +
                " is UPDATING (begin_update without end_update); call end_update before executing it");
  Stream* streams[] = {&stream->backend_stream()};
  EXPECT_THAT(m.model->run(streams).message(), HasSubstr(" is UPDATING (begin_update without end_update)"));
  EXPECT_THAT(m.model->begin_update().message(), HasSubstr("is already UPDATING; call end_update first"));
  const Task update[] = {m.add2.task};
  ASSERT_TRUE(m.model->update_task_group(m.group, update));
  EXPECT_EQ(backend(*stream).submits, 0);  // nothing ran
  ASSERT_TRUE(m.model->end_update());
  EXPECT_EQ(m.model->state(), CapturedModelState::kReady);
  fill(m.a2, 7);
  ASSERT_TRUE(m.model->execute(*stream));
  EXPECT_EQ(m.b.data[0], 8.0f);
}

TEST_F(StreamCaptureTest, AFailedUpdateFaultsTheModelUntilAnUpdateCompletes) {
  auto stream = make_stream();
  GroupModel m;
  ASSERT_TRUE(m.build(*stream));
  const std::string id = std::to_string(m.model->capture_id());
  ASSERT_TRUE(m.model->begin_update());
  const Task two[] = {m.add2.task, m.add2.task};
  EXPECT_EQ(m.model->update_task_group(m.group, two).message(),
            "update_task_group: task group 0 has 1 task(s) but the update gives 2; the model is now FAULT until an "
            "update completes");
  EXPECT_EQ(m.model->state(), CapturedModelState::kFault);
  EXPECT_EQ(m.model->execute(*stream).message(),
            "CapturedModel::execute: the model of capture " + id +
                " is FAULT: a task-group update failed during begin_update/end_update (update_task_group: task group 0 "
                "has 1 task(s) but the update gives 2); redo the update (begin_update, update_task_group for every "
                "group, end_update) before executing it");
  EXPECT_THAT(m.model->end_update().message(), HasSubstr("end_update: the model of capture " + id + " stays FAULT: "));
  const Task one[] = {m.add2.task};
  EXPECT_THAT(m.model->update_task_group(m.group, one).message(),
              HasSubstr(" is FAULT (a task-group update failed during begin_update/end_update (update_task_group: task "
                        "group 0 has 1 task(s) but the update gives 2)); call begin_update to start a new update"));
  EXPECT_EQ(backend(*stream).submits, 0);
  ASSERT_TRUE(m.model->begin_update());
  ASSERT_TRUE(m.model->update_task_group(m.group, one));
  ASSERT_TRUE(m.model->end_update());
  EXPECT_EQ(m.model->state(), CapturedModelState::kReady);
  fill(m.a2, 1);
  ASSERT_TRUE(m.model->execute(*stream));
  EXPECT_EQ(m.b.data[0], 2.0f);
}

std::atomic<bool> g_kernel_started = false;
std::atomic<bool> g_update_began = false;
std::atomic<bool> g_update_seen_by_kernel = false;

/// Says it started, runs a while, then notes whether an update began meanwhile.
int watching_kernel(const KernelArgs&) {
  g_kernel_started = true;
  std::this_thread::sleep_for(std::chrono::milliseconds(100));
  g_update_seen_by_kernel = g_update_began.load();
  return 0;
}

TEST_F(StreamCaptureTest, AnUpdateWaitsForAnExecuteInProgress) {
  auto stream = make_stream();
  Buffer a, b;
  Launch watch(watching_kernel, "watch", {a.ptr()}, {b.ptr()});
  ASSERT_TRUE(begin_capture(*stream, CaptureMode::kGlobal));
  ASSERT_TRUE(begin_task_group(*stream));
  ASSERT_TRUE(stream->launch(watch.task, 1, 1));
  auto group = end_task_group(*stream);
  ASSERT_TRUE(group.is_ok());
  auto model = end_capture(*stream);
  ASSERT_TRUE(model.is_ok());
  g_kernel_started = g_update_began = g_update_seen_by_kernel = false;
  Status executed;
  std::thread executor([&] { executed = (*model)->execute(*stream); });  // synchronous stream: runs the kernel
  while (!g_kernel_started) std::this_thread::yield();
  Status began = (*model)->begin_update();  // must wait for the execute
  g_update_began = true;
  executor.join();
  EXPECT_TRUE(executed) << executed.to_string();
  EXPECT_TRUE(began);
  EXPECT_FALSE(g_update_seen_by_kernel) << "begin_update returned while an execute was still running";
  const Task one[] = {watch.task};
  ASSERT_TRUE((*model)->update_task_group(*group, one));
  ASSERT_TRUE((*model)->end_update());
}

/// Copies kCount floats from input 0 to output 0, slowly (a window for a racing update).
int slow_copy(const KernelArgs& args) {
  std::this_thread::sleep_for(std::chrono::microseconds(20));
  std::memcpy(args.outputs[0], args.inputs[0], kCount * sizeof(float));
  return 0;
}

TEST_F(StreamCaptureTest, ConcurrentExecutesAndUpdatesNeverSeeHalfAnUpdate) {
  auto stream = make_stream();
  Buffer one, two, b, c;
  fill(one, 1), fill(two, 2);
  Launch to_b(slow_copy, "slow_copy", {one.ptr()}, {b.ptr()});
  Launch to_c(slow_copy, "slow_copy", {one.ptr()}, {c.ptr()});
  Launch to_b2(slow_copy, "slow_copy", {two.ptr()}, {b.ptr()});
  Launch to_c2(slow_copy, "slow_copy", {two.ptr()}, {c.ptr()});
  ASSERT_TRUE(begin_capture(*stream, CaptureMode::kGlobal));
  ASSERT_TRUE(begin_task_group(*stream));
  ASSERT_TRUE(stream->launch(to_b.task, 1, 1));
  ASSERT_TRUE(stream->launch(to_c.task, 1, 1));
  auto group = end_task_group(*stream);
  ASSERT_TRUE(group.is_ok());
  auto model = end_capture(*stream);
  ASSERT_TRUE(model.is_ok());
  const Task from_one[] = {to_b.task, to_c.task};
  const Task from_two[] = {to_b2.task, to_c2.task};
  constexpr int kRounds = 300;
  std::atomic<bool> done = false;
  std::atomic<int> failed_updates = 0;
  std::thread updater([&] {
    for (int i = 0; !done; ++i) {
      if (!(*model)->update_task_group(*group, i % 2 == 0 ? from_two : from_one)) ++failed_updates;
    }
  });
  int torn = 0, failed_executes = 0;
  for (int i = 0; i < kRounds; ++i) {
    if (!(*model)->execute(*stream)) ++failed_executes;
    if (b.data[0] != c.data[0]) ++torn;  // one task saw the old arguments, the other the new
  }
  done = true;
  updater.join();
  EXPECT_EQ(torn, 0) << "executes saw half-applied updates";
  EXPECT_EQ(failed_executes, 0);
  EXPECT_EQ(failed_updates, 0);
}

// ---- cascade lists follow the device's queue depth ---------------------------------

TEST_F(StreamCaptureTest, CascadeListsFollowTheDeviceQueueDepthLessTheReservedHeadroom) {
  EXPECT_EQ(kCaptureReservedTasks, 32u);  // seed 004's CAPTURE_TASK_RESERVED_NUM
  device.depth = kCaptureReservedTasks + 2;
  auto stream = make_stream();
  EXPECT_EQ(stream->queue_depth(), kCaptureReservedTasks + 2);
  Buffer a, b;
  Launch add(testing::add_one, "add_one", {a.ptr()}, {b.ptr()});
  ASSERT_TRUE(begin_capture(*stream, CaptureMode::kGlobal));
  for (int i = 0; i < 5; ++i) ASSERT_TRUE(stream->launch(add.task, 1, 1));
  EXPECT_EQ(capture_info(*stream).list_count, 3u);  // 2 + 2 + 1
  auto model = end_capture(*stream);
  ASSERT_TRUE(model.is_ok());
  EXPECT_EQ((*model)->cascade_list_count(), 2u);
  TestStream replay;
  ASSERT_TRUE((*model)->execute(replay));
  EXPECT_EQ(replay.largest_submit, 2u);
  EXPECT_EQ(replay.tasks_run, 5u);
}

TEST_F(StreamCaptureTest, TheStreamsQueueDepthOptionOverridesTheDevices) {
  device.depth = 1000;
  CaptureStreamOptions options;
  options.queue_depth = kCaptureReservedTasks + 3;
  auto stream = make_stream(options);
  Buffer a, b;
  Launch add(testing::add_one, "add_one", {a.ptr()}, {b.ptr()});
  ASSERT_TRUE(begin_capture(*stream, CaptureMode::kGlobal));
  for (int i = 0; i < 5; ++i) ASSERT_TRUE(stream->launch(add.task, 1, 1));
  auto model = end_capture(*stream);
  ASSERT_TRUE(model.is_ok());
  EXPECT_EQ((*model)->list_count(), 2u);  // 3 + 2
}

TEST_F(StreamCaptureTest, ADeviceWithoutAQueueDepthNeverCascades) {
  auto stream = make_stream();  // device.depth == 0
  EXPECT_EQ(stream->queue_depth(), 0u);
  Buffer a, b;
  Launch add(testing::add_one, "add_one", {a.ptr()}, {b.ptr()});
  ASSERT_TRUE(begin_capture(*stream, CaptureMode::kGlobal));
  for (int i = 0; i < 200; ++i) ASSERT_TRUE(stream->launch(add.task, 1, 1));
  auto model = end_capture(*stream);
  ASSERT_TRUE(model.is_ok());
  EXPECT_EQ((*model)->list_count(), 1u);
}

TEST_F(StreamCaptureTest, AQueueDepthWithinTheReservedHeadroomIsRefused) {
  device.depth = kCaptureReservedTasks;
  auto small = make_stream();
  EXPECT_EQ(begin_capture(*small, CaptureMode::kGlobal).message(),
            "begin_capture: the stream's queue depth 32 leaves no room for captured tasks: every captured list keeps "
            "32 queue slots free (kCaptureReservedTasks); give the stream or its device a queue depth above 32");
  EXPECT_EQ(capture_status(*small), CaptureStatus::kNone);
  // A joining stream with no room invalidates the capture it would join.
  CaptureStreamOptions roomy;
  roomy.queue_depth = 100;
  auto origin = make_stream(roomy);
  TestEvent fork;
  const Task record[] = {EventRecordTask{&fork}};
  const Task wait[] = {EventWaitTask{&fork}};
  ASSERT_TRUE(begin_capture(*origin, CaptureMode::kGlobal));
  ASSERT_TRUE(origin->submit(record));
  EXPECT_THAT(small->submit(wait).message(), HasSubstr("joining capture "));
  EXPECT_EQ(capture_status(*small), CaptureStatus::kNone);
  EXPECT_EQ(capture_status(*origin), CaptureStatus::kInvalidated);
  EXPECT_FALSE(end_capture(*origin).is_ok());
}

/// npu_sim's `queue_depth` registry option reaches capture through Device::queue_depth().
TEST_F(StreamCaptureTest, NpuSimQueueDepthOptionSetsTheCascadeSize) {
  const char* lib_dir = std::getenv("GE_TEST_LIB_DIR");
  const std::filesystem::path library =
      std::filesystem::path(lib_dir != nullptr ? lib_dir : "") / "libge_backend_npu_sim.so";
  if (lib_dir == nullptr || !std::filesystem::exists(library)) GTEST_SKIP() << "npu_sim plugin not built";
  const std::filesystem::path registry = std::filesystem::temp_directory_path() /
                                         ("ge_capture_test_" + std::to_string(::getpid()) + ".toml");
  std::ofstream(registry) << "[[plugin]]\nname = \"npu_sim\"\nkind = \"backend\"\nlibrary = \"" << library.string()
                          << "\"\n[plugin.options]\nqueue_depth = 40\n";
  PluginHost host;
  Status loaded = host.load_registry(registry);
  std::filesystem::remove(registry);
  ASSERT_TRUE(loaded) << loaded.to_string();
  auto backend = host.backend("npu_sim");
  ASSERT_TRUE(backend.is_ok());
  Device& npu = (*backend)->device();
  EXPECT_EQ(npu.queue_depth(), 40u);
  auto source = npu.allocate(64);
  auto destination = npu.allocate(64);
  ASSERT_TRUE(source.is_ok() && destination.is_ok());
  auto stream = CaptureStream::create(npu);
  ASSERT_TRUE(stream.is_ok());
  ASSERT_TRUE(begin_capture(**stream, CaptureMode::kGlobal));
  const Task copy[] = {MemcpyTask{*destination, *source, 64}};
  for (int i = 0; i < 20; ++i) ASSERT_TRUE((*stream)->submit(copy));
  auto model = end_capture(**stream);
  ASSERT_TRUE(model.is_ok()) << model.status().to_string();
  EXPECT_EQ((*model)->list_count(), 3u);  // 8 + 8 + 4: depth 40 less the 32 reserved
  ASSERT_TRUE((*model)->execute(**stream));
  EXPECT_TRUE((*stream)->synchronize());
  npu.deallocate(*source);
  npu.deallocate(*destination);
}

}  // namespace
}  // namespace ge
