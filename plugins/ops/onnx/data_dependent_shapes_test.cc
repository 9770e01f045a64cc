// Output shapes libonnx 1.12 leaves unknown: Einsum, OneHot, NonMaxSuppression
// (data_dependent_shapes.h), through the op library's inference.
#include "data_dependent_shapes.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <limits>
#include <memory>
#include <vector>

#include "onnx_op_library.h"

namespace ge::onnx_ops {
namespace {

class DataDependentShapesTest : public ::testing::Test {
 protected:
  DataDependentShapesTest() {
    graph_.set_opset_import("", 17);
    registry_.add_library(library_);
  }
  Value* input(const std::string& name, DataType dtype, const std::vector<int64_t>& dims) {
    return graph_.add_input(name, TensorDesc::of(dtype, dims));
  }
  /// Infers `node` with `data[i]` as input i's contents (null: unknown).
  std::vector<int64_t> infer(Node* node, const std::vector<const Tensor*>& data = {}) {
    InputDataProvider provider = [&](const Node&, size_t index) -> const Tensor* {
      return index < data.size() ? data[index] : nullptr;
    };
    Status status = library_->infer(*node, 17, provider, registry_);
    EXPECT_TRUE(status.is_ok()) << status.to_string();
    const TensorDesc& desc = node->output(0)->desc();
    return desc.is_static() ? desc.static_dims() : std::vector<int64_t>{-1};
  }

  std::shared_ptr<OnnxOpLibrary> library_ = std::make_shared<OnnxOpLibrary>();
  OpRegistry registry_;
  Graph graph_;
};

TEST_F(DataDependentShapesTest, EinsumShapesComeFromTheEquation) {
  Value* a = input("a", DataType::kFloat32, {2, 3});
  Value* b = input("b", DataType::kFloat32, {3, 5});
  Node* matmul = graph_.add_node("Einsum", {a, b}, 1, "mm");
  matmul->set_attribute("equation", Attribute(std::string("ij,jk->ik")));
  EXPECT_EQ(infer(matmul), (std::vector<int64_t>{2, 5}));

  Node* implicit = graph_.add_node("Einsum", {a, b}, 1, "implicit");  // "ik": the letters used once
  implicit->set_attribute("equation", Attribute(std::string("ij,jk")));
  EXPECT_EQ(infer(implicit), (std::vector<int64_t>{2, 5}));

  Value* x = input("x", DataType::kFloat32, {4, 7, 2, 3});
  Value* y = input("y", DataType::kFloat32, {1, 7, 3, 6});  // its ellipsis broadcasts
  Node* batched = graph_.add_node("Einsum", {x, y}, 1, "batched");
  batched->set_attribute("equation", Attribute(std::string("...ij,...jk->...ik")));
  EXPECT_EQ(infer(batched), (std::vector<int64_t>{4, 7, 2, 6}));

  Node* transpose = graph_.add_node("Einsum", {x}, 1, "transpose");
  transpose->set_attribute("equation", Attribute(std::string("abcd->dcba")));
  EXPECT_EQ(infer(transpose), (std::vector<int64_t>{3, 2, 7, 4}));

  Node* trace = graph_.add_node("Einsum", {input("s", DataType::kFloat32, {5, 5})}, 1, "trace");
  trace->set_attribute("equation", Attribute(std::string("ii->")));
  EXPECT_EQ(infer(trace), (std::vector<int64_t>{}));
}

TEST_F(DataDependentShapesTest, OneHotInsertsTheDepthAtTheAxis) {
  const Tensor depth = Tensor::from_vector<int64_t>({}, {10});
  Value* indices = input("i", DataType::kInt64, {4, 3});
  Value* d = input("d", DataType::kInt64, {});
  Value* values = input("v", DataType::kFloat32, {2});
  Node* last = graph_.add_node("OneHot", {indices, d, values}, 1, "last");
  EXPECT_EQ(infer(last, {nullptr, &depth}), (std::vector<int64_t>{4, 3, 10}));
  Node* first = graph_.add_node("OneHot", {indices, d, values}, 1, "first");
  first->set_attribute("axis", Attribute(int64_t{0}));
  EXPECT_EQ(infer(first, {nullptr, &depth}), (std::vector<int64_t>{10, 4, 3}));
  Node* unknown = graph_.add_node("OneHot", {indices, d, values}, 1, "unknown");
  EXPECT_EQ(infer(unknown), (std::vector<int64_t>{-1})) << "no depth: stays unknown";
}

TEST_F(DataDependentShapesTest, NonMaxSuppressionCountsTheSelectedBoxes) {
  // Boxes 0 and 1 overlap by IOU 0.81; box 2 is apart. Two classes.
  const Tensor boxes = Tensor::from_vector<float>({1, 3, 4}, {0, 0, 10, 10, 0, 0, 10, 9, 20, 20, 30, 30});
  const Tensor scores = Tensor::from_vector<float>({1, 2, 3}, {0.9f, 0.8f, 0.7f, 0.1f, 0.6f, 0.05f});
  // torchvision writes INT64_MAX as the per-class limit.
  const Tensor unlimited = Tensor::from_vector<int64_t>({1}, {std::numeric_limits<int64_t>::max()});
  const Tensor one = Tensor::from_vector<int64_t>({1}, {1});
  const Tensor iou = Tensor::from_vector<float>({1}, {0.5f});
  const Tensor low_iou = Tensor::from_vector<float>({1}, {0.9f});
  const Tensor score_threshold = Tensor::from_vector<float>({1}, {0.2f});
  std::vector<Value*> in = {input("b", DataType::kFloat32, {1, 3, 4}), input("s", DataType::kFloat32, {1, 2, 3}),
                            input("m", DataType::kInt64, {1}), input("t", DataType::kFloat32, {1}),
                            input("st", DataType::kFloat32, {1})};
  auto nms = [&](size_t inputs) {
    return graph_.add_node("NonMaxSuppression", std::vector<Value*>(in.begin(), in.begin() + inputs), 1);
  };
  EXPECT_EQ(infer(nms(5), {&boxes, &scores, &unlimited, &iou, &score_threshold}), (std::vector<int64_t>{3, 3}))
      << "class 0: boxes 0 and 2; class 1: box 1";
  EXPECT_EQ(infer(nms(4), {&boxes, &scores, &unlimited, &iou}), (std::vector<int64_t>{4, 3}));
  EXPECT_EQ(infer(nms(4), {&boxes, &scores, &unlimited, &low_iou}), (std::vector<int64_t>{6, 3}));
  EXPECT_EQ(infer(nms(4), {&boxes, &scores, &one, &iou}), (std::vector<int64_t>{2, 3}));
  EXPECT_EQ(infer(nms(2), {&boxes, &scores}), (std::vector<int64_t>{0, 3})) << "no limit given: none selected";
  EXPECT_EQ(infer(nms(5)), (std::vector<int64_t>{-1})) << "before run time the count is unknown";
}

}  // namespace
}  // namespace ge::onnx_ops
