#pragma once
/// An ordered queue of tasks on a backend's device.

#include <span>

#include "ge/status.h"
#include "ge/plugin_api/task.h"

namespace ge {

class Stream {
 public:
  virtual ~Stream() = default;
  /// Enqueues `tasks` in order. May run them before returning (synchronous backends).
  /// A failing kernel makes this or the next synchronize() return its error.
  virtual Status submit(std::span<const Task> tasks) = 0;
  /// Waits for every submitted task; returns the first error since the last call.
  virtual Status synchronize() = 0;
  /// Runs `tasks` and waits for them and everything submitted before: submit() then
  /// synchronize(). A backend may run them on the calling thread when the stream is
  /// idle (the per-op executor dispatches one node at a time this way).
  virtual Status run(std::span<const Task> tasks) {
    GE_RETURN_IF_ERROR(submit(tasks));
    return synchronize();
  }
};

}  // namespace ge
