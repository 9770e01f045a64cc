// A backend with kernel libraries in front (core/src/plugin_host/kernel_library_backend.h): each node to the library that has its kernel.
#include "kernel_library_backend.h"

#include <utility>

namespace ge {

KernelLibraryBackend::KernelLibraryBackend(std::shared_ptr<Backend> backend,
                                           std::vector<std::shared_ptr<const KernelLibrary>> libraries)
    : backend_(std::move(backend)), libraries_(std::move(libraries)) {}

const KernelLibrary* KernelLibraryBackend::library_for(const Node& node) const {
  for (auto it = libraries_.rbegin(); it != libraries_.rend(); ++it) {
    if ((*it)->supports(node)) return it->get();
  }
  return nullptr;
}

bool KernelLibraryBackend::supports(const Node& node, std::string* reason) const {
  return library_for(node) != nullptr || backend_->supports(node, reason);
}

Result<PreparedKernel> KernelLibraryBackend::prepare(const Node& node) const {
  if (const KernelLibrary* library = library_for(node)) {
    Result<PreparedKernel> kernel = library->prepare(node);
    if (!kernel.is_ok()) return kernel.status().with_context("kernel library '" + library->name() + "'");
    if (kernel.value().function == nullptr) {
      return plugin_error("kernel library '" + library->name() + "' prepared no function for " + node.describe());
    }
    return kernel;
  }
  return backend_->prepare(node);
}

FormatCapability KernelLibraryBackend::format_capability(const Node& node) const {
  return library_for(node) != nullptr ? FormatCapability{} : backend_->format_capability(node);
}

}  // namespace ge
