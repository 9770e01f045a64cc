#pragma once
/// Kernels a plugin adds to a backend it does not own: how a custom op (an op library's
/// schema) gets a kernel on `cpu`, or a vendor adds a faster kernel for one standard op.
/// The plugin host puts a backend's kernel libraries in front of the backend itself
/// (core/src/plugin_host/kernel_library_backend.h).

#include <string>

#include "ge/plugin_api/backend.h"
#include "ge/graph.h"
#include "ge/plugin_api/kernel.h"
#include "ge/status.h"

namespace ge {

/// Kernels for one backend. Implemented by op_library plugins (Registrar::add_kernel_library).
/// Kernels run on the backend's device: their addresses are that device's memory, so a
/// library for a backend whose memory is not host-accessible must know its device.
class KernelLibrary {
 public:
  virtual ~KernelLibrary() = default;
  virtual std::string name() const = 0;
  /// The name of the backend these kernels run on, e.g. "cpu".
  virtual std::string backend() const = 0;
  /// Whether this library has a kernel for `node` with its current descs. A library that
  /// answers false leaves the node to the next library or to the backend.
  virtual bool supports(const Node& node) const = 0;
  /// Prepares the kernel for `node` (static descs; initializer inputs expose their data
  /// through Value::constant()). Called only when supports(node) was true.
  virtual Result<PreparedKernel> prepare(const Node& node) const = 0;
};

}  // namespace ge
