// Events: a wait on one stream holds its later tasks until the work before the matching
// record on another stream finished; Event::synchronize holds the host the same way.
#include <string>
#include <utility>

#include "add_one_kernel.h"
#include "device_buffer.h"
#include "suite.h"

namespace ge::backend_conformance {
namespace {

/// Work on one stream whose result is only right once every task of it ran: 200 Add
/// kernels when the backend has Add, else a relay of 200 copies.
class LongWork {
 public:
  static Result<std::unique_ptr<LongWork>> create(Environment& env) {
    std::unique_ptr<LongWork> work(new LongWork());
    Device& device = env.backend().device();
    Result<std::unique_ptr<AddOneKernel>> add = AddOneKernel::create(env, 4096);
    if (add.is_ok()) {
      work->add_ = std::move(add).value();
      GE_RETURN_IF_ERROR(work->add_->reset(0));
      const Tensor expected = Tensor::from_vector<float>({4096}, std::vector<float>(4096, 200.0f));
      const auto* bytes = static_cast<const std::byte*>(expected.raw_data());
      work->expected_.assign(bytes, bytes + expected.byte_size());
      work->tasks_ = work->add_->chain(200);
      work->result_ = work->add_->a();
      return work;
    }
    work->expected_ = random_bytes(16384, env.config().seed);
    for (int i = 0; i < 201; ++i) {
      GE_ASSIGN_OR_RETURN(DeviceBuffer block, DeviceBuffer::allocate(device, work->expected_.size()));
      GE_RETURN_IF_ERROR(block.fill(std::byte{0}));
      work->relay_.push_back(std::move(block));
    }
    GE_RETURN_IF_ERROR(work->relay_[0].write(work->expected_));
    for (size_t i = 0; i + 1 < work->relay_.size(); ++i) {
      work->tasks_.push_back(MemcpyTask{work->relay_[i + 1].get(), work->relay_[i].get(), work->expected_.size()});
    }
    work->result_ = work->relay_.back().get();
    return work;
  }

  const std::vector<Task>& tasks() const { return tasks_; }
  /// Where the finished work's bytes are, and what they must be.
  void* result() const { return result_; }
  const std::vector<std::byte>& expected() const { return expected_; }
  size_t bytes() const { return expected_.size(); }

 private:
  LongWork() = default;
  std::unique_ptr<AddOneKernel> add_;
  std::vector<DeviceBuffer> relay_;
  std::vector<Task> tasks_;
  void* result_ = nullptr;
  std::vector<std::byte> expected_;
};

void wait_orders_work_across_streams(Environment& env) {
  Device& device = env.backend().device();
  GE_ASSERT_OK_AND_ASSIGN(std::unique_ptr<LongWork> work, LongWork::create(env));
  GE_ASSERT_OK_AND_ASSIGN(std::unique_ptr<Stream> producer, device.create_stream());
  GE_ASSERT_OK_AND_ASSIGN(std::unique_ptr<Stream> consumer, device.create_stream());
  GE_ASSERT_OK_AND_ASSIGN(std::unique_ptr<Event> done, device.create_event());
  GE_ASSERT_OK_AND_ASSIGN(DeviceBuffer copy, DeviceBuffer::allocate(device, work->bytes()));
  GE_ASSERT_OK(copy.fill(std::byte{0}));
  std::vector<Task> produce = work->tasks();
  produce.push_back(EventRecordTask{done.get()});
  const Task consume[] = {EventWaitTask{done.get()}, MemcpyTask{copy.get(), work->result(), work->bytes()}};
  GE_ASSERT_OK(producer->submit(produce));
  GE_ASSERT_OK(consumer->submit(consume));
  // Only the consumer is synchronized first: its wait must make it wait for the producer.
  GE_ASSERT_OK(consumer->synchronize());
  GE_ASSERT_OK_AND_ASSIGN(std::vector<std::byte> seen, copy.read());
  EXPECT_TRUE(seen == work->expected()) << "the consumer's copy ran before the producer's work reached the record";
  GE_ASSERT_OK(producer->synchronize());
}

void host_synchronizes_on_an_event(Environment& env) {
  Device& device = env.backend().device();
  GE_ASSERT_OK_AND_ASSIGN(std::unique_ptr<LongWork> work, LongWork::create(env));
  GE_ASSERT_OK_AND_ASSIGN(std::unique_ptr<Stream> stream, device.create_stream());
  GE_ASSERT_OK_AND_ASSIGN(std::unique_ptr<Event> done, device.create_event());
  std::vector<Task> tasks = work->tasks();
  tasks.push_back(EventRecordTask{done.get()});
  GE_ASSERT_OK(stream->submit(tasks));
  GE_ASSERT_OK(done->synchronize());
  std::vector<std::byte> seen(work->bytes());
  GE_ASSERT_OK(device.copy_to_host(seen.data(), work->result(), seen.size()));
  EXPECT_TRUE(seen == work->expected()) << "Event::synchronize returned before the work recorded before it finished";
  GE_ASSERT_OK(stream->synchronize());
}

void fan_out_and_join_across_three_streams(Environment& env) {
  Device& device = env.backend().device();
  constexpr size_t kBytes = 65536;
  GE_ASSERT_OK_AND_ASSIGN(std::unique_ptr<LongWork> work, LongWork::create(env));
  std::vector<std::unique_ptr<Stream>> streams;
  for (int i = 0; i < 3; ++i) {
    GE_ASSERT_OK_AND_ASSIGN(std::unique_ptr<Stream> stream, device.create_stream());
    streams.push_back(std::move(stream));
  }
  std::vector<std::unique_ptr<Event>> events;
  for (int i = 0; i < 3; ++i) {
    GE_ASSERT_OK_AND_ASSIGN(std::unique_ptr<Event> event, device.create_event());
    events.push_back(std::move(event));
  }
  // Stream 0: the long work, then the source's bytes into `shared`; streams 1 and 2 each copy
  // half of `shared` on; stream 0 joins both and gathers the halves.
  const std::vector<std::byte> data = random_bytes(kBytes, env.config().seed + 7);
  GE_ASSERT_OK_AND_ASSIGN(DeviceBuffer source, DeviceBuffer::allocate(device, kBytes));
  GE_ASSERT_OK_AND_ASSIGN(DeviceBuffer shared, DeviceBuffer::allocate(device, kBytes));
  GE_ASSERT_OK_AND_ASSIGN(DeviceBuffer halves, DeviceBuffer::allocate(device, kBytes));
  GE_ASSERT_OK_AND_ASSIGN(DeviceBuffer gathered, DeviceBuffer::allocate(device, kBytes));
  GE_ASSERT_OK(source.write(data));
  for (DeviceBuffer* buffer : {&shared, &halves, &gathered}) GE_ASSERT_OK(buffer->fill(std::byte{0}));
  const size_t half = kBytes / 2;
  std::vector<Task> fork = work->tasks();
  fork.push_back(MemcpyTask{shared.get(), source.get(), kBytes});
  fork.push_back(EventRecordTask{events[0].get()});
  const Task left[] = {EventWaitTask{events[0].get()}, MemcpyTask{halves.get(), shared.get(), half},
                       EventRecordTask{events[1].get()}};
  const Task right[] = {EventWaitTask{events[0].get()}, MemcpyTask{halves.at(half), shared.at(half), half},
                        EventRecordTask{events[2].get()}};
  const Task join[] = {EventWaitTask{events[1].get()}, EventWaitTask{events[2].get()},
                       MemcpyTask{gathered.get(), halves.get(), kBytes}};
  GE_ASSERT_OK(streams[0]->submit(fork));
  GE_ASSERT_OK(streams[1]->submit(left));
  GE_ASSERT_OK(streams[2]->submit(right));
  GE_ASSERT_OK(streams[0]->submit(join));
  GE_ASSERT_OK(streams[0]->synchronize());
  GE_ASSERT_OK_AND_ASSIGN(std::vector<std::byte> back, gathered.read());
  EXPECT_TRUE(back == data) << "fork on stream 0, halves on streams 1 and 2, join on stream 0";
  GE_ASSERT_OK(streams[1]->synchronize());
  GE_ASSERT_OK(streams[2]->synchronize());
}

void an_event_is_recorded_again_every_run(Environment& env) {
  // The task sink records and waits on the same events in every execute: a wait must
  // follow the record submitted last before it, not an earlier one.
  Result<std::unique_ptr<AddOneKernel>> add = AddOneKernel::create(env, 1024);
  if (!add.is_ok()) GTEST_SKIP() << add.status().message();
  AddOneKernel& kernel = **add;
  Device& device = env.backend().device();
  GE_ASSERT_OK_AND_ASSIGN(std::unique_ptr<Stream> producer, device.create_stream());
  GE_ASSERT_OK_AND_ASSIGN(std::unique_ptr<Stream> consumer, device.create_stream());
  GE_ASSERT_OK_AND_ASSIGN(std::unique_ptr<Event> done, device.create_event());
  GE_ASSERT_OK_AND_ASSIGN(DeviceBuffer copy, DeviceBuffer::allocate(device, kernel.bytes()));
  GE_ASSERT_OK(kernel.reset(0));
  for (int round = 1; round <= 3; ++round) {
    SCOPED_TRACE("round " + std::to_string(round));
    GE_ASSERT_OK(copy.fill(std::byte{0}));
    std::vector<Task> produce = kernel.chain(100);
    produce.push_back(EventRecordTask{done.get()});
    const Task consume[] = {EventWaitTask{done.get()}, MemcpyTask{copy.get(), kernel.a(), kernel.bytes()}};
    GE_ASSERT_OK(producer->submit(produce));
    GE_ASSERT_OK(consumer->submit(consume));
    GE_ASSERT_OK(consumer->synchronize());
    GE_ASSERT_OK_AND_ASSIGN(std::vector<std::byte> bytes, copy.read());
    const Tensor seen = Tensor::borrow(DataType::kFloat32, {static_cast<int64_t>(kernel.bytes() / 4)}, bytes.data());
    for (const float value : seen.values<float>()) {
      ASSERT_EQ(value, 100.0f * static_cast<float>(round)) << "the wait did not follow the latest record";
    }
    GE_ASSERT_OK(producer->synchronize());
  }
}

}  // namespace

std::vector<TestEntry> event_tests() {
  return {
      {"Events", "WaitOrdersWorkAcrossStreams", wait_orders_work_across_streams},
      {"Events", "HostSynchronizesOnAnEvent", host_synchronizes_on_an_event},
      {"Events", "FanOutAndJoinAcrossThreeStreams", fan_out_and_join_across_three_streams},
      {"Events", "AnEventIsRecordedAgainEveryRun", an_event_is_recorded_again_every_run},
  };
}

}  // namespace ge::backend_conformance
