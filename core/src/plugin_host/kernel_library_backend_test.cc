// Tests of backends built from kernel libraries (core/src/plugin_host/kernel_library_backend.h).
#include "kernel_library_backend.h"

#include <gtest/gtest.h>

#include "ge/executor.h"
#include "ge/testing/fake_components.h"

namespace ge {
namespace {

using testing::ElementCount;

int thrice(const KernelArgs& a) {
  const auto n = static_cast<const ElementCount*>(a.params)->count;
  for (int64_t i = 0; i < n; ++i) static_cast<float*>(a.outputs[0])[i] = 3 * static_cast<const float*>(a.inputs[0])[i];
  return 0;
}

/// Runs `op_type` (by default Twice) with `thrice` and knows nothing else.
class ThriceLibrary final : public KernelLibrary {
 public:
  explicit ThriceLibrary(std::string op_type = "Twice", std::string backend = "fake")
      : op_type_(std::move(op_type)), backend_(std::move(backend)) {}
  std::string name() const override { return "thrice_" + op_type_; }
  std::string backend() const override { return backend_; }
  bool supports(const Node& node) const override { return node.op_type() == op_type_; }
  Result<PreparedKernel> prepare(const Node& node) const override {
    ++prepared;
    PreparedKernel k;
    k.params = std::make_shared<ElementCount>(ElementCount{node.output(0)->desc().element_count()});
    k.function = thrice;
    k.name = "thrice." + node.op_type();
    return k;
  }
  mutable int prepared = 0;

 private:
  std::string op_type_, backend_;
};

std::unique_ptr<Graph> one_node(const std::string& op_type) {
  auto g = std::make_unique<Graph>();
  Value* x = g->add_input("x", TensorDesc(DataType::kFloat32, {Dim::of(3)}));
  Node* n = g->add_node(op_type, {x}, 1, "n", {"y"});
  g->add_output(n->output(0));
  return g;
}

TEST(KernelLibraryBackend, ALibraryKernelReplacesTheBackendsForTheNodesItSupports) {
  auto backend = std::make_shared<testing::FakeBackend>();
  auto library = std::make_shared<ThriceLibrary>();
  KernelLibraryBackend composed(backend, {library});
  EXPECT_EQ(composed.name(), "fake");
  EXPECT_EQ(&composed.device(), &backend->device());

  OpRegistry ops;
  ops.add_library(std::make_shared<testing::FakeOps>());
  for (const auto& [op, expected] : {std::pair{"Twice", 6.0f}, std::pair{"AddOne", 3.0f}}) {
    auto graph = one_node(op);
    ASSERT_TRUE(ops.infer_graph(*graph).is_ok());
    auto exec = Executor::create(std::move(graph), composed, ops);
    ASSERT_TRUE(exec.is_ok()) << exec.status().to_string();
    std::vector<Tensor> outputs;
    ASSERT_TRUE((*exec)->run({{"x", Tensor::from_vector<float>({3}, {1, 2, 3})}}, outputs).is_ok());
    EXPECT_EQ(outputs[0].data<float>()[1], expected) << op;  // Twice: the library's 3*2, not 2*2
  }
  EXPECT_EQ(library->prepared, 1);
  EXPECT_EQ(backend->prepared, 1);
}

TEST(KernelLibraryBackend, AnOpOnlyALibraryKnowsIsSupportedAndTheLatestLibraryWins) {
  auto backend = std::make_shared<testing::FakeBackend>();
  auto first = std::make_shared<ThriceLibrary>("Custom");
  auto second = std::make_shared<ThriceLibrary>("Custom");
  KernelLibraryBackend composed(backend, {first, second});
  auto graph = one_node("Custom");
  std::string reason;
  EXPECT_FALSE(backend->supports(*graph->nodes().front(), &reason));
  EXPECT_TRUE(composed.supports(*graph->nodes().front(), &reason));
  auto kernel = composed.prepare(*graph->nodes().front());
  ASSERT_TRUE(kernel.is_ok());
  EXPECT_EQ(kernel->name, "thrice.Custom");
  EXPECT_EQ(first->prepared, 0);
  EXPECT_EQ(second->prepared, 1);
  EXPECT_TRUE(composed.format_capability(*graph->nodes().front()).inputs.empty());
}

TEST(KernelLibraryBackend, AnOpNobodySupportsKeepsTheBackendsReason) {
  KernelLibraryBackend composed(std::make_shared<testing::FakeBackend>(), {std::make_shared<ThriceLibrary>()});
  auto graph = one_node("Unknown");
  std::string reason;
  EXPECT_FALSE(composed.supports(*graph->nodes().front(), &reason));
  EXPECT_EQ(reason, "no kernel for Unknown");
}

}  // namespace
}  // namespace ge
