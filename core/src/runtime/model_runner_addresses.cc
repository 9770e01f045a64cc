// Where a model runner's values live: a location's address, the feature map's allocation
// and moves, and the memory limit on the regions it allocates (ModelRunner::Impl).
#include "model_runner_impl.h"

#include <algorithm>

#include "ge/memory_limit.h"

namespace ge {

const void* ModelRunner::Impl::address(const Location& location, std::span<const void* const> inputs,
                                       std::span<void* const> outputs) const {
  switch (location.region) {
    case Location::Region::kArena:
      return arena != nullptr ? static_cast<const char*>(arena) + location.offset : nullptr;
    case Location::Region::kWeights:
      return weight_at(location.offset);
    case Location::Region::kInput:
      return static_cast<const char*>(inputs[location.index]) + location.offset;
    case Location::Region::kOutput:
      return static_cast<const char*>(outputs[location.index]) + location.offset;
    case Location::Region::kNone:
      break;
  }
  return nullptr;
}

void* ModelRunner::Impl::own_address(const Location& location) const {
  if (location.region == Location::Region::kArena)
    return arena != nullptr ? static_cast<char*>(arena) + location.offset : nullptr;
  if (location.region == Location::Region::kWeights) return const_cast<char*>(weight_at(location.offset));
  return nullptr;
}

Status ModelRunner::Impl::allocate_arena() {
  if (caller_feature_map) return Status::ok();
  // Counted with what the session holds already (its weights, other runners' arenas).
  if (output_pool) {
    GE_ASSIGN_OR_RETURN(arena_reservation, output_pool->reserve("the task sink's feature-map arena of graph '" +
                                                                    graph->name() + "'",
                                                                arena_bytes));
  }
  GE_ASSIGN_OR_RETURN(arena, device->allocate(std::max<size_t>(arena_bytes, 1), arena_alignment));
  return Status::ok();
}

Status ModelRunner::Impl::move_feature_map(void* base) {
  arena = base;
  for (const ArenaSlot& slot : arena_slots) {
    if (slot.read != nullptr) *slot.read = static_cast<const char*>(base) + slot.offset;
    if (slot.write != nullptr) *slot.write = static_cast<char*>(base) + slot.offset;
  }
  for (const PatchedCopy& task : arena_tasks) {
    GE_RETURN_IF_ERROR(captured->update_task_group(task.group, {tasks[task.stream].data() + task.task, 1}));
  }
  return Status::ok();
}

Status ModelRunner::Impl::check_region(const std::string& what, size_t bytes) const {
  const size_t limit = output_pool ? output_pool->memory_limit() : 0;
  return check_memory_limit("the task sink's " + what + " of graph '" + graph->name() + "'", bytes, limit);
}

}  // namespace ge
