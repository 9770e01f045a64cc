// The pipeline order of passes: phase, then a topological sort of the constraints inside
// each phase with ties in registration order.
#include "ge/pass_order.h"

#include <algorithm>
#include <map>
#include <queue>
#include <set>
#include <string>

#include "ge/logging.h"

namespace ge {
namespace {

std::string describe(const PassInfo& pass) {
  return "pass '" + pass.name + "' (phase " + pass_phase_name(pass.phase) + ")";
}

/// A cycle among `left` (passes of one phase whose predecessors never all ran): every one
/// of them has a predecessor in `left`, so walking predecessors must come back to a pass.
std::string cycle_text(const std::set<size_t>& left, const std::vector<std::set<size_t>>& predecessors,
                       const std::vector<PassInfo>& passes) {
  std::vector<size_t> walk;
  std::map<size_t, size_t> seen;  // pass -> its position in walk
  size_t at = *left.begin();
  while (!seen.count(at)) {
    seen[at] = walk.size();
    walk.push_back(at);
    for (size_t p : predecessors[at]) {
      if (left.count(p)) {
        at = p;
        break;
      }
    }
  }
  // walk[seen[at]..] is the cycle backwards (each entry runs after the next).
  std::vector<size_t> cycle(walk.begin() + static_cast<std::ptrdiff_t>(seen[at]), walk.end());
  std::reverse(cycle.begin(), cycle.end());
  // Start at the least name, so that the message does not depend on where the walk began.
  auto by_name = [&](size_t a, size_t b) { return passes[a].name < passes[b].name; };
  std::rotate(cycle.begin(), std::min_element(cycle.begin(), cycle.end(), by_name), cycle.end());
  std::string text;
  for (size_t i : cycle) text += "'" + passes[i].name + "' runs before ";
  return text + "'" + passes[cycle.front()].name + "'";
}

}  // namespace

Result<std::vector<const PassInfo*>> order_passes(const std::vector<PassInfo>& passes) {
  std::map<std::string, size_t> index;  // the first pass of each name
  for (size_t i = 0; i < passes.size(); ++i) index.emplace(passes[i].name, i);

  // predecessors[i]: the passes of i's phase that must run before pass i.
  std::vector<std::set<size_t>> predecessors(passes.size());
  // Across phases the phase order decides: moving one pass to another phase (the registry's
  // "phase" option) must not break the constraints other passes declared on it.
  auto require = [&](size_t before, size_t after, const char* option, const PassInfo& declared_by) {
    const PassInfo& first = passes[before];
    const PassInfo& second = passes[after];
    if (first.phase == second.phase) {
      predecessors[after].insert(before);
    } else if (first.phase > second.phase) {
      const PassInfo& other = &declared_by == &first ? second : first;
      GE_LOG_WARN("{} has {} '{}', but {} runs before {}: the phases decide (they run in the order {})",
                  describe(declared_by), option, other.name, describe(second), describe(first), pass_phase_names());
    }
  };
  for (size_t i = 0; i < passes.size(); ++i) {
    for (const std::string& name : passes[i].run_after) {
      auto it = index.find(name);
      if (it != index.end()) require(it->second, i, "run_after", passes[i]);
    }
    for (const std::string& name : passes[i].run_before) {
      auto it = index.find(name);
      if (it != index.end()) require(i, it->second, "run_before", passes[i]);
    }
  }

  std::vector<const PassInfo*> order;
  for (PassPhase phase : kPassPhases) {
    std::vector<size_t> waiting(passes.size(), 0);  // predecessors not yet placed
    // Ties run in registration order: the queue's top is its greatest element, here the
    // earliest registered.
    auto registered_later = [](size_t a, size_t b) { return a > b; };
    std::priority_queue<size_t, std::vector<size_t>, decltype(registered_later)> ready(registered_later);
    std::vector<std::vector<size_t>> successors(passes.size());
    std::set<size_t> left;
    for (size_t i = 0; i < passes.size(); ++i) {
      if (passes[i].phase != phase) continue;
      left.insert(i);
      waiting[i] = predecessors[i].size();
      for (size_t p : predecessors[i]) successors[p].push_back(i);
      if (waiting[i] == 0) ready.push(i);
    }
    while (!ready.empty()) {
      const size_t next = ready.top();
      ready.pop();
      left.erase(next);
      order.push_back(&passes[next]);
      for (size_t s : successors[next]) {
        if (--waiting[s] == 0) ready.push(s);
      }
    }
    if (!left.empty()) {
      return invalid_argument(std::string("the run_after / run_before constraints of phase ") + pass_phase_name(phase) +
                              " form a cycle: " + cycle_text(left, predecessors, passes) +
                              " (change the 'after' / 'before' options of one of them)");
    }
  }
  return order;
}

}  // namespace ge
