#pragma once
// Test support for memory planning, shared by the core planner tests and the memory
// assigner plugins' tests:
//   - parse_memory_dsl: a graph from one line, e.g.
//       "in x[128]; a=Conv(x)[256]; b=Relu(a); c=Concat(a,b){axis=0}; out c"
//   - random_memory_dag: random DAGs of toy ops that exercise in-place, views and Concat;
//   - simulate_plan: runs such a graph out of a plan's arenas word by word and compares
//     every value with a reference computed without any shared memory;
//   - FirstFitAssigner: a small, obviously correct assigner for core tests (with or
//     without reuse);
//   - toy_ops / toy_plan_options: the schemas that say which of those ops share storage;
//   - plan_or_die, placement_of, index_of: planning and looking up in core tests.

#include <algorithm>
#include <cctype>
#include <cstdint>
#include <cstring>
#include <map>
#include <memory>
#include <random>
#include <stdexcept>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include <gtest/gtest.h>

#include "ge/graph.h"
#include "ge/memory_plan.h"
#include "ge/op_registry.h"

namespace ge::testing {

namespace dsl_detail {
inline std::string trim(std::string_view s) {
  size_t b = 0, e = s.size();
  while (b < e && std::isspace(static_cast<unsigned char>(s[b]))) ++b;
  while (e > b && std::isspace(static_cast<unsigned char>(s[e - 1]))) --e;
  return std::string(s.substr(b, e - b));
}
inline std::vector<std::string> split(std::string_view s, char sep) {
  std::vector<std::string> parts;
  int depth = 0;
  size_t start = 0;
  for (size_t i = 0; i < s.size(); ++i) {
    if (s[i] == '[' || s[i] == '(' || s[i] == '{') ++depth;
    if (s[i] == ']' || s[i] == ')' || s[i] == '}') --depth;
    if (s[i] == sep && depth == 0) {
      parts.push_back(trim(s.substr(start, i - start)));
      start = i + 1;
    }
  }
  parts.push_back(trim(s.substr(start)));
  return parts;
}
// "name[2,3]" -> name, dims (dims empty and has_dims false when no brackets).
inline bool name_and_dims(const std::string& text, std::string& name, std::vector<int64_t>& dims) {
  const size_t open = text.find('[');
  name = trim(text.substr(0, open));
  dims.clear();
  if (open == std::string::npos) return false;
  const size_t close = text.find(']', open);
  for (const std::string& d : split(std::string_view(text).substr(open + 1, close - open - 1), ',')) {
    if (!d.empty()) dims.push_back(std::stoll(d));
  }
  return true;
}
}  // namespace dsl_detail

/// Builds a float32 graph from one line of ';'-separated statements:
///   in NAME[d,..]                 a runtime graph input
///   w NAME[d,..]                  an initializer (zeros)
///   A[d,..],B=Op(X,_,Y){k=v,..}   a node; `_` is an omitted optional input or output;
///   A=Op(X)[d,..]{k=v}            a shape after the call is the first output's; outputs
///                                 without a shape take the first input's (Concat: the
///                                 inputs summed along the axis); attributes are integers
///   out A,B                       graph outputs
/// Throws std::runtime_error on malformed text (tests only).
inline std::unique_ptr<Graph> parse_memory_dsl(std::string_view text) {
  using namespace dsl_detail;
  auto graph = std::make_unique<Graph>("dsl");
  graph->set_opset_import("", 17);
  std::map<std::string, Value*> values;
  auto lookup = [&](const std::string& name) -> Value* {
    if (name == "_") return nullptr;
    auto it = values.find(name);
    if (it == values.end()) throw std::runtime_error("dsl: unknown value '" + name + "'");
    return it->second;
  };
  for (const std::string& statement : split(text, ';')) {
    if (statement.empty()) continue;
    std::string name;
    std::vector<int64_t> dims;
    if (statement.rfind("in ", 0) == 0) {
      name_and_dims(statement.substr(3), name, dims);
      values[name] = graph->add_input(name, TensorDesc::of(DataType::kFloat32, dims));
    } else if (statement.rfind("w ", 0) == 0) {
      name_and_dims(statement.substr(2), name, dims);
      values[name] = graph->add_initializer(name, Tensor::zeros(DataType::kFloat32, dims));
    } else if (statement.rfind("out ", 0) == 0) {
      for (const std::string& o : split(statement.substr(4), ',')) graph->add_output(lookup(o));
    } else {
      const size_t eq = statement.find('=');
      const size_t open = statement.find('(', eq);
      const size_t close = statement.find(')', open);
      if (eq == std::string::npos || open == std::string::npos || close == std::string::npos) {
        throw std::runtime_error("dsl: cannot read '" + statement + "'");
      }
      const std::string op = trim(statement.substr(eq + 1, open - eq - 1));
      std::vector<Value*> inputs;
      for (const std::string& a : split(statement.substr(open + 1, close - open - 1), ',')) {
        if (!a.empty()) inputs.push_back(lookup(a));
      }
      std::vector<std::string> outs = split(statement.substr(0, eq), ',');
      std::vector<std::string> names;
      std::vector<std::pair<bool, std::vector<int64_t>>> shapes;
      for (const std::string& o : outs) {
        bool has = name_and_dims(o, name, dims);
        names.push_back(name == "_" ? std::string() : name);
        shapes.push_back({has, dims});
      }
      Node* node = graph->add_node(op, inputs, outs.size(), names.front().empty() ? op : "n_" + names.front(), names);
      // After the call: an optional [shape] for the first output, then {attributes}.
      std::string rest = trim(statement.substr(close + 1));
      if (!rest.empty() && rest.front() == '[') {
        const size_t end = rest.find(']');
        name_and_dims(rest.substr(0, end + 1), name, dims);
        if (!shapes[0].first) shapes[0] = {true, dims};
        rest = trim(rest.substr(end + 1));
      }
      if (!rest.empty() && rest.front() == '{') {
        for (const std::string& kv : split(rest.substr(1, rest.find('}') - 1), ',')) {
          const size_t k = kv.find('=');
          node->set_attribute(trim(kv.substr(0, k)), Attribute(static_cast<int64_t>(std::stoll(kv.substr(k + 1)))));
        }
      }
      if (op == "Concat" && !shapes[0].first && !inputs.empty()) {
        // The inputs' extents summed along the axis.
        std::vector<int64_t> sum = inputs.front()->desc().static_dims();
        int64_t axis = node->get_int("axis", 0);
        if (axis < 0) axis += static_cast<int64_t>(sum.size());
        sum[axis] = 0;
        for (const Value* in : inputs) sum[axis] += in->desc().static_dims()[axis];
        shapes[0] = {true, sum};
      }
      for (size_t k = 0; k < outs.size(); ++k) {
        Value* out = node->output(k);
        if (names[k].empty()) {
          out->set_name("");
          continue;
        }
        if (shapes[k].first) {
          out->set_desc(TensorDesc::of(DataType::kFloat32, shapes[k].second));
        } else if (!inputs.empty() && inputs.front() != nullptr) {
          out->set_desc(inputs.front()->desc());
        } else {
          throw std::runtime_error("dsl: output '" + names[k] + "' needs a shape");
        }
        values[names[k]] = out;
      }
    }
  }
  return graph;
}

/// Schemas for the ops the tests' graphs use, declaring the storage sharing the ONNX op
/// library declares for them: Relu, Sigmoid, Add and Sum in place over any input,
/// Reshape, Flatten, Squeeze, Unsqueeze and Identity as views, Concat concatenating along
/// "axis". Other ops have no schema here (the planner shares nothing for them). Inference
/// is not offered.
class ToyOpLibrary final : public OpLibrary {
 public:
  ToyOpLibrary() {
    for (const char* op : {"Relu", "Sigmoid", "Add", "Sum"}) {
      schemas_[op].in_place = {InPlacePair{InPlacePair::kEveryInput, 0}};
    }
    for (const char* op : {"Reshape", "Flatten", "Squeeze", "Unsqueeze", "Identity"}) schemas_[op].is_view = true;
    schemas_["Concat"].concatenates_along = "axis";
    for (auto& [op, schema] : schemas_) schema.op_type = op;
  }
  std::string name() const override { return "test_toy_ops"; }
  const OpSchemaInfo* find_schema(const std::string& domain, const std::string& op_type, int64_t) const override {
    auto it = schemas_.find(op_type);
    return domain.empty() && it != schemas_.end() ? &it->second : nullptr;
  }
  Status infer(Node& node, int64_t, const InputDataProvider&, const OpRegistry&) const override {
    return unsupported("the test op library infers nothing (" + node.describe() + ")");
  }

 private:
  std::map<std::string, OpSchemaInfo> schemas_;
};

inline const OpRegistry& toy_ops() {
  static const OpRegistry* registry = [] {
    auto* r = new OpRegistry();
    r->add_library(std::make_shared<ToyOpLibrary>());
    return r;
  }();
  return *registry;
}

/// Default plan options with toy_ops() as the registry.
inline MemoryPlanOptions toy_plan_options() {
  MemoryPlanOptions options;
  options.ops = &toy_ops();
  return options;
}

/// toy_plan_options() with atomic clean for the DSL graphs: every Scatter's output is
/// zeroed before it runs.
inline MemoryPlanOptions scatter_outputs_zeroed() {
  MemoryPlanOptions options = toy_plan_options();
  options.zeroed_memory = [](const Node& node) {
    ZeroedMemory zeroed;
    if (node.op_type() == "Scatter") zeroed.outputs = 1;
    return zeroed;
  };
  return options;
}

/// An assigner for core tests: requests in order, each at the lowest offset where it fits
/// among the requests placed before it that it may not share bytes with. Quadratic and
/// obviously correct.
class FirstFitAssigner final : public MemoryAssigner {
 public:
  enum class Reuse {
    kWhenLifetimesAllow,  ///< apart from the conflicting requests only ("test_first_fit")
    kNever,               ///< apart from every request: one after another ("test_sequential")
  };
  explicit FirstFitAssigner(Reuse reuse = Reuse::kWhenLifetimesAllow) : reuse_(reuse) {}

  std::string name() const override { return reuse_ == Reuse::kNever ? "test_sequential" : "test_first_fit"; }
  Result<MemoryPlan> assign(const std::vector<MemoryRequest>& requests, size_t alignment) const override {
    MemoryPlan plan;
    plan.offsets.assign(requests.size(), 0);
    for (size_t i = 0; i < requests.size(); ++i) {
      std::vector<std::pair<size_t, size_t>> taken;  // [begin, end) of those it may not share
      for (size_t j = 0; j < i; ++j) {
        if (reuse_ == Reuse::kNever || requests_conflict(requests[j], requests[i])) {
          taken.push_back({plan.offsets[j], plan.offsets[j] + requests[j].bytes});
        }
      }
      std::sort(taken.begin(), taken.end());
      size_t offset = 0;
      for (auto [begin, end] : taken) {
        if (begin >= offset + requests[i].bytes) break;
        offset = std::max(offset, (end + alignment - 1) / alignment * alignment);
      }
      plan.offsets[i] = offset;
      plan.total_bytes = std::max(plan.total_bytes, offset + requests[i].bytes);
    }
    return plan;
  }

 private:
  Reuse reuse_;
};

/// The assigners the core's planner tests plan with: FirstFitAssigner alone.
inline std::vector<std::shared_ptr<MemoryAssigner>> first_fit() { return {std::make_shared<FirstFitAssigner>()}; }

/// plan_memory's plan; on an error the current test fails and the plan is empty.
inline GraphMemoryPlan plan_or_die(const Graph& graph, const MemoryPlanOptions& options = toy_plan_options(),
                                   const std::vector<std::shared_ptr<MemoryAssigner>>& assigners = first_fit()) {
  Result<GraphMemoryPlan> plan = plan_memory(graph, assigners, options);
  EXPECT_TRUE(plan.is_ok()) << plan.status().to_string();
  return plan.is_ok() ? std::move(plan).value() : GraphMemoryPlan{};
}

/// The placement of `graph`'s value `name` in `plan`; when there is none the current test
/// fails and an empty placement is returned.
inline const ValuePlacement& placement_of(const GraphMemoryPlan& plan, const Graph& graph, const std::string& name) {
  const Value* value = graph.find_value(name);
  EXPECT_NE(value, nullptr) << name;
  const ValuePlacement* p = plan.find(value);
  EXPECT_NE(p, nullptr) << name;
  static const ValuePlacement kMissing;
  return p != nullptr ? *p : kMissing;
}

/// The index in plan.values of `graph`'s value `name` (throws when it has none).
inline int64_t index_of(const GraphMemoryPlan& plan, const Graph& graph, const std::string& name) {
  return static_cast<int64_t>(plan.index.at(graph.find_value(name)));
}

/// Random DAGs of toy ops over 1-D float32 values (lengths in elements):
///   Relu(x)                unary elementwise (in place)
///   Add(x, y)              elementwise; y has x's length or length 1 (broadcast)
///   Conv(x, ...)           opaque: any output length, reads inputs at scattered positions
///   Reshape(x)             view: same length, shape [1, n] or [n]
///   Concat(x, y, ...)      axis 0 (contiguous for 1-D inputs)
/// plus initializers read by Conv, dead outputs and several graph outputs.
inline std::unique_ptr<Graph> random_memory_dag(std::mt19937& rng, int node_count, int max_length = 700) {
  auto graph = std::make_unique<Graph>("random");
  graph->set_opset_import("", 17);
  auto pick = [&](int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng); };
  std::vector<Value*> pool;
  auto length_of = [](const Value* v) { return v->desc().element_count(); };
  const int inputs = pick(1, 2);
  for (int i = 0; i < inputs; ++i)
    pool.push_back(
        graph->add_input("in" + std::to_string(i), TensorDesc::of(DataType::kFloat32, {pick(1, max_length)})));
  Value* weight = graph->add_initializer("w0", Tensor::zeros(DataType::kFloat32, {pick(1, 64)}));
  // Recent values are picked more often, so chains and short lifetimes dominate.
  auto choose = [&]() -> Value* {
    const int n = static_cast<int>(pool.size());
    if (pick(0, 3) == 0) return pool[pick(0, n - 1)];
    return pool[std::max(0, n - 1 - pick(0, std::min(n - 1, 4)))];
  };
  for (int k = 0; k < node_count; ++k) {
    const std::string name = "v" + std::to_string(k);
    const int kind = pick(0, 9);
    Value* x = choose();
    const int64_t n = length_of(x);
    Node* node = nullptr;
    int64_t out_length = n;
    std::vector<int64_t> out_shape;
    if (kind <= 2) {
      node = graph->add_node("Relu", {x}, 1, "n_" + name, {name});
    } else if (kind <= 4) {
      Value* y = nullptr;
      for (int tries = 0; tries < 8 && y == nullptr; ++tries) {
        Value* c = choose();
        if (length_of(c) == n || length_of(c) == 1) y = c;
      }
      if (y == nullptr) y = x;
      if (pick(0, 1) == 0 && length_of(y) == n) std::swap(x, y);
      node = graph->add_node("Add", {x, y}, 1, "n_" + name, {name});
      out_length = std::max(length_of(x), length_of(y));
    } else if (kind <= 6) {
      std::vector<Value*> ins{x};
      if (pick(0, 2) == 0) ins.push_back(choose());
      if (pick(0, 3) == 0) ins.push_back(weight);
      out_length = pick(0, 9) == 0 ? 1 : pick(1, max_length);
      const bool extra_output = pick(0, 5) == 0;
      node = graph->add_node(
          "Conv", ins, extra_output ? 2 : 1, "n_" + name,
          extra_output ? std::vector<std::string>{name, name + "_dead"} : std::vector<std::string>{name});
      if (extra_output) node->output(1)->set_desc(TensorDesc::of(DataType::kFloat32, {pick(1, max_length)}));
    } else if (kind == 7) {
      node = graph->add_node("Reshape", {x}, 1, "n_" + name, {name});
      if (pick(0, 1) == 0) out_shape = {1, n};
    } else {
      std::vector<Value*> ins{x};
      const int more = pick(1, 3);
      for (int i = 0; i < more; ++i) ins.push_back(choose());
      out_length = 0;
      for (Value* v : ins) out_length += length_of(v);
      // Concat of [n] values and [1, n] views: flatten views back to 1-D first.
      for (Value*& v : ins) {
        if (v->desc().rank() != 1) {
          Node* flat = graph->add_node("Reshape", {v}, 1, "n_" + name + "_flat" + std::to_string(&v - ins.data()),
                                       {name + "_flat" + std::to_string(&v - ins.data())});
          flat->output(0)->set_desc(TensorDesc::of(DataType::kFloat32, {length_of(v)}));
          v = flat->output(0);
        }
      }
      node = graph->add_node("Concat", ins, 1, "n_" + name, {name});
      node->set_attribute("axis", Attribute(int64_t{0}));
    }
    node->output(0)->set_desc(
        TensorDesc::of(DataType::kFloat32, out_shape.empty() ? std::vector<int64_t>{out_length} : out_shape));
    pool.push_back(node->output(0));
  }
  // Outputs: the last value, plus a few random ones (possibly an input or a duplicate).
  graph->add_output(pool.back());
  const int extra = pick(0, 2);
  for (int i = 0; i < extra; ++i) graph->add_output(pool[pick(0, static_cast<int>(pool.size()) - 1)]);
  return graph;
}

namespace sim_detail {
inline uint32_t mix(uint32_t h, uint32_t v) {
  h ^= v + 0x9e3779b9u + (h << 6) + (h >> 2);
  h *= 0x85ebca6bu;
  return h ^ (h >> 13);
}
inline uint32_t seed_of(const std::string& s) {
  uint32_t h = 2166136261u;
  for (char c : s) h = (h ^ static_cast<uint8_t>(c)) * 16777619u;
  return h;
}
}  // namespace sim_detail

/// Runs a graph of the toy ops above from the plan's arenas (weights, feature map, I/O),
/// reading and writing one float-sized word at a time in the order a simple kernel
/// would, and checks every value against a reference computed with private storage for
/// each value: before a node runs, each of its inputs must still hold its own data; at
/// the end, every graph output. The feature map starts full of garbage. Returns a
/// message naming the first clobbered value, or "" when the run matches.
inline std::string simulate_plan(const Graph& graph, const GraphMemoryPlan& plan) {
  using namespace sim_detail;
  std::vector<uint32_t> weights(plan.weights_bytes / 4 + 1), features(plan.feature_map_bytes / 4 + 1, 0xdeadbeefu),
      io(plan.io_bytes / 4 + 1, 0xfeedfaceu);
  std::unordered_map<const Value*, std::vector<uint32_t>> reference;
  auto words = [&](const Value* v) -> uint32_t* {
    const ValuePlacement* p = plan.find(v);
    if (p == nullptr || p->offset % 4 != 0) return nullptr;
    switch (p->region) {
      case MemoryRegion::kWeights: return weights.data() + p->offset / 4;
      case MemoryRegion::kFeatureMap: return features.data() + p->offset / 4;
      case MemoryRegion::kGraphIo: return io.data() + p->offset / 4;
      default: return nullptr;
    }
  };
  auto length = [](const Value* v) { return static_cast<size_t>(v->desc().element_count()); };
  auto fill = [&](const Value* v) -> std::string {
    std::vector<uint32_t>& ref = reference[v];
    ref.resize(length(v));
    for (size_t i = 0; i < ref.size(); ++i) ref[i] = mix(seed_of(v->name()), static_cast<uint32_t>(i));
    uint32_t* at = words(v);
    if (at == nullptr) return "'" + v->name() + "' has no address";
    std::copy(ref.begin(), ref.end(), at);
    return "";
  };
  for (const Value* w : graph.initializers()) {
    if (auto e = fill(w); !e.empty()) return e;
  }
  for (const Value* in : graph.runtime_inputs()) {
    if (auto e = fill(in); !e.empty()) return e;
  }
  auto check = [&](const Value* v, const std::string& when) -> std::string {
    const uint32_t* at = words(v);
    if (at == nullptr) return "'" + v->name() + "' has no address";
    const std::vector<uint32_t>& ref = reference.at(v);
    for (size_t i = 0; i < ref.size(); ++i) {
      if (at[i] != ref[i]) return "'" + v->name() + "' word " + std::to_string(i) + " clobbered " + when;
    }
    return "";
  };
  for (const Node* node : plan.order) {
    const std::string when = "before " + node->name() + " ran";
    for (const Value* in : node->inputs()) {
      if (in != nullptr) {
        if (auto e = check(in, when); !e.empty()) return e;
      }
    }
    const std::string& op = node->op_type();
    // Reference first, from private copies.
    for (size_t k = 0; k < node->output_count(); ++k) {
      const Value* out = node->output(k);
      if (out->name().empty()) continue;
      std::vector<uint32_t>& ref = reference[out];
      ref.assign(length(out), 0);
      const uint32_t salt = seed_of(node->name()) + static_cast<uint32_t>(k);
      if (op == "Relu") {
        for (size_t i = 0; i < ref.size(); ++i) ref[i] = mix(salt, reference[node->input(0)][i]);
      } else if (op == "Add") {
        const auto& a = reference[node->input(0)];
        const auto& b = reference[node->input(1)];
        for (size_t i = 0; i < ref.size(); ++i) ref[i] = mix(mix(salt, a[i % a.size()]), b[i % b.size()]);
      } else if (op == "Conv") {
        for (size_t i = 0; i < ref.size(); ++i) {
          uint32_t h = mix(salt, static_cast<uint32_t>(i));
          for (const Value* in : node->inputs()) {
            const auto& x = reference[in];
            h = mix(h, x[(i * 7 + 3) % x.size()]);
          }
          ref[i] = h;
        }
      } else if (op == "Reshape") {
        ref = reference[node->input(0)];
      } else if (op == "Concat") {
        ref.clear();
        for (const Value* in : node->inputs()) ref.insert(ref.end(), reference[in].begin(), reference[in].end());
      } else {
        return "simulate_plan: unknown op " + op;
      }
    }
    // Then the same computation through the arenas, element by element.
    for (size_t k = 0; k < node->output_count(); ++k) {
      const Value* out = node->output(k);
      if (out->name().empty()) continue;
      uint32_t* dst = words(out);
      if (dst == nullptr) return "'" + out->name() + "' has no address";
      const size_t n = length(out);
      const uint32_t salt = seed_of(node->name()) + static_cast<uint32_t>(k);
      if (op == "Relu") {
        const uint32_t* x = words(node->input(0));
        for (size_t i = 0; i < n; ++i) dst[i] = mix(salt, x[i]);
      } else if (op == "Add") {
        const uint32_t* a = words(node->input(0));
        const uint32_t* b = words(node->input(1));
        const size_t na = length(node->input(0)), nb = length(node->input(1));
        for (size_t i = 0; i < n; ++i) dst[i] = mix(mix(salt, a[i % na]), b[i % nb]);
      } else if (op == "Conv") {
        for (size_t i = 0; i < n; ++i) {
          uint32_t h = mix(salt, static_cast<uint32_t>(i));
          for (const Value* in : node->inputs()) h = mix(h, words(in)[(i * 7 + 3) % length(in)]);
          dst[i] = h;
        }
      } else if (op == "Reshape") {
        const uint32_t* x = words(node->input(0));
        if (x != dst) {
          for (size_t i = 0; i < n; ++i) dst[i] = x[i];
        }
      } else if (op == "Concat") {
        size_t at = 0;
        for (const Value* in : node->inputs()) {
          const uint32_t* x = words(in);
          if (x != dst + at) {
            for (size_t i = 0; i < length(in); ++i) dst[at + i] = x[i];
          }
          at += length(in);
        }
      }
    }
    for (size_t k = 0; k < node->output_count(); ++k) {
      const Value* out = node->output(k);
      if (out->name().empty()) continue;
      if (auto e = check(out, "right after " + node->name() + " wrote it"); !e.empty()) return e;
    }
  }
  for (const Value* out : graph.outputs()) {
    if (auto e = check(out, "at the end"); !e.empty()) return e;
  }
  return "";
}

}  // namespace ge::testing
