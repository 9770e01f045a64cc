#include "noop_elimination.h"

#include <algorithm>
#include <initializer_list>
#include <set>
#include <unordered_set>

#include "ge/graph_queries.h"
#include "ge/plugin_api/graph_rewrite.h"

namespace ge::passes {
namespace {

bool is_reshape_like(const Node& node) {
  const std::string& op = node.op_type();
  return is_onnx_domain(node) && (op == "Reshape" || op == "Squeeze" || op == "Unsqueeze" || op == "Flatten");
}

/// The permutation of a Transpose (its default is the reversal), or nullopt.
std::optional<std::vector<int64_t>> permutation(const Node& node) {
  const Value* in = node.input(0);
  if (in == nullptr || !in->desc().has_rank()) return std::nullopt;
  const int64_t rank = in->desc().rank();
  std::vector<int64_t> perm = node.get_ints("perm");
  if (!node.has_attribute("perm")) {
    for (int64_t i = rank - 1; i >= 0; --i) perm.push_back(i);
  }
  if (static_cast<int64_t>(perm.size()) != rank) return std::nullopt;
  return perm;
}

bool is_identity(const std::vector<int64_t>& perm) {
  for (size_t i = 0; i < perm.size(); ++i) {
    if (perm[i] != static_cast<int64_t>(i)) return false;
  }
  return true;
}

// Whether every value of `from` converts to `to` exactly and back (to `from`) unchanged,
// so that Cast(Cast(x, to), from) is x: widening float16/bfloat16/float32 to a wider
// float, integers to a wider integer or to a float whose significand holds them, bool to
// any number (0 and 1, and any non-zero casts back to true). Not float32 -> float16 or
// float -> int (rounding), nor int32 -> float32 (24-bit significand).
bool round_trips_exactly(DataType from, DataType to) {
  using D = DataType;
  if (from == to) return true;
  auto any_of = [to](std::initializer_list<D> types) {
    return std::find(types.begin(), types.end(), to) != types.end();
  };
  switch (from) {
    case D::kBool:
      return any_of({D::kInt8, D::kUInt8, D::kInt16, D::kUInt16, D::kInt32, D::kUInt32, D::kInt64, D::kUInt64,
                     D::kFloat16, D::kBFloat16, D::kFloat32, D::kFloat64});
    case D::kFloat16:
    case D::kBFloat16:
      return any_of({D::kFloat32, D::kFloat64});
    case D::kFloat32:
      return to == D::kFloat64;
    case D::kInt8:
      return any_of({D::kInt16, D::kInt32, D::kInt64, D::kFloat16, D::kBFloat16, D::kFloat32, D::kFloat64});
    case D::kUInt8:
      return any_of({D::kInt16, D::kUInt16, D::kInt32, D::kUInt32, D::kInt64, D::kUInt64, D::kFloat16, D::kBFloat16,
                     D::kFloat32, D::kFloat64});
    case D::kInt16:
      return any_of({D::kInt32, D::kInt64, D::kFloat32, D::kFloat64});
    case D::kUInt16:
      return any_of({D::kInt32, D::kUInt32, D::kInt64, D::kUInt64, D::kFloat32, D::kFloat64});
    case D::kInt32:
      return any_of({D::kInt64, D::kFloat64});
    case D::kUInt32:
      return any_of({D::kInt64, D::kUInt64, D::kFloat64});
    default:
      return false;
  }
}

std::set<int64_t> axes_set(const Node& node, int64_t rank) {
  std::optional<std::vector<int64_t>> axes = node_axes(node, "axes", 1, rank);
  return axes ? std::set<int64_t>(axes->begin(), axes->end()) : std::set<int64_t>{};
}

class Eliminator {
 public:
  explicit Eliminator(Graph& graph) : graph_(graph) {}

  Status run(bool& changed) {
    // Bypassing renames values only to names they already had: the set stays valid.
    captured_ = captured_names(graph_);
    GE_ASSIGN_OR_RETURN(std::vector<Node*> order, graph_.topological_order());
    for (Node* node : order) {
      if (removed_.count(node)) continue;
      GE_ASSIGN_OR_RETURN(bool edited, visit(*node));
      changed = changed || edited;
    }
    for (const auto& node : graph_.nodes()) {
      for (Graph* sub : node->subgraphs()) {
        Eliminator inner(*sub);
        GE_RETURN_IF_ERROR(inner.run(changed));
      }
    }
    return Status::ok();
  }

 private:
  /// Bypasses output 0 of `node` with `value`; then removes producers left without users.
  Result<bool> bypass(Node& node, Value* value) {
    std::vector<Node*> producers;
    for (Value* in : node.inputs()) {
      if (in != nullptr && in->producer() != nullptr) producers.push_back(in->producer());
    }
    // bypass_output may remove the node: remember it before.
    Node* node_pointer = &node;
    const size_t before = graph_.node_count();
    GE_ASSIGN_OR_RETURN(bool done, bypass_output(graph_, node, 0, value, &captured_));
    if (!done) return false;
    if (graph_.node_count() < before) removed_.insert(node_pointer);
    for (Node* producer : producers) GE_RETURN_IF_ERROR(remove_if_dead(*producer));
    return true;
  }

  /// Removes a pure reshape/transpose node none of whose outputs is used, then its
  /// producers in turn.
  Status remove_if_dead(Node& node) {
    if (removed_.count(&node) || node.graph() != &graph_) return Status::ok();
    if (!is_reshape_like(node) &&
        !(is_onnx_domain(node) && (node.op_type() == "Transpose" || node.op_type() == "Cast"))) {
      return Status::ok();
    }
    for (const Value* out : node.outputs()) {
      if (out->has_uses() || graph_.is_output(out) || captured_.count(out->name())) return Status::ok();
    }
    Node* producer = node.input(0) != nullptr ? node.input(0)->producer() : nullptr;
    for (size_t i = 0; i < node.input_count(); ++i) node.set_input(i, nullptr);
    removed_.insert(&node);
    GE_RETURN_IF_ERROR(graph_.remove_node(&node));
    if (producer != nullptr) GE_RETURN_IF_ERROR(remove_if_dead(*producer));
    return Status::ok();
  }

  Result<bool> visit(Node& node) {
    if (!is_onnx_domain(node) || node.input_count() == 0 || node.input(0) == nullptr || node.output_count() == 0) {
      return false;
    }
    const std::string& op = node.op_type();
    Value* x = node.input(0);
    if (op == "Identity") return bypass(node, x);
    if (op == "Dropout") {
      const bool mask_used =
          node.output_count() > 1 && (node.output(1)->has_uses() || graph_.is_output(node.output(1)));
      const Value* training = node.input(2);
      // training_mode (opset >= 12) absent or false; before opset 7 an is_test=0 attribute.
      const bool inference = (training == nullptr || constant_scalar(training) == std::optional<double>(0.0)) &&
                             node.get_int("is_test", 1) != 0;
      if (mask_used || !inference) return false;
      return bypass(node, x);
    }
    if (op == "Cast") return visit_cast(node);
    if (op == "Transpose") return visit_transpose(node);
    if (is_reshape_like(node)) return visit_reshape_like(node);
    return false;
  }

  Result<bool> visit_cast(Node& node) {
    Value* x = node.input(0);
    const int64_t to = node.get_int("to", -1);
    if (x->desc().dtype == DataType::kUndefined) return false;
    if (static_cast<int64_t>(x->desc().dtype) == to) return bypass(node, x);
    // Cast(Cast(w, to = B), to = A) with w of type A and B holding every value of A (the
    // float32 islands a float16 model wraps around its layers): w itself.
    Node* first = x->producer();
    if (first == nullptr || first->graph() != &graph_ || !is_onnx_domain(*first) || first->op_type() != "Cast" ||
        first->input(0) == nullptr) {
      return false;
    }
    Value* w = first->input(0);
    const DataType original = w->desc().dtype;
    if (original == DataType::kUndefined || static_cast<int64_t>(original) != to ||
        !round_trips_exactly(original, x->desc().dtype)) {
      return false;
    }
    return bypass(node, w);
  }

  Result<bool> visit_transpose(Node& node) {
    std::optional<std::vector<int64_t>> outer = permutation(node);
    if (!outer) return false;
    if (is_identity(*outer)) return bypass(node, node.input(0));
    Node* first = node.input(0)->producer();
    if (first == nullptr || !is_onnx_domain(*first) || first->op_type() != "Transpose" || first->graph() != &graph_) {
      return false;
    }
    std::optional<std::vector<int64_t>> inner = permutation(*first);
    if (!inner || inner->size() != outer->size()) return false;
    // y = transpose(transpose(x, inner), outer): y dim j is x dim inner[outer[j]].
    std::vector<int64_t> combined(outer->size());
    for (size_t j = 0; j < outer->size(); ++j) combined[j] = (*inner)[static_cast<size_t>((*outer)[j])];
    Value* x = first->input(0);
    if (x == nullptr) return false;
    if (is_identity(combined)) return bypass(node, x);
    node.set_input(0, x);
    node.set_attribute("perm", combined);
    GE_RETURN_IF_ERROR(remove_if_dead(*first));
    return true;
  }

  Result<bool> visit_reshape_like(Node& node) {
    const TensorDesc& out = node.output(0)->desc();
    // A chain of reshapes only reinterprets the same row-major data: where it ends at the
    // static shape it started from, it is the identity. Prefer the farthest start.
    if (out.is_static()) {
      std::vector<Value*> starts;
      for (Value* v = node.input(0); v != nullptr;) {
        starts.push_back(v);
        Node* producer = v->producer();
        if (producer == nullptr || producer->graph() != &graph_ || !is_reshape_like(*producer)) break;
        v = producer->input(0);
      }
      for (auto it = starts.rbegin(); it != starts.rend(); ++it) {
        const TensorDesc& start = (*it)->desc();
        if (start.kind == out.kind && start.dtype == out.dtype && start.is_static() &&
            start.static_dims() == out.static_dims()) {
          GE_ASSIGN_OR_RETURN(bool done, bypass(node, *it));
          if (done) return true;
        }
      }
    }
    // Squeeze/Unsqueeze on the same axes cancel whatever the dims are.
    const std::string& op = node.op_type();
    Node* first = node.input(0)->producer();
    if ((op != "Squeeze" && op != "Unsqueeze") || first == nullptr || first->graph() != &graph_ ||
        !is_onnx_domain(*first)) {
      return false;
    }
    const std::string expected = op == "Squeeze" ? "Unsqueeze" : "Squeeze";
    if (first->op_type() != expected || first->input(0) == nullptr) return false;
    Value* x = first->input(0);
    if (!x->desc().has_rank()) return false;
    const int64_t x_rank = x->desc().rank();
    if (op == "Squeeze") {
      // Unsqueeze(x, a) has rank r + |a|; both axis lists are in that rank.
      std::set<int64_t> added = axes_set(*first, x_rank + static_cast<int64_t>(first->get_ints("axes").size()));
      if (added.empty()) {
        std::optional<std::vector<int64_t>> raw = constant_ints(first->input(1));
        if (!raw) return false;
        added = axes_set(*first, x_rank + static_cast<int64_t>(raw->size()));
      }
      const int64_t mid_rank = x_rank + static_cast<int64_t>(added.size());
      if (added.empty() || axes_set(node, mid_rank) != added) return false;
      return bypass(node, x);
    }
    // Squeeze(x, a) then Unsqueeze(a): an explicit Squeeze asserts those dims are 1.
    std::set<int64_t> dropped = axes_set(*first, x_rank);
    if (dropped.empty() || axes_set(node, x_rank) != dropped) return false;
    return bypass(node, x);
  }

  Graph& graph_;
  std::set<std::string> captured_;  // captured_names(graph_)
  std::unordered_set<const Node*> removed_;
};

}  // namespace

Status NoOpElimination::run(Graph& graph, PassContext& /*context*/, bool& changed) {
  Eliminator eliminator(graph);
  return eliminator.run(changed);
}

}  // namespace ge::passes
