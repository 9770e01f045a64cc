#pragma once
// Timing the steps of building a session (parse, verify, passes, load) as StageTimings
// for profiles. Internal to the core (session*.cc).

#include <chrono>
#include <string>
#include <utility>
#include <vector>

#include "ge/session.h"

namespace ge::detail {

/// Appends stages to a list: each stage runs from the previous mark (or the start) to
/// now.
class StageClock {
 public:
  explicit StageClock(std::vector<StageTiming>& stages) : stages_(stages), mark_(std::chrono::steady_clock::now()) {}
  std::chrono::steady_clock::time_point mark() const { return mark_; }
  void end(std::string name) {
    const auto now = std::chrono::steady_clock::now();
    stages_.push_back(StageTiming{std::move(name), mark_, now - mark_});
    mark_ = now;
  }

 private:
  std::vector<StageTiming>& stages_;
  std::chrono::steady_clock::time_point mark_;
};

}  // namespace ge::detail
