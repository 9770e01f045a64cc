// Tests of the pass manager (ge/pass_manager.h).
#include "ge/pass_manager.h"

#include <gtest/gtest.h>

#include <new>
#include <stdexcept>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <functional>
#include <iterator>

#include "ge/testing/fake_components.h"

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

PassInfo info(const std::string& name, int level, PassPhase phase, int* runs, bool change = false) {
  return PassInfo{name, level, phase, {}, {}, [=] { return std::make_unique<CountingPass>(name, change, runs); }};
}

struct PassFixture {
  PassFixture() {
    ops.add_library(std::make_shared<testing::FakeOps>());
    available = {info("late", 1, PassPhase::kCleanup, &runs), info("early", 2, PassPhase::kCanonicalize, &runs),
                 info("aggressive", 3, PassPhase::kFuse, &runs, true)};
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

TEST(PassManager, DumpsElideLargeConstantsUnlessToldToPrintAll) {
  auto dumped_ir = [](const PrintOptions& print) {
    PassFixture f;
    Graph g;
    Value* x = g.add_input("x", TensorDesc::of(DataType::kFloat32, {2}));
    g.add_initializer("w", Tensor::zeros(DataType::kFloat32, {64}));
    g.add_output(g.add_node("AddOne", {x}, 1, "a")->output(0));
    PassManagerOptions o;
    o.explicit_passes = std::vector<std::string>{"early"};
    o.dump_dir = std::filesystem::temp_directory_path() / ("ge_pm_elide_" + std::to_string(::getpid()));
    o.dump_print = print;
    Status s = PassManager(f.available, f.ops, o).run(g);
    EXPECT_TRUE(s.is_ok()) << s.to_string();
    std::ifstream in(*o.dump_dir / "001_early_before.ir");
    std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    std::filesystem::remove_all(*o.dump_dir);
    return text;
  };
  EXPECT_NE(dumped_ir(PassManagerOptions().dump_print).find("init %w : float32[64] = elided(64 elements, xxh3 0x"),
            std::string::npos);
  EXPECT_NE(dumped_ir(PrintOptions{}).find("init %w : float32[64] = [0, 0, 0,"), std::string::npos);
}

// A pass that edits the graph through `edit` and reports a change.
class EditingPass final : public Pass {
 public:
  EditingPass(std::string name, std::function<void(Graph&)> edit) : name_(std::move(name)), edit_(std::move(edit)) {}
  std::string name() const override { return name_; }
  Status run(Graph& graph, PassContext&, bool& changed) override {
    edit_(graph);
    changed = true;
    return Status::ok();
  }

 private:
  std::string name_;
  std::function<void(Graph&)> edit_;
};

PassInfo editing(const std::string& name, PassPhase phase, std::function<void(Graph&)> edit) {
  return PassInfo{name, 1, phase, {}, {}, [=] { return std::make_unique<EditingPass>(name, edit); }};
}

// x -> AddOne 'a' -> Twice 't' -> y
std::unique_ptr<Graph> add_one_twice() {
  auto g = std::make_unique<Graph>();
  Value* x = g->add_input("x", TensorDesc::of(DataType::kFloat32, {3}));
  Node* a = g->add_node("AddOne", {x}, 1, "a", {"a_out"});
  Node* t = g->add_node("Twice", {a->output(0)}, 1, "t", {"y"});
  g->add_output(t->output(0));
  return g;
}

// A pass plugin that throws does not take the host down: its exception is an error naming
// the pass (and a std::bad_alloc stays an allocation failure for the caller to report).
TEST(PassManager, APassThatThrowsIsAnErrorNamingIt) {
  OpRegistry ops;
  ops.add_library(std::make_shared<testing::FakeOps>());
  std::vector<PassInfo> available = {
      editing("thrower", PassPhase::kCanonicalize, [](Graph&) { throw std::runtime_error("boom"); }),
      editing("starved", PassPhase::kFold, [](Graph&) { throw std::bad_alloc(); })};
  std::unique_ptr<Graph> g = add_one_twice();
  ASSERT_TRUE(ops.infer_graph(*g).is_ok());
  PassManagerOptions options;
  options.explicit_passes = std::vector<std::string>{"thrower"};
  Status status = PassManager(available, ops, options).run(*g, nullptr, nullptr);
  EXPECT_EQ(status.code(), StatusCode::kPluginError);
  EXPECT_NE(status.message().find("pass 'thrower' (run) threw an exception: boom"), std::string::npos)
      << status.message();
  options.explicit_passes = std::vector<std::string>{"starved"};
  EXPECT_THROW((void)PassManager(available, ops, options).run(*g, nullptr, nullptr), std::bad_alloc);
}

TEST(PassManager, CheckModeNamesTheFirstPassThatChangesOutputs) {
  OpRegistry ops;
  ops.add_library(std::make_shared<testing::FakeOps>());
  testing::FakeBackend backend;
  // 'rename' keeps numerics; 'break_twice' turns Twice into AddOne: (x+1)+1 != 2(x+1).
  std::vector<PassInfo> available = {
      editing("rename", PassPhase::kCanonicalize, [](Graph& g) { g.find_node("a")->set_name("renamed"); }),
      editing("break_twice", PassPhase::kFold, [](Graph& g) { g.find_node("t")->set_op_type("AddOne"); }),
      editing("never_reached", PassPhase::kFuse, [](Graph&) {})};
  PassManagerOptions o;
  o.opt_level = 1;
  o.check_passes = true;
  o.check_inputs = {{"x", Tensor::from_vector<float>({3}, {0.f, 1.f, 2.f})}};
  PassManager pm(available, ops, o);
  auto g = add_one_twice();
  Status s = pm.run(*g, &backend, &backend);
  EXPECT_EQ(s.code(), StatusCode::kInternal);
  // Before: 2*(x+1) = [2, 4, 6]; after break_twice: x+2 = [2, 3, 4]; element 0 agrees.
  EXPECT_EQ(s.message(),
            "--check-passes: pass 'break_twice' is the first pass that changed the outputs: output 0 'y' element 1: "
            "3, it was 4 (|difference| 1 > atol 1e-05 + rtol 0.0001 * |before|)");
  ASSERT_EQ(pm.timings().size(), 1u);
  EXPECT_EQ(pm.timings()[0].name, "rename");
  EXPECT_TRUE(pm.timings()[0].checked);
  EXPECT_EQ(pm.timings()[0].max_abs_difference, 0.0);
}

TEST(PassManager, CheckModeNeedsAReferenceBackendAndARunnableModel) {
  OpRegistry ops;
  ops.add_library(std::make_shared<testing::FakeOps>());
  testing::FakeBackend backend;
  PassManagerOptions o;
  o.opt_level = 1;
  o.check_passes = true;
  std::vector<PassInfo> available = {
      editing("noop", PassPhase::kCanonicalize, [](Graph&) {}),
      editing("unknown_op", PassPhase::kFold, [](Graph& g) { g.find_node("t")->set_op_type("Nope"); })};
  auto g = add_one_twice();
  EXPECT_EQ(PassManager(available, ops, o).run(*g, &backend, nullptr).message(),
            "--check-passes needs the reference backend 'cpu', which is not loaded");
  // A pass that leaves an op no library knows fails at re-inference, before the check.
  Status s = PassManager(available, ops, o).run(*g, &backend, &backend);
  EXPECT_NE(s.message().find("after pass 'unknown_op'"), std::string::npos) << s.message();
}

TEST(PassManager, CheckInputsAreGeneratedReproducibly) {
  Graph g;
  g.add_input("f", TensorDesc(DataType::kFloat32, {Dim::named("N"), Dim::of(4)}));
  g.add_input("i", TensorDesc::of(DataType::kInt64, {5}));
  g.add_input("given", TensorDesc::of(DataType::kFloat32, {1}));
  g.add_initializer("w", Tensor::from_vector<float>({1}, {1.f}));
  std::vector<std::pair<std::string, Tensor>> given = {{"given", Tensor::from_vector<float>({1}, {42.f})}};
  auto first = make_check_inputs(g, given);
  ASSERT_TRUE(first.is_ok()) << first.status().to_string();
  ASSERT_EQ(first->size(), 3u);
  EXPECT_EQ((*first)[0].first, "f");
  EXPECT_EQ((*first)[0].second.shape(), (std::vector<int64_t>{1, 4}));  // named dim N -> 1
  for (float v : (*first)[0].second.values<float>()) {
    EXPECT_GE(v, -1.f);
    EXPECT_LE(v, 1.f);
  }
  for (int64_t v : (*first)[1].second.values<int64_t>()) EXPECT_TRUE(v == 0 || v == 1);
  EXPECT_EQ((*first)[2].second.values<float>()[0], 42.f);
  auto second = make_check_inputs(g, given);
  ASSERT_TRUE(second.is_ok());
  for (size_t i = 0; i < 4; ++i) EXPECT_EQ((*first)[0].second.values<float>()[i], (*second)[0].second.values<float>()[i]);

  Graph strings;
  strings.add_input("s", TensorDesc::of(DataType::kString, {2}));
  EXPECT_EQ(make_check_inputs(strings, {}).status().message(),
            "--check-passes: cannot generate graph input 's' (string[2]): no generator for dtype string; give it in "
            "check_inputs");
}

TEST(PassManager, CompareCheckOutputs) {
  auto f = [](std::vector<float> v) { return Tensor::from_vector<float>({static_cast<int64_t>(v.size())}, v); };
  const float nan = std::nanf("");
  auto same = compare_check_outputs({f({1.f, nan, 100.f})}, {f({1.f, nan, 100.005f})}, {"y"}, 1e-4, 1e-5);
  ASSERT_TRUE(same.is_ok()) << same.status().to_string();
  EXPECT_NEAR(*same, 0.005, 1e-4);
  EXPECT_EQ(compare_check_outputs({f({1.f})}, {f({1.f, 2.f})}, {"y"}, 1e-4, 1e-5).status().message(),
            "output 0 'y' is float32[2], it was float32[1]");
  auto ints = [](std::vector<int64_t> v) { return Tensor::from_vector<int64_t>({static_cast<int64_t>(v.size())}, v); };
  EXPECT_EQ(compare_check_outputs({ints({1, 2})}, {ints({1, 3})}, {}, 1.0, 1.0).status().message(),
            "output 0 element 1: 3, it was 2");
  EXPECT_EQ(compare_check_outputs({f({1.f, 2.f})}, {f({1.f, 2.5f})}, {"y"}, 1e-4, 1e-5).status().message(),
            "output 0 'y' element 1: 2.5, it was 2 (|difference| 0.5 > atol 1e-05 + rtol 0.0001 * |before|)");
  EXPECT_EQ(compare_check_outputs({f({1.f})}, {f({nan})}, {}, 1e-4, 1e-5).status().message(),
            "output 0 element 0: nan, it was 1 (|difference| nan > atol 1e-05 + rtol 0.0001 * |before|)");
  auto strings = [](std::vector<std::string> v) {
    return Tensor::from_strings({static_cast<int64_t>(v.size())}, std::move(v));
  };
  EXPECT_EQ(compare_check_outputs({strings({"a", "b"})}, {strings({"a", "c"})}, {}, 0, 0).status().message(),
            "output 0 element 1: \"c\", it was \"b\"");
  // float8 outputs are compared too (they were skipped before the comparison was shared).
  Tensor before = Tensor::zeros(DataType::kFloat8E4M3FN, {1});
  Tensor after = Tensor::zeros(DataType::kFloat8E4M3FN, {1});
  before.data<uint8_t>()[0] = 0x38;  // 1.0
  after.data<uint8_t>()[0] = 0x40;   // 2.0
  EXPECT_FALSE(compare_check_outputs({before}, {after}, {}, 1e-4, 1e-5).is_ok());
}

}  // namespace
}  // namespace ge
