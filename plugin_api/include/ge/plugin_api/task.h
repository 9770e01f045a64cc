#pragma once
/// The tasks a stream runs: kernel launches, copies, memsets and event records and waits.

#include <cstddef>
#include <cstdint>
#include <variant>

#include "ge/plugin_api/kernel.h"

namespace ge {

class Event;

/// Run a prepared kernel with the given arguments.
struct KernelTask {
  KernelFunction function = nullptr;
  KernelArgs args;
  const char* name = "";  ///< static lifetime (owned by the PreparedKernel's holder)
  /// The node it runs ("Gather 'idx'"), for error messages; null when none. Lives as long
  /// as the task list.
  const char* node = nullptr;
};
/// Copy `bytes` between device addresses (host addresses on host-memory devices).
struct MemcpyTask {
  void* destination = nullptr;
  const void* source = nullptr;
  size_t bytes = 0;
};
struct EventRecordTask { Event* event = nullptr; };
struct EventWaitTask { Event* event = nullptr; };
/// Set `bytes` at a device address to `value` (atomic clean zeroes the memory kernels
/// accumulate into with these: ZeroedMemory).
struct MemsetTask {
  void* destination = nullptr;
  size_t bytes = 0;
  uint8_t value = 0;
};

/// The unit a stream runs; a compiled model is a list of these per stream.
using Task = std::variant<KernelTask, MemcpyTask, EventRecordTask, EventWaitTask, MemsetTask>;

}  // namespace ge
