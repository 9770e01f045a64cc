#include <gtest/gtest.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <fstream>
#include <iterator>
#include <limits>
#include <string>
#include <memory>
#include <vector>

#include "ge/graph.h"
#include "ge/plugin_options.h"
#include "ge/runtime/model_runner.h"
#include "npu_sim_backend.h"
#include "npu_sim_device.h"

namespace ge {
namespace {

NpuSimConfig small_config() {
  NpuSimConfig config;
  config.capacity_bytes = size_t{1} << 20;
  config.queue_depth = 2;
  config.launch_ns = 100;
  config.bandwidth_bytes_per_ns = 1;
  config.vector_elements_per_ns = 1;
  config.matrix_elements_per_ns = 1;
  return config;
}

/// A Relu over float[4] with its descs set by hand (no op registry needed).
struct ReluGraph {
  ReluGraph() {
    Value* x = graph.add_input("x", TensorDesc::of(DataType::kFloat32, {4}));
    node = graph.add_node("Relu", {x}, 1, "relu", {"y"});
    node->output(0)->set_desc(TensorDesc::of(DataType::kFloat32, {4}));
    graph.add_output(node->output(0));
  }
  Graph graph;
  Node* node = nullptr;
};

struct Launch {
  std::vector<const void*> inputs;
  std::vector<void*> outputs;
  KernelTask task(const PreparedKernel& kernel) {
    KernelTask t;
    t.function = kernel.function;
    t.args.params = kernel.params.get();
    t.args.inputs = inputs.data();
    t.args.outputs = outputs.data();
    t.name = kernel.name.c_str();
    return t;
  }
};

TEST(NpuSimDevice, MemoryIsBoundedAndReused) {
  NpuSimDevice device(small_config());
  auto a = device.allocate(512 << 10);
  ASSERT_TRUE(a.is_ok());
  auto b = device.allocate(600 << 10);
  ASSERT_FALSE(b.is_ok());
  EXPECT_NE(b.status().message().find("out of device memory: cannot allocate 614400 bytes (capacity 1048576, in use 524288)"),
            std::string::npos)
      << b.status().message();
  device.deallocate(*a);
  EXPECT_EQ(device.bytes_in_use(), 0u);
  auto c = device.allocate(600 << 10);
  ASSERT_TRUE(c.is_ok()) << c.status().to_string();
  EXPECT_EQ(*c, *a) << "first fit reuses the freed bytes";
  EXPECT_FALSE(device.allocate(16, 3).is_ok());
}

TEST(NpuSimDevice, ARequestNearSizeMaxIsOutOfMemoryNotAWrappedAddress) {
  NpuSimDevice device(small_config());
  ASSERT_TRUE(device.allocate(64).is_ok());
  // offset 64 + (SIZE_MAX - 31) wraps to 32, below the capacity: it was handed out.
  auto huge = device.allocate(std::numeric_limits<size_t>::max() - 31);
  ASSERT_FALSE(huge.is_ok());
  EXPECT_NE(huge.status().message().find(
                "out of device memory: cannot allocate 18446744073709551584 bytes (capacity 1048576"),
            std::string::npos)
      << huge.status().message();
}

/// This process's address space (VmSize), in bytes.
size_t address_space_bytes() {
  std::ifstream status("/proc/self/status");
  std::string line;
  while (std::getline(status, line)) {
    if (line.rfind("VmSize:", 0) == 0) return std::stoull(line.substr(7)) * 1024;
  }
  return 0;
}

TEST(NpuSimDevice, ReservesItsMemoryOnTheFirstAllocationNotAtConstruction) {
  // Every ge.Session registers npu_sim; its 256 MiB block at construction made the 22nd
  // live cpu Session fail under `ulimit -v 6G` ("registration failed: std::bad_alloc").
  NpuSimConfig config = small_config();
  config.capacity_bytes = size_t{1} << 30;
  const size_t before = address_space_bytes();
  auto device = std::make_unique<NpuSimDevice>(config);
  const size_t constructed = address_space_bytes();
  EXPECT_LT(constructed, before + (size_t{256} << 20)) << "the device reserved its memory at construction";
  EXPECT_FALSE(device->check_range(&config, 1, "copy").is_ok());
  auto p = device->allocate(64);
  ASSERT_TRUE(p.is_ok()) << p.status().to_string();
  EXPECT_GE(address_space_bytes(), constructed + (size_t{1} << 30));
  EXPECT_TRUE(device->check_range(*p, 64, "copy").is_ok());
  device->deallocate(*p);
}

#if !defined(__SANITIZE_ADDRESS__) && !defined(__SANITIZE_THREAD__)
TEST(NpuSimDevice, MemoryTheHostCannotReserveIsAnErrorNamingItsSize) {
  // In a child under an address-space limit: the first allocation cannot reserve 2 GiB.
  const pid_t child = fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    const rlim_t limit = address_space_bytes() + (size_t{512} << 20);
    const rlimit rl{limit, limit};
    if (setrlimit(RLIMIT_AS, &rl) != 0) _exit(3);
    NpuSimConfig config = small_config();
    config.capacity_bytes = size_t{2} << 30;
    NpuSimDevice device(config);
    auto p = device.allocate(64);
    const bool expected = !p.is_ok() && p.status().message() ==
                                            "npu_sim: out of host memory: cannot reserve the simulated device memory "
                                            "of 2.0 GiB (2147483648 bytes; the capacity_mib option sets it)";
    if (!expected) std::fprintf(stderr, "got: %s\n", p.status().to_string().c_str());
    _exit(expected ? 0 : 1);
  }
  int status = 0;
  ASSERT_EQ(waitpid(child, &status, 0), child);
  ASSERT_TRUE(WIFEXITED(status));
  EXPECT_EQ(WEXITSTATUS(status), 0);
}
#endif

TEST(NpuSimDevice, CopiesAreBoundsChecked) {
  NpuSimDevice device(small_config());
  auto p = device.allocate(8);
  ASSERT_TRUE(p.is_ok());
  const float host[4] = {1, 2, 3, 4};
  float back[2] = {};
  ASSERT_TRUE(device.copy_to_device(*p, host, 8).is_ok());
  ASSERT_TRUE(device.copy_to_host(back, *p, 8).is_ok());
  EXPECT_EQ(back[0], 1);
  EXPECT_EQ(back[1], 2);
  Status overrun = device.copy_to_device(*p, host, 16);
  EXPECT_EQ(overrun.code(), StatusCode::kInvalidArgument);
  EXPECT_NE(overrun.message().find("16 bytes at offset 0 overrun the allocation of 8 bytes"), std::string::npos) << overrun.message();
  // 4 + (SIZE_MAX - 3) wraps to 0, inside the allocation: the check let it through to memcpy.
  Status wrapped = device.copy_to_host(back, static_cast<std::byte*>(*p) + 4, std::numeric_limits<size_t>::max() - 3);
  EXPECT_NE(wrapped.message().find("overrun the allocation of 8 bytes"), std::string::npos) << wrapped.message();
  float outside[4];
  Status host_address = device.copy_to_host(back, outside, 4);
  EXPECT_NE(host_address.message().find("outside device memory"), std::string::npos) << host_address.message();
  device.deallocate(*p);
  Status freed = device.copy_to_host(back, *p, 4);
  EXPECT_NE(freed.message().find("not in a live allocation"), std::string::npos) << freed.message();
}

// ge-compile for npu_sim creates no simulated device: compiling prepares kernels and plans
// with the backend alone (seed 001); the device comes with the first load.
TEST(NpuSimBackend, CompilingCreatesNoDevice) {
  NpuSimConfig config = small_config();
  config.queue_depth = 64;  // capture keeps 32 slots free
  NpuSimBackend backend(config);
  ReluGraph g;
  Result<CompiledModel> compiled = ModelRunner::compile(g.graph, backend);
  ASSERT_TRUE(compiled.is_ok()) << compiled.status().to_string();
  EXPECT_FALSE(backend.device_created());
  ASSERT_EQ(compiled->plans().tasks.size(), 1u);
  EXPECT_EQ(compiled->plans().tasks[0].size(), 1u);
  auto runner = ModelRunner::load(std::move(*compiled), backend);
  ASSERT_TRUE(runner.is_ok()) << runner.status().to_string();
  EXPECT_TRUE(backend.device_created());
  std::vector<Tensor> outputs;
  ASSERT_TRUE((*runner)->execute({{"x", Tensor::from_vector<float>({4}, {-1, 2, -3, 4})}}, outputs).is_ok());
  ASSERT_EQ(outputs.size(), 1u);
  EXPECT_EQ(std::vector<float>(outputs[0].values<float>().begin(), outputs[0].values<float>().end()),
            (std::vector<float>{0, 2, 0, 4}));
}

TEST(NpuSimBackend, RunsAReferenceKernelOnDeviceMemory) {
  NpuSimBackend backend(small_config());
  ReluGraph g;
  std::string reason;
  ASSERT_TRUE(backend.supports(*g.node, &reason)) << reason;
  auto kernel = backend.prepare(*g.node);
  ASSERT_TRUE(kernel.is_ok()) << kernel.status().to_string();
  Device& device = backend.device();
  EXPECT_FALSE(device.host_accessible());
  ASSERT_TRUE(device.set_task_tracing(true).is_ok());
  void* in = *device.allocate(16);
  void* out = *device.allocate(16);
  const float x[4] = {-1, 2, -3, 4};
  ASSERT_TRUE(device.copy_to_device(in, x, 16).is_ok());
  auto stream = device.create_stream();
  ASSERT_TRUE(stream.is_ok());
  Launch launch{{in}, {out}};
  const Task tasks[] = {launch.task(*kernel)};
  ASSERT_TRUE((*stream)->submit(tasks).is_ok());
  ASSERT_TRUE((*stream)->synchronize().is_ok());
  float y[4];
  ASSERT_TRUE(device.copy_to_host(y, out, 16).is_ok());
  EXPECT_EQ(std::vector<float>(y, y + 4), (std::vector<float>{0, 2, 0, 4}));
  // Cost: launch 100 + max(32 bytes / 1 B/ns, 8 elements / 1 per ns) = 132 ns.
  ASSERT_EQ(backend.sim_device().timeline().size(), 1u);
  EXPECT_DOUBLE_EQ(backend.sim_device().timeline()[0].start_ns, 0);
  EXPECT_DOUBLE_EQ(backend.sim_device().timeline()[0].end_ns, 132);
}

TEST(NpuSimBackend, OutOfRangeKernelIsAnErrorNamingTheTask) {
  NpuSimBackend backend(small_config());
  ReluGraph g;
  auto kernel = backend.prepare(*g.node);
  ASSERT_TRUE(kernel.is_ok());
  Device& device = backend.device();
  void* in = *device.allocate(16);
  void* small_out = *device.allocate(8);
  auto stream = device.create_stream();
  Launch launch{{in}, {small_out}};
  const Task tasks[] = {launch.task(*kernel)};
  ASSERT_TRUE((*stream)->submit(tasks).is_ok());
  Status status = (*stream)->synchronize();
  ASSERT_FALSE(status.is_ok());
  EXPECT_NE(status.message().find("stream 0 task 0 (kernel '"), std::string::npos) << status.message();
  EXPECT_NE(status.message().find("output 0: 16 bytes at offset 0 overrun the allocation of 8 bytes"), std::string::npos)
      << status.message();
  EXPECT_TRUE((*stream)->synchronize().is_ok()) << "the error is reported once";
}

int host_kernel(const KernelArgs&) { return 0; }

TEST(NpuSimBackend, RejectsKernelsItDidNotPrepare) {
  NpuSimBackend backend(small_config());
  auto stream = backend.device().create_stream();
  KernelTask foreign;
  foreign.function = &host_kernel;
  foreign.name = "cpu.Relu";
  const Task tasks[] = {foreign};
  Status status = (*stream)->submit(tasks);
  EXPECT_EQ(status.code(), StatusCode::kInvalidArgument);
  EXPECT_NE(status.message().find("task 0 (kernel 'cpu.Relu') was not prepared by the npu_sim backend"), std::string::npos)
      << status.message();
}

TEST(NpuSimDevice, FullQueueDrainsInOrder) {
  NpuSimDevice device(small_config());  // queue depth 2
  ASSERT_TRUE(device.set_task_tracing(true).is_ok());
  auto stream = device.create_stream();
  int32_t* cells = static_cast<int32_t*>(*device.allocate(6 * sizeof(int32_t)));
  const int32_t start = 5;
  ASSERT_TRUE(device.copy_to_device(cells, &start, sizeof start).is_ok());
  std::vector<Task> chain;  // cells[i + 1] = cells[i]: order matters
  for (int i = 0; i < 5; ++i) chain.push_back(MemcpyTask{cells + i + 1, cells + i, sizeof(int32_t)});
  ASSERT_TRUE((*stream)->submit(chain).is_ok());
  EXPECT_EQ(device.timeline().size(), 3u) << "5 tasks through a queue of 2: 3 ran during submit";
  ASSERT_TRUE((*stream)->synchronize().is_ok());
  int32_t last = 0;
  ASSERT_TRUE(device.copy_to_host(&last, cells + 5, sizeof last).is_ok());
  EXPECT_EQ(last, 5);
  EXPECT_EQ(device.timeline().size(), 5u);
  // Each copy: 100 launch + 2 * 4 bytes / 1 B/ns = 108 ns, back to back.
  EXPECT_DOUBLE_EQ(device.timeline()[4].end_ns, 540);
}

TEST(NpuSimDevice, EventsOrderStreamsInSimulatedTime) {
  NpuSimBackend backend(small_config());
  ReluGraph g;
  auto kernel = backend.prepare(*g.node);
  ASSERT_TRUE(kernel.is_ok());
  Device& device = backend.device();
  void* a = *device.allocate(16);
  void* b = *device.allocate(16);
  void* c = *device.allocate(16);
  const float x[4] = {-1, 1, -2, 2};
  ASSERT_TRUE(device.copy_to_device(a, x, 16).is_ok());
  ASSERT_TRUE(device.set_task_tracing(true).is_ok());
  // The waiting stream is created first, so the scheduler looks at it first: its wait
  // must hold it back until the other stream's record has run.
  auto s1 = device.create_stream();
  auto s0 = device.create_stream();
  auto event = device.create_event();
  Launch first{{a}, {b}}, second{{b}, {c}};
  const Task t0[] = {first.task(*kernel), EventRecordTask{event->get()}};
  const Task t1[] = {EventWaitTask{event->get()}, second.task(*kernel)};
  ASSERT_TRUE((*s0)->submit(t0).is_ok());
  ASSERT_TRUE((*s1)->submit(t1).is_ok());
  ASSERT_TRUE((*s1)->synchronize().is_ok());
  ASSERT_TRUE((*event)->synchronize().is_ok());
  float y[4];
  ASSERT_TRUE(device.copy_to_host(y, c, 16).is_ok());
  EXPECT_EQ(std::vector<float>(y, y + 4), (std::vector<float>{0, 1, 0, 2}));
  const auto& timeline = backend.sim_device().timeline();
  ASSERT_EQ(timeline.size(), 4u);
  EXPECT_EQ(timeline.back().stream, 0) << "the waiting stream was created first (id 0)";
  EXPECT_DOUBLE_EQ(timeline.back().start_ns, 132);
  EXPECT_DOUBLE_EQ(timeline.back().end_ns, 264);
}

TEST(NpuSimDevice, IndependentStreamsOverlap) {
  for (int streams : {1, 4}) {
    NpuSimBackend backend(small_config());
    ReluGraph g;
    auto kernel = backend.prepare(*g.node);
    ASSERT_TRUE(kernel.is_ok());
    Device& device = backend.device();
    std::vector<std::unique_ptr<Stream>> list;
    for (int s = 0; s < streams; ++s) list.push_back(device.create_stream().value());
    std::vector<Launch> launches;
    for (int k = 0; k < 4; ++k) launches.push_back({{*device.allocate(16)}, {*device.allocate(16)}});
    for (int k = 0; k < 4; ++k) {
      const Task t[] = {launches[k].task(*kernel)};
      ASSERT_TRUE(list[k % streams]->submit(t).is_ok());
    }
    for (auto& s : list) ASSERT_TRUE(s->synchronize().is_ok());
    EXPECT_DOUBLE_EQ(backend.sim_device().now_ns(), streams == 1 ? 4 * 132.0 : 132.0);
  }
}

TEST(NpuSimDevice, TracesTheSimulatedTimeline) {
  NpuSimBackend backend(small_config());
  ReluGraph g;
  auto kernel = backend.prepare(*g.node);
  ASSERT_TRUE(kernel.is_ok());
  Device& device = backend.device();
  EXPECT_TRUE(device.simulated_time());
  std::vector<std::unique_ptr<Stream>> streams;
  for (int s = 0; s < 2; ++s) streams.push_back(device.create_stream().value());
  Launch launch{{*device.allocate(16)}, {*device.allocate(16)}};
  const Task t[] = {launch.task(*kernel)};
  ASSERT_TRUE(streams[0]->submit(t).is_ok());  // before tracing: not in the trace
  ASSERT_TRUE(streams[0]->synchronize().is_ok());
  ASSERT_TRUE(device.set_task_tracing(true).is_ok());
  for (auto& stream : streams) ASSERT_TRUE(stream->submit(t).is_ok());
  for (auto& stream : streams) ASSERT_TRUE(stream->synchronize().is_ok());
  std::vector<TaskTraceRecord> trace = device.take_task_trace();
  ASSERT_EQ(trace.size(), 2u);
  // Stream 0 ran one kernel (132 ns) before tracing; stream 1 starts at 0.
  EXPECT_EQ(trace[0].stream, 0);
  EXPECT_DOUBLE_EQ(trace[0].start_ns, 132);
  EXPECT_DOUBLE_EQ(trace[0].end_ns, 264);
  EXPECT_EQ(trace[1].stream, 1);
  EXPECT_DOUBLE_EQ(trace[1].start_ns, 0);
  EXPECT_DOUBLE_EQ(trace[1].end_ns, 132);
  EXPECT_EQ(trace[0].name, trace[1].name);
  EXPECT_TRUE(device.take_task_trace().empty());
  // Stopping keeps what ran while on, drops what runs after.
  ASSERT_TRUE(streams[1]->submit(t).is_ok());
  ASSERT_TRUE(streams[1]->synchronize().is_ok());
  ASSERT_TRUE(device.set_task_tracing(false).is_ok());
  ASSERT_TRUE(streams[1]->submit(t).is_ok());
  ASSERT_TRUE(streams[1]->synchronize().is_ok());
  ASSERT_EQ(device.take_task_trace().size(), 1u);
  EXPECT_TRUE(device.take_task_trace().empty());
}

// Issue 36 item 9: every task added a timeline entry whether tracing was on or not, so a
// long-running session grew by about 1 KiB per run, forever.
TEST(NpuSimDevice, KeepsNoRecordPerTaskWhileTracingIsOff) {
  NpuSimBackend backend(small_config());
  ReluGraph g;
  auto kernel = backend.prepare(*g.node);
  ASSERT_TRUE(kernel.is_ok());
  NpuSimDevice& device = backend.sim_device();
  auto stream = device.create_stream();
  auto event = device.create_event();
  Launch launch{{*device.allocate(16)}, {*device.allocate(16)}};
  void* copy = *device.allocate(16);
  // One run: a kernel, a copy, a memset and an event round trip, as an executor submits.
  const Task run[] = {launch.task(*kernel), MemcpyTask{copy, launch.outputs[0], 16}, MemsetTask{copy, 16, 0},
                      EventRecordTask{event->get()}, EventWaitTask{event->get()}};
  constexpr int kRuns = 20000;
  for (int r = 0; r < kRuns; ++r) {
    ASSERT_TRUE((*stream)->submit(run).is_ok());
    ASSERT_TRUE((*stream)->synchronize().is_ok());
  }
  EXPECT_EQ(device.timeline().size(), 0u) << kRuns << " untraced runs";
  EXPECT_TRUE(device.take_task_trace().empty());
  EXPECT_DOUBLE_EQ(device.now_ns(), kRuns * (132.0 + 132.0 + 116.0)) << "the clock still advances";

  // Traced runs whose trace is taken after each run keep one run's records at most.
  ASSERT_TRUE(device.set_task_tracing(true).is_ok());
  for (int r = 0; r < 1000; ++r) {
    ASSERT_TRUE((*stream)->submit(run).is_ok());
    ASSERT_TRUE((*stream)->synchronize().is_ok());
    ASSERT_EQ(device.timeline().size(), std::size(run));
    ASSERT_EQ(device.take_task_trace().size(), std::size(run));
    ASSERT_EQ(device.timeline().size(), 0u);
  }
  ASSERT_TRUE(device.set_task_tracing(false).is_ok());
  for (int r = 0; r < 1000; ++r) {
    ASSERT_TRUE((*stream)->submit(run).is_ok());
    ASSERT_TRUE((*stream)->synchronize().is_ok());
  }
  EXPECT_EQ(device.timeline().size(), 0u);
}

TEST(NpuSimConfig, ReadsAndValidatesOptions) {
  PluginOptions options;
  options.set("capacity_mib", int64_t{3});
  options.set("queue_depth", int64_t{7});
  options.set("launch_ns", 0.0);
  auto config = NpuSimConfig::from_options(options);
  ASSERT_TRUE(config.is_ok()) << config.status().to_string();
  EXPECT_EQ(config->capacity_bytes, size_t{3} << 20);
  EXPECT_EQ(config->queue_depth, 7u);
  EXPECT_EQ(config->launch_ns, 0.0);
  options.set("bandwidth_gbps", -1.0);
  auto bad = NpuSimConfig::from_options(options);
  ASSERT_FALSE(bad.is_ok());
  EXPECT_NE(bad.status().message().find("bandwidth_gbps must be positive"), std::string::npos);
  PluginOptions zero;
  zero.set("capacity_mib", int64_t{0});
  EXPECT_FALSE(NpuSimConfig::from_options(zero).is_ok());
}

}  // namespace
}  // namespace ge
