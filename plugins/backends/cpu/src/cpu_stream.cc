#include "cpu_stream.h"

#include <cstring>
#include <string>
#include <type_traits>
#include <variant>

#include "ge/cpu_kernels/kernel_library.h"

namespace ge {
namespace {

Status run_task(const KernelTask& task, size_t index) {
  const std::string name = task.name != nullptr && task.name[0] != '\0' ? task.name : "<unnamed>";
  if (task.function == nullptr) {
    return internal_error("cpu stream: task " + std::to_string(index) + " (kernel '" + name +
                          "') has no kernel function");
  }
  const int code = task.function(task.args);
  if (code != 0) {
    return invalid_argument("cpu stream: kernel '" + name + "' (task " + std::to_string(index) + ") failed with code " +
                            std::to_string(code) + ": " + cpu_kernels::kernel_error_message(code));
  }
  return Status::ok();
}

Status run_task(const MemcpyTask& task, size_t index) {
  if (task.bytes == 0) return Status::ok();
  if (task.destination == nullptr || task.source == nullptr) {
    return internal_error("cpu stream: memcpy task " + std::to_string(index) + " of " + std::to_string(task.bytes) +
                          " bytes has a null address");
  }
  // memmove: the planner may place a copy's source and destination in one region.
  std::memmove(task.destination, task.source, task.bytes);
  return Status::ok();
}

Status run_task(const EventRecordTask& task, size_t index) {
  if (task.event == nullptr) {
    return internal_error("cpu stream: event record task " + std::to_string(index) + " has no event");
  }
  return Status::ok();  // the work before it already ran
}

Status run_task(const EventWaitTask& task, size_t index) {
  if (task.event == nullptr) {
    return internal_error("cpu stream: event wait task " + std::to_string(index) + " has no event");
  }
  return Status::ok();  // whatever it waits for ran synchronously before this submit
}

}  // namespace

Status CpuStream::submit(std::span<const Task> tasks) {
  for (size_t i = 0; i < tasks.size(); ++i) {
    Status status = std::visit([i](const auto& task) { return run_task(task, i); }, tasks[i]);
    if (!status.is_ok()) return status;
  }
  return Status::ok();
}

}  // namespace ge
