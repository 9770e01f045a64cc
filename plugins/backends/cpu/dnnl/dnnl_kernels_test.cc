// Every fast path (oneDNN's, and the Winograd convolution the dispatcher tries first)
// against the reference kernel over a sweep of shapes, attributes and storage formats. Tolerance: |fast - reference| <=
// 1e-4 * (1 + |reference|) (float32 sums of up to a few thousand products reassociated by oneDNN's blocking).

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "dnnl_fast_paths.h"
#include "dnnl_kernels.h"
#include "dnnl_program.h"
#include "ge/graph.h"
#include "ge/reference_kernels/kernel_library.h"
#include "ge/tensor.h"
#include "winograd_conv.h"

namespace ge::cpu_dnnl {
namespace {

constexpr double kTolerance = 1e-4;

Tensor random_tensor(std::vector<int64_t> dims, uint32_t seed, float scale = 1.0f) {
  Tensor t = Tensor::zeros(DataType::kFloat32, dims);
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> dist(-scale, scale);
  for (int64_t i = 0; i < t.element_count(); ++i) t.data<float>()[i] = dist(rng);
  return t;
}

// Plain <-> channel-blocked reorders through the reference ge::TransData kernel's layout.
Tensor to_format(const Tensor& plain, int64_t block, bool to_blocked) {
  Tensor out = Tensor::zeros(DataType::kFloat32, plain.shape());
  const auto& d = plain.shape();
  const int64_t c = d[1], hw = d[2] * d[3];
  for (int64_t n = 0; n < d[0]; ++n) {
    for (int64_t ch = 0; ch < c; ++ch) {
      for (int64_t s = 0; s < hw; ++s) {
        const int64_t p = (n * c + ch) * hw + s;
        const int64_t b = n * c * hw + ((ch / block) * hw + s) * block + ch % block;
        out.data<float>()[to_blocked ? b : p] = plain.data<float>()[to_blocked ? p : b];
      }
    }
  }
  return out;
}

// One node in its own graph; runs either kernel on the same inputs.
class NodeCase {
 public:
  void set_opset(int64_t opset) { graph_.set_opset_import("", opset); }
  NodeCase(std::string op, std::string domain = "") {
    graph_.set_opset_import("", 17);
    op_ = std::move(op);
    domain_ = std::move(domain);
  }
  NodeCase& input(Tensor t, std::string format = "") {
    Value* v = graph_.add_input("x" + std::to_string(values_.size()), TensorDesc::of(t.dtype(), t.shape()));
    v->mutable_desc().format = format;
    values_.push_back(v);
    data_.push_back(std::move(t));
    return *this;
  }
  NodeCase& constant(Tensor t) {
    values_.push_back(graph_.add_initializer("w" + std::to_string(values_.size()), t));
    data_.push_back(std::move(t));
    return *this;
  }
  NodeCase& none() {  // an omitted optional input
    values_.push_back(nullptr);
    data_.emplace_back();
    return *this;
  }
  NodeCase& output(std::vector<int64_t> dims, std::string format = "") {
    output_dims_ = std::move(dims);
    output_format_ = std::move(format);
    return *this;
  }
  NodeCase& attribute(const std::string& name, Attribute value) {
    attributes_.emplace_back(name, std::move(value));
    return *this;
  }
  Node& node() {
    if (node_ != nullptr) return *node_;
    node_ = graph_.add_node(op_, values_, 1, "n", {"y"});
    node_->set_domain(domain_);
    for (const auto& [name, value] : attributes_) node_->set_attribute(name, value);
    TensorDesc desc = TensorDesc::of(DataType::kFloat32, output_dims_);
    desc.format = output_format_;
    node_->output(0)->set_desc(desc);
    graph_.add_output(node_->output(0));
    return *node_;
  }
  // Runs `kernel` on the inputs given with their formats; returns the output as stored.
  Tensor run(const PreparedKernel& kernel, const std::vector<Tensor>& inputs) {
    std::vector<const void*> in;
    for (const Tensor& t : inputs) in.push_back(t.raw_data());
    Tensor out = Tensor::zeros(DataType::kFloat32, output_dims_);
    std::memset(out.raw_data(), 0xFF, out.byte_size());
    void* outputs[] = {out.raw_data()};
    std::unique_ptr<unsigned char[]> workspace(new unsigned char[kernel.workspace_bytes + 1]);
    std::memset(workspace.get(), 0xFF, kernel.workspace_bytes + 1);  // NaNs: padding a kernel reads must be written
    KernelArgs args;
    args.inputs = in.data();
    args.outputs = outputs;
    args.workspace = workspace.get();
    args.params = kernel.params.get();
    EXPECT_EQ(kernel.function(args), 0) << kernel.name;
    return out;
  }
  const std::vector<Tensor>& data() const { return data_; }
  std::vector<Value*>& values() { return values_; }

 private:
  Graph graph_;
  std::string op_, domain_;
  std::vector<Value*> values_;
  std::vector<Tensor> data_;
  std::vector<int64_t> output_dims_;
  std::string output_format_;
  std::vector<std::pair<std::string, Attribute>> attributes_;
  Node* node_ = nullptr;
};

void expect_close(const Tensor& fast, const Tensor& reference, const std::string& what) {
  ASSERT_EQ(fast.shape(), reference.shape()) << what;
  int failures = 0;
  for (int64_t i = 0; i < reference.element_count() && failures < 5; ++i) {
    const double r = reference.data<float>()[i], f = fast.data<float>()[i];
    if (!(std::fabs(f - r) <= kTolerance * (1 + std::fabs(r)))) {
      ADD_FAILURE() << what << ": element " << i << " fast " << f << " reference " << r;
      ++failures;
    }
  }
}

// Prepares the fast path (must take the node) and the reference kernel on the plain node
// and compares; when `block` > 0 also runs the fast path with input 0 (and input 3, the
// residual) and the output in the blocked format.
void check(NodeCase& plain, const std::string& what, int64_t block = 0, NodeCase* blocked = nullptr) {
  Result<PreparedKernel> reference = reference_kernels::prepare(plain.node(), "cpu");
  ASSERT_TRUE(reference.is_ok()) << what << ": " << reference.status().to_string();
  std::optional<PreparedKernel> fast = prepare(plain.node(), "cpu", Options{1});
  ASSERT_TRUE(fast.has_value()) << what << ": no fast path";
  EXPECT_NE(fast->name.find(".dnnl:"), std::string::npos) << fast->name;
  const Tensor expected = plain.run(*reference, plain.data());
  expect_close(plain.run(*fast, plain.data()), expected, what + " (" + fast->name + ")");
  if (blocked == nullptr) return;
  std::optional<PreparedKernel> fast_blocked = prepare(blocked->node(), "cpu", Options{2});
  ASSERT_TRUE(fast_blocked.has_value()) << what << ": no blocked fast path";
  std::vector<Tensor> inputs = blocked->data();
  for (size_t i = 0; i < inputs.size(); ++i) {
    if (blocked->values()[i] != nullptr && !blocked->values()[i]->desc().is_plain()) inputs[i] = to_format(inputs[i], block, true);
  }
  Tensor stored = blocked->run(*fast_blocked, inputs);
  if (!blocked->node().output(0)->desc().is_plain()) stored = to_format(stored, block, false);
  expect_close(stored, expected, what + " blocked (" + fast_blocked->name + ")");
}

struct ConvCase {
  int64_t n, c, h, w, m, k, stride, pad, group, dilation;
};

TEST(DnnlConv, MatchesReferenceOverShapesAndFormats) {
  const ConvCase cases[] = {
      {1, 3, 17, 19, 16, 7, 2, 3, 1, 1},    // first layer: 3 channels
      {2, 16, 9, 9, 32, 3, 1, 1, 1, 1},     // 3x3, batch 2
      {1, 32, 8, 8, 16, 1, 1, 0, 1, 1},     // pointwise
      {1, 32, 10, 10, 32, 3, 2, 1, 32, 1},  // depthwise, strided
      {1, 16, 11, 11, 16, 3, 1, 2, 1, 2},   // dilated
      {1, 8, 7, 7, 12, 3, 1, 1, 4, 1},      // grouped, odd channels
      {1, 24, 6, 6, 40, 5, 1, 2, 1, 1},     // channels not a multiple of 16
      {2, 24, 7, 7, 40, 3, 1, 1, 1, 1},     // the same, batch 2 (the padded reorders whole)
  };
  uint32_t seed = 1;
  for (const ConvCase& k : cases) {
    const int64_t out_h = (k.h + 2 * k.pad - k.dilation * (k.k - 1) - 1) / k.stride + 1;
    const int64_t out_w = (k.w + 2 * k.pad - k.dilation * (k.k - 1) - 1) / k.stride + 1;
    const std::string what = "Conv c" + std::to_string(k.c) + " m" + std::to_string(k.m) + " k" +
                             std::to_string(k.k) + " g" + std::to_string(k.group);
    const Tensor x = random_tensor({k.n, k.c, k.h, k.w}, seed++);
    const Tensor w = random_tensor({k.m, k.c / k.group, k.k, k.k}, seed++, 0.3f);
    const Tensor b = random_tensor({k.m}, seed++);
    for (const std::string& activation : {std::string(), std::string("Relu"), std::string("HardSwish"),
                                          std::string("Clip"), std::string("HardSigmoid"), std::string("Swish")}) {
      auto make = [&](bool use_blocked) {
        auto c = std::make_unique<NodeCase>(activation.empty() ? "Conv" : "FusedConv", activation.empty() ? "" : "ge");
        const bool in_blocked = use_blocked && k.c % 16 == 0, out_blocked = use_blocked && k.m % 16 == 0;
        c->input(x, in_blocked ? "nChw16c" : "").constant(w).constant(b);
        c->output({k.n, k.m, out_h, out_w}, out_blocked ? "nChw16c" : "");
        c->attribute("strides", Attribute(std::vector<int64_t>{k.stride, k.stride}))
            .attribute("pads", Attribute(std::vector<int64_t>{k.pad, k.pad, k.pad, k.pad}))
            .attribute("dilations", Attribute(std::vector<int64_t>{k.dilation, k.dilation}))
            .attribute("group", Attribute(k.group));
        if (!activation.empty()) {
          c->attribute("activation", Attribute(activation));
          if (activation == "Clip") c->attribute("activation_params", Attribute(std::vector<float>{-0.5f, 0.75f}));
        }
        return c;
      };
      auto plain = make(false);
      auto blocked = make(true);
      check(*plain, what + " " + activation, 16, blocked.get());
    }
  }
}

// Where oneDNN has a direct JIT convolution on the stored layouts (on AVX-512: a plain
// first-layer input into the blocked output, blocked into blocked), the kernel runs it with
// no reorder around the launch, and agrees with the reference: strides 1 and 2, 3 and 4
// input channels, odd extents, a residual-free FusedConv with Relu. Other CPUs (nChw8c)
// check the results only.
TEST(DnnlConv, StoredLayoutsRunDirectlyAndMatchReference) {
  const int64_t block = native_block();
  const std::string format = "nChw" + std::to_string(block) + "c";
  struct Case {
    int64_t c, h, w, m, stride;
    bool in_blocked;
  };
  const Case cases[] = {{3, 64, 64, 32, 2, false}, {3, 23, 17, 16, 1, false}, {4, 31, 29, 48, 2, false},
                        {32, 32, 32, 64, 2, true}, {16, 15, 13, 32, 1, true}};
  uint32_t seed = 40;
  for (const Case& k : cases) {
    const int64_t out_h = (k.h + 2 - 3) / k.stride + 1, out_w = (k.w + 2 - 3) / k.stride + 1;
    const Tensor x = random_tensor({1, k.c, k.h, k.w}, seed++);
    const Tensor w = random_tensor({k.m, k.c, 3, 3}, seed++, 0.3f);
    const Tensor b = random_tensor({k.m}, seed++);
    const std::string what = "Conv c" + std::to_string(k.c) + " " + std::to_string(k.h) + "x" + std::to_string(k.w) +
                             " m" + std::to_string(k.m) + " stride " + std::to_string(k.stride);
    auto make = [&](bool blocked) {
      auto c = std::make_unique<NodeCase>("FusedConv", "ge");
      c->input(x, blocked && k.in_blocked ? format : "").constant(w).constant(b);
      c->output({1, k.m, out_h, out_w}, blocked ? format : "");
      c->attribute("strides", Attribute(std::vector<int64_t>{k.stride, k.stride}))
          .attribute("pads", Attribute(std::vector<int64_t>{1, 1, 1, 1}))
          .attribute("activation", Attribute(std::string("Relu")));
      return c;
    };
    auto plain = make(false);
    auto blocked = make(true);
    std::optional<PreparedKernel> direct = prepare(blocked->node(), "cpu", Options{1});
    ASSERT_TRUE(direct.has_value()) << what;
    if (block == 16) {
      EXPECT_NE(direct->name.find(".dnnl:jit"), std::string::npos) << what << ": " << direct->name;
    }
    check(*plain, what, block, blocked.get());
  }
}

// Plain values whose channels fill no whole block (24, 72: layout assignment leaves them
// plain) run a direct JIT kernel on the native blocks, padded, with reorders around it:
// not oneDNN's own pick (nhwc), whose reorder from nchw is a slow transposition.
TEST(DnnlConv, PlainValuesRunOnNativeBlocks) {
  struct Case {
    int64_t c, m, k, stride, group;
    const char* kernel;  // on AVX-512
  };
  const Case cases[] = {{72, 72, 3, 1, 72, "jit_dw"}, {72, 72, 5, 2, 72, "jit_dw"}, {24, 72, 1, 1, 1, "jit_1x1"}};
  uint32_t seed = 300;
  for (const Case& k : cases) {
    const int64_t h = 19, pad = k.k / 2, out = (h + 2 * pad - k.k) / k.stride + 1;
    NodeCase c("Conv");
    c.input(random_tensor({1, k.c, h, h}, seed++)).constant(random_tensor({k.m, k.c / k.group, k.k, k.k}, seed++, 0.3f));
    c.constant(random_tensor({k.m}, seed++)).output({1, k.m, out, out});
    c.attribute("strides", Attribute(std::vector<int64_t>{k.stride, k.stride}))
        .attribute("pads", Attribute(std::vector<int64_t>{pad, pad, pad, pad}))
        .attribute("group", Attribute(k.group));
    const std::string what = "Conv c" + std::to_string(k.c) + " m" + std::to_string(k.m) + " k" + std::to_string(k.k);
    check(c, what);
    if (native_block() != 16) continue;
    std::optional<PreparedKernel> fast = prepare(c.node(), "cpu", Options{1});
    ASSERT_TRUE(fast.has_value()) << what;
    EXPECT_NE(fast->name.find(std::string(".dnnl:") + k.kernel + ":"), std::string::npos) << what << ": " << fast->name;
  }
}

// 1-D and 3-D convolutions keep their oneDNN path too (only 2-D ones try the blocks).
TEST(DnnlConv, OneAndThreeDimensionalConvolutionsRunOnOneDnn) {
  uint32_t seed = 320;
  for (const std::vector<int64_t>& spatial : {std::vector<int64_t>{21}, std::vector<int64_t>{7, 6, 9}}) {
    std::vector<int64_t> x_dims{1, 24}, w_dims{32, 24}, y_dims{1, 32}, pads;
    for (int64_t extent : spatial) {
      x_dims.push_back(extent);
      w_dims.push_back(3);
      y_dims.push_back(extent);
    }
    pads.assign(2 * spatial.size(), 1);
    NodeCase c("Conv");
    c.input(random_tensor(x_dims, seed++)).constant(random_tensor(w_dims, seed++, 0.3f));
    c.constant(random_tensor({32}, seed++)).output(y_dims).attribute("pads", Attribute(pads));
    check(c, "Conv " + std::to_string(spatial.size()) + "-D");
  }
}

TEST(DnnlConv, ResidualPostOpMatchesAddThenActivation) {
  const Tensor x = random_tensor({1, 32, 8, 8}, 7), w = random_tensor({32, 32, 3, 3}, 8, 0.2f),
               b = random_tensor({32}, 9), z = random_tensor({1, 32, 8, 8}, 10);
  auto make = [&](std::string format) {
    auto c = std::make_unique<NodeCase>("FusedConv", "ge");
    c->input(x, format).constant(w).constant(b).input(z, format).output({1, 32, 8, 8}, format);
    c->attribute("pads", Attribute(std::vector<int64_t>{1, 1, 1, 1})).attribute("activation", Attribute(std::string("Relu")));
    return c;
  };
  auto plain = make("");
  // The reference FusedConv has no residual input: compute conv+bias, then add and Relu.
  NodeCase conv("Conv");
  conv.input(x).constant(w).constant(b).output({1, 32, 8, 8});
  conv.attribute("pads", Attribute(std::vector<int64_t>{1, 1, 1, 1}));
  Result<PreparedKernel> reference = reference_kernels::prepare(conv.node(), "cpu");
  ASSERT_TRUE(reference.is_ok()) << reference.status().to_string();
  Tensor expected = conv.run(*reference, conv.data());
  for (int64_t i = 0; i < expected.element_count(); ++i) {
    float& v = expected.data<float>()[i];
    v = std::max(0.0f, v + z.data<float>()[i]);
  }
  std::optional<PreparedKernel> fast = prepare(plain->node(), "cpu", Options{1});
  ASSERT_TRUE(fast.has_value());
  expect_close(plain->run(*fast, plain->data()), expected, "residual plain");
  auto blocked = make("nChw16c");
  std::optional<PreparedKernel> fast_blocked = prepare(blocked->node(), "cpu", Options{1});
  ASSERT_TRUE(fast_blocked.has_value());
  std::vector<Tensor> inputs = blocked->data();
  inputs[0] = to_format(inputs[0], 16, true);
  inputs[3] = to_format(inputs[3], 16, true);
  expect_close(to_format(blocked->run(*fast_blocked, inputs), 16, false), expected, "residual blocked");
}

// The Winograd F(4x4, 3x3) path takes 3x3 stride-1 convolutions stored nChw8c: odd
// extents (partial tiles), asymmetric and zero pads, output channels not a multiple of
// its 16-wide GEMM, a batch, two threads, a residual and each activation it applies, all
// against the reference Conv (+ residual, activation computed here).
TEST(WinogradConv, MatchesReferenceOverShapesPadsAndActivations) {
  struct Case {
    int64_t n, c, h, w, m;
    std::vector<int64_t> pads;
    int threads;
  };
  const Case cases[] = {
      {1, 16, 16, 16, 16, {1, 1, 1, 1}, 1},  // whole tiles
      {2, 24, 13, 11, 40, {1, 1, 1, 1}, 2},  // partial tiles, m % 16 == 8, batch, two threads
      {1, 32, 18, 19, 16, {0, 0, 0, 0}, 1},  // no padding: output 16x17
      {1, 16, 13, 14, 32, {2, 0, 1, 2}, 2},  // asymmetric pads
      {1, 64, 30, 30, 24, {1, 1, 1, 1}, 2},  // several batches of tiles per thread
      {1, 128, 26, 26, 128, {1, 1, 1, 1}, 1},  // weights past the caches: one batch of all tiles
  };
  const std::pair<std::string, std::vector<float>> activations[] = {
      {"", {}}, {"Relu", {}}, {"LeakyRelu", {0.1f}}, {"Clip", {-0.5f, 0.75f}}};
  uint32_t seed = 100;
  for (const Case& k : cases) {
    const int64_t out_h = k.h + k.pads[0] + k.pads[2] - 2, out_w = k.w + k.pads[1] + k.pads[3] - 2;
    const Tensor x = random_tensor({k.n, k.c, k.h, k.w}, seed++);
    const Tensor w = random_tensor({k.m, k.c, 3, 3}, seed++, 0.3f);
    const Tensor b = random_tensor({k.m}, seed++);
    const Tensor z = random_tensor({k.n, k.m, out_h, out_w}, seed++);
    NodeCase conv("Conv");
    conv.input(x).constant(w).constant(b).output({k.n, k.m, out_h, out_w}).attribute("pads", Attribute(k.pads));
    Result<PreparedKernel> reference = reference_kernels::prepare(conv.node(), "cpu");
    ASSERT_TRUE(reference.is_ok()) << reference.status().to_string();
    const Tensor convolved = conv.run(*reference, conv.data());
    for (const auto& [activation, params] : activations) {
      for (const bool residual : {false, true}) {
        if (residual && activation.empty()) continue;  // a residual comes with ge::FusedConv
        const std::string what = "Winograd c" + std::to_string(k.c) + " m" + std::to_string(k.m) + " " +
                                 std::to_string(k.h) + "x" + std::to_string(k.w) + " " + activation +
                                 (residual ? " residual" : "");
        NodeCase c(activation.empty() ? "Conv" : "FusedConv", activation.empty() ? "" : "ge");
        c.input(x, "nChw8c").constant(w).constant(b);
        if (residual) c.input(z, "nChw8c");
        c.output({k.n, k.m, out_h, out_w}, "nChw8c").attribute("pads", Attribute(k.pads));
        if (!activation.empty()) c.attribute("activation", Attribute(activation));
        if (!params.empty()) c.attribute("activation_params", Attribute(params));
        std::optional<PreparedKernel> fast = prepare(c.node(), "cpu", Options{k.threads});
        ASSERT_TRUE(fast.has_value()) << what;
        EXPECT_NE(fast->name.find(".winograd_f4x4_3x3:"), std::string::npos) << what << ": " << fast->name;
        Tensor expected = Tensor::zeros(DataType::kFloat32, convolved.shape());
        for (int64_t i = 0; i < expected.element_count(); ++i) {
          float v = convolved.data<float>()[i] + (residual ? z.data<float>()[i] : 0.0f);
          if (activation == "Relu") v = std::max(v, 0.0f);
          if (activation == "LeakyRelu" && v < 0) v *= params[0];
          if (activation == "Clip") v = std::min(std::max(v, params[0]), params[1]);
          expected.data<float>()[i] = v;
        }
        std::vector<Tensor> inputs = c.data();
        inputs[0] = to_format(inputs[0], 8, true);
        if (residual) inputs[3] = to_format(inputs[3], 8, true);
        expect_close(to_format(c.run(*fast, inputs), 8, false), expected, what);
      }
    }
  }
}

// Kernels of one filter share its transform (4x the filter's bytes); it goes with the last.
TEST(WinogradConv, KernelsOfOneFilterShareItsTransform) {
  const size_t before = cpu_winograd::transformed_filters();
  NodeCase c("Conv");
  c.input(random_tensor({1, 16, 16, 16}, 3), "nChw8c").constant(random_tensor({16, 16, 3, 3}, 4));
  c.output({1, 16, 16, 16}, "nChw8c").attribute("pads", Attribute(std::vector<int64_t>{1, 1, 1, 1}));
  std::optional<PreparedKernel> first = prepare(c.node(), "cpu", Options{1});
  std::optional<PreparedKernel> second = prepare(c.node(), "cpu", Options{2});
  ASSERT_TRUE(first.has_value() && second.has_value());
  ASSERT_NE(first->name.find("winograd"), std::string::npos) << first->name;
  EXPECT_EQ(cpu_winograd::transformed_filters(), before + 1);
  first.reset();
  EXPECT_EQ(cpu_winograd::transformed_filters(), before + 1);
  second.reset();
  EXPECT_EQ(cpu_winograd::transformed_filters(), before);
}

// Where the Winograd path does not apply the convolution still has a fast path (oneDNN):
// a stride of 2, a dilation, groups, fewer than 16 channels, an activation it does not
// apply, a plain layout, an image of fewer than 12 output tiles.
TEST(WinogradConv, LeavesOtherConvolutionsToOneDnn) {
  struct Case {
    std::string what;
    int64_t c, m, group;
    std::vector<int64_t> strides, dilations;
    std::string format, activation;
    int64_t size = 16;  // input height and width
  };
  const Case cases[] = {
      {"stride 2", 16, 16, 1, {2, 2}, {1, 1}, "nChw8c", ""},
      {"dilation 2", 16, 16, 1, {1, 1}, {2, 2}, "nChw8c", ""},
      {"grouped", 16, 16, 2, {1, 1}, {1, 1}, "nChw8c", ""},
      {"8 channels", 8, 16, 1, {1, 1}, {1, 1}, "nChw8c", ""},
      {"HardSwish", 16, 16, 1, {1, 1}, {1, 1}, "nChw8c", "HardSwish"},
      {"plain", 16, 16, 1, {1, 1}, {1, 1}, "", ""},
      {"small image", 16, 16, 1, {1, 1}, {1, 1}, "nChw8c", "", 12},
  };
  for (const Case& k : cases) {
    const int64_t out = (k.size + 2 - k.dilations[0] * 2 - 1) / k.strides[0] + 1;
    NodeCase c(k.activation.empty() ? "Conv" : "FusedConv", k.activation.empty() ? "" : "ge");
    c.input(random_tensor({1, k.c, k.size, k.size}, 5), k.format).constant(random_tensor({k.m, k.c / k.group, 3, 3}, 6));
    c.output({1, k.m, out, out}, k.format)
        .attribute("pads", Attribute(std::vector<int64_t>{1, 1, 1, 1}))
        .attribute("strides", Attribute(k.strides))
        .attribute("dilations", Attribute(k.dilations))
        .attribute("group", Attribute(k.group));
    if (!k.activation.empty()) c.attribute("activation", Attribute(k.activation));
    std::optional<PreparedKernel> fast = prepare(c.node(), "cpu", Options{1});
    ASSERT_TRUE(fast.has_value()) << k.what;
    EXPECT_EQ(fast->name.find("winograd"), std::string::npos) << k.what << ": " << fast->name;
  }
}

// On AVX-512 3x3 stride-1 convolutions with enough channels run oneDNN's Winograd kernels:
// with a bias, Relu, a residual (its `sum` post-op over a copy of Z in Y, over Z itself
// when the plan puts Y on Z's bytes, or over Z reordered into the workspace when Y is not
// stored nChw16c), 24 output channels (padded in the blocks), against the reference Conv
// (+ residual, Relu computed here). `winograd = false` and 16 -> 16 channels keep the
// direct kernel.
TEST(DnnlWinogradConv, MatchesReferenceWithResidualInPlaceAndOut) {
  if (!__builtin_cpu_supports("avx512f")) GTEST_SKIP() << "oneDNN's Winograd kernels need AVX-512";
  struct Case {
    int64_t n, c, h, w, m;
    int threads;
    std::string x_format = "nChw16c", y_format = "nChw16c";  // Y's is Z's too
  };
  const Case cases[] = {{1, 32, 16, 16, 32, 1},           {2, 64, 13, 11, 32, 2},
                        {1, 128, 7, 7, 256, 1},           {1, 64, 28, 28, 64, 2},
                        {1, 96, 20, 20, 24, 1, "nChw16c", ""}, {1, 24, 12, 12, 48, 1, "", ""}};
  auto stored = [](const Tensor& plain, const std::string& format) {
    return format.empty() ? plain : to_format(plain, 16, true);
  };
  auto unstored = [](const Tensor& t, const std::string& format) {
    return format.empty() ? t : to_format(t, 16, false);
  };
  uint32_t seed = 500;
  for (const Case& k : cases) {
    const Tensor x = random_tensor({k.n, k.c, k.h, k.w}, seed++);
    const Tensor w = random_tensor({k.m, k.c, 3, 3}, seed++, 0.1f);
    const Tensor b = random_tensor({k.m}, seed++);
    const Tensor z = random_tensor({k.n, k.m, k.h, k.w}, seed++);
    const std::vector<int64_t> pads{1, 1, 1, 1};
    NodeCase conv("Conv");
    conv.input(x).constant(w).constant(b).output({k.n, k.m, k.h, k.w}).attribute("pads", Attribute(pads));
    Result<PreparedKernel> reference = reference_kernels::prepare(conv.node(), "cpu");
    ASSERT_TRUE(reference.is_ok()) << reference.status().to_string();
    const Tensor convolved = conv.run(*reference, conv.data());
    for (const bool residual : {false, true}) {
      const std::string what = "oneDNN Winograd c" + std::to_string(k.c) + " m" + std::to_string(k.m) + " " +
                               std::to_string(k.h) + "x" + std::to_string(k.w) + (residual ? " residual" : "");
      NodeCase c("FusedConv", "ge");
      c.input(x, k.x_format).constant(w).constant(b);
      if (residual) c.input(z, k.y_format);
      c.output({k.n, k.m, k.h, k.w}, k.y_format).attribute("pads", Attribute(pads)).attribute("activation",
                                                                                          Attribute("Relu"));
      std::optional<PreparedKernel> fast = prepare(c.node(), "cpu", Options{k.threads});
      ASSERT_TRUE(fast.has_value()) << what;
      EXPECT_NE(fast->name.find("wino"), std::string::npos) << what << ": " << fast->name;
      Tensor expected = Tensor::zeros(DataType::kFloat32, convolved.shape());
      for (int64_t i = 0; i < expected.element_count(); ++i) {
        expected.data<float>()[i] = std::max(0.0f, convolved.data<float>()[i] + (residual ? z.data<float>()[i] : 0.0f));
      }
      std::vector<Tensor> inputs = c.data();
      inputs[0] = stored(inputs[0], k.x_format);
      if (residual) inputs[3] = stored(inputs[3], k.y_format);
      expect_close(unstored(c.run(*fast, inputs), k.y_format), expected, what);
      if (!residual) continue;
      // In place: Y's bytes are Z's (the copy before the convolution is skipped).
      Tensor shared = inputs[3].clone();
      std::vector<const void*> in;
      for (const Tensor& t : inputs) in.push_back(t.raw_data());
      in[3] = shared.raw_data();
      void* outputs[] = {shared.raw_data()};
      std::unique_ptr<unsigned char[]> workspace(new unsigned char[fast->workspace_bytes + 1]);
      KernelArgs args;
      args.inputs = in.data();
      args.outputs = outputs;
      args.workspace = workspace.get();
      args.params = fast->params.get();
      ASSERT_EQ(fast->function(args), 0) << what;
      expect_close(unstored(shared, k.y_format), expected, what + " in place");
    }
  }
  NodeCase narrow("Conv");
  narrow.input(random_tensor({1, 16, 16, 16}, 7), "nChw16c").constant(random_tensor({16, 16, 3, 3}, 8));
  narrow.output({1, 16, 16, 16}, "nChw16c").attribute("pads", Attribute(std::vector<int64_t>{1, 1, 1, 1}));
  std::optional<PreparedKernel> direct = prepare(narrow.node(), "cpu", Options{1});
  ASSERT_TRUE(direct.has_value());
  EXPECT_EQ(direct->name.find("wino"), std::string::npos) << direct->name;
  NodeCase wide("Conv");
  wide.input(random_tensor({1, 32, 16, 16}, 9), "nChw16c").constant(random_tensor({32, 32, 3, 3}, 10));
  wide.output({1, 32, 16, 16}, "nChw16c").attribute("pads", Attribute(std::vector<int64_t>{1, 1, 1, 1}));
  Options no_winograd{1};
  no_winograd.winograd = false;  // the backend's `winograd = false` setting
  std::optional<PreparedKernel> off = prepare(wide.node(), "cpu", no_winograd);
  ASSERT_TRUE(off.has_value());
  EXPECT_EQ(off->name.find("wino"), std::string::npos) << off->name;
}

// An activation oneDNN's Winograd does not take as a post-op (Swish, Gelu) runs after it,
// in place on what it wrote: the kernel stays Winograd and agrees with the reference
// FusedConv, with and without a residual, on blocked and plain outputs.
TEST(DnnlWinogradConv, ActivationsItRefusesRunAfterIt) {
  if (!__builtin_cpu_supports("avx512f")) GTEST_SKIP() << "oneDNN's Winograd kernels need AVX-512";
  const Tensor x = random_tensor({1, 32, 14, 14}, 600);
  const Tensor w = random_tensor({48, 32, 3, 3}, 601, 0.1f);
  const Tensor b = random_tensor({48}, 602);
  const Tensor z = random_tensor({1, 48, 14, 14}, 603);
  for (const std::string activation : {"Swish", "Gelu", "HardSigmoid"}) {
    for (const std::string format : {"nChw16c", ""}) {
      for (const bool residual : {false, true}) {
        const std::string what = "Winograd + " + activation + (residual ? " residual " : " ") + format;
        auto make = [&](bool stored) {
          auto c = std::make_unique<NodeCase>("FusedConv", "ge");
          c->input(x, stored ? format : "").constant(w).constant(b);
          if (residual) c->input(z, stored ? format : "");
          c->output({1, 48, 14, 14}, stored ? format : "")
              .attribute("pads", Attribute(std::vector<int64_t>{1, 1, 1, 1}))
              .attribute("activation", Attribute(activation));
          if (activation == "Gelu") c->attribute("activation_params", Attribute(std::vector<float>{0.f}));
          if (activation == "HardSigmoid") {
            c->attribute("activation_params", Attribute(std::vector<float>{0.2f, 0.5f}));
          }
          return c;
        };
        auto plain = make(false);
        auto stored = make(true);
        std::optional<PreparedKernel> fast = prepare(stored->node(), "cpu", Options{1});
        ASSERT_TRUE(fast.has_value()) << what;
        EXPECT_NE(fast->name.find("wino"), std::string::npos) << what << ": " << fast->name;
        check(*plain, what, 16, stored.get());
      }
    }
  }
}

TEST(DnnlMatMul, MatchesReference) {
  struct Case {
    std::vector<int64_t> a, b, y;
    bool constant_b;
  };
  const Case cases[] = {{{128, 768}, {768, 64}, {128, 64}, true},
                        {{1, 128, 768}, {768, 768}, {1, 128, 768}, true},
                        {{12, 128, 64}, {1, 64, 128}, {12, 128, 128}, true},
                        {{2, 3, 5, 7}, {7, 4}, {2, 3, 5, 4}, true},
                        {{3, 1, 5, 7}, {2, 7, 6}, {3, 2, 5, 6}, true},
                        {{512}, {512, 16}, {16}, true},  // a pooled row: A is a vector
                        {{7}, {7, 5}, {5}, true}};
  uint32_t seed = 100;
  for (const Case& k : cases) {
    for (bool fused : {false, true}) {
      if (!k.constant_b && fused) continue;
      NodeCase c(fused ? "FusedMatMul" : "MatMul", fused ? "ge" : "");
      c.input(random_tensor(k.a, seed++));
      if (k.constant_b)
        c.constant(random_tensor(k.b, seed++, 0.2f));
      else
        c.input(random_tensor(k.b, seed++, 0.2f));
      if (fused) {
        c.constant(random_tensor({k.y.back()}, seed++));
        // Relu, and Gelu (erf) as the encoder's FFN fuses it.
        const bool gelu = seed % 2 == 0;
        c.attribute("activation", Attribute(std::string(gelu ? "Gelu" : "Relu")));
        if (gelu) c.attribute("activation_params", Attribute(std::vector<float>{0.f}));
      }
      c.output(k.y);
      check(c, std::string(fused ? "FusedMatMul " : "MatMul ") + std::to_string(k.a.size()) + "-D");
    }
  }
}

// Products of two activations (attention's QK^T and PV) run oneDNN's brgemm matmul on
// AVX-512, broadcast batch dims included; elsewhere the reference kernel keeps them.
TEST(DnnlMatMul, ActivationProductsRunBrgemmOnAvx512) {
  struct Case {
    std::vector<int64_t> a, b, y;
  };
  const Case cases[] = {{{1, 12, 32, 16}, {1, 12, 16, 32}, {1, 12, 32, 32}},
                        {{2, 3, 5, 7}, {2, 3, 7, 4}, {2, 3, 5, 4}},
                        {{3, 1, 5, 7}, {1, 2, 7, 6}, {3, 2, 5, 6}}};
  uint32_t seed = 700;
  for (const Case& k : cases) {
    NodeCase c("MatMul");
    c.input(random_tensor(k.a, seed++)).input(random_tensor(k.b, seed++)).output(k.y);
    std::optional<PreparedKernel> fast = prepare(c.node(), "cpu", Options{1});
    const std::string what = "MatMul of activations " + std::to_string(k.a.size()) + "-D";
    if (native_block() != 16) {
      EXPECT_FALSE(fast.has_value() && fast->name.find(".dnnl:brg") == std::string::npos) << what;
      continue;
    }
    ASSERT_TRUE(fast.has_value()) << what;
    EXPECT_NE(fast->name.find(".dnnl:brg"), std::string::npos) << what << ": " << fast->name;
    check(c, what);
  }
}

// A transient plan (a signature that may not come back: a decode step's new cache
// length) leaves a small op with nothing to prepack to the reference kernel, which runs
// it in less time than creating its primitive takes; a large product, or one of a
// constant operand, still gets oneDNN's kernel.
TEST(DnnlMatMul, TransientPlansLeaveSmallActivationProductsToTheReferenceKernel) {
  Options transient{1};
  transient.transient = true;
  NodeCase scores("MatMul");  // one query over 80 keys, 8 heads: 82 kFLOP
  scores.input(random_tensor({1, 8, 1, 64}, 801)).input(random_tensor({1, 8, 64, 80}, 802)).output({1, 8, 1, 80});
  EXPECT_FALSE(prepare(scores.node(), "cpu", transient).has_value());
  NodeCase softmax("Softmax");
  softmax.input(random_tensor({1, 8, 1, 80}, 803)).output({1, 8, 1, 80}).attribute("axis", Attribute(int64_t{-1}));
  EXPECT_FALSE(prepare(softmax.node(), "cpu", transient).has_value());
  EXPECT_TRUE(prepare(softmax.node(), "cpu", Options{1}).has_value()) << "oneDNN's softmax, when not transient";
  NodeCase dense("MatMul");  // a constant B is prepacked whatever the plan
  dense.input(random_tensor({1, 1, 64}, 804)).constant(random_tensor({64, 32}, 805)).output({1, 1, 32});
  EXPECT_TRUE(prepare(dense.node(), "cpu", transient).has_value());
  if (native_block() != 16) return;  // activation products run oneDNN on AVX-512 only
  EXPECT_TRUE(prepare(scores.node(), "cpu", Options{1}).has_value());
  NodeCase attention("MatMul");  // BERT-base's QK^T: 25 MFLOP
  attention.input(random_tensor({1, 12, 128, 64}, 806)).input(random_tensor({1, 12, 64, 128}, 807)).output({1, 12, 128, 128});
  std::optional<PreparedKernel> large = prepare(attention.node(), "cpu", transient);
  ASSERT_TRUE(large.has_value());
  EXPECT_NE(large->name.find(".dnnl:brg"), std::string::npos) << large->name;
}

// A transient plan still runs convolutions and pools on oneDNN, however small: their
// reference loops are far slower than creating a primitive (ResNet-18's stem MaxPool at
// 160x192 took 5.3 ms there, 0.13 ms on oneDNN's jit kernel); and a Softmax of more than
// a few thousand elements (about 20 ns an element on the reference kernel). A Winograd convolution
// runs Winograd only where another kernel already made its weight transform (a compiled
// signature's): a transient plan makes none, and takes the direct kernel instead.
TEST(DnnlTransientPlans, KeepPoolsOnOneDnnAndShareWinogradTransformsOnly) {
  Options transient{1};
  transient.transient = true;
  NodeCase pool("MaxPool");  // 55 kFLOP of work, under the transient threshold
  pool.input(random_tensor({1, 16, 24, 24}, 811)).output({1, 16, 12, 12});
  pool.attribute("kernel_shape", Attribute(std::vector<int64_t>{3, 3}));
  pool.attribute("strides", Attribute(std::vector<int64_t>{2, 2}));
  pool.attribute("pads", Attribute(std::vector<int64_t>{1, 1, 1, 1}));
  std::optional<PreparedKernel> pooled = prepare(pool.node(), "cpu", transient);
  ASSERT_TRUE(pooled.has_value());
  EXPECT_NE(pooled->name.find(".dnnl:"), std::string::npos) << pooled->name;
  check(pool, "transient MaxPool");
  NodeCase scores("Softmax");  // attention scores of 12 heads over 100 tokens: 120000 exponentials
  scores.input(random_tensor({1, 12, 100, 100}, 814))
      .output({1, 12, 100, 100})
      .attribute("axis", Attribute(int64_t{-1}));
  std::optional<PreparedKernel> softmax = prepare(scores.node(), "cpu", transient);
  ASSERT_TRUE(softmax.has_value());
  EXPECT_NE(softmax->name.find(".dnnl:"), std::string::npos) << softmax->name;
  if (!__builtin_cpu_supports("avx512f")) return;  // oneDNN's Winograd kernels need AVX-512
  const Tensor w = random_tensor({64, 64, 3, 3}, 812, 0.1f);
  auto conv_at = [&](int64_t size) {
    auto c = std::make_unique<NodeCase>("Conv");
    c->input(random_tensor({1, 64, size, size}, 813), "nChw16c").constant(w).output({1, 64, size, size}, "nChw16c");
    c->attribute("pads", Attribute(std::vector<int64_t>{1, 1, 1, 1}));
    return c;
  };
  std::unique_ptr<NodeCase> first = conv_at(20);
  std::optional<PreparedKernel> direct = prepare(first->node(), "cpu", transient);
  ASSERT_TRUE(direct.has_value());
  EXPECT_EQ(direct->name.find("wino"), std::string::npos) << "no transform exists yet: " << direct->name;
  std::optional<PreparedKernel> compiled = prepare(first->node(), "cpu", Options{1});
  ASSERT_TRUE(compiled.has_value());
  ASSERT_NE(compiled->name.find("wino"), std::string::npos) << compiled->name;
  // While the compiled kernel holds the transform, a transient plan of the same shape
  // (and of any shape whose Winograd blocking is the same) shares it.
  std::optional<PreparedKernel> shared = prepare(first->node(), "cpu", transient);
  ASSERT_TRUE(shared.has_value());
  EXPECT_NE(shared->name.find("wino"), std::string::npos) << shared->name;
  compiled.reset();
  shared.reset();
  std::optional<PreparedKernel> again = prepare(first->node(), "cpu", transient);
  ASSERT_TRUE(again.has_value());
  EXPECT_EQ(again->name.find("wino"), std::string::npos) << "the transform went with its kernels: " << again->name;
}

TEST(DnnlGemm, MatchesReferenceWithTransposes) {
  uint32_t seed = 200;
  for (int trans_a : {0, 1}) {
    for (int trans_b : {0, 1}) {
      NodeCase c("Gemm");
      c.input(random_tensor(trans_a ? std::vector<int64_t>{64, 3} : std::vector<int64_t>{3, 64}, seed++));
      c.constant(random_tensor(trans_b ? std::vector<int64_t>{10, 64} : std::vector<int64_t>{64, 10}, seed++));
      c.constant(random_tensor({10}, seed++));
      c.attribute("transA", Attribute(int64_t{trans_a})).attribute("transB", Attribute(int64_t{trans_b}));
      c.output({3, 10});
      check(c, "Gemm transA=" + std::to_string(trans_a) + " transB=" + std::to_string(trans_b));
    }
  }
}

TEST(DnnlPool, MatchesReferenceOverShapesAndFormats) {
  struct Case {
    std::string op;
    int64_t k, stride, pad, ceil, include_pad;
  };
  const Case cases[] = {{"MaxPool", 3, 2, 1, 0, 0},     {"MaxPool", 3, 2, 0, 1, 0},
                        {"AveragePool", 3, 1, 1, 0, 0}, {"AveragePool", 3, 1, 1, 0, 1},
                        {"AveragePool", 2, 2, 0, 1, 0}, {"GlobalAveragePool", 0, 0, 0, 0, 0},
                        {"GlobalMaxPool", 0, 0, 0, 0, 0}};
  uint32_t seed = 300;
  for (const Case& k : cases) {
    const Tensor x = random_tensor({2, 32, 9, 9}, seed++);
    const bool global = k.op.rfind("Global", 0) == 0;
    int64_t out = 1;
    if (!global) {
      const int64_t span = 9 + 2 * k.pad - k.k;
      out = (k.ceil ? (span + k.stride - 1) / k.stride : span / k.stride) + 1;
    }
    auto make = [&](std::string format) {
      auto c = std::make_unique<NodeCase>(k.op);
      c->input(x, format).output({2, 32, out, out}, global ? "" : format);
      if (!global) {
        c->attribute("kernel_shape", Attribute(std::vector<int64_t>{k.k, k.k}))
            .attribute("strides", Attribute(std::vector<int64_t>{k.stride, k.stride}))
            .attribute("pads", Attribute(std::vector<int64_t>{k.pad, k.pad, k.pad, k.pad}))
            .attribute("ceil_mode", Attribute(k.ceil));
        if (k.op == "AveragePool") c->attribute("count_include_pad", Attribute(k.include_pad));
      }
      return c;
    };
    auto plain = make("");
    auto blocked = make("nChw16c");
    if (global) {
      // Global pools write a plain [N, C, 1, 1]: compare without the output reorder.
      check(*plain, k.op);
      std::optional<PreparedKernel> fast = prepare(blocked->node(), "cpu", Options{1});
      ASSERT_TRUE(fast.has_value());
      std::vector<Tensor> inputs{to_format(x, 16, true)};
      expect_close(blocked->run(*fast, inputs), plain->run(reference_kernels::prepare(plain->node(), "cpu").value(), {x}),
                   k.op + " blocked input");
    } else {
      check(*plain, k.op + " k" + std::to_string(k.k) + " ceil" + std::to_string(k.ceil), 16, blocked.get());
    }
  }
}

// oneDNN's max pooling drops NaN ([nan, 1, 2] gives 2); the fast path puts it back: a
// window holding a NaN is NaN, as in the reference kernel, numpy and PyTorch. NaNs in
// the first and the second channel block, at a corner, inside and at the far edge.
// Plain 5-D pools (S3D's, video models') run oneDNN's jit kernel in channel blocks behind
// reorders, not its plain loop; so does a window a few taps wider than the input (S3D's
// 3x3x3 MaxPool over 2 frames), and both match the reference kernel.
TEST(DnnlPool, PlainFiveDimensionalPoolsAndWindowsPastTheInputRunTheJitKernel) {
  struct Case {
    std::string op;
    std::vector<int64_t> x, kernel, strides, pads, y;
  };
  const Case cases[] = {
      {"MaxPool", {1, 16, 4, 9, 9}, {1, 3, 3}, {1, 2, 2}, {0, 1, 1, 0, 1, 1}, {1, 16, 4, 5, 5}},
      {"MaxPool", {1, 24, 2, 5, 5}, {3, 3, 3}, {1, 1, 1}, {1, 1, 1, 1, 1, 1}, {1, 24, 2, 5, 5}},
      {"AveragePool", {2, 8, 3, 6, 6}, {2, 2, 2}, {1, 2, 2}, {0, 0, 0, 0, 0, 0}, {2, 8, 2, 3, 3}},
      {"MaxPool", {1, 8, 2, 2}, {3, 3}, {1, 1}, {1, 1, 1, 1}, {1, 8, 2, 2}}};
  uint32_t seed = 330;
  for (const Case& k : cases) {
    NodeCase c(k.op);
    c.input(random_tensor(k.x, seed++)).output(k.y);
    c.attribute("kernel_shape", Attribute(k.kernel)).attribute("strides", Attribute(k.strides));
    c.attribute("pads", Attribute(k.pads));
    const std::string what = k.op + " " + std::to_string(k.x.size()) + "-D kernel " + std::to_string(k.kernel[0]);
    std::optional<PreparedKernel> fast = prepare(c.node(), "cpu", Options{1});
    ASSERT_TRUE(fast.has_value()) << what;
    EXPECT_NE(fast->name.find(".dnnl:jit"), std::string::npos) << what << ": " << fast->name;
    check(c, what);
  }
}

TEST(DnnlPool, MaxPoolsPropagateNaNInEveryFormat) {
  Tensor x = random_tensor({1, 32, 9, 9}, 350);
  for (int64_t at : std::vector<int64_t>{0, (5 * 9 + 4) * 9 + 4, (17 * 9 + 8) * 9 + 8, (31 * 9 + 2) * 9 + 7}) {
    x.data<float>()[at] = std::nanf("");
  }
  auto compare = [](const Tensor& fast, const Tensor& reference, const std::string& what) {
    ASSERT_EQ(fast.shape(), reference.shape()) << what;
    int nans = 0;
    for (int64_t i = 0; i < reference.element_count(); ++i) {
      const float r = reference.data<float>()[i], f = fast.data<float>()[i];
      nans += std::isnan(r) ? 1 : 0;
      if (std::isnan(r) != std::isnan(f) || (!std::isnan(r) && f != r)) {
        ADD_FAILURE() << what << ": element " << i << " fast " << f << " reference " << r;
        return;
      }
    }
    EXPECT_GT(nans, 0) << what;
  };
  for (const std::string op : {"MaxPool", "GlobalMaxPool"}) {
    const bool global = op == "GlobalMaxPool";
    const int64_t out = global ? 1 : 5;
    for (const std::string format : {"", "nChw16c", "nChw8c"}) {
      NodeCase c(op);
      c.input(format.empty() ? x : to_format(x, format == "nChw8c" ? 8 : 16, true), format)
          .output({1, 32, out, out}, global ? "" : format);
      if (!global) {
        c.attribute("kernel_shape", Attribute(std::vector<int64_t>{3, 3}))
            .attribute("strides", Attribute(std::vector<int64_t>{2, 2}))
            .attribute("pads", Attribute(std::vector<int64_t>{1, 1, 1, 1}));
      }
      std::optional<PreparedKernel> fast = prepare(c.node(), "cpu", Options{1});
      ASSERT_TRUE(fast.has_value()) << op << " " << format;
      ASSERT_NE(fast->name.find(".dnnl:"), std::string::npos) << fast->name;
      NodeCase plain(op);
      plain.input(x).output({1, 32, out, out});
      for (const auto& [name, value] : c.node().attributes()) plain.attribute(name, value);
      const Tensor expected = plain.run(reference_kernels::prepare(plain.node(), "cpu").value(), {x});
      Tensor stored = c.run(*fast, {c.data()[0]});
      if (!global && !format.empty()) stored = to_format(stored, format == "nChw8c" ? 8 : 16, false);
      compare(stored, expected, op + " " + (format.empty() ? "plain" : format) + " (" + fast->name + ")");
    }
  }
}

TEST(DnnlConvTranspose, MatchesReference) {
  struct Case {
    int64_t c, m, k, stride, pad, output_padding, group;
    const char* activation;  // "": ConvTranspose, else ge::FusedConvTranspose with it
  };
  // The first four (kernel == stride, no pads) run as a 1x1 convolution and a
  // depth-to-space reorder.
  const Case cases[] = {{16, 8, 2, 2, 0, 0, 1, ""},         {24, 1, 2, 2, 0, 0, 1, "Sigmoid"},
                        {24, 16, 2, 2, 0, 0, 1, "Relu"},    {8, 8, 3, 3, 0, 0, 1, ""},
                        {8, 16, 4, 2, 1, 0, 1, ""},         {16, 16, 3, 2, 1, 1, 1, "Relu"},
                        {8, 8, 3, 1, 1, 0, 2, ""}};
  uint32_t seed = 400;
  for (const Case& k : cases) {
    const int64_t h = 7;
    const int64_t out = (h - 1) * k.stride - 2 * k.pad + k.k + k.output_padding;
    auto make = [&](std::string in_format, std::string out_format) {
      const bool fused = std::string(k.activation).empty() == false;
      auto c = std::make_unique<NodeCase>(fused ? "FusedConvTranspose" : "ConvTranspose", fused ? "ge" : "");
      c->input(random_tensor({1, k.c, h, h}, seed), in_format)
          .constant(random_tensor({k.c, k.m / k.group, k.k, k.k}, seed + 1, 0.3f))
          .constant(random_tensor({k.m}, seed + 2));
      c->output({1, k.m, out, out}, out_format);
      c->attribute("strides", Attribute(std::vector<int64_t>{k.stride, k.stride}))
          .attribute("pads", Attribute(std::vector<int64_t>{k.pad, k.pad, k.pad, k.pad}))
          .attribute("output_padding", Attribute(std::vector<int64_t>{k.output_padding, k.output_padding}))
          .attribute("group", Attribute(k.group));
      if (fused) c->attribute("activation", Attribute(std::string(k.activation)));
      return c;
    };
    const std::string what = std::string("ConvTranspose k") + std::to_string(k.k) + " s" + std::to_string(k.stride) +
                             " " + k.activation;
    // Every pairing of plain and blocked source and output the shapes allow.
    for (int pairing = 0; pairing < 3; ++pairing) {
      const std::string in_format = pairing != 1 && k.c % 8 == 0 ? "nChw8c" : "";
      const std::string out_format = pairing != 2 && k.m % 8 == 0 ? "nChw8c" : "";
      auto plain = make("", "");
      auto blocked = make(in_format, out_format);
      check(*plain, what + " " + in_format + "->" + out_format, 8, blocked.get());
      if (k.k == k.stride && k.pad == 0) {
        std::optional<PreparedKernel> fast = prepare(blocked->node(), "cpu", Options{1});
        ASSERT_TRUE(fast.has_value());
        EXPECT_NE(fast->name.find("depth_to_space"), std::string::npos) << fast->name;
      }
    }
    seed += 3;
  }
}

TEST(DnnlBinary, PerChannelOperandsMatchReference) {
  struct Case {
    std::string op;
    bool channel_first;  // the per-channel operand is input 0
    int64_t n, c, h;
  };
  // Channels a multiple of 16, so that the native block (8 or 16) divides them: oneDNN
  // has only a reference binary for the other block on some CPUs (nChw8c with AVX-512).
  const Case cases[] = {{"Mul", false, 1, 16, 40}, {"Mul", true, 1, 32, 40}, {"Add", false, 2, 16, 33},
                        {"Sub", false, 1, 16, 64}, {"Div", false, 1, 16, 40}};
  const int64_t block = native_block();
  const std::string blocked_format = "nChw" + std::to_string(block) + "c";
  uint32_t seed = 700;
  for (const Case& k : cases) {
    auto make = [&](const std::string& format, int64_t scale_n) {
      auto c = std::make_unique<NodeCase>(k.op);
      Tensor x = random_tensor({k.n, k.c, k.h, k.h}, seed);
      Tensor scale = random_tensor({scale_n, k.c, 1, 1}, seed + 1);
      if (k.op == "Div") {
        for (int64_t i = 0; i < scale.element_count(); ++i) scale.data<float>()[i] += 2.0f;
      }
      if (k.channel_first) {
        c->input(scale).input(x, format);
      } else {
        c->input(x, format).input(scale);
      }
      c->output({k.n, k.c, k.h, k.h}, format);
      return c;
    };
    for (int64_t scale_n : {int64_t{1}, k.n}) {
      auto plain = make("", scale_n);
      auto blocked = make(blocked_format, scale_n);
      check(*plain, k.op + " per channel", block, blocked.get());
    }
    seed += 2;
  }
  // Sub and Div with the per-channel operand first are not oneDNN's src0/src1 order.
  NodeCase reversed("Sub");
  reversed.input(random_tensor({1, 8, 32, 32}, 1)).input(random_tensor({1, 8, 32, 32}, 2));
  reversed.output({1, 8, 32, 32});
  EXPECT_FALSE(prepare(reversed.node(), "cpu", Options{1}).has_value()) << "same-shape Sub is the reference's";
  NodeCase first("Div");
  first.input(random_tensor({1, 8, 1, 1}, 1)).input(random_tensor({1, 8, 32, 32}, 2));
  first.output({1, 8, 32, 32});
  EXPECT_FALSE(prepare(first.node(), "cpu", Options{1}).has_value());
}

TEST(DnnlConcat, BlockedInputsMatchReference) {
  auto channels = [](const std::string& format) {
    auto c = std::make_unique<NodeCase>("Concat");
    c->input(random_tensor({1, 8, 6, 5}, 800), format)
        .input(random_tensor({1, 16, 6, 5}, 801), format)
        .input(random_tensor({1, 8, 6, 5}, 802), format);
    c->attribute("axis", Attribute(int64_t{1})).output({1, 32, 6, 5}, format);
    return c;
  };
  {
    auto plain = channels("");
    auto blocked = channels("nChw8c");
    // Plain Concat stays on the reference kernel (and the planner's in-place slices).
    EXPECT_FALSE(prepare(plain->node(), "cpu", Options{1}).has_value());
    std::optional<PreparedKernel> fast = prepare(blocked->node(), "cpu", Options{1});
    ASSERT_TRUE(fast.has_value());
    std::vector<Tensor> inputs = blocked->data();
    for (Tensor& t : inputs) t = to_format(t, 8, true);
    const Tensor expected = plain->run(reference_kernels::prepare(plain->node(), "cpu").value(), plain->data());
    expect_close(to_format(blocked->run(*fast, inputs), 8, false), expected, "Concat axis 1 blocked");
  }
  auto spatial = [](const std::string& format) {
    auto c = std::make_unique<NodeCase>("Concat");
    c->input(random_tensor({2, 16, 3, 5}, 803), format).input(random_tensor({2, 16, 4, 5}, 804), format);
    c->attribute("axis", Attribute(int64_t{2})).output({2, 16, 7, 5}, format);
    return c;
  };
  auto plain = spatial("");
  auto blocked = spatial("nChw8c");
  std::optional<PreparedKernel> fast = prepare(blocked->node(), "cpu", Options{1});
  ASSERT_TRUE(fast.has_value());
  std::vector<Tensor> inputs = blocked->data();
  for (Tensor& t : inputs) t = to_format(t, 8, true);
  const Tensor expected = plain->run(reference_kernels::prepare(plain->node(), "cpu").value(), plain->data());
  expect_close(to_format(blocked->run(*fast, inputs), 8, false), expected, "Concat axis 2 blocked");
}

TEST(DnnlResize, MatchesReferenceWhereTheSemanticsAgree) {
  struct Case {
    std::string mode, coordinates, rounding;
    float scale;
  };
  const Case cases[] = {{"nearest", "asymmetric", "floor", 2},        {"nearest", "half_pixel", "round_prefer_floor", 2},
                        {"nearest", "half_pixel", "round_prefer_ceil", 3}, {"nearest", "asymmetric", "round_prefer_floor", 2}, {"linear", "half_pixel", "", 2},
                        {"linear", "half_pixel", "", 1.5f}};
  uint32_t seed = 500;
  for (const Case& k : cases) {
    const int64_t out = static_cast<int64_t>(6 * k.scale);
    auto make = [&](std::string format) {
      auto c = std::make_unique<NodeCase>("Resize");
      c->input(random_tensor({1, 16, 6, 6}, seed), format).none();
      c->constant(Tensor::from_vector<float>({4}, {1, 1, k.scale, k.scale}));
      c->output({1, 16, out, out}, format);
      c->attribute("mode", Attribute(k.mode)).attribute("coordinate_transformation_mode", Attribute(k.coordinates));
      if (!k.rounding.empty()) c->attribute("nearest_mode", Attribute(k.rounding));
      return c;
    };
    ++seed;
    auto plain = make("");
    auto blocked = make("nChw8c");
    check(*plain, "Resize " + k.mode + " " + k.coordinates + " " + k.rounding, 8, blocked.get());
  }
  NodeCase floor_half_pixel("Resize");  // floor of (x + 0.5) / 2 - 0.5 is not replication
  floor_half_pixel.input(random_tensor({1, 4, 3, 3}, 1)).none().constant(Tensor::from_vector<float>({4}, {1, 1, 2, 2}));
  floor_half_pixel.output({1, 4, 6, 6}).attribute("nearest_mode", Attribute("floor"));
  EXPECT_FALSE(prepare(floor_half_pixel.node(), "cpu", Options{1}).has_value());
  NodeCase linear_down("Resize");  // oneDNN's linear downscaling is not ONNX's
  linear_down.input(random_tensor({1, 4, 5, 5}, 1)).none().constant(Tensor::from_vector<float>({4}, {1, 1, 0.6f, 0.6f}));
  linear_down.output({1, 4, 3, 3}).attribute("mode", Attribute("linear"));
  EXPECT_FALSE(prepare(linear_down.node(), "cpu", Options{1}).has_value());
  NodeCase ceil_asymmetric("Resize");  // round(x / 3) of x = 2 is 1, not 0
  ceil_asymmetric.input(random_tensor({1, 4, 3, 3}, 1)).none().constant(Tensor::from_vector<float>({4}, {1, 1, 3, 3}));
  ceil_asymmetric.output({1, 4, 9, 9}).attribute("coordinate_transformation_mode", Attribute("asymmetric"));
  EXPECT_FALSE(prepare(ceil_asymmetric.node(), "cpu", Options{1}).has_value());
}

TEST(DnnlSoftmaxGelu, MatchReference) {
  for (int64_t opset : {11, 13}) {
    for (int64_t axis : {1, -1}) {
      NodeCase c("Softmax");
      c.set_opset(opset);
      c.input(random_tensor({2, 3, 5, 7}, 600, 4.0f)).output({2, 3, 5, 7}).attribute("axis", Attribute(axis));
      check(c, "Softmax opset " + std::to_string(opset) + " axis " + std::to_string(axis));
    }
  }
  for (const char* approximate : {"none", "tanh"}) {
    NodeCase c("Gelu", "ge");
    c.input(random_tensor({4, 4200}, 601, 5.0f)).output({4, 4200}).attribute("approximate", Attribute(approximate));
    check(c, std::string("Gelu ") + approximate);
  }
}

TEST(DnnlLayerNorm, MatchesReference) {
  for (int64_t axis : {-1, 1}) {
    for (bool with_bias : {true, false}) {
      NodeCase c("LayerNormalization");
      const std::vector<int64_t> inner = axis == -1 ? std::vector<int64_t>{48} : std::vector<int64_t>{6, 48};
      c.input(random_tensor({2, 6, 48}, 800, 3.0f)).constant(random_tensor(inner, 801));
      if (with_bias) c.constant(random_tensor(inner, 802));
      c.output({2, 6, 48}).attribute("axis", Attribute(axis)).attribute("epsilon", Attribute(1e-3f));
      check(c, "LayerNormalization axis " + std::to_string(axis) + (with_bias ? " with B" : ""));
    }
  }
}

TEST(DnnlEltwise, UnaryActivationsMatchReferenceInEveryFormat) {
  uint32_t seed = 700;
  for (const char* op : {"Sigmoid", "Tanh", "Exp", "HardSwish", "Softplus", "Elu", "LeakyRelu"}) {
    auto make = [&](std::string format) {
      auto c = std::make_unique<NodeCase>(op);
      c->input(random_tensor({1, 16, 32, 40}, seed, 4.0f), format).output({1, 16, 32, 40}, format);
      if (std::string(op) == "Elu" || std::string(op) == "LeakyRelu") c->attribute("alpha", Attribute(0.3f));
      return c;
    };
    auto plain = make("");
    auto blocked = make("nChw8c");
    check(*plain, op, 8, blocked.get());
    ++seed;
  }
  // ge::HardSwish, what fuse_hard_swish writes, runs the same primitive.
  NodeCase fused("HardSwish", "ge");
  fused.input(random_tensor({1, 16, 32, 40}, seed, 4.0f)).output({1, 16, 32, 40});
  check(fused, "ge::HardSwish");
  NodeCase small("Sigmoid");  // below 16K elements the reference loop runs it
  small.input(random_tensor({4, 33}, 1)).output({4, 33});
  EXPECT_FALSE(prepare(small.node(), "cpu", Options{1}).has_value());
}

TEST(DnnlFormats, ConvolutionsPreferTheNativeBlock) {
  NodeCase c("Conv");
  c.input(random_tensor({1, 32, 8, 8}, 1)).constant(random_tensor({48, 32, 1, 1}, 2)).output({1, 48, 8, 8});
  FormatCapability capability = format_capability(c.node());
  ASSERT_EQ(capability.inputs.size(), 2u);
  ASSERT_EQ(capability.inputs[0].size(), 1u);
  EXPECT_TRUE(capability.inputs[0][0] == "nChw16c" || capability.inputs[0][0] == "nChw8c");
  ASSERT_EQ(capability.outputs.size(), 1u);
  EXPECT_EQ(capability.outputs[0].size(), 1u);  // 48 channels: a multiple of 8 and 16
  NodeCase odd("Conv");
  odd.input(random_tensor({1, 3, 8, 8}, 1)).constant(random_tensor({20, 3, 1, 1}, 2)).output({1, 20, 8, 8});
  capability = format_capability(odd.node());
  EXPECT_TRUE(capability.inputs[0].empty());   // 3 channels stay plain
  EXPECT_TRUE(capability.outputs[0].empty());  // 20 channels: no unpadded block
}

TEST(DnnlFallback, DeclinesWhatItCannotRun) {
  NodeCase non_constant("Conv");
  non_constant.input(random_tensor({1, 4, 5, 5}, 1)).input(random_tensor({4, 4, 3, 3}, 2)).output({1, 4, 3, 3});
  EXPECT_FALSE(prepare(non_constant.node(), "cpu", Options{1}).has_value());
  NodeCase activations("MatMul");  // two activations: brgemm only (AVX-512), else the reference kernel
  activations.input(random_tensor({12, 128, 64}, 1)).input(random_tensor({12, 64, 128}, 2)).output({12, 128, 128});
  std::optional<PreparedKernel> product = prepare(activations.node(), "cpu", Options{1});
  EXPECT_FALSE(product.has_value() && product->name.find(".dnnl:brg") == std::string::npos) << product->name;
  NodeCase gemm_alpha("Gemm");
  gemm_alpha.input(random_tensor({2, 3}, 1)).constant(random_tensor({3, 4}, 2)).output({2, 4});
  gemm_alpha.attribute("alpha", Attribute(0.5f));
  EXPECT_FALSE(prepare(gemm_alpha.node(), "cpu", Options{1}).has_value());
}

// Empty dims are legal, but creating a oneDNN primitive for them divides by zero (SIGFPE
// for a K = 0 MatMul) and its kernels want addresses empty tensors lack: every fast path
// declines them, and offers no blocked format for them.
TEST(DnnlFallback, DeclinesEmptyTensors) {
  NodeCase matmul_k0("MatMul");
  matmul_k0.input(Tensor::zeros(DataType::kFloat32, {2, 0})).constant(Tensor::zeros(DataType::kFloat32, {0, 4}));
  matmul_k0.output({2, 4});
  EXPECT_FALSE(prepare(matmul_k0.node(), "cpu", Options{1}).has_value());
  NodeCase matmul_n0("MatMul");
  matmul_n0.input(random_tensor({2, 3}, 1)).constant(Tensor::zeros(DataType::kFloat32, {3, 0})).output({2, 0});
  EXPECT_FALSE(prepare(matmul_n0.node(), "cpu", Options{1}).has_value());
  NodeCase gemm_k0("Gemm");
  gemm_k0.input(Tensor::zeros(DataType::kFloat32, {2, 0})).constant(Tensor::zeros(DataType::kFloat32, {0, 4}));
  gemm_k0.constant(random_tensor({4}, 2)).output({2, 4});
  EXPECT_FALSE(prepare(gemm_k0.node(), "cpu", Options{1}).has_value());
  NodeCase conv_n0("Conv");
  conv_n0.input(Tensor::zeros(DataType::kFloat32, {0, 16, 5, 5})).constant(random_tensor({16, 16, 3, 3}, 3));
  conv_n0.output({0, 16, 3, 3});
  EXPECT_FALSE(prepare(conv_n0.node(), "cpu", Options{1}).has_value());
  const FormatCapability capability = format_capability(conv_n0.node());
  for (const auto& formats : capability.inputs) EXPECT_TRUE(formats.empty());
  for (const auto& formats : capability.outputs) EXPECT_TRUE(formats.empty());
  NodeCase pool_n0("MaxPool");
  pool_n0.input(Tensor::zeros(DataType::kFloat32, {0, 16, 4, 4})).output({0, 16, 3, 3});
  pool_n0.attribute("kernel_shape", Attribute(std::vector<int64_t>{2, 2}));
  EXPECT_FALSE(prepare(pool_n0.node(), "cpu", Options{1}).has_value());
}

// kernel_shape 2^62 under auto_pad SAME is legal; oneDNN would walk all its taps (a hang).
TEST(DnnlFallback, DeclinesWindowsWiderThanTheInput) {
  for (const char* pad : {"SAME_UPPER", "SAME_LOWER"}) {
    NodeCase pool("MaxPool");
    pool.input(random_tensor({1, 16, 5, 5}, 4)).output({1, 16, 5, 5});
    pool.attribute("kernel_shape", Attribute(std::vector<int64_t>{int64_t{1} << 62, int64_t{1} << 62}));
    pool.attribute("auto_pad", Attribute(std::string(pad)));
    EXPECT_FALSE(prepare(pool.node(), "cpu", Options{1}).has_value()) << pad;
  }
}

}  // namespace
}  // namespace ge::cpu_dnnl

namespace ge::cpu_dnnl {
namespace {

TEST(DnnlPrepack, KernelsPackingOneTensorTheSameWayShareTheBuffer) {
  const Tensor w = random_tensor({16, 8, 3, 3}, 99, 0.3f);
  using tag = dnnl::memory::format_tag;
  const dnnl::memory::desc plain({16, 8, 3, 3}, dnnl::memory::data_type::f32, tag::oihw);
  const dnnl::memory::desc blocked({16, 8, 3, 3}, dnnl::memory::data_type::f32, tag::OIhw8i8o);
  ProgramBuilder first, second, third, fourth;
  void* a = prepack(first, w, plain, blocked);
  void* b = prepack(second, Tensor(w), plain, blocked);  // a copy shares the storage
  EXPECT_EQ(a, b);
  EXPECT_NE(prepack(third, w, plain, plain), a) << "another layout is another buffer";
  const Tensor copy = w.clone();  // same bytes, other storage: packed apart
  void* c = prepack(fourth, copy, plain, blocked);
  EXPECT_NE(c, a);
  // The packed bytes are the reordered weights: element (o=9, i=5, h=1, w=2) of OIhw8i8o.
  const float expected = w.data<float>()[((9 * 8 + 5) * 3 + 1) * 3 + 2];
  const int64_t at = ((((9 / 8) * 1 + 5 / 8) * 3 + 1) * 3 + 2) * 64 + (5 % 8) * 8 + 9 % 8;
  EXPECT_EQ(static_cast<const float*>(a)[at], expected);
  EXPECT_EQ(static_cast<const float*>(c)[at], expected);
}

// ge::TransData between plain and channels-last ("nhwc": one block of all C channels) or
// channel-blocked storage, both ways, over planes that are not multiples of its tiles.
TEST(TransData, ReordersPlainToAndFromChannelsLastAndChannelBlocks) {
  const std::vector<std::vector<int64_t>> shapes = {{2, 5, 3, 7}, {1, 64, 33, 35}, {1, 32, 4, 4}};
  uint32_t seed = 40;
  for (const std::vector<int64_t>& dims : shapes) {
    for (const std::string format : {"nhwc", "nChw16c", "nChw8c"}) {
      const int64_t block = format == "nhwc" ? dims[1] : format == "nChw16c" ? 16 : 8;
      if (dims[1] % block != 0) continue;
      const std::string what = format + " " + std::to_string(dims[1]) + " channels";
      const Tensor plain = random_tensor(dims, ++seed);
      NodeCase to("TransData", "ge");
      to.input(plain).output(dims, format);
      Result<PreparedKernel> kernel = reference_kernels::prepare(to.node(), "cpu");
      ASSERT_TRUE(kernel.is_ok()) << what << ": " << kernel.status().to_string();
      const Tensor stored = to.run(*kernel, {plain});
      const Tensor expected = to_format(plain, block, true);
      EXPECT_EQ(std::memcmp(stored.raw_data(), expected.raw_data(), expected.byte_size()), 0) << what;
      NodeCase back("TransData", "ge");
      back.input(stored, format).output(dims);
      kernel = reference_kernels::prepare(back.node(), "cpu");
      ASSERT_TRUE(kernel.is_ok()) << what << ": " << kernel.status().to_string();
      const Tensor round_trip = back.run(*kernel, {stored});
      EXPECT_EQ(std::memcmp(round_trip.raw_data(), plain.raw_data(), plain.byte_size()), 0) << what;
    }
  }
}

// Runs `kernel` of `node` on `inputs` (null for an omitted one) into a fresh output.
Tensor run_node_kernel(const Node& node, const PreparedKernel& kernel, const std::vector<const Tensor*>& inputs) {
  std::vector<const void*> in;
  for (const Tensor* t : inputs) in.push_back(t != nullptr ? t->raw_data() : nullptr);
  Tensor out = Tensor::zeros(node.output(0)->desc().dtype, node.output(0)->desc().static_dims());
  std::memset(out.raw_data(), 0xA5, out.byte_size());
  void* outputs[] = {out.raw_data()};
  std::vector<unsigned char> workspace(kernel.workspace_bytes + 1);
  const KernelArgs args{in.data(), outputs, workspace.data(), kernel.params.get()};
  EXPECT_EQ(kernel.function(args), 0) << kernel.name;
  return out;
}

// Large elementwise ops only the reference kernels run split across the kernel's threads
// (prepare_split): the same bytes as the reference kernel, its name, over element counts
// that are and are not a multiple of the split's unit, in a channels-last tensor too.
TEST(SplitElementwise, ReferenceKernelsOnSlicesGiveTheWholeKernelsBytes) {
  std::mt19937 rng(9);
  std::uniform_real_distribution<float> dist(-3.0f, 3.0f);
  for (const std::vector<int64_t>& dims : std::vector<std::vector<int64_t>>{{1, 64, 56, 56}, {2, 3, 181, 173}}) {
    const int64_t count = dims[0] * dims[1] * dims[2] * dims[3];
    Tensor x = Tensor::zeros(DataType::kFloat32, dims);
    for (int64_t i = 0; i < count; ++i) x.data<float>()[i] = dist(rng);
    Tensor q = Tensor::zeros(DataType::kUInt8, dims), r = Tensor::zeros(DataType::kUInt8, dims);
    for (int64_t i = 0; i < count; ++i) {
      q.data<uint8_t>()[i] = static_cast<uint8_t>(rng());
      r.data<uint8_t>()[i] = static_cast<uint8_t>(rng());
    }
    const Tensor scale = Tensor::from_vector<float>({}, {0.037f}), zero = Tensor::from_vector<uint8_t>({}, {131});
    const Tensor scale_b = Tensor::from_vector<float>({}, {0.021f}), zero_b = Tensor::from_vector<uint8_t>({}, {97});
    struct OpCase {
      std::string op, domain;
      std::vector<const Tensor*> inputs;
      DataType output;
    };
    const std::vector<OpCase> cases = {
        {"QuantizeLinear", "", {&x, &scale, &zero}, DataType::kUInt8},
        {"DequantizeLinear", "", {&q, &scale, &zero}, DataType::kFloat32},
        {"QLinearAdd", "ge", {&q, &scale, &zero, &r, &scale_b, &zero_b, &scale_b, &zero}, DataType::kUInt8},
        {"Erf", "", {&x}, DataType::kFloat32}};
    for (const OpCase& c : cases) {
      for (const std::string format : {"", "nhwc"}) {
        Graph graph;
        graph.set_opset_import("", 17);
        graph.set_opset_import("ge", 1);
        std::vector<Value*> values;
        for (size_t i = 0; i < c.inputs.size(); ++i) {
          const Tensor& t = *c.inputs[i];
          Value* v = t.element_count() == 1 ? graph.add_initializer("c" + std::to_string(i), t)
                                            : graph.add_input("x" + std::to_string(i), TensorDesc::of(t.dtype(), dims));
          if (t.element_count() != 1) v->mutable_desc().format = format;
          values.push_back(v);
        }
        Node* node = graph.add_node(c.op, values, 1, "n", {"y"});
        node->set_domain(c.domain);
        node->output(0)->set_desc(TensorDesc::of(c.output, dims));
        node->output(0)->mutable_desc().format = format;
        const std::string what = c.op + " " + std::to_string(count) + (format.empty() ? "" : " nhwc");
        Result<PreparedKernel> reference = reference_kernels::prepare(*node, "cpu");
        ASSERT_TRUE(reference.is_ok()) << what << ": " << reference.status().to_string();
        const Tensor expected = run_node_kernel(*node, *reference, c.inputs);
        EXPECT_FALSE(prepare_split(*node, "cpu", Options{1}).has_value()) << what << ": one thread does not split";
        for (int threads : {2, 3}) {
          std::optional<PreparedKernel> split = prepare_split(*node, "cpu", Options{threads});
          ASSERT_TRUE(split.has_value()) << what;
          EXPECT_EQ(split->name, reference->name) << what;
          const Tensor got = run_node_kernel(*node, *split, c.inputs);
          EXPECT_EQ(std::memcmp(got.raw_data(), expected.raw_data(), expected.byte_size()), 0)
              << what << " on " << threads << " threads";
        }
      }
    }
  }
}

// RoiAlign's regions split across the kernel's threads (prepare_roi_split): the bytes of
// the reference kernel, its name and workspace, for region counts that are and are not a
// multiple of the split's unit, averages with a fixed sampling ratio and maxima with an
// adaptive one, and boxes on both images.
TEST(SplitRoiAlign, RegionsOnThreadsGiveTheWholeKernelsBytes) {
  std::mt19937 rng(13);
  std::uniform_real_distribution<float> value(-2.0f, 2.0f), corner(0.0f, 30.0f), extent(1.0f, 20.0f);
  Tensor x = Tensor::zeros(DataType::kFloat32, {2, 16, 24, 32});
  for (int64_t i = 0; i < x.element_count(); ++i) x.data<float>()[i] = value(rng);
  for (const int64_t rois : {37, 48}) {
    Tensor boxes = Tensor::zeros(DataType::kFloat32, {rois, 4});
    Tensor batch = Tensor::zeros(DataType::kInt64, {rois});
    for (int64_t r = 0; r < rois; ++r) {
      float* b = boxes.data<float>() + r * 4;
      b[0] = corner(rng);
      b[1] = corner(rng) * 0.7f;
      b[2] = b[0] + extent(rng);
      b[3] = b[1] + extent(rng);
      batch.data<int64_t>()[r] = r % 2;
    }
    for (const std::string mode : {"avg", "max"}) {
      Graph graph;
      graph.set_opset_import("", 16);
      Value* in[] = {graph.add_input("x", TensorDesc::of(DataType::kFloat32, {2, 16, 24, 32})),
                     graph.add_input("rois", TensorDesc::of(DataType::kFloat32, {rois, 4})),
                     graph.add_input("batch", TensorDesc::of(DataType::kInt64, {rois}))};
      Node* node = graph.add_node("RoiAlign", {in[0], in[1], in[2]}, 1, "roi", {"y"});
      node->set_attribute("output_height", Attribute(int64_t{5}));
      node->set_attribute("output_width", Attribute(int64_t{4}));
      node->set_attribute("spatial_scale", Attribute(0.5f));
      node->set_attribute("sampling_ratio", Attribute(int64_t{mode == "avg" ? 2 : 0}));
      node->set_attribute("mode", Attribute(mode));
      node->output(0)->set_desc(TensorDesc::of(DataType::kFloat32, {rois, 16, 5, 4}));
      const std::string what = "RoiAlign " + mode + " of " + std::to_string(rois) + " regions";
      Result<PreparedKernel> reference = reference_kernels::prepare(*node, "cpu");
      ASSERT_TRUE(reference.is_ok()) << what << ": " << reference.status().to_string();
      const std::vector<const Tensor*> inputs{&x, &boxes, &batch};
      const Tensor expected = run_node_kernel(*node, *reference, inputs);
      EXPECT_FALSE(prepare_roi_split(*node, "cpu", Options{1}).has_value()) << what << ": one thread does not split";
      for (int threads : {2, 3}) {
        std::optional<PreparedKernel> split = prepare_roi_split(*node, "cpu", Options{threads});
        ASSERT_TRUE(split.has_value()) << what;
        EXPECT_EQ(split->name, reference->name) << what;
        EXPECT_EQ(split->workspace_bytes, reference->workspace_bytes) << what;
        const Tensor got = run_node_kernel(*node, *split, inputs);
        EXPECT_EQ(std::memcmp(got.raw_data(), expected.raw_data(), expected.byte_size()), 0)
            << what << " on " << threads << " threads";
      }
    }
  }
}

}  // namespace
}  // namespace ge::cpu_dnnl
