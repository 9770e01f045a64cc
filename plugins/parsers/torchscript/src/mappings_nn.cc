/// Convolutions, linear layers, products, normalisations, pooling, resizing.

#include <cmath>

#include "importer.h"
#include "mapping_util.h"

namespace ge::torchscript {
namespace {

std::vector<int64_t> repeat_to(std::vector<int64_t> values, size_t n) {
  if (values.size() == 1 && n > 1) values.assign(n, values[0]);
  if (values.size() != n) fail("expects " + std::to_string(n) + " values, got " + std::to_string(values.size()));
  return values;
}

std::vector<int64_t> onnx_pads(const std::vector<int64_t>& padding, size_t n) {
  std::vector<int64_t> pads = repeat_to(padding, n);
  pads.insert(pads.end(), pads.begin(), pads.end());
  return pads;
}

/// Conv or ConvTranspose of input 0, weight 1, optional bias 2.
void convolution(Importer& im, const jit::Node* node, const std::vector<int64_t>& stride,
                 const std::optional<std::vector<int64_t>>& padding, const std::string& auto_pad,
                 const std::vector<int64_t>& dilation, bool transposed, const std::vector<int64_t>& output_padding,
                 int64_t groups) {
  const size_t spatial = static_cast<size_t>(im.input_rank(node, 1) - 2);
  std::vector<Value*> inputs = {im.tensor(node, 0), im.tensor(node, 1)};
  if (!im.is_none(node, 2)) inputs.push_back(im.tensor(node, 2));
  std::map<std::string, Attribute> a;
  a["strides"] = repeat_to(stride, spatial);
  a["dilations"] = repeat_to(dilation, spatial);
  a["group"] = groups;
  const at::Tensor& w = im.input_example(node, 1);
  std::vector<int64_t> kernel(w.sizes().begin() + 2, w.sizes().end());
  a["kernel_shape"] = kernel;
  if (padding) {
    a["pads"] = onnx_pads(*padding, spatial);
  } else {
    a["auto_pad"] = auto_pad;
  }
  if (transposed) {
    std::vector<int64_t> op = repeat_to(output_padding, spatial);
    bool any = false;
    for (int64_t p : op) any = any || p != 0;
    if (any) a["output_padding"] = op;
  }
  im.bind(node->output(), im.op(transposed ? "ConvTranspose" : "Conv", std::move(inputs), std::move(a)));
}

void map_convolution(Importer& im, const jit::Node* n) {
  // aten::_convolution(input, weight, bias, stride, padding, dilation, transposed, output_padding, groups, ...)
  convolution(im, n, im.ints(n, 3), im.ints(n, 4), "", im.ints(n, 5), im.boolean(n, 6), im.ints(n, 7), im.integer(n, 8));
}

void map_conv_nd(Importer& im, const jit::Node* n) {
  // aten::conv2d(input, weight, bias, stride, padding, dilation, groups); padding may be 'same' / 'valid'.
  const c10::IValue& padding = im.constant(n, 4);
  if (padding.isString()) {
    const std::string mode = padding.toStringRef();
    convolution(im, n, im.ints(n, 3), std::nullopt, mode == "same" ? "SAME_UPPER" : "VALID", im.ints(n, 5), false, {0},
                im.integer(n, 6));
  } else {
    convolution(im, n, im.ints(n, 3), im.ints(n, 4), "", im.ints(n, 5), false, {0}, im.integer(n, 6));
  }
}

void map_conv_transpose_nd(Importer& im, const jit::Node* n) {
  // aten::conv_transpose2d(input, weight, bias, stride, padding, output_padding, groups, dilation)
  convolution(im, n, im.ints(n, 3), im.ints(n, 4), "", im.ints(n, 7), true, im.ints(n, 5), im.integer(n, 6));
}

/// A constant weight transposed once at import; a computed one through a Transpose node.
Value* transposed_weight(Importer& im, const jit::Node* n, size_t i) {
  return im.op("Transpose", {im.tensor(n, i)}, {{"perm", std::vector<int64_t>{1, 0}}});
}

void map_linear(Importer& im, const jit::Node* n) {
  // aten::linear(input, weight, bias)
  Value* x = im.tensor(n, 0);
  const bool has_bias = !im.is_none(n, 2);
  if (im.input_rank(n, 0) == 2) {
    std::vector<Value*> inputs = {x, im.tensor(n, 1)};
    if (has_bias) inputs.push_back(im.tensor(n, 2));
    im.bind(n->output(), im.op("Gemm", std::move(inputs), {{"transB", int64_t{1}}}));
    return;
  }
  Value* y = im.op("MatMul", {x, transposed_weight(im, n, 1)});
  if (has_bias) y = im.op("Add", {y, im.tensor(n, 2)});
  im.bind(n->output(), y);
}

void map_matmul(Importer& im, const jit::Node* n) {
  const DataType dtype = im.output_dtype(n);
  im.bind(n->output(), im.op("MatMul", {operand(im, n, 0, dtype), operand(im, n, 1, dtype)}));
}

void map_addmm(Importer& im, const jit::Node* n) {
  // aten::addmm(self, mat1, mat2, beta, alpha): beta * self + alpha * mat1 @ mat2
  im.bind(n->output(), im.op("Gemm", {im.tensor(n, 1), im.tensor(n, 2), im.tensor(n, 0)},
                             {{"alpha", static_cast<float>(im.real(n, 4))}, {"beta", static_cast<float>(im.real(n, 3))}}));
}

void map_baddbmm(Importer& im, const jit::Node* n) {
  // aten::baddbmm(self, batch1, batch2, beta, alpha)
  const DataType dtype = im.output_dtype(n);
  Value* product = im.op("MatMul", {im.tensor(n, 1), im.tensor(n, 2)});
  const double alpha = im.real(n, 4);
  const double beta = im.real(n, 3);
  if (alpha != 1.0) product = im.op("Mul", {product, im.scalar(alpha, dtype)});
  if (beta == 0.0) {
    im.bind(n->output(), product);
    return;
  }
  Value* self = im.tensor(n, 0);
  if (beta != 1.0) self = im.op("Mul", {self, im.scalar(beta, dtype)});
  im.bind(n->output(), im.op("Add", {product, self}));
}

/// A per-channel parameter, or `fill` of `channels` when the input is None.
Value* channel_param(Importer& im, const jit::Node* n, size_t i, int64_t channels, float fill, DataType dtype) {
  if (!im.is_none(n, i)) return im.tensor(n, i);
  Value* ones = im.op("ConstantOfShape", {im.const_i64({channels})},
                      {{"value", Tensor::from_vector<float>({1}, {fill})}});
  return im.cast_to(ones, DataType::kFloat32, dtype);
}

void map_batch_norm(Importer& im, const jit::Node* n) {
  // aten::batch_norm(input, weight, bias, running_mean, running_var, training, momentum, eps, cudnn_enabled)
  if (im.boolean(n, 5)) fail("batch_norm in training mode (the module was not put in eval())");
  const int64_t channels = im.input_example(n, 0).size(1);
  const DataType dtype = im.output_dtype(n);
  im.bind(n->output(), im.op("BatchNormalization",
                             {im.tensor(n, 0), channel_param(im, n, 1, channels, 1.f, dtype),
                              channel_param(im, n, 2, channels, 0.f, dtype), im.tensor(n, 3), im.tensor(n, 4)},
                             {{"epsilon", static_cast<float>(im.real(n, 7))}}));
}

void map_layer_norm(Importer& im, const jit::Node* n) {
  // aten::layer_norm(input, normalized_shape, weight, bias, eps, cudnn_enable)
  const std::vector<int64_t> shape = im.ints(n, 1);
  int64_t count = 1;
  for (int64_t d : shape) count *= d;
  const DataType dtype = im.output_dtype(n);
  Value* scale = im.is_none(n, 2) ? nullptr : im.tensor(n, 2);
  if (scale == nullptr) {
    scale = im.cast_to(im.op("ConstantOfShape", {im.const_i64(shape)}, {{"value", Tensor::from_vector<float>({1}, {1.f})}}),
                       DataType::kFloat32, dtype);
  }
  std::vector<Value*> inputs = {im.tensor(n, 0), scale};
  if (!im.is_none(n, 3)) inputs.push_back(im.tensor(n, 3));
  im.bind(n->output(), im.op("LayerNormalization", std::move(inputs),
                             {{"axis", -static_cast<int64_t>(shape.size())},
                              {"epsilon", static_cast<float>(im.real(n, 4))}}));
}

void map_group_norm(Importer& im, const jit::Node* n) {
  // aten::group_norm(input, num_groups, weight, bias, eps, cudnn_enabled)
  const at::Tensor& x = im.input_example(n, 0);
  const int64_t groups = im.integer(n, 1);
  const DataType dtype = im.output_dtype(n);
  Value* grouped = im.op("Reshape", {im.tensor(n, 0), im.const_i64({x.size(0), groups, -1})});
  Value* mean = im.op("ReduceMean", {grouped}, {{"axes", std::vector<int64_t>{2}}, {"keepdims", int64_t{1}}});
  Value* centred = im.op("Sub", {grouped, mean});
  Value* var = im.op("ReduceMean", {im.op("Mul", {centred, centred})},
                     {{"axes", std::vector<int64_t>{2}}, {"keepdims", int64_t{1}}});
  Value* norm = im.op("Div", {centred, im.op("Sqrt", {im.op("Add", {var, im.scalar(im.real(n, 4), dtype)})})});
  Value* y = im.op("Reshape", {norm, im.const_i64(std::vector<int64_t>(x.sizes().begin(), x.sizes().end()))});
  std::vector<int64_t> param_shape(static_cast<size_t>(x.dim() - 1), 1);
  param_shape[0] = x.size(1);
  if (!im.is_none(n, 2)) y = im.op("Mul", {y, im.op("Reshape", {im.tensor(n, 2), im.const_i64(param_shape)})});
  if (!im.is_none(n, 3)) y = im.op("Add", {y, im.op("Reshape", {im.tensor(n, 3), im.const_i64(param_shape)})});
  im.bind(n->output(), y);
}

void map_instance_norm(Importer& im, const jit::Node* n) {
  // aten::instance_norm(input, weight, bias, running_mean, running_var, use_input_stats, momentum, eps, cudnn)
  if (!im.boolean(n, 5)) fail("instance_norm with running statistics (track_running_stats in eval) is not mapped");
  const int64_t channels = im.input_example(n, 0).size(1);
  const DataType dtype = im.output_dtype(n);
  im.bind(n->output(), im.op("InstanceNormalization",
                             {im.tensor(n, 0), channel_param(im, n, 1, channels, 1.f, dtype),
                              channel_param(im, n, 2, channels, 0.f, dtype)},
                             {{"epsilon", static_cast<float>(im.real(n, 7))}}));
}

std::map<std::string, Attribute> pool_attributes(const Importer& im, const jit::Node* n, size_t spatial,
                                                 bool with_dilation) {
  // (input, kernel_size, stride, padding, [dilation], ceil_mode, ...)
  std::map<std::string, Attribute> a;
  const std::vector<int64_t> kernel = repeat_to(im.ints(n, 1), spatial);
  a["kernel_shape"] = kernel;
  std::vector<int64_t> stride = im.ints(n, 2);
  a["strides"] = stride.empty() ? kernel : repeat_to(stride, spatial);
  a["pads"] = onnx_pads(im.ints(n, 3), spatial);
  if (with_dilation) a["dilations"] = repeat_to(im.ints(n, 4), spatial);
  a["ceil_mode"] = int64_t{im.boolean(n, with_dilation ? 5 : 4) ? 1 : 0};
  return a;
}

void map_max_pool(Importer& im, const jit::Node* n) {
  const size_t spatial = static_cast<size_t>(im.input_rank(n, 0) - 2);
  im.bind(n->output(), im.op("MaxPool", {im.tensor(n, 0)}, pool_attributes(im, n, spatial, true)));
}

void map_avg_pool(Importer& im, const jit::Node* n) {
  // aten::avg_pool2d(input, kernel, stride, padding, ceil_mode, count_include_pad, divisor_override)
  const size_t spatial = static_cast<size_t>(im.input_rank(n, 0) - 2);
  if (n->inputs().size() > 6 && !im.is_none(n, 6)) fail("avg_pool with divisor_override is not mapped");
  std::map<std::string, Attribute> a = pool_attributes(im, n, spatial, false);
  a["count_include_pad"] = int64_t{n->inputs().size() > 5 && im.boolean(n, 5) ? 1 : 0};
  im.bind(n->output(), im.op("AveragePool", {im.tensor(n, 0)}, std::move(a)));
}

/// adaptive pooling: global when every output extent is 1, else a fixed window where the
/// input divides evenly.
void adaptive_pool(Importer& im, const jit::Node* n, const std::string& global, const std::string& windowed) {
  const at::Tensor& x = im.input_example(n, 0);
  const std::vector<int64_t> out = output_sizes(im, n);
  const size_t spatial = static_cast<size_t>(x.dim() - 2);
  bool all_one = true;
  std::vector<int64_t> kernel;
  for (size_t i = 0; i < spatial; ++i) {
    const int64_t in = x.size(static_cast<int64_t>(i + 2));
    const int64_t o = out[i + 2];
    all_one = all_one && o == 1;
    if (o == 0 || in % o != 0) {
      fail("adaptive pooling from " + std::to_string(in) + " to " + std::to_string(o) +
           " is not a fixed window (the input does not divide evenly)");
    }
    kernel.push_back(in / o);
  }
  if (all_one) {
    im.bind(n->outputs()[0], im.op(global, {im.tensor(n, 0)}));
  } else {
    im.bind(n->outputs()[0], im.op(windowed, {im.tensor(n, 0)}, {{"kernel_shape", kernel}, {"strides", kernel}}));
  }
  if (n->outputs().size() > 1 && !n->outputs()[1]->uses().empty()) fail("the indices of adaptive max pooling are not mapped");
}

void map_softmax(Importer& im, const jit::Node* n, const std::string& op_type) {
  // aten::softmax(input, dim, dtype)
  Value* x = im.tensor(n, 0);
  const DataType out = im.output_dtype(n);
  x = im.cast_to(x, to_data_type(im.input_example(n, 0).scalar_type()), out);
  im.bind(n->output(), im.op(op_type, {x}, {{"axis", im.integer(n, 1)}}));
}

void map_embedding(Importer& im, const jit::Node* n) {
  // aten::embedding(weight, indices, padding_idx, scale_grad_by_freq, sparse)
  im.bind(n->output(), im.op("Gather", {im.tensor(n, 0), im.tensor(n, 1)}, {{"axis", int64_t{0}}}));
}

/// Resize to the recorded output size.
void resize(Importer& im, const jit::Node* n, const std::string& mode, bool align_corners) {
  std::map<std::string, Attribute> a;
  a["mode"] = mode;
  if (mode == "nearest") {
    a["coordinate_transformation_mode"] = std::string("asymmetric");
    a["nearest_mode"] = std::string("floor");
  } else {
    a["coordinate_transformation_mode"] = std::string(align_corners ? "align_corners" : "pytorch_half_pixel");
    if (mode == "cubic") a["cubic_coeff_a"] = -0.75f;
  }
  im.bind(n->output(), im.op("Resize", {im.tensor(n, 0), nullptr, nullptr, im.const_i64(output_sizes(im, n))}, std::move(a)));
}

void map_upsample_nearest(Importer& im, const jit::Node* n) { resize(im, n, "nearest", false); }

void map_upsample_linear(Importer& im, const jit::Node* n) {
  // aten::upsample_bilinear2d(input, output_size, align_corners, scale_factors | scales...)
  resize(im, n, "linear", im.boolean(n, 2));
}

void map_upsample_cubic(Importer& im, const jit::Node* n) { resize(im, n, "cubic", im.boolean(n, 2)); }

void map_pixel_shuffle(Importer& im, const jit::Node* n) {
  im.bind(n->output(), im.op("DepthToSpace", {im.tensor(n, 0)},
                             {{"blocksize", im.integer(n, 1)}, {"mode", std::string("CRD")}}));
}

void map_identity(Importer& im, const jit::Node* n) { im.bind(n->output(), im.tensor(n, 0)); }

}  // namespace

void add_nn_mappings(MappingTable& t) {
  t["aten::_convolution"] = map_convolution;
  for (const char* k : {"aten::conv1d", "aten::conv2d", "aten::conv3d", "aten::_convolution_mode"}) t[k] = map_conv_nd;
  for (const char* k : {"aten::conv_transpose1d", "aten::conv_transpose2d", "aten::conv_transpose3d"}) {
    t[k] = map_conv_transpose_nd;
  }
  t["aten::linear"] = map_linear;
  for (const char* k : {"aten::matmul", "aten::mm", "aten::bmm"}) t[k] = map_matmul;
  t["aten::addmm"] = map_addmm;
  t["aten::baddbmm"] = map_baddbmm;
  t["aten::batch_norm"] = map_batch_norm;
  t["aten::layer_norm"] = map_layer_norm;
  t["aten::group_norm"] = map_group_norm;
  t["aten::instance_norm"] = map_instance_norm;
  for (const char* k : {"aten::max_pool1d", "aten::max_pool2d", "aten::max_pool3d"}) t[k] = map_max_pool;
  for (const char* k : {"aten::avg_pool1d", "aten::avg_pool2d", "aten::avg_pool3d"}) t[k] = map_avg_pool;
  for (const char* k : {"aten::adaptive_avg_pool1d", "aten::adaptive_avg_pool2d", "aten::adaptive_avg_pool3d"}) {
    t[k] = [](Importer& im, const jit::Node* n) { adaptive_pool(im, n, "GlobalAveragePool", "AveragePool"); };
  }
  for (const char* k : {"aten::adaptive_max_pool1d", "aten::adaptive_max_pool2d", "aten::adaptive_max_pool3d"}) {
    t[k] = [](Importer& im, const jit::Node* n) { adaptive_pool(im, n, "GlobalMaxPool", "MaxPool"); };
  }
  t["aten::softmax"] = [](Importer& im, const jit::Node* n) { map_softmax(im, n, "Softmax"); };
  t["aten::log_softmax"] = [](Importer& im, const jit::Node* n) { map_softmax(im, n, "LogSoftmax"); };
  t["aten::embedding"] = map_embedding;
  for (const char* k : {"aten::upsample_nearest1d", "aten::upsample_nearest2d", "aten::upsample_nearest3d"}) {
    t[k] = map_upsample_nearest;
  }
  for (const char* k : {"aten::upsample_linear1d", "aten::upsample_bilinear2d", "aten::upsample_trilinear3d"}) {
    t[k] = map_upsample_linear;
  }
  t["aten::upsample_bicubic2d"] = map_upsample_cubic;
  t["aten::pixel_shuffle"] = map_pixel_shuffle;
  for (const char* k : {"aten::dropout", "aten::feature_dropout", "aten::alpha_dropout", "aten::feature_alpha_dropout",
                        "aten::contiguous", "aten::detach", "aten::clone", "aten::lift_fresh"}) {
    t[k] = map_identity;
  }
}

}  // namespace ge::torchscript
