#pragma once
/// Stream capture (like CUDA Graphs / ACL graph): tasks launched on a capturing stream, and
/// on streams joined to it by events, are recorded instead of run; end_capture turns the
/// recording into a CapturedModel that can be executed many times on any stream.
///
/// Capture works for every backend because it lives in the runtime, not in the backend:
/// a CaptureStream wraps a backend ge::Stream and either forwards submits to it (status
/// NONE) or records them (ACTIVE). State transitions of a stream:
///
///   NONE --begin_capture--> ACTIVE (origin)        NONE --wait on a captured event--> ACTIVE (joined)
///   ACTIVE --forbidden sync call / isolation error--> INVALIDATED
///   ACTIVE or INVALIDATED --end_capture on the origin--> NONE (every stream of the capture)
///
/// end_capture on the origin always ends the capture, also when it returns an error.
///
/// What a capture records:
/// - KernelTask given through launch(task, input_count, output_count): the model owns
///   copies of the input and output address arrays, so later changes by the caller do not
///   leak in. KernelArgs carries no array lengths, so a KernelTask given through the plain
///   Stream::submit() is recorded with its arrays *borrowed*: they must stay valid for the
///   model's lifetime (ModelRunner::stream_tasks() argument tables are such arrays). The
///   params block and the workspace are always borrowed.
/// - MemcpyTask: by value (addresses and size).
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
/// Modes decide which synchronous calls (CaptureStream::synchronize(), copy_sync()) on a
/// stream of an ACTIVE capture are forbidden; a forbidden call returns an error, does
/// nothing and invalidates the capture:
/// - kGlobal: calls from any thread;
/// - kThreadLocal: only calls from the thread that called begin_capture;
/// - kRelaxed: none.
/// An allowed synchronous call runs against the backend stream only: synchronize() waits
/// for work submitted before the capture began, copy_sync() copies at once; nothing
/// captured runs. Synchronous calls on streams outside the capture never affect it.
/// Submits from any thread are recorded. Once INVALIDATED, every call on a stream of the
/// capture (submit, synchronize, task groups) fails naming the reason, until end_capture
/// on the origin.
///
/// Queue depth: CaptureStreamOptions::max_queue_depth (of the stream that records, origin
/// or joined) bounds the tasks of one captured list; when a stream's list is full,
/// recording continues on a cascade list. CapturedModel::execute submits in capture order
/// and never puts tasks of two lists in one submit() call, so no submit exceeds the
/// depth; the caller sees no other difference.
///
/// A malformed task (a kernel without function, a null event, a null address array that
/// launch() was told has entries) is rejected with kInvalidArgument, nothing of it is
/// recorded and the capture stays ACTIVE. Every error is a Status; nothing throws.
///
/// Thread safety: every function here may be called from any thread; capture state is
/// guarded by one runtime-wide lock. A CapturedModel is not thread-safe: one execute or
/// update_task_group at a time.

#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>

#include "ge/backend.h"
#include "ge/status.h"

namespace ge {

enum class CaptureMode { kGlobal, kThreadLocal, kRelaxed };
enum class CaptureStatus { kNone, kActive, kInvalidated };

const char* capture_mode_name(CaptureMode mode);
const char* capture_status_name(CaptureStatus status);

struct CaptureStreamOptions {
  /// Most tasks one captured list holds before recording continues on a cascade list;
  /// 0 means unbounded.
  size_t max_queue_depth = 0;
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
  /// model captured on it) creates the replay events.
  CaptureStream(Device& device, std::unique_ptr<Stream> stream, CaptureStreamOptions options = {});
  /// Creates a backend stream on `device` and wraps it.
  static Result<std::unique_ptr<CaptureStream>> create(Device& device, CaptureStreamOptions options = {});
  /// Destroying the origin of a capture ends it (nothing is built); destroying a joined
  /// stream invalidates its capture.
  ~CaptureStream() override;
  CaptureStream(const CaptureStream&) = delete;
  CaptureStream& operator=(const CaptureStream&) = delete;

  /// Forwards `tasks`, or records them while capturing (KernelTask arrays borrowed, see
  /// the file comment). On an INVALIDATED stream returns an error and records nothing.
  Status submit(std::span<const Task> tasks) override;
  /// Synchronous: see the mode rules in the file comment.
  Status synchronize() override;

  /// Launches one kernel whose args hold `input_count` inputs and `output_count` outputs;
  /// while capturing, the model owns copies of both address arrays. Otherwise forwards
  /// `task` as is.
  Status launch(const KernelTask& task, size_t input_count, size_t output_count);
  /// Synchronous copy between device addresses (through the backend stream's MemcpyTask):
  /// never recorded; follows the mode rules.
  Status copy_sync(void* destination, const void* source, size_t bytes);

  Stream& backend_stream() { return *stream_; }
  Device& device() { return device_; }
  const CaptureStreamOptions& options() const { return options_; }

 private:
  friend struct CaptureAccess;
  Device& device_;
  std::unique_ptr<Stream> stream_;
  CaptureStreamOptions options_;
  // Guarded by the runtime-wide capture lock; null while NONE.
  std::shared_ptr<detail::CaptureSession> session_;
  size_t session_index_ = 0;  ///< 0: the origin; others joined
};

/// Starts capturing on `stream` (which becomes the capture's origin) in `mode`. Fails when
/// the stream already takes part in a capture (active, joined or invalidated).
Status begin_capture(CaptureStream& stream, CaptureMode mode);
/// Ends the capture begun on `stream` and returns its model (fresh events created on the
/// stream's device). Fails without ending anything when `stream` is not capturing or is
/// a joined stream; otherwise ends the capture on every stream, and fails when it was
/// invalidated (naming why), a joined stream has unjoined work, a task group is still
/// open, or the device cannot create the replay events.
Result<std::unique_ptr<CapturedModel>> end_capture(CaptureStream& stream);
/// NONE, ACTIVE (origin or joined) or INVALIDATED.
CaptureStatus capture_status(const CaptureStream& stream);

/// Opens a task group on `stream`, which must be ACTIVE with no group open: the tasks it
/// records until end_task_group form the group.
Status begin_task_group(CaptureStream& stream);
/// Closes the open group of `stream`; fails when none is open or it recorded no task.
Result<TaskGroupHandle> end_task_group(CaptureStream& stream);

/// The tasks of one capture, ready to replay. Owns its copied argument arrays and its
/// replay events.
class CapturedModel {
 public:
  ~CapturedModel();
  CapturedModel(const CapturedModel&) = delete;
  CapturedModel& operator=(const CapturedModel&) = delete;

  /// Replays every captured stream on `stream`, in capture order (a valid order: each
  /// wait follows its record); the replay events stay in the list, a record followed by
  /// a wait on the same stream. Does not synchronize. Fails on an empty model.
  Status execute(Stream& stream);
  /// Replays captured stream i on `streams[i]` (stream 0 is the origin, then joined
  /// streams in join order), submitting in capture order so that synchronous backends see
  /// each record before its wait. Needs exactly stream_count() streams.
  Status execute(std::span<Stream* const> streams);
  /// Same, then waits for every stream: the last submission (on one stream, every one)
  /// goes through Stream::run, which a backend may run on the calling thread (no worker
  /// hand-off for a model on one stream). Returns the first error of the submits and waits.
  Status run(std::span<Stream* const> streams);

  /// Replaces the arguments of the group's tasks with those of `tasks`, which must match
  /// the group in count and, task by task, in kind; a KernelTask must name the same kernel
  /// function and is copied with the captured array lengths (borrowed if the capture
  /// borrowed); a MemcpyTask's addresses and size are replaced; event tasks keep their
  /// replay events.
  Status update_task_group(const TaskGroupHandle& handle, std::span<const Task> tasks);

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
