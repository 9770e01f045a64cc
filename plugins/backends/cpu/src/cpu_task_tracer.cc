#include "cpu_task_tracer.h"

#include <iterator>
#include <utility>
#include <variant>

namespace ge {

void CpuTaskTracer::StreamTrace::append(std::vector<TaskTraceRecord>& records) {
  std::lock_guard<std::mutex> lock(mutex_);
  records_.insert(records_.end(), std::make_move_iterator(records.begin()), std::make_move_iterator(records.end()));
  records.clear();
}

bool CpuTaskTracer::StreamTrace::empty() {
  std::lock_guard<std::mutex> lock(mutex_);
  return records_.empty();
}

void CpuTaskTracer::StreamTrace::take(std::vector<TaskTraceRecord>& into) {
  std::lock_guard<std::mutex> lock(mutex_);
  into.insert(into.end(), std::make_move_iterator(records_.begin()), std::make_move_iterator(records_.end()));
  records_.clear();
}

std::shared_ptr<CpuTaskTracer::StreamTrace> CpuTaskTracer::add_stream() {
  std::lock_guard<std::mutex> lock(mutex_);
  // Destroyed streams with nothing left to take: keeps the list short without tracing.
  std::erase_if(streams_, [](const std::shared_ptr<StreamTrace>& trace) {
    return trace.use_count() == 1 && trace->empty();
  });
  streams_.push_back(std::make_shared<StreamTrace>(next_stream_++));
  return streams_.back();
}

void CpuTaskTracer::set_enabled(bool enabled) {
  if (enabled) {
    (void)take();
    epoch_ns_.store(
        std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now().time_since_epoch())
            .count(),
        std::memory_order_relaxed);
  }
  enabled_.store(enabled, std::memory_order_release);
}

std::vector<TaskTraceRecord> CpuTaskTracer::take() {
  std::lock_guard<std::mutex> lock(mutex_);
  std::vector<TaskTraceRecord> records;
  for (const std::shared_ptr<StreamTrace>& trace : streams_) trace->take(records);
  // A buffer only this tracer holds belongs to a destroyed stream: nothing more comes.
  std::erase_if(streams_, [](const std::shared_ptr<StreamTrace>& trace) { return trace.use_count() == 1; });
  return records;
}

TaskTraceRecord make_task_trace_record(int stream, const Task& task, double start_ns, double end_ns) {
  TaskTraceRecord record;
  record.stream = stream;
  record.start_ns = start_ns;
  record.end_ns = end_ns;
  if (const auto* kernel = std::get_if<KernelTask>(&task)) {
    record.name = kernel->name != nullptr && kernel->name[0] != '\0' ? kernel->name : "<unnamed>";
    if (kernel->node != nullptr) record.node = kernel->node;
  } else if (std::holds_alternative<MemcpyTask>(task)) {
    record.name = "memcpy";
  } else if (std::holds_alternative<MemsetTask>(task)) {
    record.name = "memset";
  } else if (std::holds_alternative<EventRecordTask>(task)) {
    record.name = "event_record";
  } else {
    record.name = "event_wait";
  }
  return record;
}

}  // namespace ge
