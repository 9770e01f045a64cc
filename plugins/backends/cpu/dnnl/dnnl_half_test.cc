// float16 and bfloat16 on the oneDNN fast paths, and the precision mode's bfloat16
// arithmetic for float32 models. Each half-precision kernel runs against the float32
// reference kernel on the same data (the half-precision inputs converted to float32
// exactly), so only the kernel's own rounding differs:
// - float16 storage (computed in float32, the output rounded once to float16):
//   |fast - reference| <= 1e-3 * (1 + |reference|) (float16 rounds by 2^-11 relative);
// - bfloat16 (oneDNN's bf16 kernels, float32 accumulation, bf16 output):
//   |fast - reference| <= 1e-2 * (1 + |reference|) (bfloat16 rounds by 2^-8 relative);
// - the precision mode on float32 tensors (src and weights rounded to bfloat16, float32
//   accumulation and output) against the float32 reference on the unrounded data:
//   |fast - reference| <= 3e-2 * (1 + |reference|) for sums of up to 576 products of
//   values in [-1, 1] and weights in [-0.3, 0.3] (each product off by up to 2^-8).
// Every case asserts the fast path took the node (its kernel name).

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <limits>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "dnnl_kernels.h"
#include "dnnl_util.h"
#include "ge/graph.h"
#include "ge/minifloat.h"
#include "ge/reference_kernels/kernel_library.h"
#include "ge/tensor.h"

namespace ge::cpu_dnnl {
namespace {

constexpr double kFloat16Tolerance = 1e-3;
constexpr double kBFloat16Tolerance = 1e-2;
constexpr double kPrecisionModeTolerance = 3e-2;

Tensor random_tensor(std::vector<int64_t> dims, uint32_t seed, float scale = 1.0f) {
  Tensor t = Tensor::zeros(DataType::kFloat32, dims);
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> dist(-scale, scale);
  for (int64_t i = 0; i < t.element_count(); ++i) t.data<float>()[i] = dist(rng);
  return t;
}

// `f32` rounded to `type` (float16, bfloat16 or float32 itself).
Tensor to_type(const Tensor& f32, DataType type) {
  if (type == DataType::kFloat32) return f32;
  Tensor out = Tensor::zeros(type, f32.shape());
  auto* bits = static_cast<uint16_t*>(out.raw_data());
  const auto* values = static_cast<const float*>(f32.raw_data());
  for (int64_t i = 0; i < f32.element_count(); ++i) {
    bits[i] = type == DataType::kFloat16 ? float16_from_float(values[i]) : bfloat16_from_float(values[i]);
  }
  return out;
}

// A float16/bfloat16/float32 tensor as float32 (exact).
Tensor to_float32(const Tensor& t) {
  if (t.dtype() == DataType::kFloat32) return t;
  Tensor out = Tensor::zeros(DataType::kFloat32, t.shape());
  const auto* bits = static_cast<const uint16_t*>(t.raw_data());
  for (int64_t i = 0; i < t.element_count(); ++i) {
    out.data<float>()[i] = t.dtype() == DataType::kFloat16 ? float16_to_float(bits[i]) : bfloat16_to_float(bits[i]);
  }
  return out;
}

// Plain <-> channel-blocked [N, C, H, W] of `bytes`-wide elements, as ge::TransData lays
// them out.
// The channel block of a format "nChw16c", "nChw8c", ...
int64_t block_of(const std::string& format) {
  const size_t digits = format.find_first_of("0123456789");
  return digits == std::string::npos ? 1 : std::stoll(format.substr(digits));
}

Tensor to_format(const Tensor& t, int64_t block, bool to_blocked) {
  Tensor out = Tensor::zeros(t.dtype(), t.shape());
  const size_t bytes = static_cast<size_t>(t.byte_size() / std::max<int64_t>(1, t.element_count()));
  const auto& d = t.shape();
  const int64_t c = d[1], hw = d[2] * d[3];
  const auto* from = static_cast<const unsigned char*>(t.raw_data());
  auto* to = static_cast<unsigned char*>(out.raw_data());
  for (int64_t n = 0; n < d[0]; ++n) {
    for (int64_t ch = 0; ch < c; ++ch) {
      for (int64_t s = 0; s < hw; ++s) {
        const int64_t p = (n * c + ch) * hw + s;
        const int64_t b = n * c * hw + ((ch / block) * hw + s) * block + ch % block;
        std::memcpy(to + (to_blocked ? b : p) * bytes, from + (to_blocked ? p : b) * bytes, bytes);
      }
    }
  }
  return out;
}

// One node in its own graph of one element type. Inputs are given as float32 and stored
// in the case's type; `reference()` is the same node in float32 on the stored values.
class HalfCase {
 public:
  HalfCase(std::string op, std::string domain, DataType type)
      : op_(std::move(op)), domain_(std::move(domain)), type_(type) {
    graph_.set_opset_import("", 17);
  }
  HalfCase& input(const Tensor& f32, std::string format = "") {
    inputs_.push_back({to_type(f32, type_), false, std::move(format)});
    return *this;
  }
  HalfCase& constant(const Tensor& f32) {
    inputs_.push_back({to_type(f32, type_), true, ""});
    return *this;
  }
  // A constant kept in its own type (Resize's float32 scales).
  HalfCase& constant_as_is(const Tensor& t) {
    inputs_.push_back({t, true, "", true});
    return *this;
  }
  HalfCase& none() {  // an omitted optional input
    inputs_.push_back({Tensor(), false, "", false, true});
    return *this;
  }
  HalfCase& output(std::vector<int64_t> dims, std::string format = "") {
    output_dims_ = std::move(dims);
    output_format_ = std::move(format);
    return *this;
  }
  HalfCase& attribute(const std::string& name, Attribute value) {
    attributes_.emplace_back(name, std::move(value));
    return *this;
  }
  DataType type() const { return type_; }

  Node& node() {
    if (node_ == nullptr) node_ = build(graph_, type_, /*formats=*/true, /*rounded_to_float32=*/false);
    return *node_;
  }
  // The float32 node on the stored values converted to float32, plain.
  Node& reference_node() {
    if (reference_ == nullptr) reference_ = build(reference_graph_, DataType::kFloat32, false, true);
    return *reference_;
  }

  // Runs `kernel` (prepared for node()) on the stored inputs, blocked where their format
  // says; returns the output as float32, plain.
  Tensor run(const PreparedKernel& kernel) {
    std::vector<Tensor> stored;
    for (const auto& in : inputs_) {
      stored.push_back(in.format.empty() || in.omitted ? in.data : to_format(in.data, block_of(in.format), true));
    }
    Tensor out = launch(kernel, stored, type_);
    if (!output_format_.empty()) out = to_format(out, block_of(output_format_), false);
    return to_float32(out);
  }
  // The float32 reference kernel on the stored values.
  Tensor run_reference() {
    Result<PreparedKernel> reference = reference_kernels::prepare(reference_node(), "cpu");
    EXPECT_TRUE(reference.is_ok()) << reference.status().to_string();
    if (!reference.is_ok()) return Tensor();
    std::vector<Tensor> values;
    for (const auto& in : inputs_) values.push_back(in.omitted || in.as_is ? in.data : to_float32(in.data));
    return launch(*reference, values, DataType::kFloat32);
  }

 private:
  struct Input {
    Tensor data;  // stored type
    bool constant = false;
    std::string format;
    bool as_is = false;    // kept in its own type in the reference too
    bool omitted = false;  // an absent optional input
  };

  Node* build(Graph& graph, DataType type, bool formats, bool rounded_to_float32) {
    graph.set_opset_import("", 17);
    std::vector<Value*> values;
    for (size_t i = 0; i < inputs_.size(); ++i) {
      const Input& in = inputs_[i];
      if (in.omitted) {
        values.push_back(nullptr);
        continue;
      }
      const Tensor data = rounded_to_float32 && !in.as_is ? to_float32(in.data) : in.data;
      if (in.constant) {
        values.push_back(graph.add_initializer("w" + std::to_string(i), data));
      } else {
        Value* v = graph.add_input("x" + std::to_string(i), TensorDesc::of(type, data.shape()));
        if (formats) v->mutable_desc().format = in.format;
        values.push_back(v);
      }
    }
    Node* node = graph.add_node(op_, values, 1, "n", {"y"});
    node->set_domain(domain_);
    for (const auto& [name, value] : attributes_) node->set_attribute(name, value);
    TensorDesc desc = TensorDesc::of(type, output_dims_);
    if (formats) desc.format = output_format_;
    node->output(0)->set_desc(desc);
    graph.add_output(node->output(0));
    return node;
  }

  Tensor launch(const PreparedKernel& kernel, const std::vector<Tensor>& inputs, DataType type) {
    std::vector<const void*> in;
    for (const Tensor& t : inputs) in.push_back(t.raw_data());
    Tensor out = Tensor::zeros(type, output_dims_);
    std::memset(out.raw_data(), 0xFF, out.byte_size());
    void* outputs[] = {out.raw_data()};
    std::unique_ptr<unsigned char[]> workspace(new unsigned char[kernel.workspace_bytes + 1]);
    std::memset(workspace.get(), 0xFF, kernel.workspace_bytes + 1);  // NaNs: what a kernel reads it must write
    KernelArgs args;
    args.inputs = in.data();
    args.outputs = outputs;
    args.workspace = workspace.get();
    args.params = kernel.params.get();
    EXPECT_EQ(kernel.function(args), 0) << kernel.name;
    return out;
  }

  Graph graph_, reference_graph_;
  std::string op_, domain_;
  DataType type_;
  std::vector<Input> inputs_;
  std::vector<int64_t> output_dims_;
  std::string output_format_;
  std::vector<std::pair<std::string, Attribute>> attributes_;
  Node* node_ = nullptr;
  Node* reference_ = nullptr;
};

// The largest |fast - reference| / (1 + |reference|); NaN where either is NaN.
double worst_error(const Tensor& fast, const Tensor& reference) {
  EXPECT_EQ(fast.shape(), reference.shape());
  if (fast.shape() != reference.shape()) return std::numeric_limits<double>::quiet_NaN();
  double worst = 0;
  for (int64_t i = 0; i < reference.element_count(); ++i) {
    const double r = reference.data<float>()[i], f = fast.data<float>()[i];
    const double error = std::fabs(f - r) / (1 + std::fabs(r));
    if (!(error <= worst)) worst = error;  // NaN sticks
  }
  return worst;
}

// Successive seeds (a call, so that chained builder calls may each take one).
struct Seeds {
  uint32_t next = 0;
  uint32_t operator()() { return next++; }
};

double tolerance(DataType type) { return type == DataType::kFloat16 ? kFloat16Tolerance : kBFloat16Tolerance; }

// The fast path must take the node, say its precision in its name, and match the float32
// reference within the type's tolerance. Returns the kernel's name.
std::string check(HalfCase& c, const std::string& what, const Options& options = Options{1}) {
  std::optional<PreparedKernel> fast = prepare(c.node(), "cpu", options);
  EXPECT_TRUE(fast.has_value()) << what << ": no fast path";
  if (!fast) return "";
  const std::string suffix = c.type() == DataType::kFloat16 ? ".f16" : ".bf16";
  EXPECT_NE(fast->name.find(".dnnl:"), std::string::npos) << what << ": " << fast->name;
  EXPECT_TRUE(fast->name.ends_with(suffix)) << what << ": " << fast->name;
  const double error = worst_error(c.run(*fast), c.run_reference());
  EXPECT_LE(error, tolerance(c.type())) << what << " (" << fast->name << ")";
  return fast->name;
}

const DataType kHalfTypes[] = {DataType::kFloat16, DataType::kBFloat16};

std::string type_name(DataType type) { return type == DataType::kFloat16 ? "float16" : "bfloat16"; }

TEST(DnnlHalf, ConvolutionsInEveryFormat) {
  struct Case {
    int64_t c, h, m, k, stride, group;
    bool blocked;
    std::string activation;
    bool residual;
  };
  const Case cases[] = {{3, 19, 16, 7, 2, 1, false, "", false},      // first layer
                        {16, 12, 32, 3, 1, 1, true, "Relu", false},  // 3x3 (Winograd's shape in float32)
                        {32, 9, 32, 1, 1, 1, true, "Relu", true},    // pointwise, residual
                        {32, 12, 32, 3, 1, 1, true, "Relu", true},   // Winograd's shape, residual
                        {32, 10, 32, 3, 2, 32, true, "", false},     // depthwise, strided
                        {24, 8, 40, 3, 1, 1, false, "HardSwish", false}};
  Seeds seed{1};
  for (DataType type : kHalfTypes) {
    for (const Case& k : cases) {
      const int64_t pad = k.k / 2, out = (k.h + 2 * pad - k.k) / k.stride + 1;
      const bool fused = !k.activation.empty() || k.residual;
      HalfCase c(fused ? "FusedConv" : "Conv", fused ? "ge" : "", type);
      const std::string format = k.blocked ? "nChw16c" : "";
      c.input(random_tensor({1, k.c, k.h, k.h}, seed()), format)
          .constant(random_tensor({k.m, k.c / k.group, k.k, k.k}, seed(), 0.3f))
          .constant(random_tensor({k.m}, seed()));
      if (k.residual) c.input(random_tensor({1, k.m, out, out}, seed()), format);
      c.output({1, k.m, out, out}, k.blocked && k.m % 16 == 0 ? "nChw16c" : "");
      c.attribute("strides", Attribute(std::vector<int64_t>{k.stride, k.stride}))
          .attribute("pads", Attribute(std::vector<int64_t>{pad, pad, pad, pad}))
          .attribute("group", Attribute(k.group));
      if (!k.activation.empty()) c.attribute("activation", Attribute(k.activation));
      const std::string name = check(c, type_name(type) + " Conv c" + std::to_string(k.c) + " k" + std::to_string(k.k));
      // A direct JIT or brgemm convolution, never oneDNN's reference or gemm-based one.
      EXPECT_TRUE(name.find(".dnnl:jit") != std::string::npos || name.find(".dnnl:brg") != std::string::npos) << name;
      // Without bfloat16 arithmetic a bfloat16 model computes in float32 (converted at
      // the kernel's boundary, as float16 is).
      if (type == DataType::kBFloat16 && native_bf16()) {
        EXPECT_NE(name.find("_bf16"), std::string::npos) << "oneDNN's bf16 isa: " << name;
      }
    }
  }
}

// The float16 <-> float32 conversions at a kernel's boundary split over its team: a
// FusedConv whose input, residual and output (43808 and 46208 elements, not whole lines
// of 16 per thread) convert in 1, 2 and 3 parts, each against the reference.
TEST(DnnlHalf, BoundaryConversionsSplitOverTheTeam) {
  Seeds seed{100};
  for (int threads : {1, 2, 3}) {
    HalfCase c("FusedConv", "ge", DataType::kFloat16);
    c.input(random_tensor({1, 32, 38, 38}, seed()))
        .constant(random_tensor({32, 32, 2, 2}, seed(), 0.3f))
        .constant(random_tensor({32}, seed()))
        .input(random_tensor({1, 32, 37, 37}, seed()))
        .output({1, 32, 37, 37})
        .attribute("activation", Attribute(std::string("Relu")));
    check(c, "float16 FusedConv at " + std::to_string(threads) + " threads", Options{threads});
  }
}

TEST(DnnlHalf, MatMulsAndGemms) {
  Seeds seed{100};
  for (DataType type : kHalfTypes) {
    {  // constant weights, the 1x1-convolution form
      HalfCase c("MatMul", "", type);
      c.input(random_tensor({2, 64, 96}, seed())).constant(random_tensor({96, 80}, seed(), 0.3f)).output({2, 64, 80});
      check(c, type_name(type) + " MatMul constant B");
    }
    {  // two activations (attention's batched product): a fast path exactly where float32
       // has one (oneDNN's brgemm, AVX-512; elsewhere the reference kernel is faster)
      const Tensor a = random_tensor({4, 32, 64}, seed()), b = random_tensor({4, 64, 32}, seed(), 0.3f);
      HalfCase f32("MatMul", "", DataType::kFloat32), c("MatMul", "", type);
      f32.input(a).input(b).output({4, 32, 32});
      c.input(a).input(b).output({4, 32, 32});
      if (prepare(f32.node(), "cpu", Options{1})) {
        check(c, type_name(type) + " MatMul of activations");
      } else {
        EXPECT_FALSE(prepare(c.node(), "cpu", Options{1})) << type_name(type) << " MatMul of activations";
      }
    }
    {  // bias and Gelu
      HalfCase c("FusedMatMul", "ge", type);
      c.input(random_tensor({64, 128}, seed()))
          .constant(random_tensor({128, 96}, seed(), 0.3f))
          .constant(random_tensor({96}, seed()))
          .output({64, 96});
      c.attribute("activation", Attribute(std::string("Gelu")));
      check(c, type_name(type) + " FusedMatMul");
    }
    for (bool trans_a : {false, true}) {
      HalfCase c("Gemm", "", type);
      c.input(random_tensor(trans_a ? std::vector<int64_t>{48, 16} : std::vector<int64_t>{16, 48}, seed()))
          .constant(random_tensor({40, 48}, seed(), 0.3f))
          .constant(random_tensor({40}, seed()))
          .output({16, 40});
      c.attribute("transA", Attribute(int64_t{trans_a})).attribute("transB", Attribute(int64_t{1}));
      check(c, type_name(type) + " Gemm transA=" + std::to_string(trans_a));
    }
  }
}

TEST(DnnlHalf, ConvTranspose) {
  Seeds seed{200};
  for (DataType type : kHalfTypes) {
    for (bool blocked : {false, true}) {
      HalfCase c("ConvTranspose", "", type);
      c.input(random_tensor({1, 16, 7, 7}, seed()), blocked ? "nChw16c" : "")
          .constant(random_tensor({16, 16, 3, 3}, seed(), 0.3f))
          .constant(random_tensor({16}, seed()))
          .output({1, 16, 14, 14}, blocked ? "nChw16c" : "");
      c.attribute("strides", Attribute(std::vector<int64_t>{2, 2}))
          .attribute("pads", Attribute(std::vector<int64_t>{1, 1, 1, 1}))
          .attribute("output_padding", Attribute(std::vector<int64_t>{1, 1}));
      check(c, type_name(type) + " ConvTranspose" + (blocked ? " blocked" : ""));
    }
  }
}

TEST(DnnlHalf, Pooling) {
  Seeds seed{300};
  for (DataType type : kHalfTypes) {
    for (const std::string op : {"MaxPool", "AveragePool", "GlobalAveragePool"}) {
      for (bool blocked : {false, true}) {
        const bool global = op == "GlobalAveragePool";
        HalfCase c(op, "", type);
        c.input(random_tensor({1, 32, 15, 15}, seed()), blocked ? "nChw16c" : "");
        c.output(global ? std::vector<int64_t>{1, 32, 1, 1} : std::vector<int64_t>{1, 32, 8, 8},
                 blocked && !global ? "nChw16c" : "");
        if (!global) {
          c.attribute("kernel_shape", Attribute(std::vector<int64_t>{3, 3}))
              .attribute("strides", Attribute(std::vector<int64_t>{2, 2}))
              .attribute("pads", Attribute(std::vector<int64_t>{1, 1, 1, 1}));
        }
        check(c, type_name(type) + " " + op + (blocked ? " blocked" : ""));
      }
    }
  }
}

// oneDNN's max pooling drops NaN; the host step that puts it back reads what the
// primitive read: the float32 copy of float16 data, bfloat16 as stored.
TEST(DnnlHalf, MaxPoolKeepsNaN) {
  for (DataType type : kHalfTypes) {
    Tensor x = random_tensor({1, 16, 6, 6}, 7);
    x.data<float>()[3 * 36 + 2 * 6 + 2] = std::numeric_limits<float>::quiet_NaN();  // channel 3, (2, 2)
    HalfCase c("MaxPool", "", type);
    c.input(x, "nChw16c").output({1, 16, 3, 3}, "nChw16c");
    c.attribute("kernel_shape", Attribute(std::vector<int64_t>{2, 2}))
        .attribute("strides", Attribute(std::vector<int64_t>{2, 2}));
    std::optional<PreparedKernel> fast = prepare(c.node(), "cpu", Options{1});
    ASSERT_TRUE(fast.has_value()) << type_name(type);
    const Tensor y = c.run(*fast);
    for (int64_t i = 0; i < y.element_count(); ++i) {
      EXPECT_EQ(std::isnan(y.data<float>()[i]), i == 3 * 9 + 1 * 3 + 1) << type_name(type) << " element " << i;
    }
  }
}

TEST(DnnlHalf, ResizeSoftmaxLayerNormConcatBinaryEltwise) {
  Seeds seed{400};
  for (DataType type : kHalfTypes) {
    for (const std::string mode : {"nearest", "linear"}) {
      HalfCase c("Resize", "", type);
      Tensor scales = Tensor::zeros(DataType::kFloat32, {4});
      std::vector<float> factors{1, 1, 2, 2};
      std::memcpy(scales.raw_data(), factors.data(), sizeof(float) * 4);
      c.input(random_tensor({1, 16, 9, 9}, seed()), "nChw16c")
          .none()
          .constant_as_is(scales)
          .output({1, 16, 18, 18}, "nChw16c");
      c.attribute("mode", Attribute(mode));
      check(c, type_name(type) + " Resize " + mode);
    }
  }
  for (DataType type : kHalfTypes) {
    HalfCase softmax("Softmax", "", type);
    softmax.input(random_tensor({64, 256}, seed(), 4.0f)).output({64, 256});
    check(softmax, type_name(type) + " Softmax");

    HalfCase norm("LayerNormalization", "", type);
    norm.input(random_tensor({32, 384}, seed(), 2.0f))
        .constant(random_tensor({384}, seed()))
        .constant(random_tensor({384}, seed()))
        .output({32, 384});
    check(norm, type_name(type) + " LayerNormalization");

    HalfCase concat("Concat", "", type);
    concat.input(random_tensor({1, 16, 8, 8}, seed()), "nChw16c")
        .input(random_tensor({1, 32, 8, 8}, seed()), "nChw16c")
        .output({1, 48, 8, 8}, "nChw16c");
    concat.attribute("axis", Attribute(int64_t{1}));
    const std::string concat_name = check(concat, type_name(type) + " Concat");
    EXPECT_EQ(concat_name.find(":ref"), std::string::npos) << concat_name;

    // In this CPU's block (oneDNN's AVX2 binary kernel takes nChw8c, not nChw16c).
    const std::string native = "nChw" + std::to_string(native_block()) + "c";
    HalfCase mul("Mul", "", type);
    mul.input(random_tensor({1, 32, 24, 24}, seed()), native)
        .input(random_tensor({1, 32, 1, 1}, seed()))
        .output({1, 32, 24, 24}, native);
    check(mul, type_name(type) + " per-channel Mul");

    HalfCase sigmoid("Sigmoid", "", type);
    sigmoid.input(random_tensor({1, 32, 32, 32}, seed(), 4.0f), "nChw16c").output({1, 32, 32, 32}, "nChw16c");
    check(sigmoid, type_name(type) + " Sigmoid");
  }
}

// A float16 Concat moves each element's 16 bits unchanged (as bfloat16 data): subnormals,
// signed zeros and NaN payloads included.
TEST(DnnlHalf, Float16ConcatKeepsEveryBitPattern) {
  Graph graph;
  graph.set_opset_import("", 17);
  Value* a = graph.add_input("a", TensorDesc::of(DataType::kFloat16, {1, 16, 4, 4}));
  Value* b = graph.add_input("b", TensorDesc::of(DataType::kFloat16, {1, 16, 4, 4}));
  a->mutable_desc().format = "nChw16c";
  b->mutable_desc().format = "nChw16c";
  Node* concat = graph.add_node("Concat", {a, b}, 1, "concat", {"y"});
  concat->set_attribute("axis", Attribute(int64_t{1}));
  TensorDesc y_desc = TensorDesc::of(DataType::kFloat16, {1, 32, 4, 4});
  y_desc.format = "nChw16c";
  concat->output(0)->set_desc(y_desc);
  graph.add_output(concat->output(0));
  std::optional<PreparedKernel> kernel = prepare(*concat, "cpu", Options{1});
  ASSERT_TRUE(kernel.has_value());
  // Every pattern from 0x0000 up (0x0001 the smallest subnormal, 0x7C01 a signalling NaN,
  // 0x8000 minus zero) across both inputs.
  std::vector<uint16_t> x(512), y(512, 0);
  for (size_t i = 0; i < x.size(); ++i) x[i] = static_cast<uint16_t>(i * 131 + (i % 7 == 0 ? 0x7C01 : 0));
  x[5] = 0x0001;
  x[300] = 0x8000;
  const void* inputs[] = {x.data(), x.data() + 256};
  void* outputs[] = {y.data()};
  std::vector<unsigned char> workspace(kernel->workspace_bytes + 1);
  KernelArgs args;
  args.inputs = inputs;
  args.outputs = outputs;
  args.workspace = workspace.data();
  args.params = kernel->params.get();
  ASSERT_EQ(kernel->function(args), 0);
  // nChw16c with 16 channels per input: each input is one whole block, so y is a then b.
  EXPECT_EQ(y, x) << kernel->name;
}

// The reference MatMul and Gemm take float16 and bfloat16 (computed in float32): a node no
// fast path takes still runs.
TEST(DnnlHalf, ReferenceMatMulAndGemmTakeHalfTypes) {
  Seeds seed{500};
  for (DataType type : kHalfTypes) {
    HalfCase matmul("MatMul", "", type);
    matmul.input(random_tensor({3, 5, 7}, seed())).input(random_tensor({7, 4}, seed())).output({3, 5, 4});
    HalfCase gemm("Gemm", "", type);
    gemm.input(random_tensor({6, 5}, seed()))
        .input(random_tensor({4, 5}, seed()))
        .input(random_tensor({1, 4}, seed()))
        .output({6, 4});
    gemm.attribute("transB", Attribute(int64_t{1}))
        .attribute("alpha", Attribute(0.5f))
        .attribute("beta", Attribute(2.0f));
    for (HalfCase* c : {&matmul, &gemm}) {
      Result<PreparedKernel> kernel = reference_kernels::prepare(c->node(), "cpu");
      ASSERT_TRUE(kernel.is_ok()) << type_name(type) << ": " << kernel.status().to_string();
      EXPECT_LE(worst_error(c->run(*kernel), c->run_reference()), tolerance(type)) << type_name(type);
    }
  }
}

// The precision mode: float32 Conv, ConvTranspose, MatMul and Gemm compute in bfloat16
// (".bf16" kernels, oneDNN's bf16 isa), float32 in and out, close to float32 but not equal.
TEST(DnnlPrecision, Bf16ModeRunsHeavyOpsInBfloat16) {
  // The backend refuses the mode on such a CPU (CpuBackend::set_precision; its warning and
  // the float32 run are tested in tests/e2e/precision_session_test.cc).
  if (!native_bf16()) GTEST_SKIP() << "no bfloat16 arithmetic on this CPU: the bf16 precision mode is refused here";
  Seeds seed{600};
  std::vector<std::unique_ptr<HalfCase>> cases;
  auto add = [&](std::string op, std::string domain) {
    cases.push_back(std::make_unique<HalfCase>(std::move(op), std::move(domain), DataType::kFloat32));
    return cases.back().get();
  };
  add("Conv", "")
      ->input(random_tensor({1, 64, 14, 14}, seed()), "nChw16c")
      .constant(random_tensor({64, 64, 3, 3}, seed(), 0.3f))
      .constant(random_tensor({64}, seed()))
      .output({1, 64, 14, 14}, "nChw16c")
      .attribute("pads", Attribute(std::vector<int64_t>{1, 1, 1, 1}));
  add("FusedConv", "ge")
      ->input(random_tensor({1, 32, 10, 10}, seed()))
      .constant(random_tensor({48, 32, 1, 1}, seed(), 0.3f))
      .constant(random_tensor({48}, seed()))
      .output({1, 48, 10, 10})
      .attribute("activation", Attribute(std::string("Relu")));
  add("FusedConv", "ge")  // with a residual: the binary post-op on the float32 output
      ->input(random_tensor({1, 32, 12, 12}, seed()), "nChw16c")
      .constant(random_tensor({32, 32, 3, 3}, seed(), 0.3f))
      .constant(random_tensor({32}, seed()))
      .input(random_tensor({1, 32, 12, 12}, seed()), "nChw16c")
      .output({1, 32, 12, 12}, "nChw16c")
      .attribute("pads", Attribute(std::vector<int64_t>{1, 1, 1, 1}))
      .attribute("activation", Attribute(std::string("Relu")));
  add("ConvTranspose", "")
      ->input(random_tensor({1, 16, 8, 8}, seed()))
      .constant(random_tensor({16, 16, 3, 3}, seed(), 0.3f))
      .output({1, 16, 10, 10});
  add("MatMul", "")
      ->input(random_tensor({128, 256}, seed()))
      .constant(random_tensor({256, 64}, seed(), 0.3f))
      .output({128, 64});
  add("MatMul", "")
      ->input(random_tensor({4, 32, 64}, seed()))
      .input(random_tensor({4, 64, 32}, seed(), 0.3f))
      .output({4, 32, 32});
  add("Gemm", "")
      ->input(random_tensor({32, 96}, seed()))
      .constant(random_tensor({64, 96}, seed(), 0.3f))
      .constant(random_tensor({64}, seed()))
      .output({32, 64})
      .attribute("transB", Attribute(int64_t{1}));
  const Options bf16{1, Precision::kBf16};
  for (const auto& c : cases) {
    const std::string what = c->node().op_type();
    ASSERT_TRUE(computes_in_bf16(c->node(), bf16)) << what;
    std::optional<PreparedKernel> fast = prepare(c->node(), "cpu", bf16);
    ASSERT_TRUE(fast.has_value()) << what;
    EXPECT_TRUE(fast->name.ends_with(".bf16")) << fast->name;
    EXPECT_NE(fast->name.find("_bf16"), std::string::npos) << "oneDNN's bf16 isa: " << fast->name;
    const Tensor result = c->run(*fast), reference = c->run_reference();
    const double error = worst_error(result, reference);
    EXPECT_LE(error, kPrecisionModeTolerance) << fast->name;
    EXPECT_GT(error, 1e-5) << fast->name << ": no bfloat16 rounding seen";
    // The same node under kFp32 stays float32 (no suffix) and matches float32 closely.
    std::optional<PreparedKernel> fp32 = prepare(c->node(), "cpu", Options{1});
    ASSERT_TRUE(fp32.has_value()) << what;
    EXPECT_EQ(fp32->name.find(".bf16"), std::string::npos) << fp32->name;
    EXPECT_LE(worst_error(c->run(*fp32), reference), 1e-4) << fp32->name;
  }
}

// kMixed's rule: a product of two activations, a heavy op writing a graph output and one
// reading a graph input (directly or through a layout reorder) stay float32; other heavy
// float32 ops run in bfloat16; nothing but the heavy ops does.
TEST(DnnlPrecision, MixedKeepsActivationProductsAndGraphOutputsInFloat32) {
  Graph graph;
  graph.set_opset_import("", 17);
  Value* x = graph.add_input("x", TensorDesc::of(DataType::kFloat32, {1, 16, 8, 8}));
  Value* w = graph.add_initializer("w", random_tensor({16, 16, 3, 3}, 1));
  Node* conv = graph.add_node("Conv", {x, w}, 1, "conv", {"c"});
  conv->output(0)->set_desc(TensorDesc::of(DataType::kFloat32, {1, 16, 6, 6}));
  Node* relu = graph.add_node("Relu", {conv->output(0)}, 1, "relu", {"r"});
  relu->output(0)->set_desc(TensorDesc::of(DataType::kFloat32, {1, 16, 6, 6}));
  Node* inner = graph.add_node("Conv", {relu->output(0), w}, 1, "inner", {"i"});
  inner->output(0)->set_desc(TensorDesc::of(DataType::kFloat32, {1, 16, 4, 4}));
  Node* reorder = graph.add_node("TransData", {x}, 1, "reorder", {"xb"}, "ge");
  reorder->output(0)->set_desc(TensorDesc::of(DataType::kFloat32, {1, 16, 8, 8}));
  reorder->output(0)->mutable_desc().format = "nChw16c";
  Node* blocked = graph.add_node("Conv", {reorder->output(0), w}, 1, "blocked", {"b"});
  blocked->output(0)->set_desc(TensorDesc::of(DataType::kFloat32, {1, 16, 6, 6}));
  Value* q = graph.add_input("q", TensorDesc::of(DataType::kFloat32, {4, 8, 16}));
  Value* k = graph.add_input("k", TensorDesc::of(DataType::kFloat32, {4, 16, 8}));
  Node* scores = graph.add_node("MatMul", {q, k}, 1, "scores", {"s"});
  scores->output(0)->set_desc(TensorDesc::of(DataType::kFloat32, {4, 8, 8}));
  Value* weights = graph.add_initializer("proj", random_tensor({8, 8}, 2));
  Node* projection = graph.add_node("MatMul", {scores->output(0), weights}, 1, "projection", {"p"});
  projection->output(0)->set_desc(TensorDesc::of(DataType::kFloat32, {4, 8, 8}));
  Node* head = graph.add_node("MatMul", {projection->output(0), weights}, 1, "head", {"h"});
  head->output(0)->set_desc(TensorDesc::of(DataType::kFloat32, {4, 8, 8}));
  graph.add_output(relu->output(0));
  graph.add_output(head->output(0));
  Value* xh = graph.add_input("xh", TensorDesc::of(DataType::kFloat16, {1, 16, 8, 8}));
  Value* wh = graph.add_initializer("wh", to_type(random_tensor({16, 16, 3, 3}, 3), DataType::kFloat16));
  Node* half_conv = graph.add_node("Conv", {xh, wh}, 1, "half_conv", {"hc"});
  half_conv->output(0)->set_desc(TensorDesc::of(DataType::kFloat16, {1, 16, 6, 6}));

  const Options fp32{1, Precision::kFp32}, bf16{1, Precision::kBf16}, mixed{1, Precision::kMixed};
  EXPECT_FALSE(computes_in_bf16(*conv, mixed)) << "reads a graph input";
  EXPECT_FALSE(computes_in_bf16(*blocked, mixed)) << "reads a graph input through a reorder";
  EXPECT_TRUE(computes_in_bf16(*inner, mixed));
  EXPECT_FALSE(computes_in_bf16(*scores, mixed)) << "a product of two activations";
  EXPECT_TRUE(computes_in_bf16(*projection, mixed));
  EXPECT_FALSE(computes_in_bf16(*head, mixed)) << "writes a graph output";
  for (Node* node : {conv, inner, blocked, scores, projection, head}) {
    EXPECT_TRUE(computes_in_bf16(*node, bf16)) << node->name();
    EXPECT_FALSE(computes_in_bf16(*node, fp32)) << node->name();
  }
  EXPECT_FALSE(computes_in_bf16(*relu, bf16)) << "not a heavy op";
  EXPECT_FALSE(computes_in_bf16(*half_conv, bf16)) << "float16 tensors keep their own type";
  // The kernels follow the rule where the mode runs (CpuBackend::set_precision refuses it
  // without bfloat16 arithmetic; Bf16ModeRunsHeavyOpsInBfloat16 says so when skipped).
  if (!native_bf16()) return;
  std::optional<PreparedKernel> scores_kernel = prepare(*scores, "cpu", mixed);
  ASSERT_TRUE(scores_kernel.has_value());
  EXPECT_EQ(scores_kernel->name.find(".bf16"), std::string::npos) << scores_kernel->name;
  std::optional<PreparedKernel> conv_kernel = prepare(*conv, "cpu", mixed);
  ASSERT_TRUE(conv_kernel.has_value());
  EXPECT_FALSE(conv_kernel->name.ends_with(".bf16")) << conv_kernel->name;
  std::optional<PreparedKernel> inner_kernel = prepare(*inner, "cpu", mixed);
  ASSERT_TRUE(inner_kernel.has_value());
  EXPECT_TRUE(inner_kernel->name.ends_with(".bf16")) << inner_kernel->name;
}

// Half-precision convolutions offer the native channel blocks as float32 ones do.
TEST(DnnlHalf, ConvolutionsOfferBlockedFormats) {
  for (DataType type : kHalfTypes) {
    HalfCase c("Conv", "", type);
    c.input(random_tensor({1, 32, 8, 8}, 1)).constant(random_tensor({32, 32, 3, 3}, 2)).output({1, 32, 6, 6});
    const FormatCapability capability = format_capability(c.node());
    ASSERT_EQ(capability.inputs.size(), 2u) << type_name(type);
    const std::string block = "nChw" + std::to_string(native_block()) + "c";
    EXPECT_EQ(capability.inputs[0], std::vector<std::string>{block}) << type_name(type);
    EXPECT_EQ(capability.outputs, std::vector<std::vector<std::string>>{{block}}) << type_name(type);
  }
}

}  // namespace
}  // namespace ge::cpu_dnnl
