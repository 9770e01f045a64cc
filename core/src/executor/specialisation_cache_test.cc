// Tests of the shape-keyed specialisation cache (ge/specialisation_cache.h).
#include "ge/specialisation_cache.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace ge {
namespace {

std::vector<TensorDesc> signature(std::vector<int64_t> dims, DataType dtype = DataType::kFloat32) {
  std::vector<Dim> shape;
  for (int64_t d : dims) shape.push_back(Dim::of(d));
  return {TensorDesc(dtype, shape)};
}

/// A cache whose compile answers kUnsupported (a per-op entry) and records each call.
struct Recorder {
  std::vector<std::string> compiled;
  SpecialisationCache::Compile compile() {
    return [this](const std::vector<TensorDesc>& descs) -> Result<Specialisation> {
      compiled.push_back(descs.at(0).to_string());
      if (descs.at(0).dtype == DataType::kInt8) return invalid_argument("cannot specialise int8");
      return unsupported("stays dynamic");
    };
  }
};

TEST(SpecialisationCache, CompilesEachSignatureOnceAndCountsHits) {
  Recorder recorder;
  SpecialisationCache cache(4, recorder.compile());
  for (int round = 0; round < 3; ++round) {
    for (int64_t w : {8, 16}) {
      Result<ModelRunner*> runner = cache.find_or_compile(signature({1, w}));
      ASSERT_TRUE(runner.is_ok()) << runner.status().to_string();
      EXPECT_EQ(*runner, nullptr);  // per op
    }
  }
  EXPECT_EQ(recorder.compiled, (std::vector<std::string>{"float32[1,8]", "float32[1,16]"}));
  const SpecialisationStatistics& s = cache.statistics();
  EXPECT_EQ(s.misses, 2u);
  EXPECT_EQ(s.hits, 4u);
  EXPECT_EQ(s.per_op, 2u);
  EXPECT_EQ(s.sunk, 0u);
  EXPECT_EQ(s.entries, 2u);
}

TEST(SpecialisationCache, EvictsTheLeastRecentlyUsedSignature) {
  Recorder recorder;
  SpecialisationCache cache(2, recorder.compile());
  ASSERT_TRUE(cache.find_or_compile(signature({1})).is_ok());
  ASSERT_TRUE(cache.find_or_compile(signature({2})).is_ok());
  ASSERT_TRUE(cache.find_or_compile(signature({1})).is_ok());  // 1 is now the most recent
  ASSERT_TRUE(cache.find_or_compile(signature({3})).is_ok());  // evicts 2
  // Most recent first, each with its way of running, compile time and runs.
  const std::vector<std::string> held = cache.signatures();
  ASSERT_EQ(held.size(), 2u);
  EXPECT_EQ(held[0].rfind("float32[3] (per op, compiled in ", 0), 0u) << held[0];
  EXPECT_TRUE(held[0].ends_with(" ms, 1 run)")) << held[0];
  EXPECT_EQ(held[1].rfind("float32[1] (per op, compiled in ", 0), 0u) << held[1];
  EXPECT_TRUE(held[1].ends_with(" ms, 2 runs)")) << held[1];
  ASSERT_TRUE(cache.find_or_compile(signature({2})).is_ok());  // compiled again
  EXPECT_EQ(recorder.compiled.size(), 4u);
  EXPECT_EQ(cache.statistics().evictions, 2u);
  EXPECT_EQ(cache.statistics().entries, 2u);
}

TEST(SpecialisationCache, DtypeAndRankArePartOfTheKey) {
  EXPECT_NE(SpecialisationCache::key_of(signature({2, 3})), SpecialisationCache::key_of(signature({6})));
  EXPECT_NE(SpecialisationCache::key_of(signature({2, 3})),
            SpecialisationCache::key_of(signature({2, 3}, DataType::kInt32)));
  EXPECT_NE(SpecialisationCache::key_of({TensorDesc(DataType::kFloat32, std::vector<Dim>{})}),
            SpecialisationCache::key_of({TensorDesc(DataType::kFloat32, std::vector<Dim>{Dim::of(1)})}));
}

TEST(SpecialisationCache, OtherCompileErrorsFailTheRunAndAreNotCached) {
  Recorder recorder;
  SpecialisationCache cache(2, recorder.compile());
  Result<ModelRunner*> failed = cache.find_or_compile(signature({4}, DataType::kInt8));
  ASSERT_FALSE(failed.is_ok());
  EXPECT_EQ(failed.status().code(), StatusCode::kInvalidArgument);
  EXPECT_NE(failed.status().message().find("cannot specialise int8"), std::string::npos);
  EXPECT_NE(failed.status().to_string().find("int8[4]"), std::string::npos) << failed.status().to_string();
  EXPECT_FALSE(cache.find_or_compile(signature({4}, DataType::kInt8)).is_ok());
  EXPECT_EQ(recorder.compiled.size(), 2u);
  EXPECT_EQ(cache.statistics().entries, 0u);
}

}  // namespace
}  // namespace ge
