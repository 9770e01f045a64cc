#pragma once
/// One block of a device's memory, freed when the owner goes.

#include <cstddef>
#include <cstdint>
#include <span>
#include <utility>
#include <vector>

#include "ge/plugin_api/backend.h"
#include "ge/status.h"

namespace ge::backend_conformance {

class DeviceBuffer {
 public:
  DeviceBuffer() = default;
  static Result<DeviceBuffer> allocate(Device& device, size_t bytes, size_t alignment = 64);
  ~DeviceBuffer() { reset(); }
  DeviceBuffer(DeviceBuffer&& other) noexcept { *this = std::move(other); }
  DeviceBuffer& operator=(DeviceBuffer&& other) noexcept;
  DeviceBuffer(const DeviceBuffer&) = delete;
  DeviceBuffer& operator=(const DeviceBuffer&) = delete;

  void* get() const { return pointer_; }
  size_t size() const { return bytes_; }
  /// The address `offset` bytes in.
  void* at(size_t offset) const { return static_cast<std::byte*>(pointer_) + offset; }

  /// Copies `data` to `offset` bytes in (Device::copy_to_device).
  Status write(std::span<const std::byte> data, size_t offset = 0);
  /// Copies `bytes` from `offset` bytes in back to the host (Device::copy_to_host).
  Result<std::vector<std::byte>> read(size_t bytes, size_t offset = 0) const;
  Result<std::vector<std::byte>> read() const { return read(bytes_); }
  /// Sets every byte to `value` through a host copy.
  Status fill(std::byte value);

  void reset();

 private:
  Device* device_ = nullptr;
  void* pointer_ = nullptr;
  size_t bytes_ = 0;
};

/// `count` bytes from a generator seeded with `seed`.
std::vector<std::byte> random_bytes(size_t count, uint32_t seed);

}  // namespace ge::backend_conformance
