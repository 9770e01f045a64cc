// Tests of pass ordering by phases and before/after constraints (ge/pass_order.h).
#include "ge/pass_order.h"

#include <gtest/gtest.h>

#include "ge/pass_manager.h"

namespace ge {
namespace {

PassInfo pass(const std::string& name, PassPhase phase, std::vector<std::string> after = {},
              std::vector<std::string> before = {}, int level = 1) {
  PassInfo info;
  info.name = name;
  info.min_opt_level = level;
  info.phase = phase;
  info.run_after = std::move(after);
  info.run_before = std::move(before);
  info.create = [] { return std::unique_ptr<Pass>(); };
  return info;
}

std::vector<std::string> names(const std::vector<PassInfo>& passes) {
  Result<std::vector<const PassInfo*>> ordered = order_passes(passes);
  EXPECT_TRUE(ordered.is_ok()) << ordered.status().to_string();
  std::vector<std::string> result;
  if (ordered.is_ok()) {
    for (const PassInfo* p : *ordered) result.push_back(p->name);
  }
  return result;
}

std::string error(const std::vector<PassInfo>& passes) {
  Result<std::vector<const PassInfo*>> ordered = order_passes(passes);
  EXPECT_FALSE(ordered.is_ok());
  return ordered.is_ok() ? std::string() : ordered.status().message();
}

TEST(PassPhase, NamesRoundTripAndUnknownNamesAreRefused) {
  for (PassPhase phase : kPassPhases) EXPECT_EQ(parse_pass_phase(pass_phase_name(phase)), phase);
  EXPECT_FALSE(parse_pass_phase("fusion").has_value());
  EXPECT_FALSE(parse_pass_phase("Fuse").has_value());
  EXPECT_EQ(pass_phase_names(), "canonicalize, fold, fuse, cleanup or layout");
}

TEST(PassOrder, PhasesOrderPassesWhateverTheirRegistrationOrder) {
  const std::vector<PassInfo> passes = {
      pass("a_layout", PassPhase::kLayout),   pass("b_cleanup", PassPhase::kCleanup), pass("c_fuse", PassPhase::kFuse),
      pass("d_fold", PassPhase::kFold),       pass("e_canonicalize", PassPhase::kCanonicalize)};
  EXPECT_EQ(names(passes), (std::vector<std::string>{"e_canonicalize", "d_fold", "c_fuse", "b_cleanup", "a_layout"}));
}

TEST(PassOrder, InsideAPhaseTiesRunInRegistrationOrderNotByName) {
  EXPECT_EQ(names({pass("zeta", PassPhase::kFuse), pass("alpha", PassPhase::kFuse), pass("mu", PassPhase::kFuse)}),
            (std::vector<std::string>{"zeta", "alpha", "mu"}));
}

TEST(PassOrder, ConstraintsOrderPassesInsideAPhase) {
  // Without constraints: alpha, beta, gamma (registration order). gamma before alpha;
  // beta after alpha.
  const std::vector<PassInfo> passes = {pass("alpha", PassPhase::kFuse), pass("beta", PassPhase::kFuse, {"alpha"}),
                                        pass("gamma", PassPhase::kFuse, {}, {"alpha"})};
  EXPECT_EQ(names(passes), (std::vector<std::string>{"gamma", "alpha", "beta"}));
  // A chain declared against the names' order.
  EXPECT_EQ(names({pass("a", PassPhase::kFold, {"b"}), pass("b", PassPhase::kFold, {"c"}),
                   pass("c", PassPhase::kFold)}),
            (std::vector<std::string>{"c", "b", "a"}));
}

TEST(PassOrder, ConstraintsNamingPassesThatAreNotLoadedAreIgnored) {
  EXPECT_EQ(names({pass("b", PassPhase::kFuse, {"not_loaded"}, {"also_missing"}),
                   pass("a", PassPhase::kFuse, {"gone"})}),
            (std::vector<std::string>{"b", "a"}));
}

TEST(PassOrder, ConstraintsThatAgreeWithThePhasesHoldAlready) {
  EXPECT_EQ(names({pass("late", PassPhase::kCleanup, {"early"}), pass("early", PassPhase::kFold, {}, {"late"})}),
            (std::vector<std::string>{"early", "late"}));
}

TEST(PassOrder, AConstraintAgainstThePhasesGivesWayToThem) {
  // A pass moved to a later phase keeps the constraints others declared on it: the
  // phases decide, and the rest of the order holds.
  EXPECT_EQ(names({pass("fuser", PassPhase::kFuse, {"cleaner"}), pass("cleaner", PassPhase::kCleanup),
                   pass("after_fuser", PassPhase::kFuse, {"fuser"}), pass("a_fuser", PassPhase::kFuse)}),
            (std::vector<std::string>{"fuser", "after_fuser", "a_fuser", "cleaner"}));
  EXPECT_EQ(names({pass("folder", PassPhase::kFold), pass("layout", PassPhase::kLayout, {}, {"folder"})}),
            (std::vector<std::string>{"folder", "layout"}));
}

TEST(PassOrder, ACycleIsAnErrorNamingItsPasses) {
  // x -> y -> z -> x inside fuse; w is outside the cycle and must not be named.
  const std::vector<PassInfo> passes = {pass("w", PassPhase::kFuse), pass("x", PassPhase::kFuse, {"z"}),
                                        pass("y", PassPhase::kFuse, {"x"}), pass("z", PassPhase::kFuse, {}, {"x"}),
                                        pass("z2", PassPhase::kFuse, {"y"})};
  // z before x (both declare it), x before y; y before z closes the cycle only with:
  std::vector<PassInfo> cyclic = passes;
  cyclic[3].run_after = {"y"};
  const std::string message = error(cyclic);
  EXPECT_EQ(message,
            "the run_after / run_before constraints of phase fuse form a cycle: 'x' runs before 'y' runs before 'z' "
            "runs before 'x' (change the 'after' / 'before' options of one of them)");
  EXPECT_EQ(message.find("'w'"), std::string::npos);
  EXPECT_EQ(names(passes), (std::vector<std::string>{"w", "z", "x", "y", "z2"}));
  EXPECT_EQ(error({pass("selfish", PassPhase::kFold, {"selfish"})}),
            "the run_after / run_before constraints of phase fold form a cycle: 'selfish' runs before 'selfish' "
            "(change the 'after' / 'before' options of one of them)");
}

TEST(PassOrder, ThePassManagerDropsPassesOffAtTheLevelButKeepsConstraintsThroughThem) {
  // c must run before b through a, which only -O3 enables: at -O2, c still precedes b.
  const std::vector<PassInfo> passes = {pass("a", PassPhase::kFuse, {"c"}, {}, 3), pass("b", PassPhase::kFuse, {"a"}),
                                        pass("c", PassPhase::kFuse)};
  OpRegistry ops;
  PassManagerOptions options;
  options.opt_level = 2;
  Result<std::vector<std::string>> level2 = PassManager(passes, ops, options).pipeline();
  ASSERT_TRUE(level2.is_ok()) << level2.status().to_string();
  EXPECT_EQ(*level2, (std::vector<std::string>{"c", "b"}));
  options.opt_level = 3;
  EXPECT_EQ(*PassManager(passes, ops, options).pipeline(), (std::vector<std::string>{"c", "a", "b"}));
  // A cycle fails the pipeline at every level, even one where none of its passes run.
  std::vector<PassInfo> cyclic = passes;
  cyclic[2].run_after = {"b"};
  options.opt_level = 1;
  Result<std::vector<std::string>> failed = PassManager(cyclic, ops, options).pipeline();
  ASSERT_FALSE(failed.is_ok());
  EXPECT_NE(failed.status().message().find("form a cycle"), std::string::npos);
}

}  // namespace
}  // namespace ge
