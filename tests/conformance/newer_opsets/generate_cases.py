#!/usr/bin/python3
"""Writes ONNX backend-style node test cases for the ops changed or added in opsets 18-23.

    /usr/bin/python3 generate_cases.py OUT_DIR

Layout: OUT_DIR/node/<case>/model.onnx + test_data_set_0/input_K.pb, output_K.pb.
Expected outputs come from the numpy references below (transcribed from
onnx/reference/ops/op_*.py of ONNX main; deviations are noted in README.md).
Needs only numpy and onnx>=1.12's helper/numpy_helper (the checker is never called: onnx
1.12 does not know opset 18+). Deterministic: one fixed numpy seed, cases in fixed order.
"""
import math
import os
import shutil
import sys

import numpy as np
from onnx import helper, numpy_helper, TensorProto, mapping

import small_types as st
from small_types import Coded

RNG = np.random.RandomState(20240518)
CASES = []


def rnd(*shape, dtype=np.float32, lo=-1.0, hi=1.0):
    return RNG.uniform(lo, hi, size=shape).astype(dtype)


def _vi(name, arr):
    if isinstance(arr, Coded):
        return helper.make_tensor_value_info(name, arr.t, list(arr.shape))
    et = mapping.NP_TYPE_TO_TENSOR_TYPE[np.dtype(arr.dtype)]
    return helper.make_tensor_value_info(name, et, list(arr.shape))


def _proto(a, name):
    if isinstance(a, Coded):
        return st.to_proto(a, name)
    return numpy_helper.from_array(np.asarray(a), name)


def case(name, opset, op_type, inputs, outputs, attrs=None, in_names=None, out_names=None):
    """inputs: list of (name, array), (name, array, "const") for an initializer (a constant,
    not a graph input), or None for an omitted optional input ("").
    outputs: list of (name, array) or None for an omitted optional output."""
    node_in = []
    graph_in = []
    inits = []
    feeds = []
    for item in inputs:
        if item is None:
            node_in.append("")
            continue
        n, a = item[0], item[1]
        node_in.append(n)
        if len(item) == 3:
            inits.append(_proto(a, n))
            continue
        graph_in.append(_vi(n, a))
        feeds.append(a)
    node_out = []
    graph_out = []
    exp = []
    for item in outputs:
        if item is None:
            node_out.append("")
            continue
        n, a = item
        node_out.append(n)
        graph_out.append(_vi(n, a))
        exp.append(a)
    node = helper.make_node(op_type, node_in, node_out, **(attrs or {}))
    graph = helper.make_graph([node], name, graph_in, graph_out, initializer=inits)
    model = helper.make_model(graph, producer_name="ge-newer-opsets",
                              opset_imports=[helper.make_opsetid("", opset)])
    model.ir_version = 10 if opset >= 21 else 9
    CASES.append((name, model, feeds, exp))


# ----------------------------------------------------------------------------- Reduce-18/20
def _reduce(fn, x, axes, keepdims, noop):
    # noop_with_empty_axes=1 and no axes: reduction over the empty set of axes. The
    # reduction step is the identity but composite reductions keep their element-wise
    # steps (ReduceL1 -> Abs, ReduceSumSquare -> Square, ReduceLogSum -> Log; ONNX #7421,
    # and onnx/reference handle_axes -> axis=()).
    if axes is None or len(axes) == 0:
        axes = () if noop else tuple(range(x.ndim))
    return fn(x, tuple(int(a) for a in axes), keepdims == 1)


REDUCERS = {
    "ReduceMean": lambda x, a, k: np.mean(x, axis=a, keepdims=k),
    "ReduceMax": lambda x, a, k: np.max(x, axis=a, keepdims=k),
    "ReduceMin": lambda x, a, k: np.min(x, axis=a, keepdims=k),
    "ReduceSumSquare": lambda x, a, k: np.sum(np.square(x), axis=a, keepdims=k),
    "ReduceL1": lambda x, a, k: np.sum(np.abs(x), axis=a, keepdims=k),
    "ReduceL2": lambda x, a, k: np.sqrt(np.sum(np.square(x), axis=a, keepdims=k)),
    "ReduceLogSum": lambda x, a, k: np.log(np.sum(x, axis=a, keepdims=k)),
    "ReduceLogSumExp": lambda x, a, k: np.log(np.sum(np.exp(x.astype(np.float64)), axis=a,
                                                     keepdims=k)),
    "ReduceProd": lambda x, a, k: np.prod(x, axis=a, keepdims=k),
}


def snake(op):
    out = ""
    for i, c in enumerate(op):
        if c.isupper() and i > 0 and not op[i - 1].isupper():
            out += "_"
        out += c.lower()
    return out


def gen_reduce():
    for op, fn in REDUCERS.items():
        lo = 0.1 if op == "ReduceLogSum" else -1.0
        base = snake(op)
        x = rnd(3, 4, 5, lo=lo, hi=1.0)
        for variant, axes, keepdims, noop in [
            ("axes_keepdims", [1], 1, 0),
            ("neg_axes_no_keepdims", [0, -1], 0, 0),
            ("empty_axes_noop", [], 1, 1),
            ("empty_axes_reduce_all", [], 0, 0),
        ]:
            y = _reduce(fn, x, axes, keepdims, noop).astype(np.float32)
            attrs = {"keepdims": keepdims}
            if noop:
                attrs["noop_with_empty_axes"] = 1
            case(f"test_{base}_{variant}_opset18", 18, op,
                 [("data", x), ("axes", np.array(axes, dtype=np.int64))],
                 [("reduced", y)], attrs)
    # ReduceMax / ReduceMin -20 on bool
    xb = RNG.rand(3, 4, 2) > 0.5
    for op, fn in (("ReduceMax", np.any), ("ReduceMin", np.all)):
        for variant, axes, keepdims in (("axes_keepdims", [1], 1), ("all_no_keepdims", [], 0)):
            a = tuple(axes) if axes else None
            y = np.asarray(fn(xb, axis=a, keepdims=bool(keepdims)))
            case(f"test_{snake(op)}_bool_{variant}_opset20", 20, op,
                 [("data", xb), ("axes", np.array(axes, dtype=np.int64))],
                 [("reduced", y)], {"keepdims": keepdims})


# ----------------------------------------------------------------------------- Split-18
def gen_split():
    x = rnd(2, 6)
    ys = np.split(x, 3, axis=1)
    case("test_split_num_outputs_even_opset18", 18, "Split", [("input", x)],
         [(f"out{i}", y) for i, y in enumerate(ys)], {"axis": 1, "num_outputs": 3})
    # uneven: 7 into 3 -> ceil(7/3)=3: [3, 3, 1]
    x = rnd(7, 2)
    ys = [x[0:3], x[3:6], x[6:7]]
    case("test_split_num_outputs_uneven_opset18", 18, "Split", [("input", x)],
         [(f"out{i}", y) for i, y in enumerate(ys)], {"axis": 0, "num_outputs": 3})
    # uneven 5 into 2 on last axis: [3, 2]
    x = rnd(2, 3, 5)
    ys = [x[..., 0:3], x[..., 3:5]]
    case("test_split_num_outputs_uneven_neg_axis_opset18", 18, "Split", [("input", x)],
         [(f"out{i}", y) for i, y in enumerate(ys)], {"axis": -1, "num_outputs": 2})


# ----------------------------------------------------------------------------- Pad-18/19
def pad_ref(data, raw_pads, mode, constant_values=0.0, axes=None):
    input_rank = data.ndim
    if axes is None:
        axes = list(range(input_rank))
    else:
        axes = [a if a >= 0 else a + input_rank for a in axes]
    n = len(axes)
    pad_width = [(0, 0)] * input_rank
    for i, axis in enumerate(axes):
        pad_width[axis] = (int(raw_pads[i]), int(raw_pads[n + i]))
    if mode == "constant":
        return np.pad(data, pad_width, mode=mode, constant_values=constant_values).astype(data.dtype)
    if mode == "wrap":
        # Torus indexing. onnx/reference calls np.pad(mode="wrap"), which for a pad wider
        # than the dim (numpy < 2.? re-wraps the already padded array) is not periodic.
        out = data
        for axis, (b, e) in enumerate(pad_width):
            n = data.shape[axis]
            idx = (np.arange(-b, n + e)) % n
            out = np.take(out, idx, axis=axis)
        return out.astype(data.dtype)
    return np.pad(data, pad_width, mode=mode).astype(data.dtype)


def gen_pad():
    x = rnd(2, 3, 4)
    pads = np.array([1, 2, 0, 1], dtype=np.int64)  # axes [1, 2]: begin 1,2 end 0,1
    axes = np.array([1, -1], dtype=np.int64)
    cv = np.array(1.5, dtype=np.float32)
    case("test_pad_constant_axes_opset18", 18, "Pad",
         [("data", x), ("pads", pads), ("constant_value", cv), ("axes", axes)],
         [("y", pad_ref(x, pads, "constant", 1.5, [1, -1]))], {"mode": "constant"})
    pads = np.array([2, 1, 1, 3], dtype=np.int64)
    case("test_pad_reflect_axes_opset18", 18, "Pad",
         [("data", x), ("pads", pads), None, ("axes", np.array([1, 2], dtype=np.int64))],
         [("y", pad_ref(x, pads, "reflect", axes=[1, 2]))], {"mode": "reflect"})
    pads = np.array([1, 2, 0, 0, 0, 1], dtype=np.int64)
    case("test_pad_edge_no_axes_opset18", 18, "Pad",
         [("data", x), ("pads", pads)],
         [("y", pad_ref(x, pads, "edge"))], {"mode": "edge"})
    x = rnd(3, 4)
    pads = np.array([2, 3, 1, 5], dtype=np.int64)  # wrap: pad > dim on axis 1 end (5 > 4)
    case("test_pad_wrap_opset19", 19, "Pad", [("data", x), ("pads", pads)],
         [("y", pad_ref(x, pads, "wrap"))], {"mode": "wrap"})
    x = rnd(2, 3, 4)
    pads = np.array([1, 2], dtype=np.int64)
    case("test_pad_wrap_axes_opset19", 19, "Pad",
         [("data", x), ("pads", pads), None, ("axes", np.array([-2], dtype=np.int64))],
         [("y", pad_ref(x, pads, "wrap", axes=[-2]))], {"mode": "wrap"})


# ----------------------------------------------------------------------------- Resize-18/19
def _nearest_coeffs(ratio, mode="round_prefer_floor"):
    if isinstance(ratio, int) or float(ratio).is_integer():
        return np.array([0, 1])
    if mode == "round_prefer_floor":
        return np.array([ratio <= 0.5, ratio > 0.5])
    if mode == "round_prefer_ceil":
        return np.array([ratio < 0.5, ratio >= 0.5])
    if mode == "floor":
        return np.array([1, 0])
    if mode == "ceil":
        return np.array([0, 1])
    raise ValueError(mode)


def _linear_coeffs(ratio, scale=None):
    return np.array([1 - ratio, ratio])


def _linear_coeffs_antialias(ratio, scale):
    scale = min(scale, 1.0)
    start = int(np.floor(-1 / scale) + 1)
    footprint = 2 - 2 * start
    args = (np.arange(start, start + footprint) - ratio) * scale
    coeffs = np.clip(1 - np.abs(args), 0, 1)
    return np.array(coeffs) / sum(coeffs)


def _cubic_coeffs(ratio, scale=None, A=-0.75):
    return np.array([
        ((A * (ratio + 1) - 5 * A) * (ratio + 1) + 8 * A) * (ratio + 1) - 4 * A,
        ((A + 2) * ratio - (A + 3)) * ratio * ratio + 1,
        ((A + 2) * (1 - ratio) - (A + 3)) * (1 - ratio) * (1 - ratio) + 1,
        ((A * ((1 - ratio) + 1) - 5 * A) * ((1 - ratio) + 1) + 8 * A) * ((1 - ratio) + 1) - 4 * A,
    ])


def _compute_x_ori(mode, y, scale_factor, input_width, output_width, output_width_int):
    if mode == "align_corners":
        return (np.zeros(output_width_int) if output_width == 1
                else y * (input_width - 1) / (output_width - 1))
    if mode == "asymmetric":
        return y / scale_factor
    if mode == "pytorch_half_pixel":
        return (np.full(output_width_int, -0.5) if output_width == 1
                else (y + 0.5) / scale_factor - 0.5)
    if mode == "half_pixel":
        return (y + 0.5) / scale_factor - 0.5
    if mode == "half_pixel_symmetric":
        adjustment = output_width_int / output_width
        center = input_width / 2
        offset = center * (1 - adjustment)
        return offset + (y + 0.5) / scale_factor - 0.5
    raise ValueError(mode)


def _interp_axis(data, axis, scale_factor, output_width_int, get_coeffs, ctm, exclude_outside):
    input_width = data.shape[axis]
    output_width = scale_factor * input_width
    y = np.arange(output_width_int, dtype=np.float64)
    x_ori = _compute_x_ori(ctm, y, scale_factor, input_width, output_width, output_width_int)
    x_ori_int = np.floor(x_ori).astype(np.int64)
    ratios = np.where(x_ori == x_ori_int, 1.0, x_ori - x_ori_int)
    n = len(np.asarray(get_coeffs(float(ratios[0]), scale_factor)))
    coeffs = np.empty((output_width_int, n), dtype=np.float64)
    for i in range(output_width_int):
        coeffs[i] = get_coeffs(float(ratios[i]), scale_factor)
    pad_width = int(np.ceil(n / 2))
    x_padded = x_ori + pad_width
    p_padded = np.floor(x_padded).astype(np.int64)
    frac = x_padded - p_padded
    if n % 2 == 0:
        offset_from_p = np.where(frac == 0, -(n // 2), -(n // 2) + 1)
    else:
        base = -((n - 1) // 2)
        offset_from_p = np.where(frac <= 0.5, base, base + 1)
    start_padded = p_padded + offset_from_p
    idx = start_padded[:, None] + np.arange(n)[None, :] - pad_width
    if exclude_outside:
        coeffs = np.where((idx < 0) | (idx >= input_width), 0.0, coeffs)
        s = coeffs.sum(axis=-1, keepdims=True)
        coeffs = coeffs / np.where(s == 0, 1.0, s)
    clamped = np.clip(idx, 0, input_width - 1)
    gathered = np.take(data, clamped, axis=axis)
    cshape = (1,) * axis + coeffs.shape + (1,) * (data.ndim - axis - 1)
    return (gathered * coeffs.reshape(cshape)).sum(axis=axis + 1)


def resize_ref(X, mode="nearest", scales=None, sizes=None, axes=None, antialias=0,
               ctm="half_pixel", keep_aspect_ratio_policy="stretch", nearest_mode="round_prefer_floor",
               cubic_coeff_a=-0.75, exclude_outside=0):
    if mode == "nearest":
        fct = lambda r, s: _nearest_coeffs(r, nearest_mode)  # noqa: E731
    elif mode == "linear":
        fct = _linear_coeffs_antialias if antialias else _linear_coeffs
    else:
        fct = lambda r, s: _cubic_coeffs(r, s, cubic_coeff_a)  # noqa: E731
    r = X.ndim
    scale_factors = None if scales is None else list(scales)
    output_size = None if sizes is None else list(sizes)
    if axes is not None:
        axes = [a + r if a < 0 else a for a in axes]
        if scale_factors is not None:
            sf = [1.0] * r
            for i, d in enumerate(axes):
                sf[d] = scale_factors[i]
            scale_factors = sf
        if output_size is not None:
            os_ = list(X.shape)
            for i, d in enumerate(axes):
                os_[d] = output_size[i]
            output_size = os_
    else:
        axes = list(range(r))
    if output_size is not None:
        scale_factors = [output_size[i] / X.shape[i] for i in range(r)]
        if keep_aspect_ratio_policy != "stretch":
            if keep_aspect_ratio_policy == "not_larger":
                scale = np.array(scale_factors)[axes].min()
            else:
                scale = np.array(scale_factors)[axes].max()
            scale_factors = [scale if i in axes else 1.0 for i in range(r)]
            output_size = [int(scale * X.shape[i] + 0.5) if i in axes else X.shape[i]
                           for i in range(r)]
    else:
        output_size = (np.array(scale_factors) * np.array(X.shape)).astype(int)
    res = X.astype(np.float64)
    for axis in axes:
        s = float(scale_factors[axis])
        o = int(output_size[axis])
        if math.isclose(s, 1.0) and o == res.shape[axis]:
            continue
        res = _interp_axis(res, axis, s, o, fct, ctm, exclude_outside)
    return res.astype(X.dtype)


def gen_resize():
    x = rnd(1, 2, 4, 6)
    for pol in ("not_larger", "not_smaller"):
        sizes = np.array([3, 5], dtype=np.int64)
        case(f"test_resize_axes_keep_aspect_{pol}_linear_opset18", 18, "Resize",
             [("X", x), None, None, ("sizes", sizes)],
             [("Y", resize_ref(x, "linear", sizes=[3, 5], axes=[2, 3],
                               keep_aspect_ratio_policy=pol))],
             {"mode": "linear", "axes": [2, 3], "keep_aspect_ratio_policy": pol})
    sizes = np.array([7, 9], dtype=np.int64)
    case("test_resize_axes_keep_aspect_not_smaller_nearest_opset18", 18, "Resize",
         [("X", x), None, None, ("sizes", sizes)],
         [("Y", resize_ref(x, "nearest", sizes=[7, 9], axes=[2, 3],
                           keep_aspect_ratio_policy="not_smaller"))],
         {"mode": "nearest", "axes": [2, 3], "keep_aspect_ratio_policy": "not_smaller"})
    case("test_resize_neg_axes_keep_aspect_not_smaller_nearest_opset18", 18, "Resize",
         [("X", x), None, None, ("sizes", sizes)],
         [("Y", resize_ref(x, "nearest", sizes=[7, 9], axes=[-2, -1],
                           keep_aspect_ratio_policy="not_smaller"))],
         {"mode": "nearest", "axes": [-2, -1], "keep_aspect_ratio_policy": "not_smaller"})
    scales = np.array([0.5], dtype=np.float32)
    case("test_resize_axes_scales_single_axis_opset18", 18, "Resize",
         [("X", x), None, ("scales", scales)],
         [("Y", resize_ref(x, "linear", scales=[0.5], axes=[3]))],
         {"mode": "linear", "axes": [3]})
    # antialias linear downscale
    x = rnd(1, 1, 8, 8)
    scales = np.array([1.0, 1.0, 0.6, 0.5], dtype=np.float32)
    case("test_resize_downsample_scales_linear_antialias_opset18", 18, "Resize",
         [("X", x), None, ("scales", scales)],
         [("Y", resize_ref(x, "linear", scales=list(scales), antialias=1))],
         {"mode": "linear", "antialias": 1})
    sizes = np.array([1, 1, 3, 5], dtype=np.int64)
    case("test_resize_downsample_sizes_linear_antialias_opset18", 18, "Resize",
         [("X", x), None, None, ("sizes", sizes)],
         [("Y", resize_ref(x, "linear", sizes=list(sizes), antialias=1))],
         {"mode": "linear", "antialias": 1})
    # half_pixel_symmetric (19): output_width_int != output_width matters
    x = rnd(1, 1, 4, 4)
    scales = np.array([1.0, 1.0, 0.6, 0.6], dtype=np.float32)
    case("test_resize_downsample_scales_linear_half_pixel_symmetric_opset19", 19, "Resize",
         [("X", x), None, ("scales", scales)],
         [("Y", resize_ref(x, "linear", scales=list(scales), ctm="half_pixel_symmetric"))],
         {"mode": "linear", "coordinate_transformation_mode": "half_pixel_symmetric"})
    x = rnd(1, 1, 2, 2)
    scales = np.array([1.0, 1.0, 2.3, 2.94], dtype=np.float32)
    case("test_resize_upsample_scales_linear_half_pixel_symmetric_opset19", 19, "Resize",
         [("X", x), None, ("scales", scales)],
         [("Y", resize_ref(x, "linear", scales=list(scales), ctm="half_pixel_symmetric"))],
         {"mode": "linear", "coordinate_transformation_mode": "half_pixel_symmetric"})


# ----------------------------------------------------------------------------- Scatter-18
def scatter_elements_ref(data, indices, updates, axis=0, reduction="none"):
    out = data.copy()
    axis = axis % data.ndim
    f = {"none": lambda a, b: b, "add": np.add, "mul": np.multiply,
         "max": np.maximum, "min": np.minimum}[reduction]
    for idx in np.ndindex(indices.shape):
        tgt = list(idx)
        i = int(indices[idx])
        tgt[axis] = i if i >= 0 else i + data.shape[axis]
        tgt = tuple(tgt)
        out[tgt] = f(out[tgt], updates[idx])
    return out


def scatter_nd_ref(data, indices, updates, reduction="none"):
    out = data.copy()
    f = {"none": lambda a, b: b, "add": np.add, "mul": np.multiply,
         "max": np.maximum, "min": np.minimum}[reduction]
    for idx in np.ndindex(indices.shape[:-1]):
        tgt = tuple(int(v) for v in indices[idx])
        out[tgt] = f(out[tgt], updates[idx])
    return out


def gen_scatter():
    data = rnd(3, 4)
    indices = np.array([[1, 0, 2, 1], [1, 2, 2, 0]], dtype=np.int64)  # duplicates along axis 0
    upd = rnd(2, 4, lo=-2, hi=2)
    for red in ("max", "min"):
        case(f"test_scatter_elements_reduction_{red}_opset18", 18, "ScatterElements",
             [("data", data), ("indices", indices), ("updates", upd)],
             [("y", scatter_elements_ref(data, indices, upd, 0, red))],
             {"axis": 0, "reduction": red})
    idx2 = np.array([[0, -1, 0], [2, 2, 1], [3, 0, 3]], dtype=np.int64)
    upd2 = rnd(3, 3, lo=-2, hi=2)
    case("test_scatter_elements_reduction_max_axis1_neg_idx_opset18", 18, "ScatterElements",
         [("data", data), ("indices", idx2), ("updates", upd2)],
         [("y", scatter_elements_ref(data, idx2, upd2, 1, "max"))],
         {"axis": 1, "reduction": "max"})
    data = rnd(4, 3, 2)
    ind = np.array([[1], [3], [1]], dtype=np.int64)
    upd = rnd(3, 3, 2, lo=-2, hi=2)
    for red in ("max", "min"):
        case(f"test_scatternd_{red}_opset18", 18, "ScatterND",
             [("data", data), ("indices", ind), ("updates", upd)],
             [("y", scatter_nd_ref(data, ind, upd, red))], {"reduction": red})


# ----------------------------------------------------------------------------- CenterCropPad-18
def center_crop_pad_ref(x, shape, axes=None):
    r = x.ndim
    axes = list(range(r)) if axes is None else [a + r if a < 0 else a for a in axes]
    pad_slices = [slice(0, s) for s in x.shape]
    crop_slices = [slice(0, s) for s in x.shape]
    new_shape = list(x.shape)
    for a, sh in zip(axes, shape):
        dim = x.shape[a]
        if sh == dim:
            continue
        if sh < dim:
            new_shape[a] = sh
            d = dim - sh
            crop_slices[a] = slice(d // 2, dim - d // 2 - (d % 2))
        else:
            new_shape[a] = sh
            d = sh - dim
            pad_slices[a] = slice(d // 2, sh - d // 2 - (d % 2))
    res = np.zeros(tuple(new_shape), dtype=x.dtype)
    res[tuple(pad_slices)] = x[tuple(crop_slices)]
    return res


def gen_center_crop_pad():
    x = rnd(20, 10, 3)
    case("test_center_crop_pad_crop_opset18", 18, "CenterCropPad",
         [("x", x), ("shape", np.array([10, 7, 3], dtype=np.int64))],
         [("y", center_crop_pad_ref(x, [10, 7, 3]))])
    x = rnd(10, 7, 3)
    case("test_center_crop_pad_pad_opset18", 18, "CenterCropPad",
         [("x", x), ("shape", np.array([20, 10, 3], dtype=np.int64))],
         [("y", center_crop_pad_ref(x, [20, 10, 3]))])
    x = rnd(3, 20, 8)
    case("test_center_crop_pad_crop_and_pad_axes_opset18", 18, "CenterCropPad",
         [("x", x), ("shape", np.array([10, 11], dtype=np.int64))],
         [("y", center_crop_pad_ref(x, [10, 11], [1, -1]))], {"axes": [1, -1]})


# ----------------------------------------------------------------------------- Col2Im-18
def col2im_ref(data, image_shape, block_shape, dilations=None, pads=None, strides=None):
    nd = len(image_shape)
    dilations = dilations or [1] * nd
    pads = pads or [0] * (2 * nd)
    strides = strides or [1] * nd
    bl = int(np.prod(block_shape))
    N, CB, L = data.shape
    C = CB // bl
    d = data.reshape(N, C, bl, L)
    dim_col = [(image_shape[i] + pads[i] + pads[i + nd] - (dilations[i] * (block_shape[i] - 1) + 1))
               // strides[i] + 1 for i in range(nd)]
    assert int(np.prod(dim_col)) == L
    out = np.zeros((N, C, *image_shape), dtype=data.dtype)
    for c_col in range(bl):
        off = np.unravel_index(c_col, block_shape)
        for col in range(L):
            ic = np.unravel_index(col, dim_col)
            im = [ic[i] * strides[i] - pads[i] + off[i] * dilations[i] for i in range(nd)]
            if all(0 <= im[i] < image_shape[i] for i in range(nd)):
                out[(slice(None), slice(None), *im)] += d[:, :, c_col, col]
    return out


def gen_col2im():
    x = rnd(1, 5, 5)
    case("test_col2im_opset18", 18, "Col2Im",
         [("input", x), ("image_shape", np.array([5, 5], dtype=np.int64)),
          ("block_shape", np.array([1, 5], dtype=np.int64))],
         [("output", col2im_ref(x, [5, 5], [1, 5]))])
    # strides, pads, dilations, 2 channels, batch 2
    img, blk, dil, pads, strides = [6, 7], [2, 3], [1, 2], [1, 0, 1, 1], [2, 1]
    nd = 2
    L = int(np.prod([(img[i] + pads[i] + pads[i + nd] - (dil[i] * (blk[i] - 1) + 1)) // strides[i] + 1
                     for i in range(nd)]))
    x = rnd(2, 2 * 6, L)
    case("test_col2im_strides_pads_dilations_opset18", 18, "Col2Im",
         [("input", x), ("image_shape", np.array(img, dtype=np.int64)),
          ("block_shape", np.array(blk, dtype=np.int64))],
         [("output", col2im_ref(x, img, blk, dil, pads, strides))],
         {"dilations": dil, "pads": pads, "strides": strides})
    img, blk = [3, 4, 5], [2, 2, 2]
    L = 2 * 3 * 4
    x = rnd(1, 8, L)
    case("test_col2im_5d_opset18", 18, "Col2Im",
         [("input", x), ("image_shape", np.array(img, dtype=np.int64)),
          ("block_shape", np.array(blk, dtype=np.int64))],
         [("output", col2im_ref(x, img, blk))])


# ----------------------------------------------------------------------------- elementwise
def gen_elementwise():
    x = rnd(3, 4, 5, lo=-6, hi=6)
    case("test_mish_opset18", 18, "Mish", [("X", x)],
         [("Y", (x.astype(np.float64) * np.tanh(np.log1p(np.exp(x.astype(np.float64)))))
           .astype(np.float32))])
    erf = np.vectorize(math.erf)
    xd = x.astype(np.float64)
    case("test_gelu_default_opset20", 20, "Gelu", [("x", x)],
         [("y", (0.5 * xd * (1 + erf(xd / np.sqrt(2)))).astype(np.float32))])
    case("test_gelu_none_opset20", 20, "Gelu", [("x", x)],
         [("y", (0.5 * xd * (1 + erf(xd / np.sqrt(2)))).astype(np.float32))],
         {"approximate": "none"})
    case("test_gelu_tanh_opset20", 20, "Gelu", [("x", x)],
         [("y", (0.5 * xd * (1 + np.tanh(np.sqrt(2 / np.pi) * (xd + 0.044715 * xd ** 3))))
           .astype(np.float32))], {"approximate": "tanh"})
    for dt, tag in ((np.int32, "int32"), (np.uint8, "uint8"), (np.int64, "int64")):
        info = np.iinfo(dt)
        a = RNG.randint(info.min, info.max, size=(3, 4), dtype=dt)
        b = RNG.randint(info.min, info.max, size=(4,), dtype=dt)  # broadcast
        for op, f in (("BitwiseAnd", np.bitwise_and), ("BitwiseOr", np.bitwise_or),
                      ("BitwiseXor", np.bitwise_xor)):
            case(f"test_{snake(op)}_{tag}_broadcast_opset18", 18, op, [("x", a), ("y", b)],
                 [("z", f(a, b))])
        case(f"test_bitwise_not_{tag}_opset18", 18, "BitwiseNot", [("x", a)],
             [("y", np.bitwise_not(a))])


# ----------------------------------------------------------------------------- pooling
def pool_ref(x, kind, kernel, strides=None, pads=None, dilations=None, ceil_mode=0,
             count_include_pad=0, p=2):
    """AVG / LP pooling per the ONNX spec and onnx/reference op_pool_common (explicit pads).
    LP: (sum over in-input window elements of |x|^p)^(1/p) (pads contribute 0)."""
    nd = len(kernel)
    strides = strides or [1] * nd
    pads = pads or [0] * (2 * nd)
    dilations = dilations or [1] * nd
    ins = x.shape[2:]
    out_shape = []
    for d in range(nd):
        size = (ins[d] + pads[d] + pads[nd + d] - dilations[d] * (kernel[d] - 1) - 1) / strides[d] + 1
        if ceil_mode:
            o = int(np.ceil(size))
            if (o - 1) * strides[d] >= ins[d] + pads[d]:
                o -= 1
        else:
            o = int(np.floor(size))
        out_shape.append(o)
    y = np.zeros(x.shape[:2] + tuple(out_shape), dtype=np.float64)
    xd = x.astype(np.float64)
    for o in np.ndindex(*out_shape):
        idx_lists = []
        n_in_pad_region = 1
        for d in range(nd):
            start = o[d] * strides[d] - pads[d]
            cand = [start + k * dilations[d] for k in range(kernel[d])]
            # positions inside the explicitly padded extent (the ceil-mode overhang excluded)
            in_padded = [c for c in cand if c < ins[d] + pads[nd + d]]
            n_in_pad_region *= len(in_padded)
            idx_lists.append([c for c in in_padded if 0 <= c < ins[d]])
        sl = xd[(slice(None), slice(None)) + np.ix_(*idx_lists)] if all(idx_lists) else None
        cnt_valid = int(np.prod([len(v) for v in idx_lists]))
        if kind == "AVG":
            s = sl.reshape(x.shape[0], x.shape[1], -1).sum(-1) if cnt_valid else 0.0
            denom = n_in_pad_region if count_include_pad else cnt_valid
            y[(slice(None), slice(None)) + o] = s / denom
        else:
            s = (np.abs(sl) ** p).reshape(x.shape[0], x.shape[1], -1).sum(-1) if cnt_valid else 0.0
            y[(slice(None), slice(None)) + o] = s ** (1.0 / p)
    return y.astype(x.dtype)


def gen_pool():
    x = rnd(1, 2, 5, 5)
    case("test_lppool_2d_ceil_opset18", 18, "LpPool", [("x", x)],
         [("y", pool_ref(x, "LP", [2, 2], [2, 2], ceil_mode=1, p=2))],
         {"kernel_shape": [2, 2], "strides": [2, 2], "ceil_mode": 1, "p": 2})
    x = rnd(1, 1, 7, 6)
    case("test_lppool_2d_ceil_p3_pads_opset18", 18, "LpPool", [("x", x)],
         [("y", pool_ref(x, "LP", [3, 2], [2, 2], pads=[1, 0, 0, 1], ceil_mode=1, p=3))],
         {"kernel_shape": [3, 2], "strides": [2, 2], "pads": [1, 0, 0, 1], "ceil_mode": 1, "p": 3})
    x = rnd(1, 1, 8)
    case("test_lppool_1d_dilations_opset18", 18, "LpPool", [("x", x)],
         [("y", pool_ref(x, "LP", [3], [1], dilations=[2], p=2))],
         {"kernel_shape": [3], "dilations": [2], "p": 2})
    x = rnd(1, 2, 6, 6)
    case("test_averagepool_2d_dilations_opset19", 19, "AveragePool", [("x", x)],
         [("y", pool_ref(x, "AVG", [2, 2], [1, 1], dilations=[2, 2]))],
         {"kernel_shape": [2, 2], "strides": [1, 1], "dilations": [2, 2]})
    x = rnd(1, 1, 7, 7)
    case("test_averagepool_2d_dilations_pads_count_include_pad_opset19", 19, "AveragePool",
         [("x", x)],
         [("y", pool_ref(x, "AVG", [3, 3], [2, 2], pads=[1, 1, 1, 1], dilations=[2, 2],
                         count_include_pad=1))],
         {"kernel_shape": [3, 3], "strides": [2, 2], "pads": [1, 1, 1, 1],
          "dilations": [2, 2], "count_include_pad": 1})
    x = rnd(1, 1, 7, 7)
    case("test_averagepool_2d_dilations_ceil_opset19", 19, "AveragePool", [("x", x)],
         [("y", pool_ref(x, "AVG", [2, 2], [2, 2], dilations=[2, 2], ceil_mode=1))],
         {"kernel_shape": [2, 2], "strides": [2, 2], "dilations": [2, 2], "ceil_mode": 1})


# ----------------------------------------------------------------------------- normalization
def group_norm_ref(x, scale, bias, num_groups, epsilon=1e-5):
    N, C = x.shape[:2]
    xd = x.astype(np.float64).reshape(N, num_groups, -1)
    mean = xd.mean(-1, keepdims=True)
    var = xd.var(-1, keepdims=True)
    xn = ((xd - mean) / np.sqrt(var + epsilon)).reshape(x.shape)
    bshape = (1, C) + (1,) * (x.ndim - 2)
    return (xn * scale.reshape(bshape) + bias.reshape(bshape)).astype(x.dtype)


def rms_norm_ref(X, W, axis=-1, epsilon=1e-5):
    axis = axis + X.ndim if axis < 0 else axis
    Xd = X.astype(np.float64)
    ms = np.mean(Xd ** 2, axis=tuple(range(axis, X.ndim)), keepdims=True)
    return (Xd / np.sqrt(ms + epsilon) * W).astype(X.dtype)


def gen_norm():
    x = rnd(2, 6, 3, 4, lo=-3, hi=3)
    sc, bi = rnd(6), rnd(6)
    case("test_group_normalization_opset21", 21, "GroupNormalization",
         [("x", x), ("scale", sc), ("bias", bi)],
         [("y", group_norm_ref(x, sc, bi, 3))], {"num_groups": 3})
    case("test_group_normalization_epsilon_2groups_opset21", 21, "GroupNormalization",
         [("x", x), ("scale", sc), ("bias", bi)],
         [("y", group_norm_ref(x, sc, bi, 2, 1e-2))], {"num_groups": 2, "epsilon": 1e-2})
    x3 = rnd(3, 4, 5, lo=-3, hi=3)
    sc4, bi4 = rnd(4), rnd(4)
    case("test_group_normalization_3d_groups_eq_channels_opset21", 21, "GroupNormalization",
         [("x", x3), ("scale", sc4), ("bias", bi4)],
         [("y", group_norm_ref(x3, sc4, bi4, 4))], {"num_groups": 4})
    x = rnd(2, 3, 8, lo=-3, hi=3)
    w = rnd(8)
    case("test_rms_normalization_default_axis_opset23", 23, "RMSNormalization",
         [("X", x), ("scale", w)], [("Y", rms_norm_ref(x, w))])
    w2 = rnd(3, 8)
    case("test_rms_normalization_axis1_epsilon_opset23", 23, "RMSNormalization",
         [("X", x), ("scale", w2)], [("Y", rms_norm_ref(x, w2, 1, 1e-3))],
         {"axis": 1, "epsilon": 1e-3})
    w3 = rnd(8)
    case("test_rms_normalization_axis1_broadcast_scale_opset23", 23, "RMSNormalization",
         [("X", x), ("scale", w3)], [("Y", rms_norm_ref(x, w3, -2))], {"axis": -2})


# ----------------------------------------------------------------------------- AffineGrid-20
def affine_grid_ref(theta, size, align_corners=0):
    data_size = list(size[2:])
    axes_vals = []
    for dim_size in data_size:
        if align_corners:
            a = np.linspace(-1.0, 1.0, dim_size) if dim_size > 1 else np.array([-1.0])
        else:
            step = 2.0 / dim_size
            a = -1 + step / 2 + step * np.arange(dim_size)
        axes_vals.append(a)
    grids = np.meshgrid(*axes_vals, indexing="ij")  # each of shape data_size
    # homogeneous coords ordered (x, y[, z], 1): x is the last spatial dim
    comps = [grids[i] for i in reversed(range(len(data_size)))] + [np.ones(data_size)]
    base = np.stack(comps, axis=-1).reshape(-1, len(data_size) + 1)  # (P, nd+1)
    out = np.einsum("nij,pj->npi", theta.astype(np.float64), base)
    return out.reshape((theta.shape[0], *data_size, len(data_size))).astype(theta.dtype)


def gen_affine_grid():
    theta = rnd(2, 2, 3)
    size = np.array([2, 3, 4, 5], dtype=np.int64)
    for ac in (0, 1):
        case(f"test_affine_grid_2d_align_corners_{ac}_opset20", 20, "AffineGrid",
             [("theta", theta), ("size", size)],
             [("grid", affine_grid_ref(theta, list(size), ac))], {"align_corners": ac})
    theta = rnd(2, 3, 4)
    size = np.array([2, 1, 3, 4, 5], dtype=np.int64)
    for ac in (0, 1):
        case(f"test_affine_grid_3d_align_corners_{ac}_opset20", 20, "AffineGrid",
             [("theta", theta), ("size", size)],
             [("grid", affine_grid_ref(theta, list(size), ac))], {"align_corners": ac})


# ----------------------------------------------------------------------------- DFT-20
def dft_ref(x, dft_length=None, axis=-2, inverse=0, onesided=0):
    axis = axis % x.ndim
    if dft_length is None:
        dft_length = 2 * (x.shape[axis] - 1) if (inverse and onesided) else x.shape[axis]
    if x.shape[-1] == 1:
        sig = x[..., 0].astype(np.float64)
    else:
        sig = x[..., 0].astype(np.float64) + 1j * x[..., 1].astype(np.float64)
    if inverse:
        if onesided:
            r = np.fft.irfft(sig, n=dft_length, axis=axis)
            return r[..., None].astype(x.dtype)
        r = np.fft.ifft(sig, n=dft_length, axis=axis)
    else:
        r = np.fft.fft(sig, n=dft_length, axis=axis)
        if onesided:
            sl = [slice(None)] * r.ndim
            sl[axis] = slice(0, r.shape[axis] // 2 + 1)
            r = r[tuple(sl)]
    return np.stack([r.real, r.imag], axis=-1).astype(x.dtype)


def gen_dft():
    x = rnd(2, 8, 1)
    case("test_dft_real_axis1_opset20", 20, "DFT",
         [("x", x), None, ("axis", np.array(1, dtype=np.int64))],
         [("y", dft_ref(x, axis=1))])
    x = rnd(3, 5, 4, 2)
    case("test_dft_complex_axis_neg3_length_opset20", 20, "DFT",
         [("x", x), ("dft_length", np.array(6, dtype=np.int64)), ("axis", np.array(-3, dtype=np.int64))],
         [("y", dft_ref(x, 6, axis=-3))])
    x = rnd(2, 3, 10, 1)
    case("test_dft_onesided_axis2_opset20", 20, "DFT",
         [("x", x), None, ("axis", np.array(2, dtype=np.int64))],
         [("y", dft_ref(x, axis=2, onesided=1))], {"onesided": 1})
    x = rnd(2, 3, 10, 1)
    case("test_dft_real_axis2_opset20", 20, "DFT",
         [("x", x), None, ("axis", np.array(2, dtype=np.int64))],
         [("y", dft_ref(x, axis=2))])
    # the same with the axis (and dft_length) as initializers: constants
    x = rnd(2, 3, 10, 1)
    case("test_dft_real_axis2_const_axis_opset20", 20, "DFT",
         [("x", x), None, ("axis", np.array(2, dtype=np.int64), "const")],
         [("y", dft_ref(x, axis=2))])
    case("test_dft_onesided_axis2_const_axis_opset20", 20, "DFT",
         [("x", x), None, ("axis", np.array(2, dtype=np.int64), "const")],
         [("y", dft_ref(x, axis=2, onesided=1))], {"onesided": 1})
    x = rnd(3, 5, 4, 2)
    case("test_dft_complex_axis_neg3_length_const_opset20", 20, "DFT",
         [("x", x), ("dft_length", np.array(6, dtype=np.int64), "const"),
          ("axis", np.array(-3, dtype=np.int64), "const")],
         [("y", dft_ref(x, 6, axis=-3))])
    x = rnd(2, 6, 2)
    case("test_dft_inverse_onesided_const_axis_opset20", 20, "DFT",
         [("x", x), ("dft_length", np.array(10, dtype=np.int64), "const"),
          ("axis", np.array(1, dtype=np.int64), "const")],
         [("y", dft_ref(x, 10, axis=1, inverse=1, onesided=1))], {"inverse": 1, "onesided": 1})
    x = rnd(2, 3, 6, 2)
    case("test_dft_complex_default_axis_rank4_opset20", 20, "DFT", [("x", x)],
         [("y", dft_ref(x, axis=-2))])
    x = rnd(2, 7, 2)
    case("test_dft_inverse_default_axis_opset20", 20, "DFT", [("x", x)],
         [("y", dft_ref(x, axis=-2, inverse=1))], {"inverse": 1})


# ----------------------------------------------------------------------------- RotaryEmbedding-23
def rotary_ref(inp, cos_cache, sin_cache, position_ids=None, interleaved=0, rotary_embedding_dim=0,
               num_heads=0):
    orig = inp.shape
    if inp.ndim == 4:
        inp = np.transpose(inp, (0, 2, 1, 3))
    B, S = inp.shape[0], inp.shape[1]
    if inp.ndim == 3:
        inp = inp.reshape(B, S, num_heads, inp.shape[2] // num_heads)
    head = inp.shape[3]
    rd = rotary_embedding_dim or head
    xr, xn = inp[..., :rd], inp[..., rd:]
    if position_ids is not None:
        cos_cache, sin_cache = cos_cache[position_ids], sin_cache[position_ids]
    c, s = cos_cache[:, :, None, :], sin_cache[:, :, None, :]
    if interleaved:
        x1, x2 = xr[..., 0::2], xr[..., 1::2]
    else:
        x1, x2 = np.split(xr, 2, axis=-1)
    real = c * x1 - s * x2
    imag = s * x1 + c * x2
    if interleaved:
        xr = np.concatenate((real[..., None], imag[..., None]), axis=-1).reshape(xr.shape)
    else:
        xr = np.concatenate((real, imag), axis=-1)
    out = np.concatenate((xr, xn), axis=-1)
    out = out.reshape(orig) if len(orig) == 3 else np.transpose(out, (0, 2, 1, 3))
    return out.astype(np.float32)


def gen_rotary():
    B, S, H, D = 2, 3, 4, 8
    x = rnd(B, S, H * D)
    maxpos = 10
    ang = RNG.uniform(0, 2 * np.pi, size=(maxpos, D // 2))
    cosc, sinc = np.cos(ang).astype(np.float32), np.sin(ang).astype(np.float32)
    pos = np.array([[0, 1, 2], [4, 7, 9]], dtype=np.int64)
    case("test_rotary_embedding_3d_num_heads_opset23", 23, "RotaryEmbedding",
         [("input", x), ("cos_cache", cosc), ("sin_cache", sinc), ("position_ids", pos)],
         [("output", rotary_ref(x, cosc, sinc, pos, num_heads=H))], {"num_heads": H})
    x4 = rnd(B, H, S, D)
    case("test_rotary_embedding_4d_opset23", 23, "RotaryEmbedding",
         [("input", x4), ("cos_cache", cosc), ("sin_cache", sinc), ("position_ids", pos)],
         [("output", rotary_ref(x4, cosc, sinc, pos))])
    case("test_rotary_embedding_4d_interleaved_opset23", 23, "RotaryEmbedding",
         [("input", x4), ("cos_cache", cosc), ("sin_cache", sinc), ("position_ids", pos)],
         [("output", rotary_ref(x4, cosc, sinc, pos, interleaved=1))], {"interleaved": 1})
    # no position_ids: caches of shape (B, S, rd/2); partial rotation rd=4
    ang2 = RNG.uniform(0, 2 * np.pi, size=(B, S, 2))
    c2, s2 = np.cos(ang2).astype(np.float32), np.sin(ang2).astype(np.float32)
    case("test_rotary_embedding_3d_interleaved_partial_no_position_ids_opset23", 23,
         "RotaryEmbedding", [("input", x), ("cos_cache", c2), ("sin_cache", s2)],
         [("output", rotary_ref(x, c2, s2, None, interleaved=1, rotary_embedding_dim=4,
                                num_heads=H))],
         {"num_heads": H, "interleaved": 1, "rotary_embedding_dim": 4})


# ----------------------------------------------------------------------------- Attention-23
def _softmax(x):
    m = np.max(x, axis=-1, keepdims=True)
    allm = np.isneginf(m)
    t = np.exp(x - np.where(allm, 0, m))
    s = np.sum(t, axis=-1, keepdims=True)
    return t / np.where(s == 0, 1, s)


def attention_ref(Q, K, V, attn_mask=None, past_key=None, past_value=None, scale=None,
                  is_causal=0, q_num_heads=None, kv_num_heads=None):
    in_rank = Q.ndim
    dt = Q.dtype
    Q, K, V = (a.astype(np.float64) for a in (Q, K, V))
    B = Q.shape[0]
    if in_rank == 3:
        Q = Q.reshape(B, Q.shape[1], q_num_heads, -1).transpose(0, 2, 1, 3)
        K = K.reshape(B, K.shape[1], kv_num_heads, -1).transpose(0, 2, 1, 3)
        V = V.reshape(B, V.shape[1], kv_num_heads, -1).transpose(0, 2, 1, 3)
    if scale is None:
        scale = 1 / np.sqrt(Q.shape[3])
    sq = np.sqrt(scale)
    if past_key is not None:
        K = np.concatenate((past_key.astype(np.float64), K), axis=2)
        V = np.concatenate((past_value.astype(np.float64), V), axis=2)
    present_key, present_value = K, V
    qs, kvs = Q.shape[2], K.shape[2]
    bias = np.zeros((qs, kvs))
    if attn_mask is not None and attn_mask.shape[-1] < kvs:
        pw = [(0, 0)] * (attn_mask.ndim - 1) + [(0, kvs - attn_mask.shape[-1])]
        attn_mask = np.pad(attn_mask, pw, constant_values=(False if attn_mask.dtype == np.bool_
                                                           else -np.inf))
    if attn_mask is not None:
        m = (np.where(attn_mask, 0.0, -np.inf) if attn_mask.dtype == np.bool_
             else attn_mask.astype(np.float64))
    if is_causal:
        base = np.zeros((qs, kvs)) if attn_mask is None else m
        off = past_key.shape[2] if past_key is not None else 0
        allowed = np.arange(kvs)[None, :] <= np.arange(qs)[:, None] + off
        bias = base + np.where(allowed, 0.0, -np.inf)
    elif attn_mask is not None:
        bias = bias + m
    qh, kh = Q.shape[1], K.shape[1]
    if qh != kh and qh % kh == 0:
        K = np.repeat(K, qh // kh, axis=1)
        V = np.repeat(V, qh // kh, axis=1)
    qk = np.matmul(Q * sq, np.transpose(K, (0, 1, 3, 2)) * sq)
    p = _softmax(qk + bias)
    p = np.where(np.isneginf(np.max(bias, axis=-1, keepdims=True)), 0, p)
    out = np.matmul(p, V)
    if in_rank == 3:
        out = out.transpose(0, 2, 1, 3).reshape(B, out.shape[2], -1)
    return out.astype(dt), present_key.astype(dt), present_value.astype(dt)


def gen_attention():
    B, H, S, D = 2, 3, 4, 8
    q, k, v = rnd(B, H, S, D), rnd(B, H, 6, D), rnd(B, H, 6, D)
    y, _, _ = attention_ref(q, k, v)
    case("test_attention_4d_opset23", 23, "Attention", [("Q", q), ("K", k), ("V", v)],
         [("Y", y)])
    y, _, _ = attention_ref(q, k, v, scale=0.3)
    case("test_attention_4d_scaled_opset23", 23, "Attention", [("Q", q), ("K", k), ("V", v)],
         [("Y", y)], {"scale": 0.3})
    # 3-D GQA: q_num_heads=4, kv_num_heads=2
    q3, k3, v3 = rnd(2, 5, 4 * 8), rnd(2, 7, 2 * 8), rnd(2, 7, 2 * 6)
    y, _, _ = attention_ref(q3, k3, v3, q_num_heads=4, kv_num_heads=2)
    case("test_attention_3d_gqa_opset23", 23, "Attention", [("Q", q3), ("K", k3), ("V", v3)],
         [("Y", y)], {"q_num_heads": 4, "kv_num_heads": 2})
    # causal, self attention (square), no past
    qc, kc, vc = rnd(B, H, 5, D), rnd(B, H, 5, D), rnd(B, H, 5, D)
    y, _, _ = attention_ref(qc, kc, vc, is_causal=1)
    case("test_attention_4d_causal_opset23", 23, "Attention", [("Q", qc), ("K", kc), ("V", vc)],
         [("Y", y)], {"is_causal": 1})
    # bool mask (q, kv), broadcast over batch and heads; no all-False row
    mask = RNG.rand(S, 6) > 0.4
    mask[:, 0] = True
    y, _, _ = attention_ref(q, k, v, attn_mask=mask)
    case("test_attention_4d_bool_mask_opset23", 23, "Attention",
         [("Q", q), ("K", k), ("V", v), ("attn_mask", mask)], [("Y", y)])
    # float mask 4-D broadcast (B, 1, q, kv)
    fmask = rnd(B, 1, S, 6, lo=-2, hi=0)
    y, _, _ = attention_ref(q, k, v, attn_mask=fmask)
    case("test_attention_4d_float_mask_opset23", 23, "Attention",
         [("Q", q), ("K", k), ("V", v), ("attn_mask", fmask)], [("Y", y)])
    # past key / value with present outputs (no causal: avoids the alignment question)
    pk, pv = rnd(B, H, 3, D), rnd(B, H, 3, D)
    kn, vn = rnd(B, H, 2, D), rnd(B, H, 2, D)
    qn = rnd(B, H, 2, D)
    y, prk, prv = attention_ref(qn, kn, vn, past_key=pk, past_value=pv)
    case("test_attention_4d_past_present_opset23", 23, "Attention",
         [("Q", qn), ("K", kn), ("V", vn), None, ("past_key", pk), ("past_value", pv)],
         [("Y", y), ("present_key", prk), ("present_value", prv)])
    # 3-D GQA with past/present, bool mask shorter than total kv (padded with False)
    pk3, pv3 = rnd(2, 2, 3, 8), rnd(2, 2, 3, 8)
    q3, k3, v3 = rnd(2, 2, 4 * 8), rnd(2, 2, 2 * 8), rnd(2, 2, 2 * 8)
    m3 = np.ones((2, 5), dtype=bool)
    m3[0, 1] = False
    y, prk, prv = attention_ref(q3, k3, v3, attn_mask=m3, past_key=pk3, past_value=pv3,
                                q_num_heads=4, kv_num_heads=2)
    case("test_attention_3d_gqa_past_present_bool_mask_opset23", 23, "Attention",
         [("Q", q3), ("K", k3), ("V", v3), ("attn_mask", m3), ("past_key", pk3),
          ("past_value", pv3)],
         [("Y", y), ("present_key", prk), ("present_value", prv)],
         {"q_num_heads": 4, "kv_num_heads": 2})
    # causal with past (bottom-right alignment per the current spec text)
    y, prk, prv = attention_ref(qn, kn, vn, past_key=pk, past_value=pv, is_causal=1)
    case("test_attention_4d_causal_past_present_opset23", 23, "Attention",
         [("Q", qn), ("K", kn), ("V", vn), None, ("past_key", pk), ("past_value", pv)],
         [("Y", y), ("present_key", prk), ("present_value", prv)], {"is_causal": 1})


# ----------------------------------------------------------------------------- types-only bumps
def conv_ref(x, w, b=None, pads=(0, 0, 0, 0), strides=(1, 1)):
    N, C, H, W = x.shape
    M, _, kh, kw = w.shape
    xp = np.pad(x.astype(np.float64), ((0, 0), (0, 0), (pads[0], pads[2]), (pads[1], pads[3])))
    oh = (xp.shape[2] - kh) // strides[0] + 1
    ow = (xp.shape[3] - kw) // strides[1] + 1
    y = np.zeros((N, M, oh, ow))
    for i in range(oh):
        for j in range(ow):
            patch = xp[:, :, i * strides[0]:i * strides[0] + kh, j * strides[1]:j * strides[1] + kw]
            y[:, :, i, j] = np.einsum("nchw,mchw->nm", patch, w.astype(np.float64))
    if b is not None:
        y += b.reshape(1, M, 1, 1)
    return y.astype(x.dtype)


def gen_bumps():
    x, w, b = rnd(1, 2, 5, 5), rnd(3, 2, 3, 3), rnd(3)
    case("test_conv_pads_strides_bias_opset22", 22, "Conv", [("x", x), ("w", w), ("b", b)],
         [("y", conv_ref(x, w, b, (1, 1, 1, 1), (2, 2)))],
         {"kernel_shape": [3, 3], "pads": [1, 1, 1, 1], "strides": [2, 2]})
    xf = rnd(3, 4, lo=-100, hi=100)
    case("test_cast_float_to_int32_opset21", 21, "Cast", [("x", xf)],
         [("y", xf.astype(np.int32))], {"to": TensorProto.INT32})
    xi = RNG.randint(-1000, 1000, size=(3, 4)).astype(np.int64)
    case("test_cast_int64_to_float16_opset21", 21, "Cast", [("x", xi)],
         [("y", xi.astype(np.float16))], {"to": TensorProto.FLOAT16})
    xd = rnd(2, 3, lo=-10, hi=10).astype(np.float64)
    case("test_cast_double_to_float_opset23", 23, "Cast", [("x", xd)],
         [("y", xd.astype(np.float32))], {"to": TensorProto.FLOAT})
    xr = rnd(2, 3, 4, lo=-2, hi=2)
    case("test_identity_opset23", 23, "Identity", [("x", xr)], [("y", xr.copy())])
    case("test_reshape_opset23", 23, "Reshape", [("data", xr), ("shape", np.array([4, -1], dtype=np.int64))],
         [("reshaped", xr.reshape(4, -1))])


# ----------------------------------------------------------------------------- strings (opsets 19/20)
def strings(values, shape=None):
    a = np.array(values, dtype=object)
    return a.reshape(shape) if shape is not None else a


def string_split_ref(x, delimiter=None, maxsplit=None):
    # op_string_split.py: np.char.split (Python's str.split) padded with "" to the most
    # substrings; "" as delimiter means whitespace.
    # Deviation: without a delimiter the rest after `maxsplit` splits loses its trailing
    # whitespace (the spec: "leading or trailing whitespace is removed"; ORT agrees).
    sep = delimiter or None
    parts = [s.split(sep) if maxsplit is None else s.split(sep, maxsplit) for s in x.reshape(-1)]
    if sep is None and maxsplit is not None:
        parts = [p[:-1] + [p[-1].rstrip()] if len(p) == maxsplit + 1 else p for p in parts]
    width = max([len(p) for p in parts], default=0)
    y = np.array([p + [""] * (width - len(p)) for p in parts], dtype=object).reshape(*x.shape, width)
    z = np.array([len(p) for p in parts], dtype=np.int64).reshape(x.shape)
    return y, z


def gen_strings():
    import re
    x, y = strings(["abc", "def", ""]), strings([".com", ".net", "abc"])
    case("test_string_concat_opset20", 20, "StringConcat", [("x", x), ("y", y)],
         [("z", x + y)])
    xb, yb = strings(["cat", "dog", "的"], (3, 1)), strings(["s", "中"])
    case("test_string_concat_broadcast_utf8_opset20", 20, "StringConcat", [("x", xb), ("y", yb)],
         [("z", xb + yb)])
    x0, y0 = strings("cat"), strings("s")
    case("test_string_concat_zero_dim_opset20", 20, "StringConcat", [("x", x0), ("y", y0)],
         [("z", strings("cats"))])

    for name, x, attrs in (
        ("basic", strings(["abc.com", "def.net", "a.b.c.d"]), {"delimiter": "."}),
        ("consecutive_delimiters", strings(["o-n-n--x-", "o-n----nx"]), {"delimiter": "-"}),
        ("multichar_delimiter", strings(["a::b::c", "::x", "y"], (3, 1)), {"delimiter": "::"}),
        ("no_delimiter", strings(["hello world !", "  hello   world !", " hello world   ! "]), {}),
        ("empty_delimiter_2d", strings(["a b", "  c  ", "d e f", "g"], (2, 2)), {"delimiter": ""}),
        ("maxsplit", strings(["hello world", "def.net", "o n n x", "the quick brown fox"], (2, 2)),
         {"maxsplit": 2}),
        ("delimiter_maxsplit", strings(["a,b,c,d", "e,f", "g"]), {"delimiter": ",", "maxsplit": 1}),
        ("empty_tensor", strings([], (0,)), {}),
        # Python's str.split: "" with a delimiter is one empty substring.
        ("empty_element", strings(["a|b", ""]), {"delimiter": "|"}),
        # The spec: the rest after maxsplit loses its trailing whitespace (Python keeps it).
        ("maxsplit_trailing_space", strings(["a b c  ", "x"]), {"maxsplit": 1}),
        # Python's str.split: a tab is whitespace too.
        ("tab_whitespace", strings(["a\tb c", "d"]), {}),
    ):
        yy, zz = string_split_ref(x, attrs.get("delimiter"), attrs.get("maxsplit"))
        case(f"test_string_split_{name}_opset20", 20, "StringSplit", [("x", x)],
             [("substrings", yy), ("length", zz)], attrs)

    for name, x, pattern in (
        ("basic", strings(["www.google.com", "www.facebook.com", "www.bbc.co.uk"]),
         r"www\.[\w.-]+\.\bcom\b"),
        ("email_domain", strings(["account@gmail.com", "account@hotmail.com", "not email",
                                  "account2@yahoo.com"], (2, 2)),
         r"(\W|^)[\w.\-]{0,25}@(yahoo|gmail)\.com(\W|$)"),
        ("empty", strings([], (2, 0)), r"(\W|^)[\w.\-]{0,25}@(yahoo|gmail)\.com(\W|$)"),
        ("utf8_dot", strings(["中文", "abc", "a", ""]), r"..|a?b?c"),
    ):
        rx = re.compile(pattern)
        yy = np.vectorize(lambda t: rx.fullmatch(t) is not None, otypes=[np.bool_])(x) \
            if x.size else np.zeros(x.shape, dtype=bool)
        case(f"test_regex_full_match_{name}_opset20", 20, "RegexFullMatch", [("X", x)], [("Y", yy)],
             {"pattern": pattern})

    a, b = strings(["abc", "", "x"], (3, 1)), strings(["abc", "x"])
    case("test_equal_string_broadcast_opset19", 19, "Equal", [("a", a), ("b", b)], [("c", a == b)])


# ----------------------------------------------------------------------------- Optional*-18
def gen_optional():
    x = rnd(2, 3)
    case("test_optional_has_element_tensor_input_opset18", 18, "OptionalHasElement", [("x", x)],
         [("has", np.array(True))])
    case("test_optional_has_element_no_input_opset18", 18, "OptionalHasElement", [None],
         [("has", np.array(False))])
    xi = RNG.randint(-5, 5, size=(4,)).astype(np.int32)
    case("test_optional_get_element_tensor_opset18", 18, "OptionalGetElement", [("x", xi)],
         [("y", xi.copy())])
    xs = strings(["a", "bc"])
    case("test_optional_get_element_string_tensor_opset18", 18, "OptionalGetElement", [("x", xs)],
         [("y", xs.copy())])


# ----------------------------------------------------------------------------- DeformConv-19/22
def _bilinear_zero(img, h, w):
    # GridSample(align_corners=1, bilinear, zeros) at pixel coordinates (h, w).
    H, W = img.shape
    h0, w0 = math.floor(h), math.floor(w)
    fh, fw = h - h0, w - w0
    v = 0.0
    for dh, wh in ((0, 1 - fh), (1, fh)):
        for dw, ww in ((0, 1 - fw), (1, fw)):
            i, j = h0 + dh, w0 + dw
            if 0 <= i < H and 0 <= j < W:
                v += wh * ww * float(img[i, j])
    return v


def deform_conv_ref(X, W, offset, B=None, mask=None, dilations=(1, 1), group=1, offset_group=1,
                    pads=(0, 0, 0, 0), strides=(1, 1)):
    # op_deform_conv.py (2-D), with the GridSample step written out as bilinear sampling.
    n, ic = X.shape[:2]
    oc, icg = W.shape[:2]
    kh, kw = W.shape[2:]
    oh, ow = offset.shape[2:]
    ocg = oc // group
    icog = ic // offset_group
    off = offset.astype(np.float64).reshape(n, offset_group, kh, kw, 2, oh, ow)
    if mask is None:
        mask = np.ones((n, offset_group * kh * kw, oh, ow))
    m = mask.astype(np.float64).reshape(n, offset_group, kh, kw, oh, ow)
    res = np.zeros((n, oc, oh, ow))
    if B is not None:
        res += B.astype(np.float64).reshape(1, -1, 1, 1)
    for b in range(n):
        for o in range(oc):
            for c in range(ic):
                if c // icg != o // ocg:
                    continue
                g = c // icog
                for i in range(oh):
                    for j in range(ow):
                        acc = 0.0
                        for p in range(kh):
                            for q in range(kw):
                                h = -pads[0] + strides[0] * i + p * dilations[0] + off[b, g, p, q, 0, i, j]
                                w = -pads[1] + strides[1] * j + q * dilations[1] + off[b, g, p, q, 1, i, j]
                                acc += (_bilinear_zero(X[b, c], h, w) * float(W[o, c % icg, p, q])
                                        * m[b, g, p, q, i, j])
                        res[b, o, i, j] += acc
    return res.astype(X.dtype)


def gen_deform_conv():
    X = np.arange(9).astype(np.float32).reshape(1, 1, 3, 3)
    W = np.ones((1, 1, 2, 2), dtype=np.float32)
    off = np.zeros((1, 8, 4, 4), dtype=np.float32)
    off[0, 0, 0, 0] = 0.5
    off[0, 5, 1, 2] = -0.1
    case("test_deform_conv_with_padding_opset19", 19, "DeformConv", [("X", X), ("W", W), ("offset", off)],
         [("Y", deform_conv_ref(X, W, off, pads=(1, 1, 1, 1)))], {"kernel_shape": [2, 2], "pads": [1, 1, 1, 1]})
    off = np.zeros((1, 8, 2, 2), dtype=np.float32)
    off[0, 0, 0, 0] = 0.5
    off[0, 5, 0, 1] = -0.1
    case("test_deform_conv_without_padding_opset19", 19, "DeformConv", [("X", X), ("W", W), ("offset", off)],
         [("Y", deform_conv_ref(X, W, off))], {"kernel_shape": [2, 2]})
    # groups, offset groups, mask, bias, strides, dilations, pads (random fractional offsets)
    X = rnd(2, 4, 7, 6)
    W = rnd(6, 2, 3, 2)
    attrs = {"group": 2, "offset_group": 2, "strides": [2, 1], "dilations": [1, 2], "pads": [1, 2, 1, 0]}
    oh = (7 + 2 - 3) // 2 + 1
    ow = (6 + 2 - 3) // 1 + 1
    off = rnd(2, 2 * 6 * 2, oh, ow, lo=-1.5, hi=1.5)
    mask = rnd(2, 2 * 6, oh, ow, lo=0.0, hi=1.0)
    B = rnd(6)
    y = deform_conv_ref(X, W, off, B, mask, dilations=(1, 2), group=2, offset_group=2, pads=(1, 2, 1, 0),
                        strides=(2, 1))
    case("test_deform_conv_groups_mask_bias_opset19", 19, "DeformConv",
         [("X", X), ("W", W), ("offset", off), ("B", B), ("mask", mask)], [("Y", y)], attrs)
    # mask without bias, double, at opset 22 (types-only bump)
    Xd = rnd(1, 2, 4, 4).astype(np.float64)
    Wd = rnd(3, 2, 2, 2).astype(np.float64)
    offd = rnd(1, 8, 3, 3, lo=-2, hi=2).astype(np.float64)
    maskd = rnd(1, 4, 3, 3, lo=0, hi=1).astype(np.float64)
    case("test_deform_conv_double_mask_opset22", 22, "DeformConv",
         [("X", Xd), ("W", Wd), ("offset", offd), None, ("mask", maskd)],
         [("Y", deform_conv_ref(Xd, Wd, offd, None, maskd))])


# ----------------------------------------------------------------------------- Q/DQ-21/23
# Blocked quantization (block_size > 0: the scale has X's shape with ceil(dim / block_size)
# along `axis`), QuantizeLinear-21's and DequantizeLinear-23's output_dtype. Transcribed
# from onnx/reference/ops/op_quantize_linear.py, op_dequantize_linear.py and
# _quant_utils.py (float8/int4 types are left out: GE does not run them).
_QUANT_RANGES = {np.uint8: (0, 255), np.int8: (-128, 127), np.uint16: (0, 65535),
                 np.int16: (-32768, 32767)}


def _quant_reshape(value, shape, axis, block_size=0):
    if value.ndim == 0:
        return value
    if value.size == 1:
        return value.reshape(-1)[0]
    if not block_size:
        dims = [1] * len(shape)
        dims[axis] = value.size
        return value.reshape(dims)
    value = np.repeat(value, repeats=block_size, axis=axis)
    if shape[axis] != value.shape[axis]:
        value = value.take(indices=range(shape[axis]), axis=axis)
    assert value.shape == tuple(shape)
    return value


def quantize_ref(x, scale, zero_point=None, axis=1, block_size=0, output_dtype=np.uint8):
    dtype = zero_point.dtype.type if zero_point is not None else output_dtype
    xi = np.rint(x / _quant_reshape(scale, x.shape, axis, block_size)).astype(np.int32)
    if zero_point is not None:
        xi += _quant_reshape(zero_point, x.shape, axis, block_size)
    lo, hi = _QUANT_RANGES[dtype]
    return np.clip(xi, lo, hi).astype(dtype)


def dequantize_ref(x, scale, zero_point=None, axis=1, block_size=0, output_dtype=None):
    dx = x.astype(np.float32)
    if zero_point is not None:
        dx = dx - _quant_reshape(zero_point, x.shape, axis, block_size)
    y = dx * _quant_reshape(scale, x.shape, axis, block_size)
    return y.astype(output_dtype or scale.dtype)


def _quantized(dtype, *shape):
    lo, hi = _QUANT_RANGES[dtype]
    return RNG.randint(lo, hi + 1, size=shape).astype(dtype)


def gen_quantize():
    ttype = {np.uint8: TensorProto.UINT8, np.int8: TensorProto.INT8, np.uint16: TensorProto.UINT16,
             np.int16: TensorProto.INT16}
    # (zero point dtype, X shape, axis, block_size, opset, x range)
    blocked = [
        (np.uint8, (3, 4), 0, 2, 21, 20.0),
        (np.int8, (2, 6), 1, 4, 21, 20.0),       # a remainder block of 2
        (np.int16, (2, 3, 5), -1, 3, 21, 5000.0),
        (np.uint16, (4, 3, 2), 1, 2, 23, 5000.0),
    ]
    for dtype, shape, axis, block, opset, span in blocked:
        name = np.dtype(dtype).name
        scale_shape = list(shape)
        scale_shape[axis] = -(-shape[axis] // block)
        x = rnd(*shape, lo=-span, hi=span)
        scale = rnd(*scale_shape, lo=0.05, hi=0.5) * (span / 20.0)
        zero_point = _quantized(dtype, *scale_shape)
        attrs = {"axis": axis, "block_size": block}
        case(f"test_quantize_linear_blocked_{name}_opset{opset}", opset, "QuantizeLinear",
             [("x", x), ("y_scale", scale), ("y_zero_point", zero_point)],
             [("y", quantize_ref(x, scale, zero_point, axis, block))], attrs)
        q = _quantized(dtype, *shape)
        case(f"test_dequantize_linear_blocked_{name}_opset{opset}", opset, "DequantizeLinear",
             [("x", q), ("x_scale", scale), ("x_zero_point", zero_point)],
             [("y", dequantize_ref(q, scale, zero_point, axis, block))], attrs)
    # Blocked without a zero point, constant scale.
    x = rnd(2, 8, lo=-30.0, hi=30.0)
    scale = rnd(2, 2, lo=0.1, hi=0.3)
    case("test_quantize_linear_blocked_no_zero_point_opset21", 21, "QuantizeLinear",
         [("x", x), ("y_scale", scale, "const")], [("y", quantize_ref(x, scale, None, 1, 4))],
         {"axis": 1, "block_size": 4})
    # output_dtype of QuantizeLinear-21: alone, and agreeing with the zero point.
    for dtype in (np.int8, np.uint16, np.int16):
        x = rnd(3, 4, lo=-300.0, hi=300.0)
        scale = np.array(0.02 if dtype in (np.uint16, np.int16) else 2.0, dtype=np.float32)
        case(f"test_quantize_linear_output_dtype_{np.dtype(dtype).name}_opset21", 21, "QuantizeLinear",
             [("x", x), ("y_scale", scale)],
             [("y", quantize_ref(x, scale, None, output_dtype=dtype))], {"output_dtype": ttype[dtype]})
    x = rnd(2, 3, lo=-100.0, hi=100.0)
    scale = rnd(3, lo=0.01, hi=0.05)
    zero_point = np.array([0, 30000, 65535], dtype=np.uint16)
    case("test_quantize_linear_output_dtype_with_zero_point_opset21", 21, "QuantizeLinear",
         [("x", x), ("y_scale", scale), ("y_zero_point", zero_point)],
         [("y", quantize_ref(x, scale, zero_point))], {"output_dtype": TensorProto.UINT16})
    # output_dtype of DequantizeLinear-23: the scale's type, or float16.
    for out_name, out_type, out_dtype in (("float", TensorProto.FLOAT, np.float32),
                                          ("float16", TensorProto.FLOAT16, np.float16)):
        q = _quantized(np.int8, 2, 6)
        scale = rnd(2, 3, lo=0.01, hi=0.1)
        zero_point = _quantized(np.int8, 2, 3)
        case(f"test_dequantize_linear_output_dtype_{out_name}_blocked_opset23", 23, "DequantizeLinear",
             [("x", q), ("x_scale", scale), ("x_zero_point", zero_point)],
             [("y", dequantize_ref(q, scale, zero_point, 1, 2, out_dtype))],
             {"axis": 1, "block_size": 2, "output_dtype": out_type})
    q = _quantized(np.uint8, 5)
    scale = np.array(0.125, dtype=np.float32)
    case("test_dequantize_linear_output_dtype_float16_opset23", 23, "DequantizeLinear",
         [("x", q), ("x_scale", scale), ("x_zero_point", np.array(100, dtype=np.uint8))],
         [("y", dequantize_ref(q, scale, np.array(100, dtype=np.uint8), output_dtype=np.float16))],
         {"output_dtype": TensorProto.FLOAT16})


# ----------------------------------------------------------------------------- GridSample-20
# N-D sampling (ONNX's op_grid_sample.py for any spatial rank; cubic is N-cubic there).
def _gs_reflect(x, lo, hi):
    rng = hi - lo
    if rng <= 0:
        return lo
    if x < lo:
        d = lo - x; n = int(d / rng); r = d - n * rng
        return lo + r if n % 2 == 0 else hi - r
    if x > hi:
        d = x - hi; n = int(d / rng); r = d - n * rng
        return hi - r if n % 2 == 0 else lo + r
    return x


def grid_sample_ref(X, grid, mode="linear", padding_mode="zeros", align_corners=0):
    # op_grid_sample.py of ONNX main for any spatial rank r: grid[..., k] addresses spatial
    # axis r-1-k; nearest rounds half to even (np.rint); cubic (Keys, a=-0.75) any rank.
    N, C = X.shape[:2]
    dims = X.shape[2:]
    r = len(dims)
    out_sp = grid.shape[1:-1]
    Y = np.zeros((N, C) + out_sp)
    lo = [0.0 if align_corners else -0.5] * r
    hi = [d - 1.0 if align_corners else d - 0.5 for d in dims]

    def tap(img, idx):
        for a, i in enumerate(idx):
            if padding_mode == "zeros":
                if i < 0 or i >= dims[a]:
                    return 0.0
            elif padding_mode == "border":
                idx[a] = min(max(i, 0), dims[a] - 1)
            else:
                idx[a] = int(_gs_reflect(i, lo[a], hi[a]))
        return float(img[tuple(idx)])

    def keys(t, A=-0.75):
        t = abs(t)
        if t <= 1:
            return ((A + 2) * t - (A + 3)) * t * t + 1
        if t < 2:
            return ((A * t - 5 * A) * t + 8 * A) * t - 4 * A
        return 0.0

    for n in range(N):
        for o in np.ndindex(*out_sp):
            g = grid[(n,) + o].astype(np.float64)[::-1]
            s = [((g[a] + 1) / 2 * (dims[a] - 1)) if align_corners else (((g[a] + 1) * dims[a] - 1) / 2)
                 for a in range(r)]
            if mode == "nearest":
                s = [float(np.rint(v)) for v in s]
            for a in range(r):
                if s[a] < lo[a] or s[a] > hi[a]:
                    if padding_mode == "border":
                        s[a] = min(max(s[a], 0.0), dims[a] - 1.0)
                    elif padding_mode == "reflection":
                        s[a] = _gs_reflect(s[a], lo[a], hi[a])
            if mode == "nearest":
                taps = [[(int(v), 1.0)] for v in s]
            elif mode == "linear":
                taps = [[(int(np.floor(v)), 1 - (v - np.floor(v))), (int(np.floor(v)) + 1, v - np.floor(v))]
                        for v in s]
            else:
                taps = [[(int(np.floor(v)) + k, keys(v - (np.floor(v) + k))) for k in (-1, 0, 1, 2)] for v in s]
            for c in range(C):
                acc = 0.0
                for combo in np.ndindex(*[len(t) for t in taps]):
                    w = 1.0
                    idx = []
                    for a, k in enumerate(combo):
                        i, wk = taps[a][k]
                        w *= wk
                        idx.append(i)
                    acc += w * tap(X[n, c], idx)
                Y[(n, c) + o] = acc
    return Y.astype(X.dtype)


def gen_grid_sample():
    # GridSample-20: 5-D (3 spatial axes) linear/nearest x padding modes x align_corners,
    # and 3-D (1 spatial axis); the grid reaches past [-1, 1].
    for mode in ("linear", "nearest"):
        for pad in ("zeros", "border", "reflection"):
            for ac in (0, 1):
                X = rnd(1, 2, 3, 4, 5)
                grid = rnd(1, 2, 3, 2, 3, lo=-1.3, hi=1.3)
                case(f"test_grid_sample_3d_{mode}_{pad}_align_corners_{ac}_opset20", 20, "GridSample",
                     [("X", X), ("grid", grid)],
                     [("Y", grid_sample_ref(X, grid, mode, pad, ac))],
                     attrs={"mode": mode, "padding_mode": pad, "align_corners": ac})
    X = rnd(2, 3, 6)
    grid = rnd(2, 4, 1, lo=-1.3, hi=1.3)
    case("test_grid_sample_1d_linear_reflection_opset20", 20, "GridSample", [("X", X), ("grid", grid)],
         [("Y", grid_sample_ref(X, grid, "linear", "reflection", 0))],
         attrs={"mode": "linear", "padding_mode": "reflection"})
    X = rnd(1, 2, 3, 4, 4)
    grid = rnd(1, 2, 2, 3, 3, lo=-1.3, hi=1.3)
    case("test_grid_sample_3d_cubic_zeros_opset20", 20, "GridSample", [("X", X), ("grid", grid)],
         [("Y", grid_sample_ref(X, grid, "cubic", "zeros", 0))], attrs={"mode": "cubic"})
    X = rnd(1, 2, 4, 5)
    grid = rnd(1, 3, 2, 2, lo=-1.3, hi=1.3)
    case("test_grid_sample_2d_cubic_border_opset20", 20, "GridSample", [("X", X), ("grid", grid)],
         [("Y", grid_sample_ref(X, grid, "cubic", "border", 1))],
         attrs={"mode": "cubic", "padding_mode": "border", "align_corners": 1})


# ----------------------------------------------------------------------------- float8/int4/float4
# Opsets 19 (float8), 20 (IsInf/IsNaN, ConstantOfShape on float8), 21 (int4/uint4) and 23
# (float4e2m1). References: small_types.py (ONNX Cast's rules; onnx/reference's
# op_cast.py, op_quantize_linear.py and _quant_utils.py).
SPECIAL = [0.0, -0.0, 1.0, -1.0, 0.1, -2.5, 1.0625, 1.1875, 3.0e-3, 1.0e-6, 250.0, 460.0, 470.0,
           -600.0, 6.0e4, 1.0e6, np.inf, -np.inf, np.nan]


def gen_small_types():
    x = np.array(SPECIAL, dtype=np.float32)
    for t in st.FLOAT8:
        name = st.NAMES[t]
        for sat in (1, 0):
            case(f"test_cast_float32_to_{name}_saturate{sat}_opset19", 19, "Cast", [("x", x)],
                 [("y", Coded(st.encode(x, t, bool(sat)), t))], {"to": t, "saturate": sat})
        codes = np.arange(256, dtype=np.uint8).reshape(16, 16)
        values = st.decode(codes, t)
        case(f"test_cast_{name}_to_float32_all_codes_opset19", 19, "Cast", [("x", Coded(codes, t))],
             [("y", values.astype(np.float32))], {"to": TensorProto.FLOAT})
        case(f"test_cast_{name}_to_float16_opset19", 19, "Cast", [("x", Coded(codes[:4], t))],
             [("y", values[:4].astype(np.float16))], {"to": TensorProto.FLOAT16})
        # Quantize with a float8 zero point (which must be 0) and dequantize back.
        xs = rnd(2, 6, lo=-40.0, hi=40.0)
        scale = np.array([0.05, 0.2], dtype=np.float32)
        for sat in (1, 0):
            q = st.encode(xs / scale.reshape(2, 1), t, bool(sat))
            case(f"test_quantize_linear_{name}_per_axis_saturate{sat}_opset19", 19, "QuantizeLinear",
                 [("x", xs), ("y_scale", scale), ("y_zero_point", Coded(np.zeros(2, np.uint8), t), "const")],
                 [("y", Coded(q, t))], {"axis": 0, "saturate": sat})
        q = Coded(RNG.randint(0, 256, size=(3, 4)).astype(np.uint8), t)
        scale = np.array(0.5, dtype=np.float32)
        case(f"test_dequantize_linear_{name}_opset19", 19, "DequantizeLinear",
             [("x", q, "const"), ("x_scale", scale), ("x_zero_point", Coded(np.zeros((), np.uint8), t), "const")],
             [("y", (q.values() * 0.5).astype(np.float32))])
        isnan = np.isnan(values)
        case(f"test_isnan_{name}_opset20", 20, "IsNaN", [("x", Coded(codes, t))], [("y", isnan)])
        for pos, neg in ((1, 1), (1, 0), (0, 1)):
            expected = (np.isposinf(values) & bool(pos)) | (np.isneginf(values) & bool(neg))
            case(f"test_isinf_{name}_pos{pos}_neg{neg}_opset20", 20, "IsInf", [("x", Coded(codes, t))],
                 [("y", expected)], {"detect_positive": pos, "detect_negative": neg})
    # float8 through data movement.
    t = st.F8E5M2
    codes = RNG.randint(0, 256, size=(2, 3, 4)).astype(np.uint8)
    case("test_transpose_float8e5m2_opset19", 19, "Transpose", [("x", Coded(codes, t))],
         [("y", Coded(codes.transpose(2, 0, 1), t))], {"perm": [2, 0, 1]})
    case("test_reshape_float8e5m2_opset19", 19, "Reshape",
         [("x", Coded(codes, t)), ("shape", np.array([6, 4], dtype=np.int64), "const")],
         [("y", Coded(codes.reshape(6, 4), t))])
    value = st.to_proto(Coded(np.array([st.encode_one(1.5, st.F8E4M3FN)], np.uint8), st.F8E4M3FN), "value")
    case("test_constant_of_shape_float8e4m3fn_opset20", 20, "ConstantOfShape",
         [("shape", np.array([2, 3], dtype=np.int64))],
         [("y", Coded(np.full((2, 3), st.encode_one(1.5, st.F8E4M3FN), np.uint8), st.F8E4M3FN))],
         {"value": value})
    # int4/uint4 (opset 21): Cast both ways, Q/DQ per axis and blocked, data movement.
    x = np.array([-9.0, -8.0, -7.5, -0.5, 0.5, 1.5, 2.5, 6.5, 7.5, 100.0, np.inf, -np.inf], dtype=np.float32)
    for t in (st.INT4, st.UINT4):
        name = st.NAMES[t]
        case(f"test_cast_float32_to_{name}_opset21", 21, "Cast", [("x", x[:10])],
             [("y", Coded(st.int4_encode(x[:10], t), t))], {"to": t})
        ints = np.array([-20, -8, -1, 0, 3, 7, 8, 15, 16, 1000], dtype=np.int32)
        case(f"test_cast_int32_to_{name}_opset21", 21, "Cast", [("x", ints)],
             [("y", Coded(st.int4_encode(ints, t), t))], {"to": t})
        lo, hi = (-8, 7) if t == st.INT4 else (0, 15)
        codes = np.arange(lo, hi + 1).reshape(2, 8)
        case(f"test_cast_{name}_to_float32_opset21", 21, "Cast", [("x", Coded(codes, t))],
             [("y", codes.astype(np.float32))], {"to": TensorProto.FLOAT})
        xs = rnd(3, 8, lo=-12.0, hi=12.0)
        scale = rnd(3, 2, lo=0.5, hi=1.5)
        zero_point = RNG.randint(lo // 2, hi // 2 + 1, size=(3, 2))
        full_scale = np.repeat(scale, 4, axis=1)
        full_zero = np.repeat(zero_point, 4, axis=1)
        y = np.clip(np.rint(xs / full_scale) + full_zero, lo, hi)
        case(f"test_quantize_linear_{name}_blocked_opset21", 21, "QuantizeLinear",
             [("x", xs), ("y_scale", scale), ("y_zero_point", Coded(zero_point, t), "const")],
             [("y", Coded(y, t))], {"axis": 1, "block_size": 4})
        q = RNG.randint(lo, hi + 1, size=(3, 8))
        case(f"test_dequantize_linear_{name}_blocked_opset21", 21, "DequantizeLinear",
             [("x", Coded(q, t), "const"), ("x_scale", scale), ("x_zero_point", Coded(zero_point, t), "const")],
             [("y", ((q - full_zero) * full_scale).astype(np.float32))], {"axis": 1, "block_size": 4})
        qa = RNG.randint(lo, hi + 1, size=(2, 5))
        axis_scale = np.array([0.5, 0.25], dtype=np.float32)
        case(f"test_dequantize_linear_{name}_per_axis_opset21", 21, "DequantizeLinear",
             [("x", Coded(qa, t), "const"), ("x_scale", axis_scale)],
             [("y", (qa * axis_scale.reshape(2, 1)).astype(np.float32))], {"axis": 0})
        odd = RNG.randint(lo, hi + 1, size=(3, 3))  # an odd element count: a half-filled last byte
        case(f"test_transpose_{name}_opset21", 21, "Transpose", [("x", Coded(odd, t))],
             [("y", Coded(odd.T, t))])
    # float4e2m1 (opset 23): Cast both ways, Q/DQ.
    t = st.F4E2M1
    x = np.array([0.0, -0.0, 0.25, 0.26, 0.75, 1.25, 1.75, 2.5, 5.0, 5.01, -7.0, 100.0, np.inf, np.nan],
                 dtype=np.float32)
    case("test_cast_float32_to_float4e2m1_opset23", 23, "Cast", [("x", x)], [("y", Coded(st.encode(x, t), t))],
         {"to": t})
    codes = np.arange(16, dtype=np.uint8).reshape(4, 4)
    case("test_cast_float4e2m1_to_float32_opset23", 23, "Cast", [("x", Coded(codes, t))],
         [("y", st.decode(codes, t).astype(np.float32))], {"to": TensorProto.FLOAT})
    xs = rnd(2, 5, lo=-8.0, hi=8.0)
    scale = np.array([1.0, 0.5], dtype=np.float32)
    case("test_quantize_linear_float4e2m1_opset23", 23, "QuantizeLinear",
         [("x", xs), ("y_scale", scale), ("y_zero_point", Coded(np.zeros(2, np.uint8), t), "const")],
         [("y", Coded(st.encode(xs / scale.reshape(2, 1), t), t))], {"axis": 0})
    q = Coded(RNG.randint(0, 16, size=(2, 5)).astype(np.uint8), t)
    case("test_dequantize_linear_float4e2m1_opset23", 23, "DequantizeLinear",
         [("x", q, "const"), ("x_scale", scale), ("x_zero_point", Coded(np.zeros(2, np.uint8), t), "const")],
         [("y", (q.values() * scale.reshape(2, 1)).astype(np.float32))], {"axis": 0})
    # QuantizeLinear-23 `precision`: the quotient rounded to float16 / bfloat16 first.
    xq = np.array([2049.0, 257.0, -1027.0, 3.5, 4095.0], dtype=np.float32)
    bits = xq.view(np.uint32).astype(np.uint64)
    bf16 = (((bits + 0x7FFF + ((bits >> 16) & 1)) >> 16) << 16).astype(np.uint32).view(np.float32)
    for precision, quotient in ((TensorProto.FLOAT16, xq.astype(np.float16).astype(np.float32)),
                                (TensorProto.BFLOAT16, bf16), (TensorProto.FLOAT, xq)):
        pname = {TensorProto.FLOAT16: "float16", TensorProto.BFLOAT16: "bfloat16", TensorProto.FLOAT: "float"}[precision]
        case(f"test_quantize_linear_precision_{pname}_opset23", 23, "QuantizeLinear",
             [("x", xq), ("y_scale", np.array(1.0, dtype=np.float32)), ("y_zero_point", np.array(0, dtype=np.int16))],
             [("y", np.clip(np.rint(quotient), -32768, 32767).astype(np.int16))], {"precision": precision})
    # A float16 scale (opset 19): Q reads float16 x, DQ writes float16.
    xh = rnd(2, 4, lo=-50.0, hi=50.0).astype(np.float16)
    sh = np.array(0.5, dtype=np.float16)
    case("test_quantize_linear_float16_scale_opset19", 19, "QuantizeLinear",
         [("x", xh), ("y_scale", sh), ("y_zero_point", np.array(-3, dtype=np.int8))],
         [("y", np.clip(np.rint(xh.astype(np.float32) / np.float32(0.5)) - 3, -128, 127).astype(np.int8))])
    qh = _quantized(np.uint8, 2, 4)
    case("test_dequantize_linear_float16_scale_opset19", 19, "DequantizeLinear",
         [("x", qh), ("x_scale", sh), ("x_zero_point", np.array(128, dtype=np.uint8))],
         [("y", ((qh.astype(np.float32) - 128) * 0.5).astype(np.float16))])


def main():
    if len(sys.argv) != 2:
        print(__doc__)
        sys.exit(2)
    out = os.path.join(sys.argv[1], "node")
    for gen in (gen_reduce, gen_split, gen_pad, gen_resize, gen_scatter, gen_center_crop_pad,
                gen_col2im, gen_elementwise, gen_pool, gen_norm, gen_affine_grid, gen_dft,
                gen_rotary, gen_attention, gen_bumps, gen_strings, gen_optional, gen_deform_conv,
                gen_quantize, gen_small_types, gen_grid_sample):
        gen()
    names = [c[0] for c in CASES]
    assert len(names) == len(set(names)), "duplicate case names"
    for name, model, feeds, exp in CASES:
        d = os.path.join(out, name)
        if os.path.isdir(d):
            shutil.rmtree(d)
        os.makedirs(os.path.join(d, "test_data_set_0"))
        with open(os.path.join(d, "model.onnx"), "wb") as f:
            f.write(model.SerializeToString())
        for k, a in enumerate(feeds):
            with open(os.path.join(d, "test_data_set_0", f"input_{k}.pb"), "wb") as f:
                f.write(_proto(a, model.graph.input[k].name).SerializeToString())
        for k, a in enumerate(exp):
            with open(os.path.join(d, "test_data_set_0", f"output_{k}.pb"), "wb") as f:
                f.write(_proto(a, model.graph.output[k].name).SerializeToString())
    print(f"wrote {len(CASES)} cases under {out}")


if __name__ == "__main__":
    main()
