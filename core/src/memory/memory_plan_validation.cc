// The memory plan validators: validate_assignment and validate_memory_plan (ge/memory_plan.h).
#include "ge/memory_plan.h"

#include <algorithm>
#include <limits>
#include <map>
#include <optional>
#include <queue>
#include <set>
#include <tuple>
#include <unordered_map>

#include "ge/runtime/stream_plan.h"
#include "static_bytes.h"
#include "stream_lifetimes.h"

namespace ge {
namespace {

// ---- validation helpers ----

struct DisjointSets {
  std::vector<size_t> parent;
  explicit DisjointSets(size_t n) : parent(n) {
    for (size_t i = 0; i < n; ++i) parent[i] = i;
  }
  size_t find(size_t i) {
    while (parent[i] != i) i = parent[i] = parent[parent[i]];
    return i;
  }
  void unite(size_t a, size_t b) { parent[find(a)] = find(b); }
};

std::string describe_placement(const ValuePlacement& p) {
  return "'" + p.name + "' (" + memory_region_name(p.region) + " bytes [" + std::to_string(p.offset) + ", " +
         std::to_string(p.offset + p.bytes) + "), steps " + std::to_string(p.first_use) + ".." +
         std::to_string(p.last_use) + ")";
}

bool bytes_overlap(size_t a_offset, size_t a_bytes, size_t b_offset, size_t b_bytes) {
  return a_bytes > 0 && b_bytes > 0 && a_offset < b_offset + b_bytes && b_offset < a_offset + a_bytes;
}

bool lifetimes_overlap(int64_t a_first, int64_t a_last, int64_t b_first, int64_t b_last) {
  return a_first <= b_last && b_first <= a_last;
}

// Items with a byte range and a live range; finds the first pair that overlaps in both.
// Sweep over steps with the live items kept sorted by offset: while no two overlap, a new
// item can only collide with its neighbours.
struct SweepItem {
  size_t offset = 0, bytes = 0;
  int64_t first = 0, last = 0;
};

std::optional<std::pair<size_t, size_t>> find_conflict(const std::vector<SweepItem>& items) {
  std::vector<size_t> by_first;
  for (size_t i = 0; i < items.size(); ++i) {
    if (items[i].bytes > 0) by_first.push_back(i);
  }
  std::sort(by_first.begin(), by_first.end(),
            [&](size_t a, size_t b) { return std::tie(items[a].first, a) < std::tie(items[b].first, b); });
  using Expiry = std::pair<int64_t, size_t>;
  std::priority_queue<Expiry, std::vector<Expiry>, std::greater<>> expiry;
  std::set<std::pair<size_t, size_t>> live;  // (offset, item)
  for (size_t i : by_first) {
    const SweepItem& item = items[i];
    while (!expiry.empty() && expiry.top().first < item.first) {
      const size_t gone = expiry.top().second;
      live.erase({items[gone].offset, gone});
      expiry.pop();
    }
    auto next = live.lower_bound({item.offset, 0});
    if (next != live.end() && next->first < item.offset + item.bytes) return std::make_pair(next->second, i);
    if (next != live.begin()) {
      auto prev = std::prev(next);
      if (items[prev->second].offset + items[prev->second].bytes > item.offset) return std::make_pair(prev->second, i);
    }
    live.insert({item.offset, i});
    expiry.push({item.last, i});
  }
  return std::nullopt;
}

// Items that overlap in bytes, in offset order: the first pair for which `conflict(a, b)`
// holds. For lifetimes that are not intervals (several streams); O(n * overlapping).
template <typename Conflict>
std::optional<std::pair<size_t, size_t>> find_conflict_by_offset(const std::vector<SweepItem>& items,
                                                                  Conflict conflict) {
  std::vector<size_t> by_offset;
  for (size_t i = 0; i < items.size(); ++i) {
    if (items[i].bytes > 0) by_offset.push_back(i);
  }
  std::sort(by_offset.begin(), by_offset.end(),
            [&](size_t a, size_t b) { return std::tie(items[a].offset, a) < std::tie(items[b].offset, b); });
  std::vector<size_t> active;  // items whose bytes reach past the current offset
  for (size_t i : by_offset) {
    std::erase_if(active, [&](size_t a) { return items[a].offset + items[a].bytes <= items[i].offset; });
    for (size_t a : active) {
      if (conflict(a, i)) return std::make_pair(a, i);
    }
    active.push_back(i);
  }
  return std::nullopt;
}

// Live members of one component indexed by their bytes, for the check inside a component
// when it is large (a Concat of 10^5 slices, all live at the Concat): reports the live
// members whose bytes overlap a range in O(log m + reported) amortised, where scanning
// every live member was O(m) per member. A segment tree over the members' byte
// coordinates; members that died leave a node's list when a query passes it.
class LiveByteIndex {
 public:
  explicit LiveByteIndex(std::vector<size_t> points) : points_(std::move(points)) {
    while (leaves_ + 1 < points_.size()) leaves_ <<= 1;
    own_.resize(2 * leaves_);
    below_.resize(2 * leaves_);
    node_stamp_.assign(2 * leaves_, 0);
  }

  /// Adds member `id` (a dense index) over bytes [begin, end), both among the points.
  void insert(size_t id, size_t begin, size_t end) {
    if (id >= id_stamp_.size()) id_stamp_.resize(id + 1, 0);
    ++stamp_;
    for_each_canonical(begin, end, [&](size_t node) {
      own_[node].push_back(id);
      for (size_t p = node >> 1; p >= 1 && node_stamp_[p] != stamp_; p >>= 1) {
        node_stamp_[p] = stamp_;
        below_[p].push_back(id);
      }
    });
  }

  /// Appends to `out`, once each, the members still `alive` whose bytes overlap [begin, end).
  template <typename Alive>
  void overlapping(size_t begin, size_t end, Alive alive, std::vector<size_t>& out) {
    ++stamp_;
    const uint32_t stamp = stamp_;
    auto emit = [&](std::vector<size_t>& ids) {
      std::erase_if(ids, [&](size_t id) { return !alive(id); });
      for (size_t id : ids) {
        if (id_stamp_[id] != stamp) {
          id_stamp_[id] = stamp;
          out.push_back(id);
        }
      }
    };
    for_each_canonical(begin, end, [&](size_t q) {
      emit(own_[q]);
      emit(below_[q]);
      for (size_t p = q >> 1; p >= 1 && node_stamp_[p] != stamp; p >>= 1) {
        node_stamp_[p] = stamp;
        emit(own_[p]);
      }
    });
  }

 private:
  // Segment j is bytes [points_[j], points_[j + 1]); [begin, end) covers whole segments.
  template <typename Visit>
  void for_each_canonical(size_t begin, size_t end, Visit visit) {
    const auto first = static_cast<size_t>(std::lower_bound(points_.begin(), points_.end(), begin) - points_.begin());
    const auto stop = static_cast<size_t>(std::lower_bound(points_.begin(), points_.end(), end) - points_.begin());
    for (size_t l = first + leaves_, r = stop + leaves_; l < r; l >>= 1, r >>= 1) {
      if (l & 1) visit(l++);
      if (r & 1) visit(--r);
    }
  }

  std::vector<size_t> points_;
  size_t leaves_ = 1;
  std::vector<std::vector<size_t>> own_, below_;
  std::vector<uint32_t> node_stamp_, id_stamp_;
  uint32_t stamp_ = 0;
};

// Several streams: each placement's stream lifetime, derived from the graph and the
// plan's stream plan (not from the placements' steps).
Result<std::vector<StreamLifetime>> placement_stream_lifetimes(const GraphMemoryPlan& plan) {
  GE_ASSIGN_OR_RETURN(std::vector<std::vector<size_t>> predecessors, order_predecessors(plan.order));
  if (Status status = validate_stream_plan(predecessors, plan.streams); !status.is_ok()) {
    return internal_error("memory plan: " + status.message());
  }
  const StreamSteps steps(plan.streams);
  std::unordered_map<const Node*, int64_t> step_of;
  for (size_t i = 0; i < plan.order.size(); ++i) step_of.emplace(plan.order[i], static_cast<int64_t>(i) + 1);
  const int64_t exit = static_cast<int64_t>(plan.order.size()) + 1;
  const Graph* top = plan.order.empty() ? nullptr : plan.order.front()->graph();
  auto step = [&](const Node* node) -> int64_t {
    auto it = step_of.find(node);
    return it == step_of.end() ? exit : it->second;
  };
  std::vector<StreamLifetime> lifetimes;
  lifetimes.reserve(plan.values.size());
  for (const ValuePlacement& p : plan.values) {
    StreamLifetime life;
    if (p.workspace_of != nullptr) {
      life.made_after = steps.made_at(step(p.workspace_of));
      life.freed_after = steps.done_at(step(p.workspace_of));
    } else if (p.value != nullptr) {
      const int64_t made = p.value->producer() != nullptr ? step(p.value->producer()) : 0;
      life.made_after = steps.made_at(made);
      life.freed_after = steps.done_at(made);
      for (const Use& use : p.value->uses()) clock_max(life.freed_after, steps.done_at(step(use.user)));
      if (top != nullptr && std::find(top->outputs().begin(), top->outputs().end(), p.value) != top->outputs().end()) {
        life.freed_after = steps.done_at(exit);
      }
    }
    lifetimes.push_back(std::move(life));
  }
  return lifetimes;
}

std::string describe_group(const GraphMemoryPlan& plan, size_t g) {
  const CleanGroup& group = plan.clean_groups[g];
  return "atomic-clean group " + std::to_string(g) + " (feature_map bytes [" + std::to_string(group.offset) + ", " +
         std::to_string(group.offset + group.bytes) + "))";
}

// Atomic clean (seed 002): the groups lie apart in the feature map, each block marked for
// a group lies inside it, and no other value uses a group's bytes at any step -- except
// views of its blocks, which hold the same data.
Status validate_clean_groups(const GraphMemoryPlan& plan) {
  const std::vector<ValuePlacement>& values = plan.values;
  const std::vector<CleanGroup>& groups = plan.clean_groups;
  auto fail = [](const std::string& message) { return internal_error("memory plan: " + message); };
  for (size_t g = 0; g < groups.size(); ++g) {
    const CleanGroup& group = groups[g];
    if (plan.alignment > 1 && group.offset % plan.alignment != 0) {
      return fail(describe_group(plan, g) + " does not start at a multiple of " + std::to_string(plan.alignment));
    }
    if (group.bytes == 0 || group.offset > kMaxBytes || group.bytes > kMaxBytes ||
        group.offset + group.bytes > plan.feature_map_bytes) {
      return fail(describe_group(plan, g) + " is empty or ends past the feature map of " +
                  std::to_string(plan.feature_map_bytes) + " bytes");
    }
    for (size_t h = 0; h < g; ++h) {
      if (bytes_overlap(group.offset, group.bytes, groups[h].offset, groups[h].bytes)) {
        return fail(describe_group(plan, h) + " and " + describe_group(plan, g) + " overlap");
      }
    }
  }
  // A view chain down to a block of a group: same data.
  auto views_block_of = [&](const ValuePlacement& p) -> int64_t {
    const ValuePlacement* at = &p;
    for (size_t hops = 0; at->alias == MemoryAlias::kView && hops <= values.size(); ++hops) {
      if (at->alias_source < 0 || static_cast<size_t>(at->alias_source) >= values.size()) return -1;
      at = &values[at->alias_source];
    }
    return at->alias == MemoryAlias::kNone ? at->clean_group : -1;
  };
  for (const ValuePlacement& p : values) {
    if (p.clean_group >= 0) {
      if (static_cast<size_t>(p.clean_group) >= groups.size()) {
        return fail(describe_placement(p) + " is to be zeroed in atomic-clean group " + std::to_string(p.clean_group) +
                    " of " + std::to_string(groups.size()));
      }
      const CleanGroup& group = groups[p.clean_group];
      if (p.region != MemoryRegion::kFeatureMap || p.alias != MemoryAlias::kNone || p.in_place_of >= 0 ||
          p.offset < group.offset || p.offset + p.bytes > group.offset + group.bytes) {
        return fail(describe_placement(p) + " is to be zeroed but does not lie in its own bytes inside " +
                    describe_group(plan, static_cast<size_t>(p.clean_group)));
      }
      continue;
    }
    if (p.region != MemoryRegion::kFeatureMap || p.bytes == 0) continue;
    for (size_t g = 0; g < groups.size(); ++g) {
      if (!bytes_overlap(p.offset, p.bytes, groups[g].offset, groups[g].bytes)) continue;
      if (views_block_of(p) == static_cast<int64_t>(g)) continue;
      return fail(describe_placement(p) + " overlaps " + describe_group(plan, g) +
                  ", which only blocks zeroed before their kernel runs (and their views) may use");
    }
  }
  return Status::ok();
}

}  // namespace

Status validate_assignment(const std::vector<MemoryRequest>& requests, const MemoryPlan& plan, size_t alignment) {
  if (plan.offsets.size() != requests.size()) {
    return internal_error("memory assignment has " + std::to_string(plan.offsets.size()) + " offsets for " +
                          std::to_string(requests.size()) + " requests");
  }
  std::vector<SweepItem> items(requests.size());
  for (size_t i = 0; i < requests.size(); ++i) {
    const MemoryRequest& r = requests[i];
    const size_t offset = plan.offsets[i];
    if (alignment > 1 && offset % alignment != 0) {
      return internal_error("memory assignment: request " + std::to_string(i) + " at offset " + std::to_string(offset) +
                            " is not a multiple of the alignment " + std::to_string(alignment));
    }
    if (offset > kMaxBytes || r.bytes > kMaxBytes || offset + r.bytes > plan.total_bytes) {
      return internal_error("memory assignment: request " + std::to_string(i) + " at [" + std::to_string(offset) +
                            ", " + std::to_string(offset + r.bytes) + ") ends past the arena of " +
                            std::to_string(plan.total_bytes) + " bytes");
    }
    items[i] = {offset, r.bytes, r.first_use, r.last_use};
  }
  const bool streams =
      std::any_of(requests.begin(), requests.end(), [](const MemoryRequest& r) { return !r.streams.empty(); });
  if (streams) {
    auto conflict = find_conflict_by_offset(
        items, [&](size_t a, size_t b) { return requests_conflict(requests[a], requests[b]); });
    if (!conflict) return Status::ok();
    auto [a, b] = *conflict;
    return internal_error("memory assignment: requests " + std::to_string(a) + " and " + std::to_string(b) +
                          " overlap in bytes ([" + std::to_string(items[a].offset) + ", " +
                          std::to_string(items[a].offset + items[a].bytes) + ") and [" +
                          std::to_string(items[b].offset) + ", " + std::to_string(items[b].offset + items[b].bytes) +
                          ")) while no stream order or event separates their lifetimes");
  }
  if (auto conflict = find_conflict(items)) {
    auto [a, b] = *conflict;
    auto describe = [&](size_t i) {
      return "request " + std::to_string(i) + " (bytes [" + std::to_string(items[i].offset) + ", " +
             std::to_string(items[i].offset + items[i].bytes) + "), steps " + std::to_string(items[i].first) + ".." +
             std::to_string(items[i].last) + ")";
    };
    return internal_error("memory assignment: " + describe(a) + " and " + describe(b) +
                          " overlap in bytes while both live");
  }
  return Status::ok();
}

Status validate_memory_plan(const GraphMemoryPlan& plan) {
  const std::vector<ValuePlacement>& values = plan.values;
  const size_t n = values.size();
  auto fail = [](const std::string& message) { return internal_error("memory plan: " + message); };
  auto region_size = [&](MemoryRegion region) -> size_t {
    switch (region) {
      case MemoryRegion::kWeights: return plan.weights_bytes;
      case MemoryRegion::kFeatureMap: return plan.feature_map_bytes;
      case MemoryRegion::kGraphIo: return plan.io_bytes;
      default: return 0;
    }
  };
  auto region_alignment = [&](MemoryRegion region) {
    return region == MemoryRegion::kGraphIo ? plan.io_alignment : plan.alignment;
  };

  // Each placement on its own, and each alias against its source.
  for (size_t i = 0; i < n; ++i) {
    const ValuePlacement& p = values[i];
    if (p.region == MemoryRegion::kUnplanned) continue;
    if (p.first_use > p.last_use) return fail(describe_placement(p) + " dies before it is made");
    if (p.offset > kMaxBytes || p.bytes > kMaxBytes || p.offset + p.bytes > region_size(p.region)) {
      return fail(describe_placement(p) + " ends past its region of " + std::to_string(region_size(p.region)) +
                  " bytes");
    }
    if (p.in_place_of >= 0) {
      if (static_cast<size_t>(p.in_place_of) >= n || static_cast<size_t>(p.in_place_of) == i) {
        return fail(describe_placement(p) + " is written in place over no valid value");
      }
      const ValuePlacement& s = values[p.in_place_of];
      auto pair = [&] { return describe_placement(p) + " written in place over " + describe_placement(s); };
      if (p.region != MemoryRegion::kFeatureMap || s.region != MemoryRegion::kFeatureMap) {
        return fail(pair() + ": only the feature map is written in place");
      }
      if (p.offset != s.offset || p.bytes > s.bytes) return fail(pair() + ": it must sit at its source's bytes");
      if (s.last_use != p.first_use)
        return fail(pair() + ": the source is still read after step " + std::to_string(p.first_use));
    }
    if (p.alias == MemoryAlias::kNone) continue;
    if (p.alias_source < 0 || static_cast<size_t>(p.alias_source) >= n || static_cast<size_t>(p.alias_source) == i) {
      return fail(describe_placement(p) + " is a " + memory_alias_name(p.alias) + " of no valid value");
    }
    const ValuePlacement& s = values[p.alias_source];
    auto pair = [&] {
      return describe_placement(p) + " as " + memory_alias_name(p.alias) + " of " + describe_placement(s);
    };
    if (s.region != p.region) return fail(pair() + ": regions differ");
    if (p.alias == MemoryAlias::kView && (p.offset != s.offset || p.bytes > s.bytes)) {
      return fail(pair() + ": a view must start at its source and stay inside it");
    }
    if (p.alias == MemoryAlias::kIdentical &&
        (p.region != MemoryRegion::kWeights || p.offset != s.offset || p.bytes != s.bytes)) {
      return fail(pair() + ": an identical weight must be a weight of the same size at its source's offset");
    }
    if (p.alias == MemoryAlias::kSlice && (p.offset < s.offset || p.offset + p.bytes > s.offset + s.bytes)) {
      return fail(pair() + ": a slice must lie inside its source");
    }
  }

  GE_RETURN_IF_ERROR(validate_clean_groups(plan));

  // Components: values sharing storage through any alias. Pure trees: the alias edges
  // that keep data (views, slices); in-place edges hand bytes to new data.
  DisjointSets component(n), pure(n);
  // In-place handovers: (pure tree of the source, of the result, step) -> the source's
  // bytes. Only values holding exactly those bytes may still be read at that step: the
  // op reads them element by element where it writes.
  std::map<std::tuple<size_t, size_t, int64_t>, std::pair<size_t, size_t>> handovers;
  std::vector<int64_t> pure_parent(n, -1);
  for (size_t i = 0; i < n; ++i) {
    const ValuePlacement& p = values[i];
    if (p.region == MemoryRegion::kUnplanned) continue;
    if (p.in_place_of >= 0) component.unite(i, static_cast<size_t>(p.in_place_of));
    if (p.alias != MemoryAlias::kNone) {
      component.unite(i, static_cast<size_t>(p.alias_source));
      pure.unite(i, static_cast<size_t>(p.alias_source));
      pure_parent[i] = p.alias_source;
    }
  }
  std::vector<int64_t> pure_depth(n, -1);
  for (size_t i = 0; i < n; ++i) {
    std::vector<size_t> path;
    size_t j = i;
    while (pure_depth[j] < 0 && pure_parent[j] >= 0 && path.size() <= n) {
      path.push_back(j);
      j = static_cast<size_t>(pure_parent[j]);
    }
    if (path.size() > n) return fail("alias cycle through " + describe_placement(values[i]));
    if (pure_depth[j] < 0) pure_depth[j] = 0;
    for (auto it = path.rbegin(); it != path.rend(); ++it) {
      pure_depth[*it] = pure_depth[j] + 1;
      j = *it;
    }
  }
  for (size_t i = 0; i < n; ++i) {
    const ValuePlacement& p = values[i];
    if (p.region != MemoryRegion::kUnplanned && p.in_place_of >= 0) {
      const ValuePlacement& source = values[p.in_place_of];
      handovers[{pure.find(static_cast<size_t>(p.in_place_of)), pure.find(i), p.first_use}] = {source.offset,
                                                                                               source.bytes};
    }
  }
  // Two members of one pure tree hold the same data where they overlap unless they are
  // different parts of a common ancestor: from their nearest common ancestor, at least
  // one of them must be reached through views only.
  auto same_data = [&](size_t a, size_t b) {
    bool a_sliced = false, b_sliced = false;
    while (a != b) {
      if (pure_depth[a] >= pure_depth[b]) {
        a_sliced |= values[a].alias == MemoryAlias::kSlice;
        a = static_cast<size_t>(pure_parent[a]);
      } else {
        b_sliced |= values[b].alias == MemoryAlias::kSlice;
        b = static_cast<size_t>(pure_parent[b]);
      }
    }
    return !a_sliced || !b_sliced;
  };
  auto legal_overlap = [&](size_t a, size_t b) {
    if (pure.find(a) == pure.find(b)) return same_data(a, b);
    auto handed_over = [&](size_t old_value, size_t new_value) {
      const ValuePlacement& o = values[old_value];
      if (o.last_use != values[new_value].first_use) return false;
      auto it = handovers.find({pure.find(old_value), pure.find(new_value), o.last_use});
      return it != handovers.end() && it->second == std::make_pair(o.offset, o.bytes);
    };
    return handed_over(a, b) || handed_over(b, a);
  };

  // Between components: extents and live ranges must be disjoint.
  // Planned values grouped by component: `grouped` holds each component's members
  // contiguously, `ranges` where each starts and ends.
  std::vector<size_t> grouped;
  for (size_t i = 0; i < n; ++i) {
    if (values[i].region != MemoryRegion::kUnplanned) grouped.push_back(i);
  }
  std::vector<size_t> root_of(n);
  for (size_t i : grouped) root_of[i] = component.find(i);
  std::stable_sort(grouped.begin(), grouped.end(), [&](size_t a, size_t b) { return root_of[a] < root_of[b]; });
  std::vector<std::pair<size_t, size_t>> ranges;
  for (size_t k = 0; k < grouped.size(); ++k) {
    if (k == 0 || root_of[grouped[k]] != root_of[grouped[k - 1]]) ranges.push_back({k, k});
    ranges.back().second = k + 1;
  }
  auto members = [&](size_t r) {
    return std::vector<size_t>(grouped.begin() + static_cast<int64_t>(ranges[r].first),
                               grouped.begin() + static_cast<int64_t>(ranges[r].second));
  };

  for (MemoryRegion region : {MemoryRegion::kWeights, MemoryRegion::kFeatureMap, MemoryRegion::kGraphIo}) {
    std::vector<SweepItem> items;
    std::vector<size_t> item_range;
    for (size_t r = 0; r < ranges.size(); ++r) {
      const size_t front = grouped[ranges[r].first];
      if (values[front].region != region) continue;
      SweepItem item{SIZE_MAX, 0, std::numeric_limits<int64_t>::max(), std::numeric_limits<int64_t>::min()};
      size_t end = 0;
      for (size_t k = ranges[r].first; k < ranges[r].second; ++k) {
        const ValuePlacement& v = values[grouped[k]];
        item.offset = std::min(item.offset, v.offset);
        end = std::max(end, v.offset + v.bytes);
        item.first = std::min(item.first, v.first_use);
        item.last = std::max(item.last, v.last_use);
      }
      item.bytes = end - item.offset;
      if (item.bytes > 0 && item.offset % region_alignment(region) != 0) {
        return fail("the buffer of " + describe_placement(values[front]) + " starts at " + std::to_string(item.offset) +
                    ", not a multiple of " + std::to_string(region_alignment(region)));
      }
      items.push_back(item);
      item_range.push_back(r);
    }
    if (auto conflict = find_conflict(items)) {
      const std::vector<size_t> a = members(item_range[conflict->first]);
      const std::vector<size_t> b = members(item_range[conflict->second]);
      for (size_t i : a) {
        for (size_t j : b) {
          const ValuePlacement& x = values[i];
          const ValuePlacement& y = values[j];
          if (bytes_overlap(x.offset, x.bytes, y.offset, y.bytes) &&
              lifetimes_overlap(x.first_use, x.last_use, y.first_use, y.last_use)) {
            return fail(describe_placement(x) + " and " + describe_placement(y) + " overlap in bytes while both live");
          }
        }
      }
      return fail("the buffers of " + describe_placement(values[a.front()]) + " and " +
                  describe_placement(values[b.front()]) + " overlap in bytes while both live");
    }
  }

  // Inside a component: only same-data pairs and in-place handovers may overlap. Members
  // by first use; each against the live ones before it (in that order, so that the pair
  // named is the first).
  constexpr size_t kIndexedComponent = 64;  // from this many members, find overlaps by bytes
  std::vector<size_t> live, overlapping;
  for (size_t r = 0; r < ranges.size(); ++r) {
    if (ranges[r].second - ranges[r].first < 2) continue;
    std::vector<size_t> list = members(r);
    std::sort(list.begin(), list.end(),
              [&](size_t a, size_t b) { return std::tie(values[a].first_use, a) < std::tie(values[b].first_use, b); });
    auto check = [&](size_t j, size_t i) -> Status {
      const ValuePlacement& p = values[i];
      const ValuePlacement& q = values[j];
      if (bytes_overlap(p.offset, p.bytes, q.offset, q.bytes) && !legal_overlap(j, i)) {
        return fail(describe_placement(q) + " and " + describe_placement(p) +
                    " overlap in bytes while both live and hold different data");
      }
      return Status::ok();
    };
    if (list.size() < kIndexedComponent) {
      live.clear();
      for (size_t i : list) {
        const ValuePlacement& p = values[i];
        live.erase(std::remove_if(live.begin(), live.end(), [&](size_t j) { return values[j].last_use < p.first_use; }),
                   live.end());
        for (size_t j : live) GE_RETURN_IF_ERROR(check(j, i));
        live.push_back(i);
      }
      continue;
    }
    std::vector<size_t> points;
    for (size_t i : list) {
      points.push_back(values[i].offset);
      points.push_back(values[i].offset + values[i].bytes);
    }
    std::sort(points.begin(), points.end());
    points.erase(std::unique(points.begin(), points.end()), points.end());
    LiveByteIndex index(std::move(points));
    for (size_t k = 0; k < list.size(); ++k) {
      const ValuePlacement& p = values[list[k]];
      if (p.bytes == 0) continue;  // overlaps nothing
      overlapping.clear();
      auto alive = [&](size_t at) { return values[list[at]].last_use >= p.first_use; };
      index.overlapping(p.offset, p.offset + p.bytes, alive, overlapping);
      std::sort(overlapping.begin(), overlapping.end());  // positions in `list`: by first use
      for (size_t at : overlapping) GE_RETURN_IF_ERROR(check(list[at], list[k]));
      index.insert(k, p.offset, p.offset + p.bytes);
    }
  }
  if (plan.streams.stream_count <= 1) return Status::ok();

  // Several streams: steps apart in the order may still run at the same time. Bytes are
  // shared only across a happens-before path (stream order, events).
  GE_ASSIGN_OR_RETURN(std::vector<StreamLifetime> life, placement_stream_lifetimes(plan));
  const StreamSteps steps(plan.streams);
  auto dies_at = [&](size_t old_value, int64_t step) {
    const StreamLifetime until{steps.done_at(step), steps.done_at(step), 0};
    return freed_before(life[old_value], until);
  };
  auto separated = [&](const StreamLifetime& a, const StreamLifetime& b) {
    return freed_before(a, b) || freed_before(b, a);
  };
  for (size_t i = 0; i < n; ++i) {
    const ValuePlacement& p = values[i];
    if (p.region == MemoryRegion::kUnplanned || p.in_place_of < 0) continue;
    if (!dies_at(static_cast<size_t>(p.in_place_of), p.first_use)) {
      return fail(describe_placement(p) + " written in place over " + describe_placement(values[p.in_place_of]) +
                  ": another stream may still read the source then");
    }
  }
  // Between components.
  std::vector<SweepItem> items;
  std::vector<StreamLifetime> component_life;
  std::vector<size_t> item_range;
  for (size_t r = 0; r < ranges.size(); ++r) {
    if (values[grouped[ranges[r].first]].region != MemoryRegion::kFeatureMap) continue;
    SweepItem item{SIZE_MAX, 0, 0, 0};
    size_t end = 0;
    StreamLifetime joint = life[grouped[ranges[r].first]];
    for (size_t k = ranges[r].first; k < ranges[r].second; ++k) {
      const ValuePlacement& v = values[grouped[k]];
      item.offset = std::min(item.offset, v.offset);
      end = std::max(end, v.offset + v.bytes);
      clock_min(joint.made_after, life[grouped[k]].made_after);
      clock_max(joint.freed_after, life[grouped[k]].freed_after);
    }
    item.bytes = end - item.offset;
    items.push_back(item);
    component_life.push_back(std::move(joint));
    item_range.push_back(r);
  }
  auto conflict = find_conflict_by_offset(
      items, [&](size_t a, size_t b) { return !separated(component_life[a], component_life[b]); });
  if (conflict) {
    for (size_t i : members(item_range[conflict->first])) {
      for (size_t j : members(item_range[conflict->second])) {
        const ValuePlacement& x = values[i];
        const ValuePlacement& y = values[j];
        if (bytes_overlap(x.offset, x.bytes, y.offset, y.bytes) && !separated(life[i], life[j])) {
          return fail(describe_placement(x) + " and " + describe_placement(y) +
                      " overlap in bytes while no stream order or event separates them");
        }
      }
    }
    return fail("the buffers of " + describe_placement(values[grouped[ranges[item_range[conflict->first]].first]]) +
                " and " + describe_placement(values[grouped[ranges[item_range[conflict->second]].first]]) +
                " overlap in bytes while no stream order or event separates them");
  }
  // Inside a component: same data, a handover in place that every reader of the old
  // value happens before, or lifetimes separated.
  for (size_t r = 0; r < ranges.size(); ++r) {
    const std::vector<size_t> list = members(r);
    for (size_t a = 0; a < list.size(); ++a) {
      for (size_t b = a + 1; b < list.size(); ++b) {
        const size_t i = list[a], j = list[b];
        const ValuePlacement& x = values[i];
        const ValuePlacement& y = values[j];
        if (!bytes_overlap(x.offset, x.bytes, y.offset, y.bytes) || separated(life[i], life[j])) continue;
        if (pure.find(i) == pure.find(j) && same_data(i, j)) continue;
        const bool handed_over =
            (legal_overlap(i, j) && dies_at(i, y.first_use)) || (legal_overlap(j, i) && dies_at(j, x.first_use));
        if (handed_over) continue;
        return fail(describe_placement(x) + " and " + describe_placement(y) +
                    " overlap in bytes, hold different data, and no stream order or event separates them");
      }
    }
  }
  return Status::ok();
}

}  // namespace ge
