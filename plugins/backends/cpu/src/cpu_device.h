#pragma once
/// The cpu backend's device: host memory (device addresses are host addresses), copies
/// are memcpy, streams run synchronously.

#include <cstddef>
#include <memory>
#include <string>

#include "ge/backend.h"

namespace ge {

class CpuDevice final : public Device {
 public:
  std::string name() const override { return "cpu"; }
  bool host_accessible() const override { return true; }
  /// Aligned host memory; `alignment` must be a power of two. Zero bytes still give a
  /// distinct non-null address. Thread-safe.
  Result<void*> allocate(size_t bytes, size_t alignment = 64) override;
  /// Frees memory from allocate(); null is ignored.
  void deallocate(void* pointer) override;
  Status copy_to_device(void* device_destination, const void* host_source, size_t bytes) override;
  Status copy_to_host(void* host_destination, const void* device_source, size_t bytes) override;
  Result<std::unique_ptr<Stream>> create_stream() override;
  Result<std::unique_ptr<Event>> create_event() override;
};

}  // namespace ge
