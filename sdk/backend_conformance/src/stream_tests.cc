// Streams: tasks of one stream run in submission order, each after the previous one
// finished, however they are split into submit() calls.
#include <algorithm>
#include <string>
#include <utility>

#include "add_one_kernel.h"
#include "device_buffer.h"
#include "suite.h"

namespace ge::backend_conformance {
namespace {

constexpr size_t kBlock = 4096;

/// `count` device blocks, block i filled with byte i + 1.
Result<std::vector<DeviceBuffer>> numbered_blocks(Device& device, size_t count) {
  std::vector<DeviceBuffer> blocks;
  for (size_t i = 0; i < count; ++i) {
    GE_ASSIGN_OR_RETURN(DeviceBuffer block, DeviceBuffer::allocate(device, kBlock));
    GE_RETURN_IF_ERROR(block.fill(static_cast<std::byte>(i + 1)));
    blocks.push_back(std::move(block));
  }
  return blocks;
}

void memcpy_tasks_run_in_submission_order(Environment& env) {
  Device& device = env.backend().device();
  GE_ASSERT_OK_AND_ASSIGN(std::unique_ptr<Stream> stream, device.create_stream());
  for (const bool one_submit : {true, false}) {
    SCOPED_TRACE(one_submit ? "one submit() for the whole chain" : "one submit() per task");
    // A relay: block 0 -> 1 -> ... -> 63. Each copy must see the previous one's bytes.
    GE_ASSERT_OK_AND_ASSIGN(std::vector<DeviceBuffer> blocks, numbered_blocks(device, 64));
    const std::vector<std::byte> data = random_bytes(kBlock, env.config().seed);
    GE_ASSERT_OK(blocks[0].write(data));
    std::vector<Task> relay;
    for (size_t i = 0; i + 1 < blocks.size(); ++i) {
      relay.push_back(MemcpyTask{blocks[i + 1].get(), blocks[i].get(), kBlock});
    }
    if (one_submit) {
      GE_ASSERT_OK(stream->submit(relay));
    } else {
      for (const Task& task : relay) GE_ASSERT_OK(stream->submit(std::span(&task, 1)));
    }
    GE_ASSERT_OK(stream->synchronize());
    for (size_t i = 1; i < blocks.size(); ++i) {
      GE_ASSERT_OK_AND_ASSIGN(std::vector<std::byte> back, blocks[i].read());
      ASSERT_TRUE(back == data) << "block " << i << " of the relay does not hold the relayed bytes";
    }
  }
  // Three copies into one block: the last submitted wins.
  GE_ASSERT_OK_AND_ASSIGN(std::vector<DeviceBuffer> blocks, numbered_blocks(device, 4));
  const Task writes[] = {MemcpyTask{blocks[0].get(), blocks[1].get(), kBlock},
                         MemcpyTask{blocks[0].get(), blocks[2].get(), kBlock},
                         MemcpyTask{blocks[0].get(), blocks[3].get(), kBlock}};
  GE_ASSERT_OK(stream->submit(writes));
  GE_ASSERT_OK(stream->synchronize());
  GE_ASSERT_OK_AND_ASSIGN(std::vector<std::byte> last, blocks[0].read());
  EXPECT_TRUE(last == std::vector<std::byte>(kBlock, std::byte{4})) << "the last of three copies into a block must win";
}

void memset_tasks_fill_in_submission_order(Environment& env) {
  // Atomic clean zeroes memory with MemsetTasks: each fills exactly its bytes, in stream
  // order with the copies around it.
  Device& device = env.backend().device();
  GE_ASSERT_OK_AND_ASSIGN(std::unique_ptr<Stream> stream, device.create_stream());
  GE_ASSERT_OK_AND_ASSIGN(std::vector<DeviceBuffer> blocks, numbered_blocks(device, 2));  // bytes 1 and 2
  const Task tasks[] = {MemsetTask{blocks[0].at(1000), 2000, 0}, MemsetTask{blocks[0].get(), 10, 0xAB},
                        MemsetTask{nullptr, 0, 0},  // nothing to fill
                        MemcpyTask{blocks[1].get(), blocks[0].get(), kBlock}, MemsetTask{blocks[0].get(), 10, 0}};
  GE_ASSERT_OK(stream->submit(tasks));
  GE_ASSERT_OK(stream->synchronize());
  std::vector<std::byte> expected(kBlock, std::byte{1});
  std::fill(expected.begin(), expected.begin() + 10, std::byte{0xAB});
  std::fill(expected.begin() + 1000, expected.begin() + 3000, std::byte{0});
  GE_ASSERT_OK_AND_ASSIGN(std::vector<std::byte> copied, blocks[1].read());
  EXPECT_TRUE(copied == expected) << "the copy after two memsets must see both, and nothing else changed";
  std::fill(expected.begin(), expected.begin() + 10, std::byte{0});
  GE_ASSERT_OK_AND_ASSIGN(std::vector<std::byte> last, blocks[0].read());
  EXPECT_TRUE(last == expected) << "the memset after the copy must run after it";
}

void kernel_tasks_run_in_submission_order(Environment& env) {
  Result<std::unique_ptr<AddOneKernel>> add = AddOneKernel::create(env, 1024);
  if (!add.is_ok()) GTEST_SKIP() << add.status().message();
  AddOneKernel& kernel = **add;
  GE_ASSERT_OK_AND_ASSIGN(std::unique_ptr<Stream> stream, env.backend().device().create_stream());
  // 100 dependent kernels in one submit, then in ten submits without a synchronize between.
  GE_ASSERT_OK(kernel.reset(0));
  GE_ASSERT_OK(stream->submit(kernel.chain(100)));
  GE_ASSERT_OK(stream->synchronize());
  GE_ASSERT_OK(kernel.expect(true, 100));
  GE_ASSERT_OK(kernel.reset(0));
  const std::vector<Task> ten = kernel.chain(10);
  for (int i = 0; i < 10; ++i) GE_ASSERT_OK(stream->submit(ten));
  GE_ASSERT_OK(stream->synchronize());
  GE_ASSERT_OK(kernel.expect(true, 100));
  // Copies interleaved with kernels see the kernels before them and none after.
  GE_ASSERT_OK(kernel.reset(0));
  GE_ASSERT_OK_AND_ASSIGN(DeviceBuffer snapshot, DeviceBuffer::allocate(env.backend().device(), kernel.bytes()));
  std::vector<Task> mixed = kernel.chain(10);
  mixed.push_back(MemcpyTask{snapshot.get(), kernel.a(), kernel.bytes()});
  for (const Task& task : kernel.chain(10)) mixed.push_back(task);
  GE_ASSERT_OK(stream->submit(mixed));
  GE_ASSERT_OK(stream->synchronize());
  GE_ASSERT_OK(kernel.expect(true, 20));
  GE_ASSERT_OK_AND_ASSIGN(std::vector<std::byte> bytes, snapshot.read());
  const Tensor taken = Tensor::borrow(DataType::kFloat32, {1024}, bytes.data());
  for (const float value : taken.values<float>()) ASSERT_EQ(value, 10.0f) << "a copy between kernels 10 and 11";
}

void more_tasks_than_a_queue_holds(Environment& env) {
  // Real devices queue a bounded number of tasks; a longer submit must still run all of them.
  constexpr size_t kTasks = 5000;
  Device& device = env.backend().device();
  GE_ASSERT_OK_AND_ASSIGN(std::unique_ptr<Stream> stream, device.create_stream());
  GE_ASSERT_OK_AND_ASSIGN(DeviceBuffer source, DeviceBuffer::allocate(device, kTasks * 4));
  GE_ASSERT_OK_AND_ASSIGN(DeviceBuffer gathered, DeviceBuffer::allocate(device, kTasks * 4));
  GE_ASSERT_OK_AND_ASSIGN(DeviceBuffer result, DeviceBuffer::allocate(device, kTasks * 4));
  const std::vector<std::byte> data = random_bytes(kTasks * 4, env.config().seed);
  GE_ASSERT_OK(source.write(data));
  GE_ASSERT_OK(gathered.fill(std::byte{0}));
  std::vector<Task> tasks;
  for (size_t i = 0; i < kTasks; ++i) tasks.push_back(MemcpyTask{gathered.at(4 * i), source.at(4 * i), 4});
  tasks.push_back(MemcpyTask{result.get(), gathered.get(), kTasks * 4});  // after every one of them
  GE_ASSERT_OK(stream->submit(tasks));
  GE_ASSERT_OK(stream->synchronize());
  GE_ASSERT_OK_AND_ASSIGN(std::vector<std::byte> back, result.read());
  EXPECT_TRUE(back == data) << kTasks << " four-byte copies, then one copy of all: some copy was dropped or ran late";
}

void run_waits_for_its_tasks_and_earlier_ones(Environment& env) {
  Result<std::unique_ptr<AddOneKernel>> add = AddOneKernel::create(env, 256);
  if (!add.is_ok()) GTEST_SKIP() << add.status().message();
  AddOneKernel& kernel = **add;
  GE_ASSERT_OK_AND_ASSIGN(std::unique_ptr<Stream> stream, env.backend().device().create_stream());
  GE_ASSERT_OK(kernel.reset(0));
  GE_ASSERT_OK(stream->submit(kernel.chain(50)));
  GE_ASSERT_OK(stream->run(kernel.chain(50)));  // no synchronize(): run() waits for all
  GE_ASSERT_OK(kernel.expect(true, 100));
}

void streams_run_independently(Environment& env) {
  Result<std::unique_ptr<AddOneKernel>> first = AddOneKernel::create(env, 512);
  if (!first.is_ok()) GTEST_SKIP() << first.status().message();
  GE_ASSERT_OK_AND_ASSIGN(std::unique_ptr<AddOneKernel> second, AddOneKernel::create(env, 512));
  Device& device = env.backend().device();
  GE_ASSERT_OK_AND_ASSIGN(std::unique_ptr<Stream> one, device.create_stream());
  GE_ASSERT_OK_AND_ASSIGN(std::unique_ptr<Stream> two, device.create_stream());
  GE_ASSERT_OK((*first)->reset(0));
  GE_ASSERT_OK(second->reset(1000));
  const std::vector<Task> a = (*first)->chain(10), b = second->chain(10);
  for (int i = 0; i < 5; ++i) {
    GE_ASSERT_OK(one->submit(a));
    GE_ASSERT_OK(two->submit(b));
  }
  GE_ASSERT_OK(two->synchronize());
  GE_ASSERT_OK(one->synchronize());
  GE_ASSERT_OK((*first)->expect(true, 50));
  GE_ASSERT_OK(second->expect(true, 1050));
}

}  // namespace

std::vector<TestEntry> stream_tests() {
  return {
      {"Streams", "MemcpyTasksRunInSubmissionOrder", memcpy_tasks_run_in_submission_order},
      {"Streams", "MemsetTasksFillInSubmissionOrder", memset_tasks_fill_in_submission_order},
      {"Streams", "KernelTasksRunInSubmissionOrder", kernel_tasks_run_in_submission_order},
      {"Streams", "MoreTasksThanAQueueHolds", more_tasks_than_a_queue_holds},
      {"Streams", "RunWaitsForItsTasksAndEarlierOnes", run_waits_for_its_tasks_and_earlier_ones},
      {"Streams", "StreamsRunIndependently", streams_run_independently},
  };
}

}  // namespace ge::backend_conformance
