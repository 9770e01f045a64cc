/// PyTorch's fused transformer paths, which nn.MultiheadAttention and
/// nn.TransformerEncoderLayer take in eval mode under torch.no_grad() (and so in every
/// traced inference module) and which torch 1.13's ONNX exporter cannot export: mapped to
/// the products, softmax and normalisations they compute.

#include <cmath>

#include "importer.h"
#include "mapping_util.h"

namespace ge::torchscript {
namespace {

/// x @ W^T + b (W constant: the Transpose folds at compile time).
Value* linear(Importer& im, Value* x, Value* weight, Value* bias) {
  Value* y = im.op("MatMul", {x, im.op("Transpose", {weight}, {{"perm", std::vector<int64_t>{1, 0}}})});
  return bias != nullptr ? im.op("Add", {y, bias}) : y;
}

struct Attention {
  int64_t batch, length, source, embed, heads;
};

/// [B, L, E] -> [B, H, L, D]
Value* split_heads(Importer& im, Value* x, int64_t batch, int64_t length, int64_t heads, int64_t depth) {
  Value* r = im.op("Reshape", {x, im.const_i64({batch, length, heads, depth})});
  return im.op("Transpose", {r}, {{"perm", std::vector<int64_t>{0, 2, 1, 3}}});
}

/// Multi-head attention of query [B, L, E] over key and value [B, S, E] with packed
/// in-projection weights [3E, E]; `mask` (bool: true masks a position; float: added)
/// broadcast as `mask_type` says (0: [L, S], 1: key padding [B, S], 2: [B, H, L, S]).
/// Returns the output [B, L, E] and the attention weights [B, H, L, S].
std::pair<Value*, Value*> attention(Importer& im, const Attention& a, Value* query, Value* key, Value* value,
                                    Value* qkv_weight, Value* qkv_bias, Value* proj_weight, Value* proj_bias,
                                    Value* mask, DataType mask_dtype, int64_t mask_type, DataType dtype) {
  const int64_t depth = a.embed / a.heads;
  Node* w = im.add("Split", {qkv_weight, im.const_i64({a.embed, a.embed, a.embed})}, 3, {{"axis", int64_t{0}}});
  Node* b = im.add("Split", {qkv_bias, im.const_i64({a.embed, a.embed, a.embed})}, 3, {{"axis", int64_t{0}}});
  Value* q = split_heads(im, linear(im, query, w->output(0), b->output(0)), a.batch, a.length, a.heads, depth);
  Value* k = split_heads(im, linear(im, key, w->output(1), b->output(1)), a.batch, a.source, a.heads, depth);
  Value* v = split_heads(im, linear(im, value, w->output(2), b->output(2)), a.batch, a.source, a.heads, depth);
  q = im.op("Mul", {q, im.scalar(1.0 / std::sqrt(static_cast<double>(depth)), dtype)});
  Value* kt = im.op("Transpose", {k}, {{"perm", std::vector<int64_t>{0, 1, 3, 2}}});
  Value* scores = im.op("MatMul", {q, kt});
  if (mask != nullptr) {
    if (mask_type == 1) mask = im.op("Reshape", {mask, im.const_i64({a.batch, 1, 1, a.source})});
    if (mask_dtype == DataType::kBool) {
      scores = im.op("Where", {mask, im.scalar(-INFINITY, dtype), scores});
    } else {
      scores = im.op("Add", {scores, im.cast_to(mask, mask_dtype, dtype)});
    }
  }
  Value* weights = im.op("Softmax", {scores}, {{"axis", int64_t{-1}}});
  Value* context = im.op("Transpose", {im.op("MatMul", {weights, v})}, {{"perm", std::vector<int64_t>{0, 2, 1, 3}}});
  context = im.op("Reshape", {context, im.const_i64({a.batch, a.length, a.embed})});
  return {linear(im, context, proj_weight, proj_bias), weights};
}

Value* optional_mask(Importer& im, const jit::Node* n, size_t i, DataType& dtype) {
  if (im.is_none(n, i)) return nullptr;
  dtype = to_data_type(im.input_example(n, i).scalar_type());
  return im.tensor(n, i);
}

void map_native_mha(Importer& im, const jit::Node* n) {
  // aten::_native_multi_head_attention(query, key, value, embed_dim, num_head, qkv_weight, qkv_bias,
  //   proj_weight, proj_bias, mask, need_weights, average_attn_weights, mask_type) -> (out, weights)
  const at::Tensor& query = im.input_example(n, 0);
  const at::Tensor& key = im.input_example(n, 1);
  if (query.dim() != 3) fail("attention over a query of rank " + std::to_string(query.dim()) + " (unbatched) is not mapped");
  const Attention a{query.size(0), query.size(1), key.size(1), im.integer(n, 3), im.integer(n, 4)};
  DataType mask_dtype = DataType::kBool;
  Value* mask = optional_mask(im, n, 9, mask_dtype);
  const int64_t mask_type = n->inputs().size() > 12 && !im.is_none(n, 12) ? im.integer(n, 12) : (mask ? 2 : -1);
  const DataType dtype = im.output_dtype(n, 0);
  auto [out, weights] = attention(im, a, im.tensor(n, 0), im.tensor(n, 1), im.tensor(n, 2), im.tensor(n, 5),
                                  im.tensor(n, 6), im.tensor(n, 7), im.tensor(n, 8), mask, mask_dtype, mask_type, dtype);
  im.bind(n->outputs()[0], out);
  if (!n->outputs()[1]->uses().empty()) {
    if (!im.boolean(n, 10)) fail("the attention weights are used but need_weights is false");
    im.bind(n->outputs()[1], im.boolean(n, 11) ? im.op("ReduceMean", {weights}, {{"axes", std::vector<int64_t>{1}},
                                                                                  {"keepdims", int64_t{0}}})
                                               : weights);
  }
}

void map_encoder_layer(Importer& im, const jit::Node* n) {
  // aten::_transformer_encoder_layer_fwd(src, embed_dim, num_heads, qkv_weight, qkv_bias, proj_weight,
  //   proj_bias, use_gelu, norm_first, eps, norm_weight_1, norm_bias_1, norm_weight_2, norm_bias_2,
  //   ffn_weight_1, ffn_bias_1, ffn_weight_2, ffn_bias_2, mask, mask_type)
  const at::Tensor& src = im.input_example(n, 0);
  if (src.dim() != 3) fail("an encoder layer over a rank-" + std::to_string(src.dim()) + " input is not mapped");
  const Attention a{src.size(0), src.size(1), src.size(1), im.integer(n, 1), im.integer(n, 2)};
  const DataType dtype = im.output_dtype(n);
  const bool gelu = im.boolean(n, 7);
  const bool norm_first = im.boolean(n, 8);
  const float eps = static_cast<float>(im.real(n, 9));
  DataType mask_dtype = DataType::kBool;
  Value* mask = optional_mask(im, n, 18, mask_dtype);
  const int64_t mask_type = n->inputs().size() > 19 && !im.is_none(n, 19) ? im.integer(n, 19) : (mask ? 2 : -1);
  auto norm = [&](Value* x, size_t weight) {
    return im.op("LayerNormalization", {x, im.tensor(n, weight), im.tensor(n, weight + 1)},
                 {{"axis", int64_t{-1}}, {"epsilon", eps}});
  };
  auto self_attention = [&](Value* x) {
    return attention(im, a, x, x, x, im.tensor(n, 3), im.tensor(n, 4), im.tensor(n, 5), im.tensor(n, 6), mask,
                     mask_dtype, mask_type, dtype)
        .first;
  };
  auto feed_forward = [&](Value* x) {
    Value* h = linear(im, x, im.tensor(n, 14), im.tensor(n, 15));
    if (gelu) {
      Value* inner = im.op("Erf", {im.op("Div", {h, im.scalar(std::sqrt(2.0), dtype)})});
      h = im.op("Mul", {im.op("Mul", {h, im.op("Add", {inner, im.scalar(1, dtype)})}), im.scalar(0.5, dtype)});
    } else {
      h = im.op("Relu", {h});
    }
    return linear(im, h, im.tensor(n, 16), im.tensor(n, 17));
  };
  Value* x = im.tensor(n, 0);
  if (norm_first) {
    x = im.op("Add", {x, self_attention(norm(x, 10))});
    x = im.op("Add", {x, feed_forward(norm(x, 12))});
  } else {
    x = norm(im.op("Add", {x, self_attention(x)}), 10);
    x = norm(im.op("Add", {x, feed_forward(x)}), 12);
  }
  im.bind(n->output(), x);
}

}  // namespace

void add_transformer_mappings(MappingTable& t) {
  t["aten::_native_multi_head_attention"] = map_native_mha;
  t["aten::_transformer_encoder_layer_fwd"] = map_encoder_layer;
}

}  // namespace ge::torchscript
