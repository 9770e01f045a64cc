#pragma once
/// Helpers for the ONNX parser tests: building small ModelProtos by hand and temp folders.

#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <initializer_list>
#include <string>
#include <variant>
#include <vector>

#include <gtest/gtest.h>
#include <onnx/onnx_pb.h>

namespace ge::onnx_parser::testing {

namespace fs = std::filesystem;

/// A dimension for a value_info: a static extent, a dim_param name, or unknown.
using TestDim = std::variant<int64_t, std::string, std::monostate>;

inline void set_tensor_type(onnx::TypeProto* type, int32_t elem, const std::vector<TestDim>& dims) {
  auto* tensor = type->mutable_tensor_type();
  tensor->set_elem_type(elem);
  auto* shape = tensor->mutable_shape();
  for (const auto& dim : dims) {
    auto* d = shape->add_dim();
    if (const auto* v = std::get_if<int64_t>(&dim)) d->set_dim_value(*v);
    if (const auto* s = std::get_if<std::string>(&dim)) d->set_dim_param(*s);
  }
}

inline onnx::ValueInfoProto* add_value(google::protobuf::RepeatedPtrField<onnx::ValueInfoProto>* list,
                                       const std::string& name, int32_t elem = onnx::TensorProto::FLOAT,
                                       const std::vector<TestDim>& dims = {int64_t{2}}) {
  auto* info = list->Add();
  info->set_name(name);
  set_tensor_type(info->mutable_type(), elem, dims);
  return info;
}

inline onnx::NodeProto* add_node(onnx::GraphProto* graph, const std::string& op_type,
                                 std::vector<std::string> inputs, std::vector<std::string> outputs,
                                 const std::string& name = {}) {
  auto* node = graph->add_node();
  node->set_op_type(op_type);
  if (!name.empty()) node->set_name(name);
  for (const auto& in : inputs) node->add_input(in);
  for (const auto& out : outputs) node->add_output(out);
  return node;
}

inline onnx::TensorProto float_tensor(const std::string& name, std::vector<int64_t> dims,
                                      std::vector<float> values) {
  onnx::TensorProto tensor;
  tensor.set_name(name);
  tensor.set_data_type(onnx::TensorProto::FLOAT);
  for (int64_t d : dims) tensor.add_dims(d);
  for (float v : values) tensor.add_float_data(v);
  return tensor;
}

inline onnx::AttributeProto* add_attribute(onnx::NodeProto* node, const std::string& name,
                                           onnx::AttributeProto::AttributeType type) {
  auto* attr = node->add_attribute();
  attr->set_name(name);
  attr->set_type(type);
  return attr;
}

/// An empty model of the given IR version importing the default domain at `opset`.
inline onnx::ModelProto make_model(int64_t opset = 13, int64_t ir_version = 8) {
  onnx::ModelProto model;
  model.set_ir_version(ir_version);
  model.set_producer_name("ge-test");
  auto* import = model.add_opset_import();
  import->set_domain("");
  import->set_version(opset);
  model.mutable_graph()->set_name("main");
  return model;
}

/// A fresh folder per test, removed afterwards.
class TempDir {
 public:
  TempDir() {
    const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
    path_ = fs::temp_directory_path() / ("ge_onnx_parser_" + std::to_string(::getpid()) + "_" +
                                         info->test_suite_name() + "_" + info->name());
    fs::remove_all(path_);
    fs::create_directories(path_);
  }
  ~TempDir() { fs::remove_all(path_); }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;

  const fs::path& path() const { return path_; }
  fs::path write(const fs::path& relative, const std::string& content) const {
    const fs::path target = path_ / relative;
    fs::create_directories(target.parent_path());
    std::ofstream(target, std::ios::binary) << content;
    return target;
  }

 private:
  fs::path path_;
};

}  // namespace ge::onnx_parser::testing
