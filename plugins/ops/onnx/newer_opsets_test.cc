// The op versions of opsets 18 to 23: lookup, attribute checks and shape inference.
// Expected shapes are computed by hand from the ONNX operator documents (docs/Changelog.md
// of ONNX 1.18).

#include "newer_opsets.h"

#include <gtest/gtest.h>

#include <map>
#include <memory>
#include <set>
#include <vector>

#include <onnx/defs/schema.h>

#include "ge/graph.h"
#include "ge/op_registry.h"
#include "onnx_op_library.h"

namespace ge::onnx_ops {
namespace {

bool contains(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

class NewerOpsetsTest : public ::testing::Test {
 protected:
  NewerOpsetsTest() { registry_.add_library(library_); }

  void use_opset(int64_t opset) {
    opset_ = opset;
    graph_.set_opset_import("", opset);
  }

  // Infers `node` with the contents in `data_` (by value name) known.
  Status infer(Node* node) {
    InputDataProvider provider = [this](const Node& n, size_t index) -> const Tensor* {
      const Value* value = n.input(index);
      if (value == nullptr) return nullptr;
      auto it = data_.find(value->name());
      return it == data_.end() ? nullptr : &it->second;
    };
    return library_->infer(*node, opset_, provider, registry_);
  }

  Value* f32(const std::string& name, const std::vector<int64_t>& dims) {
    return graph_.add_input(name, TensorDesc::of(DataType::kFloat32, dims));
  }
  Value* i64(const std::string& name, std::vector<int64_t> values) {
    data_.emplace(name, Tensor::from_vector<int64_t>({static_cast<int64_t>(values.size())}, values));
    return graph_.add_input(name, TensorDesc::of(DataType::kInt64, {static_cast<int64_t>(values.size())}));
  }
  Value* f32_data(const std::string& name, std::vector<float> values) {
    data_.emplace(name, Tensor::from_vector<float>({static_cast<int64_t>(values.size())}, values));
    return graph_.add_input(name, TensorDesc::of(DataType::kFloat32, {static_cast<int64_t>(values.size())}));
  }
  static std::vector<int64_t> dims(const Value* value) { return value->desc().static_dims(); }

  std::shared_ptr<OnnxOpLibrary> library_ = std::make_shared<OnnxOpLibrary>();
  OpRegistry registry_;
  Graph graph_{"g"};
  int64_t opset_ = 18;
  std::map<std::string, Tensor> data_;
};

// ---- the table ----

TEST(NewerOpsetsTable, EntriesAreVersionsOfOpsets18To23WithASchemaOrAReason) {
  std::set<std::pair<std::string, int>> seen;
  for (const NewerVersion& entry : newer_versions()) {
    EXPECT_GE(entry.since_version, 18) << entry.op_type;
    EXPECT_LE(entry.since_version, onnx_common::kNewestOnnxOpset) << entry.op_type;
    EXPECT_LE(entry.semantics_since, entry.since_version) << entry.op_type;
    EXPECT_TRUE(seen.insert({entry.op_type, entry.since_version}).second)
        << entry.op_type << "-" << entry.since_version << " is listed twice";
    EXPECT_NE(entry.schema == nullptr, entry.unsupported.empty()) << entry.op_type << "-" << entry.since_version;
    if (entry.schema != nullptr) {
      EXPECT_TRUE(entry.schema->has_type_and_shape_inference_function()) << entry.op_type << "-" << entry.since_version;
      EXPECT_EQ(entry.schema->SinceVersion(), entry.since_version);
    }
  }
  // A sample of ONNX 1.18's changelog, one per kind.
  EXPECT_TRUE(seen.count({"ReduceMean", 18}));
  EXPECT_TRUE(seen.count({"Resize", 19}));
  EXPECT_TRUE(seen.count({"Gelu", 20}));
  EXPECT_TRUE(seen.count({"GroupNormalization", 21}));
  EXPECT_TRUE(seen.count({"Conv", 22}));
  EXPECT_TRUE(seen.count({"RMSNormalization", 23}));
}

TEST(NewerOpsetsTable, TypesOnlyVersionsKeepTheOlderSemantics) {
  const NewerVersion* conv = find_newer_version("Conv", 23);
  ASSERT_NE(conv, nullptr);
  EXPECT_EQ(conv->since_version, 22);
  EXPECT_EQ(conv->semantics_since, 11);
  const NewerVersion* cast = find_newer_version("Cast", 23);
  ASSERT_NE(cast, nullptr);
  EXPECT_EQ(cast->since_version, 23);
  EXPECT_EQ(cast->semantics_since, 13);  // 19, 21, 23 only added types
  const NewerVersion* pad = find_newer_version("Pad", 23);
  ASSERT_NE(pad, nullptr);
  EXPECT_EQ(pad->semantics_since, 19);  // 18 added axes, 19 "wrap"; 21 and 23 types
  EXPECT_EQ(find_newer_version("Conv", 21), nullptr);  // Conv-11 until opset 22
  EXPECT_EQ(find_newer_version("Relu", 23), nullptr);  // never changed after 14
  EXPECT_EQ(find_newer_version("ReduceMean", 17), nullptr);
}

TEST(NewerOpsetsTable, SemanticsVersionSpansLibonnxAndTheTable) {
  EXPECT_EQ(semantics_version("Conv", 17), 11);
  EXPECT_EQ(semantics_version("Conv", 23), 11);         // Conv-22 only added bfloat16
  EXPECT_EQ(semantics_version("ReduceMean", 17), 13);
  EXPECT_EQ(semantics_version("ReduceMean", 18), 18);   // axes became an input
  EXPECT_EQ(semantics_version("Softmax", 12), 11);      // libonnx below its newest opset
  EXPECT_EQ(semantics_version("NoSuchOp", 20), 0);
}

// ---- lookup through the library ----

TEST_F(NewerOpsetsTest, FindSchemaServesTheNewerVersions) {
  const OpSchemaInfo* reduce = library_->find_schema("", "ReduceMean", 18);
  ASSERT_NE(reduce, nullptr);
  EXPECT_EQ(reduce->since_version, 18);
  EXPECT_EQ(reduce->max_inputs, 2);
  EXPECT_EQ(library_->find_schema("", "ReduceMean", 17)->since_version, 13);
  EXPECT_EQ(library_->find_schema("ai.onnx", "Conv", 22)->since_version, 22);
  EXPECT_EQ(library_->find_schema("", "Relu", 23)->since_version, 14);
  const OpSchemaInfo* gelu = library_->find_schema("", "Gelu", 20);
  ASSERT_NE(gelu, nullptr);
  EXPECT_EQ(library_->find_schema("", "Gelu", 19), nullptr);  // a new op of opset 20
  EXPECT_EQ(library_->find_schema("", "Attention", 23)->max_outputs, 4);
}

// Found schemas are memoised per domain, op and version: lookups repeated in any order
// keep answering per version, a miss stays a miss, and the domain's spellings agree.
TEST_F(NewerOpsetsTest, RepeatedLookupsKeepTheirVersions) {
  for (int round = 0; round < 3; ++round) {
    EXPECT_EQ(library_->find_schema("", "ReduceMean", 13)->since_version, 13);
    EXPECT_EQ(library_->find_schema("", "ReduceMean", 18)->since_version, 18);
    EXPECT_EQ(library_->find_schema("", "ReduceMean", 17)->since_version, 13);
    EXPECT_EQ(library_->find_schema("ai.onnx", "ReduceMean", 18), library_->find_schema("", "ReduceMean", 18));
    EXPECT_EQ(library_->find_schema("", "Gelu", 19), nullptr);
    EXPECT_EQ(library_->find_schema("", "NoSuchOp", 17), nullptr);
    EXPECT_EQ(library_->find_schema("com.example", "ReduceMean", 18), nullptr);
  }
}

TEST_F(NewerOpsetsTest, AVersionGEDoesNotRunSaysWhy) {
  use_opset(20);
  Node* node = graph_.add_node("ImageDecoder", {graph_.add_input("encoded", TensorDesc::of(DataType::kUInt8, {16}))},
                               1, "decode");
  ASSERT_NE(library_->find_schema("", "ImageDecoder", 20), nullptr);
  Status status = infer(node);
  ASSERT_FALSE(status.is_ok());
  EXPECT_EQ(status.code(), StatusCode::kUnsupported);
  EXPECT_TRUE(contains(status.message(), "ImageDecoder-20 is not supported")) << status.message();
}

TEST_F(NewerOpsetsTest, AnUndeclaredAttributeIsRefused) {
  use_opset(17);
  Node* relu = graph_.add_node("Relu", {f32("x", {2})}, 1, "relu");
  relu->set_attribute("alpha", 0.5f);
  Status status = infer(relu);
  ASSERT_FALSE(status.is_ok());
  EXPECT_TRUE(contains(status.message(), "attribute 'alpha' is not an attribute of Relu-14")) << status.message();

  // Reduce*-18 dropped the axes attribute for the axes input.
  use_opset(18);
  Node* reduce = graph_.add_node("ReduceMean", {f32("y", {2, 3})}, 1, "mean");
  reduce->set_attribute("axes", std::vector<int64_t>{1});
  status = infer(reduce);
  ASSERT_FALSE(status.is_ok());
  EXPECT_TRUE(contains(status.message(), "not an attribute of ReduceMean-18")) << status.message();
}

TEST_F(NewerOpsetsTest, AnAttributeOfAnotherTypeIsRefused) {
  // keepdims = 0.0: get_int("keepdims", 1) read it as 1, and so did every fusion of the node.
  use_opset(13);
  Node* reduce = graph_.add_node("ReduceMax", {f32("x", {2, 3})}, 1, "reduce");
  reduce->set_attribute("keepdims", 0.0f);
  Status status = infer(reduce);
  ASSERT_FALSE(status.is_ok());
  EXPECT_TRUE(contains(status.message(), "attribute 'keepdims' is float, but ReduceMax-13 declares it int"))
      << status.message();
  // An int where a float is declared reads as that float; an untyped empty list fits a list.
  Node* leaky = graph_.add_node("LeakyRelu", {f32("y", {2})}, 1, "leaky");
  leaky->set_attribute("alpha", int64_t{1});
  EXPECT_TRUE(infer(leaky).is_ok()) << infer(leaky).message();
  Node* transpose = graph_.add_node("Transpose", {f32("z", {2})}, 1, "transpose");
  transpose->set_attribute("perm", std::vector<int64_t>{});
  EXPECT_FALSE(contains(infer(transpose).message(), "declares it")) << infer(transpose).message();
}

TEST_F(NewerOpsetsTest, QuantizeLinear23TakesPrecision) {
  use_opset(23);
  Node* q = graph_.add_node("QuantizeLinear", {f32("x", {4}), f32("scale", {})}, 1, "q");
  q->set_attribute("precision", int64_t{10});
  ASSERT_TRUE(infer(q).is_ok()) << infer(q).message();
  EXPECT_EQ(q->output(0)->desc().dtype, DataType::kUInt8);
  use_opset(21);
  Status status = infer(q);
  ASSERT_FALSE(status.is_ok());
  EXPECT_TRUE(contains(status.message(), "'precision' is not an attribute of QuantizeLinear-21")) << status.message();
}

// ---- element types of opsets 19-23, N-D GridSample ----

TEST_F(NewerOpsetsTest, Cast19TakesFloat8AndFourBitTargets) {
  for (int64_t opset : {19, 21, 23}) {
    use_opset(opset);
    for (DataType to : {DataType::kFloat8E4M3FN, DataType::kFloat8E5M2FNUZ, DataType::kInt4, DataType::kFloat4E2M1}) {
      if (opset < 21 && to == DataType::kInt4) continue;
      const std::string name = "cast" + std::to_string(opset) + std::string(data_type_name(to));
      Node* cast = graph_.add_node("Cast", {f32(name + "_x", {2, 3})}, 1, name);
      cast->set_attribute("to", static_cast<int64_t>(to));
      ASSERT_TRUE(infer(cast).is_ok()) << infer(cast).message();
      EXPECT_EQ(cast->output(0)->desc().dtype, to);
      EXPECT_EQ(cast->output(0)->desc().to_string(), std::string(data_type_name(to)) + "[2,3]");
    }
  }
  use_opset(19);
  Node* bad = graph_.add_node("Cast", {f32("bad", {2})}, 1, "bad");
  bad->set_attribute("to", int64_t{99});
  Status status = infer(bad);
  ASSERT_FALSE(status.is_ok());
  EXPECT_TRUE(contains(status.message(), "'to' is 99")) << status.message();
}

TEST_F(NewerOpsetsTest, DequantizeLinear19OutputHasTheScaleType) {
  use_opset(19);
  Node* dq = graph_.add_node("DequantizeLinear",
                             {graph_.add_input("q", TensorDesc::of(DataType::kFloat8E4M3FN, {4})),
                              graph_.add_input("s", TensorDesc::of(DataType::kFloat16, {}))},
                             1, "dq");
  ASSERT_TRUE(infer(dq).is_ok()) << infer(dq).message();
  EXPECT_EQ(dq->output(0)->desc().dtype, DataType::kFloat16);
}

TEST_F(NewerOpsetsTest, GridSample20IsNDimensional) {
  use_opset(20);
  Node* sample = graph_.add_node("GridSample", {f32("x", {2, 3, 4, 5, 6}), f32("grid", {2, 7, 8, 9, 3})}, 1, "gs");
  ASSERT_TRUE(infer(sample).is_ok()) << infer(sample).message();
  EXPECT_EQ(sample->output(0)->desc().to_string(), "float32[2,3,7,8,9]");
  Node* cubic = graph_.add_node("GridSample", {f32("x3", {1, 1, 4, 4, 4}), f32("g3", {1, 2, 2, 2, 3})}, 1, "cubic");
  cubic->set_attribute("mode", std::string("cubic"));
  ASSERT_TRUE(infer(cubic).is_ok()) << infer(cubic).message();
  EXPECT_EQ(cubic->output(0)->desc().to_string(), "float32[1,1,2,2,2]");
  Node* mismatch = graph_.add_node("GridSample", {f32("x4", {1, 1, 4, 4, 4}), f32("g4", {1, 2, 2, 2, 2})}, 1, "mis");
  Status status = infer(mismatch);
  ASSERT_FALSE(status.is_ok());
  EXPECT_TRUE(contains(status.message(), "must be the spatial rank 3")) << status.message();
}

// ---- QuantizeLinear/DequantizeLinear-21/23: blocked quantization, output_dtype ----

TEST_F(NewerOpsetsTest, QuantizeLinear21BlockedTakesOutputDtype) {
  use_opset(21);
  // X [4, 6] in blocks of 4 along axis 1: scale [4, ceil(6 / 4) = 2].
  Node* q = graph_.add_node("QuantizeLinear", {f32("x", {4, 6}), f32("scale", {4, 2})}, 1, "q");
  q->set_attribute("block_size", int64_t{4});
  q->set_attribute("output_dtype", static_cast<int64_t>(DataType::kInt16));
  ASSERT_TRUE(infer(q).is_ok()) << infer(q).message();
  EXPECT_EQ(q->output(0)->desc(), TensorDesc::of(DataType::kInt16, {4, 6}));

  Node* plain = graph_.add_node("QuantizeLinear", {graph_.find_value("x"), f32("s0", {})}, 1, "plain");
  ASSERT_TRUE(infer(plain).is_ok()) << infer(plain).message();
  EXPECT_EQ(plain->output(0)->desc(), TensorDesc::of(DataType::kUInt8, {4, 6}));
}

TEST_F(NewerOpsetsTest, QuantizeLinear21OutputDtypeMustAgreeWithTheZeroPoint) {
  use_opset(21);
  Value* zero_point = graph_.add_input("zp", TensorDesc::of(DataType::kUInt16, {}));
  Node* agree = graph_.add_node("QuantizeLinear", {f32("x", {3}), f32("scale", {}), zero_point}, 1, "agree");
  agree->set_attribute("output_dtype", static_cast<int64_t>(DataType::kUInt16));
  ASSERT_TRUE(infer(agree).is_ok()) << infer(agree).message();
  EXPECT_EQ(agree->output(0)->desc(), TensorDesc::of(DataType::kUInt16, {3}));
  Node* disagree = graph_.add_node("QuantizeLinear", {graph_.find_value("x"), graph_.find_value("scale"), zero_point},
                                   1, "disagree");
  disagree->set_attribute("output_dtype", static_cast<int64_t>(DataType::kInt8));
  Status status = infer(disagree);
  ASSERT_FALSE(status.is_ok());
  EXPECT_TRUE(contains(status.message(), "'output_dtype' is 3 but the zero point's type is 4")) << status.message();
}

TEST_F(NewerOpsetsTest, BlockedScaleShapesAreChecked) {
  use_opset(21);
  Value* x = graph_.add_input("x", TensorDesc::of(DataType::kInt8, {4, 6}));
  Node* wrong_blocks = graph_.add_node("DequantizeLinear", {x, f32("scale", {4, 3})}, 1, "wrong_blocks");
  wrong_blocks->set_attribute("block_size", int64_t{4});
  Status status = infer(wrong_blocks);
  ASSERT_FALSE(status.is_ok());
  EXPECT_TRUE(contains(status.message(), "the scale's dim 1 is 3, must be 2")) << status.message();
  Node* wrong_rank = graph_.add_node("DequantizeLinear", {x, f32("scale_1d", {2})}, 1, "wrong_rank");
  wrong_rank->set_attribute("block_size", int64_t{4});
  status = infer(wrong_rank);
  ASSERT_FALSE(status.is_ok());
  EXPECT_TRUE(contains(status.message(), "needs a scale of X's rank 2, not 1")) << status.message();
  Node* wrong_zero_point = graph_.add_node(
      "DequantizeLinear",
      {x, f32("scale_ok", {2, 6}), graph_.add_input("zp", TensorDesc::of(DataType::kInt8, {2, 3}))}, 1, "wrong_zp");
  wrong_zero_point->set_attribute("axis", int64_t{0});
  wrong_zero_point->set_attribute("block_size", int64_t{2});
  status = infer(wrong_zero_point);
  ASSERT_FALSE(status.is_ok());
  EXPECT_TRUE(contains(status.message(), "the zero point must have the scale's shape")) << status.message();
}

TEST_F(NewerOpsetsTest, DequantizeLinear21BlockedAnd23OutputDtype) {
  use_opset(21);
  Value* x = graph_.add_input("x", TensorDesc::of(DataType::kInt16, {4, 6}));
  Value* zero_point = graph_.add_input("zp", TensorDesc::of(DataType::kInt16, {2, 6}));
  Node* blocked = graph_.add_node("DequantizeLinear", {x, f32("scale", {2, 6}), zero_point}, 1, "blocked");
  blocked->set_attribute("axis", int64_t{0});
  blocked->set_attribute("block_size", int64_t{2});
  ASSERT_TRUE(infer(blocked).is_ok()) << infer(blocked).message();
  EXPECT_EQ(blocked->output(0)->desc(), TensorDesc::of(DataType::kFloat32, {4, 6}));
  Node* too_early = graph_.add_node("DequantizeLinear", {x, graph_.find_value("scale")}, 1, "too_early");
  too_early->set_attribute("output_dtype", static_cast<int64_t>(DataType::kFloat16));
  EXPECT_FALSE(infer(too_early).is_ok());  // output_dtype came with opset 23

  use_opset(23);
  Node* half = graph_.add_node("DequantizeLinear", {x, f32("s0", {})}, 1, "half");
  half->set_attribute("output_dtype", static_cast<int64_t>(DataType::kFloat16));
  ASSERT_TRUE(infer(half).is_ok()) << infer(half).message();
  EXPECT_EQ(half->output(0)->desc(), TensorDesc::of(DataType::kFloat16, {4, 6}));
  Node* integer = graph_.add_node("DequantizeLinear", {x, graph_.find_value("s0")}, 1, "integer");
  integer->set_attribute("output_dtype", static_cast<int64_t>(DataType::kInt32));
  Status status = infer(integer);
  ASSERT_FALSE(status.is_ok());
  EXPECT_TRUE(contains(status.message(), "'output_dtype' is 6, must be float (1), float16 (10) or bfloat16 (16)"))
      << status.message();
}

TEST_F(NewerOpsetsTest, TypesOnlyVersionsInferLikeTheOlderOne) {
  use_opset(22);
  Node* conv = graph_.add_node("Conv", {f32("x", {1, 3, 8, 8}), f32("w", {4, 3, 3, 3})}, 1, "conv");
  ASSERT_TRUE(infer(conv).is_ok());
  EXPECT_EQ(dims(conv->output(0)), (std::vector<int64_t>{1, 4, 6, 6}));
  use_opset(19);
  Node* cast = graph_.add_node("Cast", {f32("c", {3})}, 1, "cast");
  cast->set_attribute("to", int64_t{7});  // int64
  cast->set_attribute("saturate", int64_t{0});
  ASSERT_TRUE(infer(cast).is_ok());
  EXPECT_EQ(cast->output(0)->desc(), TensorDesc::of(DataType::kInt64, {3}));
}

// ---- inference of the changed and new ops ----

TEST_F(NewerOpsetsTest, Reduce18TakesAxesAsAnInput) {
  Node* keep = graph_.add_node("ReduceMax", {f32("x", {2, 3, 4}), i64("axes", {-1, 0})}, 1, "max");
  ASSERT_TRUE(infer(keep).is_ok());
  EXPECT_EQ(dims(keep->output(0)), (std::vector<int64_t>{1, 3, 1}));
  Node* drop = graph_.add_node("ReduceL2", {graph_.find_value("x"), graph_.find_value("axes")}, 1, "l2");
  drop->set_attribute("keepdims", int64_t{0});
  ASSERT_TRUE(infer(drop).is_ok());
  EXPECT_EQ(dims(drop->output(0)), (std::vector<int64_t>{3}));
}

TEST_F(NewerOpsetsTest, Split18NumOutputsMakesCeilSizedChunks) {
  Node* split = graph_.add_node("Split", {f32("x", {2, 7})}, 3, "split");
  split->set_attribute("axis", int64_t{1});
  split->set_attribute("num_outputs", int64_t{3});
  ASSERT_TRUE(infer(split).is_ok());
  EXPECT_EQ(dims(split->output(0)), (std::vector<int64_t>{2, 3}));
  EXPECT_EQ(dims(split->output(1)), (std::vector<int64_t>{2, 3}));
  EXPECT_EQ(dims(split->output(2)), (std::vector<int64_t>{2, 1}));

  Node* wrong = graph_.add_node("Split", {graph_.find_value("x")}, 2, "split_wrong");
  wrong->set_attribute("num_outputs", int64_t{3});
  Status status = infer(wrong);
  ASSERT_FALSE(status.is_ok());
  EXPECT_TRUE(contains(status.message(), "'num_outputs' is 3 but the node has 2 outputs")) << status.message();
}

TEST_F(NewerOpsetsTest, Pad18PadsOnlyTheListedAxes) {
  Node* pad = graph_.add_node("Pad", {f32("x", {2, 3, 4}), i64("pads", {1, 2, 0, 3}), nullptr, i64("axes", {-1, 0})},
                              1, "pad");
  ASSERT_TRUE(infer(pad).is_ok());
  // axis 2: 1 before, 0 after; axis 0: 2 before, 3 after
  EXPECT_EQ(dims(pad->output(0)), (std::vector<int64_t>{7, 3, 5}));
}

TEST_F(NewerOpsetsTest, Resize18AxesAndKeepAspectRatio) {
  Node* scaled = graph_.add_node("Resize", {f32("x", {1, 3, 10, 20}), nullptr, f32_data("scales", {2.0f, 0.5f})}, 1,
                                 "by_scales");
  scaled->set_attribute("axes", std::vector<int64_t>{2, 3});
  ASSERT_TRUE(infer(scaled).is_ok());
  EXPECT_EQ(dims(scaled->output(0)), (std::vector<int64_t>{1, 3, 20, 10}));

  Node* fit = graph_.add_node("Resize", {graph_.find_value("x"), nullptr, nullptr, i64("sizes", {5, 5})}, 1, "fit");
  fit->set_attribute("axes", std::vector<int64_t>{2, 3});
  fit->set_attribute("keep_aspect_ratio_policy", std::string("not_larger"));
  ASSERT_TRUE(infer(fit).is_ok());
  // scale = min(5/10, 5/20) = 0.25; ONNX rounds halves up: round(2.5) = 3, round(5) = 5
  EXPECT_EQ(dims(fit->output(0)), (std::vector<int64_t>{1, 3, 3, 5}));
  Node* cover = graph_.add_node("Resize", {graph_.find_value("x"), nullptr, nullptr, graph_.find_value("sizes")}, 1,
                                "cover");
  cover->set_attribute("axes", std::vector<int64_t>{2, 3});
  cover->set_attribute("keep_aspect_ratio_policy", std::string("not_smaller"));
  ASSERT_TRUE(infer(cover).is_ok());
  // scale = max(0.5, 0.25) = 0.5: [5, 10]
  EXPECT_EQ(dims(cover->output(0)), (std::vector<int64_t>{1, 3, 5, 10}));
}

TEST_F(NewerOpsetsTest, CenterCropPadCol2ImAffineGrid) {
  Node* crop = graph_.add_node("CenterCropPad", {f32("x", {4, 6, 3}), i64("shape", {5, 2})}, 1, "crop");
  crop->set_attribute("axes", std::vector<int64_t>{0, 1});
  ASSERT_TRUE(infer(crop).is_ok());
  EXPECT_EQ(dims(crop->output(0)), (std::vector<int64_t>{5, 2, 3}));

  Node* col2im = graph_.add_node("Col2Im", {f32("cols", {2, 12, 9}), i64("image", {5, 5}), i64("block", {2, 3})}, 1,
                                 "col2im");
  ASSERT_TRUE(infer(col2im).is_ok());
  EXPECT_EQ(dims(col2im->output(0)), (std::vector<int64_t>{2, 2, 5, 5}));

  use_opset(20);
  Node* grid = graph_.add_node("AffineGrid", {f32("theta", {2, 2, 3}), i64("size", {2, 3, 4, 5})}, 1, "grid");
  ASSERT_TRUE(infer(grid).is_ok());
  EXPECT_EQ(dims(grid->output(0)), (std::vector<int64_t>{2, 4, 5, 2}));
}

TEST_F(NewerOpsetsTest, Dft20ReadsTheAxisInput) {
  use_opset(20);
  data_.emplace("axis", Tensor::from_vector<int64_t>({}, {1}));
  data_.emplace("length", Tensor::from_vector<int64_t>({}, {8}));
  Value* axis = graph_.add_input("axis", TensorDesc::of(DataType::kInt64, {}));
  Value* length = graph_.add_input("length", TensorDesc::of(DataType::kInt64, {}));
  Node* dft = graph_.add_node("DFT", {f32("x", {3, 6, 5, 1}), length, axis}, 1, "dft");
  dft->set_attribute("onesided", int64_t{1});
  ASSERT_TRUE(infer(dft).is_ok());
  EXPECT_EQ(dims(dft->output(0)), (std::vector<int64_t>{3, 5, 5, 2}));  // 8 / 2 + 1 on axis 1
}

TEST_F(NewerOpsetsTest, Attention23ShapesFor3DAnd4DInputs) {
  use_opset(23);
  // 3-D: Q [2, 4, 8 * 16], K/V [2, 6, 2 * 16], GQA 8 query heads over 2 kv heads.
  Node* a3 = graph_.add_node("Attention", {f32("q", {2, 4, 128}), f32("k", {2, 6, 32}), f32("v", {2, 6, 32})}, 4,
                             "attention3");
  a3->set_attribute("q_num_heads", int64_t{8});
  a3->set_attribute("kv_num_heads", int64_t{2});
  ASSERT_TRUE(infer(a3).is_ok());
  EXPECT_EQ(dims(a3->output(0)), (std::vector<int64_t>{2, 4, 128}));
  EXPECT_EQ(dims(a3->output(1)), (std::vector<int64_t>{2, 2, 6, 16}));
  EXPECT_EQ(dims(a3->output(3)), (std::vector<int64_t>{2, 8, 4, 6}));

  // 4-D with a past of 10 positions.
  Node* a4 = graph_.add_node("Attention",
                             {f32("q4", {1, 4, 3, 16}), f32("k4", {1, 4, 3, 16}), f32("v4", {1, 4, 3, 8}), nullptr,
                              f32("past_k", {1, 4, 10, 16}), f32("past_v", {1, 4, 10, 8})},
                             3, "attention4");
  ASSERT_TRUE(infer(a4).is_ok());
  EXPECT_EQ(dims(a4->output(0)), (std::vector<int64_t>{1, 4, 3, 8}));
  EXPECT_EQ(dims(a4->output(1)), (std::vector<int64_t>{1, 4, 13, 16}));
  EXPECT_EQ(dims(a4->output(2)), (std::vector<int64_t>{1, 4, 13, 8}));

  Node* no_heads = graph_.add_node("Attention", {graph_.find_value("q"), graph_.find_value("k"), graph_.find_value("v")},
                                   1, "attention_no_heads");
  Status status = infer(no_heads);
  ASSERT_FALSE(status.is_ok());
  EXPECT_TRUE(contains(status.message(), "q_num_heads and kv_num_heads")) << status.message();
}

TEST_F(NewerOpsetsTest, NormalisationsKeepTheInputShape) {
  use_opset(23);
  Node* rms = graph_.add_node("RMSNormalization", {f32("x", {2, 5, 8}), f32("scale", {8})}, 1, "rms");
  ASSERT_TRUE(infer(rms).is_ok());
  EXPECT_EQ(rms->output(0)->desc(), TensorDesc::of(DataType::kFloat32, {2, 5, 8}));
  Node* group = graph_.add_node("GroupNormalization", {f32("g", {2, 6, 4}), f32("gs", {6}), f32("gb", {6})}, 1, "gn");
  group->set_attribute("num_groups", int64_t{3});
  ASSERT_TRUE(infer(group).is_ok());
  EXPECT_EQ(dims(group->output(0)), (std::vector<int64_t>{2, 6, 4}));
}

// ---- strings, optionals and DeformConv ----

TEST_F(NewerOpsetsTest, StringConcatBroadcastsAndRegexFullMatchGivesBools) {
  use_opset(20);
  Value* words = graph_.add_input("words", TensorDesc::of(DataType::kString, {2, 3}));
  Value* suffix = graph_.add_input("suffix", TensorDesc::of(DataType::kString, {1}));
  Node* concat = graph_.add_node("StringConcat", {words, suffix}, 1, "concat");
  ASSERT_TRUE(infer(concat).is_ok()) << infer(concat).message();
  EXPECT_EQ(concat->output(0)->desc(), TensorDesc::of(DataType::kString, {2, 3}));

  Node* match = graph_.add_node("RegexFullMatch", {words}, 1, "match");
  match->set_attribute("pattern", std::string("a+"));
  ASSERT_TRUE(infer(match).is_ok()) << infer(match).message();
  EXPECT_EQ(match->output(0)->desc(), TensorDesc::of(DataType::kBool, {2, 3}));
  Node* no_pattern = graph_.add_node("RegexFullMatch", {words}, 1, "no_pattern");
  Status status = infer(no_pattern);
  ASSERT_FALSE(status.is_ok());
  EXPECT_TRUE(contains(status.message(), "attribute 'pattern' is missing")) << status.message();
}

TEST_F(NewerOpsetsTest, StringSplitCountsTheSubstringsWhenTheDataIsKnown) {
  use_opset(20);
  Value* text = graph_.add_input("text", TensorDesc::of(DataType::kString, {3}));
  Node* unknown = graph_.add_node("StringSplit", {text}, 2, "split");
  ASSERT_TRUE(infer(unknown).is_ok()) << infer(unknown).message();
  EXPECT_EQ(unknown->output(0)->desc().rank(), 2);
  EXPECT_FALSE(unknown->output(0)->desc().is_static());  // the substring count needs the data
  EXPECT_EQ(unknown->output(1)->desc(), TensorDesc::of(DataType::kInt64, {3}));

  // Whitespace runs split once and are trimmed (Python's str.split()).
  data_.emplace("text", Tensor::from_strings({3}, {"  hello   world ! ", "a", "\t"}));
  Node* known = graph_.add_node("StringSplit", {text}, 2, "split_known");
  ASSERT_TRUE(infer(known).is_ok()) << infer(known).message();
  EXPECT_EQ(known->output(0)->desc(), TensorDesc::of(DataType::kString, {3, 3}));

  // A delimiter splits on each occurrence, maxsplit at most that often.
  data_["text"] = Tensor::from_strings({3}, {"o-n-n--x-", "", "a-b"});
  Node* dashes = graph_.add_node("StringSplit", {text}, 2, "split_dashes");
  dashes->set_attribute("delimiter", std::string("-"));
  ASSERT_TRUE(infer(dashes).is_ok()) << infer(dashes).message();
  EXPECT_EQ(dims(dashes->output(0)), (std::vector<int64_t>{3, 6}));
  Node* limited = graph_.add_node("StringSplit", {text}, 2, "split_limited");
  limited->set_attribute("delimiter", std::string("-"));
  limited->set_attribute("maxsplit", int64_t{2});
  ASSERT_TRUE(infer(limited).is_ok()) << infer(limited).message();
  EXPECT_EQ(dims(limited->output(0)), (std::vector<int64_t>{3, 3}));

  Node* negative = graph_.add_node("StringSplit", {text}, 2, "split_negative");
  negative->set_attribute("maxsplit", int64_t{-1});
  Status status = infer(negative);
  ASSERT_FALSE(status.is_ok());
  EXPECT_TRUE(contains(status.message(), "'maxsplit' is -1")) << status.message();
}

TEST_F(NewerOpsetsTest, Equal19TakesStrings) {
  use_opset(19);
  const NewerVersion* equal = find_newer_version("Equal", 19);
  ASSERT_NE(equal, nullptr);
  EXPECT_EQ(equal->semantics_since, 13);
  bool has_string = false;
  for (const auto& param : equal->schema->typeConstraintParams()) {
    for (const std::string& type : param.allowed_type_strs) has_string = has_string || type == "tensor(string)";
  }
  EXPECT_TRUE(has_string);
  Value* a = graph_.add_input("a", TensorDesc::of(DataType::kString, {2, 1}));
  Value* b = graph_.add_input("b", TensorDesc::of(DataType::kString, {3}));
  Node* node = graph_.add_node("Equal", {a, b}, 1, "eq");
  ASSERT_TRUE(infer(node).is_ok()) << infer(node).message();
  EXPECT_EQ(node->output(0)->desc(), TensorDesc::of(DataType::kBool, {2, 3}));
}

TEST_F(NewerOpsetsTest, Optional18OpsTakePlainTensors) {
  use_opset(18);
  Node* has = graph_.add_node("OptionalHasElement", {f32("x", {2, 3})}, 1, "has");
  ASSERT_TRUE(infer(has).is_ok()) << infer(has).message();
  EXPECT_EQ(has->output(0)->desc(), TensorDesc::of(DataType::kBool, {}));
  Node* none = graph_.add_node("OptionalHasElement", {}, 1, "has_none");
  ASSERT_TRUE(infer(none).is_ok()) << infer(none).message();
  EXPECT_EQ(none->output(0)->desc(), TensorDesc::of(DataType::kBool, {}));

  Node* get = graph_.add_node("OptionalGetElement", {graph_.find_value("x")}, 1, "get");
  ASSERT_TRUE(infer(get).is_ok()) << infer(get).message();
  EXPECT_EQ(get->output(0)->desc(), TensorDesc::of(DataType::kFloat32, {2, 3}));

  TensorDesc optional = TensorDesc::of(DataType::kInt64, {4});
  optional.kind = ValueKind::kOptional;
  Node* unwrap = graph_.add_node("OptionalGetElement", {graph_.add_input("maybe", optional)}, 1, "unwrap");
  ASSERT_TRUE(infer(unwrap).is_ok()) << infer(unwrap).message();
  EXPECT_EQ(unwrap->output(0)->desc(), TensorDesc::of(DataType::kInt64, {4}));
}

TEST_F(NewerOpsetsTest, DeformConvHasConvShapesAndChecksOffsetAndMask) {
  use_opset(19);
  Node* deform = graph_.add_node(
      "DeformConv", {f32("x", {1, 4, 5, 6}), f32("w", {6, 2, 3, 3}), f32("offset", {1, 2 * 9 * 2, 3, 2})}, 1, "deform");
  deform->set_attribute("group", int64_t{2});
  deform->set_attribute("offset_group", int64_t{2});
  deform->set_attribute("strides", std::vector<int64_t>{1, 2});
  ASSERT_TRUE(infer(deform).is_ok()) << infer(deform).message();
  EXPECT_EQ(dims(deform->output(0)), (std::vector<int64_t>{1, 6, 3, 2}));

  use_opset(22);
  ASSERT_TRUE(infer(deform).is_ok()) << infer(deform).message();
  EXPECT_EQ(find_newer_version("DeformConv", 23)->semantics_since, 19);

  Node* bad_offset = graph_.add_node(
      "DeformConv", {graph_.find_value("x"), graph_.find_value("w"), f32("offset9", {1, 9 * 2, 3, 4})}, 1, "bad");
  bad_offset->set_attribute("group", int64_t{2});
  bad_offset->set_attribute("offset_group", int64_t{2});
  Status status = infer(bad_offset);
  ASSERT_FALSE(status.is_ok());
  EXPECT_TRUE(contains(status.message(), "offset has 18 channels, expected 36")) << status.message();

  Node* bad_mask = graph_.add_node("DeformConv",
                                   {graph_.find_value("x"), graph_.find_value("w"), f32("offset1", {1, 18, 3, 4}),
                                    nullptr, f32("mask", {1, 9, 3, 3})},
                                   1, "bad_mask");
  bad_mask->set_attribute("group", int64_t{2});
  status = infer(bad_mask);
  ASSERT_FALSE(status.is_ok());
  EXPECT_TRUE(contains(status.message(), "mask has 3 positions on spatial axis 1 but the output has 4"))
      << status.message();
}

}  // namespace
}  // namespace ge::onnx_ops
