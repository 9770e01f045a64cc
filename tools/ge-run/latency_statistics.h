#pragma once
/// ge-run --repeat / --duration: latency statistics in constant memory, however many runs.
/// Count, min, max and mean are exact; quantiles come from a fixed-size uniform sample of
/// the runs (reservoir sampling, fixed seed), exact while the runs fit in it.

#include <cstddef>
#include <cstdint>
#include <random>
#include <vector>

namespace ge::tools {

class LatencyStatistics {
 public:
  /// Quantiles are exact up to `reservoir_size` runs.
  explicit LatencyStatistics(size_t reservoir_size = 8192);

  void add(double milliseconds);

  uint64_t count() const { return count_; }
  double min() const { return min_; }
  double max() const { return max_; }
  double mean() const { return count_ > 0 ? sum_ / static_cast<double>(count_) : 0.0; }
  /// The q-quantile (0 <= q <= 1) of the sample, interpolating between neighbours (the
  /// median of an even count is the mean of the middle two); 0 without runs.
  double quantile(double q) const;
  /// The samples kept: at most the reservoir size.
  size_t sample_size() const { return sample_.size(); }

 private:
  size_t capacity_;
  std::vector<double> sample_;
  std::mt19937_64 random_{0x9e3779b97f4a7c15ull};
  uint64_t count_ = 0;
  double sum_ = 0, min_ = 0, max_ = 0;
};

}  // namespace ge::tools
