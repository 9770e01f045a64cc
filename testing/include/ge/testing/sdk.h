#pragma once
// Test doubles for the SDK tests: an op library whose ops copy input 0's desc to their
// output (test::Widen doubles the last dim, to provoke an inference mismatch), and a
// backend that supports every op except test::NegRelu on float64.

#include <map>
#include <memory>
#include <string>

#include <gtest/gtest.h>

#include "ge/plugin_api/backend.h"
#include "ge/graph_text.h"
#include "ge/op_registry.h"
#include "ge/plugin_api/pass.h"

namespace ge::sdk_testing {

class ElementwiseOps final : public OpLibrary {
 public:
  ElementwiseOps() {
    for (const char* op : {"Relu", "Neg", "Exp", "Add", "Mul", "LeakyRelu", "Identity", "If"}) add("", op);
    for (const char* op : {"NegRelu", "Widen", "MulExp"}) add("test", op);
  }
  std::string name() const override { return "elementwise"; }
  const OpSchemaInfo* find_schema(const std::string& domain, const std::string& op_type, int64_t) const override {
    auto it = schemas_.find(domain + "::" + op_type);
    return it != schemas_.end() ? &it->second : nullptr;
  }
  Status infer(Node& node, int64_t, const InputDataProvider&, const OpRegistry& registry) const override {
    if (node.op_type() == "If") {
      for (Graph* sub : node.subgraphs()) GE_RETURN_IF_ERROR(registry.infer_graph(*sub));
      return Status::ok();
    }
    if (node.input(0) == nullptr) return invalid_argument(node.describe() + ": input 0 is missing");
    TensorDesc desc = node.input(0)->desc();
    if (node.op_type() == "Widen" && desc.has_rank() && !desc.shape->empty() && desc.shape->back().is_static()) {
      desc.shape->back() = Dim::of(desc.shape->back().value * 2);
    }
    node.output(0)->set_desc(desc);
    return Status::ok();
  }

 private:
  void add(const std::string& domain, const std::string& op) {
    OpSchemaInfo info;
    info.domain = domain;
    info.op_type = op;
    schemas_[domain + "::" + op] = info;
  }
  std::map<std::string, OpSchemaInfo> schemas_;
};

class PickyBackend final : public Backend {
 public:
  std::string name() const override { return "picky"; }
  bool supports(const Node& node, std::string* reason) const override {
    if (node.op_type() == "NegRelu" && node.input(0) != nullptr && node.input(0)->desc().dtype == DataType::kFloat64) {
      if (reason != nullptr) *reason = "no float64 kernel";
      return false;
    }
    return true;
  }
  Result<PreparedKernel> prepare(const Node&) const override { return unsupported("picky backend runs nothing"); }
  Device& device() override { std::abort(); }
};

/// Parses `text`, failing the test on a parse error.
inline std::unique_ptr<Graph> parse(const std::string& text) {
  auto graph = parse_graph(text);
  EXPECT_TRUE(graph.is_ok()) << graph.status().to_string();
  return graph.is_ok() ? std::move(graph).value() : std::make_unique<Graph>();
}

}  // namespace ge::sdk_testing
