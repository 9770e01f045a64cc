// Models written by the reference tooling (python3-onnx's onnx.helper / onnx.save_model)
// rather than by hand, so the parser is checked against what exporters really emit.

#include <cstdlib>
#include <string>

#include <gtest/gtest.h>

#include "onnx_parser.h"
#include "test_util.h"

namespace ge::onnx_parser {
namespace {

using namespace ge::onnx_parser::testing;

// Writes ext/model.onnx (+ ext/weights.bin), ir10.onnx, opset18.onnx and if.onnx into argv[1].
const char* kGenerator = R"PY(
import os, sys
import numpy as np
import onnx
from onnx import helper, TensorProto, numpy_helper

out = sys.argv[1]

# 1. External data written by onnx.save_model.
w = numpy_helper.from_array((np.arange(6, dtype=np.float32) * 0.5).reshape(2, 3), "w")
h = numpy_helper.from_array(np.array([1.0, -2.0], dtype=np.float16), "h")
i = numpy_helper.from_array(np.array([7, -9000000000], dtype=np.int64), "i")
g = helper.make_graph(
    [helper.make_node("MatMul", ["x", "w"], ["y"], name="mm")],
    "ext",
    [helper.make_tensor_value_info("x", TensorProto.FLOAT, ["batch", 2])],
    [helper.make_tensor_value_info("y", TensorProto.FLOAT, ["batch", 3])],
    initializer=[w, h, i])
m = helper.make_model(g, opset_imports=[helper.make_opsetid("", 13)])
os.makedirs(os.path.join(out, "ext"), exist_ok=True)
onnx.save_model(m, os.path.join(out, "ext", "model.onnx"), save_as_external_data=True,
                all_tensors_to_one_file=True, location="weights.bin", size_threshold=0)

# 2. IR version 10 (newer than this libonnx) using only known ops.
g = helper.make_graph(
    [helper.make_node("Relu", ["x"], ["r"]), helper.make_node("Sigmoid", ["r"], ["y"])],
    "ir10",
    [helper.make_tensor_value_info("x", TensorProto.FLOAT, [4])],
    [helper.make_tensor_value_info("y", TensorProto.FLOAT, [4])])
m = helper.make_model(g, opset_imports=[helper.make_opsetid("", 17)])
m.ir_version = 10
onnx.save(m, os.path.join(out, "ir10.onnx"))

# 3. Opset 24: beyond what this build supports.
m = helper.make_model(g, opset_imports=[helper.make_opsetid("", 24)])
onnx.save(m, os.path.join(out, "opset24.onnx"))

# 4. If whose then-branch reads the outer input x.
then_g = helper.make_graph([helper.make_node("Neg", ["x"], ["t"], name="then_neg")], "then_g", [],
                           [helper.make_tensor_value_info("t", TensorProto.FLOAT, [4])])
else_g = helper.make_graph([helper.make_node("Abs", ["x"], ["e"], name="else_abs")], "else_g", [],
                           [helper.make_tensor_value_info("e", TensorProto.FLOAT, [4])])
g = helper.make_graph(
    [helper.make_node("If", ["c"], ["y"], name="branch", then_branch=then_g, else_branch=else_g)],
    "if_model",
    [helper.make_tensor_value_info("c", TensorProto.BOOL, []),
     helper.make_tensor_value_info("x", TensorProto.FLOAT, [4])],
    [helper.make_tensor_value_info("y", TensorProto.FLOAT, [4])])
m = helper.make_model(g, opset_imports=[helper.make_opsetid("", 16)])
onnx.checker.check_model(m)
onnx.save(m, os.path.join(out, "if.onnx"))
)PY";

class PythonModels : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_.write("gen.py", kGenerator);
    const std::string command = "/usr/bin/python3 '" + (dir_.path() / "gen.py").string() + "' '" +
                                dir_.path().string() + "'";
    ASSERT_EQ(std::system(command.c_str()), 0)
        << "generating models failed: needs /usr/bin/python3 with onnx and numpy "
           "(Debian python3-onnx, python3-numpy)";
  }
  fs::path path(const std::string& name) const { return dir_.path() / name; }

 private:
  TempDir dir_;
};

TEST_F(PythonModels, ExternalDataFromOnnxSaveModel) {
  auto graph = OnnxParser().parse_file(path("ext/model.onnx"));
  ASSERT_TRUE(graph.is_ok()) << graph.status().to_string();
  const Graph& g = **graph;
  ASSERT_EQ(g.initializers().size(), 3u);
  const Tensor& w = *g.initializers()[0]->constant();
  EXPECT_EQ(w.shape(), (std::vector<int64_t>{2, 3}));
  const float expected_w[] = {0.f, 0.5f, 1.f, 1.5f, 2.f, 2.5f};
  for (int k = 0; k < 6; ++k) EXPECT_EQ(w.data<float>()[k], expected_w[k]) << k;
  const Tensor& h = *g.initializers()[1]->constant();
  EXPECT_EQ(h.dtype(), DataType::kFloat16);
  EXPECT_EQ(h.data<uint16_t>()[0], 0x3C00);  // 1.0 in IEEE half
  EXPECT_EQ(h.data<uint16_t>()[1], 0xC000);  // -2.0
  const Tensor& i = *g.initializers()[2]->constant();
  EXPECT_EQ(i.data<int64_t>()[0], 7);
  EXPECT_EQ(i.data<int64_t>()[1], -9000000000);
  const TensorDesc& x = g.inputs()[0]->desc();
  EXPECT_EQ(*x.shape, (std::vector<Dim>{Dim::named("batch"), Dim::of(2)}));
}

TEST_F(PythonModels, IrVersion10Parses) {
  auto graph = OnnxParser().parse_file(path("ir10.onnx"));
  ASSERT_TRUE(graph.is_ok()) << graph.status().to_string();
  EXPECT_EQ((*graph)->node_count(), 2u);
  EXPECT_EQ((*graph)->opset_version(""), 17);
}

TEST_F(PythonModels, Opset24Rejected) {
  auto graph = OnnxParser().parse_file(path("opset24.onnx"));
  ASSERT_FALSE(graph.is_ok());
  EXPECT_EQ(graph.status().code(), StatusCode::kUnsupported);
  EXPECT_NE(graph.status().message().find("opset24.onnx"), std::string::npos) << graph.status().message();
}

TEST_F(PythonModels, IfCapturesOuterInput) {
  auto graph = OnnxParser().parse_file(path("if.onnx"));
  ASSERT_TRUE(graph.is_ok()) << graph.status().to_string();
  const Node* node = (*graph)->find_node("branch");
  ASSERT_NE(node, nullptr);
  for (const char* branch : {"then_branch", "else_branch"}) {
    const auto& sub = node->attribute(branch)->get<Attribute::GraphPtr>();
    ASSERT_EQ(sub->captures().size(), 1u) << branch;
    EXPECT_EQ(sub->captures()[0]->name(), "x");
    EXPECT_EQ(sub->captures()[0]->desc(), TensorDesc::of(DataType::kFloat32, {4}));
  }
}

}  // namespace
}  // namespace ge::onnx_parser
