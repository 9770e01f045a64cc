#pragma once
// The lowering of a sliding window to a matrix product that Conv, ConvTranspose,
// ConvInteger and QLinearConv share. For a window geometry g (spatial ranks padded to 3
// by SpatialGeometry), the im2col matrix of `channels` input planes has one row per
// (channel, kernel tap) and one column per output position; im2col writes it and
// col2im_accumulate is its adjoint (scatter-adds such a matrix back into input planes),
// which is how ConvTranspose computes.

#include <algorithm>
#include <cstdint>

#include "ge/reference_kernels/spatial_geometry.h"

namespace ge::reference_kernels {

/// Writes the [channels * kernel taps, output positions] matrix of `x` (channels planes
/// of g.input extents) to `columns`; taps in the padding read as zero.
template <typename T>
void im2col(const T* x, int64_t channels, const SpatialGeometry& g, T* columns) {
  const int64_t in_d = g.input[0], in_h = g.input[1], in_w = g.input[2];
  const int64_t out_d = g.output[0], out_h = g.output[1], out_w = g.output[2];
  T* out = columns;
  for (int64_t c = 0; c < channels; ++c) {
    const T* plane = x + c * g.input_size();
    for (int64_t kd = 0; kd < g.kernel[0]; ++kd) {
      for (int64_t kh = 0; kh < g.kernel[1]; ++kh) {
        for (int64_t kw = 0; kw < g.kernel[2]; ++kw) {
          for (int64_t od = 0; od < out_d; ++od) {
            const int64_t id = od * g.strides[0] - g.pads_begin[0] + kd * g.dilations[0];
            if (id < 0 || id >= in_d) {
              std::fill(out, out + out_h * out_w, T(0));
              out += out_h * out_w;
              continue;
            }
            for (int64_t oh = 0; oh < out_h; ++oh) {
              const int64_t ih = oh * g.strides[1] - g.pads_begin[1] + kh * g.dilations[1];
              if (ih < 0 || ih >= in_h) {
                std::fill(out, out + out_w, T(0));
                out += out_w;
                continue;
              }
              const T* row = plane + (id * in_h + ih) * in_w;
              for (int64_t ow = 0; ow < out_w; ++ow) {
                const int64_t iw = ow * g.strides[2] - g.pads_begin[2] + kw * g.dilations[2];
                *out++ = (iw >= 0 && iw < in_w) ? row[iw] : T(0);
              }
            }
          }
        }
      }
    }
  }
}

/// The adjoint of im2col: adds each element of the [channels * kernel taps, output
/// positions] matrix `columns` to the element of `x` (channels planes of g.input extents)
/// its tap reads; taps in the padding are dropped.
template <typename T>
void col2im_accumulate(const T* columns, int64_t channels, const SpatialGeometry& g, T* x) {
  const int64_t in_d = g.input[0], in_h = g.input[1], in_w = g.input[2];
  const int64_t out_d = g.output[0], out_h = g.output[1], out_w = g.output[2];
  const T* in = columns;
  for (int64_t c = 0; c < channels; ++c) {
    T* plane = x + c * g.input_size();
    for (int64_t kd = 0; kd < g.kernel[0]; ++kd) {
      for (int64_t kh = 0; kh < g.kernel[1]; ++kh) {
        for (int64_t kw = 0; kw < g.kernel[2]; ++kw) {
          for (int64_t od = 0; od < out_d; ++od) {
            const int64_t id = od * g.strides[0] - g.pads_begin[0] + kd * g.dilations[0];
            if (id < 0 || id >= in_d) {
              in += out_h * out_w;
              continue;
            }
            for (int64_t oh = 0; oh < out_h; ++oh) {
              const int64_t ih = oh * g.strides[1] - g.pads_begin[1] + kh * g.dilations[1];
              if (ih < 0 || ih >= in_h) {
                in += out_w;
                continue;
              }
              T* row = plane + (id * in_h + ih) * in_w;
              for (int64_t ow = 0; ow < out_w; ++ow, ++in) {
                const int64_t iw = ow * g.strides[2] - g.pads_begin[2] + kw * g.dilations[2];
                if (iw >= 0 && iw < in_w) row[iw] += *in;
              }
            }
          }
        }
      }
    }
  }
}

}  // namespace ge::reference_kernels
