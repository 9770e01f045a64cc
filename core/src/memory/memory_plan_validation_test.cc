// The memory plan validators (validate_assignment, validate_memory_plan) catch broken plans.
#include "ge/memory_plan.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "ge/testing/memory_plan.h"

namespace ge {
namespace {

using ::testing::HasSubstr;
using testing::index_of;
using testing::parse_memory_dsl;
using testing::plan_or_die;
using testing::scatter_outputs_zeroed;
using testing::toy_plan_options;

TEST(ValidateAssignmentTest, CatchesBrokenAnswers) {
  std::vector<MemoryRequest> requests{{512, 0, 2}, {1024, 1, 3}, {512, 3, 4}};
  MemoryPlan good{{0, 512, 0}, 1536};
  EXPECT_TRUE(validate_assignment(requests, good, 512).is_ok());

  MemoryPlan overlap{{0, 0, 0}, 1536};
  Status s = validate_assignment(requests, overlap, 512);
  EXPECT_THAT(s.message(), HasSubstr("request 0 (bytes [0, 512), steps 0..2) and request 1"));
  // Requests 0 and 2 never live together: sharing is fine; 1 and 2 meet at step 3.
  EXPECT_TRUE(validate_assignment(requests, MemoryPlan{{0, 512, 0}, 1536}, 512).is_ok());
  EXPECT_FALSE(validate_assignment(requests, MemoryPlan{{0, 512, 512}, 1536}, 512).is_ok());

  EXPECT_THAT(validate_assignment(requests, MemoryPlan{{0, 544, 0}, 1568}, 512).message(),
              HasSubstr("not a multiple of the alignment 512"));
  EXPECT_THAT(validate_assignment(requests, MemoryPlan{{0, 512, 0}, 1024}, 512).message(),
              HasSubstr("ends past the arena of 1024 bytes"));
  EXPECT_THAT(validate_assignment(requests, MemoryPlan{{0, 512}, 1536}, 512).message(),
              HasSubstr("2 offsets for 3 requests"));
}

/// A valid plan of a DSL graph that each test breaks in one way; error() is what the
/// validator then says.
class PlanToBreak : public ::testing::Test {
 protected:
  void plan(const char* text, const MemoryPlanOptions& options) {
    graph_ = parse_memory_dsl(text);
    plan_ = plan_or_die(*graph_, options);
    ASSERT_TRUE(validate_memory_plan(plan_).is_ok());
  }
  ValuePlacement& value(const std::string& name) { return plan_.values[index_of(plan_, *graph_, name)]; }
  std::string error() { return validate_memory_plan(plan_).message(); }

  std::unique_ptr<Graph> graph_;
  GraphMemoryPlan plan_;
};

class BrokenPlanTest : public PlanToBreak {
 protected:
  // 1 a | 2 b=Relu(a) in place | 3 r=Reshape(b) view | 4 p, 5 q: slices of c | 6 c | 7 d
  // Buffers: {a,b,r} [1,7] @0 and {c,p,q} [4,7] @512.
  void SetUp() override {
    plan("in x[128]; a=Conv(x)[128]; b=Relu(a); r=Reshape(b)[2,64]; p=Conv(x)[128]; q=Conv(x)[128]; "
         "c=Concat(p,q){axis=0}; d=Conv(r,c)[128]; out d",
         toy_plan_options());
    ASSERT_EQ(value("c").offset, 512u);
    ASSERT_EQ(value("b").in_place_of, index_of(plan_, *graph_, "a"));
    ASSERT_EQ(value("r").alias, MemoryAlias::kView);
    ASSERT_EQ(value("q").alias, MemoryAlias::kSlice);
  }
};

TEST_F(BrokenPlanTest, TwoLiveBuffersOverlapping) {
  for (const char* name : {"c", "p", "q"}) value(name).offset -= 512;
  EXPECT_THAT(error(), HasSubstr("overlap in bytes while both live"));
}

TEST_F(BrokenPlanTest, MisalignedBuffer) {
  for (const char* name : {"c", "p", "q"}) value(name).offset += 32;
  plan_.feature_map_bytes += 32;
  EXPECT_THAT(error(), HasSubstr("starts at 544, not a multiple of 512"));
}

TEST_F(BrokenPlanTest, ViewAwayFromItsSource) {
  value("r").offset = 512;
  EXPECT_THAT(error(), HasSubstr("'r'"));
  EXPECT_THAT(error(), HasSubstr("a view must start at its source"));
}

TEST_F(BrokenPlanTest, SliceOutsideItsSource) {
  value("q").offset = 512 + 1024;
  plan_.feature_map_bytes += 512;
  EXPECT_THAT(error(), HasSubstr("a slice must lie inside its source"));
}

TEST_F(BrokenPlanTest, OverlappingSlicesOfOneConcat) {
  value("q").offset = value("p").offset;
  EXPECT_THAT(error(), HasSubstr("hold different data"));
}

// Components of 64 members or more are checked through a byte index (a Concat of 10^5
// slices was quadratic): the same verdicts and the same pair named.
TEST_F(PlanToBreak, LargeConcatOverlappingSlices) {
  std::string text = "in x[128]; ";
  std::string inputs;
  for (int k = 0; k < 100; ++k) {
    text += "p" + std::to_string(k) + "=Conv(x)[128]; ";
    inputs += (k ? "," : "") + std::string("p") + std::to_string(k);
  }
  text += "c=Concat(" + inputs + "){axis=0}; d=Conv(c)[128]; out d";
  plan(text.c_str(), toy_plan_options());
  ASSERT_EQ(value("p57").alias, MemoryAlias::kSlice);
  value("p57").offset = value("p56").offset;
  EXPECT_THAT(error(), HasSubstr("'p56' (feature_map bytes"));
  EXPECT_THAT(error(), HasSubstr("and 'p57' (feature_map bytes"));
  EXPECT_THAT(error(), HasSubstr("hold different data"));
}

TEST_F(PlanToBreak, LongInPlaceChainIsOneValidComponent) {
  // a, then 100 Relus each over the one before: one component at one offset, each member
  // dead when the next is made.
  std::string text = "in x[128]; a=Conv(x)[128]; ";
  std::string last = "a";
  for (int k = 0; k < 100; ++k) {
    text += "b" + std::to_string(k) + "=Relu(" + last + "); ";
    last = "b" + std::to_string(k);
  }
  text += "d=Conv(" + last + ")[128]; out d";
  plan(text.c_str(), toy_plan_options());
  ASSERT_EQ(value("b99").in_place_of, index_of(plan_, *graph_, "b98"));
  value("b50").last_use += 1;  // still read when b51 overwrites it
  EXPECT_THAT(error(), HasSubstr("the source is still read after step"));
}

TEST_F(BrokenPlanTest, InPlaceOverAValueStillRead) {
  value("a").last_use = 3;
  EXPECT_THAT(error(), HasSubstr("the source is still read after step 2"));
}

TEST_F(BrokenPlanTest, SharedBytesWithoutAnAlias) {
  value("b").in_place_of = -1;  // b now claims a's bytes at step 2 on its own
  EXPECT_THAT(error(), HasSubstr("overlap in bytes while both live"));
}

TEST_F(BrokenPlanTest, PastTheRegionEnd) {
  plan_.feature_map_bytes = 1024;
  EXPECT_THAT(error(), HasSubstr("ends past its region of 1024 bytes"));
}

TEST_F(BrokenPlanTest, AliasOfNothing) {
  value("r").alias_source = 999;
  EXPECT_THAT(error(), HasSubstr("is a view of no valid value"));
}

TEST_F(BrokenPlanTest, LifetimeBackwards) {
  value("d").first_use = 9;
  EXPECT_THAT(error(), HasSubstr("dies before it is made"));
}

class BrokenCleanPlanTest : public PlanToBreak {
 protected:
  // 1 u=Scatter, zeroed | 2 r=Relu(u) | 3 e=Conv(r) | 4 d=Conv(e): u and e never live
  // together, so only the atomic-clean rule keeps e out of u's bytes.
  void SetUp() override {
    plan("in x[128]; u=Scatter(x)[128]; r=Relu(u); e=Conv(r)[128]; d=Conv(e)[128]; out d", scatter_outputs_zeroed());
    ASSERT_EQ(plan_.clean_groups.size(), 1u);
  }
};

TEST_F(BrokenCleanPlanTest, AValueInsideAGroupEvenWhenTheBlockIsDead) {
  value("e").offset = value("u").offset;
  EXPECT_THAT(error(), HasSubstr("'e' (feature_map bytes"));
  EXPECT_THAT(error(), HasSubstr("overlaps atomic-clean group 0"));
}

TEST_F(BrokenCleanPlanTest, ABlockOutsideItsGroup) {
  value("u").offset = plan_.clean_groups[0].offset + plan_.clean_groups[0].bytes;
  plan_.feature_map_bytes += 1024;
  EXPECT_THAT(error(), HasSubstr("'u'"));
  EXPECT_THAT(error(), HasSubstr("is to be zeroed but does not lie in its own bytes inside atomic-clean group 0"));
}

TEST_F(BrokenCleanPlanTest, AGroupMisalignedOrPastTheFeatureMap) {
  plan_.clean_groups[0].offset += 32;
  EXPECT_THAT(error(), HasSubstr("does not start at a multiple of 512"));
  plan_.clean_groups[0].offset -= 32;
  plan_.clean_groups[0].bytes = plan_.feature_map_bytes + 512;
  EXPECT_THAT(error(), HasSubstr("ends past the feature map"));
}

TEST_F(BrokenCleanPlanTest, ABlockOfNoGroup) {
  value("u").clean_group = 3;
  EXPECT_THAT(error(), HasSubstr("is to be zeroed in atomic-clean group 3 of 1"));
}

}  // namespace
}  // namespace ge
