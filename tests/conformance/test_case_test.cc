#include "test_case.h"

#include <gtest/gtest.h>
#include <onnx/onnx_pb.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

namespace ge::conformance {
namespace {

namespace fs = std::filesystem;

class TestCaseTest : public ::testing::Test {
 protected:
  void SetUp() override {
    root_ = fs::temp_directory_path() / ("ge_conformance_test_case_" + std::to_string(::getpid()));
    fs::remove_all(root_);
    fs::create_directories(root_ / "node");
  }
  void TearDown() override { fs::remove_all(root_); }

  /// A case folder whose model has nodes of `op_types`.
  void add_case(const std::string& name, const std::vector<std::string>& op_types) {
    const fs::path dir = root_ / "node" / name;
    fs::create_directories(dir);
    onnx::ModelProto model;
    for (const std::string& op_type : op_types) model.mutable_graph()->add_node()->set_op_type(op_type);
    std::ofstream out(dir / "model.onnx", std::ios::binary);
    ASSERT_TRUE(model.SerializeToOstream(&out));
  }

  fs::path root_;
};

TEST_F(TestCaseTest, FindsCasesSortedWithOpTypeKeys) {
  add_case("test_relu", {"Relu"});
  add_case("test_abs", {"Abs"});
  add_case("test_resize_const", {"Constant", "Constant", "Resize"});
  add_case("test_softmax", {"Softmax"});
  add_case("test_softmax_expanded", {"ReduceMax", "Sub", "Exp"});
  add_case("test_orphan_expanded", {"Add", "Mul"});
  fs::create_directories(root_ / "node" / "not_a_case");  // no model.onnx: skipped

  Result<std::vector<TestCase>> cases = discover_cases(root_, "node");
  ASSERT_TRUE(cases.is_ok()) << cases.status().to_string();
  std::vector<std::string> seen;
  for (const TestCase& test_case : *cases) seen.push_back(test_case.id() + "=" + test_case.table_key);
  EXPECT_EQ(seen, (std::vector<std::string>{
                      "node/test_abs=Abs",
                      "node/test_orphan_expanded=test_orphan_expanded",
                      "node/test_relu=Relu",
                      "node/test_resize_const=Resize",
                      "node/test_softmax=Softmax",
                      "node/test_softmax_expanded=Softmax (expanded)",
                  }));
  EXPECT_EQ((*cases)[0].dir, root_ / "node" / "test_abs");
}

TEST_F(TestCaseTest, MissingCategoryIsNotFound) {
  Result<std::vector<TestCase>> cases = discover_cases(root_, "simple");
  ASSERT_FALSE(cases.is_ok());
  EXPECT_EQ(cases.status().code(), StatusCode::kNotFound);
  EXPECT_NE(cases.status().message().find((root_ / "simple").string()), std::string::npos);
}

}  // namespace
}  // namespace ge::conformance
