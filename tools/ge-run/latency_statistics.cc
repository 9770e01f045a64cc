#include "latency_statistics.h"

#include <algorithm>
#include <cmath>

namespace ge::tools {

LatencyStatistics::LatencyStatistics(size_t reservoir_size) : capacity_(std::max<size_t>(reservoir_size, 1)) {
  sample_.reserve(capacity_);
}

void LatencyStatistics::add(double milliseconds) {
  min_ = count_ == 0 ? milliseconds : std::min(min_, milliseconds);
  max_ = count_ == 0 ? milliseconds : std::max(max_, milliseconds);
  sum_ += milliseconds;
  ++count_;
  if (sample_.size() < capacity_) {
    sample_.push_back(milliseconds);
    return;
  }
  // Algorithm R: run k (1-based) replaces a random slot with probability capacity / k.
  const uint64_t slot = std::uniform_int_distribution<uint64_t>(0, count_ - 1)(random_);
  if (slot < capacity_) sample_[static_cast<size_t>(slot)] = milliseconds;
}

double LatencyStatistics::quantile(double q) const {
  if (sample_.empty()) return 0.0;
  std::vector<double> sorted = sample_;
  std::sort(sorted.begin(), sorted.end());
  const double position = std::clamp(q, 0.0, 1.0) * static_cast<double>(sorted.size() - 1);
  const size_t below = static_cast<size_t>(std::floor(position));
  const size_t above = std::min(below + 1, sorted.size() - 1);
  const double fraction = position - static_cast<double>(below);
  return sorted[below] + (sorted[above] - sorted[below]) * fraction;
}

}  // namespace ge::tools
