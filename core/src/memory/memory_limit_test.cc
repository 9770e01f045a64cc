// Tests of the memory limit check (ge/memory_limit.h).
#include "ge/memory_limit.h"

#include <gtest/gtest.h>

#include "ge/tensor_pool.h"
#include "held_bytes.h"

namespace ge {
namespace {

constexpr size_t kGiB = size_t{1} << 30;

TEST(MemoryLimitTest, FormatsBytesInBinaryUnits) {
  EXPECT_EQ(format_bytes(512), "512 B");
  EXPECT_EQ(format_bytes(1536), "1.5 KiB");
  EXPECT_EQ(format_bytes(23 * kGiB), "23 GiB");
  EXPECT_EQ(format_bytes(size_t{8} << 40), "8.0 TiB");
}

TEST(MemoryLimitTest, ParsesByteCountsWithSuffixes) {
  EXPECT_EQ(*parse_byte_size("1048576"), size_t{1} << 20);
  EXPECT_EQ(*parse_byte_size("4G"), 4 * kGiB);
  EXPECT_EQ(*parse_byte_size("512M"), size_t{512} << 20);
  EXPECT_EQ(*parse_byte_size("16kib"), size_t{16} << 10);
  EXPECT_EQ(*parse_byte_size("2TB"), size_t{2} << 40);
  EXPECT_EQ(*parse_byte_size("1.5G"), 3 * kGiB / 2);
  for (const char* bad : {"", "G", "0", "-1", "4X", "1.5", "1..5G", "4GG"}) {
    Result<size_t> parsed = parse_byte_size(bad);
    EXPECT_FALSE(parsed.is_ok()) << bad;
    if (!parsed.is_ok()) {
      EXPECT_NE(parsed.status().message().find("is not a byte count"), std::string::npos);
    }
  }
}

TEST(MemoryLimitTest, PhysicalMemoryIsKnownHere) { EXPECT_GT(physical_memory_bytes(), size_t{0}); }

TEST(MemoryLimitTest, ACheckPastTheLimitNamesWhatNeedsHowMuch) {
  EXPECT_TRUE(check_memory_limit("node X", kGiB, 23 * kGiB).is_ok());
  EXPECT_TRUE(check_memory_limit("node X", size_t{8} << 40, 0).is_ok());  // no limit
  Status status = check_memory_limit("node X", size_t{8} << 40, 23 * kGiB);
  ASSERT_FALSE(status.is_ok());
  EXPECT_EQ(status.code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(status.message().rfind("node X needs 8.0 TiB; limit 23 GiB", 0), 0u) << status.message();
  // What is in use counts.
  status = check_memory_limit("node X", 2 * kGiB, 3 * kGiB, 2 * kGiB);
  ASSERT_FALSE(status.is_ok());
  EXPECT_NE(status.message().find("2.0 GiB already in use"), std::string::npos) << status.message();
}

TEST(MemoryLimitTest, ThePoolChecksItsLimitAndNeverAllocatesPastIt) {
  std::shared_ptr<TensorPool> pool = TensorPool::create();
  EXPECT_TRUE(pool->fits("x", size_t{1} << 50).is_ok());  // no limit by default
  pool->set_memory_limit(size_t{1} << 20);
  EXPECT_TRUE(pool->fits("x", 1000).is_ok());
  Tensor held = pool->allocate(DataType::kFloat32, {200000});  // 800 KB of the 1 MiB
  Status status = pool->fits("Relu 'r'", 400000);
  ASSERT_FALSE(status.is_ok());
  EXPECT_EQ(status.message().rfind("Relu 'r' needs", 0), 0u) << status.message();
  EXPECT_THROW(pool->allocate(DataType::kFloat32, {1 << 20}), std::bad_alloc);
  // An overflowing shape throws rather than allocating a wrapped size.
  EXPECT_THROW(pool->allocate(DataType::kFloat32, {int64_t{1} << 31, int64_t{1} << 33}), std::bad_alloc);
}

// Issue 36 item 6: what GE holds outside the pool (weights, arenas) counts against the
// limit with what the pool has in use.
TEST(MemoryLimitTest, ReservationsCountAgainstTheLimitUntilReleased) {
  std::shared_ptr<TensorPool> pool = TensorPool::create();
  pool->set_memory_limit(size_t{1} << 20);
  Result<std::shared_ptr<void>> weights = pool->reserve("the model's weights", 600000);
  ASSERT_TRUE(weights.is_ok()) << weights.status().to_string();
  EXPECT_EQ(pool->statistics().reserved_bytes, 600000u);
  Result<std::shared_ptr<void>> arena = pool->reserve("the arena", 600000);
  ASSERT_FALSE(arena.is_ok());
  EXPECT_EQ(arena.status().message().rfind("the arena needs 586 KiB; limit 1.0 MiB, 586 KiB already in use", 0), 0u)
      << arena.status().message();
  EXPECT_EQ(pool->statistics().reserved_bytes, 600000u);  // a refused reservation counts nothing
  EXPECT_FALSE(pool->fits("Relu 'r'", 600000).is_ok());   // nor do values past the weights
  weights->reset();
  EXPECT_EQ(pool->statistics().reserved_bytes, 0u);
  EXPECT_TRUE(pool->fits("Relu 'r'", 600000).is_ok());
}

TEST(MemoryLimitTest, AKernelsHeldBytesCountWhileItsParamsLive) {
  std::shared_ptr<TensorPool> pool = TensorPool::create();
  pool->set_memory_limit(size_t{1} << 20);
  PreparedKernel kernel;
  kernel.params = std::make_shared<int>(7);
  kernel.held_bytes = 600000;  // e.g. a prepacked copy of a weight
  ASSERT_TRUE(detail::count_held_bytes(kernel, pool.get(), "MatMul 'm'").is_ok());
  EXPECT_EQ(*static_cast<const int*>(kernel.params.get()), 7);
  EXPECT_EQ(pool->statistics().reserved_bytes, 600000u);
  PreparedKernel second = kernel;  // a copy shares the params: counted once
  PreparedKernel other;
  other.held_bytes = 600000;
  Status refused = detail::count_held_bytes(other, pool.get(), "MatMul 'n'");
  ASSERT_FALSE(refused.is_ok());
  EXPECT_EQ(refused.message().rfind("the prepacked weights of MatMul 'n' needs 586 KiB; limit 1.0 MiB", 0), 0u)
      << refused.message();
  kernel = PreparedKernel();
  EXPECT_EQ(pool->statistics().reserved_bytes, 600000u);
  second = PreparedKernel();
  EXPECT_EQ(pool->statistics().reserved_bytes, 0u);
}

}  // namespace
}  // namespace ge
