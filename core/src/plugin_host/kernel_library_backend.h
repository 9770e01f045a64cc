#pragma once
/// A backend with kernel libraries (ge/plugin_api/kernel_library.h) in front of it, so the executor,
/// the task sink and capture run their kernels exactly as the backend's own.

#include <memory>
#include <string>
#include <vector>

#include "ge/plugin_api/backend.h"
#include "ge/plugin_api/kernel_library.h"
#include "ge/status.h"

namespace ge {

/// A backend with kernel libraries in front: a node a library supports runs that
/// library's kernel (the latest library added first), in plain format; every other node
/// and the device are the backend's.
class KernelLibraryBackend final : public Backend {
 public:
  KernelLibraryBackend(std::shared_ptr<Backend> backend, std::vector<std::shared_ptr<const KernelLibrary>> libraries);

  std::string name() const override { return backend_->name(); }
  bool supports(const Node& node, std::string* reason) const override;
  Result<PreparedKernel> prepare(const Node& node) const override;
  Device& device() override { return backend_->device(); }
  FormatCapability format_capability(const Node& node) const override;
  Status set_intra_op_threads(int threads) override { return backend_->set_intra_op_threads(threads); }
  Status set_precision(Precision precision) override { return backend_->set_precision(precision); }
  bool has_native_arithmetic(DataType type) const override { return backend_->has_native_arithmetic(type); }

  const Backend& wrapped() const { return *backend_; }

 private:
  const KernelLibrary* library_for(const Node& node) const;

  std::shared_ptr<Backend> backend_;
  std::vector<std::shared_ptr<const KernelLibrary>> libraries_;
};

}  // namespace ge
