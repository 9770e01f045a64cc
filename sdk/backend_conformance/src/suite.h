#pragma once
/// The kit's tests as a table: each area file contributes its entries, register_tests()
/// turns every entry into one gtest test per configuration.

#include <gtest/gtest.h>

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "environment.h"
#include "ge/graph.h"
#include "ge/status.h"

namespace ge::backend_conformance {

struct TestEntry {
  std::string area;  ///< the gtest suite after "<name>/": "DeviceMemory"
  std::string name;  ///< the gtest test: "AllocationsAreAlignedAndDisjoint"
  std::function<void(Environment&)> body;
};

std::vector<TestEntry> device_memory_tests();
std::vector<TestEntry> stream_tests();
std::vector<TestEntry> event_tests();
std::vector<TestEntry> error_tests();
std::vector<TestEntry> task_sink_tests();
std::vector<TestEntry> capture_tests();
std::vector<TestEntry> kernel_tests();

/// Every test of the kit, in the order they run.
std::vector<TestEntry> all_tests();

/// One of several equivalent test graphs: the tests that need kernels take the first one
/// both the backend and the reference support.
struct CandidateGraph {
  std::string label;
  std::string text;  ///< text IR (ge/graph_text.h)
};

/// The first candidate that parses, infers and runs entirely on both backends, with its
/// label in `chosen`; else kUnsupported listing why each was passed over.
Result<std::unique_ptr<Graph>> first_supported(const Environment& env, const std::vector<CandidateGraph>& candidates,
                                               std::string* chosen);

}  // namespace ge::backend_conformance

/// Fails the test (and returns) unless `expr`, a Status, is ok.
#define GE_ASSERT_OK(expr)                                             \
  do {                                                                 \
    const ::ge::Status ge_conformance_status_ = (expr);                \
    if (!ge_conformance_status_.is_ok()) {                             \
      FAIL() << #expr << "\n  " << ge_conformance_status_.to_string(); \
    }                                                                  \
  } while (0)

#define GE_ASSERT_OK_AND_ASSIGN_IMPL(tmp, lhs, expr)                       \
  auto tmp = (expr);                                                       \
  if (!tmp.is_ok()) FAIL() << #expr << "\n  " << tmp.status().to_string(); \
  lhs = std::move(tmp).value()

/// `GE_ASSERT_OK_AND_ASSIGN(auto x, make_x());` unwraps a Result or fails the test.
#define GE_ASSERT_OK_AND_ASSIGN(lhs, expr) \
  GE_ASSERT_OK_AND_ASSIGN_IMPL(GE_CONCAT(ge_conformance_result_, __LINE__), lhs, expr)
