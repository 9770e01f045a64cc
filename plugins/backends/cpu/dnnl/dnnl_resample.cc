// Resize (opsets 10+) on oneDNN's resampling primitive, float32/float16/bfloat16, 3-D to 5-D, any stored
// format: the cases where ONNX and oneDNN agree exactly.
// - nearest with integer upscale factors, where the ONNX coordinate rule in use maps
//   output x to input floor(x / factor) (plain replication): asymmetric with floor (or
//   round_prefer_floor up to factor 2), half_pixel / pytorch_half_pixel with round_prefer_*;
// - linear with half_pixel (oneDNN's linear convention), upscaling only, batch and
//   channels not resized.
// Everything else (cubic, align_corners, tf_crop_and_resize, antialias, downscaling
// nearest, resized N or C) stays on the reference kernel.

#include <algorithm>
#include <string>

#include "dnnl_fast_paths.h"
#include "dnnl_program.h"
#include "dnnl_util.h"
#include "ge/logging.h"

namespace ge::cpu_dnnl {

bool resample_applies(const Node& node) {
  const Value* x = node.input(0);
  const Value* y = node.output(0);
  if (!is_float(x) || storage_type(y) != storage_type(x) || !x->desc().is_static() || !y->desc().is_static()) {
    return false;
  }
  if (node.get_int("antialias", 0) != 0 || node.has_attribute("axes")) return false;
  const Dims x_dims = dims_of(*x), y_dims = dims_of(*y);
  if (x_dims.size() < 3 || x_dims.size() > 5 || x_dims[0] != y_dims[0] || x_dims[1] != y_dims[1]) return false;
  const std::string mode = node.get_string("mode", "nearest");
  const std::string coordinates = node.get_string("coordinate_transformation_mode", "half_pixel");
  if (mode == "nearest") {
    const std::string rounding = node.get_string("nearest_mode", "round_prefer_floor");
    // x = k * F + j (0 <= j < F). half_pixel: (x + 0.5) / F - 0.5 = k + (j + 0.5) / F - 0.5
    // lies strictly within 0.5 of k, so any rounding gives k. asymmetric: x / F = k + j / F,
    // k under floor, and under round_prefer_floor only while F <= 2 (j / F <= 0.5).
    const bool rounds = rounding == "round_prefer_floor" || rounding == "round_prefer_ceil";
    const bool half_pixel = coordinates == "half_pixel" || coordinates == "pytorch_half_pixel";
    int64_t largest_factor = 1;
    for (size_t i = 2; i < x_dims.size(); ++i) {
      if (x_dims[i] == 0 || y_dims[i] % x_dims[i] != 0) return false;
      largest_factor = std::max(largest_factor, y_dims[i] / x_dims[i]);
    }
    if (half_pixel) return rounds;
    if (coordinates != "asymmetric") return false;
    return rounding == "floor" || (rounding == "round_prefer_floor" && largest_factor <= 2);
  }
  // oneDNN's linear resampling agrees with ONNX's half_pixel when upscaling only
  // (downscaling differs: conformance test_resize_downsample_scales_linear).
  if (mode != "linear" || coordinates != "half_pixel") return false;
  for (size_t i = 2; i < x_dims.size(); ++i) {
    if (y_dims[i] < x_dims[i]) return false;
  }
  return true;
}

std::optional<PreparedKernel> prepare_resample(const Node& node, std::string_view backend, const Options& options) {
  if (!resample_applies(node)) return std::nullopt;
  std::optional<dnnl::memory::desc> x_stored = stored_desc(*node.input(0)), y_md = stored_desc(*node.output(0));
  if (!x_stored || !y_md) return std::nullopt;
  // bfloat16 natively, float16 in float32 (converted at the boundary).
  const DnnlType storage = x_stored->data_type(), type = compute_type(storage);
  const dnnl::memory::desc x_md = with_type(*x_stored, type);
  const bool nearest = node.get_string("mode", "nearest") == "nearest";
  try {
    // The destination in the source's layout (oneDNN's jit kernels want them alike); a
    // reorder writes the stored output format when it differs.
    const dnnl::memory::desc y_like_x(dims_of(*node.output(0)), type, Tag::any);
    dnnl::resampling_forward::desc desc(
        dnnl::prop_kind::forward_inference,
        nearest ? dnnl::algorithm::resampling_nearest : dnnl::algorithm::resampling_linear, x_md, y_like_x);
    const dnnl::primitive_attr attr = kernel_attributes();
    dnnl::resampling_forward::primitive_desc pd(desc, attr, cpu_engine());
    if (std::string(pd.impl_info_str()).rfind("ref", 0) == 0 && node.input(0)->desc().is_plain() &&
        node.output(0)->desc().is_plain()) {
      return std::nullopt;  // oneDNN's reference loop: no faster than ours
    }
    ProgramBuilder builder;
    const ArgSource src = builder.input(0, *x_stored, x_md);
    const ArgSource dst = builder.output_or_workspace(pd.dst_desc(), *y_md);
    builder.add(dnnl::resampling_forward(pd), {{DNNL_ARG_SRC, x_md, src}, {DNNL_ARG_DST, pd.dst_desc(), dst}},
                pd.scratchpad_desc());
    builder.finish_output(pd.dst_desc(), dst, *y_md);
    return std::move(builder).build(
        fast_kernel_name(backend, node, pd.impl_info_str()) + precision_suffix(storage, false), options.threads);
  } catch (const dnnl::error& error) {
    GE_LOG_DEBUG("{}: no oneDNN fast path: {}", node.describe(), error.what());
    return std::nullopt;
  }
}

}  // namespace ge::cpu_dnnl
