#include "newer_opsets.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <utility>

#include <onnx/defs/schema.h>
#include <onnx/defs/shape_inference.h>
#include <onnx/defs/tensor_proto_util.h>

#include "ge/data_type.h"

namespace ge::onnx_ops {
namespace {

using onnx::AttributeProto;
using onnx::InferenceContext;
using onnx::OpSchema;
using onnx::TensorShapeProto;

constexpr int kLibonnxNewestOpset = 17;

const std::vector<std::string>& float_types() {
  static const std::vector<std::string> types = {"tensor(float16)", "tensor(float)", "tensor(double)",
                                                 "tensor(bfloat16)"};
  return types;
}

const std::vector<std::string>& integer_types() {
  static const std::vector<std::string> types = {"tensor(uint8)", "tensor(uint16)", "tensor(uint32)",
                                                 "tensor(uint64)", "tensor(int8)",   "tensor(int16)",
                                                 "tensor(int32)", "tensor(int64)"};
  return types;
}

const OpSchema& libonnx_schema(const std::string& op, int version) {
  const OpSchema* schema = onnx::OpSchemaRegistry::Schema(op, version, "");
  if (schema == nullptr) throw std::logic_error("libonnx has no schema " + op + "-" + std::to_string(version));
  return *schema;
}

onnx::InferenceFunction libonnx_inference(const std::string& op, int version) {
  return libonnx_schema(op, version).GetTypeAndShapeInferenceFunction();
}

// Whether input `index` is given (libonnx 1.12's context has no hasInput: an omitted
// optional input has no type).
bool has_input(InferenceContext& ctx, size_t index) {
  return index < ctx.getNumInputs() && ctx.getInputType(index) != nullptr;
}

// The content of input `index` as int64 values, when inference knows it.
bool constant_ints(InferenceContext& ctx, size_t index, std::vector<int64_t>& values) {
  if (!has_input(ctx, index)) return false;
  const onnx::TensorProto* data = ctx.getInputData(index);
  if (data == nullptr) return false;
  if (data->data_type() == onnx::TensorProto::INT64) {
    values = onnx::ParseData<int64_t>(data);
  } else if (data->data_type() == onnx::TensorProto::INT32) {
    std::vector<int32_t> narrow = onnx::ParseData<int32_t>(data);
    values.assign(narrow.begin(), narrow.end());
  } else {
    return false;
  }
  return true;
}

bool constant_floats(InferenceContext& ctx, size_t index, std::vector<float>& values) {
  if (!has_input(ctx, index)) return false;
  const onnx::TensorProto* data = ctx.getInputData(index);
  if (data == nullptr || data->data_type() != onnx::TensorProto::FLOAT) return false;
  values = onnx::ParseData<float>(data);
  return true;
}

int64_t normalised_axis(int64_t axis, int64_t rank, const char* what) {
  if (axis < -rank || axis >= rank) {
    fail_shape_inference(what, " axis ", axis, " is outside [", -rank, ", ", rank, ")");
  }
  return axis < 0 ? axis + rank : axis;
}

// The axes attribute (or all axes of a rank-`rank` tensor), normalised, without repeats.
std::vector<int64_t> axes_attribute(InferenceContext& ctx, int64_t rank) {
  std::vector<int64_t> axes;
  if (!onnx::getRepeatedAttribute(ctx, "axes", axes)) {
    for (int64_t i = 0; i < rank; ++i) axes.push_back(i);
    return axes;
  }
  std::vector<bool> seen(static_cast<size_t>(rank), false);
  for (int64_t& axis : axes) {
    axis = normalised_axis(axis, rank, "attribute 'axes':");
    if (seen[static_cast<size_t>(axis)]) fail_shape_inference("attribute 'axes' repeats axis ", axis);
    seen[static_cast<size_t>(axis)] = true;
  }
  return axes;
}

// ---- inference of the versions whose shape rule is new ----

void infer_same_as_first(InferenceContext& ctx) { onnx::propagateShapeAndTypeFromFirstInput(ctx); }

void infer_broadcast_binary(InferenceContext& ctx) {
  onnx::propagateElemTypeFromInputToOutput(ctx, 0, 0);
  if (onnx::hasNInputShapes(ctx, 2)) {
    onnx::bidirectionalBroadcastShapeInference(ctx.getInputType(0)->tensor_type().shape(),
                                               ctx.getInputType(1)->tensor_type().shape(),
                                               *onnx::getOutputShape(ctx, 0));
  }
}

// Split-18: Split-13's rule, or `num_outputs` chunks of ceil(dim / num_outputs).
void infer_split18(InferenceContext& ctx) {
  const AttributeProto* num_outputs = ctx.getAttribute("num_outputs");
  const bool has_split = has_input(ctx, 1);
  if (num_outputs == nullptr || has_split) {
    if (num_outputs != nullptr) fail_shape_inference("Split: give either the 'split' input or 'num_outputs', not both");
    if (!has_split && ctx.getNumOutputs() == 0) fail_shape_inference("Split has no outputs");
    libonnx_inference("Split", 13)(ctx);
    return;
  }
  const int64_t n = num_outputs->i();
  if (n < 1) fail_shape_inference("Split: 'num_outputs' is ", n, ", must be at least 1");
  if (static_cast<int64_t>(ctx.getNumOutputs()) != n) {
    fail_shape_inference("Split: 'num_outputs' is ", n, " but the node has ", ctx.getNumOutputs(), " outputs");
  }
  for (size_t i = 0; i < ctx.getNumOutputs(); ++i) onnx::propagateElemTypeFromInputToOutput(ctx, 0, i);
  if (!onnx::hasInputShape(ctx, 0)) return;
  const TensorShapeProto& shape = onnx::getInputShape(ctx, 0);
  const int64_t axis = normalised_axis(onnx::getAttribute(ctx, "axis", 0), shape.dim_size(), "Split");
  const auto& split_dim = shape.dim(static_cast<int>(axis));
  for (size_t i = 0; i < ctx.getNumOutputs(); ++i) {
    TensorShapeProto out = shape;
    auto* dim = out.mutable_dim(static_cast<int>(axis));
    dim->Clear();
    if (split_dim.has_dim_value()) {
      const int64_t total = split_dim.dim_value();
      if (total < n) fail_shape_inference("Split: dim ", axis, " (", total, ") is smaller than 'num_outputs' ", n);
      const int64_t chunk = (total + n - 1) / n;
      const int64_t start = chunk * static_cast<int64_t>(i);
      dim->set_dim_value(std::max<int64_t>(0, std::min(chunk, total - start)));
    }
    *onnx::getOutputShape(ctx, i) = out;
  }
}

// Pad-18: Pad-13's rule, or pads for the axes named by input 3.
void infer_pad18(InferenceContext& ctx) {
  if (!has_input(ctx, 3)) {
    libonnx_inference("Pad", 13)(ctx);
    return;
  }
  onnx::propagateElemTypeFromInputToOutput(ctx, 0, 0);
  if (!onnx::hasInputShape(ctx, 0)) return;
  const TensorShapeProto& shape = onnx::getInputShape(ctx, 0);
  const int64_t rank = shape.dim_size();
  TensorShapeProto out;
  for (int64_t i = 0; i < rank; ++i) out.add_dim();
  std::vector<int64_t> axes, pads;
  if (constant_ints(ctx, 3, axes) && constant_ints(ctx, 1, pads)) {
    if (pads.size() != 2 * axes.size()) {
      fail_shape_inference("Pad: 'pads' has ", pads.size(), " values for ", axes.size(), " axes (needs twice as many)");
    }
    std::vector<int64_t> begin(static_cast<size_t>(rank), 0), end(static_cast<size_t>(rank), 0);
    std::vector<bool> seen(static_cast<size_t>(rank), false);
    for (size_t i = 0; i < axes.size(); ++i) {
      const auto a = static_cast<size_t>(normalised_axis(axes[i], rank, "Pad 'axes':"));
      if (seen[a]) fail_shape_inference("Pad: 'axes' repeats axis ", axes[i]);
      seen[a] = true;
      begin[a] = pads[i];
      end[a] = pads[i + axes.size()];
    }
    for (int64_t i = 0; i < rank; ++i) {
      const auto& in = shape.dim(static_cast<int>(i));
      auto* dim = out.mutable_dim(static_cast<int>(i));
      if (in.has_dim_value()) {
        const int64_t extent = in.dim_value() + begin[static_cast<size_t>(i)] + end[static_cast<size_t>(i)];
        if (extent < 0) fail_shape_inference("Pad: dim ", i, " would be negative (", extent, ")");
        dim->set_dim_value(extent);
      } else if (begin[static_cast<size_t>(i)] == 0 && end[static_cast<size_t>(i)] == 0) {
        *dim = in;
      }
    }
  }
  *onnx::getOutputShape(ctx, 0) = out;
}

// Resize-18/19: Resize-13's rule, or scales/sizes for `axes` and keep_aspect_ratio_policy.
void infer_resize18(InferenceContext& ctx) {
  const std::string policy = onnx::getAttribute(ctx, "keep_aspect_ratio_policy", std::string("stretch"));
  if (policy != "stretch" && policy != "not_larger" && policy != "not_smaller") {
    fail_shape_inference("Resize: keep_aspect_ratio_policy '", policy,
                         "' is not one of stretch, not_larger, not_smaller");
  }
  if (ctx.getAttribute("axes") == nullptr && policy == "stretch") {
    libonnx_inference("Resize", 13)(ctx);
    return;
  }
  onnx::propagateElemTypeFromInputToOutput(ctx, 0, 0);
  if (!onnx::hasInputShape(ctx, 0)) return;
  const TensorShapeProto& shape = onnx::getInputShape(ctx, 0);
  const int64_t rank = shape.dim_size();
  const std::vector<int64_t> axes = axes_attribute(ctx, rank);
  TensorShapeProto out = shape;
  for (int64_t a : axes) out.mutable_dim(static_cast<int>(a))->Clear();
  std::vector<int64_t> sizes;
  std::vector<float> scales;
  if (constant_ints(ctx, 3, sizes) && !sizes.empty()) {
    if (sizes.size() != axes.size()) {
      fail_shape_inference("Resize: 'sizes' has ", sizes.size(), " values for ", axes.size(), " axes");
    }
    if (policy == "stretch") {
      for (size_t i = 0; i < axes.size(); ++i) out.mutable_dim(static_cast<int>(axes[i]))->set_dim_value(sizes[i]);
    } else {
      double scale = policy == "not_larger" ? INFINITY : 0.0;
      for (size_t i = 0; i < axes.size(); ++i) {
        const auto& in = shape.dim(static_cast<int>(axes[i]));
        if (!in.has_dim_value() || in.dim_value() == 0) {
          *onnx::getOutputShape(ctx, 0) = out;
          return;
        }
        const double ratio = static_cast<double>(sizes[i]) / static_cast<double>(in.dim_value());
        scale = policy == "not_larger" ? std::min(scale, ratio) : std::max(scale, ratio);
      }
      for (int64_t a : axes) {
        const double extent = scale * static_cast<double>(shape.dim(static_cast<int>(a)).dim_value());
        out.mutable_dim(static_cast<int>(a))->set_dim_value(static_cast<int64_t>(std::round(extent)));
      }
    }
  } else if (constant_floats(ctx, 2, scales) && !scales.empty()) {
    if (scales.size() != axes.size()) {
      fail_shape_inference("Resize: 'scales' has ", scales.size(), " values for ", axes.size(), " axes");
    }
    for (size_t i = 0; i < axes.size(); ++i) {
      const auto& in = shape.dim(static_cast<int>(axes[i]));
      if (!(scales[i] > 0.0f)) fail_shape_inference("Resize: scale ", scales[i], " is not positive");
      if (in.has_dim_value()) {
        out.mutable_dim(static_cast<int>(axes[i]))
            ->set_dim_value(static_cast<int64_t>(std::floor(static_cast<double>(in.dim_value()) * scales[i])));
      }
    }
  }
  *onnx::getOutputShape(ctx, 0) = out;
}

// CenterCropPad-18: the dims named by `axes` take the values of input 1.
void infer_center_crop_pad(InferenceContext& ctx) {
  onnx::propagateElemTypeFromInputToOutput(ctx, 0, 0);
  if (!onnx::hasInputShape(ctx, 0)) return;
  const TensorShapeProto& shape = onnx::getInputShape(ctx, 0);
  const std::vector<int64_t> axes = axes_attribute(ctx, shape.dim_size());
  TensorShapeProto out = shape;
  std::vector<int64_t> extents;
  const bool known = constant_ints(ctx, 1, extents);
  if (known && extents.size() != axes.size()) {
    fail_shape_inference("CenterCropPad: 'shape' has ", extents.size(), " values for ", axes.size(), " axes");
  }
  for (size_t i = 0; i < axes.size(); ++i) {
    auto* dim = out.mutable_dim(static_cast<int>(axes[i]));
    dim->Clear();
    if (known) {
      if (extents[i] < 0) fail_shape_inference("CenterCropPad: 'shape' value ", extents[i], " is negative");
      dim->set_dim_value(extents[i]);
    }
  }
  *onnx::getOutputShape(ctx, 0) = out;
}

// Col2Im-18: [N, C * prod(block_shape), L] -> [N, C, image_shape...].
void infer_col2im(InferenceContext& ctx) {
  onnx::propagateElemTypeFromInputToOutput(ctx, 0, 0);
  std::vector<int64_t> image, block;
  const bool has_image = constant_ints(ctx, 1, image);
  const bool has_block = constant_ints(ctx, 2, block);
  if (has_image && has_block && image.size() != block.size()) {
    fail_shape_inference("Col2Im: image_shape has ", image.size(), " values but block_shape ", block.size());
  }
  TensorShapeProto out;
  auto* n = out.add_dim();
  auto* c = out.add_dim();
  if (onnx::hasInputShape(ctx, 0)) {
    const TensorShapeProto& shape = onnx::getInputShape(ctx, 0);
    if (shape.dim_size() != 3) fail_shape_inference("Col2Im: input has rank ", shape.dim_size(), ", must be 3");
    *n = shape.dim(0);
    if (has_block && shape.dim(1).has_dim_value()) {
      int64_t block_size = 1;
      for (int64_t b : block) {
        if (b <= 0) fail_shape_inference("Col2Im: block_shape value ", b, " is not positive");
        block_size *= b;
      }
      if (shape.dim(1).dim_value() % block_size != 0) {
        fail_shape_inference("Col2Im: input dim 1 (", shape.dim(1).dim_value(),
                             ") is not a multiple of the block size ", block_size);
      }
      c->set_dim_value(shape.dim(1).dim_value() / block_size);
    }
  }
  if (!has_image) {
    if (has_block) {
      for (size_t i = 0; i < block.size(); ++i) out.add_dim();
    } else {
      return;  // rank unknown
    }
  } else {
    for (int64_t extent : image) out.add_dim()->set_dim_value(extent);
  }
  *onnx::getOutputShape(ctx, 0) = out;
}

// AffineGrid-20: size [N, C, H, W] -> [N, H, W, 2]; [N, C, D, H, W] -> [N, D, H, W, 3].
void infer_affine_grid(InferenceContext& ctx) {
  onnx::propagateElemTypeFromInputToOutput(ctx, 0, 0);
  std::vector<int64_t> size;
  if (!constant_ints(ctx, 1, size)) return;
  if (size.size() != 4 && size.size() != 5) fail_shape_inference("AffineGrid: 'size' has ", size.size(), " values, must be 4 or 5");
  TensorShapeProto out;
  out.add_dim()->set_dim_value(size[0]);
  for (size_t i = 2; i < size.size(); ++i) out.add_dim()->set_dim_value(size[i]);
  out.add_dim()->set_dim_value(static_cast<int64_t>(size.size()) - 2);
  *onnx::getOutputShape(ctx, 0) = out;
}

// DFT-20: the signal axis (input 2, default -2) becomes dft_length (input 1) points, or
// half of them plus one when onesided; the last dim becomes 2 (complex).
void infer_dft20(InferenceContext& ctx) {
  onnx::propagateElemTypeFromInputToOutput(ctx, 0, 0);
  if (!onnx::hasInputShape(ctx, 0)) return;
  const TensorShapeProto& shape = onnx::getInputShape(ctx, 0);
  const int64_t rank = shape.dim_size();
  if (rank < 2) fail_shape_inference("DFT: input has rank ", rank, ", needs at least 2");
  const auto& complex = shape.dim(static_cast<int>(rank - 1));
  if (complex.has_dim_value() && complex.dim_value() != 1 && complex.dim_value() != 2) {
    fail_shape_inference("DFT: the last dim of the input is ", complex.dim_value(), ", must be 1 or 2");
  }
  // IRFFT (inverse and onesided): a real signal out, by default 2 * (m - 1) points.
  const bool irfft = onnx::getAttribute(ctx, "inverse", 0) != 0 && onnx::getAttribute(ctx, "onesided", 0) != 0;
  TensorShapeProto out = shape;
  out.mutable_dim(static_cast<int>(rank - 1))->set_dim_value(irfft ? 1 : 2);
  int64_t axis = -2;
  std::vector<int64_t> axis_value;
  if (has_input(ctx, 2)) {
    if (!constant_ints(ctx, 2, axis_value) || axis_value.size() != 1) {
      for (int64_t i = 0; i + 1 < rank; ++i) out.mutable_dim(static_cast<int>(i))->Clear();
      *onnx::getOutputShape(ctx, 0) = out;
      return;
    }
    axis = axis_value[0];
  }
  if (axis < -rank || axis > rank - 2 || axis == -1) {
    fail_shape_inference("DFT: axis ", axis, " is outside [", -rank, ", -2] and [0, ", rank - 2, "]");
  }
  if (axis < 0) axis += rank;
  auto* dim = out.mutable_dim(static_cast<int>(axis));
  std::vector<int64_t> length;
  if (has_input(ctx, 1)) {
    dim->Clear();
    if (!constant_ints(ctx, 1, length) || length.size() != 1) {
      *onnx::getOutputShape(ctx, 0) = out;
      return;
    }
    if (length[0] < 1) fail_shape_inference("DFT: dft_length is ", length[0], ", must be positive");
    dim->set_dim_value(length[0]);
  } else if (irfft && dim->has_dim_value()) {
    dim->set_dim_value(2 * (dim->dim_value() - 1));
  }
  if (onnx::getAttribute(ctx, "onesided", 0) != 0 && !irfft && dim->has_dim_value()) {
    dim->set_dim_value(dim->dim_value() / 2 + 1);
  }
  *onnx::getOutputShape(ctx, 0) = out;
}

// Attention-23: Y from Q and V; present key/value from past and K/V; the QK product.
void infer_attention(InferenceContext& ctx) {
  onnx::propagateElemTypeFromInputToOutput(ctx, 0, 0);
  if (!onnx::hasInputShape(ctx, 0)) return;
  const TensorShapeProto& q = onnx::getInputShape(ctx, 0);
  if (q.dim_size() != 3 && q.dim_size() != 4) fail_shape_inference("Attention: Q has rank ", q.dim_size(), ", must be 3 or 4");
  for (size_t i = 1; i <= 2; ++i) {
    if (onnx::hasInputShape(ctx, i)) {
      const int rank = onnx::getInputShape(ctx, i).dim_size();
      if (rank != q.dim_size()) {
        fail_shape_inference("Attention: ", i == 1 ? "K" : "V", " has rank ", rank, " but Q has rank ", q.dim_size());
      }
    }
  }
  const bool three_d = q.dim_size() == 3;
  int64_t q_heads = 0, kv_heads = 0;
  if (three_d) {
    const AttributeProto* qh = ctx.getAttribute("q_num_heads");
    const AttributeProto* kh = ctx.getAttribute("kv_num_heads");
    if (qh == nullptr || kh == nullptr) fail_shape_inference("Attention: 3-D inputs need q_num_heads and kv_num_heads");
    q_heads = qh->i();
    kv_heads = kh->i();
    if (q_heads <= 0 || kv_heads <= 0) fail_shape_inference("Attention: q_num_heads and kv_num_heads must be positive");
  }
  TensorShapeProto y;
  *y.add_dim() = q.dim(0);
  *y.add_dim() = q.dim(1);
  if (three_d) {
    auto* hidden = y.add_dim();
    if (onnx::hasInputShape(ctx, 2)) {
      const auto& v_hidden = onnx::getInputShape(ctx, 2).dim(2);
      if (v_hidden.has_dim_value()) {
        if (v_hidden.dim_value() % kv_heads != 0) {
          fail_shape_inference("Attention: V's hidden size ", v_hidden.dim_value(), " is not a multiple of kv_num_heads ",
                               kv_heads);
        }
        hidden->set_dim_value(v_hidden.dim_value() / kv_heads * q_heads);
      }
    }
  } else {
    *y.add_dim() = q.dim(2);
    auto* head = y.add_dim();
    if (onnx::hasInputShape(ctx, 2)) *head = onnx::getInputShape(ctx, 2).dim(3);
  }
  *onnx::getOutputShape(ctx, 0) = y;

  // The key/value sequence of this call, and with the past prepended.
  TensorShapeProto::Dimension total;
  if (onnx::hasInputShape(ctx, 1)) total = onnx::getInputShape(ctx, 1).dim(three_d ? 1 : 2);
  const bool has_past = has_input(ctx, 4) && has_input(ctx, 5);
  if (has_past && onnx::hasInputShape(ctx, 4)) {
    const TensorShapeProto& past = onnx::getInputShape(ctx, 4);
    if (past.dim_size() != 4) fail_shape_inference("Attention: past_key has rank ", past.dim_size(), ", must be 4");
    if (total.has_dim_value() && past.dim(2).has_dim_value()) {
      total.set_dim_value(total.dim_value() + past.dim(2).dim_value());
    } else {
      total.Clear();
    }
  } else if (has_past) {
    total.Clear();
  }
  for (size_t out = 1; out <= 2; ++out) {
    if (ctx.getNumOutputs() <= out) continue;
    onnx::propagateElemTypeFromInputToOutput(ctx, out, out);  // K for present_key, V for present_value
    const size_t source = has_past ? out + 3 : out;
    if (!onnx::hasInputShape(ctx, source)) continue;
    const TensorShapeProto& from = onnx::getInputShape(ctx, source);
    TensorShapeProto present;
    *present.add_dim() = from.dim(0);
    if (three_d && !has_past) {
      present.add_dim()->set_dim_value(kv_heads);
      *present.add_dim() = total;
      auto* head = present.add_dim();
      if (from.dim(2).has_dim_value()) head->set_dim_value(from.dim(2).dim_value() / kv_heads);
    } else {
      *present.add_dim() = from.dim(1);
      *present.add_dim() = total;
      *present.add_dim() = from.dim(3);
    }
    *onnx::getOutputShape(ctx, out) = present;
  }
  if (ctx.getNumOutputs() > 3) {
    onnx::propagateElemTypeFromInputToOutput(ctx, 0, 3);
    TensorShapeProto qk;
    *qk.add_dim() = q.dim(0);
    if (three_d) {
      qk.add_dim()->set_dim_value(q_heads);
      *qk.add_dim() = q.dim(1);
    } else {
      *qk.add_dim() = q.dim(1);
      *qk.add_dim() = q.dim(2);
    }
    *qk.add_dim() = total;
    *onnx::getOutputShape(ctx, 3) = qk;
  }
}

// StringSplit-20: Y is X's shape plus one axis, Z is X's shape. The new axis holds the
// largest substring count, known only from the data (run-time inference gives it).
bool is_python_space(uint32_t code) {
  // str.isspace() of Python, which the reference's str.split(None) uses.
  return (code >= 0x09 && code <= 0x0D) || (code >= 0x1C && code <= 0x20) || code == 0x85 || code == 0xA0 ||
         code == 0x1680 || (code >= 0x2000 && code <= 0x200A) || code == 0x2028 || code == 0x2029 ||
         code == 0x202F || code == 0x205F || code == 0x3000;
}

// The byte length of the whitespace code point at text[pos], or 0.
size_t space_length(const std::string& text, size_t pos) {
  const auto byte = [&](size_t i) { return static_cast<unsigned char>(text[i]); };
  const unsigned char lead = byte(pos);
  if (lead < 0x80) return is_python_space(lead) ? 1 : 0;
  size_t count = (lead & 0xE0) == 0xC0 ? 2 : (lead & 0xF0) == 0xE0 ? 3 : 0;  // no 4-byte space exists
  if (count == 0 || pos + count > text.size()) return 0;
  uint32_t code = lead & (count == 2 ? 0x1F : 0x0F);
  for (size_t i = 1; i < count; ++i) {
    if ((byte(pos + i) & 0xC0) != 0x80) return 0;
    code = (code << 6) | (byte(pos + i) & 0x3F);
  }
  return is_python_space(code) ? count : 0;
}

// How many substrings Python's text.split(delimiter or None, maxsplit) gives (maxsplit < 0: no limit).
int64_t substring_count(const std::string& text, const std::string& delimiter, int64_t maxsplit) {
  int64_t count = 0;
  if (!delimiter.empty()) {
    for (size_t pos = text.find(delimiter); pos != std::string::npos && (maxsplit < 0 || count < maxsplit);
         pos = text.find(delimiter, pos + delimiter.size())) {
      ++count;
    }
    return count + 1;
  }
  size_t pos = 0;
  while (pos < text.size()) {
    while (pos < text.size() && space_length(text, pos) > 0) pos += space_length(text, pos);
    if (pos == text.size()) break;
    ++count;
    if (maxsplit >= 0 && count > maxsplit) break;  // the rest is one substring
    while (pos < text.size() && space_length(text, pos) == 0) ++pos;
  }
  return count;
}

void infer_string_split(InferenceContext& ctx) {
  const AttributeProto* maxsplit_attribute = ctx.getAttribute("maxsplit");
  const int64_t maxsplit = maxsplit_attribute != nullptr ? maxsplit_attribute->i() : -1;
  if (maxsplit_attribute != nullptr && maxsplit < 0) {
    fail_shape_inference("StringSplit: 'maxsplit' is ", maxsplit, ", must not be negative");
  }
  const std::string delimiter = onnx::getAttribute(ctx, "delimiter", std::string());
  onnx::updateOutputElemType(ctx, 0, onnx::TensorProto::STRING);
  onnx::updateOutputElemType(ctx, 1, onnx::TensorProto::INT64);
  if (!onnx::hasInputShape(ctx, 0)) return;
  const TensorShapeProto& shape = onnx::getInputShape(ctx, 0);
  *onnx::getOutputShape(ctx, 1) = shape;
  TensorShapeProto y = shape;
  auto* last = y.add_dim();
  const onnx::TensorProto* data = ctx.getInputData(0);
  if (data != nullptr && data->data_type() == onnx::TensorProto::STRING) {
    int64_t most = 0;
    for (const std::string& text : data->string_data()) {
      most = std::max(most, substring_count(text, delimiter, maxsplit));
    }
    last->set_dim_value(most);
  }
  *onnx::getOutputShape(ctx, 0) = y;
}

// RegexFullMatch-20: bools of X's shape.
void infer_regex_full_match(InferenceContext& ctx) {
  if (ctx.getAttribute("pattern") == nullptr) fail_shape_inference("RegexFullMatch: attribute 'pattern' is missing");
  onnx::updateOutputElemType(ctx, 0, onnx::TensorProto::BOOL);
  if (onnx::hasInputShape(ctx, 0)) onnx::propagateShapeFromInputToOutput(ctx, 0, 0);
}

// OptionalHasElement-18: a bool scalar, also for a tensor or sequence input or none.
void infer_optional_has_element(InferenceContext& ctx) {
  if (ctx.getNumInputs() > 1) fail_type_inference("OptionalHasElement has ", ctx.getNumInputs(), " inputs, at most 1");
  auto* tensor = ctx.getOutputType(0)->mutable_tensor_type();
  tensor->set_elem_type(onnx::TensorProto::BOOL);
  tensor->mutable_shape()->Clear();
}

// OptionalGetElement-18: an optional's element type, or a tensor or sequence input's own.
void infer_optional_get_element(InferenceContext& ctx) {
  const onnx::TypeProto* input = ctx.getNumInputs() == 1 ? ctx.getInputType(0) : nullptr;
  if (input == nullptr) fail_type_inference("OptionalGetElement needs its input, with a type");
  if (input->has_optional_type()) {
    if (!input->optional_type().has_elem_type()) {
      fail_type_inference("OptionalGetElement: the optional input has no element type");
    }
    ctx.getOutputType(0)->CopyFrom(input->optional_type().elem_type());
  } else if (input->has_tensor_type() || input->has_sequence_type()) {
    ctx.getOutputType(0)->CopyFrom(*input);
  } else {
    fail_type_inference("OptionalGetElement: the input is not an optional, a tensor or a sequence");
  }
}

// DeformConv-19: Conv's output shape; offset (and mask) must match the kernel and the
// output positions.
void infer_deform_conv(InferenceContext& ctx) {
  libonnx_inference("Conv", 11)(ctx);
  if (!onnx::hasInputShape(ctx, 0) || !onnx::hasInputShape(ctx, 1)) return;
  const TensorShapeProto& x = onnx::getInputShape(ctx, 0);
  const TensorShapeProto& w = onnx::getInputShape(ctx, 1);
  const int spatial = x.dim_size() - 2;
  if (spatial < 1) fail_shape_inference("DeformConv: X has rank ", x.dim_size(), ", needs at least 3");
  const int64_t offset_group = onnx::getAttribute(ctx, "offset_group", 1);
  if (offset_group < 1) fail_shape_inference("DeformConv: 'offset_group' is ", offset_group, ", must be at least 1");
  if (x.dim(1).has_dim_value() && x.dim(1).dim_value() % offset_group != 0) {
    fail_shape_inference("DeformConv: X's ", x.dim(1).dim_value(), " channels are not a multiple of offset_group ",
                         offset_group);
  }
  int64_t kernel = 1;
  for (int d = 0; d < spatial; ++d) {
    if (!w.dim(2 + d).has_dim_value()) return;
    kernel *= w.dim(2 + d).dim_value();
  }
  TensorShapeProto* y = onnx::getOutputShape(ctx, 0);
  for (size_t input = 2; input <= 4; input += 2) {  // offset, mask
    if (!has_input(ctx, input) || !onnx::hasInputShape(ctx, input)) continue;
    const char* name = input == 2 ? "offset" : "mask";
    const TensorShapeProto& shape = onnx::getInputShape(ctx, input);
    if (shape.dim_size() != x.dim_size()) {
      fail_shape_inference("DeformConv: ", name, " has rank ", shape.dim_size(), ", X has rank ", x.dim_size());
    }
    const int64_t channels = offset_group * kernel * (input == 2 ? spatial : 1);
    if (shape.dim(1).has_dim_value() && shape.dim(1).dim_value() != channels) {
      fail_shape_inference("DeformConv: ", name, " has ", shape.dim(1).dim_value(), " channels, expected ", channels,
                           " (offset_group * kernel size", input == 2 ? " * spatial rank)" : ")");
    }
    if (y->dim_size() != x.dim_size()) continue;
    for (int d = 0; d < spatial; ++d) {
      const auto& at = shape.dim(2 + d);
      auto* out = y->mutable_dim(2 + d);
      if (at.has_dim_value() && out->has_dim_value() && at.dim_value() != out->dim_value()) {
        fail_shape_inference("DeformConv: ", name, " has ", at.dim_value(), " positions on spatial axis ", d,
                             " but the output has ", out->dim_value());
      }
    }
  }
}

// Checks the scale (input 1) and zero point (input 2) of QuantizeLinear/DequantizeLinear-21
// against X where shapes are known: blocked (block_size > 0) they have X's shape with
// ceil(dim / block_size) along `axis`.
void check_quantize_layout(InferenceContext& ctx, const char* op) {
  const int64_t block_size = onnx::getAttribute(ctx, "block_size", 0);
  if (block_size < 0) fail_shape_inference(op, ": 'block_size' is ", block_size, ", must be >= 0");
  if (block_size == 0 || !onnx::hasInputShape(ctx, 0) || !onnx::hasInputShape(ctx, 1)) return;
  const TensorShapeProto& x = onnx::getInputShape(ctx, 0);
  const TensorShapeProto& scale = onnx::getInputShape(ctx, 1);
  if (scale.dim_size() != x.dim_size()) {
    fail_shape_inference(op, ": blocked quantization needs a scale of X's rank ", x.dim_size(), ", not ",
                         scale.dim_size());
  }
  const int64_t axis = normalised_axis(onnx::getAttribute(ctx, "axis", 1), x.dim_size(), op);
  for (int d = 0; d < x.dim_size(); ++d) {
    if (!x.dim(d).has_dim_value() || !scale.dim(d).has_dim_value()) continue;
    const int64_t extent = x.dim(d).dim_value();
    const int64_t expected = d == axis ? (extent + block_size - 1) / block_size : extent;
    if (scale.dim(d).dim_value() != expected) {
      fail_shape_inference(op, ": the scale's dim ", d, " is ", scale.dim(d).dim_value(), ", must be ", expected,
                           d == axis ? " (ceil of X's extent / block_size)" : " (X's extent)");
    }
  }
  if (!has_input(ctx, 2) || !onnx::hasInputShape(ctx, 2)) return;
  const TensorShapeProto& zero_point = onnx::getInputShape(ctx, 2);
  bool same = zero_point.dim_size() == scale.dim_size();
  for (int d = 0; same && d < scale.dim_size(); ++d) {
    same = !zero_point.dim(d).has_dim_value() || !scale.dim(d).has_dim_value() ||
           zero_point.dim(d).dim_value() == scale.dim(d).dim_value();
  }
  if (!same) fail_shape_inference(op, ": the zero point must have the scale's shape");
}

// QuantizeLinear-21/23: the zero point's type, else `output_dtype`, else uint8.
void infer_quantize21(InferenceContext& ctx) {
  check_quantize_layout(ctx, "QuantizeLinear");
  const int64_t output_dtype = onnx::getAttribute(ctx, "output_dtype", 0);
  if (has_input(ctx, 2)) {
    const int32_t zero_type = ctx.getInputType(2)->tensor_type().elem_type();
    if (output_dtype != 0 && output_dtype != zero_type) {
      fail_type_inference("QuantizeLinear: 'output_dtype' is ", output_dtype, " but the zero point's type is ",
                          zero_type, " (they must agree)");
    }
    onnx::propagateElemTypeFromInputToOutput(ctx, 2, 0);
  } else {
    onnx::updateOutputElemType(ctx, 0, output_dtype != 0 ? static_cast<int32_t>(output_dtype)
                                                         : static_cast<int32_t>(onnx::TensorProto::UINT8));
  }
  onnx::propagateShapeFromInputToOutput(ctx, 0, 0);
}

// DequantizeLinear-21/23: `output_dtype` (a float type), else the scale's type.
void infer_dequantize21(InferenceContext& ctx) {
  check_quantize_layout(ctx, "DequantizeLinear");
  const int64_t output_dtype = onnx::getAttribute(ctx, "output_dtype", 0);
  if (output_dtype != 0) {
    if (output_dtype != onnx::TensorProto::FLOAT && output_dtype != onnx::TensorProto::FLOAT16 &&
        output_dtype != onnx::TensorProto::BFLOAT16) {
      fail_type_inference("DequantizeLinear: 'output_dtype' is ", output_dtype,
                          ", must be float (1), float16 (10) or bfloat16 (16)");
    }
    onnx::updateOutputElemType(ctx, 0, static_cast<int32_t>(output_dtype));
  } else {
    onnx::propagateElemTypeFromInputToOutput(ctx, 1, 0);
  }
  onnx::propagateShapeFromInputToOutput(ctx, 0, 0);
}

// Cast-19/21/23: libonnx 1.12 refuses a `to` past bfloat16 (16); these versions add the
// float8 (17-20), 4-bit integer (21, 22) and float4 (23) types.
void infer_cast19(InferenceContext& ctx) {
  const AttributeProto* to = ctx.getAttribute("to");
  if (to == nullptr || !to->has_i()) fail_type_inference("Cast: attribute 'to' is required");
  if (to->i() <= 0 || !ge::is_valid_data_type(static_cast<int32_t>(to->i()))) {
    fail_type_inference("Cast: 'to' is ", to->i(), ", not an element type this build holds (1 to 23)");
  }
  onnx::updateOutputElemType(ctx, 0, static_cast<int32_t>(to->i()));
  if (onnx::hasInputShape(ctx, 0)) onnx::propagateShapeFromInputToOutput(ctx, 0, 0);
}

// DequantizeLinear-19: the output has the scale's type (float, float16 or bfloat16);
// version 13 always produced float.
void infer_dequantize19(InferenceContext& ctx) {
  onnx::propagateElemTypeFromInputToOutput(ctx, 1, 0);
  if (onnx::hasInputShape(ctx, 0)) onnx::propagateShapeFromInputToOutput(ctx, 0, 0);
}

// GridSample-20: X [N, C, D1..Dr], grid [N, D1_out..Dr_out, r] -> [N, C, D1_out..Dr_out]
// for any spatial rank r >= 1 (version 16 was 2-D only), cubic included.
void infer_grid_sample20(InferenceContext& ctx) {
  onnx::propagateElemTypeFromInputToOutput(ctx, 0, 0);
  // The copied schema's default is version 16's "bilinear", the same as "linear".
  const std::string mode = onnx::getAttribute(ctx, "mode", std::string("linear"));
  if (mode != "linear" && mode != "bilinear" && mode != "nearest" && mode != "cubic") {
    fail_type_inference("GridSample: 'mode' is \"", mode, "\", must be linear, nearest or cubic");
  }
  if (!onnx::hasInputShape(ctx, 0) || !onnx::hasInputShape(ctx, 1)) return;
  const TensorShapeProto& x = onnx::getInputShape(ctx, 0);
  const TensorShapeProto& grid = onnx::getInputShape(ctx, 1);
  const int rank = x.dim_size();
  if (rank < 3) fail_shape_inference("GridSample: X has rank ", rank, ", needs N, C and at least one spatial axis");
  if (grid.dim_size() != rank) {
    fail_shape_inference("GridSample: grid has rank ", grid.dim_size(), " but X has rank ", rank, " (they must agree)");
  }
  const auto& last = grid.dim(rank - 1);
  if (last.has_dim_value() && last.dim_value() != rank - 2) {
    fail_shape_inference("GridSample: the grid's last dim is ", last.dim_value(), ", must be the spatial rank ",
                         rank - 2);
  }
  TensorShapeProto* y = ctx.getOutputType(0)->mutable_tensor_type()->mutable_shape();
  y->Clear();
  const auto& batch = x.dim(0);
  const auto& grid_batch = grid.dim(0);
  if (batch.has_dim_value() && grid_batch.has_dim_value() && batch.dim_value() != grid_batch.dim_value()) {
    fail_shape_inference("GridSample: X has batch ", batch.dim_value(), " but the grid has ", grid_batch.dim_value());
  }
  *y->add_dim() = batch.has_dim_value() ? batch : grid_batch;
  *y->add_dim() = x.dim(1);
  for (int d = 1; d < rank - 1; ++d) *y->add_dim() = grid.dim(d);
}

// ---- the table ----

// `schema`'s parameters, attributes, type constraints and inference function in a schema
// not yet finalized, so that a version can add to them (a copy of a finalized schema
// cannot be finalized again). Function bodies are not copied: the versions copied here
// infer through their inference function (a test checks that they have one).
// `extra_types` adds types to type constraints, by name.
std::unique_ptr<OpSchema> unfinalized_copy(const OpSchema& schema,
                                           const std::map<std::string, std::vector<std::string>>& extra_types = {}) {
  auto copy = std::make_unique<OpSchema>();
  for (const auto& [name, attribute] : schema.attributes()) copy->Attr(attribute);
  const auto& inputs = schema.inputs();
  for (size_t i = 0; i < inputs.size(); ++i) {
    copy->Input(static_cast<int>(i), inputs[i].GetName(), "", inputs[i].GetTypeStr(), inputs[i].GetOption(),
                inputs[i].GetIsHomogeneous(), inputs[i].GetMinArity(), inputs[i].GetDifferentiationCategory());
  }
  const auto& outputs = schema.outputs();
  for (size_t i = 0; i < outputs.size(); ++i) {
    copy->Output(static_cast<int>(i), outputs[i].GetName(), "", outputs[i].GetTypeStr(), outputs[i].GetOption(),
                 outputs[i].GetIsHomogeneous(), outputs[i].GetMinArity(), outputs[i].GetDifferentiationCategory());
  }
  for (const auto& param : schema.typeConstraintParams()) {
    std::vector<std::string> types = param.allowed_type_strs;
    if (auto extra = extra_types.find(param.type_param_str); extra != extra_types.end()) {
      for (const std::string& type : extra->second) {
        if (std::find(types.begin(), types.end(), type) == types.end()) types.push_back(type);
      }
    }
    copy->TypeConstraint(param.type_param_str, types, param.description);
  }
  if (schema.has_type_and_shape_inference_function()) {
    copy->TypeAndShapeInferenceFunction(schema.GetTypeAndShapeInferenceFunction());
  }
  return copy;
}

class Table {
 public:
  Table() { build(); }

  const NewerVersion* find(const std::string& op, int64_t opset) const {
    auto it = by_op_.find(op);
    if (it == by_op_.end()) return nullptr;
    const NewerVersion* best = nullptr;
    for (size_t index : it->second) {
      const NewerVersion& entry = entries_[index];
      if (entry.since_version <= opset && (best == nullptr || entry.since_version > best->since_version)) best = &entry;
    }
    return best;
  }

  const std::vector<NewerVersion>& entries() const { return entries_; }

 private:
  // The schema version `since` replaces: this table's newest older entry, else libonnx's.
  const OpSchema& previous(const std::string& op, int since) const {
    const NewerVersion* older = find(op, since - 1);
    if (older != nullptr) {
      if (older->schema == nullptr) throw std::logic_error(op + ": no schema before version " + std::to_string(since));
      return *older->schema;
    }
    return libonnx_schema(op, kLibonnxNewestOpset);
  }

  void add(NewerVersion entry, std::unique_ptr<OpSchema> schema) {
    if (schema) {
      schema->SetName(entry.op_type).SetDomain("").SinceVersion(entry.since_version);
      schema->Finalize();  // only unfinalized schemas come here: Finalize counts the inputs again
      entry.schema = schema.get();
      schemas_.push_back(std::move(schema));
    }
    by_op_[entry.op_type].push_back(entries_.size());
    entries_.push_back(std::move(entry));
  }

  // A version that only widened the types: the previous schema, renumbered.
  // `extra_types` names the types the version added to a type constraint (by its name).
  void types_only(const std::string& op, int since, const std::function<void(OpSchema&)>& extend = nullptr,
                  const std::map<std::string, std::vector<std::string>>& extra_types = {}) {
    const OpSchema& base = previous(op, since);
    auto schema = unfinalized_copy(base, extra_types);
    if (extend) extend(*schema);
    const NewerVersion* older = find(op, since - 1);
    const int semantics = older != nullptr ? older->semantics_since : base.SinceVersion();
    add({op, since, semantics, nullptr, {}}, std::move(schema));
  }

  // A version with new semantics whose schema is the previous one with `extend` applied.
  void changed(const std::string& op, int since, const std::function<void(OpSchema&)>& extend) {
    auto schema = unfinalized_copy(previous(op, since));
    if (extend) extend(*schema);
    add({op, since, since, nullptr, {}}, std::move(schema));
  }

  void written(const std::string& op, int since, std::unique_ptr<OpSchema> schema) {
    add({op, since, since, nullptr, {}}, std::move(schema));
  }

  void not_run(const std::string& op, int since, std::string why) {
    add({op, since, since, nullptr, std::move(why)}, nullptr);
  }

  void build();

  std::vector<NewerVersion> entries_;
  std::map<std::string, std::vector<size_t>> by_op_;
  std::vector<std::unique_ptr<OpSchema>> schemas_;
};

// The Reduce* ops of opset 18 (axes as input 1), with the types of their opset-13 version
// plus `extra_types`.
std::unique_ptr<OpSchema> reduce18(const std::string& op, const std::vector<std::string>& extra_types = {}) {
  auto schema = std::make_unique<OpSchema>();
  const OpSchema& old = libonnx_schema(op, 13);
  std::vector<std::string> types;
  for (const auto& param : old.typeConstraintParams()) {
    if (param.type_param_str == "T") types = param.allowed_type_strs;
  }
  types.insert(types.end(), extra_types.begin(), extra_types.end());
  schema->Attr("keepdims", "", AttributeProto::INT, static_cast<int64_t>(1))
      .Attr("noop_with_empty_axes", "", AttributeProto::INT, static_cast<int64_t>(0))
      .Input(0, "data", "", "T")
      .Input(1, "axes", "", "tensor(int64)", OpSchema::Optional)
      .Output(0, "reduced", "", "T")
      .TypeConstraint("T", types, "")
      .TypeAndShapeInferenceFunction(libonnx_inference("ReduceSum", 13));
  return schema;
}

std::unique_ptr<OpSchema> unary(const std::vector<std::string>& types, onnx::InferenceFunction inference = infer_same_as_first) {
  auto schema = std::make_unique<OpSchema>();
  schema->Input(0, "X", "", "T").Output(0, "Y", "", "T").TypeConstraint("T", types, "").TypeAndShapeInferenceFunction(
      std::move(inference));
  return schema;
}

void Table::build() {
  // ---- opset 18 ----
  for (const char* op : {"ReduceL1", "ReduceL2", "ReduceLogSum", "ReduceLogSumExp", "ReduceMax", "ReduceMean",
                         "ReduceMin", "ReduceProd", "ReduceSumSquare"}) {
    written(op, 18, reduce18(op));
  }
  {
    auto schema = std::make_unique<OpSchema>();
    schema->Attr("axis", "", AttributeProto::INT, static_cast<int64_t>(0))
        .Attr("num_outputs", "", AttributeProto::INT, false)
        .Input(0, "input", "", "T")
        .Input(1, "split", "", "tensor(int64)", OpSchema::Optional)
        .Output(0, "outputs", "", "T", OpSchema::Variadic)
        .TypeConstraint("T", OpSchema::all_tensor_types_with_bfloat(), "")
        .TypeAndShapeInferenceFunction(infer_split18);
    written("Split", 18, std::move(schema));
  }
  changed("Pad", 18, [](OpSchema& s) {
    s.Input(3, "axes", "", "Tind", OpSchema::Optional)
        .TypeConstraint("Tind", {"tensor(int32)", "tensor(int64)"}, "")
        .TypeAndShapeInferenceFunction(infer_pad18);
  });
  changed("Resize", 18, [](OpSchema& s) {
    s.Attr("antialias", "", AttributeProto::INT, static_cast<int64_t>(0))
        .Attr("axes", "", AttributeProto::INTS, false)
        .Attr("keep_aspect_ratio_policy", "", AttributeProto::STRING, std::string("stretch"))
        .TypeAndShapeInferenceFunction(infer_resize18);
  });
  changed("ScatterElements", 18, nullptr);  // reduction gains "max" and "min"
  changed("ScatterND", 18, nullptr);
  changed("LpPool", 18, [](OpSchema& s) {
    s.Attr("ceil_mode", "", AttributeProto::INT, static_cast<int64_t>(0))
        .Attr("dilations", "", AttributeProto::INTS, false)
        .TypeAndShapeInferenceFunction(libonnx_inference("MaxPool", 12));  // the rule with dilations
  });
  written("Mish", 18, unary({"tensor(float16)", "tensor(float)", "tensor(double)"}));
  for (const char* op : {"BitwiseAnd", "BitwiseOr", "BitwiseXor"}) {
    auto schema = std::make_unique<OpSchema>();
    schema->Input(0, "A", "", "T").Input(1, "B", "", "T").Output(0, "C", "", "T").TypeConstraint("T", integer_types(), "")
        .TypeAndShapeInferenceFunction(infer_broadcast_binary);
    written(op, 18, std::move(schema));
  }
  written("BitwiseNot", 18, unary(integer_types()));
  {
    auto schema = std::make_unique<OpSchema>();
    schema->Attr("axes", "", AttributeProto::INTS, false)
        .Input(0, "input_data", "", "T")
        .Input(1, "shape", "", "Tind")
        .Output(0, "output_data", "", "T")
        .TypeConstraint("T", OpSchema::all_tensor_types_with_bfloat(), "")
        .TypeConstraint("Tind", {"tensor(int32)", "tensor(int64)"}, "")
        .TypeAndShapeInferenceFunction(infer_center_crop_pad);
    written("CenterCropPad", 18, std::move(schema));
  }
  {
    auto schema = std::make_unique<OpSchema>();
    schema->Attr("dilations", "", AttributeProto::INTS, false)
        .Attr("pads", "", AttributeProto::INTS, false)
        .Attr("strides", "", AttributeProto::INTS, false)
        .Input(0, "input", "", "T")
        .Input(1, "image_shape", "", "tensor(int64)")
        .Input(2, "block_shape", "", "tensor(int64)")
        .Output(0, "output", "", "T")
        .TypeConstraint("T", OpSchema::all_tensor_types_with_bfloat(), "")
        .TypeAndShapeInferenceFunction(infer_col2im);
    written("Col2Im", 18, std::move(schema));
  }
  {
    auto schema = std::make_unique<OpSchema>();
    schema->Attr("epsilon", "", AttributeProto::FLOAT, 1e-5f)
        .Attr("num_groups", "", AttributeProto::INT, true)
        .Input(0, "X", "", "T")
        .Input(1, "scale", "", "T")
        .Input(2, "bias", "", "T")
        .Output(0, "Y", "", "T")
        .TypeConstraint("T", float_types(), "")
        .TypeAndShapeInferenceFunction(infer_same_as_first);
    written("GroupNormalization", 18, std::move(schema));
  }
  {
    // Opset 18 also takes a plain tensor or sequence: it is its own element.
    std::vector<std::string> any_types = OpSchema::all_optional_types();
    for (const auto* more : {&OpSchema::all_tensor_types(), &OpSchema::all_tensor_sequence_types()}) {
      any_types.insert(any_types.end(), more->begin(), more->end());
    }
    std::vector<std::string> element_types = OpSchema::all_tensor_types();
    element_types.insert(element_types.end(), OpSchema::all_tensor_sequence_types().begin(),
                         OpSchema::all_tensor_sequence_types().end());
    auto get = std::make_unique<OpSchema>();
    get->Input(0, "input", "", "O")
        .Output(0, "output", "", "V")
        .TypeConstraint("O", any_types, "")
        .TypeConstraint("V", element_types, "")
        .TypeAndShapeInferenceFunction(infer_optional_get_element);
    written("OptionalGetElement", 18, std::move(get));
    auto has = std::make_unique<OpSchema>();
    has->Input(0, "input", "", "O", OpSchema::Optional)
        .Output(0, "output", "", "B")
        .TypeConstraint("O", any_types, "")
        .TypeConstraint("B", {"tensor(bool)"}, "")
        .TypeAndShapeInferenceFunction(infer_optional_has_element);
    written("OptionalHasElement", 18, std::move(has));
  }

  // ---- opset 19 ----
  // `saturate` applies to float8 targets.
  auto add_saturate = [](OpSchema& s) { s.Attr("saturate", "", AttributeProto::INT, static_cast<int64_t>(1)); };
  types_only("Cast", 19, [&](OpSchema& s) {
    add_saturate(s);
    s.TypeAndShapeInferenceFunction(infer_cast19);
  });
  types_only("CastLike", 19, add_saturate);
  types_only("QuantizeLinear", 19, add_saturate);
  types_only("DequantizeLinear", 19, [](OpSchema& s) { s.TypeAndShapeInferenceFunction(infer_dequantize19); });
  for (const char* op : {"Constant", "Identity", "If", "Loop", "Reshape", "Scan", "Shape", "Size"}) {
    types_only(op, 19);
  }
  types_only("Equal", 19, nullptr, {{"T", {"tensor(string)"}}});
  changed("AveragePool", 19, [](OpSchema& s) {
    s.Attr("dilations", "", AttributeProto::INTS, false).TypeAndShapeInferenceFunction(libonnx_inference("MaxPool", 12));
  });
  changed("Pad", 19, nullptr);     // mode "wrap"
  changed("Resize", 19, nullptr);  // coordinate_transformation_mode "half_pixel_symmetric"
  {
    auto schema = std::make_unique<OpSchema>();
    schema->Attr("dilations", "", AttributeProto::INTS, false)
        .Attr("group", "", AttributeProto::INT, static_cast<int64_t>(1))
        .Attr("kernel_shape", "", AttributeProto::INTS, false)
        .Attr("offset_group", "", AttributeProto::INT, static_cast<int64_t>(1))
        .Attr("pads", "", AttributeProto::INTS, false)
        .Attr("strides", "", AttributeProto::INTS, false)
        .Input(0, "X", "", "T")
        .Input(1, "W", "", "T")
        .Input(2, "offset", "", "T")
        .Input(3, "B", "", "T", OpSchema::Optional)
        .Input(4, "mask", "", "T", OpSchema::Optional)
        .Output(0, "Y", "", "T")
        .TypeConstraint("T", {"tensor(float16)", "tensor(float)", "tensor(double)"}, "")
        .TypeAndShapeInferenceFunction(infer_deform_conv);
    written("DeformConv", 19, std::move(schema));
  }

  // ---- opset 20 ----
  for (const char* op : {"ConstantOfShape", "IsInf", "IsNaN"}) types_only(op, 20);
  changed("GridSample", 20, [](OpSchema& s) {  // modes "linear"/"cubic", N-D
    s.TypeAndShapeInferenceFunction(infer_grid_sample20);
  });
  for (const char* op : {"ReduceMax", "ReduceMin"}) written(op, 20, reduce18(op, {"tensor(bool)"}));
  {
    auto schema = unary(float_types());
    schema->Attr("approximate", "", AttributeProto::STRING, std::string("none"));
    written("Gelu", 20, std::move(schema));
  }
  {
    auto schema = std::make_unique<OpSchema>();
    schema->Attr("align_corners", "", AttributeProto::INT, static_cast<int64_t>(0))
        .Input(0, "theta", "", "T1")
        .Input(1, "size", "", "T2")
        .Output(0, "grid", "", "T1")
        .TypeConstraint("T1", float_types(), "")
        .TypeConstraint("T2", {"tensor(int64)"}, "")
        .TypeAndShapeInferenceFunction(infer_affine_grid);
    written("AffineGrid", 20, std::move(schema));
  }
  {
    auto schema = std::make_unique<OpSchema>();
    schema->Attr("inverse", "", AttributeProto::INT, static_cast<int64_t>(0))
        .Attr("onesided", "", AttributeProto::INT, static_cast<int64_t>(0))
        .Input(0, "input", "", "T1")
        .Input(1, "dft_length", "", "T2", OpSchema::Optional)
        .Input(2, "axis", "", "tensor(int64)", OpSchema::Optional)
        .Output(0, "output", "", "T1")
        .TypeConstraint("T1", float_types(), "")
        .TypeConstraint("T2", {"tensor(int32)", "tensor(int64)"}, "")
        .TypeAndShapeInferenceFunction(infer_dft20);
    written("DFT", 20, std::move(schema));
  }
  not_run("ImageDecoder", 20, "image decoding is not supported by this build");
  {
    auto schema = std::make_unique<OpSchema>();
    schema->Attr("pattern", "", AttributeProto::STRING, false)
        .Input(0, "X", "", "T1")
        .Output(0, "Y", "", "T2")
        .TypeConstraint("T1", {"tensor(string)"}, "")
        .TypeConstraint("T2", {"tensor(bool)"}, "")
        .TypeAndShapeInferenceFunction(infer_regex_full_match);
    written("RegexFullMatch", 20, std::move(schema));
  }
  {
    auto schema = std::make_unique<OpSchema>();
    schema->Input(0, "X", "", "T").Input(1, "Y", "", "T").Output(0, "Z", "", "T")
        .TypeConstraint("T", {"tensor(string)"}, "")
        .TypeAndShapeInferenceFunction(infer_broadcast_binary);
    written("StringConcat", 20, std::move(schema));
  }
  {
    auto schema = std::make_unique<OpSchema>();
    schema->Attr("delimiter", "", AttributeProto::STRING, false)
        .Attr("maxsplit", "", AttributeProto::INT, false)
        .Input(0, "X", "", "T1")
        .Output(0, "Y", "", "T2")
        .Output(1, "Z", "", "T3")
        .TypeConstraint("T1", {"tensor(string)"}, "")
        .TypeConstraint("T2", {"tensor(string)"}, "")
        .TypeConstraint("T3", {"tensor(int64)"}, "")
        .TypeAndShapeInferenceFunction(infer_string_split);
    written("StringSplit", 20, std::move(schema));
  }

  // ---- opset 21 ----
  for (const char* op : {"Cast", "CastLike", "Constant", "ConstantOfShape", "Flatten", "Identity", "If", "Loop", "Pad",
                         "Reshape", "Scan", "Shape", "Size", "Squeeze", "Transpose", "Unsqueeze", "QLinearMatMul"}) {
    types_only(op, 21);
  }
  // Blocked quantization (block_size) and Q's output_dtype; 16-bit integer types.
  const std::map<std::string, std::vector<std::string>> int16_types = {{"T", {"tensor(int16)", "tensor(uint16)"}},
                                                                       {"T2", {"tensor(int16)", "tensor(uint16)"}}};
  types_only("DequantizeLinear", 21, [](OpSchema& s) {
    s.Attr("block_size", "", AttributeProto::INT, static_cast<int64_t>(0))
        .TypeAndShapeInferenceFunction(infer_dequantize21);
  }, int16_types);
  types_only("QuantizeLinear", 21, [](OpSchema& s) {
    s.Attr("block_size", "", AttributeProto::INT, static_cast<int64_t>(0))
        .Attr("output_dtype", "", AttributeProto::INT, static_cast<int64_t>(0))
        .TypeAndShapeInferenceFunction(infer_quantize21);
  }, int16_types);
  {
    auto schema = std::make_unique<OpSchema>();
    schema->Attr("epsilon", "", AttributeProto::FLOAT, 1e-5f)
        .Attr("num_groups", "", AttributeProto::INT, true)
        .Attr("stash_type", "", AttributeProto::INT, static_cast<int64_t>(1))
        .Input(0, "X", "", "T")
        .Input(1, "scale", "", "T")
        .Input(2, "bias", "", "T")
        .Output(0, "Y", "", "T")
        .TypeConstraint("T", float_types(), "")
        .TypeAndShapeInferenceFunction(infer_same_as_first);
    written("GroupNormalization", 21, std::move(schema));
  }

  // ---- opset 22: bfloat16 on these ops, nothing else ----
  for (const char* op : {"Acos", "Acosh", "Asin", "Asinh", "Atan", "Atanh", "AveragePool", "Bernoulli", "Conv",
                         "ConvTranspose", "Cos", "Cosh", "Det", "Dropout", "Elu", "EyeLike", "GRU",
                         "GlobalAveragePool", "GlobalLpPool", "GlobalMaxPool", "GridSample", "HardSigmoid",
                         "HardSwish", "InstanceNormalization", "LSTM", "LpNormalization", "LpPool", "MaxPool",
                         "MaxRoiPool", "MaxUnpool", "Mish", "Multinomial", "NegativeLogLikelihoodLoss", "RNN",
                         "RandomNormal", "RandomNormalLike", "RandomUniform", "RandomUniformLike", "RoiAlign", "Round",
                         "Selu", "Sin", "Sinh", "Softplus", "Softsign", "Tan", "ThresholdedRelu"}) {
    types_only(op, 22);
  }
  types_only("DeformConv", 22, nullptr, {{"T", {"tensor(bfloat16)"}}});

  // ---- opset 23 ----
  for (const char* op : {"Cast", "CastLike", "Constant", "ConstantOfShape", "Flatten", "Identity", "If", "Loop", "Pad",
                         "Reshape", "Scan", "Shape", "Size", "Squeeze", "Transpose", "Unsqueeze"}) {
    types_only(op, 23);
  }
  types_only("DequantizeLinear", 23,
             [](OpSchema& s) { s.Attr("output_dtype", "", AttributeProto::INT, static_cast<int64_t>(0)); });
  types_only("QuantizeLinear", 23,
             [](OpSchema& s) { s.Attr("precision", "", AttributeProto::INT, static_cast<int64_t>(0)); });
  {
    auto schema = std::make_unique<OpSchema>();
    schema->Attr("axis", "", AttributeProto::INT, static_cast<int64_t>(-1))
        .Attr("epsilon", "", AttributeProto::FLOAT, 1e-5f)
        .Attr("stash_type", "", AttributeProto::INT, static_cast<int64_t>(1))
        .Input(0, "X", "", "T")
        .Input(1, "scale", "", "V")
        .Output(0, "Y", "", "V")
        .TypeConstraint("T", float_types(), "")
        .TypeConstraint("V", float_types(), "")
        .TypeAndShapeInferenceFunction([](InferenceContext& ctx) {
          onnx::propagateElemTypeFromInputToOutput(ctx, 1, 0);
          onnx::propagateShapeFromInputToOutput(ctx, 0, 0);
        });
    written("RMSNormalization", 23, std::move(schema));
  }
  {
    auto schema = std::make_unique<OpSchema>();
    schema->Attr("interleaved", "", AttributeProto::INT, static_cast<int64_t>(0))
        .Attr("num_heads", "", AttributeProto::INT, false)
        .Attr("rotary_embedding_dim", "", AttributeProto::INT, static_cast<int64_t>(0))
        .Input(0, "X", "", "T")
        .Input(1, "cos_cache", "", "T")
        .Input(2, "sin_cache", "", "T")
        .Input(3, "position_ids", "", "M", OpSchema::Optional)
        .Output(0, "Y", "", "T")
        .TypeConstraint("T", float_types(), "")
        .TypeConstraint("M", {"tensor(int64)"}, "")
        .TypeAndShapeInferenceFunction(infer_same_as_first);
    written("RotaryEmbedding", 23, std::move(schema));
  }
  {
    auto schema = std::make_unique<OpSchema>();
    schema->Attr("is_causal", "", AttributeProto::INT, static_cast<int64_t>(0))
        .Attr("kv_num_heads", "", AttributeProto::INT, false)
        .Attr("q_num_heads", "", AttributeProto::INT, false)
        .Attr("qk_matmul_output_mode", "", AttributeProto::INT, static_cast<int64_t>(0))
        .Attr("scale", "", AttributeProto::FLOAT, false)
        .Attr("softcap", "", AttributeProto::FLOAT, 0.0f)
        .Attr("softmax_precision", "", AttributeProto::INT, false)
        .Input(0, "Q", "", "T1")
        .Input(1, "K", "", "T1")
        .Input(2, "V", "", "T2")
        .Input(3, "attn_mask", "", "U", OpSchema::Optional)
        .Input(4, "past_key", "", "T1", OpSchema::Optional)
        .Input(5, "past_value", "", "T2", OpSchema::Optional)
        .Output(0, "Y", "", "T1")
        .Output(1, "present_key", "", "T1", OpSchema::Optional)
        .Output(2, "present_value", "", "T2", OpSchema::Optional)
        .Output(3, "qk_matmul_output", "", "T1", OpSchema::Optional)
        .TypeConstraint("T1", float_types(), "")
        .TypeConstraint("T2", float_types(), "")
        .TypeConstraint("U", {"tensor(bool)", "tensor(float16)", "tensor(float)", "tensor(double)", "tensor(bfloat16)"},
                        "")
        .TypeAndShapeInferenceFunction(infer_attention);
    written("Attention", 23, std::move(schema));
  }
}

const Table& table() {
  static const Table instance;
  return instance;
}

}  // namespace

const NewerVersion* find_newer_version(const std::string& op_type, int64_t opset) {
  if (opset <= kLibonnxNewestOpset) return nullptr;
  return table().find(op_type, opset);
}

int semantics_version(const std::string& op_type, int64_t opset) {
  if (const NewerVersion* newer = find_newer_version(op_type, opset)) return newer->semantics_since;
  if (opset < 1) return 0;
  const int version = static_cast<int>(std::min<int64_t>(opset, kLibonnxNewestOpset));
  const OpSchema* schema = onnx::OpSchemaRegistry::Schema(op_type, version, "");
  return schema == nullptr ? 0 : schema->SinceVersion();
}

const std::vector<NewerVersion>& newer_versions() { return table().entries(); }

}  // namespace ge::onnx_ops
