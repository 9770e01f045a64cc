// DeviceMemory: allocation, alignment, copies between host and device and on the device.
#include <algorithm>
#include <cstdint>
#include <cstring>
#include <utility>

#include "device_buffer.h"
#include "suite.h"

namespace ge::backend_conformance {
namespace {

/// Copies `bytes` from `source` to `destination` on the device (the only device-to-device
/// copy the interface has: a MemcpyTask) and waits.
Status device_copy(Device& device, void* destination, const void* source, size_t bytes) {
  GE_ASSIGN_OR_RETURN(std::unique_ptr<Stream> stream, device.create_stream());
  const Task copy = MemcpyTask{destination, source, bytes};
  GE_RETURN_IF_ERROR(stream->submit(std::span(&copy, 1)));
  return stream->synchronize();
}

/// GE's runtime asks for these alignments (its arenas use 512); every one must hold.
constexpr size_t kAlignments[] = {16, 32, 64, 128, 256, 512};

void allocations_are_aligned_and_disjoint(Environment& env) {
  Device& device = env.backend().device();
  const size_t sizes[] = {1, 3, 64, 100, 4096, 65537, size_t{1} << 20};
  std::vector<DeviceBuffer> buffers;
  for (const size_t bytes : sizes) {
    GE_ASSERT_OK_AND_ASSIGN(DeviceBuffer plain, DeviceBuffer::allocate(device, bytes));
    EXPECT_EQ(reinterpret_cast<uintptr_t>(plain.get()) % 64, 0u) << bytes << " bytes with the default alignment (64)";
    buffers.push_back(std::move(plain));
    for (const size_t alignment : kAlignments) {
      GE_ASSERT_OK_AND_ASSIGN(DeviceBuffer buffer, DeviceBuffer::allocate(device, bytes, alignment));
      EXPECT_EQ(reinterpret_cast<uintptr_t>(buffer.get()) % alignment, 0u)
          << bytes << " bytes aligned to " << alignment << " at " << buffer.get();
      buffers.push_back(std::move(buffer));
    }
  }
  std::vector<std::pair<uintptr_t, size_t>> ranges;
  for (const DeviceBuffer& buffer : buffers) ranges.emplace_back(reinterpret_cast<uintptr_t>(buffer.get()), buffer.size());
  std::sort(ranges.begin(), ranges.end());
  for (size_t i = 1; i < ranges.size(); ++i) {
    EXPECT_GE(ranges[i].first, ranges[i - 1].first + ranges[i - 1].second)
        << "live allocations overlap: " << ranges[i - 1].second << " bytes at 0x" << std::hex << ranges[i - 1].first
        << " and " << std::dec << ranges[i].second << " bytes at 0x" << std::hex << ranges[i].first;
  }
  // Distinct contents in every block, then every block read back: a block sharing bytes
  // with another would show the other's data.
  for (size_t i = 0; i < buffers.size(); ++i) {
    GE_ASSERT_OK(buffers[i].write(random_bytes(buffers[i].size(), env.config().seed + static_cast<uint32_t>(i))));
  }
  for (size_t i = 0; i < buffers.size(); ++i) {
    GE_ASSERT_OK_AND_ASSIGN(std::vector<std::byte> back, buffers[i].read());
    EXPECT_TRUE(back == random_bytes(buffers[i].size(), env.config().seed + static_cast<uint32_t>(i)))
        << "block " << i << " (" << buffers[i].size() << " bytes) lost its contents to another block";
  }
}

void larger_alignments_hold_when_accepted(Environment& env) {
  Device& device = env.backend().device();
  std::string refused;
  for (const size_t alignment : {size_t{1024}, size_t{4096}}) {
    Result<DeviceBuffer> buffer = DeviceBuffer::allocate(device, 1000, alignment);
    if (!buffer.is_ok()) {
      refused += " " + std::to_string(alignment);
      continue;
    }
    EXPECT_EQ(reinterpret_cast<uintptr_t>(buffer->get()) % alignment, 0u) << "accepted alignment " << alignment;
  }
  if (!refused.empty()) ::testing::Test::RecordProperty("refused_alignments", refused);
}

void zero_byte_allocation_is_an_error_or_freeable(Environment& env) {
  Device& device = env.backend().device();
  Result<void*> pointer = device.allocate(0);
  if (!pointer.is_ok()) {
    EXPECT_FALSE(pointer.status().message().empty()) << "a refused allocation says why";
    GTEST_SKIP() << "device '" << device.name() << "' refuses 0-byte allocations: " << pointer.status().message();
  }
  device.deallocate(*pointer);
  // Deallocating null is a no-op by the same rule as free().
  device.deallocate(nullptr);
}

void large_round_trip_is_bit_exact(Environment& env) {
  Device& device = env.backend().device();
  const size_t bytes = env.config().large_allocation_bytes;
  const std::vector<std::byte> data = random_bytes(bytes, env.config().seed);
  GE_ASSERT_OK_AND_ASSIGN(DeviceBuffer first, DeviceBuffer::allocate(device, bytes));
  GE_ASSERT_OK_AND_ASSIGN(DeviceBuffer second, DeviceBuffer::allocate(device, bytes));
  GE_ASSERT_OK(first.write(data));
  GE_ASSERT_OK(device_copy(device, second.get(), first.get(), bytes));
  GE_ASSERT_OK_AND_ASSIGN(std::vector<std::byte> back, second.read());
  ASSERT_EQ(back.size(), data.size());
  const auto mismatch = std::mismatch(back.begin(), back.end(), data.begin());
  EXPECT_TRUE(mismatch.first == back.end()) << bytes << " bytes host -> device -> device -> host differ first at byte "
                                            << (mismatch.first - back.begin());
}

void copies_at_offsets_touch_only_their_bytes(Environment& env) {
  Device& device = env.backend().device();
  constexpr size_t kBytes = 4096;
  GE_ASSERT_OK_AND_ASSIGN(DeviceBuffer buffer, DeviceBuffer::allocate(device, kBytes));
  GE_ASSERT_OK_AND_ASSIGN(DeviceBuffer other, DeviceBuffer::allocate(device, kBytes));
  std::vector<std::byte> expected = random_bytes(kBytes, env.config().seed);
  GE_ASSERT_OK(buffer.write(expected));
  GE_ASSERT_OK(other.fill(std::byte{0x5A}));
  // Unaligned offsets and odd sizes, as the task sink's staging copies make.
  const std::pair<size_t, size_t> pieces[] = {{0, 1}, {7, 13}, {64, 64}, {1001, 3}, {kBytes - 5, 5}};
  uint32_t seed = env.config().seed + 1;
  for (const auto& [offset, bytes] : pieces) {
    const std::vector<std::byte> piece = random_bytes(bytes, seed++);
    GE_ASSERT_OK(buffer.write(piece, offset));
    std::copy(piece.begin(), piece.end(), expected.begin() + static_cast<std::ptrdiff_t>(offset));
    GE_ASSERT_OK_AND_ASSIGN(std::vector<std::byte> read, buffer.read(bytes, offset));
    EXPECT_TRUE(read == piece) << bytes << " bytes at offset " << offset << " read back differently";
  }
  GE_ASSERT_OK_AND_ASSIGN(std::vector<std::byte> whole, buffer.read());
  EXPECT_TRUE(whole == expected) << "a copy at an offset changed bytes outside its range";
  // A device-to-device copy between unaligned offsets of two blocks.
  GE_ASSERT_OK(device_copy(device, other.at(3), buffer.at(1001), 1000));
  GE_ASSERT_OK_AND_ASSIGN(std::vector<std::byte> copied, other.read());
  std::vector<std::byte> want(kBytes, std::byte{0x5A});
  std::copy(expected.begin() + 1001, expected.begin() + 2001, want.begin() + 3);
  EXPECT_TRUE(copied == want) << "MemcpyTask of 1000 bytes from offset 1001 to offset 3";
}

void freed_memory_is_reused(Environment& env) {
  Device& device = env.backend().device();
  const size_t bytes = env.config().large_allocation_bytes;
  // 16 times the large size in turn: more than a small device holds unless frees return memory.
  for (int round = 0; round < 16; ++round) {
    GE_ASSERT_OK_AND_ASSIGN(DeviceBuffer buffer, DeviceBuffer::allocate(device, bytes));
    GE_ASSERT_OK_AND_ASSIGN(DeviceBuffer small, DeviceBuffer::allocate(device, 4096, 512));
  }
}

void host_accessible_memory_is_host_memory(Environment& env) {
  Device& device = env.backend().device();
  if (!device.host_accessible()) {
    GTEST_SKIP() << "device '" << device.name() << "' is not host-accessible: its addresses are never dereferenced";
  }
  GE_ASSERT_OK_AND_ASSIGN(DeviceBuffer buffer, DeviceBuffer::allocate(device, 256));
  const std::vector<std::byte> data = random_bytes(256, env.config().seed);
  GE_ASSERT_OK(buffer.write(data));
  EXPECT_EQ(std::memcmp(buffer.get(), data.data(), data.size()), 0) << "copy_to_device is not visible at the address";
  const std::vector<std::byte> other = random_bytes(256, env.config().seed + 1);
  std::memcpy(buffer.get(), other.data(), other.size());
  GE_ASSERT_OK_AND_ASSIGN(std::vector<std::byte> back, buffer.read());
  EXPECT_TRUE(back == other) << "a host write at the address is not what copy_to_host reads";
}

}  // namespace

std::vector<TestEntry> device_memory_tests() {
  return {
      {"DeviceMemory", "AllocationsAreAlignedAndDisjoint", allocations_are_aligned_and_disjoint},
      {"DeviceMemory", "LargerAlignmentsHoldWhenAccepted", larger_alignments_hold_when_accepted},
      {"DeviceMemory", "ZeroByteAllocationIsAnErrorOrFreeable", zero_byte_allocation_is_an_error_or_freeable},
      {"DeviceMemory", "LargeRoundTripIsBitExact", large_round_trip_is_bit_exact},
      {"DeviceMemory", "CopiesAtOffsetsTouchOnlyTheirBytes", copies_at_offsets_touch_only_their_bytes},
      {"DeviceMemory", "FreedMemoryIsReused", freed_memory_is_reused},
      {"DeviceMemory", "HostAccessibleMemoryIsHostMemory", host_accessible_memory_is_host_memory},
  };
}

}  // namespace ge::backend_conformance
