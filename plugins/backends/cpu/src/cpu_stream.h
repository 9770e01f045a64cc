#pragma once
/// The cpu backend's stream: runs each submitted task on the calling thread, in order,
/// before submit() returns. Threading and asynchronous streams come later.

#include <span>

#include "ge/backend.h"

namespace ge {

class CpuStream final : public Stream {
 public:
  /// Runs `tasks` in order and stops at the first failure: a kernel's non-zero return
  /// becomes an error naming the kernel and its code. Later tasks do not run.
  Status submit(std::span<const Task> tasks) override;
  /// Nothing is ever pending; always ok (submit() already reported any error).
  Status synchronize() override { return Status::ok(); }
};

}  // namespace ge
