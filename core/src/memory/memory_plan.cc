// The memory planner: plan_memory and its Planner (ge/memory_plan.h).
#include "ge/memory_plan.h"

#include <algorithm>
#include <chrono>
#include <future>
#include <optional>
#include <system_error>
#include <unordered_map>
#include <unordered_set>

#include "ge/alignment.h"
#include "ge/graph_queries.h"
#include "ge/logging.h"
#include "../passes/weight_merging.h"
#include "static_bytes.h"
#include "stream_lifetimes.h"

namespace ge {

const ValuePlacement* GraphMemoryPlan::find(const Value* value) const {
  auto it = index.find(value);
  return it == index.end() ? nullptr : &values[it->second];
}

bool GraphMemoryPlan::has_input_in_slice(const Node& node) const {
  const ValuePlacement* out = node.output_count() == 1 ? find(node.output(0)) : nullptr;
  return out != nullptr && std::any_of(node.inputs().begin(), node.inputs().end(), [&](const Value* in) {
           const ValuePlacement* p = in != nullptr ? find(in) : nullptr;
           return p != nullptr && p->alias == MemoryAlias::kSlice && p->alias_source >= 0 &&
                  static_cast<size_t>(p->alias_source) < values.size() && &values[p->alias_source] == out;
         });
}

namespace {

// ---- the planner ----

struct StepNode {
  const Node* node = nullptr;
  const Graph* graph = nullptr;
  int64_t begin = 0, end = 0;
};

class Planner {
 public:
  Planner(const Graph& graph, const MemoryPlanOptions& options) : graph_(graph), options_(options) {}

  Status run(const std::vector<std::shared_ptr<MemoryAssigner>>& assigners, GraphMemoryPlan& plan);

 private:
  Status choose_order();
  Result<int64_t> visit_graph(const Graph& graph, int64_t entry, bool top);
  int add_placement(ValuePlacement placement);
  int add_value(const Value* value, MemoryRegion region, int64_t step);
  Status extend(const Value* value, int64_t step, const Graph& graph);
  int index_of(const Value* value) const {
    auto it = index_.find(value);
    return it == index_.end() ? -1 : static_cast<int>(it->second);
  }

  // Groups of feature-map values sharing storage: a union-find whose links carry the
  // byte offset of a member inside its parent.
  std::pair<int, size_t> find(int i);
  void attach(int child_root, int parent_root, size_t offset);
  bool singleton(int i) { return find(i).first == i && members_[i] == 1; }
  // x's group occupies exactly x's bytes (x at offset 0, nothing larger around it).
  bool exact_group(int i) {
    auto [root, offset] = find(i);
    return offset == 0 && extent_[root] == values_[i].bytes;
  }
  // x's group holds a block to be zeroed (atomic clean). Such a block stays the root of
  // its group: only its views and captures join it, so its root tells.
  bool holds_clean(int i) { return zeroed_[find(i).first] != 0; }

  void merge_identical_weights(MemoryStatistics& statistics);
  void merge_concat(const StepNode& step);
  void merge_view(const StepNode& step);
  void merge_in_place(const StepNode& step);
  /// The node's schema when the options give a registry: which ops may run in place, as
  /// views or as concatenations is the op libraries' knowledge, not the planner's.
  const OpSchemaInfo* schema_of(const Node& node) const {
    return options_.ops != nullptr ? options_.ops->find_schema(node) : nullptr;
  }
  Status group_clean_blocks(int64_t exit);

  Status assign(const std::vector<std::shared_ptr<MemoryAssigner>>& assigners, GraphMemoryPlan& plan);
  Status resolve_offsets(GraphMemoryPlan& plan);

  const Graph& graph_;
  const MemoryPlanOptions& options_;
  std::vector<const Node*> top_order_;
  std::unordered_set<const Value*> top_outputs_;
  std::vector<StepNode> steps_;
  std::vector<ValuePlacement> values_;
  std::unordered_map<const Value*, size_t> index_;
  std::vector<char> produced_;  // made by a node of its graph (not an input/capture)
  std::vector<char> zeroed_;    // a feature-map block its kernel needs zeroed (atomic clean)
  int64_t step_ = 0;

  std::vector<int> parent_;
  std::vector<size_t> link_offset_;  // offset inside parent (or inside an I/O Concat)
  std::vector<size_t> extent_;       // group size, valid at roots
  std::vector<int> members_;         // group member count, valid at roots
  std::vector<int64_t> group_first_, group_last_;

  // Several streams: the steps' clocks, and per value (then per group, at roots) when it
  // is made and freed in stream order.
  std::optional<StreamSteps> streams_;
  std::vector<StreamLifetime> lifetime_, group_lifetime_;
  // Whether everything the group of `root` needs is complete once `step` has completed
  // (on one stream: the group's last step is `step`).
  bool dies_at(int root, int64_t step) const {
    if (!streams_) return group_last_[root] == step;
    const std::vector<int64_t> done = streams_->done_at(step);
    const std::vector<int64_t>& freed = group_lifetime_[root].freed_after;
    for (size_t t = 0; t < freed.size(); ++t) {
      if (freed[t] > done[t]) return false;
    }
    return group_last_[root] == step;
  }
  std::vector<int> clean_roots_;  // one group of zeroed blocks per stream that has any
  std::vector<int> clean_stream_;
  Status check_streams();
};

int Planner::add_placement(ValuePlacement placement) {
  if (streams_) lifetime_.push_back({streams_->made_at(placement.first_use), streams_->done_at(placement.last_use), 0});
  values_.push_back(std::move(placement));
  produced_.push_back(0);
  zeroed_.push_back(0);
  return static_cast<int>(values_.size() - 1);
}

int Planner::add_value(const Value* value, MemoryRegion region, int64_t step) {
  ValuePlacement p;
  p.value = value;
  p.name = value->name();
  p.first_use = p.last_use = step;
  size_t bytes = 0;
  if (static_bytes(value->desc(), bytes, p.unplanned_reason)) {
    p.region = region;
    p.bytes = bytes;
  }
  int i = add_placement(std::move(p));
  index_[value] = static_cast<size_t>(i);
  return i;
}

Status Planner::extend(const Value* value, int64_t step, const Graph& graph) {
  int i = index_of(value);
  if (i < 0) {
    return invalid_argument("memory planning: value '" + value->name() + "' used in graph '" + graph.name() +
                            "' is neither defined there nor captured");
  }
  values_[i].last_use = std::max(values_[i].last_use, step);
  if (streams_) clock_max(lifetime_[i].freed_after, streams_->done_at(step));
  return Status::ok();
}

Status Planner::choose_order() {
  if (!options_.explicit_order.empty()) {
    std::unordered_map<const Node*, size_t> position;
    for (const auto& n : graph_.nodes()) position[n.get()] = SIZE_MAX;
    for (size_t i = 0; i < options_.explicit_order.size(); ++i) {
      const Node* node = options_.explicit_order[i];
      auto it = position.find(node);
      if (it == position.end())
        return invalid_argument("memory planning: the given order names a node not in graph '" + graph_.name() + "'");
      if (it->second != SIZE_MAX)
        return invalid_argument("memory planning: the given order lists " + node->describe() + " twice");
      it->second = i;
    }
    if (options_.explicit_order.size() != graph_.node_count()) {
      return invalid_argument("memory planning: the given order has " + std::to_string(options_.explicit_order.size()) +
                              " nodes, graph '" + graph_.name() + "' has " + std::to_string(graph_.node_count()));
    }
    for (const Node* node : options_.explicit_order) {
      auto check = [&](const Node* before) -> Status {
        if (before == nullptr) return Status::ok();
        auto it = position.find(before);
        if (it != position.end() && it->second > position[node]) {
          return invalid_argument("memory planning: the given order runs " + node->describe() + " before " +
                                  before->describe() + ", which it depends on");
        }
        return Status::ok();
      };
      for (const Value* in : node->inputs()) {
        if (in != nullptr) GE_RETURN_IF_ERROR(check(in->producer()));
      }
      if (!node->attributes().empty()) {
        for (const Value* in : graph_.implicit_inputs(*node)) GE_RETURN_IF_ERROR(check(in->producer()));
      }
      for (const Node* p : node->control_predecessors()) GE_RETURN_IF_ERROR(check(p));
    }
    top_order_ = options_.explicit_order;
    return Status::ok();
  }
  if (options_.order == ExecutionOrder::kMemoryPriority) {
    GE_ASSIGN_OR_RETURN(top_order_, memory_priority_order(graph_, options_.alignment));
    return Status::ok();
  }
  GE_ASSIGN_OR_RETURN(std::vector<Node*> order, graph_.topological_order(TopoOrder::kStable));
  top_order_.assign(order.begin(), order.end());
  return Status::ok();
}

Status Planner::check_streams() {
  const StreamPlan* plan = options_.streams;
  if (plan == nullptr || plan->stream_count <= 1) return Status::ok();
  if (options_.explicit_order.empty()) {
    return invalid_argument("memory planning on " + std::to_string(plan->stream_count) +
                            " streams needs the execution order the stream plan places (explicit_order)");
  }
  GE_ASSIGN_OR_RETURN(std::vector<std::vector<size_t>> predecessors, order_predecessors(top_order_));
  if (Status status = validate_stream_plan(predecessors, *plan); !status.is_ok()) {
    return invalid_argument("memory planning: " + status.message());
  }
  streams_.emplace(*plan);
  return Status::ok();
}

Result<int64_t> Planner::visit_graph(const Graph& graph, int64_t entry, bool top) {
  for (const Value* init : graph.initializers()) {
    if (index_of(init) < 0) add_value(init, MemoryRegion::kWeights, 0);
  }
  for (const Value* in : graph.inputs()) {
    if (index_of(in) >= 0) continue;
    if (in->is_constant()) {
      add_value(in, MemoryRegion::kWeights, 0);
      continue;
    }
    // Top-level inputs are the caller's buffers; a subgraph's are bound by its node.
    const bool io = top && options_.zero_copy_io;
    add_value(in, io ? MemoryRegion::kGraphIo : MemoryRegion::kFeatureMap, entry);
  }
  for (const Value* capture : graph.captures()) {
    const Value* outer = graph.parent() != nullptr ? graph.parent()->resolve_name(capture->name()) : nullptr;
    const int source = outer != nullptr ? index_of(outer) : -1;
    int i = add_value(capture, MemoryRegion::kFeatureMap, entry);
    ValuePlacement& p = values_[i];
    if (source < 0) {
      p.region = MemoryRegion::kUnplanned;
      p.unplanned_reason = "captures '" + capture->name() + "', which no enclosing graph defines";
    } else if (values_[source].region == MemoryRegion::kUnplanned) {
      p.region = MemoryRegion::kUnplanned;
      p.unplanned_reason = "captures an unplanned value: " + values_[source].unplanned_reason;
    } else {
      p.region = values_[source].region;
      p.bytes = values_[source].bytes;
      p.alias = MemoryAlias::kView;
      p.alias_source = source;
    }
  }

  std::vector<const Node*> order;
  if (top) {
    order = top_order_;
  } else {
    GE_ASSIGN_OR_RETURN(std::vector<Node*> nodes, graph.topological_order(TopoOrder::kStable));
    order.assign(nodes.begin(), nodes.end());
  }
  for (const Node* node : order) {
    const int64_t begin = ++step_;
    std::vector<Graph*> subgraphs;
    if (!node->attributes().empty()) subgraphs = node->subgraphs();
    for (const Graph* sub : subgraphs) {
      GE_ASSIGN_OR_RETURN(int64_t sub_exit, visit_graph(*sub, ++step_, false));
      (void)sub_exit;
    }
    const int64_t end = subgraphs.empty() ? begin : ++step_;
    steps_.push_back({node, &graph, begin, end});
    const OpSchemaInfo* schema = schema_of(*node);
    const bool constant_node = schema != nullptr && schema->is_constant && node->input_count() == 0;
    const ZeroedMemory zeroed = options_.zeroed_memory ? options_.zeroed_memory(*node) : ZeroedMemory{};
    for (size_t k = 0; k < node->output_count(); ++k) {
      const Value* out = node->output(k);
      if (is_omitted_output(graph, out)) continue;
      // A block to be zeroed lives in the clean group, never in a caller's buffer (zero
      // copy): a graph output among them is copied out.
      const bool clean = zeroed.output(k) && !constant_node;
      MemoryRegion region = MemoryRegion::kFeatureMap;
      if (constant_node) {
        region = MemoryRegion::kWeights;
      } else if (top && options_.zero_copy_io && top_outputs_.count(out) && !clean) {
        region = MemoryRegion::kGraphIo;
      }
      int i = add_value(out, region, begin);
      produced_[i] = region == MemoryRegion::kFeatureMap;
      zeroed_[i] = clean && values_[i].region == MemoryRegion::kFeatureMap;
    }
    for (const Value* in : node->inputs()) {
      if (in == nullptr) continue;
      if (Status st = extend(in, end, graph); !st.is_ok()) return st.with_context(node->describe());
    }
    if (!subgraphs.empty()) {
      for (const Value* in : graph.implicit_inputs(*node)) {
        if (Status st = extend(in, end, graph); !st.is_ok()) return st.with_context(node->describe());
      }
    }
    if (options_.workspace_bytes) {
      const size_t bytes = options_.workspace_bytes(*node);
      if (bytes > 0) {
        ValuePlacement p;
        p.workspace_of = node;
        p.name = (node->name().empty() ? node->op_type() : node->name()) + ":workspace";
        p.region = MemoryRegion::kFeatureMap;
        p.bytes = bytes;
        p.first_use = begin;
        p.last_use = end;
        zeroed_[add_placement(std::move(p))] = zeroed.workspace;
      }
    }
  }
  const int64_t exit = ++step_;
  for (const Value* out : graph.outputs()) GE_RETURN_IF_ERROR(extend(out, exit, graph));
  if (!top) {
    // The node running this body binds its inputs for the whole body and reads its
    // outputs at the end: neither may be overwritten before the exit.
    for (const Value* in : graph.inputs()) GE_RETURN_IF_ERROR(extend(in, exit, graph));
  }
  for (const Value* capture : graph.captures()) GE_RETURN_IF_ERROR(extend(capture, exit, graph));
  return exit;
}

std::pair<int, size_t> Planner::find(int i) {
  size_t offset = 0;
  int root = i;
  while (parent_[root] != root) {
    offset += link_offset_[root];
    root = parent_[root];
  }
  // Path compression: point every node on the path straight at the root.
  size_t remaining = offset;
  for (int node = i; parent_[node] != node;) {
    const int next = parent_[node];
    const size_t own = link_offset_[node];
    parent_[node] = root;
    link_offset_[node] = remaining;
    remaining -= own;
    node = next;
  }
  return {root, offset};
}

void Planner::attach(int child_root, int parent_root, size_t offset) {
  parent_[child_root] = parent_root;
  link_offset_[child_root] = offset;
  members_[parent_root] += members_[child_root];
  group_first_[parent_root] = std::min(group_first_[parent_root], group_first_[child_root]);
  group_last_[parent_root] = std::max(group_last_[parent_root], group_last_[child_root]);
  if (streams_) {
    clock_min(group_lifetime_[parent_root].made_after, group_lifetime_[child_root].made_after);
    clock_max(group_lifetime_[parent_root].freed_after, group_lifetime_[child_root].freed_after);
  }
}

void Planner::merge_concat(const StepNode& step) {
  const Node& node = *step.node;
  if (node.output_count() < 1) return;
  const OpSchemaInfo* schema = schema_of(node);
  if (schema == nullptr || schema->concatenates_along.empty()) return;
  const int c = index_of(node.output(0));
  if (c < 0) return;
  const ValuePlacement& out = values_[c];
  if (out.region != MemoryRegion::kFeatureMap && out.region != MemoryRegion::kGraphIo) return;
  if (out.alias != MemoryAlias::kNone || out.bytes == 0 || holds_clean(c)) return;
  // Producers can write slices only when each input is one contiguous run of the output:
  // every dim before the axis is 1.
  const std::vector<int64_t> dims = out.value->desc().static_dims();
  int64_t axis = node.get_int(schema->concatenates_along, 0);
  if (axis < 0) axis += static_cast<int64_t>(dims.size());
  if (axis < 0 || axis >= static_cast<int64_t>(dims.size())) return;
  for (int64_t d = 0; d < axis; ++d) {
    if (dims[d] != 1) return;
  }
  size_t total = 0;
  for (const Value* in : node.inputs()) {
    const int i = in != nullptr ? index_of(in) : -1;
    if (i < 0 || values_[i].region == MemoryRegion::kUnplanned || in->desc().dtype != out.value->desc().dtype) return;
    // A slice is the input's bytes only when both are stored alike (a blocked Concat of
    // blocked inputs is; a plain input of a blocked Concat is reordered by the kernel).
    if (in->desc().format != out.value->desc().format) return;
    total += values_[i].bytes;
  }
  if (total != out.bytes) return;

  // Inputs read more than once (counted once per Concat, not per input: a Concat of
  // 10^5 inputs stays linear).
  std::unordered_map<const Value*, int> reads;
  reads.reserve(node.input_count());
  for (const Value* in : node.inputs()) ++reads[in];
  size_t slot = 0;
  for (size_t k = 0; k < node.input_count(); ++k) {
    const Value* in = node.input(k);
    const int i = index_of(in);
    const size_t bytes = values_[i].bytes;
    const bool repeated = reads[in] > 1;
    ValuePlacement& p = values_[i];
    // A block to be zeroed stays in the clean group.
    const bool eligible = !repeated && bytes > 0 && produced_[i] && p.region == MemoryRegion::kFeatureMap &&
                          p.alias == MemoryAlias::kNone && p.value->graph() == out.value->graph() && !holds_clean(i);
    if (eligible && out.region == MemoryRegion::kFeatureMap) {
      // The input's whole group (a nested Concat, say) moves into the slot.
      const int root = find(i).first;
      if (root != find(c).first && exact_group(i)) {
        attach(root, find(c).first, find(c).second + slot);
        p.alias = MemoryAlias::kSlice;
        p.alias_source = c;
      }
    } else if (eligible && out.region == MemoryRegion::kGraphIo && singleton(i)) {
      // The producer writes straight into the caller's output buffer.
      p.region = MemoryRegion::kGraphIo;
      p.alias = MemoryAlias::kSlice;
      p.alias_source = c;
      link_offset_[i] = slot;
    }
    slot += bytes;
  }
}

void Planner::merge_identical_weights(MemoryStatistics& statistics) {
  // Initializers only: a Constant node's output is written by its kernel.
  std::vector<size_t> candidates;
  std::vector<const Tensor*> tensors;
  for (size_t i = 0; i < values_.size(); ++i) {
    const ValuePlacement& p = values_[i];
    if (p.region != MemoryRegion::kWeights || p.alias != MemoryAlias::kNone || p.value == nullptr ||
        p.value->producer() != nullptr || p.value->constant() == nullptr || p.value->constant()->byte_size() != p.bytes) {
      continue;
    }
    candidates.push_back(i);
    tensors.push_back(p.value->constant());
  }
  const std::vector<size_t> first = find_identical_bytes(tensors);
  for (size_t k = 0; k < candidates.size(); ++k) {
    if (first[k] == k) continue;
    ValuePlacement& p = values_[candidates[k]];
    p.alias = MemoryAlias::kIdentical;
    p.alias_source = static_cast<int64_t>(candidates[first[k]]);
    ++statistics.merged_weights;
    statistics.merged_weight_bytes += p.bytes;
  }
}

void Planner::merge_view(const StepNode& step) {
  const Node& node = *step.node;
  if (node.input_count() < 1 || node.input(0) == nullptr || node.output_count() < 1) return;
  const OpSchemaInfo* schema = schema_of(node);
  if (schema == nullptr || !schema->is_view) return;
  const int x = index_of(node.input(0));
  const int v = index_of(node.output(0));
  if (x < 0 || v < 0) return;
  ValuePlacement& view = values_[v];
  const ValuePlacement& source = values_[x];
  if (view.region != MemoryRegion::kFeatureMap || view.bytes == 0 || zeroed_[v]) return;
  if (source.region == MemoryRegion::kUnplanned || source.bytes != view.bytes) return;
  if (view.alias == MemoryAlias::kNone && singleton(v)) {
    // A view of a block to be zeroed may join it: it holds the same data.
    if (source.region != MemoryRegion::kFeatureMap) {
      view.region = source.region;  // a read-only alias of a weight or a caller's buffer
    } else {
      auto [root, offset] = find(x);
      attach(v, root, offset);
    }
    view.alias = MemoryAlias::kView;
    view.alias_source = x;
  } else if (source.region == MemoryRegion::kFeatureMap && source.alias == MemoryAlias::kNone && exact_group(x) &&
             find(x).first != find(v).first && !holds_clean(x) && !holds_clean(v)) {
    // The view is already a Concat slice: the viewed value moves into that slice and is
    // recorded as the view's alias (same data, made first).
    auto [root, offset] = find(v);
    attach(find(x).first, root, offset);
    values_[x].alias = MemoryAlias::kView;
    values_[x].alias_source = v;
  }
}

void Planner::merge_in_place(const StepNode& step) {
  const Node& node = *step.node;
  if (step.begin != step.end || node.output_count() < 1) return;
  const OpSchemaInfo* schema = schema_of(node);
  if (schema == nullptr || schema->in_place.empty()) return;
  for (size_t k = 1; k < node.output_count(); ++k) {
    if (!is_omitted_output(*step.graph, node.output(k))) return;
  }
  const int y = index_of(node.output(0));
  if (y < 0) return;
  ValuePlacement& out = values_[y];
  if (out.region != MemoryRegion::kFeatureMap || out.in_place_of >= 0 || out.bytes == 0 || holds_clean(y)) return;
  const TensorDesc& out_desc = out.value->desc();
  for (size_t k = 0; k < node.input_count(); ++k) {
    const Value* in = node.input(k);
    const int x = in != nullptr && schema->may_run_in_place(k, 0) ? index_of(in) : -1;
    if (x < 0 || x == y) continue;
    const ValuePlacement& source = values_[x];
    // A block to be zeroed is used by no other value (seed 002).
    if (source.region != MemoryRegion::kFeatureMap || source.bytes != out.bytes || holds_clean(x)) continue;
    if (element_size(in->desc().dtype) != element_size(out_desc.dtype) ||
        in->desc().element_count() != out_desc.element_count()) {
      continue;  // a broadcast input: its elements are read at other positions
    }
    auto [root, offset] = find(x);
    // The whole buffer must die here: nothing else in it may be read later (or, on
    // several streams, at the same time).
    if (!dies_at(root, step.begin)) continue;
    bool shared = false;  // another input reads the same buffer
    for (const Value* other : node.inputs()) {
      const int o = other != nullptr && other != in ? index_of(other) : -1;
      if (o >= 0 && values_[o].region == MemoryRegion::kFeatureMap && find(o).first == root) shared = true;
    }
    if (shared) continue;
    if (singleton(y)) {
      attach(y, root, offset);
    } else if (exact_group(x) && root != find(y).first) {
      auto [out_root, out_offset] = find(y);
      attach(root, out_root, out_offset);
    } else {
      continue;
    }
    out.in_place_of = x;
    return;
  }
}

Status Planner::group_clean_blocks(int64_t exit) {
  // Atomic clean (seed 002): every block to be zeroed, side by side in one group that is
  // live over every step, so that no other value ever shares its bytes and one memset
  // zeroes all of them. On several streams, one group per stream whose steps write them,
  // so that each memset runs on the stream it must precede.
  std::vector<size_t> end;
  for (size_t i = 0; i < values_.size(); ++i) {
    if (!zeroed_[i] || values_[i].bytes == 0) continue;
    const auto [root, offset] = find(static_cast<int>(i));
    if (root != static_cast<int>(i) || offset != 0) {
      return internal_error("memory planning: '" + values_[i].name + "', to be zeroed, was merged into another buffer");
    }
    const int64_t writer = values_[i].first_use;  // its producer's (or workspace's node's) step
    int stream = 0;
    if (streams_ && writer >= 1 && static_cast<size_t>(writer) <= options_.streams->stream_of.size()) {
      stream = options_.streams->stream_of[static_cast<size_t>(writer - 1)];
    }
    const auto g = static_cast<size_t>(std::find(clean_stream_.begin(), clean_stream_.end(), stream) -
                                       clean_stream_.begin());
    if (g == clean_stream_.size()) {
      clean_roots_.push_back(root);
      clean_stream_.push_back(stream);
      end.push_back(0);
    }
    if (clean_roots_[g] != root) attach(root, clean_roots_[g], end[g]);
    end[g] += align_up(extent_[root], options_.alignment);
  }
  for (size_t g = 0; g < clean_roots_.size(); ++g) {
    const int root = clean_roots_[g];
    extent_[root] = end[g];
    group_first_[root] = 0;
    group_last_[root] = exit;
    if (streams_) group_lifetime_[root] = {streams_->made_at(0), streams_->done_at(exit), 0};
  }
  return Status::ok();
}

Status Planner::assign(const std::vector<std::shared_ptr<MemoryAssigner>>& assigners, GraphMemoryPlan& plan) {
  // One request per group root.
  std::vector<int> buffer_of(values_.size(), -1);
  std::vector<MemoryRequest> requests;
  for (size_t i = 0; i < values_.size(); ++i) {
    const ValuePlacement& p = values_[i];
    if (p.region != MemoryRegion::kFeatureMap || p.bytes == 0) continue;
    const int root = find(static_cast<int>(i)).first;
    if (buffer_of[root] < 0) {
      buffer_of[root] = static_cast<int>(requests.size());
      MemoryRequest request{align_up(extent_[root], options_.alignment), group_first_[root], group_last_[root], {}};
      if (streams_) {
        request.streams = group_lifetime_[root];
        request.streams.window_last = streams_->last_concurrent_step(request.streams.freed_after);
      }
      requests.push_back(std::move(request));
    }
    values_[i].buffer = buffer_of[root];
  }

  if (assigners.empty()) {
    return invalid_argument(
        "memory planning: no memory assigner is loaded (enable one of kind 'memory_assigner' in the plugin registry)");
  }
  // The assigners run concurrently (assign() is const and thread-safe by contract); each
  // answer is validated in its own thread, and the choice below is in assigner order, so
  // the result does not depend on timing.
  struct Answer {
    std::string name;
    Result<MemoryPlan> plan = internal_error("assigner threw an exception");
    Status valid;
    double milliseconds = 0;
  };
  auto run_one = [&requests, alignment = options_.alignment](const MemoryAssigner* assigner) {
    Answer answer;
    const auto start = std::chrono::steady_clock::now();
    try {
      answer.name = assigner->name();
      answer.plan = assigner->assign(requests, alignment);
    } catch (const std::exception& e) {
      answer.plan = internal_error(std::string("assigner threw: ") + e.what());
    } catch (...) {
    }
    answer.milliseconds = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
    answer.valid = answer.plan.status();
    if (answer.valid.is_ok()) answer.valid = validate_assignment(requests, *answer.plan, alignment);
    return answer;
  };
  std::vector<std::future<Answer>> running;
  for (size_t k = 1; k < assigners.size(); ++k) {
    try {
      running.push_back(std::async(std::launch::async, run_one, assigners[k].get()));
    } catch (const std::system_error&) {
      running.push_back(std::async(std::launch::deferred, run_one, assigners[k].get()));
    }
  }
  std::vector<Answer> answers;
  answers.push_back(run_one(assigners[0].get()));
  for (auto& f : running) answers.push_back(f.get());

  MemoryStatistics& stats = plan.statistics;
  std::optional<MemoryPlan> best;
  std::string failures;
  for (Answer& answer : answers) {
    AssignerOutcome outcome;
    outcome.name = answer.name;
    outcome.milliseconds = answer.milliseconds;
    if (answer.valid.is_ok()) {
      outcome.total_bytes = answer.plan->total_bytes;
      if (!best || answer.plan->total_bytes < best->total_bytes) {
        best = std::move(answer.plan).value();
        stats.assigner = outcome.name;
      }
    } else {
      outcome.error = answer.valid.to_string();
      failures += "\n  " + outcome.name + ": " + outcome.error;
      GE_LOG_WARN("memory assigner '{}' rejected: {}", outcome.name, outcome.error);
    }
    stats.assigners.push_back(std::move(outcome));
  }
  if (!best) return internal_error("memory planning: no memory assigner produced a valid plan:" + failures);

  plan.feature_map_bytes = best->total_bytes;
  plan.buffers.reserve(requests.size());
  for (size_t b = 0; b < requests.size(); ++b) {
    plan.buffers.push_back({best->offsets[b], requests[b].bytes, requests[b].first_use, requests[b].last_use});
  }
  stats.lower_bound_bytes = peak_live_bytes(requests);
  return Status::ok();
}

Status Planner::resolve_offsets(GraphMemoryPlan& plan) {
  // Weights and I/O slots one after another; feature-map values from their buffer.
  size_t weights = 0, io = 0;
  std::vector<char> done(values_.size(), 0);
  for (size_t i = 0; i < values_.size(); ++i) {
    ValuePlacement& p = values_[i];
    if (p.alias != MemoryAlias::kNone && p.region != MemoryRegion::kFeatureMap) continue;
    if (p.region == MemoryRegion::kWeights) {
      p.offset = align_up(weights, options_.alignment);
      weights = p.offset + p.bytes;
    } else if (p.region == MemoryRegion::kGraphIo) {
      p.offset = align_up(io, options_.io_alignment);
      io = p.offset + p.bytes;
    } else if (p.region == MemoryRegion::kFeatureMap && p.buffer >= 0) {
      p.offset = plan.buffers[p.buffer].offset + find(static_cast<int>(i)).second;
    }
    done[i] = 1;
  }
  // Aliases outside the feature map follow their source (which may itself be an alias).
  for (size_t i = 0; i < values_.size(); ++i) {
    std::vector<size_t> chain;
    for (size_t j = i; !done[j];) {
      chain.push_back(j);
      const int64_t source = values_[j].alias_source;
      if (source < 0 || chain.size() > values_.size())
        return internal_error("memory planning: alias chain of '" + values_[i].name + "' is broken");
      j = static_cast<size_t>(source);
    }
    for (auto it = chain.rbegin(); it != chain.rend(); ++it) {
      ValuePlacement& p = values_[*it];
      const ValuePlacement& source = values_[p.alias_source];
      p.offset = source.offset + (p.alias == MemoryAlias::kSlice ? link_offset_[*it] : 0);
      done[*it] = 1;
    }
  }
  plan.weights_bytes = align_up(weights, options_.alignment);
  plan.io_bytes = align_up(io, options_.io_alignment);
  return Status::ok();
}

Status Planner::run(const std::vector<std::shared_ptr<MemoryAssigner>>& assigners, GraphMemoryPlan& plan) {
  if (options_.alignment == 0 || options_.io_alignment == 0)
    return invalid_argument("memory planning: alignment must be positive");
  GE_RETURN_IF_ERROR(choose_order());
  GE_RETURN_IF_ERROR(check_streams());
  top_outputs_.insert(graph_.outputs().begin(), graph_.outputs().end());
  index_.reserve(graph_.node_count() * 2 + graph_.initializers().size() + graph_.inputs().size());
  GE_ASSIGN_OR_RETURN(int64_t exit, visit_graph(graph_, 0, true));
  for (ValuePlacement& p : values_) {
    if (p.region == MemoryRegion::kWeights) {
      // Weights are loaded before the first step and stay.
      p.first_use = 0;
      p.last_use = exit;
    }
  }
  if (options_.merge_identical_weights) merge_identical_weights(plan.statistics);

  const size_t n = values_.size();
  parent_.resize(n);
  link_offset_.assign(n, 0);
  extent_.resize(n);
  members_.assign(n, 1);
  group_first_.resize(n);
  group_last_.resize(n);
  group_lifetime_ = lifetime_;
  for (size_t i = 0; i < n; ++i) {
    parent_[i] = static_cast<int>(i);
    extent_[i] = values_[i].bytes;
    group_first_[i] = values_[i].first_use;
    group_last_[i] = values_[i].last_use;
  }
  // Captures share the outer value's storage (the only aliases made while visiting).
  for (size_t i = 0; i < n; ++i) {
    const ValuePlacement& p = values_[i];
    if (p.alias == MemoryAlias::kView && p.region == MemoryRegion::kFeatureMap) {
      auto [root, offset] = find(static_cast<int>(p.alias_source));
      attach(static_cast<int>(i), root, offset);
    }
  }
  // Concat first, so that producers found later in the order can still write into slices.
  if (options_.continuous_concat) {
    for (const StepNode& step : steps_) merge_concat(step);
  }
  for (const StepNode& step : steps_) {
    if (options_.views) merge_view(step);
    if (options_.in_place) merge_in_place(step);
  }

  GE_RETURN_IF_ERROR(group_clean_blocks(exit));

  GE_RETURN_IF_ERROR(assign(assigners, plan));
  GE_RETURN_IF_ERROR(resolve_offsets(plan));
  for (size_t g = 0; g < clean_roots_.size(); ++g) {
    const MemoryBuffer& buffer = plan.buffers[values_[clean_roots_[g]].buffer];
    CleanGroup group{buffer.offset, buffer.bytes, 0, clean_stream_[g]};
    for (size_t i = 0; i < values_.size(); ++i) {
      if (!zeroed_[i] || values_[i].bytes == 0 || find(static_cast<int>(i)).first != clean_roots_[g]) continue;
      values_[i].clean_group = static_cast<int64_t>(g);
      ++group.blocks;
    }
    plan.clean_groups.push_back(group);
  }
  if (streams_) plan.streams = *options_.streams;

  plan.order = top_order_;
  plan.alignment = options_.alignment;
  plan.io_alignment = options_.io_alignment;
  plan.step_count = exit + 1;
  plan.values = std::move(values_);
  plan.index = std::move(index_);
  return Status::ok();
}

}  // namespace

Result<GraphMemoryPlan> plan_memory(const Graph& graph, const std::vector<std::shared_ptr<MemoryAssigner>>& assigners,
                                    const MemoryPlanOptions& options) {
  const auto start = std::chrono::steady_clock::now();
  GraphMemoryPlan plan;
  Planner planner(graph, options);
  GE_RETURN_IF_ERROR(planner.run(assigners, plan).with_context("graph '" + graph.name() + "'"));
  GE_RETURN_IF_ERROR(validate_memory_plan(plan).with_context("graph '" + graph.name() + "'"));

  MemoryStatistics& stats = plan.statistics;
  stats.feature_map_bytes = plan.feature_map_bytes;
  stats.weights_bytes = plan.weights_bytes;
  stats.io_bytes = plan.io_bytes;
  stats.buffers = plan.buffers.size();
  stats.steps = plan.step_count;
  stats.clean_groups = plan.clean_groups;
  stats.streams = std::max(plan.streams.stream_count, 1);
  stats.stream_events = plan.streams.events.size();
  for (const ValuePlacement& p : plan.values) {
    if (p.region == MemoryRegion::kUnplanned) {
      ++stats.unplanned;
      continue;
    }
    ++stats.values;
    if (p.in_place_of >= 0) ++stats.in_place;
    if (p.alias == MemoryAlias::kView) ++stats.views;
    if (p.alias == MemoryAlias::kSlice) ++stats.concat_slices;
    if (p.region == MemoryRegion::kFeatureMap && p.alias != MemoryAlias::kView && p.alias != MemoryAlias::kSlice) {
      stats.no_reuse_bytes += align_up(p.bytes, plan.alignment);
    }
  }
  stats.ratio_to_lower_bound = stats.lower_bound_bytes == 0 ? 1.0
                                                            : static_cast<double>(stats.feature_map_bytes) /
                                                                  static_cast<double>(stats.lower_bound_bytes);
  stats.planning_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
  return plan;
}

}  // namespace ge
