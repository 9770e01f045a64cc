#include "ge/reference_kernels/thread_budget.h"

#include <algorithm>
#include <atomic>

namespace ge::reference_kernels {
namespace {

std::atomic<int> launches_in_flight{0};

}  // namespace

FastKernelLaunch::FastKernelLaunch(int threads) {
  const int concurrent = launches_in_flight.fetch_add(1, std::memory_order_relaxed) + 1;
  threads_ = concurrent > 1 ? std::max(1, threads / concurrent) : std::max(1, threads);
}

FastKernelLaunch::~FastKernelLaunch() { launches_in_flight.fetch_sub(1, std::memory_order_relaxed); }

}  // namespace ge::reference_kernels
