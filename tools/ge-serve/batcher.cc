#include "batcher.h"

#include <cstring>

namespace ge::serve {
namespace {

/// Whether two requests' inputs can share a batch: the same names in the same order, the
/// same dtypes, and the same dims after the first.
bool compatible(const NamedTensors& a, const NamedTensors& b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i) {
    const Tensor& x = a[i].second;
    const Tensor& y = b[i].second;
    if (a[i].first != b[i].first || x.dtype() != y.dtype() || x.rank() != y.rank() || x.rank() == 0) return false;
    if (!std::equal(x.shape().begin() + 1, x.shape().end(), y.shape().begin() + 1)) return false;
  }
  return true;
}

int64_t rows_of(const NamedTensors& inputs) {
  int64_t rows = -1;
  for (const auto& [name, t] : inputs) {
    if (t.rank() == 0 || t.dtype() == DataType::kString) return -1;
    if (rows >= 0 && t.shape()[0] != rows) return -1;
    rows = t.shape()[0];
  }
  return rows;
}

Status past_deadline(const char* where) {
  return cancelled(std::string("the request was past the server's run timeout ") + where);
}

}  // namespace

Batcher::Batcher(Session& session, int64_t max_batch_size, std::chrono::microseconds delay)
    : session_(session), max_batch_size_(max_batch_size), delay_(delay), worker_([this] { work(); }) {}

Batcher::~Batcher() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    stopping_ = true;
  }
  wake_.notify_all();
  worker_.join();
}

BatchStatistics Batcher::statistics() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return statistics_;
}

Status Batcher::run(NamedTensors inputs, std::vector<Tensor>& outputs, const RunOptions& options,
                    std::optional<std::chrono::steady_clock::time_point> deadline) {
  const int64_t rows = rows_of(inputs);
  if (rows < 1 || rows > max_batch_size_) return session_.run(inputs, outputs, options);  // alone
  auto pending = std::make_unique<Pending>();
  pending->inputs = std::move(inputs);
  pending->rows = rows;
  pending->queued = std::chrono::steady_clock::now();
  pending->deadline = deadline;
  std::future<Result<std::vector<Tensor>>> done = pending->done.get_future();
  {
    std::lock_guard<std::mutex> lock(mutex_);
    if (stopping_) return cancelled("the server is stopping");
    queue_.push_back(std::move(pending));
  }
  wake_.notify_all();
  // At the deadline the request is answered; its batch goes on for the others (the
  // promise outlives this future).
  if (deadline && done.wait_until(*deadline) == std::future_status::timeout) return past_deadline("in its batch");
  Result<std::vector<Tensor>> result = done.get();
  if (!result.is_ok()) return result.status();
  outputs = std::move(result).value();
  return Status::ok();
}

void Batcher::work() {
  std::unique_lock<std::mutex> lock(mutex_);
  for (;;) {
    wake_.wait(lock, [this] { return stopping_ || !queue_.empty(); });
    if (queue_.empty()) return;  // stopping, nothing left
    // Wait up to the delay after the oldest request for the batch to fill.
    const auto deadline = queue_.front()->queued + delay_;
    auto rows_queued = [this] {
      int64_t rows = 0;
      for (const auto& p : queue_) {
        if (compatible(p->inputs, queue_.front()->inputs)) rows += p->rows;
      }
      return rows;
    };
    while (!stopping_ && rows_queued() < max_batch_size_ && std::chrono::steady_clock::now() < deadline) {
      wake_.wait_until(lock, deadline);
    }
    std::vector<std::unique_ptr<Pending>> batch;
    int64_t rows = 0;
    const auto started = std::chrono::steady_clock::now();
    for (auto it = queue_.begin(); it != queue_.end();) {
      if ((*it)->deadline && *(*it)->deadline <= started) {  // timed out while queued: not run
        (*it)->done.set_value(Result<std::vector<Tensor>>(past_deadline("while queued")));
        it = queue_.erase(it);
        continue;
      }
      if (compatible((*it)->inputs, batch.empty() ? (*it)->inputs : batch.front()->inputs) &&
          rows + (*it)->rows <= max_batch_size_) {
        rows += (*it)->rows;
        batch.push_back(std::move(*it));
        it = queue_.erase(it);
      } else {
        ++it;
      }
    }
    if (batch.empty()) continue;
    const auto now = std::chrono::steady_clock::now();
    statistics_.batches += 1;
    statistics_.requests += batch.size();
    statistics_.rows += static_cast<uint64_t>(rows);
    for (const auto& p : batch) statistics_.queue_seconds += std::chrono::duration<double>(now - p->queued).count();
    lock.unlock();
    run_batch(batch);
    lock.lock();
  }
}

void Batcher::run_batch(std::vector<std::unique_ptr<Pending>>& batch) {
  // Cancelled once the last deadline of its requests passes (none without deadlines).
  CancellationToken token;
  RunOptions options;
  std::optional<std::chrono::steady_clock::time_point> latest;
  bool every_request_has_one = true;
  for (const auto& p : batch) {
    every_request_has_one = every_request_has_one && p->deadline.has_value();
    if (p->deadline) latest = latest ? std::max(*latest, *p->deadline) : *p->deadline;
  }
  std::optional<Deadlines::Guard> guard;
  if (every_request_has_one && latest) {
    options.cancellation = &token;
    guard.emplace(deadlines_, token, *latest);
  }
  const int64_t one = batch[0]->rows;
  if (batch.size() == 1 && (one & (one - 1)) == 0) {  // one request of a power of two rows: as it is
    std::vector<Tensor> outputs;
    const Status status = session_.run(batch[0]->inputs, outputs, options);
    batch[0]->done.set_value(status.is_ok() ? Result<std::vector<Tensor>>(std::move(outputs))
                                            : Result<std::vector<Tensor>>(status));
    return;
  }
  // Stack every input along its first dim, padded up to a power of two (at most
  // max_batch_size) by repeating the last row: a dynamic model then meets a few batch
  // sizes, each compiled once, not one signature per row count.
  int64_t rows = 0;
  for (const auto& p : batch) rows += p->rows;
  int64_t total = 1;
  while (total < rows) total *= 2;
  total = std::min(total, std::max(rows, max_batch_size_));
  NamedTensors stacked;
  for (size_t i = 0; i < batch[0]->inputs.size(); ++i) {
    const Tensor& first = batch[0]->inputs[i].second;
    std::vector<int64_t> shape = first.shape();
    shape[0] = total;
    Tensor t = Tensor::zeros(first.dtype(), shape);
    size_t offset = 0;
    for (const auto& p : batch) {
      const Tensor& part = p->inputs[i].second;
      if (part.byte_size() != 0) std::memcpy(static_cast<char*>(t.raw_data()) + offset, part.raw_data(), part.byte_size());
      offset += part.byte_size();
    }
    const size_t row_bytes = rows > 0 ? offset / static_cast<size_t>(rows) : 0;
    for (int64_t r = rows; r < total && row_bytes != 0; ++r) {
      char* base = static_cast<char*>(t.raw_data());
      std::memcpy(base + static_cast<size_t>(r) * row_bytes, base + static_cast<size_t>(rows - 1) * row_bytes, row_bytes);
    }
    stacked.emplace_back(batch[0]->inputs[i].first, std::move(t));
  }
  std::vector<Tensor> outputs;
  Status status = session_.run(stacked, outputs, options);
  for (const Tensor& out : outputs) {
    if (status.is_ok() && (out.rank() == 0 || out.shape()[0] != total || out.dtype() == DataType::kString)) {
      status = invalid_argument("a batched output's first dim is not the batch's " + std::to_string(total) +
                                " rows: the model cannot be batched (set max_batch_size = 0 in its config.toml)");
    }
  }
  if (!status.is_ok()) {
    for (auto& p : batch) p->done.set_value(Result<std::vector<Tensor>>(status));
    return;
  }
  // Split every output back, in request order.
  std::vector<size_t> offsets(outputs.size(), 0);
  for (auto& p : batch) {
    std::vector<Tensor> mine;
    for (size_t k = 0; k < outputs.size(); ++k) {
      std::vector<int64_t> shape = outputs[k].shape();
      shape[0] = p->rows;
      Tensor t = Tensor::zeros(outputs[k].dtype(), shape);
      if (t.byte_size() != 0) {
        std::memcpy(t.raw_data(), static_cast<const char*>(outputs[k].raw_data()) + offsets[k], t.byte_size());
      }
      offsets[k] += t.byte_size();
      mine.push_back(std::move(t));
    }
    p->done.set_value(Result<std::vector<Tensor>>(std::move(mine)));
  }
}

}  // namespace ge::serve
