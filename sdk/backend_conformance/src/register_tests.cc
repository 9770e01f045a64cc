// register_tests(): one gtest test per entry of the kit's table and configuration.
#include <deque>
#include <mutex>
#include <utility>

#include "device_graph.h"
#include "ge/backend_conformance/backend_conformance.h"
#include "suite.h"

namespace ge::backend_conformance {
namespace {

class ConformanceTest : public ::testing::Test {
 public:
  ConformanceTest(std::string name, const Config& config, std::function<void(Environment&)> body)
      : name_(std::move(name)), config_(config), body_(std::move(body)) {}

  void TestBody() override {
    Result<Environment*> env = Environment::get(name_, config_);
    ASSERT_TRUE(env.is_ok()) << "the conformance kit could not load the plugins for '" << name_
                             << "': " << env.status().to_string();
    body_(**env);
  }

 private:
  std::string name_;
  const Config& config_;
  std::function<void(Environment&)> body_;
};

}  // namespace

std::vector<TestEntry> all_tests() {
  std::vector<TestEntry> tests;
  for (auto area : {device_memory_tests, stream_tests, event_tests, error_tests, task_sink_tests, capture_tests,
                    kernel_tests}) {
    for (TestEntry& entry : area()) tests.push_back(std::move(entry));
  }
  return tests;
}

bool register_tests(const std::string& name, const Config& config) {
  // Configurations outlive every test: gtest runs them after main() registered them.
  static auto* configs = new std::deque<Config>();
  static std::mutex mutex;
  std::lock_guard<std::mutex> lock(mutex);
  const Config& stored = configs->emplace_back(config);
  for (TestEntry& entry : all_tests()) {
    const std::string suite = name + "/" + entry.area;
    ::testing::RegisterTest(suite.c_str(), entry.name.c_str(), nullptr, nullptr, __FILE__, __LINE__,
                            [name, &stored, body = std::move(entry.body)]() -> ::testing::Test* {
                              return new ConformanceTest(name, stored, body);
                            });
  }
  return true;
}

std::vector<std::string> test_names() {
  std::vector<std::string> names;
  for (const TestEntry& entry : all_tests()) names.push_back(entry.area + "." + entry.name);
  return names;
}

Result<std::unique_ptr<Graph>> first_supported(const Environment& env, const std::vector<CandidateGraph>& candidates,
                                               std::string* chosen) {
  std::string passed_over;
  for (const CandidateGraph& candidate : candidates) {
    Result<std::unique_ptr<Graph>> graph = parse_and_infer(candidate.text, env.ops());
    std::string why;
    if (!graph.is_ok()) {
      why = graph.status().message();
    } else if (std::string missing = unsupported_nodes(env.backend(), **graph); !missing.empty()) {
      why = "backend '" + env.backend().name() + "': " + missing;
    } else if (std::string missing = unsupported_nodes(env.reference(), **graph); !missing.empty()) {
      why = "reference '" + env.reference().name() + "': " + missing;
    } else {
      if (chosen != nullptr) *chosen = candidate.label;
      return graph;
    }
    passed_over += "\n  " + candidate.label + ": " + why;
  }
  return unsupported("no candidate graph runs on both backends:" + passed_over);
}

}  // namespace ge::backend_conformance
