// Expected shapes are computed by hand from the formulas in the ONNX operator spec.

#include "onnx_op_library.h"

#include <gtest/gtest.h>

#include <climits>
#include <cmath>
#include <limits>
#include <memory>
#include <thread>
#include <vector>

#include "ge/graph.h"
#include "ge/op_registry.h"

namespace ge::onnx_ops {
namespace {

constexpr int64_t kOpset = 17;

bool contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

class OnnxOpLibraryTest : public ::testing::Test {
 protected:
  OnnxOpLibraryTest() {
    graph_.set_opset_import("", kOpset);
    registry_.add_library(library_);
  }

  Status infer(Node* node, const InputDataProvider& data = {}, int64_t opset = kOpset) {
    return library_->infer(*node, opset, data, registry_);
  }

  Value* input(const std::string& name, TensorDesc desc) { return graph_.add_input(name, std::move(desc)); }
  Value* f32(const std::string& name, const std::vector<int64_t>& dims) {
    return input(name, TensorDesc::of(DataType::kFloat32, dims));
  }

  std::shared_ptr<OnnxOpLibrary> library_ = std::make_shared<OnnxOpLibrary>();
  OpRegistry registry_;
  Graph graph_;
};

// ---- schemas ----

TEST_F(OnnxOpLibraryTest, FindSchemaResolvesTheNewestVersionNotAboveTheOpset) {
  const OpSchemaInfo* conv = library_->find_schema("", "Conv", 17);
  ASSERT_NE(conv, nullptr);
  EXPECT_EQ(conv->op_type, "Conv");
  EXPECT_EQ(conv->domain, "");
  EXPECT_EQ(conv->since_version, 11);  // Conv-1, Conv-11
  EXPECT_EQ(conv->min_inputs, 2);
  EXPECT_EQ(conv->max_inputs, 3);
  EXPECT_EQ(conv->min_outputs, 1);
  EXPECT_EQ(conv->max_outputs, 1);
  EXPECT_EQ(conv->fusion_kind, FusionKind::kOpaque);
  EXPECT_FALSE(conv->deprecated);

  const OpSchemaInfo* conv1 = library_->find_schema("", "Conv", 10);
  ASSERT_NE(conv1, nullptr);
  EXPECT_EQ(conv1->since_version, 1);

  // "ai.onnx" and "" name the same domain, and the info is cached per schema.
  EXPECT_EQ(library_->find_schema("ai.onnx", "Conv", 17), conv);

  const OpSchemaInfo* add = library_->find_schema("", "Add", 17);
  ASSERT_NE(add, nullptr);
  EXPECT_EQ(add->since_version, 14);  // Add-1, 6, 7, 13, 14
  EXPECT_EQ(add->fusion_kind, FusionKind::kBroadcast);

  const OpSchemaInfo* concat = library_->find_schema("", "Concat", 17);
  ASSERT_NE(concat, nullptr);
  EXPECT_EQ(concat->min_inputs, 1);
  EXPECT_EQ(concat->max_inputs, INT32_MAX);
  EXPECT_EQ(concat->fusion_kind, FusionKind::kInjective);

  const OpSchemaInfo* dropout = library_->find_schema("", "Dropout", 17);
  ASSERT_NE(dropout, nullptr);
  EXPECT_EQ(dropout->min_outputs, 1);
  EXPECT_EQ(dropout->max_outputs, 2);

  EXPECT_EQ(library_->find_schema("", "Relu", 17)->fusion_kind, FusionKind::kElementwise);
  EXPECT_EQ(library_->find_schema("", "ReduceSum", 17)->fusion_kind, FusionKind::kReduction);
}

TEST_F(OnnxOpLibraryTest, FindSchemaReportsDeprecationOtherDomainsAndUnknownOps) {
  const OpSchemaInfo* upsample10 = library_->find_schema("", "Upsample", 10);
  ASSERT_NE(upsample10, nullptr);
  EXPECT_TRUE(upsample10->deprecated);  // deprecated in favour of Resize at opset 10
  const OpSchemaInfo* upsample9 = library_->find_schema("", "Upsample", 9);
  ASSERT_NE(upsample9, nullptr);
  EXPECT_FALSE(upsample9->deprecated);

  const OpSchemaInfo* ml = library_->find_schema("ai.onnx.ml", "LinearClassifier", 1);
  ASSERT_NE(ml, nullptr);
  EXPECT_EQ(ml->domain, "ai.onnx.ml");

  EXPECT_EQ(library_->find_schema("", "NoSuchOp", 17), nullptr);
  EXPECT_EQ(library_->find_schema("com.example", "Conv", 17), nullptr);
  EXPECT_EQ(library_->find_schema("", "Conv", 0), nullptr);
}

TEST_F(OnnxOpLibraryTest, FindSchemaIsSafeFromManyThreads) {
  std::vector<const OpSchemaInfo*> seen(8, nullptr);
  std::vector<std::thread> threads;
  for (size_t t = 0; t < seen.size(); ++t) {
    threads.emplace_back([&, t] {
      for (int i = 0; i < 200; ++i) seen[t] = library_->find_schema("", "MatMul", 17);
    });
  }
  for (auto& thread : threads) thread.join();
  ASSERT_NE(seen[0], nullptr);
  for (const OpSchemaInfo* info : seen) EXPECT_EQ(info, seen[0]);
}

// ---- inference ----

TEST_F(OnnxOpLibraryTest, ConvOutputShapeWithPadsStridesAndDilations) {
  Node* conv = graph_.add_node("Conv", {f32("x", {1, 3, 32, 30}), f32("w", {8, 3, 3, 3}), f32("b", {8})},
                               1, "conv1", {"y"});
  conv->set_attribute("strides", std::vector<int64_t>{2, 2});
  conv->set_attribute("pads", std::vector<int64_t>{1, 0, 2, 1});  // h_begin, w_begin, h_end, w_end
  conv->set_attribute("dilations", std::vector<int64_t>{2, 1});
  ASSERT_TRUE(infer(conv).is_ok());
  // H: floor((32 + 1 + 2 - ((3 - 1) * 2 + 1)) / 2) + 1 = floor(30 / 2) + 1 = 16
  // W: floor((30 + 0 + 1 - ((3 - 1) * 1 + 1)) / 2) + 1 = floor(28 / 2) + 1 = 15
  EXPECT_EQ(conv->output(0)->desc(), TensorDesc::of(DataType::kFloat32, {1, 8, 16, 15}));
}

TEST_F(OnnxOpLibraryTest, ConvSameUpperAutoPad) {
  Node* conv = graph_.add_node("Conv", {f32("x", {2, 4, 7, 7}), f32("w", {6, 4, 3, 3})}, 1, "conv_same");
  conv->set_attribute("auto_pad", "SAME_UPPER");
  conv->set_attribute("strides", std::vector<int64_t>{2, 2});
  ASSERT_TRUE(infer(conv).is_ok());
  // SAME: ceil(7 / 2) = 4
  EXPECT_EQ(conv->output(0)->desc(), TensorDesc::of(DataType::kFloat32, {2, 6, 4, 4}));
}

TEST_F(OnnxOpLibraryTest, GemmWithBothTransposes) {
  Node* gemm = graph_.add_node("Gemm", {f32("a", {4, 3}), f32("b", {5, 4}), f32("c", {5})}, 1, "gemm");
  gemm->set_attribute("transA", int64_t{1});
  gemm->set_attribute("transB", int64_t{1});
  ASSERT_TRUE(infer(gemm).is_ok());
  // A' is [3,4], B' is [4,5]: Y = A' B' is [3,5]
  EXPECT_EQ(gemm->output(0)->desc(), TensorDesc::of(DataType::kFloat32, {3, 5}));
}

TEST_F(OnnxOpLibraryTest, ReshapeWithKnownShapeDataHandlesZeroAndMinusOne) {
  Value* shape = input("shape", TensorDesc::of(DataType::kInt64, {3}));
  Node* reshape = graph_.add_node("Reshape", {f32("x", {2, 3, 4}), shape}, 1, "reshape");
  Tensor shape_data = Tensor::from_vector<int64_t>({3}, {0, -1, 2});
  size_t asked_index = 99;
  InputDataProvider data = [&](const Node& node, size_t index) -> const Tensor* {
    EXPECT_EQ(&node, reshape);
    asked_index = index;
    return index == 1 ? &shape_data : nullptr;
  };
  ASSERT_TRUE(infer(reshape, data).is_ok());
  EXPECT_EQ(asked_index, 1u);
  // 0 copies dim 0 (2); -1 takes the rest: 24 / (2 * 2) = 6
  EXPECT_EQ(reshape->output(0)->desc(), TensorDesc::of(DataType::kFloat32, {2, 6, 2}));
}

// libonnx 1.12 infers no rank here; the library supplements it as ONNX >= 1.13 does.
TEST_F(OnnxOpLibraryTest, ReshapeWithoutDataKnowsOnlyTheRankFromAStaticShapeInput) {
  Node* ranked = graph_.add_node(
      "Reshape", {f32("x", {2, 3, 4}), input("shape3", TensorDesc::of(DataType::kInt64, {3}))}, 1,
      "reshape_ranked");
  ASSERT_TRUE(infer(ranked).is_ok());
  EXPECT_EQ(ranked->output(0)->desc(),
            TensorDesc(DataType::kFloat32, {Dim::unknown(), Dim::unknown(), Dim::unknown()}));

  Node* unranked = graph_.add_node(
      "Reshape",
      {graph_.find_value("x"), input("shape_any", TensorDesc(DataType::kInt64, {Dim::unknown()}))}, 1,
      "reshape_unranked");
  ASSERT_TRUE(infer(unranked).is_ok());
  EXPECT_EQ(unranked->output(0)->desc().dtype, DataType::kFloat32);
  EXPECT_FALSE(unranked->output(0)->desc().has_rank());
}

TEST_F(OnnxOpLibraryTest, MatMulBroadcastsBatchDims) {
  Node* matmul = graph_.add_node("MatMul", {f32("a", {2, 1, 4, 3}), f32("b", {5, 3, 6})}, 1, "matmul");
  ASSERT_TRUE(infer(matmul).is_ok());
  // batch dims [2,1] and [5] broadcast to [2,5]; [4,3] x [3,6] = [4,6]
  EXPECT_EQ(matmul->output(0)->desc(), TensorDesc::of(DataType::kFloat32, {2, 5, 4, 6}));
}

TEST_F(OnnxOpLibraryTest, ConcatSumsTheAxisWithNegativeAxis) {
  Node* concat = graph_.add_node("Concat", {f32("a", {2, 3, 4}), f32("b", {2, 5, 4}), f32("c", {2, 1, 4})},
                                 1, "concat");
  concat->set_attribute("axis", int64_t{-2});
  ASSERT_TRUE(infer(concat).is_ok());
  EXPECT_EQ(concat->output(0)->desc(), TensorDesc::of(DataType::kFloat32, {2, 9, 4}));
}

TEST_F(OnnxOpLibraryTest, NamedDimsPropagate) {
  Value* x = input("x", TensorDesc(DataType::kFloat32, {Dim::named("N"), Dim::of(3)}));
  Node* relu = graph_.add_node("Relu", {x}, 1, "relu");
  ASSERT_TRUE(infer(relu).is_ok());
  EXPECT_EQ(relu->output(0)->desc(), TensorDesc(DataType::kFloat32, {Dim::named("N"), Dim::of(3)}));

  Value* col = input("col", TensorDesc(DataType::kFloat32, {Dim::named("N"), Dim::of(1)}));
  Node* add = graph_.add_node("Add", {col, f32("row", {1, 4})}, 1, "add");
  ASSERT_TRUE(infer(add).is_ok());
  EXPECT_EQ(add->output(0)->desc(), TensorDesc(DataType::kFloat32, {Dim::named("N"), Dim::of(4)}));

  Value* y = input("y", TensorDesc(DataType::kFloat32, {Dim::named("N"), Dim::of(2)}));
  Node* concat = graph_.add_node("Concat", {x, y}, 1, "concat");
  concat->set_attribute("axis", int64_t{1});
  ASSERT_TRUE(infer(concat).is_ok());
  EXPECT_EQ(concat->output(0)->desc(), TensorDesc(DataType::kFloat32, {Dim::named("N"), Dim::of(5)}));
}

TEST_F(OnnxOpLibraryTest, ExistingOutputInformationIsKeptWhereInferenceKnowsLess) {
  // Reshape without data infers [?,?,?]; the producer's earlier desc [N,6,?] survives.
  Node* reshape = graph_.add_node(
      "Reshape", {f32("x", {2, 3, 4}), input("shape", TensorDesc::of(DataType::kInt64, {3}))}, 1,
      "reshape");
  reshape->output(0)->set_desc(
      TensorDesc(DataType::kFloat32, {Dim::named("N"), Dim::of(6), Dim::unknown()}));
  ASSERT_TRUE(infer(reshape).is_ok());
  EXPECT_EQ(reshape->output(0)->desc(),
            TensorDesc(DataType::kFloat32, {Dim::named("N"), Dim::of(6), Dim::unknown()}));
}

TEST_F(OnnxOpLibraryTest, SoftmaxKeepsShapeAndType) {
  Node* softmax = graph_.add_node("Softmax", {f32("x", {2, 5})}, 1, "softmax");
  softmax->set_attribute("axis", int64_t{-1});
  ASSERT_TRUE(infer(softmax).is_ok());
  EXPECT_EQ(softmax->output(0)->desc(), TensorDesc::of(DataType::kFloat32, {2, 5}));

  Node* softmax11 = graph_.add_node(
      "Softmax", {input("h", TensorDesc::of(DataType::kFloat16, {2, 3, 4}))}, 1, "softmax11");
  softmax11->set_attribute("axis", int64_t{1});
  ASSERT_TRUE(infer(softmax11, {}, 11).is_ok());
  EXPECT_EQ(softmax11->output(0)->desc(), TensorDesc::of(DataType::kFloat16, {2, 3, 4}));
}

TEST_F(OnnxOpLibraryTest, TypeOnlyOpsAndAttributesOfEveryKind) {
  // Cast reads an int attribute; ConstantOfShape a tensor attribute and its shape input data.
  Node* cast = graph_.add_node("Cast", {f32("x", {3, 1})}, 1, "cast");
  cast->set_attribute("to", int64_t{static_cast<int64_t>(DataType::kInt32)});
  ASSERT_TRUE(infer(cast).is_ok());
  EXPECT_EQ(cast->output(0)->desc(), TensorDesc::of(DataType::kInt32, {3, 1}));

  Value* shape = input("shape", TensorDesc::of(DataType::kInt64, {2}));
  Node* fill = graph_.add_node("ConstantOfShape", {shape}, 1, "fill");
  fill->set_attribute("value", Tensor::from_vector<int8_t>({1}, {7}));
  Tensor shape_data = Tensor::from_vector<int64_t>({2}, {4, 9});
  ASSERT_TRUE(infer(fill, [&](const Node&, size_t) { return &shape_data; }).is_ok());
  EXPECT_EQ(fill->output(0)->desc(), TensorDesc::of(DataType::kInt8, {4, 9}));
}

TEST_F(OnnxOpLibraryTest, OpsDefinedByAFunctionBodyAreInferredThroughIt) {
  // LessOrEqual-16 has no inference function in libonnx 1.12, only a body (Less, Equal, Or).
  Node* le = graph_.add_node("LessOrEqual", {f32("a", {3, 1}), f32("b", {1, 4})}, 1, "le");
  ASSERT_TRUE(infer(le).is_ok());
  EXPECT_EQ(le->output(0)->desc(), TensorDesc::of(DataType::kBool, {3, 4}));
}

TEST_F(OnnxOpLibraryTest, AbsentAttributesMeanTheSchemaDefault) {
  // STFT-17 without `onesided` (default 1): libonnx 1.12 reads it as 0 unless the default is
  // supplied. Output [batch, frames, bins, 2] with frames = floor((128 - 16) / 8) + 1 = 15
  // and bins = 16 / 2 + 1 = 9.
  Value* step = input("step", TensorDesc::of(DataType::kInt64, {}));
  Value* length = input("length", TensorDesc::of(DataType::kInt64, {}));
  Node* stft = graph_.add_node("STFT", {f32("signal", {1, 128, 1}), step, nullptr, length}, 1, "stft");
  Tensor step_data = Tensor::from_vector<int64_t>({}, {8});
  Tensor length_data = Tensor::from_vector<int64_t>({}, {16});
  InputDataProvider data = [&](const Node&, size_t index) -> const Tensor* {
    return index == 1 ? &step_data : index == 3 ? &length_data : nullptr;
  };
  ASSERT_TRUE(infer(stft, data).is_ok());
  EXPECT_EQ(stft->output(0)->desc(), TensorDesc::of(DataType::kFloat32, {1, 15, 9, 2}));
}

TEST_F(OnnxOpLibraryTest, OmittedOptionalInputAndOutput) {
  // Clip-13 with min omitted and max given; Dropout with its mask output omitted.
  Value* x = f32("x", {4, 2});
  Node* clip = graph_.add_node("Clip", {x, nullptr, input("max", TensorDesc::of(DataType::kFloat32, {}))},
                               1, "clip");
  ASSERT_TRUE(infer(clip).is_ok());
  EXPECT_EQ(clip->output(0)->desc(), TensorDesc::of(DataType::kFloat32, {4, 2}));

  Node* dropout = graph_.add_node("Dropout", {x}, 2, "dropout", {"d", ""});
  ASSERT_TRUE(infer(dropout).is_ok());
  EXPECT_EQ(dropout->output(0)->desc(), TensorDesc::of(DataType::kFloat32, {4, 2}));
}

TEST_F(OnnxOpLibraryTest, IfMergesItsBranchesThroughTheRegistry) {
  Value* cond = input("cond", TensorDesc::of(DataType::kBool, {}));
  f32("x", {2, 3});

  // then: (Relu(x) [2,3], Concat(x, x, axis=1) [2,6])
  auto then_graph = std::make_shared<Graph>("then");
  then_graph->set_parent(&graph_);
  then_graph->set_opset_import("", kOpset);
  Value* then_x = then_graph->add_capture("x", TensorDesc());
  Node* then_relu = then_graph->add_node("Relu", {then_x}, 1, "then_relu");
  Node* then_concat = then_graph->add_node("Concat", {then_x, then_x}, 1, "then_concat");
  then_concat->set_attribute("axis", int64_t{1});
  then_graph->set_outputs({then_relu->output(0), then_concat->output(0)});

  // else: (Neg(x) [2,3], Concat(x, x, x, axis=1) [2,9])
  auto else_graph = std::make_shared<Graph>("else");
  else_graph->set_parent(&graph_);
  else_graph->set_opset_import("", kOpset);
  Value* else_x = else_graph->add_capture("x", TensorDesc());
  Node* else_neg = else_graph->add_node("Neg", {else_x}, 1, "else_neg");
  Node* else_concat = else_graph->add_node("Concat", {else_x, else_x, else_x}, 1, "else_concat");
  else_concat->set_attribute("axis", int64_t{1});
  else_graph->set_outputs({else_neg->output(0), else_concat->output(0)});

  Node* if_node = graph_.add_node("If", {cond}, 2, "if0", {"r0", "r1"});
  if_node->set_attribute("then_branch", Attribute::GraphPtr(then_graph));
  if_node->set_attribute("else_branch", Attribute::GraphPtr(else_graph));
  graph_.set_outputs({if_node->output(0), if_node->output(1)});

  Status status = registry_.infer_graph(graph_);
  ASSERT_TRUE(status.is_ok()) << status.to_string();
  EXPECT_EQ(then_concat->output(0)->desc(), TensorDesc::of(DataType::kFloat32, {2, 6}));
  EXPECT_EQ(else_concat->output(0)->desc(), TensorDesc::of(DataType::kFloat32, {2, 9}));
  EXPECT_EQ(if_node->output(0)->desc(), TensorDesc::of(DataType::kFloat32, {2, 3}));
  // The branches disagree on dim 1 (6 vs 9): the union leaves it unknown.
  EXPECT_EQ(if_node->output(1)->desc(), TensorDesc(DataType::kFloat32, {Dim::of(2), Dim::unknown()}));
}

TEST_F(OnnxOpLibraryTest, IfReportsAFailureInsideABranch) {
  Value* cond = input("cond", TensorDesc::of(DataType::kBool, {}));
  f32("x", {2, 3});
  auto make_branch = [&](const std::string& name, const std::string& op) {
    auto branch = std::make_shared<Graph>(name);
    branch->set_parent(&graph_);
    branch->set_opset_import("", kOpset);
    Value* x = branch->add_capture("x", TensorDesc());
    Node* node = branch->add_node(op, {x, x}, 1, name + "_op");
    branch->add_output(node->output(0));
    return branch;
  };
  Node* if_node = graph_.add_node("If", {cond}, 1, "if_bad");
  if_node->set_attribute("then_branch", Attribute::GraphPtr(make_branch("then", "Add")));
  // Conv of a rank-2 input is rejected inside the else branch.
  if_node->set_attribute("else_branch", Attribute::GraphPtr(make_branch("else", "Conv")));
  Status status = registry_.infer_node(*if_node);
  ASSERT_FALSE(status.is_ok());
  EXPECT_EQ(status.code(), StatusCode::kInvalidArgument);
  EXPECT_TRUE(contains(status.message(), "If 'if_bad'")) << status.message();
  EXPECT_TRUE(contains(status.message(), "else_branch")) << status.message();
  EXPECT_TRUE(contains(status.message(), "Conv 'else_op'")) << status.message();
}

TEST_F(OnnxOpLibraryTest, LoopBindsBodyInputsAndStacksScanOutputs) {
  // Loop(M, cond, v0) with body (i, c_in, v_in) -> (c_out, v_out, s_out).
  Value* trip_count = input("M", TensorDesc::of(DataType::kInt64, {}));
  Value* cond = input("cond", TensorDesc::of(DataType::kBool, {}));
  Value* v0 = f32("v0", {2, 3});

  auto body = std::make_shared<Graph>("body");
  body->set_parent(&graph_);
  body->set_opset_import("", kOpset);
  body->add_input("i", TensorDesc());
  Value* c_in = body->add_input("c_in", TensorDesc());
  // The body declares the state's shape; Loop itself passes only its dtype.
  Value* v_in = body->add_input("v_in", TensorDesc(DataType::kUndefined, {Dim::of(2), Dim::of(3)}));
  Node* keep_going = body->add_node("Identity", {c_in}, 1, "keep_going");
  Node* twice = body->add_node("Add", {v_in, v_in}, 1, "twice");
  Node* relu = body->add_node("Relu", {v_in}, 1, "relu");
  body->set_outputs({keep_going->output(0), twice->output(0), relu->output(0)});

  Node* loop = graph_.add_node("Loop", {trip_count, cond, v0}, 2, "loop", {"v_final", "stacked"});
  loop->set_attribute("body", Attribute::GraphPtr(body));
  Status status = registry_.infer_node(*loop);
  ASSERT_TRUE(status.is_ok()) << status.to_string();

  // Body inputs: iteration number int64 (libonnx 1.12 passes no shape for it), condition
  // bool scalar, state float32[2,3].
  EXPECT_EQ(body->inputs()[0]->desc().dtype, DataType::kInt64);
  EXPECT_EQ(c_in->desc(), TensorDesc::of(DataType::kBool, {}));
  EXPECT_EQ(v_in->desc(), TensorDesc::of(DataType::kFloat32, {2, 3}));
  EXPECT_EQ(twice->output(0)->desc(), TensorDesc::of(DataType::kFloat32, {2, 3}));
  // The final state keeps its dtype (its shape may change across iterations); a scan
  // output stacks the per-iteration [2,3] along a new leading axis of unknown length.
  EXPECT_EQ(loop->output(0)->desc().dtype, DataType::kFloat32);
  EXPECT_EQ(loop->output(1)->desc(),
            TensorDesc(DataType::kFloat32, {Dim::unknown(), Dim::of(2), Dim::of(3)}));
}

TEST_F(OnnxOpLibraryTest, IfAndLoopRefuseAConditionOrTripCountOfAnotherType) {
  auto identity_body = [&](const std::string& name, bool loop) {
    auto body = std::make_shared<Graph>(name);
    body->set_parent(&graph_);
    body->set_opset_import("", kOpset);
    std::vector<Value*> outputs;
    if (loop) {
      body->add_input("i", TensorDesc());
      outputs.push_back(body->add_node("Identity", {body->add_input("c", TensorDesc())}, 1, name + "_c")->output(0));
    }
    Value* v = loop ? body->add_input("v", TensorDesc()) : body->add_capture("x", TensorDesc());
    outputs.push_back(body->add_node("Identity", {v}, 1, name + "_v")->output(0));
    body->set_outputs(outputs);
    return body;
  };
  Value* x = f32("x", {2});
  Node* if_node = graph_.add_node("If", {f32("float_cond", {})}, 1, "if_float");
  if_node->set_attribute("then_branch", Attribute::GraphPtr(identity_body("then", false)));
  if_node->set_attribute("else_branch", Attribute::GraphPtr(identity_body("else", false)));
  Status status = registry_.infer_node(*if_node);
  EXPECT_EQ(status.code(), StatusCode::kInvalidArgument) << status.to_string();
  EXPECT_EQ(status.message(),
            "If 'if_float' (ai.onnx opset " + std::to_string(kOpset) +
                "): input 0 'cond' ('float_cond') is float32[], but If's cond must be bool (type constraint B: "
                "tensor(bool))");

  Value* bool_cond = input("cond", TensorDesc::of(DataType::kBool, {}));
  Node* float_trips = graph_.add_node("Loop", {f32("float_trips", {}), bool_cond, x}, 1, "loop_m");
  float_trips->set_attribute("body", Attribute::GraphPtr(identity_body("body_m", true)));
  status = registry_.infer_node(*float_trips);
  EXPECT_EQ(status.message(),
            "Loop 'loop_m' (ai.onnx opset " + std::to_string(kOpset) +
                "): input 0 'M' ('float_trips') is float32[], but Loop's M must be int64 (type constraint I: "
                "tensor(int64))");
  Node* float_cond = graph_.add_node(
      "Loop", {input("M", TensorDesc::of(DataType::kInt64, {})), graph_.find_value("float_cond"), x}, 1, "loop_c");
  float_cond->set_attribute("body", Attribute::GraphPtr(identity_body("body_c", true)));
  status = registry_.infer_node(*float_cond);
  EXPECT_EQ(status.message(),
            "Loop 'loop_c' (ai.onnx opset " + std::to_string(kOpset) +
                "): input 1 'cond' ('float_cond') is float32[], but Loop's cond must be bool (type constraint B: "
                "tensor(bool))");

  Node* valid = graph_.add_node("If", {bool_cond}, 1, "if_bool");
  valid->set_attribute("then_branch", Attribute::GraphPtr(identity_body("then2", false)));
  valid->set_attribute("else_branch", Attribute::GraphPtr(identity_body("else2", false)));
  status = registry_.infer_node(*valid);
  EXPECT_TRUE(status.is_ok()) << status.to_string();
}

TEST_F(OnnxOpLibraryTest, ResizeScalesMustBeFiniteAndPositive) {
  // libonnx multiplied the dims by them: 0 gave an empty output, inf a dim of -2^63.
  Value* x = f32("x", {1, 1, 2, 2});
  Value* scales = f32("scales", {4});
  Node* resize = graph_.add_node("Resize", {x, nullptr, scales}, 1, "resize");
  auto infer_with = [&](std::vector<float> values) {
    const Tensor data = Tensor::from_vector<float>({4}, values);
    return registry_.infer_node(*resize, [&](const Node&, size_t index) { return index == 2 ? &data : nullptr; });
  };
  const std::string where = "Resize 'resize' (ai.onnx opset " + std::to_string(kOpset) + "): ";
  EXPECT_EQ(infer_with({1, 1, 0, 1}).message(),
            where + "input 2 (scales) has 0 at index 2; every scale must be finite and greater than 0");
  EXPECT_EQ(infer_with({1, 1, 1, std::numeric_limits<float>::infinity()}).message(),
            where + "input 2 (scales) has inf at index 3; every scale must be finite and greater than 0");
  EXPECT_EQ(infer_with({1, -2, 1, 1}).message(),
            where + "input 2 (scales) has -2 at index 1; every scale must be finite and greater than 0");
  EXPECT_EQ(infer_with({1, 1, std::numeric_limits<float>::quiet_NaN(), 1}).message(),
            where + "input 2 (scales) has nan at index 2; every scale must be finite and greater than 0");
  const Status status = infer_with({1, 1, 2, 1.5f});
  ASSERT_TRUE(status.is_ok()) << status.to_string();
  EXPECT_EQ(resize->output(0)->desc(), TensorDesc::of(DataType::kFloat32, {1, 1, 4, 3}));
}

TEST_F(OnnxOpLibraryTest, TileRepeatsThatOverflowADimAreAnError) {
  // libonnx multiplied unchecked: 2 x 2^62 gave "dim 0 is negative (-9223372036854775808)".
  Node* tile = graph_.add_node("Tile", {f32("x", {2, 3}), input("r", TensorDesc::of(DataType::kInt64, {2}))}, 1, "tile");
  auto infer_with = [&](std::vector<int64_t> values) {
    const Tensor data = Tensor::from_vector<int64_t>({2}, values);
    return registry_.infer_node(*tile, [&](const Node&, size_t index) { return index == 1 ? &data : nullptr; });
  };
  const std::string where = "Tile 'tile' (ai.onnx opset " + std::to_string(kOpset) + "): ";
  EXPECT_EQ(infer_with({int64_t{1} << 62, 2}).message(),
            where + "input 1 (repeats) is 4611686018427387904 at index 0: dim 0 (2) times it exceeds 2^63 - 1");
  EXPECT_EQ(infer_with({1, -1}).message(), where + "input 1 (repeats) is -1 at index 1; Tile repeats must not be negative");
  const Status status = infer_with({int64_t{1} << 40, 2});
  ASSERT_TRUE(status.is_ok()) << status.to_string();
  EXPECT_EQ(tile->output(0)->desc(), TensorDesc::of(DataType::kFloat32, {int64_t{1} << 41, 6}));
}

// ---- errors ----

TEST_F(OnnxOpLibraryTest, ConvWithRankTwoInputIsAnErrorNamingTheNode) {
  Node* conv = graph_.add_node("Conv", {f32("x", {3, 4}), f32("w", {8, 3, 3, 3})}, 1, "bad_conv");
  Status status = infer(conv);
  ASSERT_FALSE(status.is_ok());
  EXPECT_EQ(status.code(), StatusCode::kInvalidArgument);
  EXPECT_TRUE(contains(status.message(), "Conv 'bad_conv'")) << status.message();
  EXPECT_TRUE(contains(status.message(), "float32[3,4]")) << status.message();
  EXPECT_FALSE(conv->output(0)->desc().has_rank());
}

TEST_F(OnnxOpLibraryTest, ConvWithMismatchedWeightRankIsAnError) {
  Node* conv = graph_.add_node("Conv", {f32("x", {1, 3, 8, 8}), f32("w", {8, 3, 3})}, 1, "conv_w");
  Status status = infer(conv);
  ASSERT_FALSE(status.is_ok());
  EXPECT_TRUE(contains(status.message(), "Conv 'conv_w'")) << status.message();
  EXPECT_TRUE(contains(status.message(), "ranks must match")) << status.message();
}

TEST_F(OnnxOpLibraryTest, LibonnxInferenceErrorsCarryNodeOpAndMessage) {
  // MatMul inner dims 3 vs 4 disagree: libonnx's own check fails.
  Node* matmul = graph_.add_node("MatMul", {f32("a", {2, 3}), f32("b", {4, 5})}, 1, "mm");
  Status status = infer(matmul);
  ASSERT_FALSE(status.is_ok());
  EXPECT_EQ(status.code(), StatusCode::kInvalidArgument);
  EXPECT_TRUE(contains(status.message(), "MatMul 'mm' (ai.onnx opset 17)")) << status.message();
  EXPECT_TRUE(contains(status.message(), "[ShapeInferenceError]")) << status.message();
}

TEST_F(OnnxOpLibraryTest, WrongInputCountIsAnError) {
  Node* relu = graph_.add_node("Relu", {f32("a", {2}), f32("b", {2})}, 1, "relu2");
  Status status = infer(relu);
  ASSERT_FALSE(status.is_ok());
  EXPECT_EQ(status.code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(status.message(), "Relu 'relu2' (ai.onnx opset 17): has 2 inputs but Relu-14 takes 1");

  Node* gemm = graph_.add_node("Gemm", {f32("c", {2, 2})}, 1, "gemm1");
  status = infer(gemm);
  ASSERT_FALSE(status.is_ok());
  EXPECT_TRUE(contains(status.message(), "has 1 inputs but Gemm-13 takes 2 to 3")) << status.message();

  Node* add = graph_.add_node("Add", {graph_.find_value("a"), nullptr}, 1, "add_missing");
  status = infer(add);
  ASSERT_FALSE(status.is_ok());
  EXPECT_TRUE(contains(status.message(), "input 1 ('B') is omitted")) << status.message();
}

TEST_F(OnnxOpLibraryTest, ConflictWithAnExistingStaticShapeIsAnError) {
  Node* relu = graph_.add_node("Relu", {f32("x", {2, 3})}, 1, "relu", {"y"});
  relu->output(0)->set_desc(TensorDesc::of(DataType::kFloat32, {2, 4}));
  Status status = infer(relu);
  ASSERT_FALSE(status.is_ok());
  EXPECT_EQ(status.message(),
            "Relu 'relu' (ai.onnx opset 17) output 0 'y': inferred float32[2,3] conflicts with "
            "existing float32[2,4]: dim 1 is 3 vs 4");
  EXPECT_EQ(relu->output(0)->desc(), TensorDesc::of(DataType::kFloat32, {2, 4}));
}

// ---- shapes from run-time data (issue 17) ----

TEST_F(OnnxOpLibraryTest, ShapesFromDataWhoseElementCountOverflowsAreAnErrorNamingNodeAndDims) {
  // Unchecked, [2^22,2^22,2^22] and [2^62+1,4,1] wrap to 0 and 4 elements: an empty tensor
  // and a ReduceSum of 4 ones; [2^31,2^33] wraps to 0.
  struct Case {
    std::string op;
    std::vector<int64_t> dims;
  };
  const std::vector<Case> cases = {{"ConstantOfShape", {int64_t{1} << 22, int64_t{1} << 22, int64_t{1} << 22}},
                                   {"ConstantOfShape", {(int64_t{1} << 62) + 1, 4, 1}},
                                   {"Expand", {int64_t{1} << 31, int64_t{1} << 33}}};
  for (const Case& c : cases) {
    Graph graph;
    graph.set_opset_import("", kOpset);
    Value* shape = graph.add_input("shape", TensorDesc::of(DataType::kInt64, {static_cast<int64_t>(c.dims.size())}));
    std::vector<Value*> inputs = {shape};
    if (c.op == "Expand") inputs = {graph.add_input("x", TensorDesc::of(DataType::kFloat32, {1})), shape};
    Node* node = graph.add_node(c.op, inputs, 1, "n");
    Tensor shape_data = Tensor::from_vector<int64_t>({static_cast<int64_t>(c.dims.size())}, c.dims);
    InputDataProvider data = [&](const Node&, size_t index) -> const Tensor* {
      return inputs[index] == shape ? &shape_data : nullptr;
    };
    Status status = registry_.infer_node(*node, data);
    ASSERT_FALSE(status.is_ok()) << c.op << " " << shape_to_string(c.dims);
    EXPECT_EQ(status.code(), StatusCode::kInvalidArgument);
    EXPECT_TRUE(contains(status.message(), c.op + " 'n'")) << status.message();
    EXPECT_TRUE(contains(status.message(), shape_to_string(c.dims) + " has more than 2^63 elements"))
        << status.message();
  }
}

TEST_F(OnnxOpLibraryTest, ConstantOfShapeWithANegativeDimSaysSo) {
  Value* shape = input("shape", TensorDesc::of(DataType::kInt64, {3}));
  Node* node = graph_.add_node("ConstantOfShape", {shape}, 1, "c");
  Tensor shape_data = Tensor::from_vector<int64_t>({3}, {2, -3, 1});
  InputDataProvider data = [&](const Node&, size_t) -> const Tensor* { return &shape_data; };
  Status status = infer(node, data);
  ASSERT_FALSE(status.is_ok());
  EXPECT_EQ(status.code(), StatusCode::kInvalidArgument);
  EXPECT_TRUE(contains(status.message(), "ConstantOfShape 'c'")) << status.message();
  EXPECT_TRUE(contains(status.message(), "dim 1 is negative (-3)")) << status.message();
}

TEST_F(OnnxOpLibraryTest, RangeWithAZeroDeltaOrANonFiniteBoundIsAnError) {
  struct Case {
    float start, limit, delta;
    std::string message;
  };
  const std::vector<Case> cases = {{0, 10, 0, "input 2 (delta) is 0"},
                                   {0, INFINITY, 1, "input 1 (limit) is inf"},
                                   {NAN, 10, 1, "input 0 (start) is nan"},
                                   {0, 1e30f, 1e-30f, "more than 2^62"}};
  for (const Case& c : cases) {
    Graph graph;
    graph.set_opset_import("", kOpset);
    std::vector<Value*> inputs;
    for (const char* name : {"start", "limit", "delta"}) inputs.push_back(graph.add_input(name, TensorDesc::of(DataType::kFloat32, {})));
    Node* node = graph.add_node("Range", inputs, 1, "r");
    const std::vector<Tensor> values = {Tensor::from_vector<float>({}, {c.start}), Tensor::from_vector<float>({}, {c.limit}),
                                        Tensor::from_vector<float>({}, {c.delta})};
    InputDataProvider data = [&](const Node&, size_t index) -> const Tensor* { return &values[index]; };
    Status status = library_->infer(*node, kOpset, data, registry_);
    ASSERT_FALSE(status.is_ok()) << c.message;
    EXPECT_EQ(status.code(), StatusCode::kInvalidArgument);
    EXPECT_TRUE(contains(status.message(), "Range 'r'")) << status.message();
    EXPECT_TRUE(contains(status.message(), c.message)) << status.message();
  }
}

TEST_F(OnnxOpLibraryTest, RangeOfInt64ExtremesCountsWithoutOverflow) {
  // numpy.arange(-2**63, 2**63 - 1, 2**62) has 4 elements; libonnx 1.12 subtracts the
  // bounds in int64 and says 0. Range(-2^63, 2^63 - 1, 1) has 2^64 - 1: too many.
  struct Case {
    int64_t start, limit, delta;
    int64_t count;  // -1: an error
  };
  const std::vector<Case> cases = {{INT64_MIN, INT64_MAX, int64_t{1} << 62, 4},
                                   {INT64_MAX, INT64_MIN, -(int64_t{1} << 62), 4},
                                   {INT64_MIN, INT64_MAX, INT64_MAX, 3},
                                   {0, 10, 3, 4},
                                   {5, 0, 1, 0},
                                   {INT64_MIN, INT64_MAX, 1, -1}};
  for (const Case& c : cases) {
    Graph graph;
    graph.set_opset_import("", kOpset);
    std::vector<Value*> inputs;
    for (const char* name : {"start", "limit", "delta"})
      inputs.push_back(graph.add_input(name, TensorDesc::of(DataType::kInt64, {})));
    Node* node = graph.add_node("Range", inputs, 1, "r");
    const std::vector<Tensor> values = {Tensor::from_vector<int64_t>({}, {c.start}),
                                        Tensor::from_vector<int64_t>({}, {c.limit}),
                                        Tensor::from_vector<int64_t>({}, {c.delta})};
    InputDataProvider data = [&](const Node&, size_t index) -> const Tensor* { return &values[index]; };
    Status status = library_->infer(*node, kOpset, data, registry_);
    if (c.count < 0) {
      ASSERT_FALSE(status.is_ok());
      EXPECT_TRUE(contains(status.message(), "Range from -9223372036854775808 to 9223372036854775807 by 1 has"))
          << status.message();
      EXPECT_TRUE(contains(status.message(), "more than 2^62")) << status.message();
      continue;
    }
    ASSERT_TRUE(status.is_ok()) << status.to_string();
    EXPECT_EQ(node->output(0)->desc(), TensorDesc::of(DataType::kInt64, {c.count})) << c.start << " " << c.limit;
  }
}

TEST_F(OnnxOpLibraryTest, UnknownOpIsUnsupported) {
  Node* node = graph_.add_node("NoSuchOp", {f32("x", {1})}, 1, "mystery");
  Status direct = infer(node);
  ASSERT_FALSE(direct.is_ok());
  EXPECT_EQ(direct.code(), StatusCode::kUnsupported);
  EXPECT_TRUE(contains(direct.message(), "NoSuchOp")) << direct.message();

  Status via_registry = registry_.infer_node(*node);
  ASSERT_FALSE(via_registry.is_ok());
  EXPECT_EQ(via_registry.code(), StatusCode::kUnsupported);
  EXPECT_TRUE(contains(via_registry.message(), "NoSuchOp")) << via_registry.message();
}

}  // namespace
}  // namespace ge::onnx_ops
