// Tests of the pattern fusion SDK (ge/plugin_api/pattern_fusion.h).
#include "ge/plugin_api/pattern_fusion.h"

#include <gtest/gtest.h>
#include <spdlog/sinks/ostream_sink.h>

#include <algorithm>
#include <memory>
#include <sstream>

#include "ge/graph_text.h"
#include "ge/logging.h"
#include "ge/testing/sdk.h"
#include "ge/verifier.h"

namespace ge {
namespace {

using sdk_testing::parse;

/// Neg(Relu(x)) -> test::NegRelu(x), optionally through a Widen (to break inference).
class NegReluFusion final : public PatternFusionPass {
 public:
  explicit NegReluFusion(bool widen = false, bool refuse = false) : widen_(widen), refuse_(refuse) {}
  std::string name() const override { return "fuse_neg_relu"; }
  std::vector<Pattern> patterns() const override {
    std::vector<Pattern> list;
    Pattern p("neg_relu");
    p.op("Neg", {p.op("Relu", {p.any("x")}, "relu")}, "neg");
    list.push_back(std::move(p));
    return list;
  }
  bool meets_requirements(const Match& match, const PassContext&, std::string& reason) const override {
    if (refuse_) reason = "refused by the test";
    return !refuse_ && match.value("x") != nullptr;
  }
  Status replacement(const Match&, Replacement& r) const override {
    r.add_node(widen_ ? "Widen" : "NegRelu", {r.use("x")}, {}, "test");
    return Status::ok();
  }

 private:
  bool widen_;
  bool refuse_;
};

struct Fixture {
  Fixture() { ops.add_library(std::make_shared<sdk_testing::ElementwiseOps>()); }
  /// Runs `pass` on `text` (inferred first) and returns the printed result.
  std::string run(PatternFusionPass& pass, const std::string& text, bool expect_change) {
    auto g = parse(text);
    Status inferred = ops.infer_graph(*g);
    EXPECT_TRUE(inferred.is_ok()) << inferred.to_string();
    PassContext context;
    context.ops = &ops;
    context.target_backend = &backend;
    bool changed = false;
    Status status = pass.run(*g, context, changed);
    EXPECT_TRUE(status.is_ok()) << status.to_string();
    EXPECT_EQ(changed, expect_change);
    Status verified = verify_graph(*g);
    EXPECT_TRUE(verified.is_ok()) << verified.to_string();
    return print_graph(*g);
  }
  std::string last_reason(const PatternFusionPass& pass) {
    return pass.events().empty() ? std::string("(no events)") : pass.events().back().reason;
  }
  OpRegistry ops;
  sdk_testing::PickyBackend backend;
};

const char* const kChain = R"(graph main {
  input %x : float32[4]
  %r : float32[4] = Relu(%x) "relu"
  %y : float32[4] = Neg(%r) "neg"
  output %y
}
)";

TEST(PatternFusion, RewritesAMatchKeepingOutputNames) {
  Fixture f;
  NegReluFusion pass;
  EXPECT_EQ(f.run(pass, kChain, true),
            "graph main (opset \"test\"=1) {\n"
            "  input %x : float32[4]\n"
            "  %y : float32[4] = test::NegRelu(%x) \"neg\"\n"
            "  output %y\n"
            "}\n");
  ASSERT_EQ(pass.events().size(), 1u);
  EXPECT_EQ(pass.events()[0].kind, FusionEvent::Kind::kFused);
  EXPECT_EQ(pass.events()[0].to_string(pass.name()),
            "fuse_neg_relu: pattern 'neg_relu' at Neg 'neg': fused: replaced by test::NegRelu 'neg'");
}

TEST(PatternFusion, DoesNotFireWhenAnInteriorValueIsAGraphOutput) {
  Fixture f;
  NegReluFusion pass;
  const std::string text = R"(graph main {
  input %x : float32[4]
  %r : float32[4] = Relu(%x) "relu"
  %y : float32[4] = Neg(%r) "neg"
  output %y
  output %r
}
)";
  EXPECT_EQ(f.run(pass, text, false), print_graph(*parse(text)));
  EXPECT_EQ(f.last_reason(pass), "interior value %r of Relu 'relu' is a graph output");
}

TEST(PatternFusion, DoesNotFireWhenAnInteriorValueHasAnOutsideUser) {
  Fixture f;
  NegReluFusion pass;
  const std::string text = R"(graph main {
  input %x : float32[4]
  %r : float32[4] = Relu(%x) "relu"
  %y : float32[4] = Neg(%r) "neg"
  %z : float32[4] = Exp(%r) "exp"
  output %y
  output %z
}
)";
  EXPECT_EQ(f.run(pass, text, false), print_graph(*parse(text)));
  EXPECT_EQ(f.last_reason(pass), "interior value %r of Relu 'relu' has a user outside the match: Exp 'exp'");
}

TEST(PatternFusion, DoesNotFireWhenTheBackendLacksTheDtype) {
  Fixture f;
  NegReluFusion pass;
  const std::string text = R"(graph main {
  input %x : float64[4]
  %r : float64[4] = Relu(%x) "relu"
  %y : float64[4] = Neg(%r) "neg"
  output %y
}
)";
  EXPECT_EQ(f.run(pass, text, false), print_graph(*parse(text)));
  EXPECT_EQ(f.last_reason(pass), "backend 'picky' does not support the replacement test::NegRelu 'neg': no float64 kernel");
}

TEST(PatternFusion, DoesNotFireWhenTheReplacementInfersAnotherShape) {
  Fixture f;
  NegReluFusion pass(/*widen=*/true);
  EXPECT_EQ(f.run(pass, kChain, false), print_graph(*parse(kChain)));
  EXPECT_EQ(f.last_reason(pass), "the replacement's output 0 infers to float32[8], the matched output %y is float32[4]");
}

TEST(PatternFusion, DoesNotFireWhenRequirementsAreNotMet) {
  Fixture f;
  NegReluFusion pass(false, /*refuse=*/true);
  EXPECT_EQ(f.run(pass, kChain, false), print_graph(*parse(kChain)));
  EXPECT_EQ(f.last_reason(pass), "refused by the test");
}

TEST(PatternFusion, ExplainsStructuralMismatchesAtAnchorsOfTheRootType) {
  Fixture f;
  NegReluFusion pass;
  const std::string text = R"(graph main {
  input %x : float32[4]
  %e : float32[4] = Exp(%x) "exp"
  %y : float32[4] = Neg(%e) "neg"
  output %y
}
)";
  f.run(pass, text, false);
  ASSERT_EQ(pass.events().size(), 1u) << "Exp is not an anchor of the root type: no event for it";
  EXPECT_EQ(pass.events()[0].to_string(pass.name()),
            "fuse_neg_relu: pattern 'neg_relu' at Neg 'neg': rejected: input 0 of Neg 'neg' (pattern op 'neg'): Exp "
            "'exp' is not a Relu (pattern op 'relu')");
}

/// Captures what the `ge` logger prints at `level` while alive; restores the level after.
class LogCapture {
 public:
  explicit LogCapture(spdlog::level::level_enum level)
      : sink_(std::make_shared<spdlog::sinks::ostream_sink_st>(stream_)), saved_(logger().level()) {
    sink_->set_pattern("[%l] %v");
    logger().sinks().push_back(sink_);
    logger().set_level(level);
  }
  ~LogCapture() {
    logger().set_level(saved_);
    auto& sinks = logger().sinks();
    sinks.erase(std::remove(sinks.begin(), sinks.end(), sink_), sinks.end());
  }
  std::string text() const { return stream_.str(); }

 private:
  std::ostringstream stream_;
  std::shared_ptr<spdlog::sinks::ostream_sink_st> sink_;
  spdlog::level::level_enum saved_;
};

const char* const kOneFusedOneRejected = R"(graph main {
  input %x : float32[4]
  %r : float32[4] = Relu(%x) "relu"
  %y : float32[4] = Neg(%r) "neg"
  %e : float32[4] = Exp(%y) "exp"
  %z : float32[4] = Neg(%e) "neg2"
  output %z
}
)";

TEST(PatternFusion, LogsRewritesAndASummaryAtInfoAndRejectionsOnlyAtDebug) {
  const std::string rejection =
      "fuse_neg_relu: pattern 'neg_relu' at Neg 'neg2': rejected: input 0 of Neg 'neg2' (pattern op 'neg'): Exp "
      "'exp' is not a Relu (pattern op 'relu')";
  {
    LogCapture log(spdlog::level::info);  // -v
    Fixture f;
    NegReluFusion pass;
    f.run(pass, kOneFusedOneRejected, true);
    EXPECT_NE(log.text().find("[info] fuse_neg_relu: pattern 'neg_relu' at Neg 'neg': fused: "), std::string::npos)
        << log.text();
    EXPECT_NE(log.text().find("[info] fuse_neg_relu: 1 fused, 1 rejected (-vv lists why)"), std::string::npos)
        << log.text();
    EXPECT_EQ(log.text().find("rejected: "), std::string::npos) << log.text();
  }
  {
    LogCapture log(spdlog::level::debug);  // -vv
    Fixture f;
    NegReluFusion pass;
    f.run(pass, kOneFusedOneRejected, true);
    EXPECT_NE(log.text().find("[debug] " + rejection), std::string::npos) << log.text();
  }
}

TEST(PatternFusion, FindsAllNonOverlappingMatchesConsumersFirst) {
  Fixture f;
  NegReluFusion pass;
  // Neg(Relu(Neg(Relu(x)))): two disjoint matches; the later one is rewritten first.
  EXPECT_EQ(f.run(pass, R"(graph main {
  input %x : float32[4]
  %r1 : float32[4] = Relu(%x) "relu1"
  %n1 : float32[4] = Neg(%r1) "neg1"
  %r2 : float32[4] = Relu(%n1) "relu2"
  %n2 : float32[4] = Neg(%r2) "neg2"
  output %n2
}
)",
                  true),
            "graph main (opset \"test\"=1) {\n"
            "  input %x : float32[4]\n"
            "  %n2 : float32[4] = test::NegRelu(%n1) \"neg2\"\n"
            "  %n1 : float32[4] = test::NegRelu(%x) \"neg1\"\n"
            "  output %n2\n"
            "}\n");
  ASSERT_EQ(pass.events().size(), 2u);
  EXPECT_EQ(pass.events()[0].anchor, "Neg 'neg2'");
  EXPECT_EQ(pass.events()[1].anchor, "Neg 'neg1'");
}

TEST(PatternFusion, RewritesInsideSubgraphsAndRespectsCaptures) {
  Fixture f;
  NegReluFusion pass;
  // In the branch Neg(Relu(c)) fuses. In main, %r is captured by the branch, so the
  // Neg(Relu(x)) there must stay.
  EXPECT_EQ(f.run(pass, R"(graph main {
  input %cond : bool[]
  input %x : float32[4]
  %r : float32[4] = Relu(%x) "relu"
  %y : float32[4] = Neg(%r) "neg"
  %z : float32[4] = If(%cond) {then_branch: graph = graph then {
    capture %r : float32[4]
    %rr : float32[4] = Relu(%r) "inner_relu"
    %t : float32[4] = Neg(%rr) "inner_neg"
    output %t
  }, else_branch: graph = graph else {
    capture %x : float32[4]
    output %x
  }} "if"
  output %y
  output %z
}
)",
                  true),
            "graph main (opset \"test\"=1) {\n"
            "  input %cond : bool[]\n"
            "  input %x : float32[4]\n"
            "  %r : float32[4] = Relu(%x) \"relu\"\n"
            "  %y : float32[4] = Neg(%r) \"neg\"\n"
            "  %z : float32[4] = If(%cond) {else_branch: graph = graph else {\n"
            "    capture %x : float32[4]\n"
            "    output %x\n"
            "  }, then_branch: graph = graph then {\n"
            "    capture %r : float32[4]\n"
            "    %t : float32[4] = test::NegRelu(%r) \"inner_neg\"\n"
            "    output %t\n"
            "  }} \"if\"\n"
            "  output %y\n"
            "  output %z\n"
            "}\n");
  ASSERT_EQ(pass.events().size(), 2u);
  EXPECT_EQ(pass.events()[0].reason, "interior value %r of Relu 'relu' is captured by a subgraph");
  EXPECT_EQ(pass.events()[1].kind, FusionEvent::Kind::kFused);
}

TEST(PatternFusion, ControlEdgesBlockARewrite) {
  Fixture f;
  NegReluFusion pass;
  const std::string text = R"(graph main {
  input %x : float32[4]
  %e : float32[4] = Exp(%x) "exp"
  %r : float32[4] = Relu(%x) "relu" after ["exp"]
  %y : float32[4] = Neg(%r) "neg"
  output %y
  output %e
}
)";
  EXPECT_EQ(f.run(pass, text, false), print_graph(*parse(text)));
  EXPECT_EQ(f.last_reason(pass), "Relu 'relu' has control edges");
}

TEST(PatternFusion, ReplacementErrorsRejectAndInternalErrorsFail) {
  class Failing final : public PatternFusionPass {
   public:
    explicit Failing(StatusCode code) : code_(code) {}
    std::string name() const override { return "failing"; }
    std::vector<Pattern> patterns() const override {
      std::vector<Pattern> list;
      Pattern p("neg");
      p.op("Neg", {p.any("x")});
      list.push_back(std::move(p));
      return list;
    }
    Status replacement(const Match&, Replacement&) const override { return Status(code_, "cannot build it"); }

   private:
    StatusCode code_;
  };
  Fixture f;
  Failing soft(StatusCode::kUnsupported);
  f.run(soft, kChain, false);
  EXPECT_EQ(f.last_reason(soft), "cannot build it");

  Failing hard(StatusCode::kInternal);
  auto g = parse(kChain);
  PassContext context;
  context.ops = &f.ops;
  bool changed = false;
  Status status = hard.run(*g, context, changed);
  EXPECT_EQ(status.code(), StatusCode::kInternal);
  EXPECT_EQ(status.message(), "pattern 'neg' at Neg 'neg' (op0: Neg 'neg'): cannot build it");
}

}  // namespace
}  // namespace ge
