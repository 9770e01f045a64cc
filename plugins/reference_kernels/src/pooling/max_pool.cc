// MaxPool (opsets 1-12): kernel_shape, strides, pads or auto_pad, dilations, ceil_mode,
// and the optional Indices output (opset >= 8) in row-major or, with storage_order = 1,
// column-major flat positions of the whole input (as ONNX Runtime computes them).
// A NaN in a window is its maximum (the first NaN's index), as in numpy and PyTorch.
// Padding never wins: taps outside the input are skipped. A window with no tap inside
// the input (possible with ceil_mode) yields the lowest value and index -1.
// float16/bfloat16 compute in float32.

#include <limits>
#include <string>
#include <type_traits>

#include "nn/nn_float_bridge.h"
#include "pooling/pool_common.h"
#include "pooling/registration.h"

namespace ge::reference_kernels {
namespace {

using MaxPoolTypes = TypeList<float, double, int8_t, uint8_t>;

struct MaxPoolParams {
  SpatialGeometry geometry;
  int64_t planes = 0;
  bool column_major_indices = false;
  bool has_indices_slot = false;  // the node has a second output (its address may be null)
};

template <typename T>
bool is_nan(T value) {
  if constexpr (std::is_floating_point_v<T>) return value != value;
  return false;
}

template <typename T>
int max_pool_kernel(const KernelArgs& args) {
  const auto& p = *static_cast<const MaxPoolParams*>(args.params);
  const auto* x = static_cast<const T*>(args.inputs[0]);
  auto* y = static_cast<T*>(args.outputs[0]);
  auto* indices = p.has_indices_slot ? static_cast<int64_t*>(args.outputs[1]) : nullptr;
  if (p.planes * p.geometry.output_size() == 0) return kKernelOk;  // empty tensors have no address
  if (x == nullptr || y == nullptr) return kKernelMissingAddress;
  const SpatialGeometry& g = p.geometry;
  const int64_t in_d = g.input[0], in_h = g.input[1], in_w = g.input[2];
  const int64_t in_size = g.input_size();
  int64_t out_index = 0;
  for (int64_t plane = 0; plane < p.planes; ++plane) {
    const T* x_plane = x + plane * in_size;
    for (int64_t od = 0; od < g.output[0]; ++od) {
      const int64_t d0 = od * g.strides[0] - g.pads_begin[0];
      for (int64_t oh = 0; oh < g.output[1]; ++oh) {
        const int64_t h0 = oh * g.strides[1] - g.pads_begin[1];
        for (int64_t ow = 0; ow < g.output[2]; ++ow, ++out_index) {
          const int64_t w0 = ow * g.strides[2] - g.pads_begin[2];
          T best = std::numeric_limits<T>::lowest();
          int64_t best_index = -1;
          const TapRange td = taps_within(d0, g.kernel[0], g.dilations[0], 0, in_d);
          const TapRange th = taps_within(h0, g.kernel[1], g.dilations[1], 0, in_h);
          const TapRange tw = taps_within(w0, g.kernel[2], g.dilations[2], 0, in_w);
          for (int64_t kd = td.begin; kd < td.end; ++kd) {
            const int64_t id = d0 + kd * g.dilations[0];
            for (int64_t kh = th.begin; kh < th.end; ++kh) {
              const int64_t ih = h0 + kh * g.dilations[1];
              for (int64_t kw = tw.begin; kw < tw.end; ++kw) {
                const int64_t iw = w0 + kw * g.dilations[2];
                const T value = x_plane[(id * in_h + ih) * in_w + iw];
                // NaN wins and stays (numpy, PyTorch, ReduceMax): the first NaN's index.
                if (best_index < 0 || value > best || (is_nan(value) && !is_nan(best))) {
                  best = value;
                  best_index =
                      p.column_major_indices ? id + ih * in_d + iw * in_d * in_h : (id * in_h + ih) * in_w + iw;
                }
              }
            }
          }
          y[out_index] = best;
          if (indices != nullptr) indices[out_index] = best_index < 0 ? -1 : plane * in_size + best_index;
        }
      }
    }
  }
  return kKernelOk;
}

Result<PreparedKernel> prepare_max_pool(const KernelContext& context) {
  const DataType dtype = input_dtype(context, 0);
  GE_ASSIGN_OR_RETURN(PoolShape shape, read_pool_shape(context));
  GE_ASSIGN_OR_RETURN(int64_t storage_order, int_attribute(context, "storage_order", 0));
  if (storage_order != 0 && storage_order != 1) {
    return invalid_attribute(context, "storage_order", "= " + std::to_string(storage_order) + " must be 0 or 1");
  }
  GE_RETURN_IF_ERROR(check_output(context, 0, dtype, shape.output_dims));
  if (has_output(context, 1)) GE_RETURN_IF_ERROR(check_output(context, 1, DataType::kInt64, shape.output_dims));
  MaxPoolParams params{shape.geometry, shape.planes, storage_order == 1, context.node.output_count() > 1};
  if (dtype == DataType::kFloat16 || dtype == DataType::kBFloat16) {
    // The float32 loop on converted copies; Indices (int64) are written directly.
    nn::FloatBridge bridge{{product(input_dims(context, 0).value())}, {product(shape.output_dims)}};
    if (params.has_indices_slot) bridge.output_counts.push_back(0);
    return nn::prepare_with_bridge<MaxPoolParams, &max_pool_kernel<float>>(
        context, dtype, params, std::move(bridge), 0, 0, {},
        []<typename T>() -> KernelFunction { return &max_pool_kernel<T>; });
  }
  KernelFunction function =
      select_kernel(dtype, MaxPoolTypes{}, []<typename T>() -> KernelFunction { return &max_pool_kernel<T>; });
  return make_kernel(context, function, params);
}

}  // namespace

void add_max_pool_kernels(std::vector<OpKernel>& table) {
  std::vector<DataType> dtypes = data_types(MaxPoolTypes{});
  dtypes.push_back(DataType::kFloat16);
  dtypes.push_back(DataType::kBFloat16);
  table.push_back({"MaxPool", std::move(dtypes), &prepare_max_pool});
}

}  // namespace ge::reference_kernels
