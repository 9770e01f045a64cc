// The memory-priority execution order: memory_priority_order (ge/memory_plan.h).
#include "ge/memory_plan.h"

#include <algorithm>
#include <functional>
#include <queue>
#include <tuple>
#include <unordered_map>
#include <unordered_set>

#include "ge/alignment.h"
#include "ge/graph_queries.h"
#include "static_bytes.h"

namespace ge {

Result<std::vector<const Node*>> memory_priority_order(const Graph& graph, size_t alignment) {
  GE_ASSIGN_OR_RETURN(std::vector<Node*> stable, graph.topological_order(TopoOrder::kStable));
  const size_t n = stable.size();
  std::unordered_map<const Node*, size_t> rank;
  rank.reserve(n);
  for (size_t i = 0; i < n; ++i) rank[stable[i]] = i;

  // Node outputs that take feature-map memory: bytes, producer, distinct consumers.
  struct Produced {
    int64_t bytes = 0;
    size_t producer = 0;
    bool graph_output = false;
    std::vector<size_t> consumers;
  };
  std::vector<Produced> produced;
  std::unordered_map<const Value*, size_t> produced_index;
  produced_index.reserve(n * 2);
  std::unordered_set<const Value*> outputs(graph.outputs().begin(), graph.outputs().end());
  std::vector<int64_t> allocates(n, 0);
  for (size_t i = 0; i < n; ++i) {
    for (const Value* out : stable[i]->outputs()) {
      if (is_omitted_output(graph, out)) continue;
      Produced p;
      size_t bytes = 0;
      std::string reason;
      if (static_bytes(out->desc(), bytes, reason)) p.bytes = static_cast<int64_t>(align_up(bytes, alignment));
      p.producer = i;
      p.graph_output = outputs.count(out) != 0;
      allocates[i] += p.bytes;
      produced_index[out] = produced.size();
      produced.push_back(std::move(p));
    }
  }
  // What each node reads (explicit and through subgraph captures), and its predecessors.
  std::vector<std::vector<size_t>> reads(n), successors(n);
  std::vector<size_t> pending(n, 0);
  for (size_t i = 0; i < n; ++i) {
    const Node* node = stable[i];
    std::vector<const Value*> inputs(node->inputs().begin(), node->inputs().end());
    if (!node->attributes().empty()) {
      for (const Value* in : graph.implicit_inputs(*node)) inputs.push_back(in);
    }
    std::vector<size_t> preds;
    for (const Value* in : inputs) {
      auto it = in != nullptr ? produced_index.find(in) : produced_index.end();
      if (it == produced_index.end()) continue;
      reads[i].push_back(it->second);
      preds.push_back(produced[it->second].producer);
    }
    std::sort(reads[i].begin(), reads[i].end());
    reads[i].erase(std::unique(reads[i].begin(), reads[i].end()), reads[i].end());
    for (size_t v : reads[i]) produced[v].consumers.push_back(i);
    for (const Node* p : node->control_predecessors()) {
      auto it = rank.find(p);
      if (it != rank.end()) preds.push_back(it->second);
    }
    std::sort(preds.begin(), preds.end());
    preds.erase(std::unique(preds.begin(), preds.end()), preds.end());
    pending[i] = preds.size();
    for (size_t p : preds) successors[p].push_back(i);
  }

  std::vector<size_t> remaining(produced.size());
  for (size_t v = 0; v < produced.size(); ++v) remaining[v] = produced[v].consumers.size();
  std::vector<char> scheduled(n, 0);
  std::vector<int64_t> score(n, 0);
  auto compute_score = [&](size_t i) {
    int64_t s = allocates[i];
    for (size_t v : reads[i]) {
      if (!produced[v].graph_output && remaining[v] == 1) s -= produced[v].bytes;
    }
    return s;
  };
  using Entry = std::tuple<int64_t, size_t>;  // (score, stable rank)
  std::priority_queue<Entry, std::vector<Entry>, std::greater<>> ready;
  auto push = [&](size_t i) {
    score[i] = compute_score(i);
    ready.push({score[i], i});
  };
  for (size_t i = 0; i < n; ++i) {
    if (pending[i] == 0) push(i);
  }
  std::vector<size_t> greedy;
  greedy.reserve(n);
  while (!ready.empty()) {
    auto [s, i] = ready.top();
    ready.pop();
    if (scheduled[i] || s != score[i]) continue;  // stale entry
    scheduled[i] = 1;
    greedy.push_back(i);
    for (size_t v : reads[i]) {
      if (--remaining[v] != 1) continue;
      // Its last consumer now frees it: that consumer became cheaper.
      for (size_t c : produced[v].consumers) {
        if (!scheduled[c] && pending[c] == 0) push(c);
      }
    }
    for (size_t next : successors[i]) {
      if (--pending[next] == 0) push(next);
    }
  }
  if (greedy.size() != n)
    return internal_error("memory_priority_order: graph '" + graph.name() + "' could not be ordered");

  // The greedy choice is short-sighted on some graphs: keep whichever of it, a
  // depth-first order and the stable order has the lowest peak of live node outputs.
  auto peak_of = [&](const std::vector<size_t>& candidate) {
    std::vector<int64_t> position(n);  // by stable rank
    for (size_t k = 0; k < n; ++k) position[candidate[k]] = static_cast<int64_t>(k);
    std::vector<int64_t> delta(n + 1, 0);
    for (const Produced& p : produced) {
      if (p.graph_output) continue;
      int64_t last = position[p.producer];
      for (size_t c : p.consumers) last = std::max(last, position[c]);
      delta[position[p.producer]] += p.bytes;
      delta[last + 1] -= p.bytes;
    }
    int64_t live = 0, peak = 0;
    for (int64_t d : delta) peak = std::max(peak, live += d);
    return peak;
  };
  GE_ASSIGN_OR_RETURN(std::vector<Node*> depth_first, graph.topological_order(TopoOrder::kDfs));
  std::vector<size_t> dfs(n), identity(n);
  for (size_t k = 0; k < n; ++k) {
    dfs[k] = rank.at(depth_first[k]);
    identity[k] = k;
  }
  const std::vector<size_t>* best = &greedy;
  int64_t best_peak = peak_of(greedy);
  for (const std::vector<size_t>* candidate : {&dfs, &identity}) {
    const int64_t peak = peak_of(*candidate);
    if (peak < best_peak) {
      best_peak = peak;
      best = candidate;
    }
  }
  std::vector<const Node*> order;
  order.reserve(n);
  for (size_t k : *best) order.push_back(stable[k]);
  return order;
}

}  // namespace ge
