#include "toy_stream.h"

#include <chrono>
#include <cstring>
#include <string>
#include <utility>
#include <variant>

#include "toy_device.h"
#include "toy_kernels.h"

namespace toy {

ge::Status ToyEvent::synchronize() {
  std::unique_lock<std::mutex> lock(mutex_);
  const uint64_t record = submitted_;
  reached_changed_.wait(lock, [&] { return reached_ >= record; });
  return ge::Status::ok();
}

uint64_t ToyEvent::submit_record() {
  std::lock_guard<std::mutex> lock(mutex_);
  return ++submitted_;
}

uint64_t ToyEvent::last_submitted() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return submitted_;
}

void ToyEvent::reach(uint64_t record) {
  std::lock_guard<std::mutex> lock(mutex_);
  if (record > reached_) reached_ = record;
  reached_changed_.notify_all();
}

void ToyEvent::wait_for(uint64_t record) {
  std::unique_lock<std::mutex> lock(mutex_);
  reached_changed_.wait(lock, [&] { return reached_ >= record; });
}

ToyStream::ToyStream(ToyDevice& device, int id) : device_(device), id_(id), worker_([this] { work(); }) {}

ToyStream::~ToyStream() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    stopping_ = true;
  }
  changed_.notify_all();
  worker_.join();
}

ge::Status ToyStream::submit(std::span<const ge::Task> tasks) {
  auto refuse = [this](size_t i, const std::string& what) {
    return ge::invalid_argument("toy: stream " + std::to_string(id_) + ": submitted task " + std::to_string(i) + " " +
                                what);
  };
  for (size_t i = 0; i < tasks.size(); ++i) {
    if (const auto* kernel = std::get_if<ge::KernelTask>(&tasks[i])) {
      if (kernel->function != &toy_kernel_entry || kernel->args.params == nullptr) {
        return refuse(i, std::string("(kernel '") + (kernel->name ? kernel->name : "") +
                             "') was not prepared by the toy backend");
      }
    } else if (const auto* record = std::get_if<ge::EventRecordTask>(&tasks[i])) {
      if (dynamic_cast<ToyEvent*>(record->event) == nullptr) return refuse(i, "records an event of another device");
    } else if (const auto* wait = std::get_if<ge::EventWaitTask>(&tasks[i])) {
      if (dynamic_cast<ToyEvent*>(wait->event) == nullptr) return refuse(i, "waits for an event of another device");
    }
  }
  {
    std::lock_guard<std::mutex> lock(mutex_);
    for (const ge::Task& task : tasks) {
      Queued queued{task, 0, submitted_++};
      // Numbered under the stream's lock: records and waits keep the order they were queued in.
      if (const auto* record = std::get_if<ge::EventRecordTask>(&task)) {
        queued.record = static_cast<ToyEvent*>(record->event)->submit_record();
      } else if (const auto* wait = std::get_if<ge::EventWaitTask>(&task)) {
        queued.record = static_cast<ToyEvent*>(wait->event)->last_submitted();
      }
      queue_.push_back(std::move(queued));
    }
  }
  changed_.notify_all();
  return ge::Status::ok();
}

ge::Status ToyStream::synchronize() {
  std::unique_lock<std::mutex> lock(mutex_);
  changed_.wait(lock, [this] { return queue_.empty() && !busy_; });
  return std::exchange(error_, ge::Status::ok());
}

void ToyStream::work() {
  std::unique_lock<std::mutex> lock(mutex_);
  for (;;) {
    changed_.wait(lock, [this] { return stopping_ || !queue_.empty(); });
    if (queue_.empty()) return;  // stopping, and everything submitted has run
    const Queued next = std::move(queue_.front());
    queue_.pop_front();
    busy_ = true;
    const bool failed = !error_.is_ok();
    lock.unlock();
    ge::Status status = run(next, failed);
    lock.lock();
    busy_ = false;
    if (!status.is_ok() && error_.is_ok()) error_ = std::move(status);
    changed_.notify_all();
  }
}

ge::Status ToyStream::run(const Queued& queued, bool skip_work) {
  const auto start = std::chrono::steady_clock::now();
  auto where = [&] { return "toy: stream " + std::to_string(id_) + " task " + std::to_string(queued.index); };
  const char* name = "";
  ge::Status status;
  if (const auto* kernel = std::get_if<ge::KernelTask>(&queued.task)) {
    name = kernel->name != nullptr ? kernel->name : "";
    const int code = skip_work ? 0 : kernel->function(kernel->args);
    if (code != 0) {
      status = ge::invalid_argument(where() + " (kernel '" + name + "'" +
                                    (kernel->node != nullptr ? std::string(" of ") + kernel->node : "") +
                                    "): " + describe_toy_kernel_failure(code));
    }
  } else if (const auto* copy = std::get_if<ge::MemcpyTask>(&queued.task)) {
    name = "memcpy";
    if (!skip_work && copy->bytes > 0) {
      std::byte* destination = device_.host_view(copy->destination, copy->bytes);
      const std::byte* source = device_.host_view(copy->source, copy->bytes);
      if (destination == nullptr || source == nullptr) {
        status = ge::invalid_argument(where() + " (memcpy of " + std::to_string(copy->bytes) +
                                      " bytes): an address is outside device memory");
      } else {
        std::memmove(destination, source, copy->bytes);  // the planner may overlap source and destination
      }
    }
  } else if (const auto* memset = std::get_if<ge::MemsetTask>(&queued.task)) {
    name = "memset";
    if (!skip_work && memset->bytes > 0) {
      std::byte* destination = device_.host_view(memset->destination, memset->bytes);
      if (destination == nullptr) {
        status = ge::invalid_argument(where() + " (memset of " + std::to_string(memset->bytes) +
                                      " bytes): the address is outside device memory");
      } else {
        std::memset(destination, memset->value, memset->bytes);
      }
    }
  } else if (const auto* record = std::get_if<ge::EventRecordTask>(&queued.task)) {
    name = "event_record";
    static_cast<ToyEvent*>(record->event)->reach(queued.record);
  } else if (const auto* wait = std::get_if<ge::EventWaitTask>(&queued.task)) {
    name = "event_wait";
    static_cast<ToyEvent*>(wait->event)->wait_for(queued.record);
  }
  if (device_.tracing()) device_.trace(id_, name, start, std::chrono::steady_clock::now());
  return status;
}

}  // namespace toy
