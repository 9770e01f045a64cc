#pragma once
/// The simulated NPU: device memory of bounded capacity inside one host block, reserved on
/// the first allocation (device addresses are not host-accessible to callers: every copy
/// goes through copy_to_device/copy_to_host and is bounds-checked), streams with a fixed
/// queue depth, events, and a device-side scheduler that runs queued tasks in stream
/// order, honouring event waits, and gives every task a simulated start and end from the
/// cost model.
/// Compute runs the reference CPU kernels (ge_reference_kernels) on the simulated memory.
///
/// Streams of one device are not thread-safe against each other: one host thread drives
/// a device (the scheduler runs on the submitting thread).

#include <cstddef>
#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "ge/plugin_api/backend.h"
#include "npu_sim_config.h"

namespace ge {

/// What prepare() puts behind KernelArgs::params: the CPU kernel plus the byte sizes the
/// device checks every address against, and the facts the cost model uses.
struct NpuSimKernelParams {
  KernelFunction inner = nullptr;
  std::shared_ptr<const void> inner_params;
  std::vector<size_t> input_bytes, output_bytes;
  size_t workspace_bytes = 0;
  bool matrix = false;  ///< cost class: matrix unit vs vector unit
  size_t elements = 0;  ///< input + output elements, for the compute cost
  /// A super kernel (seed 001): the launches it runs in one, each of an npu_sim kernel
  /// (`inner` is null then). The device checks and costs each, and charges one launch.
  std::vector<KernelTask> span;
};
/// The function of every npu_sim kernel: calls `inner` with the inner params.
int npu_sim_kernel_entry(const KernelArgs& args);

/// One task as the scheduler ran it, in simulated nanoseconds since the device started.
struct NpuSimTimelineEntry {
  int stream = 0;
  std::string name;  ///< kernel name, "memcpy", "memset", "event_record" or "event_wait"
  double start_ns = 0, end_ns = 0;
  std::string node;  ///< a kernel's node (KernelTask::node), else empty
};

class NpuSimStream;
class NpuSimEvent;

class NpuSimDevice final : public Device {
 public:
  explicit NpuSimDevice(NpuSimConfig config = {});
  ~NpuSimDevice() override;

  std::string name() const override { return "npu_sim"; }
  bool host_accessible() const override { return false; }
  /// First-fit in the bounded memory; kInvalidArgument when it does not fit, naming the
  /// request, the capacity and the bytes in use. The first call reserves the memory, and
  /// fails naming its size when the host cannot.
  Result<void*> allocate(size_t bytes, size_t alignment = 64) override;
  void deallocate(void* pointer) override;
  Status copy_to_device(void* device_destination, const void* host_source, size_t bytes) override;
  Status copy_to_host(void* host_destination, const void* device_source, size_t bytes) override;
  Result<std::unique_ptr<Stream>> create_stream() override;
  Result<std::unique_ptr<Event>> create_event() override;

  const NpuSimConfig& config() const { return config_; }
  size_t bytes_in_use() const { return in_use_; }
  /// The tasks run while tracing was on and not yet taken, in run order. Empty while
  /// tracing is off: a device that runs for days keeps no record per task.
  const std::vector<NpuSimTimelineEntry>& timeline() const { return timeline_; }

  /// Tracing fills the timeline: starting drops what it held, stopping keeps it for
  /// take_task_trace(); times are simulated nanoseconds since the device started.
  Status set_task_tracing(bool enabled) override;
  /// The timeline as trace records; empties it.
  std::vector<TaskTraceRecord> take_task_trace() override;
  bool simulated_time() const override { return true; }
  /// The `queue_depth` option: what a stream holds before submit must wait for the device.
  size_t queue_depth() const override { return config_.queue_depth; }
  /// The latest simulated end over all streams.
  double now_ns() const;

  /// Ok when [address, address + bytes) lies inside one live allocation; otherwise
  /// kInvalidArgument starting with `what`.
  Status check_range(const void* address, size_t bytes, const std::string& what) const;

 private:
  friend class NpuSimStream;
  friend class NpuSimEvent;
  /// Runs queued tasks of any stream whose head can run until `done()` holds. Fails when
  /// nothing can run and `done()` still does not hold (a wait that no queued record
  /// satisfies), naming the blocked streams.
  template <typename Done>
  Status run_until(Done done);
  Status run_one(NpuSimStream& stream);
  /// Checks a kernel launch's addresses against device memory and runs it; adds its
  /// compute time (not the launch cost) to `compute_ns`.
  Status run_kernel(const KernelTask& kernel, const std::string& task, double& compute_ns) const;
  void forget(NpuSimStream* stream);
  /// Reserves the device memory (config_.capacity_bytes) unless done before.
  Status reserve_memory();

  NpuSimConfig config_;
  std::unique_ptr<std::byte[]> memory_;
  std::byte* base_ = nullptr;             // null until the first allocate()
  std::map<size_t, size_t> allocations_;  // offset -> bytes
  size_t in_use_ = 0;
  std::vector<NpuSimStream*> streams_;
  int next_stream_id_ = 0;
  std::vector<NpuSimTimelineEntry> timeline_;  // only while tracing_, until taken
  bool tracing_ = false;
};

}  // namespace ge
