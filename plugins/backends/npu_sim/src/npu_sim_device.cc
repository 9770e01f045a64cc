#include "npu_sim_device.h"

#include <algorithm>
#include <cstring>
#include <deque>
#include <new>
#include <type_traits>
#include <variant>

#include "ge/memory_limit.h"
#include "ge/reference_kernels/kernel_library.h"

namespace ge {

int npu_sim_kernel_entry(const KernelArgs& args) {
  const auto* params = static_cast<const NpuSimKernelParams*>(args.params);
  if (!params->span.empty()) {
    for (const KernelTask& task : params->span) {
      if (const int code = task.function(task.args); code != 0) return code;
    }
    return 0;
  }
  KernelArgs inner = args;
  inner.params = params->inner_params.get();
  return params->inner(inner);
}

/// Records are numbered when enqueued; a wait captures the latest number at enqueue
/// time and can run once that record has run (CUDA/ACL event semantics).
class NpuSimEvent final : public Event {
 public:
  explicit NpuSimEvent(NpuSimDevice& device) : device_(device) {}
  Status synchronize() override {
    return device_.run_until([this] { return completed_ >= enqueued_; }).with_context("npu_sim: event synchronize");
  }
  NpuSimDevice& device_;
  uint64_t enqueued_ = 0;   // records enqueued
  uint64_t completed_ = 0;  // the latest record that ran
  double time_ns_ = 0;      // simulated time of that record
};

class NpuSimStream final : public Stream {
 public:
  NpuSimStream(NpuSimDevice& device, int id) : device_(device), id_(id) {}
  ~NpuSimStream() override { device_.forget(this); }

  Status submit(std::span<const Task> tasks) override {
    for (const Task& task : tasks) {
      GE_RETURN_IF_ERROR(validate(task, submitted_));
      if (queue_.size() >= device_.config_.queue_depth) {
        // The queue is full: the device must make room before the host can go on.
        GE_RETURN_IF_ERROR(device_.run_until([this] { return queue_.size() < device_.config_.queue_depth; })
                               .with_context("npu_sim: stream " + std::to_string(id_) + " queue full (depth " +
                                             std::to_string(device_.config_.queue_depth) + ")"));
      }
      Queued queued{task, submitted_++, 0};
      if (const auto* record = std::get_if<EventRecordTask>(&task)) {
        queued.sequence = ++static_cast<NpuSimEvent*>(record->event)->enqueued_;
      } else if (const auto* wait = std::get_if<EventWaitTask>(&task)) {
        queued.sequence = static_cast<NpuSimEvent*>(wait->event)->enqueued_;
      }
      queue_.push_back(queued);
    }
    return Status::ok();
  }

  Status synchronize() override {
    Status status = device_.run_until([this] { return queue_.empty(); })
                        .with_context("npu_sim: stream " + std::to_string(id_) + " synchronize");
    if (status.is_ok() && !error_.is_ok()) status = error_;
    error_ = Status::ok();
    return status;
  }

 private:
  friend class NpuSimDevice;
  struct Queued {
    Task task;
    uint64_t index;     // submission index on this stream, for messages
    uint64_t sequence;  // record: its number; wait: the record it waits for
  };

  Status validate(const Task& task, uint64_t index) const {
    const std::string where = "npu_sim: stream " + std::to_string(id_) + " task " + std::to_string(index);
    if (const auto* kernel = std::get_if<KernelTask>(&task)) {
      if (kernel->function != &npu_sim_kernel_entry || kernel->args.params == nullptr) {
        return invalid_argument(where + " (kernel '" + std::string(kernel->name ? kernel->name : "") +
                                "') was not prepared by the npu_sim backend");
      }
    } else if (const auto* record = std::get_if<EventRecordTask>(&task)) {
      if (record->event == nullptr) return invalid_argument(where + ": event record without an event");
    } else if (const auto* wait = std::get_if<EventWaitTask>(&task)) {
      if (wait->event == nullptr) return invalid_argument(where + ": event wait without an event");
    } else if (const auto* memset = std::get_if<MemsetTask>(&task)) {
      if (memset->bytes > 0 && memset->destination == nullptr) return invalid_argument(where + ": memset to a null address");
    }
    return Status::ok();
  }

  NpuSimDevice& device_;
  int id_;
  uint64_t submitted_ = 0;
  std::deque<Queued> queue_;
  double clock_ns_ = 0;
  Status error_;
};

NpuSimDevice::NpuSimDevice(NpuSimConfig config) : config_(config) {}

Status NpuSimDevice::reserve_memory() {
  if (base_ != nullptr) return Status::ok();
  // Untouched pages of the block cost no memory, but its address space counts against
  // `ulimit -v` from the start: hence on first use, not when the plugin registers (every
  // ge.Session loads every plugin, most never run on npu_sim). 4 KiB alignment like a
  // real device heap.
  try {
    memory_.reset(new std::byte[config_.capacity_bytes + 4096]);
  } catch (const std::bad_alloc&) {
    return invalid_argument("npu_sim: out of host memory: cannot reserve the simulated device memory of " +
                            format_bytes(config_.capacity_bytes) + " (" + std::to_string(config_.capacity_bytes) +
                            " bytes; the capacity_mib option sets it)");
  }
  const auto raw = reinterpret_cast<uintptr_t>(memory_.get());
  base_ = memory_.get() + ((4096 - raw % 4096) % 4096);
  return Status::ok();
}

NpuSimDevice::~NpuSimDevice() = default;

double NpuSimDevice::now_ns() const {
  double now = 0;
  for (const NpuSimStream* s : streams_) now = std::max(now, s->clock_ns_);
  return now;
}

Result<void*> NpuSimDevice::allocate(size_t bytes, size_t alignment) {
  if (alignment == 0 || (alignment & (alignment - 1)) != 0 || alignment > 4096) {
    return invalid_argument("npu_sim: alignment " + std::to_string(alignment) + " is not a power of two up to 4096");
  }
  GE_RETURN_IF_ERROR(reserve_memory());
  const size_t size = std::max<size_t>(bytes, 1);
  size_t offset = 0;
  for (const auto& [start, length] : allocations_) {
    if (start >= offset + size) break;
    offset = (start + length + alignment - 1) / alignment * alignment;
  }
  // Compared without `offset + size`, which wraps for a request near SIZE_MAX and would
  // hand out an address in a block too small for it.
  if (size > config_.capacity_bytes || offset > config_.capacity_bytes - size) {
    return invalid_argument("npu_sim: out of device memory: cannot allocate " + std::to_string(bytes) + " bytes (capacity " +
                            std::to_string(config_.capacity_bytes) + ", in use " + std::to_string(in_use_) + ")");
  }
  allocations_[offset] = size;
  in_use_ += size;
  return static_cast<void*>(base_ + offset);
}

void NpuSimDevice::deallocate(void* pointer) {
  if (pointer == nullptr || base_ == nullptr) return;
  auto it = allocations_.find(static_cast<size_t>(static_cast<std::byte*>(pointer) - base_));
  if (static_cast<std::byte*>(pointer) < base_ || it == allocations_.end()) return;  // not ours: ignore
  in_use_ -= it->second;
  allocations_.erase(it);
}

Status NpuSimDevice::check_range(const void* address, size_t bytes, const std::string& what) const {
  const auto* p = static_cast<const std::byte*>(address);
  if (p == nullptr) return invalid_argument(what + ": null device address");
  if (base_ == nullptr || p < base_ || p >= base_ + config_.capacity_bytes) {
    return invalid_argument(what + ": address is outside device memory");
  }
  const auto offset = static_cast<size_t>(p - base_);
  auto it = allocations_.upper_bound(offset);
  if (it == allocations_.begin()) return invalid_argument(what + ": address is not in a live allocation");
  --it;
  const size_t room = it->first + it->second - offset;  // offset >= it->first: upper_bound's predecessor
  if (offset >= it->first + it->second || bytes > room) {
    return invalid_argument(what + ": " + std::to_string(bytes) + " bytes at offset " + std::to_string(offset - it->first) +
                            " overrun the allocation of " + std::to_string(it->second) + " bytes");
  }
  return Status::ok();
}

Status NpuSimDevice::copy_to_device(void* device_destination, const void* host_source, size_t bytes) {
  if (bytes == 0) return Status::ok();
  if (host_source == nullptr) return invalid_argument("npu_sim: host-to-device copy from a null host address");
  GE_RETURN_IF_ERROR(check_range(device_destination, bytes, "npu_sim: host-to-device copy of " + std::to_string(bytes) + " bytes"));
  std::memcpy(device_destination, host_source, bytes);
  return Status::ok();
}

Status NpuSimDevice::copy_to_host(void* host_destination, const void* device_source, size_t bytes) {
  if (bytes == 0) return Status::ok();
  if (host_destination == nullptr) return invalid_argument("npu_sim: device-to-host copy to a null host address");
  GE_RETURN_IF_ERROR(check_range(device_source, bytes, "npu_sim: device-to-host copy of " + std::to_string(bytes) + " bytes"));
  std::memcpy(host_destination, device_source, bytes);
  return Status::ok();
}

Result<std::unique_ptr<Stream>> NpuSimDevice::create_stream() {
  auto stream = std::make_unique<NpuSimStream>(*this, next_stream_id_++);
  streams_.push_back(stream.get());
  return std::unique_ptr<Stream>(std::move(stream));
}

Result<std::unique_ptr<Event>> NpuSimDevice::create_event() { return std::unique_ptr<Event>(std::make_unique<NpuSimEvent>(*this)); }

void NpuSimDevice::forget(NpuSimStream* stream) { std::erase(streams_, stream); }

Status NpuSimDevice::set_task_tracing(bool enabled) {
  if (enabled) timeline_.clear();
  tracing_ = enabled;
  return Status::ok();
}

std::vector<TaskTraceRecord> NpuSimDevice::take_task_trace() {
  std::vector<TaskTraceRecord> records;
  records.reserve(timeline_.size());
  for (NpuSimTimelineEntry& entry : timeline_) {
    records.push_back(
        TaskTraceRecord{entry.stream, std::move(entry.name), entry.start_ns, entry.end_ns, std::move(entry.node)});
  }
  timeline_.clear();
  return records;
}

template <typename Done>
Status NpuSimDevice::run_until(Done done) {
  while (!done()) {
    bool progressed = false;
    for (NpuSimStream* stream : streams_) {
      if (stream->queue_.empty()) continue;
      const auto& head = stream->queue_.front();
      if (const auto* wait = std::get_if<EventWaitTask>(&head.task)) {
        if (static_cast<NpuSimEvent*>(wait->event)->completed_ < head.sequence) continue;
      }
      GE_RETURN_IF_ERROR(run_one(*stream));
      progressed = true;
    }
    if (!progressed) {
      std::string blocked;
      for (const NpuSimStream* stream : streams_) {
        if (!stream->queue_.empty()) {
          blocked += (blocked.empty() ? "" : ", ") + std::string("stream ") + std::to_string(stream->id_) + " at task " +
                     std::to_string(stream->queue_.front().index);
        }
      }
      return invalid_argument("device cannot make progress: " +
                              (blocked.empty() ? std::string("nothing is queued") : blocked + " wait for events no queued task records"));
    }
  }
  return Status::ok();
}

Status NpuSimDevice::run_kernel(const KernelTask& kernel, const std::string& task, double& compute_ns) const {
  const auto* params = static_cast<const NpuSimKernelParams*>(kernel.args.params);
  if (!params->span.empty()) {
    // One launch, every kernel of the span checked, run and costed as its own.
    for (size_t k = 0; k < params->span.size(); ++k) {
      const KernelTask& inner = params->span[k];
      GE_RETURN_IF_ERROR(run_kernel(inner, task + ": kernel " + std::to_string(k) + " '" +
                                               (inner.name != nullptr ? inner.name : "") + "'" +
                                               (inner.node != nullptr ? std::string(" of ") + inner.node : std::string()),
                                    compute_ns));
    }
    return Status::ok();
  }
  size_t bytes = 0;
  for (size_t i = 0; i < params->input_bytes.size(); ++i) {
    const void* address = kernel.args.inputs != nullptr ? kernel.args.inputs[i] : nullptr;
    if (address == nullptr) continue;  // omitted optional
    GE_RETURN_IF_ERROR(check_range(address, params->input_bytes[i], task + " input " + std::to_string(i)));
    bytes += params->input_bytes[i];
  }
  for (size_t i = 0; i < params->output_bytes.size(); ++i) {
    void* address = kernel.args.outputs != nullptr ? kernel.args.outputs[i] : nullptr;
    if (address == nullptr) continue;
    GE_RETURN_IF_ERROR(check_range(address, params->output_bytes[i], task + " output " + std::to_string(i)));
    bytes += params->output_bytes[i];
  }
  if (params->workspace_bytes > 0) {
    GE_RETURN_IF_ERROR(check_range(kernel.args.workspace, params->workspace_bytes, task + " workspace"));
  }
  const int code = kernel.function(kernel.args);
  if (code != 0) return invalid_argument(task + " " + reference_kernels::describe_kernel_failure(code));
  const double throughput = params->matrix ? config_.matrix_elements_per_ns : config_.vector_elements_per_ns;
  compute_ns += std::max(static_cast<double>(bytes) / config_.bandwidth_bytes_per_ns, static_cast<double>(params->elements) / throughput);
  return Status::ok();
}

Status NpuSimDevice::run_one(NpuSimStream& stream) {
  const NpuSimStream::Queued queued = stream.queue_.front();
  stream.queue_.pop_front();
  const std::string where = "npu_sim: stream " + std::to_string(stream.id_) + " task " + std::to_string(queued.index);
  NpuSimTimelineEntry entry;
  entry.stream = stream.id_;
  entry.start_ns = stream.clock_ns_;
  double cost = config_.launch_ns;
  Status status = Status::ok();
  if (const auto* kernel = std::get_if<KernelTask>(&queued.task)) {
    entry.name = kernel->name != nullptr ? kernel->name : "kernel";
    if (kernel->node != nullptr) entry.node = kernel->node;
    const std::string task = where + " (kernel '" + entry.name + "'" +
                             (kernel->node != nullptr ? std::string(" of ") + kernel->node : std::string()) + ")";
    double compute_ns = 0;
    status = run_kernel(*kernel, task, compute_ns);
    cost += compute_ns;
  } else if (const auto* copy = std::get_if<MemcpyTask>(&queued.task)) {
    entry.name = "memcpy";
    if (copy->bytes > 0) {
      status = check_range(copy->source, copy->bytes, where + " (memcpy source)");
      if (status.is_ok()) status = check_range(copy->destination, copy->bytes, where + " (memcpy destination)");
      if (status.is_ok()) std::memmove(copy->destination, copy->source, copy->bytes);
    }
    cost += 2.0 * static_cast<double>(copy->bytes) / config_.bandwidth_bytes_per_ns;
  } else if (const auto* memset = std::get_if<MemsetTask>(&queued.task)) {
    // One launch, then the bytes written once at the memory bandwidth.
    entry.name = "memset";
    if (memset->bytes > 0) {
      status = check_range(memset->destination, memset->bytes, where + " (memset destination)");
      if (status.is_ok()) std::memset(memset->destination, memset->value, memset->bytes);
    }
    cost += static_cast<double>(memset->bytes) / config_.bandwidth_bytes_per_ns;
  } else if (const auto* record = std::get_if<EventRecordTask>(&queued.task)) {
    entry.name = "event_record";
    auto* event = static_cast<NpuSimEvent*>(record->event);
    event->completed_ = std::max(event->completed_, queued.sequence);
    event->time_ns_ = stream.clock_ns_;
    cost = 0;
  } else if (const auto* wait = std::get_if<EventWaitTask>(&queued.task)) {
    entry.name = "event_wait";
    const auto* event = static_cast<NpuSimEvent*>(wait->event);
    if (queued.sequence > 0) entry.start_ns = std::max(entry.start_ns, event->time_ns_);
    cost = 0;
  }
  entry.end_ns = entry.start_ns + cost;
  stream.clock_ns_ = entry.end_ns;
  if (tracing_) timeline_.push_back(std::move(entry));
  if (!status.is_ok()) {
    // Later tasks of a failed stream do not run; the error surfaces at synchronize().
    stream.queue_.clear();
    if (stream.error_.is_ok()) stream.error_ = status;
  }
  return Status::ok();
}

}  // namespace ge
