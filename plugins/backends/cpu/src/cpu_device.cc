#include "cpu_device.h"

#include <pthread.h>

#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <new>
#include <string>
#include <system_error>

#include "cpu_event.h"
#include "cpu_stream.h"
#include "ge/memory_limit.h"

namespace ge {
namespace {

Status copy(void* destination, const void* source, size_t bytes, const char* direction) {
  if (bytes == 0) return Status::ok();
  if (destination == nullptr || source == nullptr) {
    return invalid_argument(std::string("cpu device: ") + direction + " copy of " + std::to_string(bytes) +
                            " bytes with a null address");
  }
  std::memmove(destination, source, bytes);
  return Status::ok();
}

}  // namespace

Result<CpuDeviceOptions> CpuDeviceOptions::from_options(const PluginOptions& options) {
  CpuDeviceOptions result;
  result.synchronous = options.get_bool("synchronous", false);
  const int64_t threads = options.get_int("threads", 0);
  if (threads < 0) {
    return invalid_argument("cpu backend: option threads = " + std::to_string(threads) +
                            " is negative; use 0 for one worker per hardware thread");
  }
  result.threads = static_cast<size_t>(threads);
  return result;
}

Status CpuDevice::configure(const CpuDeviceOptions& options) {
  std::lock_guard<std::mutex> lock(mutex_);
  if (streams_created_) {
    return invalid_argument("cpu device: cannot change its options once a stream exists");
  }
  options_ = options;
  return Status::ok();
}

Result<void*> CpuDevice::allocate(size_t bytes, size_t alignment) {
  if (alignment == 0 || (alignment & (alignment - 1)) != 0) {
    return invalid_argument("cpu device: alignment " + std::to_string(alignment) + " is not a power of two");
  }
  // posix_memalign needs a multiple of sizeof(void*).
  if (alignment < sizeof(void*)) alignment = sizeof(void*);
  void* pointer = nullptr;
  const int error = posix_memalign(&pointer, alignment, bytes == 0 ? 1 : bytes);
  if (error != 0 || pointer == nullptr) {
    return internal_error("cpu device: cannot allocate " + std::to_string(bytes) + " bytes aligned to " +
                          std::to_string(alignment) + ": " + std::strerror(error));
  }
  return pointer;
}

void CpuDevice::deallocate(void* pointer) { std::free(pointer); }

Status CpuDevice::copy_to_device(void* device_destination, const void* host_source, size_t bytes) {
  return copy(device_destination, host_source, bytes, "host-to-device");
}

Status CpuDevice::copy_to_host(void* host_destination, const void* device_source, size_t bytes) {
  return copy(host_destination, device_source, bytes, "device-to-host");
}

namespace {

/// The stack a new thread gets (RLIMIT_STACK, 8 MiB by default), reserved when it starts.
size_t default_thread_stack_bytes() {
  pthread_attr_t attributes;
  size_t bytes = 0;
  if (pthread_attr_init(&attributes) != 0) return 0;
  if (pthread_attr_getstacksize(&attributes, &bytes) != 0) bytes = 0;
  pthread_attr_destroy(&attributes);
  return bytes;
}

}  // namespace

Result<std::unique_ptr<Stream>> CpuDevice::create_stream() {
  std::lock_guard<std::mutex> lock(mutex_);
  streams_created_ = true;
  if (options_.synchronous) {
    return std::unique_ptr<Stream>(std::make_unique<CpuStream>(nullptr, tracer_, tracer_->add_stream()));
  }
  if (pool_ != nullptr && !pool_->owned_by_this_process()) {
    // Forked after the pool started: its workers are the parent's. Streams created before
    // the fork keep it (they run inline, see CpuWorkerPool); new ones get a fresh pool.
    pool_ = nullptr;
  }
  if (pool_ == nullptr) {
    const size_t workers = options_.threads != 0 ? options_.threads : CpuWorkerPool::default_thread_count();
    try {
      pool_ = std::make_shared<CpuWorkerPool>(workers);
    } catch (const std::system_error& error) {
      return invalid_argument("cpu: out of memory or threads: cannot start the device's " + std::to_string(workers) +
                              " worker threads, each with a stack of " + format_bytes(default_thread_stack_bytes()) +
                              " of address space (" + error.what() + ")");
    }
  }
  return std::unique_ptr<Stream>(std::make_unique<CpuStream>(pool_, tracer_, tracer_->add_stream()));
}

Result<std::unique_ptr<Event>> CpuDevice::create_event() {
  return std::unique_ptr<Event>(std::make_unique<CpuEvent>());
}

Status CpuDevice::set_task_tracing(bool enabled) {
  tracer_->set_enabled(enabled);
  return Status::ok();
}

std::vector<TaskTraceRecord> CpuDevice::take_task_trace() { return tracer_->take(); }

}  // namespace ge
