// Parses every model of ONNX's own backend test data (Debian's libonnx-testdata): 1000+
// real models from opsets 1-17 with subgraphs, sequences, optionals and old IR versions.

#include <algorithm>
#include <map>
#include <filesystem>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "onnx_parser.h"

namespace ge::onnx_parser {
namespace {

namespace fs = std::filesystem;

const fs::path kTestDataRoot = "/usr/share/libonnx-testdata/data";

size_t count_files(const fs::path& dir, const std::string& prefix) {
  size_t count = 0;
  if (!fs::is_directory(dir)) return 0;
  for (const auto& entry : fs::directory_iterator(dir)) {
    const std::string name = entry.path().filename().string();
    if (name.rfind(prefix, 0) == 0 && entry.path().extension() == ".pb") ++count;
  }
  return count;
}

// Cases that must fail, with the reason (none today: every model in the suite parses).
const std::map<std::string, std::string> kExpectedFailures = {};

struct Tally {
  size_t models = 0;
  std::vector<std::string> failures;
};

Tally parse_suite(const std::string& suite) {
  Tally tally;
  const fs::path dir = kTestDataRoot / suite;
  std::vector<fs::path> cases;
  for (const auto& entry : fs::directory_iterator(dir)) cases.push_back(entry.path());
  std::sort(cases.begin(), cases.end());
  OnnxParser parser;
  for (const fs::path& test_case : cases) {
    const fs::path model = test_case / "model.onnx";
    if (!fs::exists(model)) continue;
    ++tally.models;
    auto graph = parser.parse_file(model);
    auto expected = kExpectedFailures.find(test_case.filename().string());
    if (expected != kExpectedFailures.end()) {
      if (graph.is_ok() || graph.status().message().find(expected->second) == std::string::npos) {
        tally.failures.push_back(model.string() + ": expected to fail with '" + expected->second +
                                 "', got " + graph.status().to_string());
      }
      continue;
    }
    if (!graph.is_ok()) {
      tally.failures.push_back(graph.status().to_string());
      continue;
    }
    // The data files give an independent count: input_K.pb is the K-th graph input that
    // is not an initializer, output_K.pb the K-th graph output.
    const fs::path data = test_case / "test_data_set_0";
    if (!fs::is_directory(data)) continue;
    const size_t inputs = count_files(data, "input_");
    const size_t outputs = count_files(data, "output_");
    if ((*graph)->runtime_inputs().size() != inputs) {
      tally.failures.push_back(model.string() + ": " + std::to_string((*graph)->runtime_inputs().size()) +
                               " runtime inputs, test data has " + std::to_string(inputs));
    }
    if ((*graph)->outputs().size() != outputs) {
      tally.failures.push_back(model.string() + ": " + std::to_string((*graph)->outputs().size()) +
                               " outputs, test data has " + std::to_string(outputs));
    }
  }
  return tally;
}

std::string join(const std::vector<std::string>& lines) {
  std::string out;
  for (const auto& line : lines) out += line + "\n";
  return out;
}

class OnnxTestData : public ::testing::TestWithParam<std::string> {};

TEST_P(OnnxTestData, EveryModelParses) {
  ASSERT_TRUE(fs::is_directory(kTestDataRoot))
      << kTestDataRoot << " is missing: install Debian's libonnx-testdata (scripts/setup.sh)";
  const Tally tally = parse_suite(GetParam());
  EXPECT_GT(tally.models, 0u);
  EXPECT_TRUE(tally.failures.empty()) << tally.failures.size() << " of " << tally.models
                                      << " models failed:\n" << join(tally.failures);
}

INSTANTIATE_TEST_SUITE_P(Suites, OnnxTestData,
                         ::testing::Values("node", "simple", "pytorch-converted", "pytorch-operator"),
                         [](const auto& info) {
                           std::string name = info.param;
                           std::replace(name.begin(), name.end(), '-', '_');
                           return name;
                         });

TEST(OnnxTestDataCounts, NodeSuiteHasTheDocumentedSize) {
  ASSERT_TRUE(fs::is_directory(kTestDataRoot / "node"));
  size_t models = 0;
  for (const auto& entry : fs::directory_iterator(kTestDataRoot / "node")) {
    models += fs::exists(entry.path() / "model.onnx") ? 1 : 0;
  }
  EXPECT_EQ(models, 932u);  // so that a partial install cannot pass the suite above
}

}  // namespace
}  // namespace ge::onnx_parser
