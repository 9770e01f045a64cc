#include "cpu_backend.h"

#include <exception>
#include <new>

#include "ge/cpu_kernels/kernel_library.h"

namespace ge {

bool CpuBackend::supports(const Node& node, std::string* reason) const {
  try {
    return cpu_kernels::supports(node, name(), reason);
  } catch (const std::exception& error) {
    if (reason != nullptr) *reason = node.describe() + ": cpu backend: " + error.what();
    return false;
  }
}

Result<PreparedKernel> CpuBackend::prepare(const Node& node) const {
  // No exception may leave the plugin; the library only throws std::bad_alloc.
  try {
    return cpu_kernels::prepare(node, name());
  } catch (const std::bad_alloc&) {
    return internal_error(node.describe() + ": cpu backend ran out of memory preparing the kernel");
  } catch (const std::exception& error) {
    return internal_error(node.describe() + ": cpu backend failed to prepare the kernel: " + error.what());
  }
}

}  // namespace ge
