// RotaryEmbedding (opset 23): rotates the first rotary_embedding_dim elements of each
// head of X by the angle whose cosine and sine the caches hold for the token's position:
//   real = cos * x1 - sin * x2,  imag = sin * x1 + cos * x2
// where (x1, x2) are the two halves of the rotated part, or its even and odd elements
// when interleaved. X is [batch, heads, seq, head_size] or [batch, seq, heads * head_size]
// (num_heads given). The caches are [max_position + 1, rotary_dim / 2] indexed by
// position_ids [batch, seq], or [batch, seq, rotary_dim / 2] without position_ids.
// Elements past rotary_embedding_dim are copied. Computes in double.

#include <string>

#include "nn/nn_element.h"
#include "nn/registration.h"

namespace ge::reference_kernels {
namespace {

using nn::load;
using nn::store;

struct RotaryEmbeddingParams {
  int64_t batch = 0, heads = 0, sequence = 0, head_size = 0, rotary_dim = 0;
  bool interleaved = false;
  bool four_d = false;            // X is [batch, heads, seq, head]; else [batch, seq, heads * head]
  bool has_position_ids = false;
  int64_t max_positions = 0;      // cache rows when indexed by position_ids
};

template <typename T>
int rotary_embedding_kernel(const KernelArgs& args) {
  const auto& p = *static_cast<const RotaryEmbeddingParams*>(args.params);
  const auto* x = static_cast<const T*>(args.inputs[0]);
  const auto* cos_cache = static_cast<const T*>(args.inputs[1]);
  const auto* sin_cache = static_cast<const T*>(args.inputs[2]);
  const auto* position_ids = p.has_position_ids ? static_cast<const int64_t*>(args.inputs[3]) : nullptr;
  auto* y = static_cast<T*>(args.outputs[0]);
  if (x == nullptr || cos_cache == nullptr || sin_cache == nullptr || y == nullptr ||
      (p.has_position_ids && position_ids == nullptr)) {
    return kKernelMissingAddress;
  }
  const int64_t half = p.rotary_dim / 2;
  for (int64_t b = 0; b < p.batch; ++b) {
    for (int64_t s = 0; s < p.sequence; ++s) {
      int64_t cache_row = b * p.sequence + s;
      if (position_ids != nullptr) {
        cache_row = position_ids[b * p.sequence + s];
        if (cache_row < 0 || cache_row >= p.max_positions) return kKernelIndexOutOfRange;
      }
      const T* cos_row = cos_cache + cache_row * half;
      const T* sin_row = sin_cache + cache_row * half;
      for (int64_t h = 0; h < p.heads; ++h) {
        const int64_t offset = p.four_d ? ((b * p.heads + h) * p.sequence + s) * p.head_size
                                        : ((b * p.sequence + s) * p.heads + h) * p.head_size;
        const T* in = x + offset;
        T* out = y + offset;
        for (int64_t i = 0; i < half; ++i) {
          const int64_t first = p.interleaved ? 2 * i : i;
          const int64_t second = p.interleaved ? 2 * i + 1 : i + half;
          const double c = load(cos_row[i]);
          const double sn = load(sin_row[i]);
          const double x1 = load(in[first]);
          const double x2 = load(in[second]);
          out[first] = store<T>(c * x1 - sn * x2);
          out[second] = store<T>(sn * x1 + c * x2);
        }
        for (int64_t i = p.rotary_dim; i < p.head_size; ++i) out[i] = in[i];
      }
    }
  }
  return kKernelOk;
}

Result<PreparedKernel> prepare_rotary_embedding(const KernelContext& context) {
  const DataType dtype = input_dtype(context, 0);
  GE_ASSIGN_OR_RETURN(std::vector<int64_t> x_dims, input_dims(context, 0));
  RotaryEmbeddingParams p;
  GE_ASSIGN_OR_RETURN(int64_t num_heads, int_attribute(context, "num_heads", 0));
  GE_ASSIGN_OR_RETURN(int64_t interleaved, int_attribute(context, "interleaved", 0));
  if (interleaved != 0 && interleaved != 1) {
    return invalid_attribute(context, "interleaved", "= " + std::to_string(interleaved) + ", expected 0 or 1");
  }
  p.interleaved = interleaved == 1;
  if (num_heads < 0) return invalid_attribute(context, "num_heads", "= " + std::to_string(num_heads) + " is negative");
  if (x_dims.size() == 4) {
    p.four_d = true;
    p.batch = x_dims[0];
    p.heads = x_dims[1];
    p.sequence = x_dims[2];
    p.head_size = x_dims[3];
    if (num_heads != 0 && num_heads != p.heads) {
      return invalid_attribute(context, "num_heads",
                               "= " + std::to_string(num_heads) + " disagrees with X's head dim " +
                                   shape_to_string(x_dims) + "[1]");
    }
  } else if (x_dims.size() == 3) {
    if (num_heads == 0) return invalid_attribute(context, "num_heads", "is required when X is 3-D");
    if (x_dims[2] % num_heads != 0) {
      return invalid_attribute(context, "num_heads",
                               "= " + std::to_string(num_heads) + " does not divide X's hidden size " +
                                   std::to_string(x_dims[2]));
    }
    p.batch = x_dims[0];
    p.sequence = x_dims[1];
    p.heads = num_heads;
    p.head_size = x_dims[2] / num_heads;
  } else {
    return invalid_node(context, "input X must be 3-D [batch, seq, hidden] or 4-D [batch, heads, seq, head_size], "
                                 "got " + shape_to_string(x_dims));
  }
  GE_ASSIGN_OR_RETURN(int64_t rotary_dim, int_attribute(context, "rotary_embedding_dim", 0));
  p.rotary_dim = rotary_dim == 0 ? p.head_size : rotary_dim;
  if (p.rotary_dim < 0 || p.rotary_dim > p.head_size || p.rotary_dim % 2 != 0) {
    return invalid_attribute(context, "rotary_embedding_dim",
                             "gives a rotated width of " + std::to_string(p.rotary_dim) +
                                 ", which must be even and at most the head size " + std::to_string(p.head_size));
  }
  const int64_t half = p.rotary_dim / 2;
  p.has_position_ids = has_input(context, 3);
  std::vector<int64_t> cache_dims;
  for (size_t i = 1; i <= 2; ++i) {
    const char* name = i == 1 ? "cos_cache" : "sin_cache";
    if (!has_input(context, i)) return invalid_node(context, std::string("input '") + name + "' is required");
    GE_RETURN_IF_ERROR(check_input_dtype(context, i, dtype));
    GE_ASSIGN_OR_RETURN(std::vector<int64_t> dims, input_dims(context, i));
    const bool ok = p.has_position_ids ? dims.size() == 2 && dims[1] == half
                                       : dims == std::vector<int64_t>{p.batch, p.sequence, half};
    if (!ok) {
      return invalid_node(context, std::string(name) + " has shape " + shape_to_string(dims) + ", expected " +
                                       (p.has_position_ids
                                            ? "[max_position_id + 1, " + std::to_string(half) + "] with position_ids"
                                            : shape_to_string({p.batch, p.sequence, half}) +
                                                  " without position_ids"));
    }
    if (i == 2 && dims != cache_dims) {
      return invalid_node(context, "sin_cache " + shape_to_string(dims) + " and cos_cache " +
                                       shape_to_string(cache_dims) + " differ in shape");
    }
    cache_dims = dims;
  }
  if (p.has_position_ids) {
    p.max_positions = cache_dims[0];
    GE_RETURN_IF_ERROR(check_input_dtype(context, 3, DataType::kInt64));
    GE_ASSIGN_OR_RETURN(std::vector<int64_t> ids_dims, input_dims(context, 3));
    if (ids_dims != std::vector<int64_t>{p.batch, p.sequence}) {
      return invalid_node(context, "position_ids has shape " + shape_to_string(ids_dims) + ", expected [batch, seq] " +
                                       shape_to_string({p.batch, p.sequence}));
    }
  }
  GE_RETURN_IF_ERROR(check_output(context, 0, dtype, x_dims));
  KernelFunction function = select_kernel(dtype, nn::FloatingTypes{},
                                          []<typename T>() -> KernelFunction { return &rotary_embedding_kernel<T>; });
  if (function == nullptr) return unsupported_dtype(context, dtype, data_types(nn::FloatingTypes{}));
  return make_kernel(context, function, p);
}

}  // namespace

void add_nn_rotary_embedding_kernels(std::vector<OpKernel>& table) {
  table.push_back({"RotaryEmbedding", data_types(nn::FloatingTypes{}), &prepare_rotary_embedding});
}

}  // namespace ge::reference_kernels
