// A memory assigner plugin: places the requests in the order given, each at the lowest
// aligned offset that overlaps no already placed request it conflicts with (lifetimes that
// meet; on several streams, ge::requests_conflict also asks the streams' clocks).
#include <algorithm>
#include <memory>
#include <utility>
#include <vector>

#include <ge/alignment.h>
#include <ge/plugin_api/memory_assigner.h>
#include <ge/plugin_api/plugin.h>

namespace {

class FirstFitAssigner : public ge::MemoryAssigner {
 public:
  std::string name() const override { return "first_fit"; }

  ge::Result<ge::MemoryPlan> assign(const std::vector<ge::MemoryRequest>& requests,
                                    size_t alignment) const override {
    if (alignment == 0) return ge::invalid_argument("first_fit: alignment must be positive");
    ge::MemoryPlan plan;
    plan.offsets.assign(requests.size(), 0);
    for (size_t i = 0; i < requests.size(); ++i) {
      std::vector<std::pair<size_t, size_t>> busy;  // [begin, end) of placed, live requests
      for (size_t j = 0; j < i; ++j) {
        if (ge::requests_conflict(requests[i], requests[j])) {
          busy.emplace_back(plan.offsets[j], plan.offsets[j] + requests[j].bytes);
        }
      }
      std::sort(busy.begin(), busy.end());
      size_t offset = 0;
      for (const auto& [begin, end] : busy) {
        if (offset + requests[i].bytes <= begin) break;
        offset = std::max(offset, ge::align_up(end, alignment));
      }
      plan.offsets[i] = offset;
      plan.total_bytes = std::max(plan.total_bytes, ge::align_up(offset + requests[i].bytes, alignment));
    }
    return plan;
  }
};

ge::Status register_first_fit(ge::Registrar& registrar) {
  return registrar.add_memory_assigner(std::make_shared<FirstFitAssigner>());
}

}  // namespace

GE_DEFINE_PLUGIN("first_fit", "1.0.0", register_first_fit)
