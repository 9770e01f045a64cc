// Tests of CpuDevice, CpuStream and CpuEvent.

#include "cpu_device.h"

#include <gtest/gtest.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <memory>
#include <string>
#include <thread>
#include <utility>
#include <vector>

namespace ge {
namespace {

TEST(CpuDevice, IsHostAccessible) {
  CpuDevice device;
  EXPECT_EQ(device.name(), "cpu");
  EXPECT_TRUE(device.host_accessible());
}

TEST(CpuDevice, AllocatesAlignedMemory) {
  CpuDevice device;
  for (size_t alignment : {size_t{1}, size_t{64}, size_t{512}, size_t{4096}}) {
    Result<void*> pointer = device.allocate(1000, alignment);
    ASSERT_TRUE(pointer.is_ok()) << pointer.status().to_string();
    EXPECT_EQ(reinterpret_cast<uintptr_t>(*pointer) % alignment, 0u) << alignment;
    std::memset(*pointer, 0x5A, 1000);  // writable end to end
    device.deallocate(*pointer);
  }
}

TEST(CpuDevice, ZeroBytesGiveDistinctAddresses) {
  CpuDevice device;
  Result<void*> a = device.allocate(0);
  Result<void*> b = device.allocate(0);
  ASSERT_TRUE(a.is_ok() && b.is_ok());
  EXPECT_NE(*a, nullptr);
  EXPECT_NE(*a, *b);
  device.deallocate(*a);
  device.deallocate(*b);
  device.deallocate(nullptr);
}

TEST(CpuDevice, AlignmentMustBeAPowerOfTwo) {
  CpuDevice device;
  Result<void*> pointer = device.allocate(16, 48);
  ASSERT_FALSE(pointer.is_ok());
  EXPECT_EQ(pointer.status().code(), StatusCode::kInvalidArgument);
  EXPECT_NE(pointer.status().message().find("48"), std::string::npos) << pointer.status().message();
}

#if !defined(__SANITIZE_ADDRESS__) && !defined(__SANITIZE_THREAD__)
TEST(CpuDevice, WorkerThreadsThatCannotStartAreAnErrorNotACrash) {
  // Under `ulimit -v` a thread's stack cannot be mapped: the workers started before the
  // one that threw terminated the process through their joinable handles ("Resource
  // temporarily unavailable" when none had started). 16 workers: more stacks than glibc
  // keeps cached from the threads of earlier tests.
  const pid_t child = fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    std::ifstream status("/proc/self/status");
    std::string line;
    size_t used = 0;
    while (std::getline(status, line)) {
      if (line.rfind("VmSize:", 0) == 0) used = std::stoull(line.substr(7)) * 1024;
    }
    CpuDeviceOptions options;
    options.threads = 16;
    CpuDevice device(options);
    const rlim_t limit = used + (size_t{12} << 20);  // room for one 8 MiB stack, not 16
    const rlimit rl{limit, limit};
    if (used == 0 || setrlimit(RLIMIT_AS, &rl) != 0) _exit(3);
    auto stream = device.create_stream();
    const std::string expected = "cpu: out of memory or threads: cannot start the device's 16 worker threads";
    const bool ok = !stream.is_ok() && stream.status().message().rfind(expected, 0) == 0;
    if (!ok) std::fprintf(stderr, "got: %s\n", stream.status().to_string().c_str());
    _exit(ok ? 0 : 1);
  }
  int status = 0;
  ASSERT_EQ(waitpid(child, &status, 0), child);
  ASSERT_TRUE(WIFEXITED(status)) << "the child died of signal " << WTERMSIG(status);
  EXPECT_EQ(WEXITSTATUS(status), 0);
}
#endif

TEST(CpuDevice, CopiesBothWays) {
  CpuDevice device;
  const std::vector<float> host{1, 2, 3, 4};
  Result<void*> memory = device.allocate(sizeof(float) * 4);
  ASSERT_TRUE(memory.is_ok());
  ASSERT_TRUE(device.copy_to_device(*memory, host.data(), sizeof(float) * 4).is_ok());
  std::vector<float> back(4, 0.0f);
  ASSERT_TRUE(device.copy_to_host(back.data(), *memory, sizeof(float) * 4).is_ok());
  EXPECT_EQ(back, host);
  EXPECT_FALSE(device.copy_to_host(nullptr, *memory, 4).is_ok());
  EXPECT_TRUE(device.copy_to_host(nullptr, nullptr, 0).is_ok());
  device.deallocate(*memory);
}

int add_one_kernel(const KernelArgs& args) {
  const auto* in = static_cast<const int32_t*>(args.inputs[0]);
  auto* out = static_cast<int32_t*>(args.outputs[0]);
  *out = *in + 1;
  return 0;
}

int failing_kernel(const KernelArgs&) { return 1; }

TEST(CpuStream, RunsTasksInOrderBySynchronize) {
  CpuDevice device;
  Result<std::unique_ptr<Stream>> stream = device.create_stream();
  Result<std::unique_ptr<Event>> event = device.create_event();
  ASSERT_TRUE(stream.is_ok() && event.is_ok());
  int32_t a = 41, b = 0, c = 0;
  const void* inputs[] = {&a};
  void* outputs[] = {&b};
  KernelTask kernel;
  kernel.function = &add_one_kernel;
  kernel.args.inputs = inputs;
  kernel.args.outputs = outputs;
  kernel.name = "test.add_one";
  // kernel (b = a + 1), then copy b into c: the copy must see the kernel's result.
  std::vector<Task> tasks{kernel, EventRecordTask{event->get()}, EventWaitTask{event->get()},
                          MemcpyTask{&c, &b, sizeof(int32_t)}};
  ASSERT_TRUE((*stream)->submit(tasks).is_ok());
  EXPECT_TRUE((*stream)->synchronize().is_ok());
  EXPECT_TRUE((*event)->synchronize().is_ok());
  EXPECT_EQ(b, 42);
  EXPECT_EQ(c, 42);
}

TEST(CpuStream, FailingKernelIsAnErrorNamingIt) {
  CpuDevice device;
  Result<std::unique_ptr<Stream>> stream = device.create_stream();
  ASSERT_TRUE(stream.is_ok());
  int32_t untouched = 7, source = 9;
  KernelTask kernel;
  kernel.function = &failing_kernel;
  kernel.name = "cpu.Div";
  std::vector<Task> tasks{kernel, MemcpyTask{&untouched, &source, sizeof(int32_t)}};
  ASSERT_TRUE((*stream)->submit(tasks).is_ok());  // asynchronous: the error comes at synchronize()
  Status status = (*stream)->synchronize();
  ASSERT_FALSE(status.is_ok());
  EXPECT_NE(status.message().find("kernel 'cpu.Div'"), std::string::npos) << status.message();
  EXPECT_NE(status.message().find("code 1"), std::string::npos) << status.message();
  EXPECT_NE(status.message().find("integer division by zero"), std::string::npos) << status.message();
  EXPECT_EQ(untouched, 7) << "tasks after a failure must not run";
}

TEST(CpuStream, MalformedTasksAreErrors) {
  CpuDevice device;
  Result<std::unique_ptr<Stream>> stream = device.create_stream();
  ASSERT_TRUE(stream.is_ok());
  std::vector<Task> no_function{KernelTask{}};
  EXPECT_EQ((*stream)->submit(no_function).code(), StatusCode::kInternal);
  std::vector<Task> null_copy{MemcpyTask{nullptr, nullptr, 4}};
  EXPECT_EQ((*stream)->submit(null_copy).code(), StatusCode::kInternal);
  std::vector<Task> no_event{EventWaitTask{nullptr}};
  EXPECT_EQ((*stream)->submit(no_event).code(), StatusCode::kInternal);
}

/// Two streams on one device, the second waiting for the first through an event: every
/// task is traced once, tagged with its stream's id, in order, within the epoch.
void check_two_stream_trace(CpuDeviceOptions options) {
  CpuDevice device(options);
  Result<std::unique_ptr<Stream>> first = device.create_stream();
  Result<std::unique_ptr<Stream>> second = device.create_stream();
  Result<std::unique_ptr<Event>> event = device.create_event();
  ASSERT_TRUE(first.is_ok() && second.is_ok() && event.is_ok());
  int32_t a = 1, b = 0, c = 0;
  const void* inputs[] = {&a};
  void* outputs[] = {&b};
  KernelTask kernel;
  kernel.function = &add_one_kernel;
  kernel.args.inputs = inputs;
  kernel.args.outputs = outputs;
  kernel.name = "test.add_one";
  kernel.node = "Add 'one'";

  // Before tracing: nothing is recorded.
  std::vector<Task> untraced{kernel};
  ASSERT_TRUE((*first)->submit(untraced).is_ok());
  ASSERT_TRUE((*first)->synchronize().is_ok());
  ASSERT_TRUE(device.set_task_tracing(true).is_ok());
  EXPECT_TRUE(device.take_task_trace().empty());

  std::vector<Task> producer{kernel, EventRecordTask{event->get()}};
  std::vector<Task> consumer{EventWaitTask{event->get()}, MemcpyTask{&c, &b, sizeof(int32_t)}};
  b = 0;
  // Producer first: a synchronous stream runs it inside submit(), before the wait.
  ASSERT_TRUE((*first)->submit(producer).is_ok());
  ASSERT_TRUE((*second)->submit(consumer).is_ok());
  ASSERT_TRUE((*first)->synchronize().is_ok());
  ASSERT_TRUE((*second)->synchronize().is_ok());
  EXPECT_EQ(c, 2);

  std::vector<TaskTraceRecord> trace = device.take_task_trace();
  ASSERT_EQ(trace.size(), 4u);
  std::vector<std::pair<int, std::string>> tasks;
  for (const TaskTraceRecord& record : trace) {
    tasks.emplace_back(record.stream, record.name);
    EXPECT_GE(record.start_ns, 0) << record.name;
    EXPECT_LE(record.start_ns, record.end_ns) << record.name;
  }
  EXPECT_EQ(tasks, (std::vector<std::pair<int, std::string>>{
                       {0, "test.add_one"}, {0, "event_record"}, {1, "event_wait"}, {1, "memcpy"}}));
  EXPECT_LE(trace[0].end_ns, trace[3].start_ns) << "the copy waited for the kernel";
  EXPECT_EQ(trace[0].node, "Add 'one'") << "a kernel's record names its node";
  EXPECT_EQ(trace[3].node, "") << "a copy runs no node";
  EXPECT_TRUE(device.take_task_trace().empty()) << "take forgets what it returned";

  // Off again: later tasks are not recorded.
  ASSERT_TRUE(device.set_task_tracing(false).is_ok());
  ASSERT_TRUE((*first)->submit(untraced).is_ok());
  ASSERT_TRUE((*first)->synchronize().is_ok());
  EXPECT_TRUE(device.take_task_trace().empty());
}

TEST(CpuDeviceTracing, RecordsEveryTaskOfEveryStream) { check_two_stream_trace({}); }

TEST(CpuDeviceTracing, RecordsSynchronousStreams) {
  CpuDeviceOptions options;
  options.synchronous = true;
  check_two_stream_trace(options);
}

TEST(CpuDeviceTracing, SkippedTasksAfterAFailureAreNotRecorded) {
  CpuDevice device;
  Result<std::unique_ptr<Stream>> stream = device.create_stream();
  ASSERT_TRUE(stream.is_ok());
  ASSERT_TRUE(device.set_task_tracing(true).is_ok());
  int32_t untouched = 7, source = 9;
  KernelTask kernel;
  kernel.function = &failing_kernel;
  kernel.name = "cpu.Div";
  std::vector<Task> tasks{kernel, MemcpyTask{&untouched, &source, sizeof(int32_t)}};
  ASSERT_TRUE((*stream)->submit(tasks).is_ok());
  EXPECT_FALSE((*stream)->synchronize().is_ok());
  std::vector<TaskTraceRecord> trace = device.take_task_trace();
  ASSERT_EQ(trace.size(), 1u);
  EXPECT_EQ(trace[0].name, "cpu.Div");
}

TEST(CpuDeviceTracing, KeepsRecordsOfDestroyedStreams) {
  CpuDevice device;
  ASSERT_TRUE(device.set_task_tracing(true).is_ok());
  {
    Result<std::unique_ptr<Stream>> stream = device.create_stream();
    ASSERT_TRUE(stream.is_ok());
    int32_t a = 1, b = 0;
    std::vector<Task> tasks{MemcpyTask{&b, &a, sizeof(int32_t)}};
    ASSERT_TRUE((*stream)->submit(tasks).is_ok());
  }  // destroying the stream waits for its tasks
  std::vector<TaskTraceRecord> trace = device.take_task_trace();
  ASSERT_EQ(trace.size(), 1u);
  EXPECT_EQ(trace[0].name, "memcpy");
  EXPECT_EQ(trace[0].stream, 0);
}

TEST(CpuDeviceTracing, ManyStreamsOnWorkersRecordEveryTask) {
  CpuDeviceOptions options;
  options.threads = 3;
  CpuDevice device(options);
  ASSERT_TRUE(device.set_task_tracing(true).is_ok());
  constexpr int kStreams = 4, kBatches = 50, kCopiesPerBatch = 4;
  std::vector<std::unique_ptr<Stream>> streams;
  for (int s = 0; s < kStreams; ++s) streams.push_back(device.create_stream().value());
  std::vector<int32_t> cells(kStreams * 2, 0);
  std::vector<std::thread> hosts;
  for (int s = 0; s < kStreams; ++s) {
    hosts.emplace_back([&, s] {
      std::vector<Task> batch(kCopiesPerBatch, MemcpyTask{&cells[2 * s + 1], &cells[2 * s], sizeof(int32_t)});
      for (int i = 0; i < kBatches; ++i) EXPECT_TRUE(streams[s]->submit(batch).is_ok());
    });
  }
  for (std::thread& host : hosts) host.join();
  for (auto& stream : streams) ASSERT_TRUE(stream->synchronize().is_ok());
  std::vector<TaskTraceRecord> trace = device.take_task_trace();
  ASSERT_EQ(trace.size(), size_t{kStreams * kBatches * kCopiesPerBatch});
  std::vector<int> per_stream(kStreams, 0);
  std::vector<double> last_end(kStreams, 0);
  for (const TaskTraceRecord& record : trace) {
    ASSERT_GE(record.stream, 0);
    ASSERT_LT(record.stream, kStreams);
    ++per_stream[record.stream];
    EXPECT_GE(record.start_ns, last_end[record.stream]) << "one stream's tasks run one after another, in order";
    last_end[record.stream] = record.end_ns;
  }
  EXPECT_EQ(per_stream, std::vector<int>(kStreams, kBatches * kCopiesPerBatch));
}

TEST(CpuDeviceTracing, IsWallTime) { EXPECT_FALSE(CpuDevice().simulated_time()); }

}  // namespace
}  // namespace ge
