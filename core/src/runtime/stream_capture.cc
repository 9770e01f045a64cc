// Stream capture (ge/runtime/stream_capture.h): recording tasks and replaying them.
#include "ge/runtime/stream_capture.h"

#include <algorithm>
#include <mutex>
#include <optional>
#include <shared_mutex>
#include <sstream>
#include <string>
#include <thread>
#include <unordered_map>
#include <utility>
#include <vector>

namespace ge {
namespace detail {

/// What a captured task owns beside its Task value.
struct TaskStorage {
  std::unique_ptr<const void*[]> inputs;  ///< owned copies (launch()), else null
  std::unique_ptr<void*[]> outputs;
  size_t input_count = 0;
  size_t output_count = 0;
  bool owns_arguments = false;
  size_t event_index = 0;  ///< for event record/wait tasks
};

/// One captured list (a stream's first list or one of its cascades).
struct CapturedList {
  size_t stream = 0;
  std::vector<Task> tasks;
  std::vector<TaskStorage> storage;  ///< parallel to tasks
};

/// Consecutive tasks of one list in capture order: one submit() at replay.
struct Run {
  size_t stream = 0;
  size_t list = 0;
  size_t begin = 0;
  size_t end = 0;
};

struct TaskPosition {
  size_t list = 0;
  size_t task = 0;
};

struct TaskGroupRecord {
  size_t stream = 0;
  std::vector<TaskPosition> tasks;
};

/// Per captured stream: a vector clock over the capture's streams. clock[j] counts the
/// tasks of stream j known to precede this stream's next task (clock[self] = own count).
struct StreamState {
  CaptureStream* stream = nullptr;  ///< null once destroyed
  size_t current_list = 0;
  size_t recorded = 0;
  std::vector<size_t> clock;
  std::optional<size_t> open_group;
  size_t list_capacity = 0;  ///< tasks per captured list; 0: unbounded
};

struct EventState {
  size_t index = 0;
  std::vector<size_t> clock;  ///< the recording stream's clock at the record
};

struct CaptureSession : std::enable_shared_from_this<CaptureSession> {
  uint64_t id = 0;
  CaptureMode mode = CaptureMode::kGlobal;
  std::thread::id thread;
  CaptureStatus status = CaptureStatus::kActive;
  std::string invalidation_reason;
  std::vector<StreamState> streams;  ///< [0] is the origin
  std::vector<CapturedList> lists;
  std::vector<Run> order;
  std::unordered_map<Event*, EventState> events;
  std::vector<TaskGroupRecord> groups;
  size_t task_count = 0;
};

}  // namespace detail

struct CapturedModel::Impl {
  uint64_t capture_id = 0;
  CaptureMode mode = CaptureMode::kGlobal;
  std::thread::id thread;
  size_t stream_count = 0;
  size_t task_count = 0;
  std::vector<detail::CapturedList> lists;
  std::vector<detail::Run> order;
  std::vector<detail::TaskGroupRecord> groups;
  std::vector<std::unique_ptr<Event>> events;
  /// Executes hold it shared, updates alone; guards the tasks' arguments and the state.
  mutable std::shared_mutex mutex;
  CapturedModelState state = CapturedModelState::kReady;
  std::string fault_reason;  ///< with FAULT: the update that failed

  /// Ok when the model can be replayed now. Lock held.
  Status check_executable(const std::string& call) const;
  /// Ok when `streams` fit the model. Lock held.
  Status check_streams(const std::string& call, std::span<Stream* const> streams) const;
  /// Validates then applies one group update; nothing changes on failure. Lock held alone.
  Status apply_update(const TaskGroupHandle& handle, std::span<const Task> tasks);
};

namespace {

using detail::CaptureSession;

/// The runtime-wide capture lock and what it guards besides each stream's session.
struct CaptureRegistry {
  std::mutex mutex;
  uint64_t next_id = 1;
  /// Events whose latest record was captured, and by which capture.
  std::unordered_map<Event*, CaptureSession*> event_owner;
  /// Captures begun and not yet ended (ACTIVE or INVALIDATED): the ones that can forbid
  /// unsafe calls.
  std::vector<CaptureSession*> active;
};

/// The calling thread's capture mode (exchange_capture_mode).
thread_local CaptureMode t_thread_mode = CaptureMode::kGlobal;

CaptureRegistry& registry() {
  static CaptureRegistry* r = new CaptureRegistry();
  return *r;
}

const char* task_kind_name(const Task& task) {
  switch (task.index()) {
    case 0:
      return "a kernel launch";
    case 1:
      return "a memcpy";
    case 2:
      return "an event record";
    case 3:
      return "an event wait";
    default:
      return "a memset";
  }
}

std::string thread_name(std::thread::id id) {
  std::ostringstream out;
  out << id;
  return out.str();
}

Status invalidated_error(const char* call, const CaptureSession& session) {
  return invalid_argument(std::string(call) + ": the stream capture " + std::to_string(session.id) +
                          " was invalidated (" + session.invalidation_reason +
                          "); call end_capture on its origin stream to end it");
}

void invalidate(CaptureSession& session, std::string reason) {
  if (session.status == CaptureStatus::kInvalidated) return;
  session.status = CaptureStatus::kInvalidated;
  session.invalidation_reason = std::move(reason);
}

/// The captures that forbid an unsafe call from the calling thread now (the mode rules of
/// the header). Registry lock held.
std::vector<CaptureSession*> forbidding_captures(const CaptureRegistry& r) {
  std::vector<CaptureSession*> forbidding;
  const CaptureMode mine = t_thread_mode;
  if (mine == CaptureMode::kRelaxed) return forbidding;
  const std::thread::id self = std::this_thread::get_id();
  for (CaptureSession* session : r.active) {
    if (session->mode == CaptureMode::kRelaxed) continue;
    const bool own = session->thread == self;
    if (own || (mine == CaptureMode::kGlobal && session->mode == CaptureMode::kGlobal)) forbidding.push_back(session);
  }
  return forbidding;
}

/// Applies the mode rules to unsafe call `call`: ok, or an error after invalidating every
/// capture that forbids it. Registry lock held.
Status check_unsafe_call_locked(const std::string& call, const CaptureRegistry& r) {
  std::vector<CaptureSession*> forbidding = forbidding_captures(r);
  if (forbidding.empty()) return Status::ok();
  const std::thread::id self = std::this_thread::get_id();
  const std::string me = thread_name(self);
  const char* my_mode = capture_mode_name(t_thread_mode);
  for (CaptureSession* session : forbidding) {
    invalidate(*session, call + " was called on thread " + me + " (capture mode " + my_mode + ") during " +
                             capture_mode_name(session->mode) + " capture " + std::to_string(session->id) +
                             " begun on thread " + thread_name(session->thread) + ", which forbids it there");
  }
  const CaptureSession& first = *forbidding.front();
  const bool own = first.thread == self;
  std::string why = std::string(capture_mode_name(first.mode)) + " capture " + std::to_string(first.id) +
                    (own ? " begun on this thread forbids potentially unsafe calls on its own thread"
                         : " begun on thread " + thread_name(first.thread) +
                               " forbids potentially unsafe calls on every thread in GLOBAL capture mode");
  if (forbidding.size() > 1) why += " (as do " + std::to_string(forbidding.size() - 1) + " other capture(s))";
  return invalid_argument(call + ": not allowed on thread " + me + " (capture mode " + my_mode + "): " + why +
                          "; the capture is invalidated. Make the call outside the capture, capture in RELAXED "
                          "mode, or exchange_capture_mode(kRelaxed) on this thread around the call");
}

/// Whether the calling thread may record into (or end) `session`.
bool may_operate(const CaptureSession& session) {
  return session.mode == CaptureMode::kRelaxed || session.thread == std::this_thread::get_id();
}

/// A submit from a thread `session` takes no work from: invalidates it. Registry lock held.
Status wrong_thread_submit(CaptureSession& session, const std::string& what) {
  const std::string me = thread_name(std::this_thread::get_id());
  const std::string owner = thread_name(session.thread);
  invalidate(session, what + " came from thread " + me + ", but only thread " + owner + ", which began the " +
                          capture_mode_name(session.mode) + " capture, may record into it");
  return invalid_argument("submit: " + std::string(capture_mode_name(session.mode)) + " capture " +
                          std::to_string(session.id) + " records only work from thread " + owner +
                          ", which began it; thread " + me + " may not record into it (" + what +
                          "). Nothing was recorded and the capture is invalidated; begin it in RELAXED mode to "
                          "record from several threads");
}

/// A capture operation other than a submit from the wrong thread: fails, changes nothing.
Status wrong_thread_call(const char* call, const CaptureSession& session) {
  return invalid_argument(std::string(call) + ": " + capture_mode_name(session.mode) + " capture " +
                          std::to_string(session.id) + " was begun on thread " + thread_name(session.thread) +
                          "; only that thread may call " + call + " on it (called from thread " +
                          thread_name(std::this_thread::get_id()) +
                          "); nothing changed. A RELAXED capture takes calls from every thread");
}

/// Tasks one captured list of `stream` holds: its queue depth less the reserved headroom
/// (0: unbounded). Fails when the depth leaves no room.
Result<size_t> list_capacity(const CaptureStream& stream, const char* call) {
  const size_t depth = stream.queue_depth();
  if (depth == 0) return size_t{0};
  if (depth <= kCaptureReservedTasks) {
    return invalid_argument(std::string(call) + ": the stream's queue depth " + std::to_string(depth) +
                            " leaves no room for captured tasks: every captured list keeps " +
                            std::to_string(kCaptureReservedTasks) +
                            " queue slots free (kCaptureReservedTasks); give the stream or its device a queue "
                            "depth above " +
                            std::to_string(kCaptureReservedTasks));
  }
  return depth - kCaptureReservedTasks;
}

/// Detaches every stream from `session` and forgets its events. Registry lock held.
void finish_session(CaptureSession& session, CaptureRegistry& r);

size_t& clock_entry(std::vector<size_t>& clock, size_t stream) {
  if (clock.size() <= stream) clock.resize(stream + 1, 0);
  return clock[stream];
}

/// Appends `task` to stream `s` of `session` (cascading when its list is full). `counts`
/// given: a kernel whose address arrays are copied. Registry lock held.
Status record_task(CaptureSession& session, size_t s, const Task& task, const std::pair<size_t, size_t>* counts,
                   CaptureRegistry& r) {
  if (session.status == CaptureStatus::kInvalidated) return invalidated_error("submit", session);
  detail::TaskStorage storage;
  if (const auto* kernel = std::get_if<KernelTask>(&task)) {
    if (kernel->function == nullptr) {
      return invalid_argument(std::string("submit: kernel task '") + kernel->name +
                              "' has no function; nothing was recorded");
    }
    if (counts != nullptr) {
      if ((counts->first > 0 && kernel->args.inputs == nullptr) ||
          (counts->second > 0 && kernel->args.outputs == nullptr)) {
        return invalid_argument(std::string("launch: kernel '") + kernel->name +
                                "' declares inputs or outputs but its args hold a null address array");
      }
      storage.owns_arguments = true;
      storage.input_count = counts->first;
      storage.output_count = counts->second;
    }
  }
  const auto* wait = std::get_if<EventWaitTask>(&task);
  const auto* record = std::get_if<EventRecordTask>(&task);
  if ((wait != nullptr && wait->event == nullptr) || (record != nullptr && record->event == nullptr)) {
    return invalid_argument(std::string("submit: ") + task_kind_name(task) +
                            " task has a null event; nothing was recorded");
  }
  detail::StreamState& stream = session.streams[s];
  if (wait != nullptr) {
    auto owner = r.event_owner.find(wait->event);
    auto event = session.events.find(wait->event);
    if (owner == r.event_owner.end() || owner->second != &session || event == session.events.end()) {
      invalidate(session, "captured stream " + std::to_string(s) +
                              " waited on an event whose latest record is not part of this capture "
                              "(capture isolation)");
      return invalidated_error("submit", session);
    }
    for (size_t j = 0; j < event->second.clock.size(); ++j) {
      clock_entry(stream.clock, j) = std::max(clock_entry(stream.clock, j), event->second.clock[j]);
    }
  }
  // Cascade: a full list continues on a new one (seed 004: the capture stream's task count
  // plus the reserved headroom reached its queue depth).
  if (stream.list_capacity > 0 && session.lists[stream.current_list].tasks.size() >= stream.list_capacity) {
    session.lists.push_back(detail::CapturedList{s, {}, {}});
    stream.current_list = session.lists.size() - 1;
  }
  detail::CapturedList& list = session.lists[stream.current_list];
  Task recorded = task;
  if (storage.owns_arguments) {
    auto& kernel = std::get<KernelTask>(recorded);
    storage.inputs.reset(new const void*[std::max<size_t>(storage.input_count, 1)]);
    storage.outputs.reset(new void*[std::max<size_t>(storage.output_count, 1)]);
    std::copy_n(kernel.args.inputs, storage.input_count, storage.inputs.get());
    std::copy_n(kernel.args.outputs, storage.output_count, storage.outputs.get());
    kernel.args.inputs = storage.inputs.get();
    kernel.args.outputs = storage.outputs.get();
  }
  const size_t task_index = list.tasks.size();
  list.tasks.push_back(recorded);
  ++stream.recorded;
  ++session.task_count;
  clock_entry(stream.clock, s) = stream.recorded;
  if (record != nullptr) {
    auto [it, inserted] = session.events.try_emplace(record->event);
    if (inserted) it->second.index = session.events.size() - 1;
    it->second.clock = stream.clock;
    r.event_owner[record->event] = &session;
    storage.event_index = it->second.index;
  } else if (wait != nullptr) {
    storage.event_index = session.events.at(wait->event).index;
  }
  list.storage.push_back(std::move(storage));
  if (!session.order.empty() && session.order.back().list == stream.current_list &&
      session.order.back().end == task_index) {
    ++session.order.back().end;
  } else {
    session.order.push_back(detail::Run{s, stream.current_list, task_index, task_index + 1});
  }
  if (stream.open_group) session.groups[*stream.open_group].tasks.push_back({stream.current_list, task_index});
  return Status::ok();
}

}  // namespace

/// Reaches the private state of CaptureStream and CapturedModel for the free functions.
struct CaptureAccess {
  static Status submit(CaptureStream& self, std::span<const Task> tasks, const std::pair<size_t, size_t>* counts) {
    CaptureRegistry& r = registry();
    size_t eager = tasks.size();
    Status recorded = Status::ok();
    {
      std::lock_guard lock(r.mutex);
      if (self.session_ == nullptr) {
        // A record makes the event's latest record eager again; a wait on an event
        // captured by another stream joins that capture from this task on.
        for (size_t i = 0; i < tasks.size(); ++i) {
          if (const auto* record = std::get_if<EventRecordTask>(&tasks[i])) {
            r.event_owner.erase(record->event);
            continue;
          }
          const auto* wait = std::get_if<EventWaitTask>(&tasks[i]);
          if (wait == nullptr) continue;
          auto owner = r.event_owner.find(wait->event);
          if (owner == r.event_owner.end()) continue;
          eager = i;
          recorded = join(self, *owner->second);
          break;
        }
      } else {
        eager = 0;
        CaptureSession& session = *self.session_;
        if (session.status != CaptureStatus::kInvalidated && !may_operate(session)) {
          recorded =
              wrong_thread_submit(session, "a submit onto captured stream " + std::to_string(self.session_index_));
        }
      }
      if (self.session_ != nullptr && recorded.is_ok()) {
        CaptureSession& session = *self.session_;
        for (size_t i = eager; i < tasks.size() && recorded.is_ok(); ++i) {
          recorded = record_task(session, self.session_index_, tasks[i], counts, r);
        }
      }
    }
    Status forwarded = eager > 0 ? self.stream_->submit(tasks.first(eager)) : Status::ok();
    return recorded.is_ok() ? forwarded : recorded;
  }

  /// Joins `self` (not capturing) into `session`, whose event it waits on. Registry lock held.
  static Status join(CaptureStream& self, CaptureSession& session) {
    const std::string what = "a wait on an event it recorded, which would join a stream";
    if (session.status != CaptureStatus::kInvalidated && !may_operate(session)) {
      return wrong_thread_submit(session, what);
    }
    Result<size_t> capacity = list_capacity(self, "submit");
    if (!capacity.is_ok()) {
      invalidate(session, "a stream whose queue depth leaves no room for captured tasks tried to join it");
      return capacity.status().with_context("joining capture " + std::to_string(session.id));
    }
    self.session_ = session.shared_from_this();
    self.session_index_ = session.streams.size();
    detail::StreamState joined;
    joined.stream = &self;
    joined.list_capacity = *capacity;
    session.lists.push_back(detail::CapturedList{self.session_index_, {}, {}});
    joined.current_list = session.lists.size() - 1;
    session.streams.push_back(std::move(joined));
    return Status::ok();
  }

  /// Applies the mode rules to a synchronous call on `self`; `forbidden` tells whether to
  /// stop. `anywhere`: unsafe on every stream, else only on a stream of a capture.
  static Status check_synchronous_call(CaptureStream& self, const char* call, bool anywhere, bool& forbidden) {
    forbidden = false;
    CaptureRegistry& r = registry();
    std::lock_guard lock(r.mutex);
    if (self.session_ != nullptr && self.session_->status == CaptureStatus::kInvalidated) {
      forbidden = true;
      return invalidated_error(call, *self.session_);
    }
    if (self.session_ == nullptr && !anywhere) return Status::ok();
    Status status = check_unsafe_call_locked(call, r);
    forbidden = !status.is_ok();
    return status;
  }

  static Status begin_capture(CaptureStream& self, CaptureMode mode) {
    if (mode != CaptureMode::kGlobal && mode != CaptureMode::kThreadLocal && mode != CaptureMode::kRelaxed) {
      return invalid_argument("begin_capture: unknown capture mode " + std::to_string(static_cast<int>(mode)));
    }
    GE_ASSIGN_OR_RETURN(size_t capacity, list_capacity(self, "begin_capture"));
    CaptureRegistry& r = registry();
    std::lock_guard lock(r.mutex);
    if (self.session_ != nullptr) {
      return invalid_argument(std::string("begin_capture: the stream already takes part in capture ") +
                              std::to_string(self.session_->id) + " (status " +
                              capture_status_name(self.session_->status) + ", " +
                              (self.session_index_ == 0 ? "its origin" : "joined") + "); end that capture first");
    }
    auto session = std::make_shared<CaptureSession>();
    session->id = r.next_id++;
    session->mode = mode;
    session->thread = std::this_thread::get_id();
    detail::StreamState origin;
    origin.stream = &self;
    origin.current_list = 0;
    origin.list_capacity = capacity;
    session->streams.push_back(std::move(origin));
    session->lists.push_back(detail::CapturedList{0, {}, {}});
    r.active.push_back(session.get());
    self.session_ = std::move(session);
    self.session_index_ = 0;
    return Status::ok();
  }

  static Result<std::unique_ptr<CapturedModel>> end_capture(CaptureStream& self) {
    CaptureRegistry& r = registry();
    std::shared_ptr<CaptureSession> session;
    {
      std::lock_guard lock(r.mutex);
      if (self.session_ == nullptr) {
        return invalid_argument("end_capture: the stream is not capturing (status NONE); call begin_capture first");
      }
      if (self.session_index_ != 0) {
        return invalid_argument("end_capture: the stream joined capture " + std::to_string(self.session_->id) +
                                " begun on another stream; call end_capture on that origin stream");
      }
      if (!may_operate(*self.session_)) return wrong_thread_call("end_capture", *self.session_);
      session = self.session_;
      finish_session(*session, r);
    }
    // The session is detached from every stream: the rest needs no lock.
    if (session->status == CaptureStatus::kInvalidated) {
      return invalid_argument("end_capture: capture " + std::to_string(session->id) +
                              " was invalidated: " + session->invalidation_reason + "; no model was built");
    }
    for (size_t s = 0; s < session->streams.size(); ++s) {
      if (session->streams[s].open_group) {
        return invalid_argument("end_capture: captured stream " + std::to_string(s) +
                                " still has an open task group; call end_task_group before end_capture");
      }
    }
    std::vector<size_t>& origin_clock = session->streams[0].clock;
    for (size_t s = 1; s < session->streams.size(); ++s) {
      const size_t known = clock_entry(origin_clock, s);
      const size_t recorded = session->streams[s].recorded;
      if (known < recorded) {
        return invalid_argument("end_capture: unjoined work: captured stream " + std::to_string(s) + " has " +
                                std::to_string(recorded - known) +
                                " task(s) the origin stream does not wait on; record an event on that stream "
                                "after its last task and wait on it on the origin stream before end_capture");
      }
    }
    auto impl = std::make_unique<CapturedModel::Impl>();
    impl->capture_id = session->id;
    impl->mode = session->mode;
    impl->thread = session->thread;
    impl->stream_count = session->streams.size();
    impl->task_count = session->task_count;
    impl->events.resize(session->events.size());
    for (auto& event : impl->events) {
      auto created = self.device_.create_event();
      if (!created) {
        return created.status().with_context("end_capture: creating the replay events on device '" +
                                             self.device_.name() + "'");
      }
      event = std::move(created).value();
    }
    for (auto& list : session->lists) {
      for (size_t i = 0; i < list.tasks.size(); ++i) {
        if (auto* record = std::get_if<EventRecordTask>(&list.tasks[i])) {
          record->event = impl->events[list.storage[i].event_index].get();
        } else if (auto* wait = std::get_if<EventWaitTask>(&list.tasks[i])) {
          wait->event = impl->events[list.storage[i].event_index].get();
        }
      }
    }
    impl->lists = std::move(session->lists);
    impl->order = std::move(session->order);
    impl->groups = std::move(session->groups);
    return std::unique_ptr<CapturedModel>(new CapturedModel(std::move(impl)));
  }

  static CaptureStatus status(const CaptureStream& self) {
    std::lock_guard lock(registry().mutex);
    return self.session_ == nullptr ? CaptureStatus::kNone : self.session_->status;
  }

  static CaptureInfo info(const CaptureStream& self) {
    std::lock_guard lock(registry().mutex);
    CaptureInfo info;
    if (self.session_ == nullptr) return info;
    const CaptureSession& session = *self.session_;
    info.status = session.status;
    info.capture_id = session.id;
    info.mode = session.mode;
    info.thread = session.thread;
    info.origin = self.session_index_ == 0;
    info.task_count = session.task_count;
    info.stream_count = session.streams.size();
    info.list_count = session.lists.size();
    info.task_group_count = session.groups.size();
    info.invalidation_reason = session.invalidation_reason;
    return info;
  }

  static Status begin_task_group(CaptureStream& self) {
    std::lock_guard lock(registry().mutex);
    if (self.session_ == nullptr)
      return invalid_argument("begin_task_group: the stream is not capturing (status NONE)");
    CaptureSession& session = *self.session_;
    if (session.status == CaptureStatus::kInvalidated) return invalidated_error("begin_task_group", session);
    if (!may_operate(session)) return wrong_thread_call("begin_task_group", session);
    detail::StreamState& stream = session.streams[self.session_index_];
    if (stream.open_group) {
      return invalid_argument("begin_task_group: the stream already has an open task group; call end_task_group first");
    }
    session.groups.push_back(detail::TaskGroupRecord{self.session_index_, {}});
    stream.open_group = session.groups.size() - 1;
    return Status::ok();
  }

  static Result<TaskGroupHandle> end_task_group(CaptureStream& self) {
    std::lock_guard lock(registry().mutex);
    if (self.session_ == nullptr) return invalid_argument("end_task_group: the stream is not capturing (status NONE)");
    CaptureSession& session = *self.session_;
    if (!may_operate(session)) return wrong_thread_call("end_task_group", session);
    detail::StreamState& stream = session.streams[self.session_index_];
    if (!stream.open_group) {
      return invalid_argument("end_task_group: the stream has no open task group; call begin_task_group first");
    }
    const size_t index = *stream.open_group;
    stream.open_group.reset();
    if (session.status == CaptureStatus::kInvalidated) return invalidated_error("end_task_group", session);
    if (session.groups[index].tasks.empty()) {
      return invalid_argument("end_task_group: task group " + std::to_string(index) +
                              " recorded no task; launch its tasks between begin_task_group and end_task_group");
    }
    return TaskGroupHandle{session.id, index};
  }

  static void destroy(CaptureStream& self) {
    CaptureRegistry& r = registry();
    std::lock_guard lock(r.mutex);
    if (self.session_ == nullptr) return;
    if (self.session_index_ == 0) {
      std::shared_ptr<CaptureSession> keep = self.session_;
      finish_session(*keep, r);
      return;
    }
    CaptureSession& session = *self.session_;
    session.streams[self.session_index_].stream = nullptr;
    invalidate(session, "joined stream " + std::to_string(self.session_index_) + " was destroyed during the capture");
    self.session_.reset();
  }

  static void detach(CaptureStream& stream) {
    stream.session_.reset();
    stream.session_index_ = 0;
  }
};

namespace {

void finish_session(CaptureSession& session, CaptureRegistry& r) {
  std::erase(r.active, &session);
  for (auto it = r.event_owner.begin(); it != r.event_owner.end();) {
    it = it->second == &session ? r.event_owner.erase(it) : std::next(it);
  }
  // Detaching drops the streams' references; callers hold their own while this runs.
  std::vector<CaptureStream*> streams;
  for (auto& state : session.streams) {
    if (state.stream != nullptr) streams.push_back(state.stream);
    state.stream = nullptr;
  }
  for (CaptureStream* stream : streams) CaptureAccess::detach(*stream);
}

}  // namespace

const char* capture_mode_name(CaptureMode mode) {
  switch (mode) {
    case CaptureMode::kGlobal:
      return "GLOBAL";
    case CaptureMode::kThreadLocal:
      return "THREAD_LOCAL";
    case CaptureMode::kRelaxed:
      return "RELAXED";
  }
  return "UNKNOWN";
}

const char* capture_status_name(CaptureStatus status) {
  switch (status) {
    case CaptureStatus::kNone:
      return "NONE";
    case CaptureStatus::kActive:
      return "ACTIVE";
    case CaptureStatus::kInvalidated:
      return "INVALIDATED";
    case CaptureStatus::kCompleted:
      return "COMPLETED";
  }
  return "UNKNOWN";
}

const char* captured_model_state_name(CapturedModelState state) {
  switch (state) {
    case CapturedModelState::kReady:
      return "READY";
    case CapturedModelState::kUpdating:
      return "UPDATING";
    case CapturedModelState::kFault:
      return "FAULT";
  }
  return "UNKNOWN";
}

Status exchange_capture_mode(CaptureMode& mode) {
  if (mode != CaptureMode::kGlobal && mode != CaptureMode::kThreadLocal && mode != CaptureMode::kRelaxed) {
    return invalid_argument("exchange_capture_mode: unknown capture mode " + std::to_string(static_cast<int>(mode)) +
                            "; the thread keeps mode " + capture_mode_name(t_thread_mode));
  }
  std::swap(mode, t_thread_mode);
  return Status::ok();
}

Status check_unsafe_call(const char* call) {
  CaptureRegistry& r = registry();
  std::lock_guard lock(r.mutex);
  return check_unsafe_call_locked(call, r);
}

CaptureStream::CaptureStream(Device& device, std::unique_ptr<Stream> stream, CaptureStreamOptions options)
    : device_(device), stream_(std::move(stream)), options_(options) {}

Result<std::unique_ptr<CaptureStream>> CaptureStream::create(Device& device, CaptureStreamOptions options) {
  auto stream = device.create_stream();
  if (!stream) return stream.status().with_context("CaptureStream::create on device '" + device.name() + "'");
  return std::make_unique<CaptureStream>(device, std::move(stream).value(), options);
}

CaptureStream::~CaptureStream() { CaptureAccess::destroy(*this); }

size_t CaptureStream::queue_depth() const {
  return options_.queue_depth != 0 ? options_.queue_depth : device_.queue_depth();
}

Status CaptureStream::submit(std::span<const Task> tasks) { return CaptureAccess::submit(*this, tasks, nullptr); }

Status CaptureStream::synchronize() {
  bool forbidden = false;
  Status status = CaptureAccess::check_synchronous_call(*this, "synchronize()", false, forbidden);
  if (forbidden) return status;
  return stream_->synchronize();
}

Status CaptureStream::launch(const KernelTask& task, size_t input_count, size_t output_count) {
  const std::pair<size_t, size_t> counts{input_count, output_count};
  const Task one[] = {task};
  return CaptureAccess::submit(*this, one, &counts);
}

Status CaptureStream::copy_sync(void* destination, const void* source, size_t bytes) {
  bool forbidden = false;
  Status status = CaptureAccess::check_synchronous_call(*this, "copy_sync()", true, forbidden);
  if (forbidden) return status;
  const Task copy[] = {MemcpyTask{destination, source, bytes}};
  if (Status submitted = stream_->submit(copy); !submitted) return submitted;
  return stream_->synchronize();
}

Result<void*> CaptureDevice::allocate(size_t bytes, size_t alignment) {
  GE_RETURN_IF_ERROR(check_unsafe_call("CaptureDevice::allocate"));
  return device_.allocate(bytes, alignment);
}

void CaptureDevice::deallocate(void* pointer) {
  // Freeing cannot fail: the memory goes back either way, the captures learn of it.
  if (pointer != nullptr) (void)check_unsafe_call("CaptureDevice::deallocate");
  device_.deallocate(pointer);
}

Status CaptureDevice::copy_to_device(void* device_destination, const void* host_source, size_t bytes) {
  GE_RETURN_IF_ERROR(check_unsafe_call("CaptureDevice::copy_to_device"));
  return device_.copy_to_device(device_destination, host_source, bytes);
}

Status CaptureDevice::copy_to_host(void* host_destination, const void* device_source, size_t bytes) {
  GE_RETURN_IF_ERROR(check_unsafe_call("CaptureDevice::copy_to_host"));
  return device_.copy_to_host(host_destination, device_source, bytes);
}

Status begin_capture(CaptureStream& stream, CaptureMode mode) { return CaptureAccess::begin_capture(stream, mode); }

Result<std::unique_ptr<CapturedModel>> end_capture(CaptureStream& stream) { return CaptureAccess::end_capture(stream); }

CaptureStatus capture_status(const CaptureStream& stream) { return CaptureAccess::status(stream); }

CaptureInfo capture_info(const CaptureStream& stream) { return CaptureAccess::info(stream); }

Status begin_task_group(CaptureStream& stream) { return CaptureAccess::begin_task_group(stream); }

Result<TaskGroupHandle> end_task_group(CaptureStream& stream) { return CaptureAccess::end_task_group(stream); }

Status CapturedModel::Impl::check_executable(const std::string& call) const {
  const std::string model = "the model of capture " + std::to_string(capture_id);
  if (state == CapturedModelState::kUpdating) {
    return invalid_argument(call + ": " + model +
                            " is UPDATING (begin_update without end_update); call end_update before executing it");
  }
  if (state == CapturedModelState::kFault) {
    return invalid_argument(call + ": " + model + " is FAULT: " + fault_reason +
                            "; redo the update (begin_update, update_task_group for every group, end_update) "
                            "before executing it");
  }
  if (task_count == 0) {
    return invalid_argument(call + ": the model is empty (its capture recorded no task); nothing to replay");
  }
  return Status::ok();
}

Status CapturedModel::Impl::check_streams(const std::string& call, std::span<Stream* const> streams) const {
  if (streams.size() != stream_count) {
    return invalid_argument(call + ": the model captured " + std::to_string(stream_count) + " stream(s) but " +
                            std::to_string(streams.size()) + " were given");
  }
  for (size_t i = 0; i < streams.size(); ++i) {
    if (streams[i] == nullptr) return invalid_argument(call + ": stream " + std::to_string(i) + " is null");
  }
  return Status::ok();
}

CapturedModel::CapturedModel(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
CapturedModel::~CapturedModel() = default;

Status CapturedModel::execute(Stream& stream) {
  std::shared_lock lock(impl_->mutex);
  GE_RETURN_IF_ERROR(impl_->check_executable("CapturedModel::execute"));
  for (const detail::Run& run : impl_->order) {
    std::span<const Task> tasks(impl_->lists[run.list].tasks);
    if (Status status = stream.submit(tasks.subspan(run.begin, run.end - run.begin)); !status) {
      return status.with_context("CapturedModel::execute (capture " + std::to_string(impl_->capture_id) + ")");
    }
  }
  return Status::ok();
}

Status CapturedModel::execute(std::span<Stream* const> streams) {
  std::shared_lock lock(impl_->mutex);
  GE_RETURN_IF_ERROR(impl_->check_executable("CapturedModel::execute"));
  GE_RETURN_IF_ERROR(impl_->check_streams("CapturedModel::execute", streams));
  for (const detail::Run& run : impl_->order) {
    std::span<const Task> tasks(impl_->lists[run.list].tasks);
    if (Status status = streams[run.stream]->submit(tasks.subspan(run.begin, run.end - run.begin)); !status) {
      return status.with_context("CapturedModel::execute (capture " + std::to_string(impl_->capture_id) + ", stream " +
                                 std::to_string(run.stream) + ")");
    }
  }
  return Status::ok();
}

Status CapturedModel::run(std::span<Stream* const> streams, const CancellationToken* cancellation) {
  std::shared_lock lock(impl_->mutex);
  GE_RETURN_IF_ERROR(impl_->check_executable("CapturedModel::execute"));
  GE_RETURN_IF_ERROR(impl_->check_streams("CapturedModel::execute", streams));
  size_t total = 0, done = 0;
  for (const detail::Run& run : impl_->order) total += run.end - run.begin;
  auto stopped = [&] {
    return cancelled("the run was cancelled (its CancellationToken was tripped) after " + std::to_string(done) +
                     " of its " + std::to_string(total) + " tasks");
  };
  if (cancellation != nullptr && cancellation->cancelled()) return stopped();
  const bool sliced = cancellation != nullptr && streams.size() == 1;
  Status first = Status::ok();
  const size_t runs = impl_->order.size();
  for (size_t r = 0; r < runs && first.is_ok(); ++r) {
    const detail::Run& run = impl_->order[r];
    std::span<const Task> tasks =
        std::span<const Task>(impl_->lists[run.list].tasks).subspan(run.begin, run.end - run.begin);
    Stream& stream = *streams[run.stream];
    // One stream: every run in order on the calling thread when the stream is idle (a
    // submit would wake a worker only for the last run() to wait for it). Several: all
    // but the last go to their streams' workers, so the streams overlap.
    Status status = Status::ok();
    if (sliced) {
      for (size_t begin = 0; begin < tasks.size() && status.is_ok(); begin += kCancellationSlice) {
        if (done > 0 && cancellation->cancelled()) return stopped();  // the one stream is idle: nothing to wait for
        const std::span<const Task> slice = tasks.subspan(begin, std::min(kCancellationSlice, tasks.size() - begin));
        status = stream.run(slice);
        done += slice.size();
      }
    } else {
      status = r + 1 == runs || streams.size() == 1 ? stream.run(tasks) : stream.submit(tasks);
    }
    if (!status.is_ok()) {
      first = status.with_context("CapturedModel::run (capture " + std::to_string(impl_->capture_id) + ", stream " +
                                  std::to_string(run.stream) + ")");
    }
  }
  for (size_t i = 0; i < streams.size(); ++i) {
    Status status = streams[i]->synchronize();
    if (first.is_ok() && !status.is_ok()) first = status.with_context("stream " + std::to_string(i));
  }
  return first;
}

Status CapturedModel::update_task_group(const TaskGroupHandle& handle, std::span<const Task> tasks) {
  std::unique_lock lock(impl_->mutex);
  if (impl_->state == CapturedModelState::kFault) {
    return invalid_argument("update_task_group: the model of capture " + std::to_string(impl_->capture_id) +
                            " is FAULT (" + impl_->fault_reason + "); call begin_update to start a new update");
  }
  Status status = impl_->apply_update(handle, tasks);
  if (!status.is_ok() && impl_->state == CapturedModelState::kUpdating) {
    // Other groups of this update may hold new arguments already: the model is a mix.
    impl_->state = CapturedModelState::kFault;
    impl_->fault_reason = "a task-group update failed during begin_update/end_update (" + status.message() + ")";
    return invalid_argument(status.message() + "; the model is now FAULT until an update completes");
  }
  return status;
}

Status CapturedModel::begin_update() {
  std::unique_lock lock(impl_->mutex);
  if (impl_->state == CapturedModelState::kUpdating) {
    return invalid_argument("begin_update: the model of capture " + std::to_string(impl_->capture_id) +
                            " is already UPDATING; call end_update first");
  }
  impl_->state = CapturedModelState::kUpdating;
  return Status::ok();
}

Status CapturedModel::end_update() {
  std::unique_lock lock(impl_->mutex);
  const std::string model = "the model of capture " + std::to_string(impl_->capture_id);
  if (impl_->state == CapturedModelState::kReady) {
    return invalid_argument("end_update: " + model + " is READY: no update is in progress; call begin_update first");
  }
  if (impl_->state == CapturedModelState::kFault) {
    return invalid_argument("end_update: " + model + " stays FAULT: " + impl_->fault_reason +
                            "; call begin_update and update every group again");
  }
  impl_->state = CapturedModelState::kReady;
  impl_->fault_reason.clear();
  return Status::ok();
}

CapturedModelState CapturedModel::state() const {
  std::shared_lock lock(impl_->mutex);
  return impl_->state;
}

Status CapturedModel::Impl::apply_update(const TaskGroupHandle& handle, std::span<const Task> tasks) {
  const std::string call = "update_task_group";
  if (handle.capture_id == 0) {
    return invalid_argument(call + ": invalid handle (not returned by end_task_group)");
  }
  if (handle.capture_id != capture_id) {
    return invalid_argument(call + ": the handle belongs to capture " + std::to_string(handle.capture_id) +
                            ", not to this model (capture " + std::to_string(capture_id) + ")");
  }
  if (handle.index >= groups.size()) {
    return invalid_argument(call + ": the handle names task group " + std::to_string(handle.index) +
                            " but the model has " + std::to_string(groups.size()));
  }
  const detail::TaskGroupRecord& group = groups[handle.index];
  const std::string name = "task group " + std::to_string(handle.index);
  if (tasks.size() != group.tasks.size()) {
    return invalid_argument(call + ": " + name + " has " + std::to_string(group.tasks.size()) +
                            " task(s) but the update gives " + std::to_string(tasks.size()));
  }
  // Validate everything first: a failed update changes nothing.
  for (size_t i = 0; i < tasks.size(); ++i) {
    const auto& position = group.tasks[i];
    const Task& captured = lists[position.list].tasks[position.task];
    const detail::TaskStorage& storage = lists[position.list].storage[position.task];
    if (captured.index() != tasks[i].index()) {
      return invalid_argument(call + ": task " + std::to_string(i) + " of " + name + " is " + task_kind_name(captured) +
                              " but the update gives " + task_kind_name(tasks[i]));
    }
    if (const auto* kernel = std::get_if<KernelTask>(&tasks[i])) {
      const auto& old = std::get<KernelTask>(captured);
      if (kernel->function != old.function) {
        return invalid_argument(call + ": task " + std::to_string(i) + " of " + name + " launches kernel '" + old.name +
                                "' but the update launches a different kernel function ('" + kernel->name + "')");
      }
      if (storage.owns_arguments && ((storage.input_count > 0 && kernel->args.inputs == nullptr) ||
                                     (storage.output_count > 0 && kernel->args.outputs == nullptr))) {
        return invalid_argument(call + ": task " + std::to_string(i) + " of " + name + " (kernel '" + old.name +
                                "') has a null address array in the update");
      }
    }
  }
  for (size_t i = 0; i < tasks.size(); ++i) {
    const auto& position = group.tasks[i];
    Task& captured = lists[position.list].tasks[position.task];
    detail::TaskStorage& storage = lists[position.list].storage[position.task];
    if (const auto* kernel = std::get_if<KernelTask>(&tasks[i])) {
      auto& old = std::get<KernelTask>(captured);
      old.name = kernel->name;
      old.args.workspace = kernel->args.workspace;
      old.args.params = kernel->args.params;
      if (storage.owns_arguments) {
        std::copy_n(kernel->args.inputs, storage.input_count, storage.inputs.get());
        std::copy_n(kernel->args.outputs, storage.output_count, storage.outputs.get());
      } else {
        old.args.inputs = kernel->args.inputs;
        old.args.outputs = kernel->args.outputs;
      }
    } else if (const auto* copy = std::get_if<MemcpyTask>(&tasks[i])) {
      captured = *copy;
    } else if (const auto* memset = std::get_if<MemsetTask>(&tasks[i])) {
      captured = *memset;
    }
  }
  return Status::ok();
}

CaptureInfo CapturedModel::capture_info() const {
  CaptureInfo info;
  info.status = CaptureStatus::kCompleted;
  info.capture_id = impl_->capture_id;
  info.mode = impl_->mode;
  info.thread = impl_->thread;
  info.origin = true;
  info.task_count = impl_->task_count;
  info.stream_count = impl_->stream_count;
  info.list_count = impl_->lists.size();
  info.task_group_count = impl_->groups.size();
  return info;
}

size_t CapturedModel::task_count() const { return impl_->task_count; }
size_t CapturedModel::stream_count() const { return impl_->stream_count; }
size_t CapturedModel::list_count() const { return impl_->lists.size(); }
size_t CapturedModel::cascade_list_count() const { return impl_->lists.size() - impl_->stream_count; }
size_t CapturedModel::task_group_count() const { return impl_->groups.size(); }
size_t CapturedModel::event_count() const { return impl_->events.size(); }
uint64_t CapturedModel::capture_id() const { return impl_->capture_id; }

}  // namespace ge
