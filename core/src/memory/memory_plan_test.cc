// The memory planner (plan_memory): lifetimes, regions, sharing, assigners, subgraphs and streams.
#include "ge/memory_plan.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <random>

#include "ge/runtime/stream_plan.h"
#include "ge/testing/memory_plan.h"
#include "ge/testing/stream_schedule.h"
#include "stream_lifetimes.h"

namespace ge {
namespace {

using testing::first_fit;
using testing::FirstFitAssigner;
using ::testing::HasSubstr;
using testing::index_of;
using testing::parse_memory_dsl;
using testing::placement_of;
using testing::plan_or_die;
using testing::scatter_outputs_zeroed;
using testing::toy_plan_options;

// ---- lifetimes, sizes, regions ----

TEST(MemoryPlanTest, LifetimesSizesAndRegions) {
  // step 0 entry (x bound) | 1 a=Conv(x,k) | 2 b=Conv(a) | 3 c=Conv(b,a) | 4 exit (c read)
  auto g = parse_memory_dsl("in x[100]; w k[3]; a=Conv(x,k)[129]; b=Conv(a)[128]; c=Conv(b,a)[5]; out c");
  GraphMemoryPlan plan = plan_or_die(*g);
  EXPECT_EQ(plan.step_count, 5);

  const ValuePlacement& x = placement_of(plan, *g, "x");
  EXPECT_EQ(x.region, MemoryRegion::kGraphIo);
  EXPECT_EQ(x.offset, 0u);
  EXPECT_EQ(x.bytes, 400u);
  EXPECT_EQ(x.first_use, 0);
  EXPECT_EQ(x.last_use, 1);

  const ValuePlacement& k = placement_of(plan, *g, "k");
  EXPECT_EQ(k.region, MemoryRegion::kWeights);
  EXPECT_EQ(k.offset, 0u);
  EXPECT_EQ(k.bytes, 12u);
  EXPECT_EQ(plan.weights_bytes, 512u);

  const ValuePlacement& a = placement_of(plan, *g, "a");
  EXPECT_EQ(a.region, MemoryRegion::kFeatureMap);
  EXPECT_EQ(a.bytes, 516u);
  EXPECT_EQ(a.first_use, 1);
  EXPECT_EQ(a.last_use, 3);
  ASSERT_GE(a.buffer, 0);
  EXPECT_EQ(plan.buffers[a.buffer].bytes, 1024u);  // 516 rounded up to 512

  const ValuePlacement& b = placement_of(plan, *g, "b");
  EXPECT_EQ(b.first_use, 2);
  EXPECT_EQ(b.last_use, 3);
  EXPECT_EQ(plan.buffers[b.buffer].bytes, 512u);

  // The output goes to the caller's buffer, 32-byte aligned after x (400 -> 416).
  const ValuePlacement& c = placement_of(plan, *g, "c");
  EXPECT_EQ(c.region, MemoryRegion::kGraphIo);
  EXPECT_EQ(c.offset, 416u);
  EXPECT_EQ(c.first_use, 3);
  EXPECT_EQ(c.last_use, 4);
  EXPECT_EQ(plan.io_bytes, 448u);  // 436 rounded up to 32

  EXPECT_EQ(a.offset, 0u);
  EXPECT_EQ(b.offset, 1024u);
  EXPECT_EQ(plan.feature_map_bytes, 1536u);
  EXPECT_EQ(plan.statistics.lower_bound_bytes, 1536u);
  EXPECT_EQ(plan.statistics.no_reuse_bytes, 1536u);
  EXPECT_EQ(plan.statistics.weights_bytes, 512u);
  EXPECT_EQ(plan.statistics.io_bytes, 448u);
}

TEST(MemoryPlanTest, WithoutZeroCopyInputsAndOutputsLiveInTheFeatureMap) {
  // step 0 x bound | 1 a=Conv(x) | 2 b=Conv(a) | 3 exit: x [0,1], a [1,2], b [2,3]
  auto g = parse_memory_dsl("in x[128]; a=Conv(x)[128]; b=Conv(a)[128]; out b");
  MemoryPlanOptions options = toy_plan_options();
  options.zero_copy_io = false;
  GraphMemoryPlan plan = plan_or_die(*g, options);
  EXPECT_EQ(placement_of(plan, *g, "x").region, MemoryRegion::kFeatureMap);
  EXPECT_EQ(placement_of(plan, *g, "b").region, MemoryRegion::kFeatureMap);
  EXPECT_EQ(placement_of(plan, *g, "b").last_use, 3);
  // First fit in order: x@0, a@512 (x live at 1), b@0 (x dead after 1).
  EXPECT_EQ(placement_of(plan, *g, "x").offset, 0u);
  EXPECT_EQ(placement_of(plan, *g, "a").offset, 512u);
  EXPECT_EQ(placement_of(plan, *g, "b").offset, 0u);
  EXPECT_EQ(plan.io_bytes, 0u);
  EXPECT_EQ(plan.feature_map_bytes, 1024u);
}

TEST(MemoryPlanTest, DynamicAndStringValuesStayUnplanned) {
  Graph g;
  Value* x = g.add_input("x", TensorDesc(DataType::kFloat32, {Dim::named("N"), Dim::of(4)}));
  Value* s = g.add_input("s", TensorDesc::of(DataType::kString, {2}));
  Node* relu = g.add_node("Relu", {x}, 1, "relu", {"y"});
  relu->output(0)->set_desc(x->desc());
  Node* id = g.add_node("Identity", {s}, 1, "id", {"t"});
  id->output(0)->set_desc(s->desc());
  g.add_output(relu->output(0));
  g.add_output(id->output(0));
  GraphMemoryPlan plan = plan_or_die(g);
  EXPECT_EQ(plan.find(x)->region, MemoryRegion::kUnplanned);
  EXPECT_THAT(plan.find(x)->unplanned_reason, HasSubstr("not static"));
  EXPECT_EQ(plan.find(relu->output(0))->region, MemoryRegion::kUnplanned);
  EXPECT_THAT(plan.find(s)->unplanned_reason, HasSubstr("string"));
  EXPECT_EQ(plan.statistics.unplanned, 4u);
}

TEST(MemoryPlanTest, OmittedOutputsAreNotPlannedButDeadOnesAre) {
  // BatchNormalization-style optional outputs: '_' omitted, 'm' named but unused.
  auto g = parse_memory_dsl("in x[128]; a=Conv(x)[128]; y,_,m[64]=Norm(a); b=Conv(y); out b");
  GraphMemoryPlan plan = plan_or_die(*g);
  const Node* norm = g->find_node("n_y");
  ASSERT_NE(norm, nullptr);
  EXPECT_EQ(plan.find(norm->output(1)), nullptr);
  const ValuePlacement& m = placement_of(plan, *g, "m");
  EXPECT_EQ(m.region, MemoryRegion::kFeatureMap);
  EXPECT_EQ(m.first_use, 2);
  EXPECT_EQ(m.last_use, 2);
}

TEST(MemoryPlanTest, WorkspacesArePlannedForTheirNodeStep) {
  auto g = parse_memory_dsl("in x[128]; a=Conv(x)[128]; b=Conv(a)[128]; out b");
  MemoryPlanOptions options = toy_plan_options();
  options.workspace_bytes = [](const Node& node) -> size_t { return node.name() == "n_a" ? 1000 : 0; };
  GraphMemoryPlan plan = plan_or_die(*g, options);
  const ValuePlacement* workspace = nullptr;
  for (const ValuePlacement& p : plan.values) {
    if (p.workspace_of != nullptr) workspace = &p;
  }
  ASSERT_NE(workspace, nullptr);
  EXPECT_EQ(workspace->name, "n_a:workspace");
  EXPECT_EQ(workspace->bytes, 1000u);
  EXPECT_EQ(workspace->first_use, 1);
  EXPECT_EQ(workspace->last_use, 1);
  // a [1,2] @0, workspace [1,1] @512 (1024 bytes rounded)
  EXPECT_EQ(workspace->offset, 512u);
  EXPECT_EQ(plan.feature_map_bytes, 1536u);
}

// ---- atomic clean (seed 002) ----

/// True when a feature-map value other than `block` and its views shares bytes with it.
bool bytes_shared(const GraphMemoryPlan& plan, const ValuePlacement& block) {
  for (const ValuePlacement& p : plan.values) {
    if (&p == &block || p.region != MemoryRegion::kFeatureMap || p.bytes == 0) continue;
    if (p.alias == MemoryAlias::kView && &plan.values[p.alias_source] == &block) continue;
    if (p.offset < block.offset + block.bytes && block.offset < p.offset + p.bytes) return true;
  }
  return false;
}

TEST(MemoryPlanTest, AtomicCleanBlocksShareOneGroupNothingElseUses) {
  // 1 a=Conv | 2 u=Scatter(a), zeroed | 3 b=Conv(u) | 4 v=Scatter(b), zeroed | 5 c=Conv(v)
  // with a zeroed workspace | 6 d=Conv(c) with a plain one | 7 exit. u dies at 3: without
  // atomic clean, v, c or d reuse its bytes.
  auto g = parse_memory_dsl(
      "in x[128]; a=Conv(x)[128]; u=Scatter(a)[64]; b=Conv(u)[128]; v=Scatter(b)[256]; c=Conv(v)[128]; "
      "d=Conv(c)[128]; out d");
  MemoryPlanOptions options = toy_plan_options();
  options.workspace_bytes = [](const Node& node) -> size_t { return node.name() == "n_c" || node.name() == "n_d" ? 100 : 0; };
  const GraphMemoryPlan reused = plan_or_die(*g, options);
  EXPECT_TRUE(reused.clean_groups.empty());
  EXPECT_TRUE(bytes_shared(reused, placement_of(reused, *g, "u"))) << "the test graph must reuse u's bytes without atomic clean";

  options.zeroed_memory = [](const Node& node) {
    ZeroedMemory zeroed;
    zeroed.outputs = node.op_type() == "Scatter" ? 1 : 0;
    zeroed.workspace = node.name() == "n_c";
    return zeroed;
  };
  const GraphMemoryPlan plan = plan_or_die(*g, options);
  ASSERT_TRUE(validate_memory_plan(plan).is_ok()) << validate_memory_plan(plan).to_string();
  ASSERT_EQ(plan.clean_groups.size(), 1u);
  const CleanGroup& group = plan.clean_groups[0];
  const ValuePlacement& u = placement_of(plan, *g, "u");
  const ValuePlacement& v = placement_of(plan, *g, "v");
  const ValuePlacement* workspace_c = nullptr;
  const ValuePlacement* workspace_d = nullptr;
  for (const ValuePlacement& p : plan.values) {
    if (p.workspace_of != nullptr && p.workspace_of->name() == "n_c") workspace_c = &p;
    if (p.workspace_of != nullptr && p.workspace_of->name() == "n_d") workspace_d = &p;
  }
  ASSERT_NE(workspace_c, nullptr);
  ASSERT_NE(workspace_d, nullptr);
  // Side by side in value order: u (256 B -> 512), v (1024 B), c's workspace (100 B -> 512).
  EXPECT_EQ(group.blocks, 3u);
  EXPECT_EQ(group.bytes, 2048u);
  EXPECT_EQ(group.offset % 512, 0u);
  EXPECT_EQ(u.offset, group.offset);
  EXPECT_EQ(v.offset, group.offset + 512);
  EXPECT_EQ(workspace_c->offset, group.offset + 1536);
  for (const ValuePlacement* p : {&u, &v, workspace_c}) EXPECT_EQ(p->clean_group, 0) << p->name;
  EXPECT_EQ(workspace_d->clean_group, -1);
  // The group is one buffer live over every step; no other value touches its bytes.
  ASSERT_GE(u.buffer, 0);
  EXPECT_EQ(v.buffer, u.buffer);
  EXPECT_EQ(plan.buffers[u.buffer].first_use, 0);
  EXPECT_EQ(plan.buffers[u.buffer].last_use, plan.step_count - 1);
  for (const ValuePlacement& p : plan.values) {
    if (p.clean_group >= 0 || p.region != MemoryRegion::kFeatureMap) continue;
    EXPECT_FALSE(p.offset < group.offset + group.bytes && group.offset < p.offset + p.bytes) << p.name;
  }
  EXPECT_EQ(plan.statistics.clean_groups, plan.clean_groups);
  EXPECT_THAT(format_memory_statistics(plan.statistics),
              HasSubstr("atomic clean: 1 group, one memset each per run: [" + std::to_string(group.offset) + ", " +
                        std::to_string(group.offset + 2048) + ") 3 blocks on stream 0"));
}

TEST(MemoryPlanTest, AtomicCleanBlocksAreNeverWrittenInPlace) {
  // 1 u=Scatter | 2 r=Relu(u): u dies here, so r would run in place over it.
  auto g = parse_memory_dsl("in x[128]; u=Scatter(x)[128]; r=Relu(u); e=Conv(r)[128]; d=Conv(e)[128]; out d");
  const GraphMemoryPlan plain = plan_or_die(*g);
  EXPECT_EQ(placement_of(plain, *g, "r").in_place_of, index_of(plain, *g, "u"));
  const GraphMemoryPlan plan = plan_or_die(*g, scatter_outputs_zeroed());
  EXPECT_EQ(placement_of(plan, *g, "r").in_place_of, -1);
  EXPECT_EQ(placement_of(plan, *g, "u").clean_group, 0);
  EXPECT_FALSE(bytes_shared(plan, placement_of(plan, *g, "u")));
}

TEST(MemoryPlanTest, AtomicCleanBlocksStayOutOfSlicesAndCallerBuffersButKeepTheirViews) {
  // w is zeroed and viewed by v, a Concat slice: w stays in the group (without atomic
  // clean it moves into the slice). s views zeroed t in place. y, zeroed, is a graph
  // output: it lives in the group, not in the caller's buffer.
  auto g = parse_memory_dsl(
      "in x[128]; w=Scatter(x); v=Reshape(w)[2,64]; p=Conv(x)[2,64]; c=Concat(v,p){axis=0}; t=Scatter(x)[64]; "
      "s=Reshape(t)[8,8]; d=Conv(c,s)[128]; y=Scatter(d)[32]; out d,y");
  const GraphMemoryPlan plain = plan_or_die(*g);
  EXPECT_EQ(placement_of(plain, *g, "w").alias, MemoryAlias::kView);
  EXPECT_EQ(placement_of(plain, *g, "y").region, MemoryRegion::kGraphIo);

  const GraphMemoryPlan plan = plan_or_die(*g, scatter_outputs_zeroed());
  ASSERT_TRUE(validate_memory_plan(plan).is_ok()) << validate_memory_plan(plan).to_string();
  ASSERT_EQ(plan.clean_groups.size(), 1u);
  EXPECT_EQ(plan.clean_groups[0].blocks, 3u);
  const ValuePlacement& w = placement_of(plan, *g, "w");
  EXPECT_EQ(w.alias, MemoryAlias::kNone);
  EXPECT_EQ(w.clean_group, 0);
  EXPECT_EQ(placement_of(plan, *g, "v").alias, MemoryAlias::kSlice);
  EXPECT_FALSE(bytes_shared(plan, w));
  const ValuePlacement& s = placement_of(plan, *g, "s");
  EXPECT_EQ(s.alias, MemoryAlias::kView);
  EXPECT_EQ(s.offset, placement_of(plan, *g, "t").offset);
  EXPECT_EQ(s.clean_group, -1);  // a view: the same data, not a block of its own
  const ValuePlacement& y = placement_of(plan, *g, "y");
  EXPECT_EQ(y.region, MemoryRegion::kFeatureMap);
  EXPECT_EQ(y.clean_group, 0);
  EXPECT_EQ(y.last_use, plan.step_count - 1);
}

// ---- in place and views ----

TEST(MemoryPlanTest, ActivationChainRunsInPlace) {
  // 1 a=Conv | 2 b=Relu(a): a dies -> b over a | 3 c=Sigmoid(b): b dies -> c over b | 4 d
  auto g = parse_memory_dsl("in x[128]; a=Conv(x)[256]; b=Relu(a); c=Sigmoid(b); d=Conv(c)[128]; out d");
  GraphMemoryPlan plan = plan_or_die(*g);
  EXPECT_EQ(placement_of(plan, *g, "b").in_place_of, index_of(plan, *g, "a"));
  EXPECT_EQ(placement_of(plan, *g, "c").in_place_of, index_of(plan, *g, "b"));
  EXPECT_EQ(placement_of(plan, *g, "a").offset, 0u);
  EXPECT_EQ(placement_of(plan, *g, "c").offset, 0u);
  EXPECT_EQ(plan.buffers.size(), 1u);
  EXPECT_EQ(plan.buffers[0].first_use, 1);
  EXPECT_EQ(plan.buffers[0].last_use, 4);
  EXPECT_EQ(plan.feature_map_bytes, 1024u);
  EXPECT_EQ(plan.statistics.lower_bound_bytes, 1024u);
  EXPECT_EQ(plan.statistics.no_reuse_bytes, 3072u);
  EXPECT_EQ(plan.statistics.in_place, 2u);
  EXPECT_DOUBLE_EQ(plan.statistics.ratio_to_lower_bound, 1.0);
  EXPECT_THAT(format_memory_statistics(plan.statistics), HasSubstr("ratio 1.0000"));
}

// A custom op library (what an SDK plugin registers through Registrar::add_op_library)
// declaring its own sharing: Blend may write output 0 over input 1 only; Bitcast is a
// view; Join concatenates along its attribute "dim"; Const outputs a constant.
class CustomSharingOps final : public OpLibrary {
 public:
  CustomSharingOps() {
    blend_.domain = bitcast_.domain = join_.domain = "com.example";
    blend_.op_type = "Blend";
    blend_.in_place = {InPlacePair{1, 0}};
    bitcast_.op_type = "Bitcast";
    bitcast_.is_view = true;
    join_.op_type = "Join";
    join_.concatenates_along = "dim";
    const_.domain = "com.example";
    const_.op_type = "Const";
    const_.is_constant = true;
  }
  std::string name() const override { return "test_custom_sharing_ops"; }
  const OpSchemaInfo* find_schema(const std::string& domain, const std::string& op_type, int64_t) const override {
    if (domain != "com.example") return nullptr;
    if (op_type == "Join") return &join_;
    if (op_type == "Const") return &const_;
    return op_type == "Blend" ? &blend_ : op_type == "Bitcast" ? &bitcast_ : nullptr;
  }
  Status infer(Node&, int64_t, const InputDataProvider&, const OpRegistry&) const override { return Status::ok(); }

 private:
  OpSchemaInfo blend_, bitcast_, join_, const_;
};

MemoryPlanOptions with_custom_ops(OpRegistry& registry) {
  registry.add_library(std::make_shared<CustomSharingOps>());
  MemoryPlanOptions options;
  options.ops = &registry;
  return options;
}

void set_custom_domain(Graph& graph, const std::string& node) {
  graph.find_node(node)->set_domain("com.example");
  graph.set_opset_import("com.example", 1);
}

TEST(MemoryPlanTest, ConstantsTheirSchemaDeclaresGoToWeights) {
  auto g = parse_memory_dsl("in x[128]; k[4]=Const(); a=Conv(x,k)[128]; out a");
  set_custom_domain(*g, "n_k");
  OpRegistry registry;
  GraphMemoryPlan plan = plan_or_die(*g, with_custom_ops(registry));
  EXPECT_EQ(placement_of(plan, *g, "k").region, MemoryRegion::kWeights);
  EXPECT_EQ(plan.weights_bytes, 512u);
  EXPECT_EQ(plan.feature_map_bytes, 0u);

  // Without the op's schema the planner knows no constant: k is a feature-map value.
  GraphMemoryPlan unknown = plan_or_die(*g, MemoryPlanOptions{});
  EXPECT_EQ(placement_of(unknown, *g, "k").region, MemoryRegion::kFeatureMap);
  EXPECT_EQ(unknown.weights_bytes, 0u);
}

TEST(MemoryPlanTest, CustomOpDeclaredInPlaceRunsInPlaceOverTheDeclaredInputOnly) {
  // 1 a | 2 b | 3 c=Blend(a,b): both die, only input 1 (b) may be overwritten | 4 d
  auto g = parse_memory_dsl("in x[128]; a=Conv(x)[128]; b=Conv(x)[128]; c=Blend(a,b); d=Conv(c); out d");
  set_custom_domain(*g, "n_c");
  OpRegistry registry;
  GraphMemoryPlan plan = plan_or_die(*g, with_custom_ops(registry));
  EXPECT_EQ(placement_of(plan, *g, "c").in_place_of, index_of(plan, *g, "b"));
  EXPECT_EQ(placement_of(plan, *g, "c").offset, placement_of(plan, *g, "b").offset);
  EXPECT_EQ(plan.statistics.in_place, 1u);

  // Swapped inputs: the declared input 1 is now a, still the one overwritten.
  auto h = parse_memory_dsl("in x[128]; a=Conv(x)[128]; b=Conv(x)[128]; c=Blend(b,a); d=Conv(c); out d");
  set_custom_domain(*h, "n_c");
  GraphMemoryPlan swapped = plan_or_die(*h, with_custom_ops(registry));
  EXPECT_EQ(placement_of(swapped, *h, "c").in_place_of, index_of(swapped, *h, "a"));

  // The same op without its library's schema: the core knows nothing of it.
  GraphMemoryPlan unknown = plan_or_die(*g, MemoryPlanOptions{});
  EXPECT_EQ(placement_of(unknown, *g, "c").in_place_of, -1);
  EXPECT_EQ(unknown.statistics.in_place, 0u);
}

TEST(MemoryPlanTest, CustomOpDeclaredAsViewAliasesItsInput) {
  // 1 a | 2 v=Bitcast(a): a view at a's offset | 3 d=Conv(v)
  auto g = parse_memory_dsl("in x[128]; a=Conv(x)[128]; v=Bitcast(a); d=Conv(v); out d");
  set_custom_domain(*g, "n_v");
  OpRegistry registry;
  GraphMemoryPlan plan = plan_or_die(*g, with_custom_ops(registry));
  const ValuePlacement& v = placement_of(plan, *g, "v");
  EXPECT_EQ(v.alias, MemoryAlias::kView);
  EXPECT_EQ(v.alias_source, index_of(plan, *g, "a"));
  EXPECT_EQ(v.offset, placement_of(plan, *g, "a").offset);
  EXPECT_EQ(plan.statistics.views, 1u);
  EXPECT_EQ(plan.feature_map_bytes, 512u);

  GraphMemoryPlan unknown = plan_or_die(*g, MemoryPlanOptions{});
  EXPECT_EQ(placement_of(unknown, *g, "v").alias, MemoryAlias::kNone);
  EXPECT_EQ(unknown.statistics.views, 0u);
}

TEST(MemoryPlanTest, CustomOpDeclaredAsConcatenationHasItsInputsWrittenIntoSlices) {
  // Join of [2,64] and [2,32] along dim 1 is not contiguous per input; along dim -1 of
  // [1,64] and [1,32] it is: a and b are made inside j.
  auto g = parse_memory_dsl(
      "in x[1,64]; a=Conv(x)[1,64]; b=Conv(x)[1,32]; j=Join(a,b)[1,96]{dim=-1}; d=Conv(j)[1,96]; out d");
  set_custom_domain(*g, "n_j");
  OpRegistry registry;
  GraphMemoryPlan plan = plan_or_die(*g, with_custom_ops(registry));
  const ValuePlacement& j = placement_of(plan, *g, "j");
  EXPECT_EQ(placement_of(plan, *g, "a").alias, MemoryAlias::kSlice);
  EXPECT_EQ(placement_of(plan, *g, "a").alias_source, index_of(plan, *g, "j"));
  EXPECT_EQ(placement_of(plan, *g, "a").offset, j.offset);
  EXPECT_EQ(placement_of(plan, *g, "b").alias, MemoryAlias::kSlice);
  EXPECT_EQ(placement_of(plan, *g, "b").offset, j.offset + 256);
  EXPECT_TRUE(plan.has_input_in_slice(*g->find_node("n_j")));
  EXPECT_FALSE(plan.has_input_in_slice(*g->find_node("n_d")));
  EXPECT_EQ(plan.statistics.concat_slices, 2u);

  // The axis is read from the declared attribute: dim 1 of [2,64] is not contiguous.
  auto h = parse_memory_dsl(
      "in x[2,64]; a=Conv(x)[2,64]; b=Conv(x)[2,32]; j=Join(a,b)[2,96]{dim=1}; d=Conv(j)[2,96]; out d");
  set_custom_domain(*h, "n_j");
  GraphMemoryPlan apart = plan_or_die(*h, with_custom_ops(registry));
  EXPECT_EQ(placement_of(apart, *h, "a").alias, MemoryAlias::kNone);
  EXPECT_EQ(apart.statistics.concat_slices, 0u);

  // The same op without its library's schema, and ONNX's Concat outside ai.onnx: nothing.
  GraphMemoryPlan unknown = plan_or_die(*g, MemoryPlanOptions{});
  EXPECT_EQ(placement_of(unknown, *g, "a").alias, MemoryAlias::kNone);
  EXPECT_FALSE(unknown.has_input_in_slice(*g->find_node("n_j")));
  auto k = parse_memory_dsl("in x[128]; a=Conv(x); b=Conv(x); c=Concat(a,b){axis=0}[256]; d=Conv(c); out d");
  set_custom_domain(*k, "n_c");
  EXPECT_EQ(plan_or_die(*k, with_custom_ops(registry)).statistics.concat_slices, 0u);
}

TEST(MemoryPlanTest, WithoutARegistryNoOpSharesStorage) {
  // Names alone (Relu, Reshape, Concat) mean nothing to the planner: the op libraries decide.
  auto g = parse_memory_dsl(
      "in x[128]; a=Conv(x)[128]; b=Relu(a); r=Reshape(b); e=Conv(x)[128]; c=Concat(r,e){axis=0}; d=Conv(c); out d");
  GraphMemoryPlan plan = plan_or_die(*g, MemoryPlanOptions{});
  EXPECT_EQ(plan.statistics.in_place, 0u);
  EXPECT_EQ(plan.statistics.views, 0u);
  EXPECT_EQ(plan.statistics.concat_slices, 0u);
  for (const ValuePlacement& p : plan.values) EXPECT_NE(p.alias, MemoryAlias::kSlice) << p.name;
  GraphMemoryPlan shared = plan_or_die(*g);
  EXPECT_EQ(shared.statistics.in_place, 1u);
  EXPECT_EQ(shared.statistics.views, 1u);
  EXPECT_EQ(shared.statistics.concat_slices, 2u);
}

TEST(MemoryPlanTest, NoInPlaceOverAValueReadLater) {
  // 1 a | 2 b=Relu(a): a read again at 3 -> own bytes | 3 c=Add(b,a): b dies -> c over b
  auto g = parse_memory_dsl("in x[128]; a=Conv(x)[128]; b=Relu(a); c=Add(b,a); d=Conv(c); out d");
  GraphMemoryPlan plan = plan_or_die(*g);
  EXPECT_EQ(placement_of(plan, *g, "b").in_place_of, -1);
  EXPECT_EQ(placement_of(plan, *g, "c").in_place_of, index_of(plan, *g, "b"));
  EXPECT_EQ(placement_of(plan, *g, "a").offset, 0u);
  EXPECT_EQ(placement_of(plan, *g, "b").offset, 512u);
  EXPECT_EQ(placement_of(plan, *g, "c").offset, 512u);
}

TEST(MemoryPlanTest, NoInPlaceOverABroadcastInputOrAGraphInput) {
  // s has one element and is broadcast: c may only overwrite a.
  auto g = parse_memory_dsl("in x[128]; s=Conv(x)[1]; a=Conv(x)[128]; c=Add(s,a)[128]; d=Conv(c); out d");
  GraphMemoryPlan plan = plan_or_die(*g);
  EXPECT_EQ(placement_of(plan, *g, "c").in_place_of, index_of(plan, *g, "a"));

  // x is the caller's buffer: never written.
  auto h = parse_memory_dsl("in x[128]; r=Relu(x); d=Conv(r); out d");
  GraphMemoryPlan plan2 = plan_or_die(*h);
  EXPECT_EQ(placement_of(plan2, *h, "r").in_place_of, -1);
  EXPECT_EQ(placement_of(plan2, *h, "r").region, MemoryRegion::kFeatureMap);
}

TEST(MemoryPlanTest, NoInPlaceWhenAnotherInputSharesTheBuffer) {
  // p (one element) is the first slice of c; y = Add(c, p) reads p[0] for every element,
  // so writing y over c would clobber p after the first element.
  auto g = parse_memory_dsl(
      "in x[128]; p=Conv(x)[1]; q=Conv(x)[127]; c=Concat(p,q){axis=0}; y=Add(c,p)[128]; d=Conv(y); out d");
  GraphMemoryPlan plan = plan_or_die(*g);
  ASSERT_EQ(placement_of(plan, *g, "p").alias, MemoryAlias::kSlice);
  EXPECT_EQ(placement_of(plan, *g, "y").in_place_of, -1);

  // Forced anyway, the validator refuses it: p is read at step 4 where y is written.
  ValuePlacement& y = plan.values[index_of(plan, *g, "y")];
  y.offset = placement_of(plan, *g, "c").offset;
  y.in_place_of = index_of(plan, *g, "c");
  Status status = validate_memory_plan(plan);
  EXPECT_THAT(status.message(), HasSubstr("'p'"));
  EXPECT_THAT(status.message(), HasSubstr("hold different data"));
}

TEST(MemoryPlanTest, InPlaceCanBeSwitchedOff) {
  auto g = parse_memory_dsl("in x[128]; a=Conv(x)[128]; b=Relu(a); d=Conv(b); out d");
  MemoryPlanOptions options = toy_plan_options();
  options.in_place = false;
  GraphMemoryPlan plan = plan_or_die(*g, options);
  EXPECT_EQ(placement_of(plan, *g, "b").in_place_of, -1);
  EXPECT_EQ(plan.statistics.in_place, 0u);
}

TEST(MemoryPlanTest, ReshapeFamilyAreViews) {
  // a, r (view of a), f (view of r) share one buffer live from 1 to 4.
  auto g = parse_memory_dsl("in x[128]; a=Conv(x)[128]; r=Reshape(a)[2,64]; f=Flatten(r)[1,128]; b=Conv(f); out b");
  GraphMemoryPlan plan = plan_or_die(*g);
  EXPECT_EQ(placement_of(plan, *g, "r").alias, MemoryAlias::kView);
  EXPECT_EQ(placement_of(plan, *g, "r").alias_source, index_of(plan, *g, "a"));
  EXPECT_EQ(placement_of(plan, *g, "f").alias, MemoryAlias::kView);
  EXPECT_EQ(placement_of(plan, *g, "f").alias_source, index_of(plan, *g, "r"));
  ASSERT_EQ(plan.buffers.size(), 1u);
  EXPECT_EQ(plan.buffers[0].first_use, 1);
  EXPECT_EQ(plan.buffers[0].last_use, 4);
  EXPECT_EQ(plan.statistics.views, 2u);
}

TEST(MemoryPlanTest, ViewsOfInputsAliasTheCallerBufferAndOutputsAreNotViews) {
  auto g = parse_memory_dsl("in y[4]; in x[2,64]; r=Reshape(x)[128]; b=Conv(r); out b");
  GraphMemoryPlan plan = plan_or_die(*g);
  EXPECT_EQ(placement_of(plan, *g, "r").region, MemoryRegion::kGraphIo);
  EXPECT_EQ(placement_of(plan, *g, "r").alias, MemoryAlias::kView);
  EXPECT_EQ(placement_of(plan, *g, "r").offset, 32u);  // x sits after y's 16 bytes, 32-aligned

  auto h = parse_memory_dsl("in x[128]; a=Conv(x); r=Reshape(a)[2,64]; out r");
  GraphMemoryPlan plan2 = plan_or_die(*h);
  EXPECT_EQ(placement_of(plan2, *h, "r").region, MemoryRegion::kGraphIo);
  EXPECT_EQ(placement_of(plan2, *h, "r").alias, MemoryAlias::kNone);
}

// ---- continuous memory for Concat ----

TEST(MemoryPlanTest, ConcatProducersWriteIntoTheirSlices) {
  // a (512 B) and b (1024 B) are made straight inside c: one buffer [1,4] of 1536 B.
  auto g = parse_memory_dsl("in x[128]; a=Conv(x)[128]; b=Conv(x)[256]; c=Concat(a,b){axis=0}; d=Conv(c)[128]; out d");
  GraphMemoryPlan plan = plan_or_die(*g);
  const ValuePlacement& c = placement_of(plan, *g, "c");
  EXPECT_EQ(placement_of(plan, *g, "a").alias, MemoryAlias::kSlice);
  EXPECT_EQ(placement_of(plan, *g, "a").alias_source, index_of(plan, *g, "c"));
  EXPECT_EQ(placement_of(plan, *g, "a").offset, c.offset);
  EXPECT_EQ(placement_of(plan, *g, "b").offset, c.offset + 512);
  ASSERT_EQ(plan.buffers.size(), 1u);
  EXPECT_EQ(plan.buffers[0].bytes, 1536u);
  EXPECT_EQ(plan.buffers[0].first_use, 1);
  EXPECT_EQ(plan.feature_map_bytes, 1536u);
  EXPECT_EQ(plan.statistics.concat_slices, 2u);
}

TEST(MemoryPlanTest, ConcatSlicesNeedContiguityAndDistinctInputs) {
  // Axis 1 of [2,64]: each input is two separate runs of the output.
  auto g =
      parse_memory_dsl("in x[2,64]; a=Conv(x)[2,64]; b=Conv(x)[2,64]; c=Concat(a,b){axis=1}[2,128]; d=Conv(c); out d");
  GraphMemoryPlan plan = plan_or_die(*g);
  EXPECT_EQ(placement_of(plan, *g, "a").alias, MemoryAlias::kNone);
  EXPECT_EQ(placement_of(plan, *g, "b").alias, MemoryAlias::kNone);

  // Leading dims of 1 keep it contiguous (axis -1 of [1,64]).
  auto h =
      parse_memory_dsl("in x[1,64]; a=Conv(x)[1,64]; b=Conv(x)[1,32]; c=Concat(a,b){axis=-1}[1,96]; d=Conv(c); out d");
  GraphMemoryPlan plan2 = plan_or_die(*h);
  EXPECT_EQ(placement_of(plan2, *h, "b").alias, MemoryAlias::kSlice);
  EXPECT_EQ(placement_of(plan2, *h, "b").offset, placement_of(plan2, *h, "c").offset + 256);

  // One value cannot sit in two slices; graph inputs are the caller's.
  auto k = parse_memory_dsl("in x[128]; a=Conv(x); c=Concat(a,a,x){axis=0}[384]; d=Conv(c); out d");
  GraphMemoryPlan plan3 = plan_or_die(*k);
  EXPECT_EQ(placement_of(plan3, *k, "a").alias, MemoryAlias::kNone);
  EXPECT_EQ(placement_of(plan3, *k, "x").alias, MemoryAlias::kNone);
}

TEST(MemoryPlanTest, ActivationBeforeConcatRunsInPlaceInsideTheSlice) {
  // 1 a=Conv | 2 r=Relu(a) (slice 0 of c; a dies -> a moves into the slice too)
  // 3 b=Conv (slice 1) | 4 c=Concat (no copy) | 5 d
  auto g =
      parse_memory_dsl("in x[128]; a=Conv(x)[128]; r=Relu(a); b=Conv(x)[128]; c=Concat(r,b){axis=0}; d=Conv(c); out d");
  GraphMemoryPlan plan = plan_or_die(*g);
  const size_t base = placement_of(plan, *g, "c").offset;
  EXPECT_EQ(placement_of(plan, *g, "r").alias, MemoryAlias::kSlice);
  EXPECT_EQ(placement_of(plan, *g, "r").in_place_of, index_of(plan, *g, "a"));
  EXPECT_EQ(placement_of(plan, *g, "a").offset, base);
  EXPECT_EQ(placement_of(plan, *g, "r").offset, base);
  EXPECT_EQ(placement_of(plan, *g, "b").offset, base + 512);
  ASSERT_EQ(plan.buffers.size(), 1u);
  EXPECT_EQ(plan.feature_map_bytes, 1024u);
}

TEST(MemoryPlanTest, ViewBeforeConcatMovesItsSourceIntoTheSlice) {
  // 1 a=Conv | 2 r=Reshape(a): r is slice 0 of c, so a is made there and recorded as the
  // view's alias | 3 b (slice 1) | 4 c=Concat (no copy) | 5 d
  auto g = parse_memory_dsl(
      "in x[128]; a=Conv(x)[2,64]; r=Reshape(a)[128]; b=Conv(x)[128]; c=Concat(r,b){axis=0}; d=Conv(c); out d");
  GraphMemoryPlan plan = plan_or_die(*g);
  EXPECT_EQ(placement_of(plan, *g, "r").alias, MemoryAlias::kSlice);
  EXPECT_EQ(placement_of(plan, *g, "a").alias, MemoryAlias::kView);
  EXPECT_EQ(placement_of(plan, *g, "a").alias_source, index_of(plan, *g, "r"));
  EXPECT_EQ(placement_of(plan, *g, "a").offset, placement_of(plan, *g, "c").offset);
  ASSERT_EQ(plan.buffers.size(), 1u);
  EXPECT_EQ(plan.buffers[0].first_use, 1);
  EXPECT_EQ(plan.feature_map_bytes, 1024u);
}

TEST(MemoryPlanTest, NestedConcatAndConcatIntoTheCallersOutput) {
  auto g = parse_memory_dsl(
      "in x[128]; a=Conv(x); b=Conv(x); c=Concat(a,b){axis=0}[256]; e=Conv(x); f=Concat(c,e){axis=0}[384]; "
      "h=Conv(f)[128]; out h");
  GraphMemoryPlan plan = plan_or_die(*g);
  const size_t base = placement_of(plan, *g, "f").offset;
  EXPECT_EQ(placement_of(plan, *g, "c").offset, base);
  EXPECT_EQ(placement_of(plan, *g, "a").offset, base);
  EXPECT_EQ(placement_of(plan, *g, "b").offset, base + 512);
  EXPECT_EQ(placement_of(plan, *g, "e").offset, base + 1024);
  EXPECT_EQ(plan.feature_map_bytes, 1536u);

  // c is a graph output: a and b are written into the caller's buffer (after x's 512 B).
  auto h = parse_memory_dsl("in x[128]; a=Conv(x)[128]; b=Conv(x)[64]; c=Concat(a,b){axis=0}[192]; out c");
  GraphMemoryPlan plan2 = plan_or_die(*h);
  EXPECT_EQ(placement_of(plan2, *h, "c").offset, 512u);
  EXPECT_EQ(placement_of(plan2, *h, "a").region, MemoryRegion::kGraphIo);
  EXPECT_EQ(placement_of(plan2, *h, "a").offset, 512u);
  EXPECT_EQ(placement_of(plan2, *h, "b").offset, 1024u);
  EXPECT_EQ(plan2.feature_map_bytes, 0u);
  EXPECT_EQ(plan2.io_bytes, 1280u);
}

// ---- subgraphs ----

TEST(MemoryPlanTest, SubgraphValuesLiveInsideTheirNodesSteps) {
  // Subgraphs run in attribute-name order (else_branch, then_branch), one after another:
  // 0 entry | 1 a | 2 If begins | else: 3 entry, 4 e=Conv(a'), 5 exit | then: 6 entry,
  // 7 t=Relu(a'), 8 exit | 9 If ends | 10 z | 11 exit
  Graph g;
  Value* cond = g.add_input("cond", TensorDesc::of(DataType::kBool, {1}));
  Value* x = g.add_input("x", TensorDesc::of(DataType::kFloat32, {128}));
  Node* conv = g.add_node("Conv", {x}, 1, "conv", {"a"});
  conv->output(0)->set_desc(x->desc());
  auto make_branch = [&](const std::string& name, const std::string& op, const std::string& out) {
    auto branch = std::make_shared<Graph>(name);
    branch->set_parent(&g);
    branch->set_opset_import("", 17);
    Value* captured = branch->add_capture("a", x->desc());
    Node* n = branch->add_node(op, {captured}, 1, name + "_node", {out});
    n->output(0)->set_desc(x->desc());
    branch->add_output(n->output(0));
    return branch;
  };
  auto then_graph = make_branch("then", "Relu", "t");
  auto else_graph = make_branch("else", "Conv", "e");
  Node* branch = g.add_node("If", {cond}, 1, "if", {"y"});
  branch->set_attribute("then_branch", Attribute(then_graph));
  branch->set_attribute("else_branch", Attribute(else_graph));
  branch->output(0)->set_desc(x->desc());
  Node* last = g.add_node("Conv", {branch->output(0)}, 1, "last", {"z"});
  last->output(0)->set_desc(x->desc());
  g.add_output(last->output(0));

  GraphMemoryPlan plan = plan_or_die(g);
  EXPECT_EQ(plan.step_count, 12);
  const ValuePlacement* a = plan.find(conv->output(0));
  EXPECT_EQ(a->first_use, 1);
  EXPECT_EQ(a->last_use, 9);  // captured: lives until the If ends
  const ValuePlacement* captured = plan.find(then_graph->captures()[0]);
  EXPECT_EQ(captured->alias, MemoryAlias::kView);
  EXPECT_EQ(captured->offset, a->offset);
  EXPECT_EQ(captured->first_use, 6);
  EXPECT_EQ(captured->last_use, 8);
  const ValuePlacement* e = plan.find(else_graph->outputs()[0]);
  const ValuePlacement* t = plan.find(then_graph->outputs()[0]);
  EXPECT_EQ(e->first_use, 4);
  EXPECT_EQ(e->last_use, 5);
  EXPECT_EQ(t->first_use, 7);
  EXPECT_EQ(t->last_use, 8);
  EXPECT_EQ(t->in_place_of, -1);  // a is read after the branch: no Relu in place
  const ValuePlacement* y = plan.find(branch->output(0));
  EXPECT_EQ(y->first_use, 2);
  EXPECT_EQ(y->last_use, 10);
  // First fit in order: a@0; e@512; t@512 (e is dead by 7); y [2,10] after all @1024.
  EXPECT_EQ(a->offset, 0u);
  EXPECT_EQ(e->offset, 512u);
  EXPECT_EQ(t->offset, 512u);
  EXPECT_EQ(y->offset, 1024u);
}

// ---- orders ----

TEST(MemoryPlanTest, ExplicitOrderIsCheckedAndUsed) {
  auto g = parse_memory_dsl("in x[128]; a=Conv(x); b=Conv(x); c=Add(a,b); out c");
  const Node* a = g->find_node("n_a");
  const Node* b = g->find_node("n_b");
  const Node* c = g->find_node("n_c");
  MemoryPlanOptions options = toy_plan_options();
  options.explicit_order = {b, a, c};
  GraphMemoryPlan plan = plan_or_die(*g, options);
  EXPECT_EQ(plan.order, options.explicit_order);
  EXPECT_EQ(placement_of(plan, *g, "b").first_use, 1);

  options.explicit_order = {c, a, b};
  Result<GraphMemoryPlan> bad = plan_memory(*g, first_fit(), options);
  ASSERT_FALSE(bad.is_ok());
  EXPECT_THAT(bad.status().message(), HasSubstr("runs Add 'n_c' before Conv 'n_a'"));

  options.explicit_order = {a, b};
  bad = plan_memory(*g, first_fit(), options);
  ASSERT_FALSE(bad.is_ok());
  EXPECT_THAT(bad.status().message(), HasSubstr("has 2 nodes, graph 'dsl' has 3"));
}

// ---- choosing among assigners ----

// Puts everything at offset 0: invalid whenever two buffers live together.
class OverlappingAssigner final : public MemoryAssigner {
 public:
  std::string name() const override { return "test_overlapping"; }
  Result<MemoryPlan> assign(const std::vector<MemoryRequest>& requests, size_t) const override {
    MemoryPlan plan;
    plan.offsets.assign(requests.size(), 0);
    for (const MemoryRequest& r : requests) plan.total_bytes = std::max(plan.total_bytes, r.bytes);
    return plan;
  }
};

class FailingAssigner final : public MemoryAssigner {
 public:
  std::string name() const override { return "test_failing"; }
  Result<MemoryPlan> assign(const std::vector<MemoryRequest>&, size_t) const override {
    return internal_error("out of ideas");
  }
};

TEST(MemoryPlanTest, KeepsTheSmallestValidAnswer) {
  auto g = parse_memory_dsl("in x[128]; a=Conv(x); b=Conv(a); c=Conv(b); d=Conv(c); out d");
  std::vector<std::shared_ptr<MemoryAssigner>> assigners{
      std::make_shared<FirstFitAssigner>(FirstFitAssigner::Reuse::kNever), std::make_shared<OverlappingAssigner>(),
      std::make_shared<FirstFitAssigner>(), std::make_shared<FailingAssigner>()};
  GraphMemoryPlan plan = plan_or_die(*g, {}, assigners);
  const MemoryStatistics& s = plan.statistics;
  EXPECT_EQ(s.assigner, "test_first_fit");
  ASSERT_EQ(s.assigners.size(), 4u);
  EXPECT_EQ(s.assigners[0].total_bytes, 1536u);  // a, b, c one after another
  EXPECT_THAT(s.assigners[1].error, HasSubstr("overlap in bytes while both live"));
  EXPECT_EQ(s.assigners[2].total_bytes, 1024u);  // a and c share
  EXPECT_THAT(s.assigners[3].error, HasSubstr("out of ideas"));
  EXPECT_EQ(plan.feature_map_bytes, 1024u);
  EXPECT_THAT(format_memory_statistics(s), HasSubstr("test_overlapping=rejected"));

  Result<GraphMemoryPlan> none = plan_memory(*g, {std::make_shared<OverlappingAssigner>()});
  ASSERT_FALSE(none.is_ok());
  EXPECT_THAT(none.status().message(), HasSubstr("no memory assigner produced a valid plan"));
  EXPECT_THAT(none.status().message(), HasSubstr("test_overlapping"));

  Result<GraphMemoryPlan> empty = plan_memory(*g, {});
  ASSERT_FALSE(empty.is_ok());
  EXPECT_THAT(empty.status().message(), HasSubstr("no memory assigner is loaded"));
}

// ---- property: random DAGs ----

// Independent of the validator: buffers with intersecting lifetimes never share bytes,
// values sharing bytes while live belong to one buffer, and the bound is the peak.
void check_buffers(const GraphMemoryPlan& plan) {
  const auto& buffers = plan.buffers;
  for (size_t i = 0; i < buffers.size(); ++i) {
    for (size_t j = i + 1; j < buffers.size(); ++j) {
      const MemoryBuffer& a = buffers[i];
      const MemoryBuffer& b = buffers[j];
      if (a.first_use <= b.last_use && b.first_use <= a.last_use) {
        ASSERT_TRUE(a.offset + a.bytes <= b.offset || b.offset + b.bytes <= a.offset)
            << "buffers " << i << " and " << j << " overlap";
      }
    }
  }
  for (const ValuePlacement& x : plan.values) {
    for (const ValuePlacement& y : plan.values) {
      if (&x == &y || x.region != MemoryRegion::kFeatureMap || y.region != MemoryRegion::kFeatureMap) continue;
      if (x.bytes == 0 || y.bytes == 0) continue;
      const bool live = x.first_use <= y.last_use && y.first_use <= x.last_use;
      const bool shared = x.offset < y.offset + y.bytes && y.offset < x.offset + x.bytes;
      if (live && shared) {
        ASSERT_EQ(x.buffer, y.buffer) << x.name << " and " << y.name;
      }
    }
  }
  size_t peak = 0;
  for (int64_t step = 0; step < plan.step_count; ++step) {
    size_t live = 0;
    for (const MemoryBuffer& b : buffers) {
      if (b.first_use <= step && step <= b.last_use) live += b.bytes;
    }
    peak = std::max(peak, live);
  }
  EXPECT_EQ(plan.statistics.lower_bound_bytes, peak);
  EXPECT_GE(plan.feature_map_bytes, peak);
}

TEST(MemoryPlanPropertyTest, RandomDagsRunCorrectlyFromEveryPlan) {
  std::mt19937 rng(20240611);
  size_t in_place = 0, views = 0, slices = 0;
  int priority_lower = 0, in_place_into_slice = 0, moved_into_slice = 0;
  for (int trial = 0; trial < 2000; ++trial) {
    auto graph = testing::random_memory_dag(rng, 1 + trial % 40);
    MemoryPlanOptions options = toy_plan_options();
    options.zero_copy_io = rng() % 4 != 0;
    options.in_place = rng() % 5 != 0;
    options.views = rng() % 5 != 0;
    options.continuous_concat = rng() % 5 != 0;
    options.order = rng() % 2 ? ExecutionOrder::kMemoryPriority : ExecutionOrder::kStable;
    Result<GraphMemoryPlan> plan = plan_memory(*graph, first_fit(), options);
    ASSERT_TRUE(plan.is_ok()) << "trial " << trial << ": " << plan.status().to_string();
    ASSERT_TRUE(validate_memory_plan(*plan).is_ok());
    ASSERT_EQ(testing::simulate_plan(*graph, *plan), "") << "trial " << trial;
    check_buffers(*plan);
    if (::testing::Test::HasFatalFailure()) return;
    // Without sharing rules the bound is the peak of live node outputs, which memory
    // priority never makes worse than the stable order.
    MemoryPlanOptions plain = toy_plan_options();
    plain.in_place = plain.views = plain.continuous_concat = false;
    Result<GraphMemoryPlan> stable = plan_memory(*graph, first_fit(), plain);
    plain.order = ExecutionOrder::kMemoryPriority;
    Result<GraphMemoryPlan> priority = plan_memory(*graph, first_fit(), plain);
    ASSERT_TRUE(stable.is_ok() && priority.is_ok());
    ASSERT_LE(priority->statistics.lower_bound_bytes, stable->statistics.lower_bound_bytes) << "trial " << trial;
    priority_lower += priority->statistics.lower_bound_bytes < stable->statistics.lower_bound_bytes;
    in_place += plan->statistics.in_place;
    for (const ValuePlacement& p : plan->values) {
      if (p.in_place_of >= 0 && p.alias == MemoryAlias::kSlice) ++in_place_into_slice;
      if (p.alias == MemoryAlias::kView && plan->values[p.alias_source].first_use > p.first_use) ++moved_into_slice;
    }
    views += plan->statistics.views;
    slices += plan->statistics.concat_slices;
  }
  // The generator really exercised every kind of sharing.
  EXPECT_GT(priority_lower, 200) << "memory priority never beat the stable order";
  EXPECT_GT(in_place_into_slice, 200);  // an activation written in place inside a Concat slice
  EXPECT_GT(moved_into_slice, 50);      // a value made straight into the slice of its view
  EXPECT_GT(in_place, 1000u);
  EXPECT_GT(views, 500u);
  EXPECT_GT(slices, 500u);
}

TEST(MemoryPlanPropertyTest, SimulatorCatchesAPlanWithoutSharingRules) {
  // Guard for the property above: the simulator does notice clobbering. Put every
  // feature-map value at offset 0 and expect a complaint.
  std::mt19937 rng(7);
  int caught = 0;
  for (int trial = 0; trial < 50; ++trial) {
    auto graph = testing::random_memory_dag(rng, 12);
    Result<GraphMemoryPlan> plan = plan_memory(*graph, first_fit(), toy_plan_options());
    ASSERT_TRUE(plan.is_ok());
    if (plan->buffers.size() < 2) continue;
    for (ValuePlacement& p : plan->values) {
      if (p.region == MemoryRegion::kFeatureMap) p.offset = 0;
    }
    if (!testing::simulate_plan(*graph, *plan).empty()) ++caught;
  }
  EXPECT_GT(caught, 40);
}

// ---- several streams ----

/// Plan options for `graph`'s stable order placed on up to `max_streams` streams.
struct OnStreams {
  std::vector<const Node*> order;
  StreamPlan streams;
  MemoryPlanOptions options = toy_plan_options();
};

std::unique_ptr<OnStreams> on_streams(const Graph& graph, int max_streams) {
  auto result = std::make_unique<OnStreams>();
  Result<std::vector<Node*>> order = graph.topological_order(TopoOrder::kStable);
  EXPECT_TRUE(order.is_ok());
  result->order.assign(order->begin(), order->end());
  Result<std::vector<std::vector<size_t>>> predecessors = order_predecessors(result->order);
  EXPECT_TRUE(predecessors.is_ok()) << predecessors.status().to_string();
  StreamPlanOptions stream_options;
  stream_options.max_streams = max_streams;
  Result<StreamPlan> streams = plan_streams(*predecessors, stream_options);
  EXPECT_TRUE(streams.is_ok());
  result->streams = std::move(streams).value();
  result->options.explicit_order = result->order;
  result->options.streams = &result->streams;
  return result;
}

// a1..a3 and b1..b3: two chains from x that join in c.
constexpr const char* kTwoChains =
    "in x[256]; a1=Conv(x)[256]; a2=Conv(a1)[256]; a3=Conv(a2)[256]; b1=Conv(x)[256]; b2=Conv(b1)[256]; "
    "b3=Conv(b2)[256]; c=Conv(a3,b3)[256]; d=Conv(c)[256]; out d";

std::string describe(const GraphMemoryPlan& plan) {
  std::string text;
  for (const ValuePlacement& p : plan.values) {
    text += p.name + " " + memory_region_name(p.region) + " @" + std::to_string(p.offset) + " +" +
            std::to_string(p.bytes) + " steps " + std::to_string(p.first_use) + ".." + std::to_string(p.last_use) +
            "\n";
  }
  for (size_t i = 0; i < plan.order.size(); ++i) {
    text += plan.order[i]->name() + " on stream " +
            (plan.streams.stream_of.empty() ? std::string("0") : std::to_string(plan.streams.stream_of[i])) + "\n";
  }
  return text;
}

bool overlap(const ValuePlacement& a, const ValuePlacement& b) {
  return a.region == b.region && a.offset < b.offset + b.bytes && b.offset < a.offset + a.bytes;
}

TEST(StreamMemoryPlanTest, ConcurrentStreamsNeverShareBytesButOrderedStepsDo) {
  auto g = parse_memory_dsl(kTwoChains);
  const GraphMemoryPlan single = plan_or_die(*g);
  EXPECT_TRUE(overlap(placement_of(single, *g, "a1"), placement_of(single, *g, "b1")) ||
              overlap(placement_of(single, *g, "a2"), placement_of(single, *g, "b1")))
      << "one stream: b1 reuses bytes of the first chain\n" << describe(single);

  auto streamed = on_streams(*g, 2);
  ASSERT_EQ(streamed->streams.stream_count, 2);
  const GraphMemoryPlan plan = plan_or_die(*g, streamed->options);
  ASSERT_TRUE(validate_memory_plan(plan).is_ok()) << validate_memory_plan(plan).to_string();
  EXPECT_EQ(plan.streams.stream_count, 2);
  for (const char* a : {"a1", "a2", "a3"}) {
    for (const char* b : {"b1", "b2", "b3"}) {
      EXPECT_FALSE(overlap(placement_of(plan, *g, a), placement_of(plan, *g, b))) << a << " and " << b << " run on concurrent streams";
    }
  }
  // Stream order still frees bytes: a3 after a1's reader a2, b3 after b1's reader b2, and
  // c, after the join, over a dead value of either chain.
  EXPECT_TRUE(overlap(placement_of(plan, *g, "a1"), placement_of(plan, *g, "a3")));
  EXPECT_TRUE(overlap(placement_of(plan, *g, "b1"), placement_of(plan, *g, "b3")));
  bool c_reuses = false;
  for (const char* dead : {"a1", "a2", "b1", "b2"}) c_reuses |= overlap(placement_of(plan, *g, "c"), placement_of(plan, *g, dead));
  EXPECT_TRUE(c_reuses) << describe(plan);
  EXPECT_EQ(testing::simulate_plan(*g, plan), "");
}

TEST(StreamMemoryPlanTest, ValidatorRejectsAOneStreamPlanRunOnTwo) {
  auto g = parse_memory_dsl(kTwoChains);
  auto streamed = on_streams(*g, 2);
  MemoryPlanOptions one = toy_plan_options();
  one.explicit_order = streamed->order;
  GraphMemoryPlan plan = plan_or_die(*g, one);
  ASSERT_TRUE(validate_memory_plan(plan).is_ok());
  plan.streams = streamed->streams;
  const Status status = validate_memory_plan(plan);
  EXPECT_FALSE(status.is_ok());
  EXPECT_THAT(status.message(), HasSubstr("no stream order or event separates them"));

  // A stream plan that leaves a dependency unordered is refused too.
  plan.streams.events.clear();
  EXPECT_THAT(validate_memory_plan(plan).message(), HasSubstr("no stream order or event orders them"));
}

TEST(StreamMemoryPlanTest, InPlaceNeedsEveryOtherReaderToHappenBefore) {
  // r reads a on stream 0 while s, on stream 1, would overwrite a in place.
  auto g = parse_memory_dsl("in x[256]; a=Conv(x)[256]; r=Conv(a)[256]; s=Relu(a); t=Conv(r,s)[256]; out t");
  const GraphMemoryPlan single = plan_or_die(*g);
  EXPECT_EQ(placement_of(single, *g, "s").in_place_of, index_of(single, *g, "a"));
  auto streamed = on_streams(*g, 2);
  ASSERT_EQ(streamed->streams.stream_count, 2);
  ASSERT_NE(streamed->streams.stream_of[1], streamed->streams.stream_of[2]);
  const GraphMemoryPlan plan = plan_or_die(*g, streamed->options);
  EXPECT_EQ(placement_of(plan, *g, "s").in_place_of, -1);
  EXPECT_FALSE(overlap(placement_of(plan, *g, "a"), placement_of(plan, *g, "s")));

  // Forced in place anyway, the validator names the race.
  GraphMemoryPlan forced = single;
  forced.streams = streamed->streams;
  EXPECT_THAT(validate_memory_plan(forced).message(), HasSubstr("another stream may still read the source"));

  // After the other reader on its own stream (r, then s on r's stream), in place again.
  auto chain = parse_memory_dsl("in x[256]; a=Conv(x)[256]; r=Conv(a)[256]; s=Relu(a,r); t=Conv(s)[256]; out t");
  auto chained = on_streams(*chain, 2);
  ASSERT_EQ(chained->streams.stream_of[1], chained->streams.stream_of[2]);
  const GraphMemoryPlan chain_plan = plan_or_die(*chain, chained->options);
  EXPECT_EQ(placement_of(chain_plan, *chain, "s").in_place_of, index_of(chain_plan, *chain, "a"));
}

TEST(StreamMemoryPlanTest, AtomicCleanGroupsOnePerStream) {
  auto g = parse_memory_dsl(kTwoChains);
  auto streamed = on_streams(*g, 2);
  streamed->options.zeroed_memory = [](const Node& node) {
    ZeroedMemory zeroed;
    zeroed.outputs = node.name() == "n_a2" || node.name() == "n_b2" ? 1 : 0;
    zeroed.workspace = node.name() == "n_b1";
    return zeroed;
  };
  streamed->options.workspace_bytes = [](const Node& node) -> size_t { return node.name() == "n_b1" ? 64 : 0; };
  const GraphMemoryPlan plan = plan_or_die(*g, streamed->options);
  ASSERT_TRUE(validate_memory_plan(plan).is_ok()) << validate_memory_plan(plan).to_string();
  ASSERT_EQ(plan.clean_groups.size(), 2u);
  EXPECT_NE(plan.clean_groups[0].stream, plan.clean_groups[1].stream);
  for (const ValuePlacement& p : plan.values) {
    if (p.clean_group < 0) continue;
    const Node* writer = p.workspace_of != nullptr ? p.workspace_of : p.value->producer();
    const auto step = static_cast<size_t>(std::find(plan.order.begin(), plan.order.end(), writer) - plan.order.begin());
    EXPECT_EQ(plan.clean_groups[p.clean_group].stream, plan.streams.stream_of[step]) << p.name;
  }
  EXPECT_EQ(plan.clean_groups[0].blocks + plan.clean_groups[1].blocks, 3u);
}

TEST(StreamMemoryPlanTest, RefusesSubgraphsAndAMissingOrder) {
  auto g = parse_memory_dsl(kTwoChains);
  auto streamed = on_streams(*g, 2);
  streamed->options.explicit_order.clear();
  EXPECT_THAT(plan_memory(*g, first_fit(), streamed->options).status().message(), HasSubstr("explicit_order"));
}

TEST(StreamMemoryPlanTest, FourBranchesOnTwoStreamsReuseBytesAcrossTheJoin) {
  // A stem, four branches of three steps whose outputs are summed, then a head.
  auto g = parse_memory_dsl(
      "in x[4096]; s=Conv(x)[4096]; "
      "p1=Conv(s)[1024]; q1=Conv(p1)[1024]; r1=Conv(q1)[4096]; "
      "p2=Conv(s)[1024]; q2=Conv(p2)[1024]; r2=Conv(q2)[4096]; "
      "p3=Conv(s)[1024]; q3=Conv(p3)[1024]; r3=Conv(q3)[4096]; "
      "p4=Conv(s)[1024]; q4=Conv(p4)[1024]; r4=Conv(q4)[4096]; "
      "t=Sum(r1,r2,r3,r4); h=Conv(t)[4096]; out h");
  const GraphMemoryPlan one = plan_or_die(*g);
  auto streamed = on_streams(*g, 2);
  ASSERT_EQ(streamed->streams.stream_count, 2);
  const GraphMemoryPlan two = plan_or_die(*g, streamed->options);
  ASSERT_TRUE(validate_memory_plan(two).is_ok());
  // Two branches run at once, so two need more than one stream (72 KiB here: the four
  // branch outputs and one branch's temporaries), but far less than every value apart
  // (the former multi-stream arena): stream order and the join still free bytes.
  EXPECT_GE(two.feature_map_bytes, one.feature_map_bytes);
  EXPECT_LE(two.feature_map_bytes, two.statistics.no_reuse_bytes * 3 / 4)
      << two.feature_map_bytes << " bytes on two streams, " << one.feature_map_bytes << " on one, "
      << two.statistics.no_reuse_bytes << " without reuse";
}

TEST(StreamMemoryPlanTest, RandomDagsOnRandomStreamCountsRunCorrectlyInEveryScheduleTried) {
  std::mt19937 rng(20261202);
  int several = 0, in_place = 0;
  size_t streamed_bytes = 0, single_bytes = 0;
  for (int trial = 0; trial < 600; ++trial) {
    auto graph = testing::random_memory_dag(rng, 2 + trial % 40);
    const int max_streams = 1 + static_cast<int>(rng() % 4);
    auto streamed = on_streams(*graph, max_streams);
    streamed->options.zero_copy_io = rng() % 4 != 0;
    Result<GraphMemoryPlan> plan = plan_memory(*graph, first_fit(), streamed->options);
    ASSERT_TRUE(plan.is_ok()) << "trial " << trial << ": " << plan.status().to_string();
    ASSERT_TRUE(validate_memory_plan(*plan).is_ok()) << "trial " << trial;
    ASSERT_EQ(testing::simulate_plan(*graph, *plan), "") << "trial " << trial;
    // The core's own assigner (a model runner without assigner plugins) holds too.
    Result<GraphMemoryPlan> core_plan = plan_memory(*graph, {first_fit_assigner()}, streamed->options);
    ASSERT_TRUE(core_plan.is_ok()) << "trial " << trial << ": " << core_plan.status().to_string();
    ASSERT_EQ(testing::simulate_plan(*graph, *core_plan), "") << "trial " << trial;
    if (plan->streams.stream_count <= 1) continue;
    ++several;
    in_place += static_cast<int>(plan->statistics.in_place);
    for (int schedule = 0; schedule < 8; ++schedule) {
      GraphMemoryPlan reordered = *plan;
      reordered.order = testing::random_stream_schedule(*plan, rng);
      ASSERT_EQ(reordered.order.size(), plan->order.size()) << "trial " << trial;
      ASSERT_EQ(testing::simulate_plan(*graph, reordered), "") << "trial " << trial << ", schedule " << schedule;
    }
    MemoryPlanOptions one = toy_plan_options();
    one.zero_copy_io = streamed->options.zero_copy_io;
    one.explicit_order = streamed->order;
    streamed_bytes += plan->feature_map_bytes;
    single_bytes += plan_or_die(*graph, one).feature_map_bytes;
  }
  EXPECT_GT(several, 300);
  EXPECT_GT(in_place, 100);  // in place still happens where stream order allows it
  EXPECT_GE(streamed_bytes, single_bytes);
}

TEST(StreamMemoryPlanTest, SchedulesCatchAOneStreamPlanRunOnSeveral) {
  // Guard for the property above: one-stream plans run in the streams' schedules clobber.
  std::mt19937 rng(11);
  int caught = 0, tried = 0;
  for (int trial = 0; trial < 200; ++trial) {
    auto graph = testing::random_memory_dag(rng, 20);
    auto streamed = on_streams(*graph, 3);
    if (streamed->streams.stream_count <= 1) continue;
    MemoryPlanOptions one = toy_plan_options();
    one.explicit_order = streamed->order;
    GraphMemoryPlan plan = plan_or_die(*graph, one);
    plan.streams = streamed->streams;
    if (validate_memory_plan(plan).is_ok()) continue;  // it happens to be safe
    ++tried;
    for (int schedule = 0; schedule < 8; ++schedule) {
      GraphMemoryPlan reordered = plan;
      reordered.order = testing::random_stream_schedule(plan, rng);
      if (!testing::simulate_plan(*graph, reordered).empty()) {
        ++caught;
        break;
      }
    }
  }
  EXPECT_GT(tried, 50);
  EXPECT_GT(caught, tried / 2);
}

}  // namespace
}  // namespace ge
