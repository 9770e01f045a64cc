#include "cpu_stream.h"

#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <exception>
#include <iterator>
#include <mutex>
#include <string>
#include <utility>
#include <variant>
#include <vector>

#include "cpu_event.h"
#include "ge/reference_kernels/kernel_library.h"

namespace ge {
namespace {

/// A task as queued: its event point (records and waits) resolved at submit time.
struct QueuedTask {
  Task task;
  uint64_t point = 0;
  size_t index = 0;  // in its submit() call, for messages
};

std::string kernel_name(const KernelTask& task) {
  return task.name != nullptr && task.name[0] != '\0' ? task.name : "<unnamed>";
}

/// "kernel 'cpu.Gather' of Gather 'idx' (task 3)".
std::string describe(const KernelTask& task, size_t index) {
  std::string text = "kernel '" + kernel_name(task) + "'";
  if (task.node != nullptr) text += std::string(" of ") + task.node;
  return text + " (task " + std::to_string(index) + ")";
}

Status validate(const Task& task, size_t index) {
  if (const auto* kernel = std::get_if<KernelTask>(&task)) {
    if (kernel->function == nullptr) {
      return internal_error("cpu stream: task " + std::to_string(index) + " (kernel '" + kernel_name(*kernel) +
                            "') has no kernel function");
    }
  } else if (const auto* copy = std::get_if<MemcpyTask>(&task)) {
    if (copy->bytes != 0 && (copy->destination == nullptr || copy->source == nullptr)) {
      return internal_error("cpu stream: memcpy task " + std::to_string(index) + " of " + std::to_string(copy->bytes) +
                            " bytes has a null address");
    }
  } else if (const auto* memset = std::get_if<MemsetTask>(&task)) {
    if (memset->bytes != 0 && memset->destination == nullptr) {
      return internal_error("cpu stream: memset task " + std::to_string(index) + " of " +
                            std::to_string(memset->bytes) + " bytes has a null address");
    }
  } else {
    const bool record = std::holds_alternative<EventRecordTask>(task);
    Event* event = record ? std::get<EventRecordTask>(task).event : std::get<EventWaitTask>(task).event;
    const std::string what = std::string("cpu stream: event ") + (record ? "record" : "wait") + " task " +
                             std::to_string(index);
    if (event == nullptr) return internal_error(what + " has no event");
    if (dynamic_cast<CpuEvent*>(event) == nullptr) {
      return invalid_argument(what + " names an event of another device; create it with the cpu device");
    }
  }
  return Status::ok();
}

/// Runs a kernel, a copy or a memset; events are handled by the caller.
Status run_work(const Task& task, size_t index) {
  if (const auto* kernel = std::get_if<KernelTask>(&task)) {
    int code = 0;
    try {
      code = kernel->function(kernel->args);
    } catch (const std::exception& error) {
      return internal_error("cpu stream: " + describe(*kernel, index) + " threw: " + error.what());
    }
    if (code != 0) {
      return invalid_argument("cpu stream: " + describe(*kernel, index) + " " + reference_kernels::describe_kernel_failure(code));
    }
  } else if (const auto* copy = std::get_if<MemcpyTask>(&task)) {
    // memmove: the planner may place a copy's source and destination in one region.
    if (copy->bytes != 0) std::memmove(copy->destination, copy->source, copy->bytes);
  } else if (const auto* memset = std::get_if<MemsetTask>(&task)) {
    if (memset->bytes != 0) std::memset(memset->destination, memset->value, memset->bytes);
  }
  return Status::ok();
}

}  // namespace

/// The queue and run state of one asynchronous stream. At most one thread drains it at a
/// time (`running_`); it is in the pool's FIFO at most once (`scheduled_`); `blocked_`
/// means its next task waits for an event that will reschedule it.
class CpuStream::Queue final : public CpuRunnable,
                               public CpuEventWaiter,
                               public std::enable_shared_from_this<CpuStream::Queue> {
 public:
  Queue(CpuWorkerPool& pool, std::shared_ptr<CpuTaskTracer> tracer, std::shared_ptr<CpuTaskTracer::StreamTrace> trace)
      : pool_(pool), tracer_(std::move(tracer)), trace_(std::move(trace)) {}

  /// Queues validated tasks. Event points are taken under the queue lock, so they follow
  /// queue order even with several submitting threads.
  void push(std::span<const Task> tasks) {
    std::unique_lock<std::mutex> lock(mutex_);
    enqueue(tasks);
    schedule(lock);
  }

  /// Queues validated tasks without scheduling a worker, then waits as synchronize()
  /// does, which runs them on this thread unless a worker is already running the queue
  /// (it picks them up) or it waits for an event (whose record reschedules it).
  Status run_now(std::span<const Task> tasks) {
    std::unique_lock<std::mutex> lock(mutex_);
    if (running_ || blocked_ || !tasks_.empty()) {
      enqueue(tasks);
      return synchronize_locked(lock);
    }
    // Idle: run the caller's tasks here, straight from its span (no copy). Their event
    // points are taken now, under the lock and in order, as enqueue() would take them.
    inline_points_.clear();
    for (size_t i = 0; i < tasks.size(); ++i) {
      if (const auto* record = std::get_if<EventRecordTask>(&tasks[i])) {
        inline_points_.emplace_back(i, static_cast<CpuEvent*>(record->event)->enqueue_record());
      } else if (const auto* wait = std::get_if<EventWaitTask>(&tasks[i])) {
        inline_points_.emplace_back(i, static_cast<CpuEvent*>(wait->event)->last_enqueued());
      }
    }
    running_ = true;
    bool failed = failed_;
    lock.unlock();
    const bool tracing = trace_ != nullptr && tracer_->enabled();
    size_t next = 0, event = 0;
    auto point_of = [&](size_t i) {
      return event < inline_points_.size() && inline_points_[event].first == i ? inline_points_[event++].second : 0;
    };
    for (; next < tasks.size(); ++next) {
      if (!step(tasks[next], point_of(next), next, failed, tracing)) break;
    }
    if (!traced_.empty()) trace_->append(traced_);
    lock.lock();
    if (next < tasks.size()) {
      // Blocked on an event: the rest goes in front of anything submitted meanwhile and
      // drain() takes over (it waits for the event, or goes on if it was reached since).
      std::vector<QueuedTask> rest;
      rest.reserve(tasks.size() - next);
      for (size_t i = next; i < tasks.size(); ++i) {
        const uint64_t point = i == next ? inline_points_[event - 1].second : point_of(i);
        rest.push_back(QueuedTask{tasks[i], point, i});
      }
      tasks_.insert(tasks_.begin(), std::make_move_iterator(rest.begin()), std::make_move_iterator(rest.end()));
    }
    drain(lock);  // also runs what other threads submitted meanwhile; clears running_
    return synchronize_locked(lock);
  }

  void run() override {
    std::unique_lock<std::mutex> lock(mutex_);
    scheduled_ = false;
    if (running_ || blocked_ || tasks_.empty()) return;
    running_ = true;
    drain(lock);
  }

  void on_event_reached() override {
    std::unique_lock<std::mutex> lock(mutex_);
    if (closed_) return;
    if (running_) {
      wake_pending_ = true;  // the runner is yielding right now: it will go on instead
      return;
    }
    if (!blocked_) return;
    blocked_ = false;
    schedule(lock);
  }

  Status synchronize() {
    std::unique_lock<std::mutex> lock(mutex_);
    return synchronize_locked(lock);
  }

  void close() {
    (void)synchronize();
    std::lock_guard<std::mutex> lock(mutex_);
    closed_ = true;
  }

 private:
  /// Appends validated tasks; called with the queue lock held.
  void enqueue(std::span<const Task> tasks) {
    for (size_t i = 0; i < tasks.size(); ++i) {
      uint64_t point = 0;
      if (const auto* record = std::get_if<EventRecordTask>(&tasks[i])) {
        point = static_cast<CpuEvent*>(record->event)->enqueue_record();
      } else if (const auto* wait = std::get_if<EventWaitTask>(&tasks[i])) {
        point = static_cast<CpuEvent*>(wait->event)->last_enqueued();
      }
      tasks_.push_back(QueuedTask{tasks[i], point, i});
    }
  }

  Status synchronize_locked(std::unique_lock<std::mutex>& lock) {
    // No worker has started it yet: run it here rather than wait for one to wake up.
    if (!running_ && !blocked_ && !tasks_.empty()) {
      running_ = true;
      drain(lock);
    }
    idle_.wait(lock, [this] { return !running_ && !blocked_ && tasks_.empty(); });
    Status first = std::move(error_);
    error_ = Status::ok();
    failed_ = false;
    return first;
  }

  /// Schedules the queue on the pool unless someone runs it, it is queued or blocked.
  void schedule(std::unique_lock<std::mutex>& lock) {
    if (running_ || blocked_ || tasks_.empty()) return;
    // In a forked child the pool's FIFO entry is gone with its workers: run inline.
    if (scheduled_ && pool_.owned_by_this_process()) return;
    scheduled_ = true;
    lock.unlock();
    pool_.schedule(shared_from_this());
  }

  /// Runs queued tasks until the queue is empty or the next task waits for an unreached
  /// event. Called and returns with `lock` held and `running_` set (cleared on return).
  /// Runs one task on the running thread, without the lock. Returns false for a wait
  /// whose event is not reached yet (the queue is registered to be woken when it is).
  /// After a failure kernels and copies are skipped, waits pass, records still fire.
  bool step(const Task& task, uint64_t point, size_t index, bool& failed, bool tracing) {
    const double start_ns = tracing ? tracer_->now_ns() : 0;
    if (const auto* wait = std::get_if<EventWaitTask>(&task)) {
      if (failed) return true;
      if (point != 0 && !static_cast<CpuEvent*>(wait->event)->reached_or_register(point, weak_from_this())) return false;
    } else if (const auto* record = std::get_if<EventRecordTask>(&task)) {
      static_cast<CpuEvent*>(record->event)->mark_reached(point);
    } else if (failed) {
      return true;
    } else {
      Status status = run_work(task, index);
      if (!status.is_ok()) {
        failed = true;
        std::lock_guard<std::mutex> error_lock(mutex_);
        if (!failed_) {
          failed_ = true;
          error_ = std::move(status);
        }
      }
    }
    if (tracing) traced_.push_back(make_task_trace_record(trace_->stream(), task, start_ns, tracer_->now_ns()));
    return true;
  }

  void drain(std::unique_lock<std::mutex>& lock) {
    for (;;) {
      wake_pending_ = false;
      if (tasks_.empty()) break;
      bool failed = failed_;
      std::swap(tasks_, batch_);
      lock.unlock();
      // Read once per batch: the only cost of tracing while it is off.
      const bool tracing = trace_ != nullptr && tracer_->enabled();
      size_t next = 0;
      for (; next < batch_.size(); ++next) {
        const QueuedTask& queued = batch_[next];
        if (!step(queued.task, queued.point, queued.index, failed, tracing)) break;
      }
      if (!traced_.empty()) trace_->append(traced_);
      lock.lock();
      if (next < batch_.size()) {
        // Blocked on an event: put the rest back in front of anything submitted since.
        tasks_.insert(tasks_.begin(), std::make_move_iterator(batch_.begin() + static_cast<std::ptrdiff_t>(next)),
                      std::make_move_iterator(batch_.end()));
        batch_.clear();
        if (wake_pending_) continue;  // reached while we were giving up: go on
        blocked_ = true;
        break;
      }
      batch_.clear();
    }
    running_ = false;
    idle_.notify_all();  // under the lock: a waiter may destroy the stream once woken
  }

  CpuWorkerPool& pool_;
  std::mutex mutex_;
  std::condition_variable idle_;
  std::vector<QueuedTask> tasks_;
  std::vector<QueuedTask> batch_;  // only the running thread touches it
  std::vector<std::pair<size_t, uint64_t>> inline_points_;  // run_now(): (task, event point); running thread only
  std::shared_ptr<CpuTaskTracer> tracer_;
  std::shared_ptr<CpuTaskTracer::StreamTrace> trace_;
  std::vector<TaskTraceRecord> traced_;  // this batch's records; only the running thread touches it
  bool scheduled_ = false;
  bool running_ = false;
  bool blocked_ = false;
  bool wake_pending_ = false;
  bool closed_ = false;
  bool failed_ = false;
  Status error_ = Status::ok();
};

CpuStream::CpuStream(std::shared_ptr<CpuWorkerPool> pool, std::shared_ptr<CpuTaskTracer> tracer,
                     std::shared_ptr<CpuTaskTracer::StreamTrace> trace)
    : pool_(std::move(pool)), tracer_(std::move(tracer)), trace_(tracer_ != nullptr ? std::move(trace) : nullptr) {
  if (pool_ != nullptr) queue_ = std::make_shared<Queue>(*pool_, tracer_, trace_);
}

CpuStream::~CpuStream() {
  if (queue_ != nullptr) queue_->close();
}

Status CpuStream::submit(std::span<const Task> tasks) {
  for (size_t i = 0; i < tasks.size(); ++i) GE_RETURN_IF_ERROR(validate(tasks[i], i));
  if (queue_ == nullptr) return run_synchronously(tasks);
  queue_->push(tasks);
  return Status::ok();
}

Status CpuStream::run(std::span<const Task> tasks) {
  for (size_t i = 0; i < tasks.size(); ++i) GE_RETURN_IF_ERROR(validate(tasks[i], i));
  if (queue_ == nullptr) return run_synchronously(tasks);
  return queue_->run_now(tasks);
}

Status CpuStream::synchronize() { return queue_ == nullptr ? Status::ok() : queue_->synchronize(); }

Status CpuStream::run_synchronously(std::span<const Task> tasks) {
  const bool tracing = trace_ != nullptr && tracer_->enabled();
  std::vector<TaskTraceRecord> traced;
  Status status = Status::ok();
  for (size_t i = 0; i < tasks.size() && status.is_ok(); ++i) {
    const double start_ns = tracing ? tracer_->now_ns() : 0;
    if (const auto* record = std::get_if<EventRecordTask>(&tasks[i])) {
      auto* event = static_cast<CpuEvent*>(record->event);
      event->mark_reached(event->enqueue_record());
    } else if (!std::holds_alternative<EventWaitTask>(tasks[i])) {
      // A wait has nothing to wait for: every record submitted before it already ran.
      status = run_work(tasks[i], i);
    }
    if (tracing) traced.push_back(make_task_trace_record(trace_->stream(), tasks[i], start_ns, tracer_->now_ns()));
  }
  if (!traced.empty()) trace_->append(traced);
  return status;
}

}  // namespace ge
