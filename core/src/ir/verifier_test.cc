// Tests of the graph verifier (ge/verifier.h).
#include "ge/verifier.h"

#include <gtest/gtest.h>

namespace ge {
namespace {

TensorDesc f32(std::vector<int64_t> dims) { return TensorDesc::of(DataType::kFloat32, dims); }

// main: %x -> Relu 'a' -> %a_out -> Neg 'b' -> %b_out (output), and optionally an If 'if'
// whose then_branch captures %x.
struct Fixture {
  Graph g{"main"};
  Value* x = g.add_input("x", f32({2}));
  Node* a = g.add_node("Relu", {x}, 1, "a", {"a_out"});
  Node* b = g.add_node("Neg", {a->output(0)}, 1, "b", {"b_out"});
  std::shared_ptr<Graph> then_branch;
  Node* cond = nullptr;

  Fixture() { g.add_output(b->output(0)); }

  // Adds If 'if' with an empty then_branch ('then') whose parent is main.
  Graph& add_if() {
    then_branch = std::make_shared<Graph>("then");
    then_branch->set_parent(&g);
    cond = g.add_node("If", {x}, 1, "if", {"if_out"});
    cond->set_attribute("then_branch", then_branch);
    return *then_branch;
  }
};

const std::string kThen = "graph 'then' (attribute 'then_branch' of If 'if' in graph 'main')";

std::string error_of(const Graph& g) {
  Status s = verify_graph(g);
  if (s.is_ok()) return "(ok)";
  EXPECT_EQ(s.code(), StatusCode::kInvalidArgument);
  return s.message();
}

TEST(Verifier, AcceptsWellFormedGraphsWithNestedCaptures) {
  Fixture f;
  Graph& then_branch = f.add_if();
  Value* cap = then_branch.add_capture("a_out", TensorDesc());
  auto inner = std::make_shared<Graph>("inner");
  inner->set_parent(&then_branch);
  Value* inner_cap = inner->add_capture("x", TensorDesc());  // two levels up
  Node* id = inner->add_node("Identity", {inner_cap}, 1, "id", {"i"});
  inner->add_output(id->output(0));
  Node* loop = then_branch.add_node("Loop", {nullptr, nullptr, cap}, 1, "loop", {"l"});
  loop->set_attribute("body", inner);
  then_branch.add_output(loop->output(0));
  then_branch.add_output(cap);  // a subgraph may return a captured value as it is
  Value* w = f.g.add_initializer("w", Tensor::from_vector<float>({2}, {1.f, 2.f}), /*also_input=*/true);
  w->set_desc(TensorDesc(DataType::kFloat32, {Dim::named("N")}));  // less specific than its data: fine
  Node* omitted = f.g.add_node("Split", {w}, 2, "split", {"s0", ""});
  omitted->add_control_predecessor(f.a);
  EXPECT_EQ(error_of(f.g), "(ok)");
  EXPECT_EQ(error_of(*inner), "(ok)");  // a subgraph alone resolves captures through its parents
}

// ---- acyclic ----

TEST(Verifier, RejectsDataCycles) {
  Fixture f;
  f.a->set_input(0, f.b->output(0));
  EXPECT_EQ(error_of(f.g), "graph 'main' has a cycle through Relu 'a'");
}

TEST(Verifier, RejectsControlCycles) {
  Fixture f;
  f.a->add_control_predecessor(f.b);
  EXPECT_EQ(error_of(f.g), "graph 'main' has a cycle through Relu 'a'");
}

TEST(Verifier, RejectsCyclesInsideSubgraphsNamingWhere) {
  Fixture f;
  Graph& then_branch = f.add_if();
  Node* p = then_branch.add_node("Relu", {nullptr}, 1, "p", {"p_out"});
  Node* q = then_branch.add_node("Neg", {p->output(0)}, 1, "q", {"q_out"});
  p->set_input(0, q->output(0));
  EXPECT_EQ(error_of(f.g), kThen + ": graph 'then' has a cycle through Relu 'p'");
}

// ---- every input is a value of this graph ----

TEST(Verifier, RejectsInputsFromUnrelatedGraphs) {
  Fixture f;
  Graph other("other");
  f.a->set_input(0, other.add_input("y", f32({2})));
  EXPECT_EQ(error_of(f.g),
            "graph 'main': Relu 'a': input #0 refers to a value outside this graph and the graphs around and "
            "inside it (a removed value?)");
}

TEST(Verifier, RejectsSubgraphNodesUsingEnclosingValuesWithoutCapture) {
  Fixture f;
  Graph& then_branch = f.add_if();
  Node* n = then_branch.add_node("Neg", {f.x}, 1, "n", {"n_out"});
  then_branch.add_output(n->output(0));
  EXPECT_EQ(error_of(f.g),
            "graph 'main': value %x is used directly by Neg 'n' of graph 'then'; a subgraph must use an enclosing "
            "value through a capture");
  // Checked on its own, the subgraph reports the same mistake from its side.
  EXPECT_EQ(error_of(then_branch),
            "graph 'then': Neg 'n': input #0 is %x of graph 'main', not a value of this graph; a subgraph must use "
            "an enclosing value through a capture");
}

// ---- use lists agree with inputs, both ways ----
// Node and Value are copyable, which is how these tests get at stale use lists.

TEST(Verifier, RejectsInputsMissingFromUseLists) {
  Fixture f;
  Node snapshot = *f.b;
  f.b->set_input(0, nullptr);  // %a_out forgets its use by 'b'
  *f.b = snapshot;             // ... but 'b' reads %a_out again
  EXPECT_EQ(error_of(f.g), "graph 'main': Neg 'b': input #0 is %a_out, but the use list of %a_out has no entry for it");
}

TEST(Verifier, RejectsUsesListedTwice) {
  Fixture f;
  Node without_input = *f.b;
  without_input.set_input(0, nullptr);  // the copy is in no use list: %a_out keeps 'b' input #0
  *f.b = without_input;                 // 'b' reads nothing, yet is listed by %a_out
  f.b->set_input(0, f.a->output(0));    // ... and now listed a second time
  EXPECT_EQ(error_of(f.g), "graph 'main': value %a_out lists its use by Neg 'b' input #0 twice");
}

TEST(Verifier, RejectsUsesThatTheUserDoesNotHave) {
  Fixture f;
  Value snapshot = *f.a->output(0);
  f.b->set_input(0, f.x);
  *f.a->output(0) = snapshot;  // %a_out still lists 'b' input #0, which now reads %x
  EXPECT_EQ(error_of(f.g), "graph 'main': value %a_out lists a use by Neg 'b' input #0, but that input is %x");
}

TEST(Verifier, RejectsUsesOfInputsThatNoLongerExist) {
  Fixture f;
  Value snapshot = *f.a->output(0);
  f.b->truncate_inputs(0);
  *f.a->output(0) = snapshot;
  EXPECT_EQ(error_of(f.g),
            "graph 'main': value %a_out lists a use by Neg 'b' input #0, but that node has only 0 inputs");
}

TEST(Verifier, RejectsUsesByNodesThatWereDestroyed) {
  Fixture f;
  {
    Graph& then_branch = f.add_if();
    then_branch.add_node("Neg", {f.x}, 1, "n", {"n_out"});  // a direct (wrong) use of %x
    f.cond->remove_attribute("then_branch");
    f.then_branch.reset();  // destroys 'n', whose use stays in the use list of %x
  }
  EXPECT_EQ(error_of(f.g),
            "graph 'main': value %x lists a use by a node outside this graph and the graphs around and inside it "
            "(a removed node?)");
}

TEST(Verifier, RejectsUsesByNodesOfOtherGraphs) {
  Fixture f;
  Graph other("other");
  other.add_node("Foo", {f.x}, 0, "foo");
  // An unrelated graph is out of reach: the verifier cannot tell it from a freed node.
  EXPECT_EQ(error_of(f.g),
            "graph 'main': value %x lists a use by a node outside this graph and the graphs around and inside it "
            "(a removed node?)");
  other.nodes().front()->set_input(0, nullptr);

  // A node of the enclosing graph reading a subgraph's value is named.
  Graph& then_branch = f.add_if();
  Node* inner = then_branch.add_node("Relu", {}, 1, "inner", {"inner_out"});
  f.g.add_node("Foo", {inner->output(0)}, 0, "foo");
  EXPECT_EQ(error_of(then_branch),
            "graph 'then': value %inner_out lists a use by Foo 'foo' of graph 'main', which is not a node of this "
            "graph");
  EXPECT_EQ(error_of(f.g),
            "graph 'main': Foo 'foo': input #0 is %inner_out of graph 'then', not a value of this graph");
}

// ---- graph outputs ----

TEST(Verifier, RejectsNullGraphOutputs) {
  Fixture f;
  f.g.add_output(nullptr);
  EXPECT_EQ(error_of(f.g), "graph 'main': graph output #1 is null");
}

TEST(Verifier, RejectsSubgraphOutputsThatAreEnclosingValues) {
  Fixture f;
  Graph& then_branch = f.add_if();
  then_branch.add_output(f.x);
  EXPECT_EQ(error_of(f.g), kThen +
                               ": graph output #0 is %x of graph 'main', not a value of this graph; a subgraph must "
                               "use an enclosing value through a capture");
}

// ---- captures ----

TEST(Verifier, RejectsCapturesThatResolveNowhere) {
  Fixture f;
  Graph& then_branch = f.add_if();
  then_branch.add_capture("nope", TensorDesc());
  EXPECT_EQ(error_of(f.g), kThen + ": capture %nope does not name a value of any enclosing graph");
}

TEST(Verifier, RejectsCapturesInTopLevelGraphs) {
  Fixture f;
  f.g.add_capture("c", TensorDesc());
  EXPECT_EQ(error_of(f.g), "graph 'main': capture %c cannot resolve: graph 'main' has no enclosing graph");
}

// ---- subgraph ownership ----

TEST(Verifier, RejectsSubgraphsWithTheWrongParent) {
  Fixture f;
  Graph& then_branch = f.add_if();
  then_branch.set_parent(nullptr);
  EXPECT_EQ(error_of(f.g),
            "graph 'main': If 'if': attribute 'then_branch' holds graph 'then' whose parent is not set instead of "
            "this graph");
  Graph other("other");
  then_branch.set_parent(&other);
  EXPECT_EQ(error_of(f.g),
            "graph 'main': If 'if': attribute 'then_branch' holds graph 'then' whose parent is graph 'other' "
            "instead of this graph");
}

TEST(Verifier, RejectsNullSubgraphs) {
  Fixture f;
  f.add_if();
  f.cond->set_attribute("branches", std::vector<Attribute::GraphPtr>{f.then_branch, nullptr});
  EXPECT_EQ(error_of(f.g), "graph 'main': If 'if': attribute 'branches' #1 holds a null graph");
}

// ---- definitions ----

TEST(Verifier, RejectsDuplicateValueNames) {
  Fixture f;
  f.b->output(0)->set_name("a_out");
  EXPECT_EQ(error_of(f.g),
            "graph 'main': value name %a_out is defined twice: by output #0 of Relu 'a' and by output #0 of Neg 'b'");
}

TEST(Verifier, RejectsUnnamedValuesThatAreRead) {
  Fixture f;
  f.a->output(0)->set_name("");  // an omitted output must have no uses
  EXPECT_EQ(error_of(f.g), "graph 'main': output #0 of Relu 'a' is unnamed (an omitted output) but has 1 use(s)");
  f.b->set_input(0, f.x);
  f.g.add_output(f.a->output(0));
  EXPECT_EQ(error_of(f.g),
            "graph 'main': graph output #1 is output #0 of Relu 'a', which is unnamed (an omitted output)");
  f.x->set_name("");
  EXPECT_EQ(error_of(f.g), "graph 'main': graph input #0 has an empty name");
}

TEST(Verifier, RejectsWrongProducerBackPointers) {
  Fixture f;
  *f.a->output(0) = *f.b->output(0);  // now says it is output #0 of 'b'
  EXPECT_EQ(error_of(f.g), "graph 'main': output #0 of Relu 'a' %b_out names its producer as output #0 of Neg 'b'");
}

TEST(Verifier, RejectsValuesClaimingAnotherGraphOrRole) {
  Fixture f;
  Value snapshot = *f.a->output(0);
  *f.x = snapshot;
  EXPECT_EQ(error_of(f.g), "graph 'main': graph input #0 %a_out is not marked as a graph input");
  Graph other("other");
  *f.x = *other.add_input("y", f32({2}));
  EXPECT_EQ(error_of(f.g), "graph 'main': graph input #0 %y says it belongs to graph 'other'");
}

TEST(Verifier, RejectsControlPredecessorsOfOtherGraphs) {
  Fixture f;
  Graph& then_branch = f.add_if();
  Node* inner = then_branch.add_node("Foo", {}, 0, "foo");
  f.a->add_control_predecessor(inner);
  EXPECT_EQ(error_of(f.g),
            "graph 'main': Relu 'a': control predecessor #0 is Foo 'foo' of graph 'then', not a node of this graph");
  f.a->remove_control_predecessor(inner);
  Graph other("other");
  f.a->add_control_predecessor(other.add_node("Bar", {}, 0, "bar"));
  EXPECT_EQ(error_of(f.g),
            "graph 'main': Relu 'a': control predecessor #0 refers to a node outside this graph and the graphs "
            "around and inside it (a removed node?)");
  f.a->remove_control_predecessor(f.a->control_predecessors()[0]);
}

TEST(Verifier, RejectsInitializersWhoseTypeContradictsTheirData) {
  Fixture f;
  Value* w = f.g.add_initializer("w", Tensor::from_vector<float>({2}, {1.f, 2.f}));
  w->set_desc(f32({3}));
  EXPECT_EQ(error_of(f.g), "graph 'main': initializer #0 %w is declared float32[3] but its data is float32[2]");
  w->set_desc(TensorDesc::of(DataType::kInt64, {2}));
  EXPECT_EQ(error_of(f.g), "graph 'main': initializer #0 %w is declared int64[2] but its data is float32[2]");
}

}  // namespace
}  // namespace ge
