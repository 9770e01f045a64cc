#include "test_case.h"

#include <onnx/onnx_pb.h>

#include <algorithm>
#include <fstream>
#include <map>
#include <system_error>

namespace ge::conformance {

namespace fs = std::filesystem;

std::string single_op_type(const fs::path& model_file) {
  std::ifstream in(model_file, std::ios::binary);
  onnx::ModelProto model;
  if (!in || !model.ParseFromIstream(&in)) return {};
  std::string op_type;
  for (const onnx::NodeProto& node : model.graph().node()) {
    if (node.op_type() == "Constant") continue;
    if (!op_type.empty()) return {};
    op_type = node.op_type();
  }
  // A graph of Constants only is itself a Constant test.
  if (op_type.empty() && model.graph().node_size() > 0) op_type = "Constant";
  return op_type;
}

void assign_node_table_keys(std::vector<TestCase>& cases) {
  std::map<std::string, std::string> op_of_case;
  for (TestCase& test_case : cases) {
    const std::string op_type = single_op_type(test_case.dir / "model.onnx");
    if (!op_type.empty()) op_of_case[test_case.name] = op_type;
  }
  const std::string suffix = "_expanded";
  for (TestCase& test_case : cases) {
    test_case.table_key = test_case.name;
    if (auto it = op_of_case.find(test_case.name); it != op_of_case.end()) {
      test_case.table_key = it->second;
    } else if (test_case.name.size() > suffix.size() && test_case.name.ends_with(suffix)) {
      const std::string base = test_case.name.substr(0, test_case.name.size() - suffix.size());
      if (auto base_it = op_of_case.find(base); base_it != op_of_case.end()) {
        test_case.table_key = base_it->second + " (expanded)";
      }
    }
  }
}

Result<std::vector<TestCase>> discover_cases(const fs::path& data_dir, const std::string& category) {
  const fs::path root = data_dir / category;
  std::error_code error;
  if (!fs::is_directory(root, error)) {
    return not_found("test-case category folder '" + root.string() +
                     "' does not exist (install Debian's libonnx-testdata, or pass --data-dir)");
  }
  std::vector<TestCase> cases;
  for (fs::directory_iterator it(root, error), end; !error && it != end; it.increment(error)) {
    if (!it->is_directory(error) || !fs::exists(it->path() / "model.onnx", error)) continue;
    TestCase test_case;
    test_case.category = category;
    test_case.name = it->path().filename().string();
    test_case.dir = it->path();
    test_case.table_key = test_case.name;
    cases.push_back(std::move(test_case));
  }
  if (error) return not_found("cannot list '" + root.string() + "': " + error.message());
  std::sort(cases.begin(), cases.end(), [](const TestCase& a, const TestCase& b) { return a.name < b.name; });
  if (category == "node") assign_node_table_keys(cases);
  return cases;
}

}  // namespace ge::conformance
