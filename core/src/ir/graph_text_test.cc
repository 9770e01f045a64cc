// Tests of the text IR: printing and parsing graphs (ge/graph_text.h).
#include "ge/graph_text.h"

#include <gtest/gtest.h>

#include <bit>
#include <cstdio>
#include <cstring>
#include <limits>
#include <random>

#include "ge/model_file.h"
#include "ge/verifier.h"

namespace ge {
namespace {

TensorDesc desc(DataType type, std::vector<Dim> dims) { return TensorDesc(type, std::move(dims)); }

template <typename T>
Tensor bits_tensor(DataType type, std::vector<int64_t> shape, const std::vector<T>& raw) {
  Tensor t = Tensor::zeros(type, std::move(shape));
  std::memcpy(t.raw_data(), raw.data(), raw.size() * sizeof(T));
  return t;
}

Result<std::string> reprint(const std::string& text) {
  GE_ASSIGN_OR_RETURN(auto graph, parse_graph(text));
  return print_graph(*graph);
}

std::string parse_error_of(const std::string& text) {
  auto result = parse_graph(text);
  if (result.is_ok()) return "(parsed)";
  EXPECT_EQ(result.status().code(), StatusCode::kParseError);
  return result.status().message();
}

// ---------------------------------------------------------------------------------------
// The exact format, both directions.

std::unique_ptr<Graph> small_graph() {
  auto g = std::make_unique<Graph>("main");
  g->set_opset_import("", 17);
  g->set_opset_import("com.microsoft", 1);
  Value* x = g->add_input("x", desc(DataType::kFloat32, {Dim::named("N"), Dim::of(3), Dim::of(4), Dim::of(4)}));
  Value* w = g->add_initializer("w", Tensor::from_vector<float>({2, 3, 1, 1}, {0.5f, 1.f, -2.f, 0.1f, 3.f, 4.f}));
  Node* conv = g->add_node("Conv", {x, w}, 1, "conv1", {"y"});
  conv->set_attribute("strides", std::vector<int64_t>{1, 1});
  conv->set_attribute("alpha", 0.5f);
  conv->output(0)->set_desc(desc(DataType::kFloat32, {Dim::named("N"), Dim::of(2), Dim::unknown(), Dim::of(4)}));
  Node* fused = g->add_node("FusedConv", {conv->output(0), nullptr, w}, 2, "", {"a", ""}, "com.microsoft");
  fused->set_name("");
  fused->add_control_predecessor(conv);
  g->add_output(conv->output(0));
  g->add_output(fused->output(0));
  return g;
}

const char* const kSmallGraphText =
    "graph main (opset \"\"=17, \"com.microsoft\"=1) {\n"
    "  input %x : float32[N,3,4,4]\n"
    "  init %w : float32[2,3,1,1] = [0.5, 1, -2, 0.1, 3, 4]\n"
    "  %y : float32[N,2,?,4] = Conv(%x, %w) {alpha: float = 0.5, strides: ints = [1, 1]} \"conv1\"\n"
    "  %a, _ = com.microsoft::FusedConv(%y, _, %w) after [\"conv1\"]\n"
    "  output %y\n"
    "  output %a\n"
    "}\n";

TEST(GraphText, PrintsTheDocumentedFormat) { EXPECT_EQ(print_graph(*small_graph()), kSmallGraphText); }

TEST(GraphText, ParsesTheDocumentedFormat) {
  auto parsed = parse_graph(kSmallGraphText);
  ASSERT_TRUE(parsed.is_ok()) << parsed.status().message();
  const Graph& g = **parsed;
  EXPECT_EQ(g.name(), "main");
  EXPECT_EQ(g.opset_imports(), (std::map<std::string, int64_t>{{"", 17}, {"com.microsoft", 1}}));
  ASSERT_EQ(g.inputs().size(), 1u);
  EXPECT_EQ(g.inputs()[0]->name(), "x");
  EXPECT_EQ(g.inputs()[0]->desc(), desc(DataType::kFloat32, {Dim::named("N"), Dim::of(3), Dim::of(4), Dim::of(4)}));
  ASSERT_EQ(g.initializers().size(), 1u);
  const Value* w = g.initializers()[0];
  EXPECT_FALSE(w->is_graph_input());
  ASSERT_TRUE(w->is_constant());
  EXPECT_EQ(w->constant()->shape(), (std::vector<int64_t>{2, 3, 1, 1}));
  auto values = w->constant()->values<float>();
  EXPECT_EQ(std::vector<float>(values.begin(), values.end()), (std::vector<float>{0.5f, 1.f, -2.f, 0.1f, 3.f, 4.f}));

  ASSERT_EQ(g.node_count(), 2u);
  const Node* conv = g.nodes().front().get();
  const Node* fused = g.nodes().back().get();
  EXPECT_EQ(conv->op_type(), "Conv");
  EXPECT_EQ(conv->name(), "conv1");
  EXPECT_EQ(conv->domain(), "");
  EXPECT_EQ(conv->inputs(), (std::vector<Value*>{g.inputs()[0], g.initializers()[0]}));
  EXPECT_EQ(conv->get_ints("strides"), (std::vector<int64_t>{1, 1}));
  EXPECT_EQ(conv->get_float("alpha", 0.f), 0.5f);
  EXPECT_EQ(conv->output(0)->name(), "y");
  EXPECT_EQ(conv->output(0)->desc(),
            desc(DataType::kFloat32, {Dim::named("N"), Dim::of(2), Dim::unknown(), Dim::of(4)}));
  EXPECT_EQ(fused->op_type(), "FusedConv");
  EXPECT_EQ(fused->domain(), "com.microsoft");
  EXPECT_EQ(fused->name(), "");
  EXPECT_EQ(fused->inputs(), (std::vector<Value*>{conv->output(0), nullptr, g.initializers()[0]}));
  ASSERT_EQ(fused->output_count(), 2u);
  EXPECT_EQ(fused->output(0)->name(), "a");
  EXPECT_EQ(fused->output(1)->name(), "");
  EXPECT_EQ(fused->output(1)->desc(), TensorDesc());
  EXPECT_EQ(fused->control_predecessors(), (std::vector<Node*>{g.nodes().front().get()}));
  EXPECT_EQ(g.outputs(), (std::vector<Value*>{conv->output(0), fused->output(0)}));
  ASSERT_EQ(conv->output(0)->uses().size(), 1u);
  EXPECT_EQ(conv->output(0)->uses()[0], (Use{g.nodes().back().get(), 0}));
  EXPECT_TRUE(verify_graph(g).is_ok()) << verify_graph(g).message();
}

TEST(GraphText, AcceptsCommentsAndForwardReferences) {
  auto parsed = parse_graph(
      "// a comment line\n"
      "graph g {  // trailing comment\n"
      "  input %x : float32[2]\n"
      "  %z = Neg(%y)\n"
      "  %y = Relu(%x)\n"
      "  output %z\n"
      "}\n");
  ASSERT_TRUE(parsed.is_ok()) << parsed.status().message();
  const Graph& g = **parsed;
  const Node* neg = g.nodes().front().get();
  const Node* relu = g.nodes().back().get();
  EXPECT_EQ(neg->input(0), relu->output(0));
  EXPECT_TRUE(verify_graph(g).is_ok());
}

TEST(GraphText, FloatsPrintShortestExactForm) {
  Graph g("g");
  std::vector<float> values = {0.1f,
                               -0.0f,
                               1e-45f,
                               std::numeric_limits<float>::max(),
                               std::numeric_limits<float>::infinity(),
                               -std::numeric_limits<float>::infinity(),
                               std::bit_cast<float>(0x7fc00000u),
                               std::bit_cast<float>(0xffc00001u),
                               16777216.f,
                               1.5e-7f};
  g.add_initializer("f", Tensor::from_vector<float>({10}, values));
  g.add_initializer("d", Tensor::from_vector<double>({3}, {0.1, 1e-320, 1.0 / 3.0}));
  g.add_initializer("h", bits_tensor<uint16_t>(DataType::kFloat16, {2}, {0x3c00, 0x7e01}));
  EXPECT_EQ(print_graph(g),
            "graph g {\n"
            "  init %f : float32[10] = [0.1, -0, 1e-45, 3.4028235e+38, inf, -inf, nan, 0xffc00001, 16777216, "
            "1.5e-07]\n"
            "  init %d : float64[3] = [0.1, 1e-320, 0.3333333333333333]\n"
            "  init %h : float16[2] = [0x3c00, 0x7e01]\n"
            "}\n");
}

TEST(GraphText, StringsEscapeControlBytesAndInvalidUtf8) {
  Graph g("g");
  const std::vector<std::string> strings = {"tab\there", "\xc3\xbc ok", "bad \xff \xe0\x80\x80 \xed\xa0\x80"};
  g.add_initializer("s", Tensor::from_strings({3}, strings));
  std::string text = print_graph(g);
  // ü stays as written; a lone 0xff, an overlong form and a UTF-16 surrogate are escaped.
  EXPECT_EQ(text,
            "graph g {\n"
            "  init %s : string[3] = [\"tab\\there\", \"\xc3\xbc ok\", \"bad \\xff \\xe0\\x80\\x80 "
            "\\xed\\xa0\\x80\"]\n"
            "}\n");
  auto parsed = parse_graph(text);
  ASSERT_TRUE(parsed.is_ok()) << parsed.status().message();
  const std::string* data = (*parsed)->initializers()[0]->constant()->data<std::string>();
  EXPECT_EQ(std::vector<std::string>(data, data + 3), strings);
}

TEST(GraphText, Float16AcceptsDecimalsRoundedToNearestEven) {
  auto parsed = parse_graph(
      "graph g {\n"
      "  init %h : float16[7] = [1, -2.5, 65504, 65520, 5.9604645e-08, 0.000100046396, 0.0001000464]\n"
      "  init %b : bfloat16[3] = [1, 3.0078125, -inf]\n"
      "}\n");
  ASSERT_TRUE(parsed.is_ok()) << parsed.status().message();
  auto h = (*parsed)->initializers()[0]->constant()->values<uint16_t>();
  // 65520 is halfway between 65504 and the next step: ties to even overflow to inf.
  // 0.000100046396 is the float32 exactly halfway between 0x068e and 0x068f (ties to
  // the even 0x068e); the next float32 up, 0.0001000464, rounds to 0x068f (numpy agrees).
  EXPECT_EQ(std::vector<uint16_t>(h.begin(), h.end()),
            (std::vector<uint16_t>{0x3c00, 0xc100, 0x7bff, 0x7c00, 0x0001, 0x068e, 0x068f}));
  auto b = (*parsed)->initializers()[1]->constant()->values<uint16_t>();
  // 3.0078125 = 0x40408000: exactly halfway, ties to the even 0x4040.
  EXPECT_EQ(std::vector<uint16_t>(b.begin(), b.end()), (std::vector<uint16_t>{0x3f80, 0x4040, 0xff80}));
}

// ---------------------------------------------------------------------------------------
// Round trip over a graph that uses every construct of the format.

std::unique_ptr<Graph> rich_graph() {
  auto g = std::make_unique<Graph>("rich graph");
  g->set_opset_import("", 17);
  g->set_opset_import("ai.onnx.ml", 3);

  // Inputs and initializers interleaved, some initializers also inputs.
  Value* x = g->add_input("x", desc(DataType::kFloat32, {Dim::named("N"), Dim::unknown(), Dim::named("batch size"),
                                                         Dim::of(0), Dim::named("?")}));
  Value* f32 = g->add_initializer(
      "f32",
      Tensor::from_vector<float>({2, 3}, {0.1f, -0.0f, 1e-45f, std::numeric_limits<float>::infinity(),
                                          std::bit_cast<float>(0x7fc00000u), std::bit_cast<float>(0x7f800001u)}));
  Value* i64 = g->add_initializer(
      "i64",
      Tensor::from_vector<int64_t>({3}, {std::numeric_limits<int64_t>::min(), 0, std::numeric_limits<int64_t>::max()}),
      /*also_input=*/true);
  Value* seq = g->add_input("seq", TensorDesc(DataType::kFloat32, {}));
  seq->mutable_desc().kind = ValueKind::kSequence;
  seq->mutable_desc().shape.reset();
  TensorDesc opt_desc(DataType::kInt64, {Dim::of(2)});
  opt_desc.kind = ValueKind::kOptional;
  g->add_input("opt", opt_desc);
  TensorDesc opt_seq(DataType::kBool, {});
  opt_seq.kind = ValueKind::kOptionalSequence;
  g->add_input("opt.seq-1", opt_seq);
  Value* untyped = g->add_input("untyped", TensorDesc());
  Value* odd = g->add_input("odd \"name\"\n\x01\\ \xc3\xbc", desc(DataType::kUndefined, {}));
  g->add_initializer("f64",
                     Tensor::from_vector<double>({3}, {0.1, -1e-320, std::bit_cast<double>(0xfff8000000000001ull)}));
  g->add_initializer("f16", bits_tensor<uint16_t>(DataType::kFloat16, {3}, {0x3c00, 0x8000, 0x7e01}), true);
  g->add_initializer("bf16", bits_tensor<uint16_t>(DataType::kBFloat16, {2}, {0x3f80, 0xff81}));
  g->add_initializer("c64", bits_tensor<float>(DataType::kComplex64, {2}, {1.5f, -2.f, 0.f, 1e-45f}));
  g->add_initializer("c128", bits_tensor<double>(DataType::kComplex128, {1}, {0.1, -0.3}));
  g->add_initializer("i8", Tensor::from_vector<int8_t>({2}, {-128, 127}));
  g->add_initializer("i16", Tensor::from_vector<int16_t>({2}, {-32768, 32767}));
  g->add_initializer("i32", Tensor::from_vector<int32_t>({2}, {std::numeric_limits<int32_t>::min(), 7}));
  g->add_initializer("u8", Tensor::from_vector<uint8_t>({2}, {0, 255}));
  g->add_initializer("u16", Tensor::from_vector<uint16_t>({1}, {65535}));
  g->add_initializer("u32", Tensor::from_vector<uint32_t>({1}, {4294967295u}));
  g->add_initializer("u64", Tensor::from_vector<uint64_t>({1}, {std::numeric_limits<uint64_t>::max()}));
  g->add_initializer("b", Tensor::from_vector<bool>({2, 1}, {true, false}));
  g->add_initializer("s", Tensor::from_strings({3}, {"plain", "", "q\"b\\n\n\t\r\x7f\xff end"}));
  g->add_initializer("empty", Tensor::zeros(DataType::kFloat32, {0, 3}));
  g->add_initializer("scalar", Tensor::from_vector<int64_t>({}, {42}));
  Value* loose = g->add_initializer("loose", Tensor::from_vector<float>({2}, {1.f, 2.f}), true);
  loose->set_desc(desc(DataType::kFloat32, {Dim::named("M")}));  // declared less precisely than its data
  Value* untyped_init = g->add_initializer("untyped_init", Tensor::from_vector<int32_t>({1}, {3}));
  untyped_init->set_desc(TensorDesc());
  g->add_input("last", desc(DataType::kString, {Dim::of(1)}));

  // Nodes: every attribute type, domains, odd op types, omitted inputs and outputs.
  Node* a = g->add_node("Add", {x, f32}, 1, "a", {"a_out"});
  a->output(0)->set_desc(desc(DataType::kFloat32, {Dim::named("N")}));
  Node* attrs = g->add_node("Everything", {a->output(0), nullptr, i64, nullptr}, 3, "", {"e0", "", "e2"}, "ai.onnx.ml");
  attrs->set_name("");
  attrs->output(1)->set_desc(desc(DataType::kInt64, {Dim::of(1)}));
  attrs->set_attribute("i", std::numeric_limits<int64_t>::min());
  attrs->set_attribute("f", std::bit_cast<float>(0xffc00000u));
  attrs->set_attribute("s", std::string("with \"quotes\" and \\ and \n"));
  attrs->set_attribute("t", Tensor::from_vector<float>({2, 2}, {1.f, 2.f, 3.f, 4.f}));
  attrs->set_attribute("ints", std::vector<int64_t>{});
  attrs->set_attribute("floats", std::vector<float>{0.25f, -1e38f});
  attrs->set_attribute("strings", std::vector<std::string>{"", "x y"});
  attrs->set_attribute("tensors", std::vector<Tensor>{Tensor(), Tensor::from_strings({1}, {"z"})});
  attrs->set_attribute("odd attr name", int64_t{1});
  TensorDesc type_attr(DataType::kFloat16, {Dim::named("N"), Dim::unknown(), Dim::of(3)});
  type_attr.kind = ValueKind::kOptionalSequence;
  attrs->set_attribute("type", type_attr);
  attrs->set_attribute("types", std::vector<TensorDesc>{TensorDesc::of(DataType::kInt8, {}), TensorDesc()});

  // A subgraph capturing outer values, itself holding a subgraph that captures from both.
  auto then_branch = std::make_shared<Graph>("then");
  then_branch->set_parent(g.get());
  Value* cap = then_branch->add_capture("a_out", a->output(0)->desc());
  Value* cap_untyped = then_branch->add_capture("x", TensorDesc());
  Node* neg = then_branch->add_node("Neg", {cap}, 1, "neg", {"n"});
  auto inner = std::make_shared<Graph>("inner");
  inner->set_parent(then_branch.get());
  Value* inner_cap = inner->add_capture("n", TensorDesc());
  Value* inner_cap2 = inner->add_capture("f32", TensorDesc());
  Node* id = inner->add_node("Identity", {inner_cap}, 1, "id", {"r"});
  Node* mul = inner->add_node("Mul", {id->output(0), inner_cap2}, 1, "mul", {"m"});
  inner->add_output(mul->output(0));
  Node* loop = then_branch->add_node("Loop", {nullptr, nullptr, cap_untyped}, 1, "loop", {"l"});
  loop->set_attribute("body", inner);
  then_branch->add_output(loop->output(0));
  then_branch->add_output(neg->output(0));
  auto else_branch = std::make_shared<Graph>("else");
  else_branch->set_parent(g.get());
  Value* else_cap = else_branch->add_capture("odd \"name\"\n\x01\\ \xc3\xbc", TensorDesc());
  else_branch->add_output(else_cap);
  Node* cond = g->add_node("If", {i64}, 2, "if", {"if0", "if1"});
  cond->set_attribute("then_branch", then_branch);
  cond->set_attribute("else_branch", else_branch);
  auto empty = std::make_shared<Graph>("");
  empty->set_parent(g.get());
  cond->set_attribute("graphs", std::vector<Attribute::GraphPtr>{empty});
  (void)odd;

  // Nodes no plain identifier can name, and control edges by name and by position.
  Node* keyword = g->add_node("output", {}, 0, "dup");
  Node* spaced = g->add_node("op type", {untyped, seq}, 0, "dup", {}, "my domain");
  Node* nameless = g->add_node("_", {}, 1, "", {"nameless_out"}, "input");
  nameless->set_name("");
  spaced->add_control_predecessor(keyword);
  spaced->add_control_predecessor(a);
  keyword->add_control_predecessor(nameless);  // a forward control edge
  // insert_between appends a node that feeds an earlier one: a forward data reference.
  Node* cast = g->insert_between(a, 1, "Cast", "cast");
  cast->set_attribute("to", int64_t{1});

  g->add_output(cond->output(0));
  g->add_output(attrs->output(2));
  g->add_output(x);
  g->add_output(i64);
  return g;
}

TEST(GraphText, RoundTripsEveryConstruct) {
  auto g = rich_graph();
  ASSERT_TRUE(verify_graph(*g).is_ok()) << verify_graph(*g).message();
  std::string text = print_graph(*g);
  auto parsed = parse_graph(text);
  ASSERT_TRUE(parsed.is_ok()) << parsed.status().message() << "\n" << text;
  EXPECT_EQ(print_graph(**parsed), text);
  EXPECT_TRUE(verify_graph(**parsed).is_ok()) << verify_graph(**parsed).message();

  // The parsed graph holds the same things, not merely the same text.
  const Graph& p = **parsed;
  auto names = [](const std::vector<Value*>& values) {
    std::vector<std::string> out;
    for (const Value* v : values) out.push_back(v->name());
    return out;
  };
  EXPECT_EQ(names(p.inputs()), (std::vector<std::string>{"x", "i64", "seq", "opt", "opt.seq-1", "untyped",
                                                         "odd \"name\"\n\x01\\ \xc3\xbc", "f16", "loose", "last"}));
  EXPECT_EQ(names(p.initializers()),
            (std::vector<std::string>{"f32", "i64", "f64",   "f16",    "bf16",  "c64",         "c128",
                                      "i8",  "i16", "i32",   "u8",     "u16",   "u32",         "u64",
                                      "b",   "s",   "empty", "scalar", "loose", "untyped_init"}));
  auto bits32 = p.find_value("f32")->constant()->values<uint32_t>();
  EXPECT_EQ(std::vector<uint32_t>(bits32.begin(), bits32.end()),
            (std::vector<uint32_t>{0x3dcccccd, 0x80000000, 0x00000001, 0x7f800000, 0x7fc00000, 0x7f800001}));
  auto bits64 = p.find_value("f64")->constant()->values<uint64_t>();
  EXPECT_EQ(std::vector<uint64_t>(bits64.begin(), bits64.end()),
            (std::vector<uint64_t>{0x3fb999999999999aull, 0x80000000000007e8ull, 0xfff8000000000001ull}));
  EXPECT_EQ(p.find_value("u64")->constant()->values<uint64_t>()[0], std::numeric_limits<uint64_t>::max());
  EXPECT_EQ(p.find_value("s")->constant()->data<std::string>()[2], "q\"b\\n\n\t\r\x7f\xff end");
  EXPECT_EQ(p.find_value("loose")->desc(), desc(DataType::kFloat32, {Dim::named("M")}));
  EXPECT_EQ(p.find_value("loose")->constant()->shape(), (std::vector<int64_t>{2}));
  EXPECT_EQ(p.find_value("empty")->constant()->shape(), (std::vector<int64_t>{0, 3}));
  EXPECT_EQ(p.find_value("scalar")->constant()->shape(), (std::vector<int64_t>{}));

  const Node* cond = p.find_node("if");
  ASSERT_NE(cond, nullptr);
  const Graph& then_branch = *cond->attribute("then_branch")->get<Attribute::GraphPtr>();
  EXPECT_EQ(then_branch.parent(), &p);
  ASSERT_EQ(then_branch.captures().size(), 2u);
  EXPECT_TRUE(then_branch.captures()[0]->is_capture());
  const Graph& inner = *then_branch.find_node("loop")->attribute("body")->get<Attribute::GraphPtr>();
  EXPECT_EQ(inner.parent(), &then_branch);
  EXPECT_EQ(names(inner.captures()), (std::vector<std::string>{"n", "f32"}));

  const Node* spaced = nullptr;
  for (const auto& node : p.nodes())
    if (node->op_type() == "op type") spaced = node.get();
  ASSERT_NE(spaced, nullptr);
  EXPECT_EQ(spaced->domain(), "my domain");
  ASSERT_EQ(spaced->control_predecessors().size(), 2u);
  EXPECT_EQ(spaced->control_predecessors()[0]->op_type(), "output");
  EXPECT_EQ(spaced->control_predecessors()[1], p.find_node("a"));
  EXPECT_EQ(p.find_node("a")->input(1)->producer(), p.find_node("cast"));

  // Type attributes (Optional's `type`) come back as the same descs.
  const Node* attrs = nullptr;
  for (const auto& node : p.nodes())
    if (node->attribute("types") != nullptr) attrs = node.get();
  ASSERT_NE(attrs, nullptr);
  const TensorDesc& type = attrs->attribute("type")->get<TensorDesc>();
  EXPECT_EQ(type.kind, ValueKind::kOptionalSequence);
  EXPECT_EQ(type.to_string(), "opt(seq(float16[N,?,3]))");
  EXPECT_EQ(attrs->attribute("types")->get<std::vector<TensorDesc>>(),
            (std::vector<TensorDesc>{TensorDesc::of(DataType::kInt8, {}), TensorDesc()}));
}

TEST(GraphText, RoundTripsOmittedGraphOutputsAndUndefinedInitializerTypes) {
  Graph g("g");
  Value* x = g.add_input("x", TensorDesc());
  g.add_output(nullptr);
  g.add_output(x);
  std::string text = print_graph(g);
  EXPECT_EQ(text, "graph g {\n  input %x\n  output _\n  output %x\n}\n");
  auto again = reprint(text);
  ASSERT_TRUE(again.is_ok()) << again.status().message();
  EXPECT_EQ(*again, text);
}

// ---------------------------------------------------------------------------------------
// Dumps: PrintOptions::max_constant_elements elides large constants.

template <typename T>
std::vector<T> iota_values(size_t count, T first) {
  std::vector<T> values(count);
  for (size_t i = 0; i < count; ++i) values[i] = first + static_cast<T>(i);
  return values;
}

// The checksum an elided constant prints: XXH3-64 of its bytes, as the .gem header uses.
std::string xxh3_text(const Tensor& t) {
  char buffer[32];
  std::snprintf(buffer, sizeof(buffer), "0x%016llx",
                static_cast<unsigned long long>(model_file_checksum(
                    std::string_view(static_cast<const char*>(t.raw_data()), t.byte_size()), 2)));
  return buffer;
}

// A 64-element weight, a 32-element one (at the limit), a 40-element initializer whose
// declared type differs from its data's, a tensor attribute and a tensors attribute.
std::unique_ptr<Graph> graph_with_large_constants() {
  auto g = std::make_unique<Graph>("main");
  Value* x = g->add_input("x", desc(DataType::kFloat32, {Dim::of(4)}));
  Value* w = g->add_initializer("w", Tensor::from_vector<float>({4, 16}, iota_values<float>(64, 0.5f)));
  Value* b = g->add_initializer("b", Tensor::from_vector<float>({32}, iota_values<float>(32, 1.f)));
  Value* loose = g->add_initializer("loose", Tensor::from_vector<int64_t>({40}, iota_values<int64_t>(40, 0)));
  loose->set_desc(desc(DataType::kInt64, {Dim::named("L")}));
  Node* constant = g->add_node("Constant", {}, 1, "const", {"c"});
  constant->set_attribute("value", Tensor::from_vector<int32_t>({2, 50}, iota_values<int32_t>(100, 7)));
  Node* op = g->add_node("Op", {x, w, b, loose, constant->output(0)}, 1, "op", {"y"});
  op->set_attribute("tables", std::vector<Tensor>{Tensor::from_vector<int8_t>({3}, {1, 2, 3}),
                                                  Tensor::from_vector<uint8_t>({33}, iota_values<uint8_t>(33, 0))});
  g->add_output(op->output(0));
  return g;
}

TEST(GraphTextPrintOptions, ElidesConstantsOverTheLimitAsDtypeShapeAndChecksum) {
  auto g = graph_with_large_constants();
  const Tensor& w = *g->find_value("w")->constant();
  const Tensor& loose = *g->find_value("loose")->constant();
  const Tensor& value = g->find_node("const")->attribute("value")->get<Tensor>();
  const Tensor& table = g->find_node("op")->attribute("tables")->get<std::vector<Tensor>>()[1];
  std::string full_b = "[";
  for (int i = 1; i <= 32; ++i) full_b += (i > 1 ? ", " : "") + std::to_string(i);
  full_b += "]";

  const std::string text = print_graph(*g, PrintOptions{.max_constant_elements = 32});
  EXPECT_EQ(text, "graph main {\n"
                  "  input %x : float32[4]\n"
                  "  init %w : float32[4,16] = elided(64 elements, xxh3 " + xxh3_text(w) + ")\n"
                  "  init %b : float32[32] = " + full_b + "\n"
                  "  init %loose : int64[L] = int64[40] elided(40 elements, xxh3 " + xxh3_text(loose) + ")\n"
                  "  %c = Constant() {value: tensor = int32[2,50] elided(100 elements, xxh3 " + xxh3_text(value) +
                  ")} \"const\"\n"
                  "  %y = Op(%x, %w, %b, %loose, %c) {tables: tensors = [int8[3] [1, 2, 3], uint8[33] elided(33 "
                  "elements, xxh3 " + xxh3_text(table) + ")]} \"op\"\n"
                  "  output %y\n"
                  "}\n");
  // Other data, other checksum.
  EXPECT_NE(xxh3_text(w), xxh3_text(Tensor::from_vector<float>({4, 16}, iota_values<float>(64, 1.5f))));
}

TEST(GraphTextPrintOptions, DefaultPrintsEveryConstantAndRoundTrips) {
  auto g = graph_with_large_constants();
  const std::string full = print_graph(*g);
  EXPECT_EQ(print_graph(*g, PrintOptions{}), full);
  EXPECT_EQ(full.find("elided"), std::string::npos);
  EXPECT_NE(full.find("init %w : float32[4,16] = [0.5, 1.5, 2.5, "), std::string::npos);
  auto again = reprint(full);
  ASSERT_TRUE(again.is_ok()) << again.status().message();
  EXPECT_EQ(*again, full);
  // A limit no constant exceeds prints the same text.
  EXPECT_EQ(print_graph(*g, PrintOptions{.max_constant_elements = 100}), full);
}

TEST(GraphTextPrintOptions, ElidedStringsHashLengthsAndBytes) {
  std::vector<std::string> split_one(40, "ab"), split_two(40, "ab");
  split_one[0] = "a", split_one[1] = "bab";
  Graph one("g"), two("g");
  one.add_initializer("s", Tensor::from_strings({40}, split_one));
  two.add_initializer("s", Tensor::from_strings({40}, split_two));
  const PrintOptions options{.max_constant_elements = 32};
  const std::string a = print_graph(one, options), b = print_graph(two, options);
  EXPECT_NE(a.find("init %s : string[40] = elided(40 elements, xxh3 0x"), std::string::npos) << a;
  EXPECT_NE(a, b) << "the same bytes split differently must hash differently";
}

TEST(GraphTextErrors, ElidedConstantsDoNotLoad) {
  const std::string initializer = parse_error_of(
      "graph g {\n  init %w : float32[4,16] = elided(64 elements, xxh3 0x0123456789abcdef)\n  output %w\n}\n");
  EXPECT_EQ(initializer.rfind("line 2, column 29: the data of initializer %w was elided when the graph was printed", 0),
            0u)
      << initializer;
  EXPECT_NE(initializer.find("ge-run --dump-graph-constants"), std::string::npos) << initializer;
  const std::string attribute = parse_error_of(
      "graph g {\n  %c = Constant() {value: tensor = int32[2,50] elided(100 elements, xxh3 0x01)}\n  output %c\n}\n");
  EXPECT_EQ(attribute.rfind("line 2, column 48: the data of this constant was elided", 0), 0u) << attribute;
  // What a dump of the large-constant graph prints does not load either.
  auto g = graph_with_large_constants();
  EXPECT_NE(parse_error_of(print_graph(*g, PrintOptions{.max_constant_elements = 32})).find("was elided"),
            std::string::npos);
}

// ---------------------------------------------------------------------------------------
// Errors: each names the line and column and what was expected.

TEST(GraphTextErrors, UndefinedValue) {
  EXPECT_EQ(parse_error_of("graph g {\n  %y = Relu(%x)\n  output %y\n}\n"),
            "line 2, column 13: value %x is not defined in graph 'g'");
  EXPECT_EQ(parse_error_of("graph g {\n  input %x\n  output %\"y z\"\n}\n"),
            "line 3, column 10: value %\"y z\" is not defined in graph 'g'");
}

TEST(GraphTextErrors, DuplicateDefinition) {
  EXPECT_EQ(parse_error_of("graph g {\n  input %x : float32[2]\n  %x = Relu(%x)\n}\n"),
            "line 3, column 3: value %x is defined twice in graph 'g'");
  EXPECT_EQ(parse_error_of("graph g {\n  %a, %a = Split()\n}\n"),
            "line 2, column 7: value %a is defined twice in graph 'g'");
  EXPECT_EQ(parse_error_of("graph g (opset \"\"=1, \"\"=2) {\n}\n"),
            "line 1, column 22: opset domain \"\" is imported twice");
  EXPECT_EQ(parse_error_of("graph g {\n  Foo() {k: int = 1, k: int = 2}\n}\n"),
            "line 2, column 22: attribute \"k\" is given twice");
}

TEST(GraphTextErrors, BadTypes) {
  EXPECT_EQ(parse_error_of("graph g {\n  input %x : float33[2]\n}\n"),
            "line 2, column 14: expected an element type (float32, int64, ...) but found 'float33'");
  EXPECT_EQ(parse_error_of("graph g {\n  input %x : float32[-1]\n}\n"),
            "line 2, column 22: expected a dimension (an integer >= 0, '?' or a symbol) but found '-1'");
  EXPECT_EQ(parse_error_of("graph g {\n  input %x : seq(float32[2]\n}\n"),
            "line 3, column 1: expected ')' but found '}'");
  EXPECT_EQ(parse_error_of("graph g {\n  Foo() {k: double = 1}\n}\n"),
            "line 2, column 13: expected an attribute type (int, float, string, tensor, graph, ints, ...) but "
            "found 'double'");
}

TEST(GraphTextErrors, MalformedNumbers) {
  EXPECT_EQ(parse_error_of("graph g {\n  init %w : float32[2] = [1.5.2, 3]\n}\n"),
            "line 2, column 27: expected a float32 value but found '1.5.2'");
  EXPECT_EQ(parse_error_of("graph g {\n  init %w : float32[1] = [1e39]\n}\n"),
            "line 2, column 27: expected a float32 value but found '1e39'");
  EXPECT_EQ(parse_error_of("graph g {\n  init %w : int8[2] = [1, 128]\n}\n"),
            "line 2, column 27: expected an int8 value but found '128'");
  EXPECT_EQ(parse_error_of("graph g {\n  init %w : uint64[1] = [-1]\n}\n"),
            "line 2, column 26: expected a uint64 value but found '-1'");
  EXPECT_EQ(parse_error_of("graph g {\n  init %w : float16[1] = [0x10000]\n}\n"),
            "line 2, column 27: expected a float16 value (0xHHHH bits or a number) but found '0x10000'");
  EXPECT_EQ(parse_error_of("graph g {\n  init %w : bool[1] = [1]\n}\n"),
            "line 2, column 24: expected a bool value (true or false) but found '1'");
  EXPECT_EQ(parse_error_of("graph g {\n  Foo() {k: int = 9223372036854775808}\n}\n"),
            "line 2, column 19: expected an int64 value but found '9223372036854775808'");
}

TEST(GraphTextErrors, UnterminatedAndBadStrings) {
  EXPECT_EQ(parse_error_of("graph g {\n  Foo() \"name\n}\n"),
            "line 2, column 9: unterminated string: expected '\"' but found end of line");
  EXPECT_EQ(parse_error_of("graph \"g"), "line 1, column 7: unterminated string: expected '\"' but found end of input");
  EXPECT_EQ(parse_error_of("graph \"a\\qb\" {\n}\n"),
            "line 1, column 10: expected an escape (\\\" \\\\ \\n \\t \\r \\xHH) but found 'q'");
  EXPECT_EQ(parse_error_of("graph \"a\\x4\" {\n}\n"),
            "line 1, column 11: expected two hex digits after '\\x' but found '4'");
}

TEST(GraphTextErrors, DataCountMustMatchShape) {
  EXPECT_EQ(parse_error_of("graph g {\n  init %w : float32[2,2] = [1, 2, 3]\n}\n"),
            "line 2, column 36: expected 4 values for float32[2,2] but found 3");
  EXPECT_EQ(parse_error_of("graph g {\n  init %w : float32[2,2] = [1, 2, 3, 4, 5]\n}\n"),
            "line 2, column 39: expected ']' after 4 values of float32[2,2] but found ','");
  EXPECT_EQ(parse_error_of("graph g {\n  init %w : float32[N] = [1]\n}\n"),
            "line 2, column 26: expected a tensor literal (the type of %w is not a static tensor type, so the data "
            "must say its own) but found '['");
  EXPECT_EQ(parse_error_of("graph g {\n  Foo() {t: tensor = float32[4611686018427387904,4] []}\n}\n"),
            "line 2, column 53: expected a tensor shape with fewer elements than float32[4611686018427387904,4] "
            "but found '['");
}

TEST(GraphTextErrors, TrailingJunk) {
  std::string text = print_graph(*small_graph());
  EXPECT_EQ(parse_error_of(text + "x"), "line 9, column 1: expected end of input but found 'x'");
  EXPECT_EQ(parse_error_of("graph g {\n  input %x : float32[2] junk\n}\n"),
            "line 2, column 25: expected end of line but found 'junk'");
  EXPECT_EQ(parse_error_of("graph g {\n  input %x : float32[2] $\n}\n"),
            "line 2, column 25: expected a token but found '$'");
  EXPECT_EQ(parse_error_of(""), "line 1, column 1: expected 'graph' but found end of input");
  EXPECT_EQ(parse_error_of("graph g {\n  input %x\n"),
            "line 3, column 1: expected a statement or '}' but found end of input");
}

TEST(GraphTextErrors, BadReferences) {
  EXPECT_EQ(parse_error_of("graph g {\n  Foo() after [\"nope\"]\n}\n"),
            "line 2, column 16: no node named \"nope\" in graph 'g'");
  EXPECT_EQ(parse_error_of("graph g {\n  Foo() \"n\"\n  Foo() \"n\"\n  Bar() after [\"n\"]\n}\n"),
            "line 4, column 16: node name \"n\" is ambiguous in graph 'g'; refer to the node by position (#N)");
  EXPECT_EQ(parse_error_of("graph g {\n  Foo() after [#1]\n}\n"),
            "line 2, column 16: node #1 does not exist in graph 'g', which has 1 nodes");
  EXPECT_EQ(parse_error_of("graph g {\n  input %x\n  If(%x) {b: graph = graph b {\n    capture %nope\n  }}\n}\n"),
            "line 4, column 13: capture %nope does not name a value of an enclosing graph of graph 'b'");
}

TEST(GraphTextErrors, NestingIsBounded) {
  std::string text;
  for (int i = 0; i < 70; ++i) text += "graph g {\n  If() {b: graph = ";
  EXPECT_EQ(parse_error_of(text), "line 65, column 20: graphs are nested more than 64 deep");
}

// Random byte mutations of a valid text never crash or hang the parser; whatever it
// accepts prints back to a text that parses to the same print.
TEST(GraphTextFuzz, MutatedTextsFailCleanlyOrRoundTrip) {
  const std::string seed_text = print_graph(*rich_graph());
  const std::string alphabet = "%\"\\[](){}:,=_#?*0123456789-+.exnaf \n\t/";
  std::mt19937 rng(20240531);
  auto pick = [&](size_t n) { return static_cast<size_t>(rng() % n); };
  int accepted = 0;
  for (int iteration = 0; iteration < 2000; ++iteration) {
    std::string text = seed_text;
    int mutations = 1 + static_cast<int>(pick(4));
    for (int m = 0; m < mutations && !text.empty(); ++m) {
      size_t at = pick(text.size());
      switch (pick(5)) {
        case 0:
          text[at] = alphabet[pick(alphabet.size())];
          break;
        case 1:
          text[at] = static_cast<char>(pick(256));
          break;
        case 2:
          text.erase(at, 1 + pick(8));
          break;
        case 3:
          text.insert(at, text.substr(pick(text.size()), 1 + pick(16)));
          break;
        case 4:
          text.resize(at);
          break;
      }
    }
    auto parsed = parse_graph(text);
    if (!parsed.is_ok()) {
      ASSERT_EQ(parsed.status().code(), StatusCode::kParseError) << parsed.status().message();
      ASSERT_EQ(parsed.status().message().rfind("line ", 0), 0u) << parsed.status().message();
      continue;
    }
    ++accepted;
    std::string printed = print_graph(**parsed);
    auto again = reprint(printed);
    ASSERT_TRUE(again.is_ok()) << again.status().message() << "\n" << printed;
    ASSERT_EQ(*again, printed);
  }
  // Some mutations (inside a number or a string) stay valid; the check above ran on them.
  EXPECT_GT(accepted, 0);
}

}  // namespace
}  // namespace ge
