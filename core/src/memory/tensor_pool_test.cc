// Tests of the caching tensor pool (ge/tensor_pool.h).
#include "ge/tensor_pool.h"

#include <gtest/gtest.h>

#include <cstdint>

namespace ge {
namespace {

TEST(TensorPool, SizeClassesAreAQuarterOfAPowerOfTwoApart) {
  EXPECT_EQ(TensorPool::block_bytes(1), 256u);
  EXPECT_EQ(TensorPool::block_bytes(256), 256u);
  EXPECT_EQ(TensorPool::block_bytes(257), 320u);
  EXPECT_EQ(TensorPool::block_bytes(1000), 1024u);
  EXPECT_EQ(TensorPool::block_bytes(1025), 1280u);
  EXPECT_EQ(TensorPool::block_bytes(3u << 20), 3u << 20);
  for (size_t bytes : {300u, 4097u, 100000u, 7000001u}) {
    const size_t block = TensorPool::block_bytes(bytes);
    EXPECT_GE(block, bytes);
    EXPECT_LE(block, bytes + bytes / 4 + 64) << bytes;
    EXPECT_EQ(block % 64, 0u);
  }
}

TEST(TensorPool, AReleasedBlockServesTheNextAllocationOfItsClass) {
  auto pool = TensorPool::create();
  const void* first = nullptr;
  {
    Tensor t = pool->allocate(DataType::kFloat32, {10, 100});
    first = t.raw_data();
    EXPECT_EQ(reinterpret_cast<uintptr_t>(first) % 64, 0u);
    EXPECT_EQ(pool->statistics().in_use_bytes, TensorPool::block_bytes(4000));
  }
  EXPECT_EQ(pool->statistics().held_bytes, TensorPool::block_bytes(4000));
  Tensor same_class = pool->allocate(DataType::kInt32, {1000});  // 4000 bytes again
  EXPECT_EQ(same_class.raw_data(), first);
  Tensor other_class = pool->allocate(DataType::kFloat32, {10});
  EXPECT_NE(other_class.raw_data(), first);
  const TensorPoolStatistics s = pool->statistics();
  EXPECT_EQ(s.hits, 1u);
  EXPECT_EQ(s.misses, 2u);
  EXPECT_EQ(s.held_bytes, 0u);
  EXPECT_EQ(s.peak_in_use_bytes, TensorPool::block_bytes(4000) + TensorPool::block_bytes(40));
}

TEST(TensorPool, HeldBytesStayWithinTheBound) {
  auto pool = TensorPool::create(/*max_held_bytes=*/2048);
  {
    Tensor a = pool->allocate(DataType::kUInt8, {1024});
    Tensor b = pool->allocate(DataType::kUInt8, {1024});
    Tensor c = pool->allocate(DataType::kUInt8, {1024});
  }
  const TensorPoolStatistics s = pool->statistics();
  EXPECT_EQ(s.held_bytes, 2048u);
  EXPECT_EQ(s.releases, 1u);
  EXPECT_EQ(s.in_use_bytes, 0u);
  pool->trim();
  EXPECT_EQ(pool->statistics().held_bytes, 0u);
}

TEST(TensorPool, TensorsOutliveThePoolHandle) {
  Tensor kept;
  {
    auto pool = TensorPool::create();
    kept = pool->allocate(DataType::kFloat32, {4});
  }
  kept.data<float>()[3] = 2.5f;  // the block (and the pool) live as long as the tensor
  EXPECT_EQ(kept.values<float>()[3], 2.5f);
}

TEST(TensorPool, StringTensorsAreConstructedNotPooled) {
  auto pool = TensorPool::create();
  Tensor s = pool->allocate(DataType::kString, {2});
  EXPECT_EQ(s.data<std::string>()[1], "");
  EXPECT_EQ(pool->statistics().misses, 0u);
}

}  // namespace
}  // namespace ge
