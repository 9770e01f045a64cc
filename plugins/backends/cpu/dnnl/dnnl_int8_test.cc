// The int8 fast paths (dnnl_int8.cc, and the float32 route of dnnl_int8_float.cc on any
// CPU) against the reference kernels, byte for byte:
// ConvInteger and QLinearConv over 1-D to 3-D shapes, strides, dilations, pads, auto_pad,
// groups and depthwise; MatMulInteger and QLinearMatMul over batched and vector A; int8
// and uint8 activations and weights, weight zero points absent, per tensor and per
// channel, constant and runtime scales. Each case checks the fast path took the node.

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include <oneapi/dnnl/dnnl.hpp>

#include "dnnl_fast_paths.h"
#include "dnnl_kernels.h"
#include "ge/graph.h"
#include "ge/reference_kernels/kernel_library.h"
#include "ge/tensor.h"

namespace ge::cpu_dnnl {
namespace {

bool has_vnni() {
  const auto isa = static_cast<unsigned>(dnnl::get_effective_cpu_isa());
  constexpr auto kAvx512Vnni = static_cast<unsigned>(dnnl::cpu_isa::avx512_core_vnni);
  constexpr auto kAvx2Vnni = static_cast<unsigned>(dnnl::cpu_isa::avx2_vnni);
  return (isa & kAvx512Vnni) == kAvx512Vnni || (isa & kAvx2Vnni) == kAvx2Vnni;
}

// 8-bit values in [low, high] of `dtype`.
Tensor random_8bit(DataType dtype, std::vector<int64_t> dims, std::mt19937& rng, int low, int high) {
  Tensor t = Tensor::zeros(dtype, dims);
  std::uniform_int_distribution<int> dist(low, high);
  for (int64_t i = 0; i < t.element_count(); ++i) {
    const int v = dist(rng);
    if (dtype == DataType::kInt8)
      t.data<int8_t>()[i] = static_cast<int8_t>(v);
    else
      t.data<uint8_t>()[i] = static_cast<uint8_t>(v);
  }
  return t;
}

Tensor full_range(DataType dtype, std::vector<int64_t> dims, std::mt19937& rng) {
  return dtype == DataType::kInt8 ? random_8bit(dtype, dims, rng, -128, 127) : random_8bit(dtype, dims, rng, 0, 255);
}

Tensor scalar_8bit(DataType dtype, int value) {
  return random_8bit(dtype, {}, *std::make_unique<std::mt19937>(), value, value);
}

Tensor floats(std::vector<int64_t> dims, std::vector<float> values) { return Tensor::from_vector<float>(dims, values); }

// One node in its own graph, run by either kernel on the same inputs.
class Int8Case {
 public:
  explicit Int8Case(std::string op) : op_(std::move(op)) { graph_.set_opset_import("", 13); }
  Int8Case& input(Tensor t) {
    values_.push_back(graph_.add_input("x" + std::to_string(values_.size()), TensorDesc::of(t.dtype(), t.shape())));
    data_.push_back(std::move(t));
    return *this;
  }
  Int8Case& constant(Tensor t) {
    values_.push_back(graph_.add_initializer("w" + std::to_string(values_.size()), t));
    data_.push_back(std::move(t));
    return *this;
  }
  Int8Case& none() {
    values_.push_back(nullptr);
    data_.emplace_back();
    return *this;
  }
  Int8Case& output(DataType dtype, std::vector<int64_t> dims) {
    output_dtype_ = dtype;
    output_dims_ = std::move(dims);
    return *this;
  }
  Int8Case& attribute(const std::string& name, Attribute value) {
    attributes_.emplace_back(name, std::move(value));
    return *this;
  }
  Node& node() {
    if (node_ != nullptr) return *node_;
    node_ = graph_.add_node(op_, values_, 1, "n", {"y"});
    for (const auto& [name, value] : attributes_) node_->set_attribute(name, value);
    node_->output(0)->set_desc(TensorDesc::of(output_dtype_, output_dims_));
    graph_.add_output(node_->output(0));
    return *node_;
  }
  const Tensor& data(size_t input) const { return data_.at(input); }
  /// Runs `kernel` on the case's inputs, input 0 replaced by `x0` when it is defined.
  Tensor run(const PreparedKernel& kernel, const Tensor& x0 = Tensor()) {
    std::vector<const void*> in;
    for (const Tensor& t : data_) in.push_back(t.defined() ? t.raw_data() : nullptr);
    if (x0.defined()) in[0] = x0.raw_data();
    Tensor out = Tensor::zeros(output_dtype_, output_dims_);
    std::memset(out.raw_data(), 0x5A, out.byte_size());
    void* outputs[] = {out.raw_data()};
    std::unique_ptr<unsigned char[]> workspace(new unsigned char[kernel.workspace_bytes + 64]);
    std::memset(workspace.get(), 0xA5, kernel.workspace_bytes + 64);  // garbage a kernel must overwrite
    KernelArgs args;
    args.inputs = in.data();
    args.outputs = outputs;
    args.workspace = workspace.get();
    args.params = kernel.params.get();
    EXPECT_EQ(kernel.function(args), 0) << kernel.name;
    return out;
  }

 private:
  Graph graph_;
  std::string op_;
  std::vector<Value*> values_;
  std::vector<Tensor> data_;
  DataType output_dtype_ = DataType::kInt32;
  std::vector<int64_t> output_dims_;
  std::vector<std::pair<std::string, Attribute>> attributes_;
  Node* node_ = nullptr;
};

// Which route prepares the node: the fast paths' own choice (VNNI where it is), or the
// float32 route directly (any CPU).
enum class Route { kChosen, kFloat };

std::optional<PreparedKernel> prepare_on(Route route, const Node& node, int threads) {
  if (route == Route::kChosen) return prepare(node, "cpu", Options{threads});
  const bool conv = node.op_type() == "ConvInteger" || node.op_type() == "QLinearConv";
  return conv ? prepare_int8_conv_float(node, "cpu", Options{threads})
              : prepare_int8_matmul_float(node, "cpu", Options{threads});
}

// The fast path must take the node (its name containing `variant`) and agree exactly.
void check_exact(Int8Case& c, const std::string& what, const std::string& variant, int threads = 1,
                 Route route = Route::kChosen) {
  Result<PreparedKernel> reference = reference_kernels::prepare(c.node(), "cpu");
  ASSERT_TRUE(reference.is_ok()) << what << ": " << reference.status().to_string();
  std::optional<PreparedKernel> fast = prepare_on(route, c.node(), threads);
  ASSERT_TRUE(fast.has_value()) << what << ": no fast path";
  EXPECT_NE(fast->name.find(".dnnl:"), std::string::npos) << fast->name;
  if (variant.empty()) {
    EXPECT_EQ(fast->name.find(".compensated"), std::string::npos) << what << ": " << fast->name;
    EXPECT_EQ(fast->name.find(".requantized"), std::string::npos) << what << ": " << fast->name;
  } else {
    EXPECT_NE(fast->name.find(variant), std::string::npos) << what << ": " << fast->name;
  }
  const Tensor expected = c.run(*reference), got = c.run(*fast);
  ASSERT_EQ(expected.byte_size(), got.byte_size());
  const size_t element = expected.byte_size() / static_cast<size_t>(std::max<int64_t>(1, expected.element_count()));
  // A requantised case must have outputs inside the range: a saturated one agrees too easily.
  if (element == 1) {
    const bool s8 = c.node().output(0)->desc().dtype == DataType::kInt8;
    int64_t inside = 0;
    for (int64_t i = 0; i < expected.element_count(); ++i) {
      const int v = s8 ? expected.data<int8_t>()[i] : expected.data<uint8_t>()[i];
      inside += v != (s8 ? -128 : 0) && v != (s8 ? 127 : 255);
    }
    EXPECT_GE(inside * 2, expected.element_count()) << what << ": most outputs saturate";
  }
  int shown = 0;
  for (int64_t i = 0; i < expected.element_count() && shown < 5; ++i) {
    int64_t e = 0, g = 0;
    if (element == 4) {
      e = expected.data<int32_t>()[i];
      g = got.data<int32_t>()[i];
    } else if (c.node().output(0)->desc().dtype == DataType::kInt8) {
      e = expected.data<int8_t>()[i];
      g = got.data<int8_t>()[i];
    } else {
      e = expected.data<uint8_t>()[i];
      g = got.data<uint8_t>()[i];
    }
    if (e != g) {
      ADD_FAILURE() << what << " (" << fast->name << "): element " << i << " fast " << g << " reference " << e;
      ++shown;
    }
  }
}

// The launch's team for case `index`: 1, 2 or 4 threads in turn, so that the host steps'
// rows (transposes, compensation, requantisation) are split across a team too, with more
// threads than this machine may have cores (4).
int threads_for(int index) {
  constexpr int kThreads[] = {1, 2, 4};
  return kThreads[index % 3];
}

struct ConvShape {
  std::vector<int64_t> x;  // [N, C, spatial...]
  int64_t m = 0, group = 1;
  std::vector<int64_t> kernel, strides, dilations, pads;  // pads: begins then ends
  std::string auto_pad;
};

std::vector<int64_t> conv_output(const ConvShape& s) {
  std::vector<int64_t> y{s.x[0], s.m};
  const size_t spatial = s.kernel.size();
  for (size_t i = 0; i < spatial; ++i) {
    const int64_t in = s.x[2 + i], stride = s.strides.empty() ? 1 : s.strides[i];
    if (!s.auto_pad.empty()) {
      y.push_back((in + stride - 1) / stride);
      continue;
    }
    const int64_t dilation = s.dilations.empty() ? 1 : s.dilations[i];
    const int64_t pads = s.pads.empty() ? 0 : s.pads[i] + s.pads[i + spatial];
    y.push_back((in + pads - dilation * (s.kernel[i] - 1) - 1) / stride + 1);
  }
  return y;
}

void add_geometry(Int8Case& c, const ConvShape& s) {
  c.attribute("group", Attribute(s.group));
  if (!s.strides.empty()) c.attribute("strides", Attribute(s.strides));
  if (!s.dilations.empty()) c.attribute("dilations", Attribute(s.dilations));
  if (!s.pads.empty()) c.attribute("pads", Attribute(s.pads));
  if (!s.auto_pad.empty()) c.attribute("auto_pad", Attribute(s.auto_pad));
}

const std::vector<ConvShape>& conv_shapes() {
  static const std::vector<ConvShape> shapes = {
      {{1, 3, 13, 11}, 16, 1, {3, 3}, {1, 1}, {}, {1, 1, 1, 1}, ""},       // first layer, padded
      {{2, 16, 9, 9}, 32, 1, {3, 3}, {2, 2}, {}, {0, 1, 1, 0}, ""},        // strided, asymmetric pads
      {{1, 32, 8, 8}, 24, 1, {1, 1}, {}, {}, {}, ""},                      // pointwise
      {{2, 80, 9, 13}, 72, 1, {1, 1}, {}, {}, {}, ""},                     // pointwise, two 64-row transpose blocks
      {{5, 32, 1, 1}, 24, 1, {1, 1}, {}, {}, {}, ""},  // one output pixel: a Gemm with a bias, as QDQ fusion writes it
      {{1, 32, 10, 10}, 32, 32, {3, 3}, {1, 1}, {}, {1, 1, 1, 1}, ""},     // depthwise
      {{1, 16, 11, 11}, 16, 1, {3, 3}, {1, 1}, {2, 2}, {2, 2, 2, 2}, ""},  // dilated
      {{1, 32, 7, 7}, 64, 4, {3, 3}, {1, 1}, {}, {1, 1, 1, 1}, ""},        // grouped
      {{1, 24, 9, 7}, 40, 1, {5, 3}, {1, 2}, {}, {}, "SAME_UPPER"},        // auto_pad
      {{2, 8, 21}, 16, 1, {5}, {2}, {}, {2, 1}, ""},                       // 1-D
      {{1, 8, 5, 6, 7}, 16, 1, {3, 3, 3}, {1, 1, 1}, {}, {1, 1, 1, 1, 1, 1}, ""},  // 3-D
  };
  return shapes;
}

// Weight variants: dtype and the zero point (0: none, 1: per tensor, 2: per channel, 3:
// per channel with w - w_zero_point within int8, which needs no compensation). The zero
// points are never 128 (uint8) or 0 (int8): the other cases always need compensation.
struct WeightVariant {
  DataType dtype;
  int zero_point;
};
constexpr WeightVariant kWeightVariants[] = {{DataType::kInt8, 0},  {DataType::kInt8, 2},  {DataType::kUInt8, 1},
                                             {DataType::kUInt8, 2}, {DataType::kUInt8, 0}, {DataType::kUInt8, 3}};

bool needs_compensation(const WeightVariant& v) {
  return v.zero_point != 3 && (v.dtype == DataType::kUInt8 || v.zero_point != 0);
}

// Weights of a variant: full range, but uint8 without a zero point (every weight
// positive) mostly small, so that requantised sums do not all saturate, with every 7th
// 200 (beyond int8: compensated).
Tensor weights(const WeightVariant& v, std::vector<int64_t> dims, std::mt19937& rng) {
  if (v.dtype == DataType::kUInt8 && v.zero_point == 0) {
    Tensor t = random_8bit(v.dtype, dims, rng, 0, 6);
    for (int64_t i = 0; i < t.element_count(); i += 7) t.data<uint8_t>()[i] = 200;
    return t;
  }
  if (v.zero_point == 3) return random_8bit(v.dtype, dims, rng, 28, 227);  // zero points 100..127
  return full_range(v.dtype, dims, rng);
}

// An activation zero point near the middle of its type's range.
Tensor middle_zero_point(DataType dtype, std::mt19937& rng) {
  return dtype == DataType::kInt8 ? random_8bit(dtype, {}, rng, -20, 20) : random_8bit(dtype, {}, rng, 100, 150);
}

std::string conv_name(const ConvShape& s, const WeightVariant& w, DataType x) {
  std::string name = "x";
  for (int64_t d : s.x) name += std::to_string(d) + ",";
  name += " m" + std::to_string(s.m) + " g" + std::to_string(s.group) + " w " +
          (w.dtype == DataType::kInt8 ? "s8" : "u8") + " zp" + std::to_string(w.zero_point) + " x " +
          (x == DataType::kInt8 ? "s8" : "u8");
  return name;
}

Tensor weight_zero_point(const WeightVariant& v, int64_t m, std::mt19937& rng) {
  const bool s8 = v.dtype == DataType::kInt8;
  return random_8bit(v.dtype, v.zero_point >= 2 ? std::vector<int64_t>{m} : std::vector<int64_t>{}, rng, s8 ? 1 : 100,
                     s8 ? 20 : 127);
}

// The variant a case's kernel name carries on `route`.
std::string expected_variant(Route route, bool compensated, bool constant_scales) {
  if (route == Route::kFloat) return ".exact_f32";
  return compensated ? ".compensated" : constant_scales ? "" : ".requantized";
}

void conv_integer_cases(Route route) {
  std::mt19937 rng(7);
  int index = 0;
  for (const ConvShape& s : conv_shapes()) {
    for (const WeightVariant& v : kWeightVariants) {
      const DataType x_dtype = index++ % 2 == 0 ? DataType::kUInt8 : DataType::kInt8;
      std::vector<int64_t> w_dims{s.m, s.x[1] / s.group};
      w_dims.insert(w_dims.end(), s.kernel.begin(), s.kernel.end());
      Int8Case c("ConvInteger");
      c.input(full_range(x_dtype, s.x, rng)).constant(weights(v, w_dims, rng));
      c.input(middle_zero_point(x_dtype, rng));
      if (v.zero_point != 0) c.constant(weight_zero_point(v, s.m, rng));
      c.output(DataType::kInt32, conv_output(s));
      add_geometry(c, s);
      check_exact(c, "ConvInteger " + conv_name(s, v, x_dtype), expected_variant(route, needs_compensation(v), true),
                  threads_for(index), route);
    }
  }
}

TEST(DnnlInt8, ConvIntegerMatchesReferenceExactly) {
  if (!has_vnni()) GTEST_SKIP() << "no VNNI: the int8 fast paths are off on this CPU";
  conv_integer_cases(Route::kChosen);
}

TEST(DnnlInt8, ConvIntegerOnTheFloatRouteMatchesReferenceExactly) { conv_integer_cases(Route::kFloat); }

// 8-bit [N, C, H, W] stored plain -> channels-last ([N][H][W][C]), or back.
Tensor reorder_bytes(const Tensor& t, bool to_channels_last) {
  const std::vector<int64_t>& d = t.shape();
  const int64_t n = d[0], c = d[1], hw = d[2] * d[3];
  Tensor out = Tensor::zeros(t.dtype(), d);
  const auto* from = static_cast<const uint8_t*>(t.raw_data());
  auto* to = static_cast<uint8_t*>(out.raw_data());
  for (int64_t i = 0; i < n; ++i) {
    for (int64_t ch = 0; ch < c; ++ch) {
      for (int64_t s = 0; s < hw; ++s) {
        const int64_t plain = (i * c + ch) * hw + s, last = (i * hw + s) * c + ch;
        if (to_channels_last)
          to[last] = from[plain];
        else
          to[plain] = from[last];
      }
    }
  }
  return out;
}

// The int8 route with input, output or both stored channels-last ("nhwc", as layout
// assignment keeps quantised activations between int8 convolutions) gives the reference
// kernel's bytes in that layout, where format_capability offers it.
void check_channels_last(Int8Case& c, const std::string& what, int threads) {
  if (!int8_conv_takes_channels_last(c.node(), Options{threads})) return;
  const FormatCapability capability = format_capability(c.node(), Options{threads});
  ASSERT_EQ(capability.inputs.size(), c.node().input_count()) << what;
  EXPECT_EQ(capability.inputs[0], std::vector<std::string>{"nhwc"}) << what;
  ASSERT_EQ(capability.outputs.size(), 1u) << what;
  EXPECT_EQ(capability.outputs[0], std::vector<std::string>{"nhwc"}) << what;
  Result<PreparedKernel> reference = reference_kernels::prepare(c.node(), "cpu");
  ASSERT_TRUE(reference.is_ok()) << what << ": " << reference.status().to_string();
  const Tensor expected = c.run(*reference);
  TensorDesc& x = c.node().input(0)->mutable_desc();
  TensorDesc& y = c.node().output(0)->mutable_desc();
  for (const auto& [x_last, y_last] : {std::pair{true, true}, {true, false}, {false, true}}) {
    x.format = x_last ? "nhwc" : "";
    y.format = y_last ? "nhwc" : "";
    const std::string which = what + (x_last ? " x nhwc" : "") + (y_last ? " y nhwc" : "");
    std::optional<PreparedKernel> fast = prepare(c.node(), "cpu", Options{threads});
    ASSERT_TRUE(fast.has_value()) << which << ": no fast path";
    EXPECT_NE(fast->name.find(".dnnl:"), std::string::npos) << fast->name;
    Tensor got = c.run(*fast, x_last ? reorder_bytes(c.data(0), true) : Tensor());
    if (y_last) got = reorder_bytes(got, false);
    ASSERT_EQ(expected.byte_size(), got.byte_size());
    EXPECT_EQ(std::memcmp(expected.raw_data(), got.raw_data(), expected.byte_size()), 0) << which << ": " << fast->name;
  }
  x.format.clear();
  y.format.clear();
}

void qlinear_conv_cases(Route route) {
  std::mt19937 rng(11);
  int index = 0, channels_last_cases = 0;
  for (const ConvShape& s : conv_shapes()) {
    for (const WeightVariant& v : kWeightVariants) {
      ++index;
      const DataType x_dtype = index % 2 == 0 ? DataType::kUInt8 : DataType::kInt8;
      const DataType y_dtype = index % 3 == 0 ? DataType::kInt8 : DataType::kUInt8;
      const bool per_channel_scale = index % 2 == 1, with_bias = index % 4 != 2, constant_scales = index % 5 != 3;
      std::vector<int64_t> w_dims{s.m, s.x[1] / s.group};
      w_dims.insert(w_dims.end(), s.kernel.begin(), s.kernel.end());
      int64_t depth = s.x[1] / s.group;
      for (int64_t k : s.kernel) depth *= k;
      std::vector<float> w_scales;
      for (int64_t m = 0; m < (per_channel_scale ? s.m : 1); ++m) w_scales.push_back(0.01f * (1.0f + 0.37f * (m % 4)));
      // Multipliers near 1 / (400 sqrt(depth)): outputs spread over the range, some saturate.
      const float x_scale = 0.02f, y_scale = 0.02f * 0.01f * 400.0f * std::sqrt(static_cast<float>(depth));
      Int8Case c("QLinearConv");
      c.input(full_range(x_dtype, s.x, rng));
      auto scale = [&](Tensor t) -> Int8Case& {
        return constant_scales ? c.constant(std::move(t)) : c.input(std::move(t));
      };
      scale(floats({}, {x_scale}));
      c.input(middle_zero_point(x_dtype, rng));
      c.constant(weights(v, w_dims, rng));
      scale(floats(per_channel_scale ? std::vector<int64_t>{s.m} : std::vector<int64_t>{}, w_scales));
      if (v.zero_point != 0)
        c.constant(weight_zero_point(v, s.m, rng));
      else
        c.none();
      scale(floats({}, {y_scale}));
      c.constant(
          random_8bit(y_dtype, {}, rng, y_dtype == DataType::kInt8 ? -10 : 100, y_dtype == DataType::kInt8 ? 10 : 140));
      if (with_bias) {
        Tensor bias = Tensor::zeros(DataType::kInt32, {s.m});
        std::uniform_int_distribution<int32_t> dist(-20000, 20000);
        for (int64_t m = 0; m < s.m; ++m) bias.data<int32_t>()[m] = dist(rng);
        c.constant(bias);
      }
      c.output(y_dtype, conv_output(s));
      add_geometry(c, s);
      check_exact(c,
                  "QLinearConv " + conv_name(s, v, x_dtype) + (with_bias ? " bias" : "") +
                      (constant_scales ? "" : " runtime scales"),
                  expected_variant(route, needs_compensation(v), constant_scales), threads_for(index), route);
      if (route == Route::kChosen) {
        channels_last_cases += int8_conv_takes_channels_last(c.node(), Options{});
        check_channels_last(c, "QLinearConv " + conv_name(s, v, x_dtype), threads_for(index));
      }
    }
  }
  // Rank-4 cases with constant scales and weights that need no compensation.
  if (route == Route::kChosen) EXPECT_GE(channels_last_cases, 5);
}

TEST(DnnlInt8, QLinearConvMatchesReferenceExactly) {
  if (!has_vnni()) GTEST_SKIP() << "no VNNI: the int8 fast paths are off on this CPU";
  qlinear_conv_cases(Route::kChosen);
}

TEST(DnnlInt8, QLinearConvOnTheFloatRouteMatchesReferenceExactly) { qlinear_conv_cases(Route::kFloat); }

TEST(DnnlInt8, SumsBeyondFloatPrecisionAreCutIntoExactChunks) {
  // 255 * 512 * 9 * 127 > 2^24: the VNNI route's float conversion of the sums could
  // round, and so would a float32 sum of them. The float route cuts the 512 input
  // channels into chunks of at most 2^24 / (255 * 9 * 127) = 57 (9 chunks), each exact,
  // added as int32; whichever route the CPU picks, the sums are the reference's. Values
  // near the extremes make the real sums reach the bound: 255 * 127 * 4608 = 1.5e8.
  std::mt19937 rng(3);
  for (const Route route : {Route::kChosen, Route::kFloat}) {
    Int8Case c("ConvInteger");
    c.input(random_8bit(DataType::kUInt8, {1, 512, 4, 4}, rng, 250, 255))
        .constant(random_8bit(DataType::kInt8, {8, 512, 3, 3}, rng, 126, 127))
        .output(DataType::kInt32, {1, 8, 2, 2});
    check_exact(c, "ConvInteger 512x3x3 of 127", ".exact_f32x9", 2, route);
  }
  // A QLinearMatMul over K = 2048 (4 chunks of about 530 rows of |b| 120..127, against
  // |a - a_zero_point| up to 255), weights of random sign: sums of about +-8e5 spread over
  // the uint8 range.
  for (const DataType a_dtype : {DataType::kUInt8, DataType::kInt8}) {
    Int8Case c("QLinearMatMul");
    const bool s8 = a_dtype == DataType::kInt8;
    Tensor b = random_8bit(DataType::kInt8, {2048, 16}, rng, 120, 127);
    for (int64_t i = 0; i < b.element_count(); ++i) {
      if (rng() % 2 == 0) b.data<int8_t>()[i] = static_cast<int8_t>(-b.data<int8_t>()[i]);
    }
    c.input(random_8bit(a_dtype, {3, 2048}, rng, s8 ? -128 : 0, s8 ? 127 : 255))
        .constant(floats({}, {1.f}))
        .constant(scalar_8bit(a_dtype, s8 ? 127 : 0))  // a - a_zero_point reaches 255
        .constant(b)
        .constant(floats({}, {1.f}))
        .constant(scalar_8bit(DataType::kInt8, 0))
        .constant(floats({}, {2e4f}))
        .constant(scalar_8bit(DataType::kUInt8, 128))
        .output(DataType::kUInt8, {3, 16});
    check_exact(c, std::string("QLinearMatMul K 2048, a ") + (s8 ? "s8" : "u8"), ".exact_f32x4", 1, Route::kFloat);
  }
}

TEST(DnnlInt8, FloatRouteRefusesATapOverTheBound) {
  // One input channel of 7x7x7 taps of weight 255 - 0 against x - 0 up to 255: a single
  // slice's sums reach 255 * 255 * 343 > 2^24, which no cut can split.
  std::mt19937 rng(4);
  Int8Case c("ConvInteger");
  c.input(full_range(DataType::kUInt8, {1, 1, 7, 7, 7}, rng))
      .constant(random_8bit(DataType::kUInt8, {2, 1, 7, 7, 7}, rng, 255, 255))
      .output(DataType::kInt32, {1, 2, 1, 1, 1});
  EXPECT_FALSE(prepare_int8_conv_float(c.node(), "cpu", Options{1}).has_value());
}

void matmul_cases(Route route) {
  std::mt19937 rng(5);
  // The last over dnnl_kernels.cc's kParallelWork: launched on a team of threads.
  const std::vector<std::vector<int64_t>> a_shapes = {{7, 33}, {2, 5, 64}, {64}, {3, 2, 4, 17}, {2, 100, 160}};
  const int64_t n = 40;
  int index = 0;
  for (const std::vector<int64_t>& a_dims : a_shapes) {
    for (const WeightVariant& v : kWeightVariants) {
      ++index;
      const int64_t k = a_dims.back();
      const DataType a_dtype = index % 2 == 0 ? DataType::kUInt8 : DataType::kInt8;
      std::vector<int64_t> y_dims(a_dims.begin(), a_dims.end() - 1);
      y_dims.push_back(n);
      const bool compensated = needs_compensation(v);
      std::string what = "A [";
      for (int64_t d : a_dims) what += std::to_string(d) + ",";
      what += std::string("] B ") + (v.dtype == DataType::kInt8 ? "s8" : "u8") + " zp" + std::to_string(v.zero_point);
      {
        Int8Case c("MatMulInteger");
        c.input(full_range(a_dtype, a_dims, rng)).constant(weights(v, {k, n}, rng));
        c.input(middle_zero_point(a_dtype, rng));
        if (v.zero_point != 0) c.constant(weight_zero_point(v, n, rng));
        c.output(DataType::kInt32, y_dims);
        check_exact(c, "MatMulInteger " + what, expected_variant(route, compensated, true), threads_for(index), route);
      }
      for (const bool constant_scales : {true, false}) {
        const DataType y_dtype = index % 3 == 0 ? DataType::kInt8 : DataType::kUInt8;
        const bool per_column = index % 2 == 0;
        std::vector<float> b_scales;
        for (int64_t j = 0; j < (per_column ? n : 1); ++j) b_scales.push_back(0.01f * (1.0f + 0.29f * (j % 5)));
        Int8Case c("QLinearMatMul");
        auto scale = [&](Tensor t) -> Int8Case& {
          return constant_scales ? c.constant(std::move(t)) : c.input(std::move(t));
        };
        c.input(full_range(a_dtype, a_dims, rng));
        scale(floats({}, {0.02f}));
        c.input(middle_zero_point(a_dtype, rng));
        c.constant(weights(v, {k, n}, rng));
        scale(floats(per_column ? std::vector<int64_t>{n} : std::vector<int64_t>{}, b_scales));
        c.constant(v.zero_point != 0 ? weight_zero_point(v, n, rng)
                                     : scalar_8bit(v.dtype, 0));  // QLinearMatMul's zero points are required
        scale(floats({}, {0.02f * 0.01f * 400.0f * std::sqrt(static_cast<float>(k))}));
        c.constant(random_8bit(y_dtype, {}, rng, y_dtype == DataType::kInt8 ? -10 : 100,
                               y_dtype == DataType::kInt8 ? 10 : 140));
        c.output(y_dtype, y_dims);
        check_exact(c, "QLinearMatMul " + what + (constant_scales ? "" : " runtime scales"),
                    expected_variant(route, compensated, constant_scales), threads_for(index), route);
      }
    }
  }
}

TEST(DnnlInt8, MatMulIntegerAndQLinearMatMulMatchReferenceExactly) {
  if (!has_vnni()) GTEST_SKIP() << "no VNNI: the int8 fast paths are off on this CPU";
  matmul_cases(Route::kChosen);
}

TEST(DnnlInt8, MatMulIntegerAndQLinearMatMulOnTheFloatRouteMatchReferenceExactly) { matmul_cases(Route::kFloat); }

}  // namespace
}  // namespace ge::cpu_dnnl
