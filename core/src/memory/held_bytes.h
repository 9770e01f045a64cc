#pragma once
// The bytes a prepared kernel holds (PreparedKernel::held_bytes, e.g. a backend's
// prepacked weights), counted against a session's memory limit for the kernel's life.

#include <memory>
#include <string>
#include <utility>

#include "ge/plugin_api/kernel.h"
#include "ge/status.h"
#include "ge/tensor_pool.h"

namespace ge::detail {

/// Reserves `kernel.held_bytes` in `pool` (null: no limit) until the kernel's params go;
/// when they do not fit, kInvalidArgument "the prepacked weights of <who> needs ...", and the
/// caller drops the kernel, which frees what it held.
inline Status count_held_bytes(PreparedKernel& kernel, TensorPool* pool, const std::string& who) {
  if (pool == nullptr || kernel.held_bytes == 0) return Status::ok();
  GE_ASSIGN_OR_RETURN(std::shared_ptr<void> reservation,
                      pool->reserve("the prepacked weights of " + who, kernel.held_bytes));
  auto both = std::make_shared<std::pair<std::shared_ptr<const void>, std::shared_ptr<void>>>(kernel.params,
                                                                                             std::move(reservation));
  const void* params = both->first.get();
  kernel.params = std::shared_ptr<const void>(both, params);
  return Status::ok();
}

}  // namespace ge::detail
