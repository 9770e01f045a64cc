#include "toy_device.h"

#include <cstdint>
#include <cstring>
#include <utility>

#include "toy_stream.h"

namespace toy {
namespace {

// Device addresses start here: bits 60-62 set make the address non-canonical on x86-64
// (and an unmapped low address on AArch64, whose loads ignore the top byte).
constexpr uintptr_t kDeviceAddressBase = uintptr_t{0x7} << 60;

}  // namespace

ToyDevice::ToyDevice(size_t capacity_bytes)
    : capacity_(capacity_bytes), pool_(new std::byte[capacity_bytes]) {}  // untouched pages cost nothing

ge::Result<void*> ToyDevice::allocate(size_t bytes, size_t alignment) {
  if (alignment == 0 || (alignment & (alignment - 1)) != 0) {
    return ge::invalid_argument("toy: alignment " + std::to_string(alignment) + " is not a power of two");
  }
  const size_t size = bytes == 0 ? 1 : bytes;
  std::lock_guard<std::mutex> lock(mutex_);
  size_t offset = 0;
  for (const auto& [start, length] : allocations_) {
    if (start >= offset + size) break;
    offset = (start + length + alignment - 1) / alignment * alignment;
  }
  if (offset + size > capacity_) {
    return ge::invalid_argument("toy: out of device memory: " + std::to_string(bytes) + " bytes do not fit in the " +
                                std::to_string(capacity_) + "-byte pool");
  }
  allocations_[offset] = size;
  return reinterpret_cast<void*>(kDeviceAddressBase + offset);
}

void ToyDevice::deallocate(void* pointer) {
  std::lock_guard<std::mutex> lock(mutex_);
  allocations_.erase(reinterpret_cast<uintptr_t>(pointer) - kDeviceAddressBase);  // not ours: no-op
}

std::byte* ToyDevice::host_view(const void* address, size_t bytes) const {
  const uintptr_t offset = reinterpret_cast<uintptr_t>(address) - kDeviceAddressBase;  // wraps when below
  if (offset > capacity_ || bytes > capacity_ - offset) return nullptr;
  return pool_.get() + offset;
}

ge::Status ToyDevice::copy_to_device(void* device_destination, const void* host_source, size_t bytes) {
  if (bytes == 0) return ge::Status::ok();
  std::byte* destination = host_view(device_destination, bytes);
  if (destination == nullptr || host_source == nullptr) {
    return ge::invalid_argument("toy: host-to-device copy of " + std::to_string(bytes) +
                                " bytes to an address outside device memory");
  }
  std::memcpy(destination, host_source, bytes);
  return ge::Status::ok();
}

ge::Status ToyDevice::copy_to_host(void* host_destination, const void* device_source, size_t bytes) {
  if (bytes == 0) return ge::Status::ok();
  const std::byte* source = host_view(device_source, bytes);
  if (source == nullptr || host_destination == nullptr) {
    return ge::invalid_argument("toy: device-to-host copy of " + std::to_string(bytes) +
                                " bytes from an address outside device memory");
  }
  std::memcpy(host_destination, source, bytes);
  return ge::Status::ok();
}

ge::Result<std::unique_ptr<ge::Stream>> ToyDevice::create_stream() {
  std::lock_guard<std::mutex> lock(mutex_);
  return std::unique_ptr<ge::Stream>(std::make_unique<ToyStream>(*this, next_stream_id_++));
}

ge::Result<std::unique_ptr<ge::Event>> ToyDevice::create_event() {
  return std::unique_ptr<ge::Event>(std::make_unique<ToyEvent>());
}

ge::Status ToyDevice::set_task_tracing(bool enabled) {
  std::lock_guard<std::mutex> lock(mutex_);
  if (enabled) {
    trace_.clear();
    trace_epoch_ = std::chrono::steady_clock::now();
  }
  tracing_ = enabled;
  return ge::Status::ok();
}

std::vector<ge::TaskTraceRecord> ToyDevice::take_task_trace() {
  std::lock_guard<std::mutex> lock(mutex_);
  return std::exchange(trace_, {});
}

void ToyDevice::trace(int stream, const char* name, std::chrono::steady_clock::time_point start,
                      std::chrono::steady_clock::time_point end) {
  std::lock_guard<std::mutex> lock(mutex_);
  if (!tracing_) return;
  const auto since_epoch = [this](auto time) {
    return std::chrono::duration<double, std::nano>(time - trace_epoch_).count();
  };
  trace_.push_back(ge::TaskTraceRecord{stream, name, since_epoch(start), since_epoch(end)});
}

}  // namespace toy
