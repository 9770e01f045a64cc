#pragma once
/// Stream capture (seed 004's ACL Graph, like CUDA Graphs): tasks launched on a capturing
/// stream, and on streams joined to it by events, are recorded instead of run; end_capture
/// turns the recording into a CapturedModel that can be executed many times on any stream.
///
/// Capture works for every backend because it lives in the runtime, not in the backend:
/// a CaptureStream wraps a backend ge::Stream and either forwards submits to it (status
/// NONE) or records them (ACTIVE). State transitions of a stream:
///
///   NONE --begin_capture--> ACTIVE (origin)        NONE --wait on a captured event--> ACTIVE (joined)
///   ACTIVE --forbidden call / submit from another thread / isolation error--> INVALIDATED
///   ACTIVE or INVALIDATED --end_capture on the origin--> NONE (every stream of the capture)
///
/// end_capture on the origin, from a thread allowed to end it, always ends the capture,
/// also when it returns an error. A capture that became a model is COMPLETED: the model's
/// capture_info() says so (a stream is NONE again once its capture ended).
///
/// What a capture records:
/// - KernelTask given through launch(task, input_count, output_count): the model owns
///   copies of the input and output address arrays, so later changes by the caller do not
///   leak in. KernelArgs carries no array lengths, so a KernelTask given through the plain
///   Stream::submit() is recorded with its arrays *borrowed*: they must stay valid for the
///   model's lifetime (ModelRunner::stream_tasks() argument tables are such arrays). The
///   params block and the workspace are always borrowed.
/// - MemcpyTask, MemsetTask: by value (addresses, size, fill byte).
/// - EventRecordTask / EventWaitTask: the caller's events are replaced by fresh events the
///   model creates from the Device at end_capture. A wait on an event whose latest record
///   is not part of this capture (recorded before it, eagerly re-recorded, or by another
///   capture) breaks capture isolation and invalidates it.
///
/// Cross-stream capture (CUDA semantics): a stream that is not capturing and submits a
/// wait on an event recorded by a capturing stream joins that capture; from that task on
/// it records too. end_capture fails with "unjoined work" unless every task of every
/// joined stream precedes the origin's end through event record/wait edges.
///
/// Threads (seed 004: THREAD_LOCAL "only the current thread may operate", RELAXED "other
/// threads may operate", GLOBAL for single-thread capture). A capture belongs to the thread
/// that called begin_capture. In GLOBAL and THREAD_LOCAL mode only that thread records into
/// it: a submit or launch from another thread onto any of its streams, or a wait that would
/// join one, fails, records nothing and invalidates the capture (its model would miss that
/// work); end_capture, begin_task_group and end_task_group from another thread fail and
/// change nothing. A RELAXED capture takes work and end_capture from every thread.
///
/// Unsafe calls and capture modes. Potentially unsafe calls are synchronous host calls that
/// could wait on, or race with, work being captured instead of run:
/// - CaptureStream::synchronize() (so also run()) on a stream taking part in a capture;
/// - CaptureStream::copy_sync() on any stream (ACL's "synchronous memory copy");
/// - CaptureDevice::allocate, deallocate, copy_to_device and copy_to_host;
/// - whatever else calls check_unsafe_call().
/// Every thread has a capture mode of its own, GLOBAL until exchange_capture_mode changes
/// it. An unsafe call from thread T is forbidden while
/// - T's mode is GLOBAL and a GLOBAL capture is active on any thread, or T began an active
///   THREAD_LOCAL capture;
/// - T's mode is THREAD_LOCAL and T began an active GLOBAL or THREAD_LOCAL capture;
/// and never while T's mode is RELAXED. With default thread modes: a GLOBAL capture forbids
/// unsafe calls on every thread, a THREAD_LOCAL capture on the thread that began it, a
/// RELAXED capture on none. (These are ACL's IsCaptureModeSupport and CUDA's
/// cudaThreadExchangeStreamCaptureMode rules.) A forbidden call returns an error naming
/// the capture, does nothing (deallocate, which cannot fail, still frees) and invalidates
/// every capture that forbade it. An allowed synchronize() on a capturing stream waits only
/// for work submitted before the capture began and copy_sync() copies at once: nothing
/// captured runs. Not covered: calls that bypass the capture layer (a backend Device or
/// Stream used directly; ModelRunner uses its device directly), and Event::synchronize,
/// which is safe: a capture never records the caller's events (the model gets its own), so
/// waiting on one cannot wait for captured work. Synchronizing a stream outside every
/// capture is safe too. Once INVALIDATED, every call on a stream of the capture (submit,
/// synchronize, copy_sync, task groups) fails naming the reason, until end_capture.
///
/// Queue depth (seed 004's cascade streams): one captured list holds at most the queue
/// depth of the stream that records (origin or joined) less kCaptureReservedTasks, the
/// seed's reserved headroom (CAPTURE_TASK_RESERVED_NUM); when it is full, recording
/// continues on a cascade list. The depth is CaptureStreamOptions::queue_depth, or when
/// that is 0 the device's Device::queue_depth() (npu_sim: its `queue_depth` option); 0
/// there means unbounded. A depth not above the headroom leaves no room: begin_capture (or
/// the joining wait) fails. CapturedModel::execute submits in capture order and never puts
/// tasks of two lists in one submit() call, so no submit exceeds depth less headroom; the
/// caller sees no other difference.
///
/// Captured models are READY, UPDATING (between begin_update and end_update) or FAULT (a
/// task-group update inside begin_update/end_update failed part way); execute and run
/// need READY and otherwise fail naming the state (seed 004: "model is not ready, can't
/// execute"). A model guards itself with a reader/writer lock: executes share it, task-group
/// updates and begin/end_update take it alone, so an update waits for executes in progress
/// on other threads and they never see half-updated arguments.
///
/// A malformed task (a kernel without function, a null event, a null address array that
/// launch() was told has entries) is rejected with kInvalidArgument, nothing of it is
/// recorded and the capture stays ACTIVE. Every error is a Status; nothing throws.
///
/// Thread safety: every function here may be called from any thread, within the thread
/// rules above; capture state is guarded by one runtime-wide lock.

#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <thread>

#include "ge/plugin_api/backend.h"
#include "ge/cancellation.h"
#include "ge/status.h"

namespace ge {

enum class CaptureMode { kGlobal, kThreadLocal, kRelaxed };
/// A stream's capture status (NONE, ACTIVE, INVALIDATED); COMPLETED is a capture that
/// became a model (CapturedModel::capture_info()).
enum class CaptureStatus { kNone, kActive, kInvalidated, kCompleted };
/// A captured model's state: execute needs READY.
enum class CapturedModelState { kReady, kUpdating, kFault };

const char* capture_mode_name(CaptureMode mode);
const char* capture_status_name(CaptureStatus status);
const char* captured_model_state_name(CapturedModelState state);

/// Queue slots a capture leaves free on every captured list (seed 004's
/// CAPTURE_TASK_RESERVED_NUM: room for the tasks the runtime adds when it runs the model).
inline constexpr size_t kCaptureReservedTasks = 32;

/// Sets the calling thread's capture mode to `mode` and returns the previous one in
/// `mode` (ACL's rtThreadExchangeCaptureMode, CUDA's cudaThreadExchangeStreamCaptureMode).
/// The mode decides which captures forbid this thread's unsafe calls (file comment).
/// Fails on an unknown mode, changing nothing.
Status exchange_capture_mode(CaptureMode& mode);

/// Fails when the calling thread may not make a potentially unsafe call now (file
/// comment), invalidating every capture that forbids it; `call` names the call in the
/// error and in the captures' invalidation reason. For runtime layers that make
/// synchronous calls of their own.
Status check_unsafe_call(const char* call);

struct CaptureStreamOptions {
  /// The queue depth captured lists follow (each holds depth less kCaptureReservedTasks
  /// tasks); 0 takes the device's Device::queue_depth().
  size_t queue_depth = 0;
};

/// What a capture has recorded so far (or, from a model, in all).
struct CaptureInfo {
  CaptureStatus status = CaptureStatus::kNone;
  uint64_t capture_id = 0;  ///< 0 with NONE
  CaptureMode mode = CaptureMode::kGlobal;
  std::thread::id thread;   ///< the thread that began it
  bool origin = false;      ///< the stream asked about began it (false: joined)
  size_t task_count = 0;    ///< every stream, event record/wait included
  size_t stream_count = 0;  ///< origin plus joined
  size_t list_count = 0;    ///< captured lists, cascades included
  size_t task_group_count = 0;
  std::string invalidation_reason;  ///< with INVALIDATED: why
};

/// A handle to a group of captured tasks whose arguments can be replaced after capture.
/// Only valid with the model its capture produced.
struct TaskGroupHandle {
  uint64_t capture_id = 0;  ///< 0 never names a capture
  size_t index = 0;
};

class CapturedModel;
namespace detail {
struct CaptureSession;
}

/// A runtime stream: a backend stream plus capture state. Submits forward to the backend
/// stream, or are recorded while the stream takes part in a capture.
class CaptureStream final : public Stream {
 public:
  /// Wraps `stream`; `device` (the stream's device, must outlive the wrapper and every
  /// model captured on it) creates the replay events and gives the queue depth.
  CaptureStream(Device& device, std::unique_ptr<Stream> stream, CaptureStreamOptions options = {});
  /// Creates a backend stream on `device` and wraps it.
  static Result<std::unique_ptr<CaptureStream>> create(Device& device, CaptureStreamOptions options = {});
  /// Destroying the origin of a capture ends it (nothing is built); destroying a joined
  /// stream invalidates its capture.
  ~CaptureStream() override;
  CaptureStream(const CaptureStream&) = delete;
  CaptureStream& operator=(const CaptureStream&) = delete;

  /// Forwards `tasks`, or records them while capturing (KernelTask arrays borrowed, see
  /// the file comment). On an INVALIDATED stream, or from a thread the capture does not
  /// take work from, returns an error and records nothing.
  Status submit(std::span<const Task> tasks) override;
  /// An unsafe call while the stream takes part in a capture: see the file comment.
  Status synchronize() override;

  /// Launches one kernel whose args hold `input_count` inputs and `output_count` outputs;
  /// while capturing, the model owns copies of both address arrays. Otherwise forwards
  /// `task` as is.
  Status launch(const KernelTask& task, size_t input_count, size_t output_count);
  /// Synchronous copy between device addresses (through the backend stream's MemcpyTask):
  /// never recorded; an unsafe call.
  Status copy_sync(void* destination, const void* source, size_t bytes);

  Stream& backend_stream() { return *stream_; }
  Device& device() { return device_; }
  const CaptureStreamOptions& options() const { return options_; }
  /// The queue depth captured lists follow: the option, else the device's; 0: unbounded.
  size_t queue_depth() const;

 private:
  friend struct CaptureAccess;
  Device& device_;
  std::unique_ptr<Stream> stream_;
  CaptureStreamOptions options_;
  // Guarded by the runtime-wide capture lock; null while NONE.
  std::shared_ptr<detail::CaptureSession> session_;
  size_t session_index_ = 0;  ///< 0: the origin; others joined
};

/// A device whose synchronous calls obey the capture modes: allocate, deallocate,
/// copy_to_device and copy_to_host are unsafe calls (file comment). Everything else
/// forwards to the wrapped device; its streams and events are the wrapped device's (a
/// stream outside every capture is safe to synchronize; CaptureStream::create(*this) makes
/// one that can capture).
class CaptureDevice final : public Device {
 public:
  /// Wraps `device`, which must outlive the wrapper.
  explicit CaptureDevice(Device& device) : device_(device) {}

  std::string name() const override { return device_.name(); }
  bool host_accessible() const override { return device_.host_accessible(); }
  /// Fails while a capture forbids this thread's unsafe calls; otherwise the device's.
  Result<void*> allocate(size_t bytes, size_t alignment = 64) override;
  /// Always frees; while a capture forbids this thread's unsafe calls it also invalidates it.
  void deallocate(void* pointer) override;
  Status copy_to_device(void* device_destination, const void* host_source, size_t bytes) override;
  Status copy_to_host(void* host_destination, const void* device_source, size_t bytes) override;
  Result<std::unique_ptr<Stream>> create_stream() override { return device_.create_stream(); }
  Result<std::unique_ptr<Event>> create_event() override { return device_.create_event(); }
  Status set_task_tracing(bool enabled) override { return device_.set_task_tracing(enabled); }
  std::vector<TaskTraceRecord> take_task_trace() override { return device_.take_task_trace(); }
  bool simulated_time() const override { return device_.simulated_time(); }
  size_t queue_depth() const override { return device_.queue_depth(); }

  Device& backend_device() { return device_; }

 private:
  Device& device_;
};

/// Starts capturing on `stream` (which becomes the capture's origin) in `mode`, owned by
/// the calling thread. Fails when the stream already takes part in a capture (active,
/// joined or invalidated) or its queue depth leaves no room beside the reserved headroom.
Status begin_capture(CaptureStream& stream, CaptureMode mode);
/// Ends the capture begun on `stream` and returns its model (fresh events created on the
/// stream's device). Fails without ending anything when `stream` is not capturing, is a
/// joined stream, or the caller is not the capturing thread of a GLOBAL or THREAD_LOCAL
/// capture; otherwise ends the capture on every stream, and fails when it was invalidated
/// (naming why), a joined stream has unjoined work, a task group is still open, or the
/// device cannot create the replay events.
Result<std::unique_ptr<CapturedModel>> end_capture(CaptureStream& stream);
/// NONE, ACTIVE (origin or joined) or INVALIDATED.
CaptureStatus capture_status(const CaptureStream& stream);
/// The capture `stream` takes part in (status NONE and the rest empty when none).
CaptureInfo capture_info(const CaptureStream& stream);

/// Opens a task group on `stream`, which must be ACTIVE with no group open: the tasks it
/// records until end_task_group form the group.
Status begin_task_group(CaptureStream& stream);
/// Closes the open group of `stream`; fails when none is open or it recorded no task.
Result<TaskGroupHandle> end_task_group(CaptureStream& stream);

/// The tasks of one capture, ready to replay. Owns its copied argument arrays and its
/// replay events. Thread-safe: executes run concurrently; updates wait for them.
class CapturedModel {
 public:
  ~CapturedModel();
  CapturedModel(const CapturedModel&) = delete;
  CapturedModel& operator=(const CapturedModel&) = delete;

  /// Replays every captured stream on `stream`, in capture order (a valid order: each
  /// wait follows its record); the replay events stay in the list, a record followed by
  /// a wait on the same stream. Does not synchronize. Fails on an empty model or one that
  /// is not READY.
  Status execute(Stream& stream);
  /// Replays captured stream i on `streams[i]` (stream 0 is the origin, then joined
  /// streams in join order), submitting in capture order so that synchronous backends see
  /// each record before its wait. Needs exactly stream_count() streams.
  Status execute(std::span<Stream* const> streams);
  /// Same, then waits for every stream: the last submission (on one stream, every one)
  /// goes through Stream::run, which a backend may run on the calling thread (no worker
  /// hand-off for a model on one stream). Returns the first error of the submits and waits.
  /// Updates wait until it returned. With `cancellation` (ge/cancellation.h) a model on one
  /// stream runs kCancellationSlice tasks at a time and stops between them with kCancelled
  /// once it is tripped; on several streams it is checked before the first submit only (a
  /// stream left waiting for an event of a slice never submitted would never finish).
  Status run(std::span<Stream* const> streams, const CancellationToken* cancellation = nullptr);
  /// Tasks run() runs between two checks of its cancellation token.
  static constexpr size_t kCancellationSlice = 64;

  /// Replaces the arguments of the group's tasks with those of `tasks`, which must match
  /// the group in count and, task by task, in kind; a KernelTask must name the same kernel
  /// function and is copied with the captured array lengths (borrowed if the capture
  /// borrowed); a MemcpyTask's or MemsetTask's fields are replaced; event tasks keep their
  /// replay events. Waits for executes in progress. On a READY model it is one update that
  /// either applies or changes nothing; between begin_update and end_update a failure
  /// makes the model FAULT. Fails on a FAULT model (begin_update first).
  /// Work an execute() already queued on an asynchronous stream reads the arguments when
  /// it runs: synchronize that stream before updating them.
  Status update_task_group(const TaskGroupHandle& handle, std::span<const Task> tasks);
  /// READY or FAULT -> UPDATING (seed 004's rtStreamBeginTaskUpdate): executes fail until
  /// end_update. Waits for executes in progress; fails when already UPDATING.
  Status begin_update();
  /// UPDATING -> READY. Fails when no update is in progress, or on a FAULT model (which
  /// stays FAULT, naming the failed update).
  Status end_update();
  CapturedModelState state() const;

  /// The capture that built this model: status COMPLETED, its id, mode, thread and counts.
  CaptureInfo capture_info() const;
  /// Captured tasks, event record/wait included.
  size_t task_count() const;
  /// Streams that took part (origin plus joined).
  size_t stream_count() const;
  /// Captured lists over all streams, cascades included.
  size_t list_count() const;
  /// Lists beyond the first of each stream (0 when no queue depth was exceeded).
  size_t cascade_list_count() const;
  size_t task_group_count() const;
  /// Replay events the model owns.
  size_t event_count() const;
  /// The id of the capture that built this model (what TaskGroupHandle::capture_id holds).
  uint64_t capture_id() const;

 private:
  friend struct CaptureAccess;
  struct Impl;
  explicit CapturedModel(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

}  // namespace ge
