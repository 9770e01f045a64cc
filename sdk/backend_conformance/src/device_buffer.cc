#include "device_buffer.h"

#include <cstring>
#include <random>
#include <string>

namespace ge::backend_conformance {

Result<DeviceBuffer> DeviceBuffer::allocate(Device& device, size_t bytes, size_t alignment) {
  Result<void*> pointer = device.allocate(bytes, alignment);
  if (!pointer.is_ok()) {
    return pointer.status().with_context("device '" + device.name() + "': allocate(" + std::to_string(bytes) + ", " +
                                         std::to_string(alignment) + ")");
  }
  if (*pointer == nullptr && bytes > 0) {
    return internal_error("device '" + device.name() + "': allocate(" + std::to_string(bytes) +
                          ") returned ok with a null address");
  }
  DeviceBuffer buffer;
  buffer.device_ = &device;
  buffer.pointer_ = *pointer;
  buffer.bytes_ = bytes;
  return buffer;
}

DeviceBuffer& DeviceBuffer::operator=(DeviceBuffer&& other) noexcept {
  if (this != &other) {
    reset();
    device_ = std::exchange(other.device_, nullptr);
    pointer_ = std::exchange(other.pointer_, nullptr);
    bytes_ = std::exchange(other.bytes_, 0);
  }
  return *this;
}

void DeviceBuffer::reset() {
  if (device_ != nullptr && pointer_ != nullptr) device_->deallocate(pointer_);
  device_ = nullptr;
  pointer_ = nullptr;
  bytes_ = 0;
}

Status DeviceBuffer::write(std::span<const std::byte> data, size_t offset) {
  if (offset + data.size() > bytes_) {
    return internal_error("conformance kit: write of " + std::to_string(data.size()) + " bytes at " +
                          std::to_string(offset) + " past a buffer of " + std::to_string(bytes_));
  }
  return device_->copy_to_device(at(offset), data.data(), data.size());
}

Result<std::vector<std::byte>> DeviceBuffer::read(size_t bytes, size_t offset) const {
  if (offset + bytes > bytes_) {
    return internal_error("conformance kit: read of " + std::to_string(bytes) + " bytes at " + std::to_string(offset) +
                          " past a buffer of " + std::to_string(bytes_));
  }
  std::vector<std::byte> data(bytes);
  GE_RETURN_IF_ERROR(device_->copy_to_host(data.data(), at(offset), bytes));
  return data;
}

Status DeviceBuffer::fill(std::byte value) {
  const std::vector<std::byte> data(bytes_, value);
  return write(data);
}

std::vector<std::byte> random_bytes(size_t count, uint32_t seed) {
  std::mt19937 rng(seed);
  std::vector<std::byte> data(count);
  size_t i = 0;
  for (; i + 4 <= count; i += 4) {
    const uint32_t word = rng();
    std::memcpy(&data[i], &word, 4);
  }
  for (; i < count; ++i) data[i] = static_cast<std::byte>(rng());
  return data;
}

}  // namespace ge::backend_conformance
