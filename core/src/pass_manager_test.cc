#include "ge/pass_manager.h"

#include <gtest/gtest.h>

#include <filesystem>

#include "fake_components_test_util.h"

namespace ge {
namespace {

class CountingPass final : public Pass {
 public:
  CountingPass(std::string name, bool change, int* runs) : name_(std::move(name)), change_(change), runs_(runs) {}
  std::string name() const override { return name_; }
  Status run(Graph&, PassContext&, bool& changed) override {
    ++*runs_;
    changed = change_;
    return Status::ok();
  }

 private:
  std::string name_;
  bool change_;
  int* runs_;
};

PassInfo info(const std::string& name, int level, int order, int* runs, bool change = false) {
  return PassInfo{name, level, order, [=] { return std::make_unique<CountingPass>(name, change, runs); }};
}

struct PassFixture {
  PassFixture() {
    ops.add_library(std::make_shared<testing::FakeOps>());
    available = {info("late", 1, 900, &runs), info("early", 2, 10, &runs), info("aggressive", 3, 50, &runs, true)};
  }
  OpRegistry ops;
  int runs = 0;
  std::vector<PassInfo> available;
};

std::vector<std::string> pipeline(PassFixture& f, PassManagerOptions options) {
  PassManager pm(f.available, f.ops, std::move(options));
  auto names = pm.pipeline();
  EXPECT_TRUE(names.is_ok()) << names.status().to_string();
  return names.is_ok() ? *names : std::vector<std::string>{};
}

TEST(PassManager, PipelinesFollowOptLevelAndOrder) {
  PassFixture f;
  PassManagerOptions o;
  o.opt_level = 0;
  EXPECT_TRUE(pipeline(f, o).empty());
  o.opt_level = 1;
  EXPECT_EQ(pipeline(f, o), std::vector<std::string>{"late"});
  o.opt_level = 3;
  EXPECT_EQ(pipeline(f, o), (std::vector<std::string>{"early", "aggressive", "late"}));
  o.disabled_passes = {"aggressive"};
  EXPECT_EQ(pipeline(f, o), (std::vector<std::string>{"early", "late"}));
  o.explicit_passes = std::vector<std::string>{"late", "early"};
  EXPECT_EQ(pipeline(f, o), (std::vector<std::string>{"late", "early"}));
}

TEST(PassManager, UnknownNamesAreErrors) {
  PassFixture f;
  PassManagerOptions o;
  o.explicit_passes = std::vector<std::string>{"nope"};
  PassManager pm(f.available, f.ops, o);
  EXPECT_EQ(pm.pipeline().status().message(), "--passes: no pass named 'nope' (available: late, early, aggressive)");
  PassManagerOptions d;
  d.disabled_passes = {"nah"};
  EXPECT_EQ(PassManager(f.available, f.ops, d).pipeline().status().code(), StatusCode::kNotFound);
  PassManagerOptions bad_level;
  bad_level.opt_level = 7;
  EXPECT_EQ(PassManager(f.available, f.ops, bad_level).pipeline().status().code(), StatusCode::kInvalidArgument);
}

TEST(PassManager, RunsTimesAndDumps) {
  PassFixture f;
  Graph g;
  Value* x = g.add_input("x", TensorDesc::of(DataType::kFloat32, {2}));
  g.add_output(g.add_node("AddOne", {x}, 1, "a")->output(0));
  PassManagerOptions o;
  o.opt_level = 3;
  o.verify_each = true;
  o.dump_dir = std::filesystem::temp_directory_path() / ("ge_pm_dump_" + std::to_string(::getpid()));
  PassManager pm(f.available, f.ops, o);
  Status s = pm.run(g);
  ASSERT_TRUE(s.is_ok()) << s.to_string();
  EXPECT_EQ(f.runs, 3);
  ASSERT_EQ(pm.timings().size(), 3u);
  EXPECT_EQ(pm.timings()[1].name, "aggressive");
  EXPECT_TRUE(pm.timings()[1].changed);
  EXPECT_TRUE(std::filesystem::exists(*o.dump_dir / "001_early_before.ir"));
  EXPECT_TRUE(std::filesystem::exists(*o.dump_dir / "002_aggressive_after.dot"));
  EXPECT_TRUE(std::filesystem::exists(*o.dump_dir / "003_late_after.ir"));
  std::filesystem::remove_all(*o.dump_dir);
}

}  // namespace
}  // namespace ge
