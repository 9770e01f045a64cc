#include "onnx_parser.h"

#include <algorithm>
#include <random>

#include <gtest/gtest.h>

#include "test_util.h"

namespace ge::onnx_parser {
namespace {

using namespace ge::onnx_parser::testing;

Result<std::unique_ptr<Graph>> parse(const onnx::ModelProto& model, const fs::path& base_dir = {}) {
  return OnnxParser().parse_bytes(model.SerializeAsString(), base_dir);
}

#define ASSERT_PARSED(result) ASSERT_TRUE((result).is_ok()) << (result).status().to_string()

bool contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

const Node* find_node_by_type(const Graph& graph, const std::string& op_type) {
  for (const auto& node : graph.nodes()) {
    if (node->op_type() == op_type) return node.get();
  }
  return nullptr;
}

// ---- identity ----

TEST(OnnxParser, NameAndExtensions) {
  OnnxParser parser;
  EXPECT_EQ(parser.name(), "onnx");
  EXPECT_EQ(parser.extensions(), std::vector<std::string>{".onnx"});
}

// ---- basic structure ----

TEST(OnnxParser, SimpleAddGraph) {
  auto model = make_model(13);
  auto* g = model.mutable_graph();
  add_value(g->mutable_input(), "x", onnx::TensorProto::FLOAT, {int64_t{2}, int64_t{3}});
  add_value(g->mutable_input(), "y", onnx::TensorProto::FLOAT, {int64_t{2}, int64_t{3}});
  add_node(g, "Add", {"x", "y"}, {"z"}, "add0");
  add_value(g->mutable_output(), "z", onnx::TensorProto::FLOAT, {int64_t{2}, int64_t{3}});

  auto graph = parse(model);
  ASSERT_PARSED(graph);
  const Graph& gr = **graph;
  EXPECT_EQ(gr.name(), "main");
  EXPECT_EQ(gr.opset_version(""), 13);
  ASSERT_EQ(gr.inputs().size(), 2u);
  EXPECT_EQ(gr.inputs()[0]->name(), "x");
  EXPECT_EQ(gr.inputs()[1]->name(), "y");
  EXPECT_EQ(gr.inputs()[0]->desc(), TensorDesc::of(DataType::kFloat32, {2, 3}));
  ASSERT_EQ(gr.node_count(), 1u);
  const Node& add = *gr.nodes().front();
  EXPECT_EQ(add.name(), "add0");
  EXPECT_EQ(add.op_type(), "Add");
  EXPECT_EQ(add.domain(), "");
  ASSERT_EQ(add.input_count(), 2u);
  EXPECT_EQ(add.input(0), gr.inputs()[0]);
  EXPECT_EQ(add.input(1), gr.inputs()[1]);
  ASSERT_EQ(gr.outputs().size(), 1u);
  EXPECT_EQ(gr.outputs()[0], add.output(0));
  EXPECT_EQ(add.output(0)->name(), "z");
  EXPECT_EQ(add.output(0)->desc(), TensorDesc::of(DataType::kFloat32, {2, 3}));
  EXPECT_TRUE(gr.captures().empty());
}

TEST(OnnxParser, InitializerListedAsInputIsOverridableWeight) {
  auto model = make_model(9, 3);
  auto* g = model.mutable_graph();
  add_value(g->mutable_input(), "x", onnx::TensorProto::FLOAT, {int64_t{2}});
  add_value(g->mutable_input(), "w", onnx::TensorProto::FLOAT, {int64_t{2}});
  *g->add_initializer() = float_tensor("w", {2}, {0.5f, -1.f});
  *g->add_initializer() = float_tensor("b", {2}, {3.f, 4.f});
  add_node(g, "Mul", {"x", "w"}, {"t"});
  add_node(g, "Add", {"t", "b"}, {"y"});
  add_value(g->mutable_output(), "y");

  auto graph = parse(model);
  ASSERT_PARSED(graph);
  const Graph& gr = **graph;
  ASSERT_EQ(gr.inputs().size(), 2u);
  EXPECT_EQ(gr.inputs()[1]->name(), "w");
  EXPECT_TRUE(gr.inputs()[1]->is_constant());
  EXPECT_TRUE(gr.inputs()[1]->is_graph_input());
  const auto runtime = gr.runtime_inputs();
  ASSERT_EQ(runtime.size(), 1u);
  EXPECT_EQ(runtime[0]->name(), "x");
  ASSERT_EQ(gr.initializers().size(), 2u);
  const Value* w = gr.inputs()[1];
  EXPECT_EQ(w->constant()->data<float>()[0], 0.5f);
  EXPECT_EQ(w->constant()->data<float>()[1], -1.f);
  EXPECT_EQ(w->desc(), TensorDesc::of(DataType::kFloat32, {2}));
  const Value* b = gr.initializers()[1];
  EXPECT_EQ(b->name(), "b");
  EXPECT_FALSE(b->is_graph_input());
  EXPECT_EQ(b->constant()->data<float>()[1], 4.f);
  EXPECT_EQ(find_node_by_type(gr, "Mul")->input(1), w);
}

TEST(OnnxParser, ConstantNodesBecomeInitializers) {
  auto model = make_model(13);
  auto* g = model.mutable_graph();
  add_value(g->mutable_input(), "x");
  auto* c1 = add_node(g, "Constant", {}, {"c_tensor"}, "const_tensor");
  *add_attribute(c1, "value", onnx::AttributeProto::TENSOR)->mutable_t() = float_tensor("", {2}, {1.f, 2.f});
  auto* c2 = add_node(g, "Constant", {}, {"c_float"});
  add_attribute(c2, "value_float", onnx::AttributeProto::FLOAT)->set_f(0.75f);
  auto* c3 = add_node(g, "Constant", {}, {"c_floats"});
  auto* floats = add_attribute(c3, "value_floats", onnx::AttributeProto::FLOATS);
  floats->add_floats(1.5f);
  floats->add_floats(2.5f);
  floats->add_floats(3.5f);
  auto* c4 = add_node(g, "Constant", {}, {"c_int"});
  add_attribute(c4, "value_int", onnx::AttributeProto::INT)->set_i(-4);
  auto* c5 = add_node(g, "Constant", {}, {"c_ints"});
  auto* ints = add_attribute(c5, "value_ints", onnx::AttributeProto::INTS);
  ints->add_ints(7);
  ints->add_ints(8);
  auto* c6 = add_node(g, "Constant", {}, {"c_string"});
  add_attribute(c6, "value_string", onnx::AttributeProto::STRING)->set_s("hi");
  auto* c7 = add_node(g, "Constant", {}, {"c_strings"});
  auto* strings = add_attribute(c7, "value_strings", onnx::AttributeProto::STRINGS);
  strings->add_strings("a");
  strings->add_strings("b");
  add_node(g, "Add", {"x", "c_tensor"}, {"y"});
  add_value(g->mutable_output(), "y");

  auto graph = parse(model);
  ASSERT_PARSED(graph);
  const Graph& gr = **graph;
  EXPECT_EQ(gr.node_count(), 1u);  // only Add remains
  EXPECT_EQ(find_node_by_type(gr, "Constant"), nullptr);
  ASSERT_EQ(gr.initializers().size(), 7u);
  auto init = [&](const std::string& name) -> const Tensor& {
    for (const Value* v : gr.initializers()) {
      if (v->name() == name) return *v->constant();
    }
    ADD_FAILURE() << "no initializer " << name;
    static Tensor none;
    return none;
  };
  const Tensor& t = init("c_tensor");
  EXPECT_EQ(t.shape(), (std::vector<int64_t>{2}));
  EXPECT_EQ(t.data<float>()[1], 2.f);
  const Tensor& f = init("c_float");
  EXPECT_EQ(f.dtype(), DataType::kFloat32);
  EXPECT_EQ(f.rank(), 0);
  EXPECT_EQ(f.data<float>()[0], 0.75f);
  const Tensor& fs = init("c_floats");
  EXPECT_EQ(fs.shape(), (std::vector<int64_t>{3}));
  EXPECT_EQ(fs.data<float>()[2], 3.5f);
  const Tensor& i = init("c_int");
  EXPECT_EQ(i.dtype(), DataType::kInt64);
  EXPECT_EQ(i.rank(), 0);
  EXPECT_EQ(i.data<int64_t>()[0], -4);
  const Tensor& is = init("c_ints");
  EXPECT_EQ(is.shape(), (std::vector<int64_t>{2}));
  EXPECT_EQ(is.data<int64_t>()[1], 8);
  const Tensor& s = init("c_string");
  EXPECT_EQ(s.dtype(), DataType::kString);
  EXPECT_EQ(s.data<std::string>()[0], "hi");
  const Tensor& ss = init("c_strings");
  EXPECT_EQ(ss.shape(), (std::vector<int64_t>{2}));
  EXPECT_EQ(ss.data<std::string>()[1], "b");

  const Node* add = find_node_by_type(gr, "Add");
  ASSERT_NE(add, nullptr);
  EXPECT_EQ(add->input(1)->name(), "c_tensor");
  EXPECT_TRUE(add->input(1)->is_constant());
  EXPECT_EQ(add->input(1)->desc(), TensorDesc::of(DataType::kFloat32, {2}));
}

TEST(OnnxParser, SparseConstantIsUnsupported) {
  auto model = make_model(13);
  auto* g = model.mutable_graph();
  auto* c = add_node(g, "Constant", {}, {"c"}, "sparse_const");
  add_attribute(c, "sparse_value", onnx::AttributeProto::SPARSE_TENSOR);
  add_value(g->mutable_output(), "c");
  auto graph = parse(model);
  ASSERT_FALSE(graph.is_ok());
  EXPECT_EQ(graph.status().code(), StatusCode::kUnsupported);
  EXPECT_TRUE(contains(graph.status().message(), "sparse_const")) << graph.status().message();
  EXPECT_TRUE(contains(graph.status().message(), "sparse_value"));
}

// ---- shapes and types ----

TEST(OnnxParser, NamedAndUnknownDims) {
  auto model = make_model(13);
  auto* g = model.mutable_graph();
  add_value(g->mutable_input(), "x", onnx::TensorProto::FLOAT,
            {std::string("batch"), int64_t{3}, std::monostate{}});
  auto* no_shape = g->add_input();
  no_shape->set_name("any_rank");
  no_shape->mutable_type()->mutable_tensor_type()->set_elem_type(onnx::TensorProto::INT64);
  add_node(g, "Relu", {"x"}, {"r"});
  add_node(g, "Shape", {"any_rank"}, {"s"});
  add_value(g->mutable_value_info(), "r", onnx::TensorProto::FLOAT,
            {std::string("batch"), int64_t{3}, std::string("w")});
  add_value(g->mutable_output(), "r", onnx::TensorProto::FLOAT,
            {std::string("batch"), int64_t{3}, std::string("w")});
  auto* s_out = g->add_output();
  s_out->set_name("s");  // no type: stays unknown

  auto graph = parse(model);
  ASSERT_PARSED(graph);
  const Graph& gr = **graph;
  const TensorDesc& x = gr.inputs()[0]->desc();
  EXPECT_EQ(x.dtype, DataType::kFloat32);
  ASSERT_TRUE(x.shape.has_value());
  EXPECT_EQ(*x.shape, (std::vector<Dim>{Dim::named("batch"), Dim::of(3), Dim::unknown()}));
  const TensorDesc& any = gr.inputs()[1]->desc();
  EXPECT_EQ(any.dtype, DataType::kInt64);
  EXPECT_FALSE(any.has_rank());
  const TensorDesc& r = find_node_by_type(gr, "Relu")->output(0)->desc();
  EXPECT_EQ(*r.shape, (std::vector<Dim>{Dim::named("batch"), Dim::of(3), Dim::named("w")}));
  EXPECT_EQ(find_node_by_type(gr, "Shape")->output(0)->desc(), TensorDesc{});
}

TEST(OnnxParser, ValueInfoAppliedToIntermediateValues) {
  auto model = make_model(13);
  auto* g = model.mutable_graph();
  add_value(g->mutable_input(), "x", onnx::TensorProto::FLOAT, {int64_t{4}});
  add_node(g, "Relu", {"x"}, {"mid"});
  add_node(g, "Neg", {"mid"}, {"y"});
  add_value(g->mutable_value_info(), "mid", onnx::TensorProto::FLOAT, {int64_t{4}});
  add_value(g->mutable_value_info(), "not_in_graph", onnx::TensorProto::FLOAT, {int64_t{1}});
  add_value(g->mutable_output(), "y", onnx::TensorProto::FLOAT, {int64_t{4}});
  auto graph = parse(model);
  ASSERT_PARSED(graph);
  EXPECT_EQ(find_node_by_type(**graph, "Relu")->output(0)->desc(), TensorDesc::of(DataType::kFloat32, {4}));
}

TEST(OnnxParser, UnsupportedOutputTypeLeavesValueUntyped) {
  // ai.onnx.ml ZipMap produces seq(map(int64, float)): GE has no map type, but the model
  // still parses and the value simply has no desc.
  auto model = make_model(13);
  auto* ml = model.add_opset_import();
  ml->set_domain("ai.onnx.ml");
  ml->set_version(1);
  auto* g = model.mutable_graph();
  add_value(g->mutable_input(), "probs", onnx::TensorProto::FLOAT, {int64_t{1}, int64_t{2}});
  add_node(g, "ZipMap", {"probs"}, {"out"}, "zip")->set_domain("ai.onnx.ml");
  auto* out = g->add_output();
  out->set_name("out");
  auto* map = out->mutable_type()->mutable_sequence_type()->mutable_elem_type()->mutable_map_type();
  map->set_key_type(onnx::TensorProto::INT64);
  map->mutable_value_type()->mutable_tensor_type()->set_elem_type(onnx::TensorProto::FLOAT);
  auto graph = parse(model);
  ASSERT_PARSED(graph);
  EXPECT_EQ((*graph)->outputs()[0]->desc(), TensorDesc{});
}

TEST(OnnxParser, MapTypedInputIsUnsupported) {
  auto model = make_model(13);
  auto* g = model.mutable_graph();
  auto* in = g->add_input();
  in->set_name("m");
  in->mutable_type()->mutable_map_type()->set_key_type(onnx::TensorProto::STRING);
  add_node(g, "Identity", {"m"}, {"y"});
  auto* out = g->add_output();
  out->set_name("y");
  auto graph = parse(model);
  ASSERT_FALSE(graph.is_ok());
  EXPECT_EQ(graph.status().code(), StatusCode::kUnsupported);
  EXPECT_TRUE(contains(graph.status().message(), "input 'm'")) << graph.status().message();
}

TEST(OnnxParser, GraphAttributeWithoutGraph) {
  auto model = make_model(13);
  auto* g = model.mutable_graph();
  add_value(g->mutable_input(), "c", onnx::TensorProto::BOOL, {});
  auto* node = add_node(g, "If", {"c"}, {"y"}, "empty_if");
  add_attribute(node, "then_branch", onnx::AttributeProto::GRAPH);
  add_value(g->mutable_output(), "y");
  auto graph = parse(model);
  ASSERT_FALSE(graph.is_ok());
  EXPECT_EQ(graph.status().code(), StatusCode::kParseError);
  EXPECT_TRUE(contains(graph.status().message(), "empty_if")) << graph.status().message();
}

TEST(OnnxParser, SequenceAndOptionalInputs) {
  auto model = make_model(16);
  auto* g = model.mutable_graph();
  auto* seq = g->add_input();
  seq->set_name("seq");
  set_tensor_type(seq->mutable_type()->mutable_sequence_type()->mutable_elem_type(),
                  onnx::TensorProto::FLOAT, {int64_t{2}});
  auto* opt = g->add_input();
  opt->set_name("opt");
  set_tensor_type(opt->mutable_type()->mutable_optional_type()->mutable_elem_type(),
                  onnx::TensorProto::INT32, {});
  add_node(g, "SequenceLength", {"seq"}, {"n"});
  add_node(g, "OptionalHasElement", {"opt"}, {"has"});
  add_value(g->mutable_output(), "n", onnx::TensorProto::INT64, {});
  add_value(g->mutable_output(), "has", onnx::TensorProto::BOOL, {});
  auto graph = parse(model);
  ASSERT_PARSED(graph);
  EXPECT_EQ((*graph)->inputs()[0]->desc().kind, ValueKind::kSequence);
  EXPECT_EQ((*graph)->inputs()[0]->desc().dtype, DataType::kFloat32);
  EXPECT_EQ((*graph)->inputs()[1]->desc().kind, ValueKind::kOptional);
  EXPECT_EQ((*graph)->inputs()[1]->desc().dtype, DataType::kInt32);
}

// ---- node and value names ----

TEST(OnnxParser, EmptyNodeNamesGetUniqueNames) {
  auto model = make_model(13);
  auto* g = model.mutable_graph();
  add_value(g->mutable_input(), "x");
  add_node(g, "Relu", {"x"}, {"a"});
  add_node(g, "Relu", {"a"}, {"b"}, "Relu_0");  // the name a generator would pick first
  add_node(g, "Relu", {"b"}, {"c"});
  add_value(g->mutable_output(), "c");
  auto graph = parse(model);
  ASSERT_PARSED(graph);
  std::vector<std::string> names;
  for (const auto& node : (*graph)->nodes()) names.push_back(node->name());
  ASSERT_EQ(names.size(), 3u);
  EXPECT_EQ(names[1], "Relu_0");
  EXPECT_FALSE(names[0].empty());
  EXPECT_FALSE(names[2].empty());
  std::sort(names.begin(), names.end());
  EXPECT_EQ(std::unique(names.begin(), names.end()), names.end()) << "node names are not unique";
}

TEST(OnnxParser, OmittedOptionalInputsAndOutputs) {
  auto model = make_model(13);
  auto* g = model.mutable_graph();
  add_value(g->mutable_input(), "x", onnx::TensorProto::FLOAT, {int64_t{3}});
  add_value(g->mutable_input(), "hi", onnx::TensorProto::FLOAT, {});
  add_node(g, "Clip", {"x", "", "hi"}, {"y"}, "clip");
  add_node(g, "Dropout", {"y"}, {"z", ""}, "drop");
  add_value(g->mutable_output(), "z", onnx::TensorProto::FLOAT, {int64_t{3}});
  auto graph = parse(model);
  ASSERT_PARSED(graph);
  const Node* clip = (*graph)->find_node("clip");
  ASSERT_NE(clip, nullptr);
  ASSERT_EQ(clip->input_count(), 3u);
  EXPECT_EQ(clip->input(1), nullptr);
  EXPECT_EQ(clip->input(2)->name(), "hi");
  const Node* drop = (*graph)->find_node("drop");
  ASSERT_EQ(drop->output_count(), 2u);
  EXPECT_EQ(drop->output(0)->name(), "z");
  EXPECT_TRUE(drop->output(1)->name().empty());
  EXPECT_FALSE(drop->output(1)->has_uses());
}

TEST(OnnxParser, NodesOutOfOrderAreAccepted) {
  auto model = make_model(13);
  auto* g = model.mutable_graph();
  add_value(g->mutable_input(), "x");
  add_node(g, "Neg", {"a"}, {"y"}, "second");
  add_node(g, "Relu", {"x"}, {"a"}, "first");
  add_value(g->mutable_output(), "y");
  auto graph = parse(model);
  ASSERT_PARSED(graph);
  EXPECT_EQ((*graph)->find_node("second")->input(0), (*graph)->find_node("first")->output(0));
}

TEST(OnnxParser, DomainAiOnnxIsTheDefaultDomain) {
  auto model = make_model(13);
  model.mutable_opset_import(0)->set_domain("ai.onnx");
  auto* ml = model.add_opset_import();
  ml->set_domain("ai.onnx.ml");
  ml->set_version(3);
  auto* g = model.mutable_graph();
  add_value(g->mutable_input(), "x");
  add_node(g, "Relu", {"x"}, {"y"}, "r")->set_domain("ai.onnx");
  add_value(g->mutable_output(), "y");
  auto graph = parse(model);
  ASSERT_PARSED(graph);
  EXPECT_EQ((*graph)->opset_version(""), 13);
  EXPECT_EQ((*graph)->opset_imports().count("ai.onnx"), 0u);
  EXPECT_EQ((*graph)->opset_imports().at("ai.onnx.ml"), 3);
  EXPECT_EQ((*graph)->find_node("r")->domain(), "");
}

// ---- attributes ----

TEST(OnnxParser, AttributesOfEveryType) {
  auto model = make_model(13);
  auto* g = model.mutable_graph();
  add_value(g->mutable_input(), "x");
  auto* n = add_node(g, "CustomOp", {"x"}, {"y"}, "custom");
  n->set_domain("com.example");
  add_attribute(n, "f", onnx::AttributeProto::FLOAT)->set_f(1.25f);
  add_attribute(n, "i", onnx::AttributeProto::INT)->set_i(-9);
  add_attribute(n, "s", onnx::AttributeProto::STRING)->set_s("text");
  *add_attribute(n, "t", onnx::AttributeProto::TENSOR)->mutable_t() = float_tensor("", {1}, {6.f});
  auto* fl = add_attribute(n, "floats", onnx::AttributeProto::FLOATS);
  fl->add_floats(0.5f);
  auto* il = add_attribute(n, "ints", onnx::AttributeProto::INTS);
  il->add_ints(1);
  il->add_ints(-2);
  auto* sl = add_attribute(n, "strings", onnx::AttributeProto::STRINGS);
  sl->add_strings("p");
  auto* tl = add_attribute(n, "tensors", onnx::AttributeProto::TENSORS);
  *tl->add_tensors() = float_tensor("", {2}, {1.f, 2.f});
  auto* gl = add_attribute(n, "graphs", onnx::AttributeProto::GRAPHS);
  auto* body = gl->add_graphs();
  body->set_name("g0");
  add_value(body->mutable_input(), "inner_in");
  add_node(body, "Identity", {"inner_in"}, {"inner_out"});
  add_value(body->mutable_output(), "inner_out");
  auto* com = model.add_opset_import();
  com->set_domain("com.example");
  com->set_version(1);
  add_value(g->mutable_output(), "y");

  auto graph = parse(model);
  ASSERT_PARSED(graph);
  const Node* node = (*graph)->find_node("custom");
  ASSERT_NE(node, nullptr);
  EXPECT_EQ(node->domain(), "com.example");
  EXPECT_EQ(node->attribute("f")->get<float>(), 1.25f);
  EXPECT_EQ(node->attribute("i")->get<int64_t>(), -9);
  EXPECT_EQ(node->attribute("s")->get<std::string>(), "text");
  EXPECT_EQ(node->attribute("t")->get<Tensor>().data<float>()[0], 6.f);
  EXPECT_EQ(node->attribute("floats")->get<std::vector<float>>(), std::vector<float>{0.5f});
  EXPECT_EQ(node->attribute("ints")->get<std::vector<int64_t>>(), (std::vector<int64_t>{1, -2}));
  EXPECT_EQ(node->attribute("strings")->get<std::vector<std::string>>(), std::vector<std::string>{"p"});
  ASSERT_EQ(node->attribute("tensors")->get<std::vector<Tensor>>().size(), 1u);
  EXPECT_EQ(node->attribute("tensors")->get<std::vector<Tensor>>()[0].data<float>()[1], 2.f);
  const auto& graphs = node->attribute("graphs")->get<std::vector<Attribute::GraphPtr>>();
  ASSERT_EQ(graphs.size(), 1u);
  EXPECT_EQ(graphs[0]->name(), "g0");
  EXPECT_EQ(graphs[0]->parent(), graph->get());
  EXPECT_EQ(graphs[0]->node_count(), 1u);
  EXPECT_EQ(node->subgraphs().size(), 1u);
}

TEST(OnnxParser, TypeProtoAttributesAreImportedAndEmptyOnesRejected) {
  auto model = make_model(15);
  auto* g = model.mutable_graph();
  auto* opt = add_node(g, "Optional", {}, {"o"}, "empty_opt");
  add_attribute(opt, "type", onnx::AttributeProto::TYPE_PROTO)
      ->mutable_tp()->mutable_tensor_type()->set_elem_type(onnx::TensorProto::FLOAT);
  add_value(g->mutable_output(), "o");
  auto graph = parse(model);
  ASSERT_TRUE(graph.is_ok()) << graph.status().to_string();
  const Node* node = (*graph)->find_node("empty_opt");
  ASSERT_NE(node, nullptr);
  EXPECT_EQ(node->attribute("type")->get<TensorDesc>().to_string(), "float32[*]");

  auto bad_model = make_model(13);
  auto* bg = bad_model.mutable_graph();
  add_value(bg->mutable_input(), "x");
  auto* n = add_node(bg, "Relu", {"x"}, {"y"}, "typed");
  add_attribute(n, "tp", onnx::AttributeProto::TYPE_PROTO);  // holds no type
  add_value(bg->mutable_output(), "y");
  auto bad = parse(bad_model);
  ASSERT_FALSE(bad.is_ok());
  EXPECT_TRUE(contains(bad.status().message(), "node 'typed' (Relu)")) << bad.status().message();
  EXPECT_TRUE(contains(bad.status().message(), "'tp' holds an empty type proto")) << bad.status().message();
}

TEST(OnnxParser, BadTensorAttributeNamesNode) {
  auto model = make_model(13);
  auto* g = model.mutable_graph();
  auto* c = add_node(g, "Constant", {}, {"c"}, "bad_const");
  *add_attribute(c, "value", onnx::AttributeProto::TENSOR)->mutable_t() = float_tensor("", {3}, {1.f});
  add_value(g->mutable_output(), "c");
  auto graph = parse(model);
  ASSERT_FALSE(graph.is_ok());
  EXPECT_EQ(graph.status().code(), StatusCode::kParseError);
  EXPECT_TRUE(contains(graph.status().message(), "bad_const")) << graph.status().message();
  EXPECT_TRUE(contains(graph.status().message(), "needs 3"));
}

// ---- subgraphs ----

// If(cond) then: x + one (captures x and one from the outer graph) else: x itself.
onnx::ModelProto if_model() {
  auto model = make_model(13);
  auto* g = model.mutable_graph();
  add_value(g->mutable_input(), "cond", onnx::TensorProto::BOOL, {});
  add_value(g->mutable_input(), "x", onnx::TensorProto::FLOAT, {std::string("N")});
  *g->add_initializer() = float_tensor("one", {1}, {1.f});
  auto* node = add_node(g, "If", {"cond"}, {"y"}, "if0");
  auto* then_attr = add_attribute(node, "then_branch", onnx::AttributeProto::GRAPH);
  auto* then_graph = then_attr->mutable_g();
  then_graph->set_name("then_body");
  add_node(then_graph, "Add", {"x", "one"}, {"then_out"}, "then_add");
  add_value(then_graph->mutable_output(), "then_out", onnx::TensorProto::FLOAT, {std::string("N")});
  auto* else_attr = add_attribute(node, "else_branch", onnx::AttributeProto::GRAPH);
  auto* else_graph = else_attr->mutable_g();
  else_graph->set_name("else_body");
  add_value(else_graph->mutable_output(), "x", onnx::TensorProto::FLOAT, {std::string("N")});
  add_value(g->mutable_output(), "y", onnx::TensorProto::FLOAT, {std::string("N")});
  return model;
}

TEST(OnnxParser, IfBranchesCaptureOuterValues) {
  auto graph = parse(if_model());
  ASSERT_PARSED(graph);
  const Graph& gr = **graph;
  const Node* if_node = gr.find_node("if0");
  ASSERT_NE(if_node, nullptr);
  ASSERT_EQ(if_node->input_count(), 1u);
  const auto& then_graph = if_node->attribute("then_branch")->get<Attribute::GraphPtr>();
  const auto& else_graph = if_node->attribute("else_branch")->get<Attribute::GraphPtr>();
  EXPECT_EQ(then_graph->name(), "then_body");
  EXPECT_EQ(then_graph->parent(), &gr);
  EXPECT_EQ(else_graph->parent(), &gr);

  ASSERT_EQ(then_graph->captures().size(), 2u);
  const Value* cx = then_graph->captures()[0];
  const Value* cone = then_graph->captures()[1];
  EXPECT_EQ(cx->name(), "x");
  EXPECT_TRUE(cx->is_capture());
  EXPECT_EQ(cx->desc(), TensorDesc(DataType::kFloat32, {Dim::named("N")}));
  EXPECT_EQ(cone->name(), "one");
  EXPECT_EQ(cone->desc(), TensorDesc::of(DataType::kFloat32, {1}));
  const Node* add = then_graph->find_node("then_add");
  EXPECT_EQ(add->input(0), cx);
  EXPECT_EQ(add->input(1), cone);
  EXPECT_TRUE(then_graph->inputs().empty());

  // The else branch returns the outer value directly: its output is a capture.
  ASSERT_EQ(else_graph->captures().size(), 1u);
  ASSERT_EQ(else_graph->outputs().size(), 1u);
  EXPECT_EQ(else_graph->outputs()[0], else_graph->captures()[0]);
  EXPECT_EQ(else_graph->outputs()[0]->name(), "x");

  // The implicit edge: the If node uses x and one through its branches.
  auto implicit = gr.implicit_inputs(*if_node);
  std::vector<std::string> names;
  for (const Value* v : implicit) names.push_back(v->name());
  std::sort(names.begin(), names.end());
  EXPECT_EQ(names, (std::vector<std::string>{"one", "x"}));
}

TEST(OnnxParser, LoopBodyWithOmittedTripCount) {
  auto model = make_model(13);
  auto* g = model.mutable_graph();
  add_value(g->mutable_input(), "cond", onnx::TensorProto::BOOL, {});
  add_value(g->mutable_input(), "v0", onnx::TensorProto::FLOAT, {int64_t{2}});
  add_value(g->mutable_input(), "step", onnx::TensorProto::FLOAT, {int64_t{2}});
  auto* loop = add_node(g, "Loop", {"", "cond", "v0"}, {"v_final", "scan_out"}, "loop");
  auto* body = add_attribute(loop, "body", onnx::AttributeProto::GRAPH)->mutable_g();
  body->set_name("loop_body");
  add_value(body->mutable_input(), "iter", onnx::TensorProto::INT64, {});
  add_value(body->mutable_input(), "cond_in", onnx::TensorProto::BOOL, {});
  add_value(body->mutable_input(), "v_in", onnx::TensorProto::FLOAT, {int64_t{2}});
  add_node(body, "Add", {"v_in", "step"}, {"v_out"}, "body_add");
  add_node(body, "Identity", {"cond_in"}, {"cond_out"}, "body_cond");
  add_node(body, "Identity", {"v_out"}, {"scan"}, "body_scan");
  add_value(body->mutable_output(), "cond_out", onnx::TensorProto::BOOL, {});
  add_value(body->mutable_output(), "v_out", onnx::TensorProto::FLOAT, {int64_t{2}});
  add_value(body->mutable_output(), "scan", onnx::TensorProto::FLOAT, {int64_t{2}});
  add_value(g->mutable_output(), "v_final", onnx::TensorProto::FLOAT, {int64_t{2}});
  add_value(g->mutable_output(), "scan_out", onnx::TensorProto::FLOAT, {std::monostate{}, int64_t{2}});

  auto graph = parse(model);
  ASSERT_PARSED(graph);
  const Node* node = (*graph)->find_node("loop");
  ASSERT_EQ(node->input_count(), 3u);
  EXPECT_EQ(node->input(0), nullptr);
  EXPECT_EQ(node->input(1)->name(), "cond");
  ASSERT_EQ(node->output_count(), 2u);
  const auto& body_graph = node->attribute("body")->get<Attribute::GraphPtr>();
  ASSERT_EQ(body_graph->inputs().size(), 3u);
  EXPECT_EQ(body_graph->inputs()[0]->desc(), TensorDesc::of(DataType::kInt64, {}));
  ASSERT_EQ(body_graph->outputs().size(), 3u);
  EXPECT_EQ(body_graph->outputs()[0]->name(), "cond_out");
  ASSERT_EQ(body_graph->captures().size(), 1u);
  EXPECT_EQ(body_graph->captures()[0]->name(), "step");
  EXPECT_EQ(body_graph->find_node("body_add")->input(1), body_graph->captures()[0]);
  EXPECT_EQ(*(*graph)->outputs()[1]->desc().shape, (std::vector<Dim>{Dim::unknown(), Dim::of(2)}));
}

TEST(OnnxParser, NestedSubgraphCapturesThroughScopes) {
  // Loop body holds an If whose branch uses the top-level initializer "bias".
  auto model = make_model(13);
  auto* g = model.mutable_graph();
  add_value(g->mutable_input(), "c", onnx::TensorProto::BOOL, {});
  *g->add_initializer() = float_tensor("bias", {2}, {1.f, 2.f});
  auto* loop = add_node(g, "Loop", {"", "c"}, {}, "loop");
  auto* body = add_attribute(loop, "body", onnx::AttributeProto::GRAPH)->mutable_g();
  add_value(body->mutable_input(), "i", onnx::TensorProto::INT64, {});
  add_value(body->mutable_input(), "ci", onnx::TensorProto::BOOL, {});
  auto* inner_if = add_node(body, "If", {"ci"}, {"r"}, "inner_if");
  auto* branch = add_attribute(inner_if, "then_branch", onnx::AttributeProto::GRAPH)->mutable_g();
  add_node(branch, "Neg", {"bias"}, {"nb"}, "deep_neg");
  add_value(branch->mutable_output(), "nb");
  auto* other = add_attribute(inner_if, "else_branch", onnx::AttributeProto::GRAPH)->mutable_g();
  add_value(other->mutable_output(), "bias");
  add_value(body->mutable_output(), "ci", onnx::TensorProto::BOOL, {});
  auto* out = g->add_output();
  out->set_name("c");

  auto graph = parse(model);
  ASSERT_PARSED(graph);
  const auto& body_graph = (*graph)->find_node("loop")->attribute("body")->get<Attribute::GraphPtr>();
  EXPECT_TRUE(body_graph->captures().empty());  // it only passes "bias" through
  const auto& deep = body_graph->find_node("inner_if")->attribute("then_branch")->get<Attribute::GraphPtr>();
  EXPECT_EQ(deep->parent(), body_graph.get());
  ASSERT_EQ(deep->captures().size(), 1u);
  EXPECT_EQ(deep->captures()[0]->name(), "bias");
  EXPECT_EQ(deep->captures()[0]->desc(), TensorDesc::of(DataType::kFloat32, {2}));
  EXPECT_EQ(body_graph->free_captured_names(), std::vector<std::string>{"bias"});
}

TEST(OnnxParser, UndefinedNameInSubgraphNamesNodeAndValue) {
  auto model = if_model();
  auto* then_graph = model.mutable_graph()->mutable_node(0)->mutable_attribute(0)->mutable_g();
  then_graph->mutable_node(0)->set_input(1, "nowhere");
  auto graph = parse(model);
  ASSERT_FALSE(graph.is_ok());
  EXPECT_EQ(graph.status().code(), StatusCode::kParseError);
  const std::string message = graph.status().message();
  EXPECT_TRUE(contains(message, "node 'then_add' (Add)")) << message;
  EXPECT_TRUE(contains(message, "'nowhere'")) << message;
  EXPECT_TRUE(contains(message, "then_body")) << message;
  EXPECT_TRUE(contains(message, "node 'if0' (If) attribute 'then_branch'")) << message;
}

// ---- structural errors ----

TEST(OnnxParser, UndefinedValueIsAnError) {
  auto model = make_model(13);
  auto* g = model.mutable_graph();
  add_value(g->mutable_input(), "x");
  add_node(g, "Add", {"x", "ghost"}, {"y"}, "add1");
  add_value(g->mutable_output(), "y");
  auto graph = parse(model);
  ASSERT_FALSE(graph.is_ok());
  EXPECT_EQ(graph.status().code(), StatusCode::kParseError);
  EXPECT_TRUE(contains(graph.status().message(), "node 'add1' (Add)")) << graph.status().message();
  EXPECT_TRUE(contains(graph.status().message(), "'ghost'"));
}

TEST(OnnxParser, UndefinedGraphOutputIsAnError) {
  auto model = make_model(13);
  auto* g = model.mutable_graph();
  add_value(g->mutable_input(), "x");
  add_value(g->mutable_output(), "missing_out");
  auto graph = parse(model);
  ASSERT_FALSE(graph.is_ok());
  EXPECT_TRUE(contains(graph.status().message(), "'missing_out'")) << graph.status().message();
}

TEST(OnnxParser, DuplicateDefinitionIsAnError) {
  auto model = make_model(13);
  auto* g = model.mutable_graph();
  add_value(g->mutable_input(), "x");
  add_node(g, "Relu", {"x"}, {"y"}, "r1");
  add_node(g, "Neg", {"x"}, {"y"}, "r2");
  add_value(g->mutable_output(), "y");
  auto graph = parse(model);
  ASSERT_FALSE(graph.is_ok());
  EXPECT_EQ(graph.status().code(), StatusCode::kParseError);
  const std::string message = graph.status().message();
  EXPECT_TRUE(contains(message, "'y' is defined twice")) << message;
  EXPECT_TRUE(contains(message, "r1")) << message;
  EXPECT_TRUE(contains(message, "r2")) << message;
}

TEST(OnnxParser, NodeOutputShadowingInputIsAnError) {
  auto model = make_model(13);
  auto* g = model.mutable_graph();
  add_value(g->mutable_input(), "x");
  add_node(g, "Relu", {"x"}, {"x"}, "self");
  add_value(g->mutable_output(), "x");
  auto graph = parse(model);
  ASSERT_FALSE(graph.is_ok());
  EXPECT_TRUE(contains(graph.status().message(), "'x' is defined twice")) << graph.status().message();
}

TEST(OnnxParser, CycleIsAnError) {
  auto model = make_model(13);
  auto* g = model.mutable_graph();
  add_value(g->mutable_input(), "x");
  add_node(g, "Add", {"x", "b"}, {"a"}, "n1");
  add_node(g, "Relu", {"a"}, {"b"}, "n2");
  add_value(g->mutable_output(), "b");
  auto graph = parse(model);
  ASSERT_FALSE(graph.is_ok());
  EXPECT_EQ(graph.status().code(), StatusCode::kParseError);
}

TEST(OnnxParser, ModelWithoutGraph) {
  onnx::ModelProto model;
  model.set_ir_version(8);
  auto graph = parse(model);
  ASSERT_FALSE(graph.is_ok());
  EXPECT_EQ(graph.status().code(), StatusCode::kParseError);
  EXPECT_TRUE(contains(graph.status().message(), "no graph")) << graph.status().message();
}

TEST(OnnxParser, ModelLocalFunctionCallIsUnsupported) {
  auto model = make_model(13);
  model.set_ir_version(8);
  auto* function = model.add_functions();
  function->set_name("MyFn");
  function->set_domain("local");
  auto* g = model.mutable_graph();
  add_value(g->mutable_input(), "x");
  add_node(g, "MyFn", {"x"}, {"y"}, "call")->set_domain("local");
  add_value(g->mutable_output(), "y");
  auto graph = parse(model);
  ASSERT_FALSE(graph.is_ok());
  EXPECT_EQ(graph.status().code(), StatusCode::kUnsupported);
  EXPECT_TRUE(contains(graph.status().message(), "local.MyFn")) << graph.status().message();
}

// ---- versions ----

TEST(OnnxParser, Opset17Accepted) {
  auto model = make_model(17);
  auto* g = model.mutable_graph();
  add_value(g->mutable_input(), "x");
  add_node(g, "Relu", {"x"}, {"y"});
  add_value(g->mutable_output(), "y");
  auto graph = parse(model);
  ASSERT_PARSED(graph);
  EXPECT_EQ((*graph)->opset_version(""), 17);
}

TEST(OnnxParser, Opset23Parses) {
  auto model = make_model(23, 10);
  auto* g = model.mutable_graph();
  add_value(g->mutable_input(), "x");
  add_node(g, "Relu", {"x"}, {"y"});
  add_value(g->mutable_output(), "y");
  auto graph = parse(model);
  ASSERT_PARSED(graph);
  EXPECT_EQ((*graph)->opset_version(""), 23);
}

TEST(OnnxParser, Opset24Rejected) {
  auto model = make_model(24);
  auto* g = model.mutable_graph();
  add_value(g->mutable_input(), "x");
  add_node(g, "Relu", {"x"}, {"y"});
  add_value(g->mutable_output(), "y");
  auto graph = parse(model);
  ASSERT_FALSE(graph.is_ok());
  EXPECT_EQ(graph.status().code(), StatusCode::kUnsupported);
  EXPECT_TRUE(contains(graph.status().message(), "opset 24")) << graph.status().message();
  EXPECT_TRUE(contains(graph.status().message(), "1 to 23")) << graph.status().message();
}

TEST(OnnxParser, IrVersion10WithKnownOpsParses) {
  auto model = make_model(17, 10);  // newer than libonnx's IR version 8
  auto* g = model.mutable_graph();
  add_value(g->mutable_input(), "x", onnx::TensorProto::FLOAT, {int64_t{2}, int64_t{2}});
  *g->add_initializer() = float_tensor("w", {2, 2}, {1.f, 0.f, 0.f, 1.f});
  add_node(g, "MatMul", {"x", "w"}, {"y"}, "mm");
  add_value(g->mutable_output(), "y", onnx::TensorProto::FLOAT, {int64_t{2}, int64_t{2}});
  auto graph = parse(model);
  ASSERT_PARSED(graph);
  EXPECT_EQ((*graph)->find_node("mm")->op_type(), "MatMul");
}

TEST(OnnxParser, OldModelWithoutOpsetImportIsOpset1) {
  auto model = make_model(1, 2);
  model.clear_opset_import();
  auto* g = model.mutable_graph();
  add_value(g->mutable_input(), "x");
  add_node(g, "Relu", {"x"}, {"y"});
  add_value(g->mutable_output(), "y");
  auto graph = parse(model);
  ASSERT_PARSED(graph);
  EXPECT_EQ((*graph)->opset_version(""), 1);
}

/// x -> Relu -> y in a model of `ir_version` importing `opset` (none when 0).
onnx::ModelProto relu_of_ir_version(int64_t ir_version, int64_t opset) {
  auto model = make_model(opset == 0 ? 1 : opset, ir_version);
  if (opset == 0) model.clear_opset_import();
  auto* g = model.mutable_graph();
  add_value(g->mutable_input(), "x");
  add_node(g, "Relu", {"x"}, {"y"});
  add_value(g->mutable_output(), "y");
  return model;
}

TEST(OnnxParser, IrVersionsOutsideOnesRulesAreRefusedNamingTheRule) {
  struct Case {
    int64_t ir_version, opset;
    StatusCode code;
    const char* message;
  };
  const Case cases[] = {
      {0, 13, StatusCode::kParseError,
       "the model's ir_version is not set: every ONNX model declares the IR version it was written with (this "
       "build reads IR versions 1 to 11)"},
      {-3, 13, StatusCode::kParseError,
       "the model's ir_version is -3: every ONNX model declares the IR version it was written with (this build "
       "reads IR versions 1 to 11)"},
      {12, 13, StatusCode::kUnsupported,
       "the model's IR version is 12; this build reads IR versions 1 to 11 (ONNX 1.18, opset 23): re-export it "
       "with an older ONNX or convert it"},
      {2, 13, StatusCode::kParseError,
       "the model's IR version is 2, which predates opset_import (IR version 3), yet it imports 1 opset(s): a "
       "model of IR version 1 or 2 is opset 1 and lists none; set ir_version to the one its exporter wrote (3 or "
       "later)"},
  };
  for (const Case& c : cases) {
    auto graph = parse(relu_of_ir_version(c.ir_version, c.opset));
    ASSERT_FALSE(graph.is_ok()) << "IR version " << c.ir_version;
    EXPECT_EQ(graph.status().code(), c.code) << graph.status().to_string();
    EXPECT_EQ(graph.status().message(), std::string("ONNX model bytes: ") + c.message);
  }
  for (int64_t version : {1, 2}) {
    auto graph = parse(relu_of_ir_version(version, 0));
    ASSERT_PARSED(graph);
    EXPECT_EQ((*graph)->opset_version(""), 1);
  }
  for (int64_t version = 3; version <= 11; ++version) {
    auto graph = parse(relu_of_ir_version(version, 13));
    ASSERT_PARSED(graph) << "IR version " << version;
  }
}

TEST(OnnxParser, MissingDefaultOpsetImportIsAnError) {
  auto model = make_model(13, 8);
  model.clear_opset_import();
  auto* g = model.mutable_graph();
  add_value(g->mutable_input(), "x");
  add_node(g, "Relu", {"x"}, {"y"});
  add_value(g->mutable_output(), "y");
  auto graph = parse(model);
  ASSERT_FALSE(graph.is_ok());
  EXPECT_TRUE(contains(graph.status().message(), "opset_import")) << graph.status().message();
}

// ---- files ----

onnx::ModelProto relu_model() {
  auto model = make_model(13);
  auto* g = model.mutable_graph();
  add_value(g->mutable_input(), "x");
  add_node(g, "Relu", {"x"}, {"y"}, "relu");
  add_value(g->mutable_output(), "y");
  return model;
}

TEST(OnnxParserFiles, ParsesAFile) {
  TempDir dir;
  const fs::path path = dir.write("relu.onnx", relu_model().SerializeAsString());
  auto graph = OnnxParser().parse_file(path);
  ASSERT_PARSED(graph);
  EXPECT_NE((*graph)->find_node("relu"), nullptr);
}

TEST(OnnxParserFiles, MissingFile) {
  TempDir dir;
  const fs::path path = dir.path() / "absent.onnx";
  auto graph = OnnxParser().parse_file(path);
  ASSERT_FALSE(graph.is_ok());
  EXPECT_EQ(graph.status().code(), StatusCode::kNotFound);
  EXPECT_TRUE(contains(graph.status().message(), path.string())) << graph.status().message();
  EXPECT_TRUE(contains(graph.status().message(), "does not exist"));
}

TEST(OnnxParserFiles, DirectoryIsNotAModel) {
  TempDir dir;
  auto graph = OnnxParser().parse_file(dir.path());
  ASSERT_FALSE(graph.is_ok());
  EXPECT_EQ(graph.status().code(), StatusCode::kInvalidArgument);
  EXPECT_TRUE(contains(graph.status().message(), "directory")) << graph.status().message();
}

TEST(OnnxParserFiles, UnreadableFile) {
  if (::geteuid() == 0) {
    // root reads any file regardless of its mode; the open-failure branch is then
    // exercised through a path whose parent is a regular file instead.
    TempDir dir;
    const fs::path file = dir.write("plain", "x");
    auto graph = OnnxParser().parse_file(file / "model.onnx");
    ASSERT_FALSE(graph.is_ok());
    EXPECT_NE(graph.status().code(), StatusCode::kOk);
    EXPECT_TRUE(contains(graph.status().message(), "model.onnx")) << graph.status().message();
    return;
  }
  TempDir dir;
  const fs::path path = dir.write("locked.onnx", relu_model().SerializeAsString());
  fs::permissions(path, fs::perms::none);
  auto graph = OnnxParser().parse_file(path);
  fs::permissions(path, fs::perms::owner_all);
  ASSERT_FALSE(graph.is_ok());
  EXPECT_EQ(graph.status().code(), StatusCode::kInvalidArgument);
  EXPECT_TRUE(contains(graph.status().message(), "locked.onnx")) << graph.status().message();
}

TEST(OnnxParserFiles, TruncatedFile) {
  TempDir dir;
  auto model = relu_model();
  *model.mutable_graph()->add_initializer() = float_tensor("pad", {64}, std::vector<float>(64, 1.f));
  const std::string bytes = model.SerializeAsString();
  const fs::path path = dir.write("truncated.onnx", bytes.substr(0, bytes.size() / 2));
  auto graph = OnnxParser().parse_file(path);
  ASSERT_FALSE(graph.is_ok());
  EXPECT_EQ(graph.status().code(), StatusCode::kParseError);
  EXPECT_TRUE(contains(graph.status().message(), "truncated.onnx")) << graph.status().message();
  EXPECT_TRUE(contains(graph.status().message(), "is not a valid ONNX model (protobuf parse failed)"))
      << graph.status().message();
}

TEST(OnnxParserFiles, RandomBytesFile) {
  TempDir dir;
  std::mt19937 rng(1234);
  std::string bytes(4096, '\0');
  for (char& c : bytes) c = static_cast<char>(rng() & 0xFF);
  const fs::path path = dir.write("random.onnx", bytes);
  auto graph = OnnxParser().parse_file(path);
  ASSERT_FALSE(graph.is_ok());
  EXPECT_EQ(graph.status().code(), StatusCode::kParseError);
  EXPECT_TRUE(contains(graph.status().message(), "random.onnx")) << graph.status().message();
}

TEST(OnnxParserFiles, RandomBytesNeverCrash) {
  // Many seeds: whatever protobuf makes of the bytes, the parser answers with a Status.
  std::mt19937 rng(99);
  for (int round = 0; round < 200; ++round) {
    std::string bytes(1 + rng() % 512, '\0');
    for (char& c : bytes) c = static_cast<char>(rng() & 0xFF);
    auto graph = OnnxParser().parse_bytes(bytes, {});
    EXPECT_FALSE(graph.is_ok());
  }
}

TEST(OnnxParserFiles, MutatedModelsNeverCrash) {
  // Byte flips and cuts of a model with subgraphs, initializers and attributes: protobuf
  // often still parses these, so they reach the importer with arbitrary field values.
  auto model = if_model();
  auto* g = model.mutable_graph();
  *g->add_initializer() = float_tensor("extra", {2, 2}, {1.f, 2.f, 3.f, 4.f});
  auto* n = add_node(g, "Transpose", {"extra"}, {"tr"}, "tr");
  auto* perm = add_attribute(n, "perm", onnx::AttributeProto::INTS);
  perm->add_ints(1);
  perm->add_ints(0);
  const std::string original = model.SerializeAsString();
  std::mt19937 rng(7);
  size_t parsed = 0;
  for (int round = 0; round < 2000; ++round) {
    std::string bytes = original;
    const int flips = 1 + static_cast<int>(rng() % 4);
    for (int f = 0; f < flips; ++f) bytes[rng() % bytes.size()] = static_cast<char>(rng() & 0xFF);
    if (round % 5 == 0) bytes.resize(rng() % bytes.size());
    auto graph = OnnxParser().parse_bytes(bytes, {});
    if (graph.is_ok()) {
      ++parsed;
    } else {
      EXPECT_FALSE(graph.status().message().empty());
      EXPECT_NE(graph.status().code(), StatusCode::kInternal) << graph.status().message();
    }
  }
  EXPECT_GT(parsed, 0u);  // some mutations are harmless (e.g. in a name)
}

TEST(OnnxParserFiles, EmptyFileHasNoGraph) {
  TempDir dir;
  const fs::path path = dir.write("empty.onnx", "");
  auto graph = OnnxParser().parse_file(path);
  ASSERT_FALSE(graph.is_ok());
  EXPECT_EQ(graph.status().code(), StatusCode::kParseError);
  EXPECT_TRUE(contains(graph.status().message(), "empty.onnx")) << graph.status().message();
}

TEST(OnnxParserFiles, TextFileIsNotAModel) {
  TempDir dir;
  const fs::path path = dir.write("notes.onnx", "[[plugin]]\nname = \"onnx\"\nkind = \"parser\"\n");
  auto graph = OnnxParser().parse_file(path);
  ASSERT_FALSE(graph.is_ok());
  EXPECT_EQ(graph.status().code(), StatusCode::kParseError);
}

// ---- external data ----

// A model whose initializer "w" (3 floats) lives in an external file at `location`.
onnx::ModelProto external_model(const std::string& location) {
  auto model = make_model(13);
  auto* g = model.mutable_graph();
  add_value(g->mutable_input(), "x", onnx::TensorProto::FLOAT, {int64_t{3}});
  auto* w = g->add_initializer();
  w->set_name("w");
  w->set_data_type(onnx::TensorProto::FLOAT);
  w->add_dims(3);
  w->set_data_location(onnx::TensorProto::EXTERNAL);
  auto* entry = w->add_external_data();
  entry->set_key("location");
  entry->set_value(location);
  entry = w->add_external_data();
  entry->set_key("offset");
  entry->set_value("4");
  entry = w->add_external_data();
  entry->set_key("length");
  entry->set_value("12");
  add_node(g, "Mul", {"x", "w"}, {"y"});
  add_value(g->mutable_output(), "y", onnx::TensorProto::FLOAT, {int64_t{3}});
  return model;
}

// 4 padding bytes, then 0.5f, -1.0f, 8.0f little-endian.
const std::string kWeights = std::string("PADD") + std::string("\x00\x00\x00\x3F", 4) +
                             std::string("\x00\x00\x80\xBF", 4) + std::string("\x00\x00\x00\x41", 4);

TEST(OnnxParserExternalData, ResolvedAgainstTheModelFolder) {
  TempDir dir;
  dir.write("model/weights/w.bin", kWeights);
  const fs::path path = dir.write("model/net.onnx", external_model("weights/w.bin").SerializeAsString());
  auto graph = OnnxParser().parse_file(path);
  ASSERT_PARSED(graph);
  const Tensor& w = *(*graph)->initializers()[0]->constant();
  ASSERT_EQ(w.element_count(), 3);
  EXPECT_EQ(w.data<float>()[0], 0.5f);
  EXPECT_EQ(w.data<float>()[1], -1.f);
  EXPECT_EQ(w.data<float>()[2], 8.f);
}

TEST(OnnxParserExternalData, RelativeModelPathUsesItsFolder) {
  TempDir dir;
  dir.write("w.bin", kWeights);
  dir.write("net.onnx", external_model("w.bin").SerializeAsString());
  const fs::path previous = fs::current_path();
  fs::current_path(dir.path());
  auto graph = OnnxParser().parse_file("net.onnx");
  fs::current_path(previous);
  ASSERT_PARSED(graph);
  EXPECT_EQ((*graph)->initializers()[0]->constant()->data<float>()[2], 8.f);
}

TEST(OnnxParserExternalData, BytesUseTheGivenBaseDir) {
  TempDir dir;
  dir.write("w.bin", kWeights);
  const std::string bytes = external_model("w.bin").SerializeAsString();
  auto good = OnnxParser().parse_bytes(bytes, dir.path());
  ASSERT_PARSED(good);
  EXPECT_EQ((*good)->initializers()[0]->constant()->data<float>()[1], -1.f);
  auto refused = OnnxParser().parse_bytes(bytes, {});
  ASSERT_FALSE(refused.is_ok());
  EXPECT_EQ(refused.status().code(), StatusCode::kInvalidArgument);
  EXPECT_TRUE(contains(refused.status().message(), "'w'")) << refused.status().message();
}

TEST(OnnxParserExternalData, EscapingPathRefused) {
  TempDir dir;
  dir.write("x", kWeights);
  const fs::path path = dir.write("model/net.onnx", external_model("../x").SerializeAsString());
  auto graph = OnnxParser().parse_file(path);
  ASSERT_FALSE(graph.is_ok());
  EXPECT_EQ(graph.status().code(), StatusCode::kInvalidArgument);
  const std::string message = graph.status().message();
  EXPECT_TRUE(contains(message, "net.onnx")) << message;
  EXPECT_TRUE(contains(message, "initializer 'w'")) << message;
  EXPECT_TRUE(contains(message, "escapes")) << message;
}

TEST(OnnxParserExternalData, AbsolutePathRefused) {
  TempDir dir;
  const fs::path weights = dir.write("w.bin", kWeights);
  const fs::path path = dir.write("net.onnx", external_model(weights.string()).SerializeAsString());
  auto graph = OnnxParser().parse_file(path);
  ASSERT_FALSE(graph.is_ok());
  EXPECT_EQ(graph.status().code(), StatusCode::kInvalidArgument);
  EXPECT_TRUE(contains(graph.status().message(), "absolute")) << graph.status().message();
}

TEST(OnnxParserExternalData, MissingFile) {
  TempDir dir;
  const fs::path path = dir.write("net.onnx", external_model("gone.bin").SerializeAsString());
  auto graph = OnnxParser().parse_file(path);
  ASSERT_FALSE(graph.is_ok());
  EXPECT_EQ(graph.status().code(), StatusCode::kNotFound);
  EXPECT_TRUE(contains(graph.status().message(), "gone.bin")) << graph.status().message();
}

TEST(OnnxParserExternalData, ShortFile) {
  TempDir dir;
  dir.write("w.bin", kWeights.substr(0, 10));
  const fs::path path = dir.write("net.onnx", external_model("w.bin").SerializeAsString());
  auto graph = OnnxParser().parse_file(path);
  ASSERT_FALSE(graph.is_ok());
  EXPECT_EQ(graph.status().code(), StatusCode::kParseError);
  EXPECT_TRUE(contains(graph.status().message(), "too short")) << graph.status().message();
  EXPECT_TRUE(contains(graph.status().message(), "net.onnx")) << graph.status().message();
}

}  // namespace
}  // namespace ge::onnx_parser
