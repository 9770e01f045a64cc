"""Shared helpers of the reduced-precision benchmark models (bench only, never shipped).

- run_graph: a small ONNX interpreter on torch ops, for exactly the operators these models
  use. It calibrates the static quantiser (every tensor's min/max) and sanity-checks the
  quantised models against the float ones, without ONNX Runtime or GE.
- quantize_static_qdq: static quantisation in QDQ form, laid out as ONNX Runtime's QDQ
  quantiser writes it (Q->DQ on activations, DQ on weights, int32 bias through DQ).
- quantize_dynamic_conv: dynamic quantisation of every Conv, as ORT's quantize_dynamic
  writes it (DynamicQuantizeLinear -> ConvInteger -> Cast -> Mul -> Add).
- to_float16: the whole graph in float16 (onnx 1.12 has no float16 converter).

Run with /usr/bin/python3 (torch 1.13, onnx 1.12, numpy)."""

import numpy as np
import onnx
import torch
import torch.nn.functional as F
from onnx import TensorProto, helper, numpy_helper

_TORCH_DTYPE = {
    TensorProto.FLOAT: torch.float32, TensorProto.FLOAT16: torch.float16, TensorProto.DOUBLE: torch.float64,
    TensorProto.INT32: torch.int32, TensorProto.INT64: torch.int64, TensorProto.UINT8: torch.uint8,
    TensorProto.INT8: torch.int8,
}
_QRANGE = {torch.uint8: (0, 255), torch.int8: (-128, 127), torch.int32: (-2**31, 2**31 - 1)}


def _attrs(node):
    return {a.name: helper.get_attribute_value(a) for a in node.attribute}


def _pads2d(x, pads, value=0.0):
    """ONNX pads [t, l, b, r] -> (x padded, no torch padding left)."""
    t, l, b, r = pads
    return F.pad(x, (l, r, t, b), value=value) if any(pads) else x


def _quantize(x, scale, zp, axis):
    shape = [1] * x.dim()
    if scale.dim() == 1:
        shape[axis] = -1
    lo, hi = _QRANGE[zp.dtype]
    # In float32, as the ONNX reference computes it; round() is half to even.
    q = torch.round(x.float() / scale.float().reshape(shape)) + zp.float().reshape(shape)
    return q.clamp(lo, hi).to(zp.dtype)


def _dequantize(q, scale, zp, axis):
    shape = [1] * q.dim()
    if scale.dim() == 1:
        shape[axis] = -1
    if q.dtype == torch.int32:  # int32 bias: exact in float64, then rounded once to float32
        return ((q.double() - zp.double().reshape(shape)) * scale.double().reshape(shape)).to(scale.dtype)
    return (q.float() - zp.float().reshape(shape)) * scale.float().reshape(shape)


def _conv(x, w, b, a):
    k = len(w.shape) - 2
    if k != 2:
        raise ValueError("only 2-D Conv is interpreted")
    x = _pads2d(x, a.get("pads", [0] * 4))
    return F.conv2d(x, w, b, stride=a.get("strides", [1, 1]), dilation=a.get("dilations", [1, 1]),
                    groups=a.get("group", 1))


def _run_node(n, v):
    """Returns the node's outputs (a list of tensors) from its inputs' values v[name]."""
    a = _attrs(n)
    x = [v[i] if i else None for i in n.input]
    op = n.op_type
    if op == "Constant":
        return [torch.from_numpy(numpy_helper.to_array(a["value"]).copy())]
    if op == "Conv":
        return [_conv(x[0], x[1], x[2] if len(x) > 2 else None, a)]
    if op == "ConvInteger":
        xq = x[0].double() - (x[2].double() if len(x) > 2 and x[2] is not None else 0)
        wz = x[3].double() if len(x) > 3 and x[3] is not None else 0
        wq = x[1].double() - (wz.reshape(-1, 1, 1, 1) if torch.is_tensor(wz) and wz.dim() == 1 else wz)
        pads = a.get("pads", [0] * 4)
        xq = _pads2d(xq, pads)  # padding in the quantised domain is the zero point, i.e. 0 after the shift
        y = F.conv2d(xq, wq, None, stride=a.get("strides", [1, 1]), dilation=a.get("dilations", [1, 1]),
                     groups=a.get("group", 1))
        return [y.round().to(torch.int32)]  # exact: every product and sum is an integer below 2^53
    if op == "Relu":
        return [F.relu(x[0])]
    if op in ("Add", "Sub", "Mul", "Div", "Pow"):
        f = {"Add": torch.add, "Sub": torch.sub, "Mul": torch.mul, "Div": torch.div, "Pow": torch.pow}[op]
        return [f(x[0], x[1])]
    if op == "Sqrt":
        return [torch.sqrt(x[0])]
    if op == "Erf":
        return [torch.erf(x[0])]
    if op == "MaxPool":
        k = a["kernel_shape"]
        xp = _pads2d(x[0], a.get("pads", [0] * 4), value=float("-inf"))
        return [F.max_pool2d(xp, k, stride=a.get("strides", k), ceil_mode=bool(a.get("ceil_mode", 0)))]
    if op == "GlobalAveragePool":
        return [x[0].mean(dim=(2, 3), keepdim=True)]
    if op == "Flatten":
        ax = a.get("axis", 1)
        return [x[0].reshape(int(np.prod(x[0].shape[:ax])), -1)]
    if op == "Gemm":
        A = x[0].t() if a.get("transA", 0) else x[0]
        B = x[1].t() if a.get("transB", 0) else x[1]
        y = a.get("alpha", 1.0) * (A @ B)
        if len(x) > 2 and x[2] is not None:
            y = y + a.get("beta", 1.0) * x[2]
        return [y]
    if op == "MatMul":
        return [torch.matmul(x[0], x[1])]
    if op == "Reshape":
        shape = [int(s) for s in x[1].tolist()]
        shape = [x[0].shape[i] if s == 0 else s for i, s in enumerate(shape)]
        return [x[0].reshape(shape)]
    if op == "Transpose":
        return [x[0].permute(a["perm"])]
    if op == "ReduceMean":
        return [x[0].mean(dim=a["axes"], keepdim=bool(a.get("keepdims", 1)))]
    if op == "Softmax":
        return [torch.softmax(x[0], dim=a.get("axis", -1))]
    if op == "Concat":
        return [torch.cat(x, dim=a["axis"])]
    if op == "Resize":
        if a.get("mode", b"nearest") not in (b"nearest", "nearest"):
            raise ValueError(f"Resize {n.name}: only mode=nearest is interpreted")
        scales = x[2].tolist() if len(x) > 2 and x[2] is not None and x[2].numel() else None
        if scales is None or scales[:2] != [1.0, 1.0] or any(s != int(s) for s in scales[2:]):
            raise ValueError(f"Resize {n.name}: only integer spatial scales are interpreted")
        return [F.interpolate(x[0], scale_factor=scales[2:], mode="nearest")]
    if op == "Cast":
        return [x[0].to(_TORCH_DTYPE[a["to"]])]
    if op == "QuantizeLinear":
        return [_quantize(x[0], x[1], x[2], a.get("axis", 1))]
    if op == "DequantizeLinear":
        return [_dequantize(x[0], x[1], x[2], a.get("axis", 1))]
    if op == "DynamicQuantizeLinear":
        lo = np.float32(min(x[0].min().item(), 0.0))
        hi = np.float32(max(x[0].max().item(), 0.0))
        scale = np.float32((hi - lo) / np.float32(255)) if hi > lo else np.float32(1)
        zp = np.clip(np.round(-lo / scale), 0, 255)
        s = torch.tensor(scale, dtype=torch.float32)
        z = torch.tensor(zp, dtype=torch.uint8)
        return [_quantize(x[0], s, z, 1), s, z]
    raise ValueError(f"node {n.name}: {op} is not interpreted")


def run_graph(model, feeds, observe=None):
    """Runs model on feeds {input name: numpy array}; returns {output name: numpy array}.
    observe(name, tensor) is called for every value a node produces."""
    g = model.graph
    v = {i.name: torch.from_numpy(numpy_helper.to_array(i).copy()) for i in g.initializer}
    for k, a in feeds.items():
        v[k] = torch.from_numpy(np.array(a))
    with torch.no_grad():
        for n in g.node:
            outs = _run_node(n, v)
            for name, t in zip(n.output, outs):
                v[name] = t
                if observe:
                    observe(name, t)
    return {o.name: v[o.name].numpy() for o in g.output}


def random_input(shape, seed):
    """Uniform [-1, 1) float32, as ORT's bench.js fills its inputs (other stream, same range)."""
    return np.random.default_rng(seed).uniform(-1, 1, shape).astype(np.float32)


# --- static quantisation, QDQ form -------------------------------------------------------

def _activation_params(lo, hi):
    """uint8 asymmetric, as ORT computes it: the range widened to hold 0."""
    lo, hi = min(lo, 0.0), max(hi, 0.0)
    scale = (hi - lo) / 255.0 if hi > lo else 1.0
    zp = int(np.clip(np.round(-lo / scale), 0, 255))
    return np.float32(scale), np.uint8(zp)


def quantize_static_qdq(model, calibration_feeds, op_types=("Conv", "Gemm", "MatMul", "Add")):
    """Statically quantises model in QDQ form; returns a new ModelProto.

    - Activation ranges: min/max of every value over calibration_feeds (run_graph).
    - op_types are quantised: Conv, Gemm and MatMul always on their activation inputs and
      output; Add only where both inputs are activations (a residual sum), as ORT does.
    - A Relu that is the only consumer of a quantised node's output is folded into that
      output's quantisation (range [0, max], zero point 0), as ORT's QDQ quantiser removes it.
    - Weights: int8 symmetric per output channel (Conv axis 0, Gemm axis 0 with transB=1,
      MatMul [K,N] axis 1) through DequantizeLinear; bias: int32 with scale x_scale*w_scale
      per channel, zero point 0, through DequantizeLinear.
    - Activations: uint8 asymmetric per tensor, one QuantizeLinear -> DequantizeLinear pair
      per tensor shared by all its consumers; value names of the float graph are kept (the
      DequantizeLinear produces the original name)."""
    model = onnx.ModelProto.FromString(model.SerializeToString())
    g = model.graph
    inits = {i.name: numpy_helper.to_array(i) for i in g.initializer}
    ranges = {}

    def observe(name, t):
        if t.is_floating_point():
            lo, hi = t.min().item(), t.max().item()
            old = ranges.get(name)
            ranges[name] = (lo, hi) if old is None else (min(old[0], lo), max(old[1], hi))

    for feeds in calibration_feeds:
        for k, a in feeds.items():
            observe(k, torch.from_numpy(a))
        run_graph(model, feeds, observe)

    nodes = list(g.node)
    graph_outputs = {o.name for o in g.output}

    def consumers(name):
        return [n for n in nodes if name in n.input]

    def quantised(n):
        if n.op_type not in op_types:
            return False
        if n.op_type == "Add":
            return all(i not in inits for i in n.input)
        return True

    # Fold Relu into the output quantisation of the node before it.
    for n in list(nodes):
        if not quantised(n):
            continue
        out = n.output[0]
        users = consumers(out)
        if len(users) == 1 and users[0].op_type == "Relu" and out not in graph_outputs:
            relu = users[0]
            n.output[0] = relu.output[0]
            nodes.remove(relu)

    def weight_axis(n, idx):
        if n.op_type == "Conv":
            return 0
        if n.op_type == "Gemm":
            return 0 if _attrs(n).get("transB", 0) else 1
        return 1  # MatMul B [K, N]: per output column

    activations = []  # tensors to quantise, in first-use order
    weights = []  # (node, input index)
    for n in nodes:
        if not quantised(n):
            continue
        for idx, name in enumerate(n.input):
            if not name:
                continue
            if name in inits:
                if n.op_type in ("Conv", "Gemm") and idx == 2:
                    continue  # bias: handled with its weight
                weights.append((n, idx))
            elif name not in activations:
                activations.append(name)
        if n.output[0] not in activations:
            activations.append(n.output[0])

    params = {}
    for t in activations:
        if t not in ranges:
            raise ValueError(f"no calibration range for value '{t}'")
        params[t] = _activation_params(*ranges[t])

    new_inits = []

    def add_init(array, name):
        new_inits.append(numpy_helper.from_array(array, name))
        return name

    # Weights (and biases) through DequantizeLinear, one DQ per weight.
    weight_nodes = []
    dropped = set()
    done = {}
    for n, idx in weights:
        w_name = n.input[idx]
        if (w_name, n.op_type) in done:
            n.input[idx] = done[(w_name, n.op_type)]
            continue
        w = inits[w_name]
        axis = weight_axis(n, idx)
        if w.ndim == 1:
            axis = 0
        reduce_axes = tuple(a for a in range(w.ndim) if a != axis)
        amax = np.abs(w).max(axis=reduce_axes) if reduce_axes else np.abs(w)
        scale = np.where(amax > 0, amax / 127.0, 1.0).astype(np.float32)
        shape = [1] * w.ndim
        shape[axis] = -1
        wq = np.clip(np.round(w / scale.reshape(shape)), -127, 127).astype(np.int8)
        q = add_init(wq, w_name + "_quantized")
        s = add_init(scale, w_name + "_scale")
        z = add_init(np.zeros_like(scale, dtype=np.int8), w_name + "_zero_point")
        dq = w_name + "_DequantizeLinear_Output"
        weight_nodes.append(helper.make_node("DequantizeLinear", [q, s, z], [dq], name=w_name + "_DequantizeLinear",
                                             axis=axis))
        done[(w_name, n.op_type)] = dq
        n.input[idx] = dq
        dropped.add(w_name)
        if n.op_type in ("Conv", "Gemm") and len(n.input) > 2 and n.input[2] in inits:
            b_name = n.input[2]
            x_scale = params[n.input[0]][0]
            b_scale = (np.float32(x_scale) * scale).astype(np.float32)
            bq = np.round(inits[b_name].astype(np.float64) / b_scale).astype(np.int32)
            q = add_init(bq, b_name + "_quantized")
            s = add_init(b_scale, b_name + "_quantized_scale")
            z = add_init(np.zeros_like(bq), b_name + "_quantized_zero_point")
            dq = b_name + "_quantized_DequantizeLinear_Output"
            weight_nodes.append(helper.make_node("DequantizeLinear", [q, s, z], [dq],
                                                 name=b_name + "_quantized_DequantizeLinear", axis=0))
            n.input[2] = dq
            dropped.add(b_name)

    # Activations: producer writes NAME_prequant -> Q -> DQ -> NAME (graph inputs: DQ -> NAME_dequantized).
    graph_inputs = {i.name for i in g.input}
    out_nodes = []
    front = []
    pairs = {}
    for t in activations:
        scale, zp = params[t]
        s = add_init(scale, t + "_scale")
        z = add_init(zp, t + "_zero_point")
        if t in graph_inputs:
            src, dst = t, t + "_dequantized"
            for n in nodes:
                for k, i in enumerate(n.input):
                    if i == t:
                        n.input[k] = dst
        else:
            src, dst = t + "_prequant", t
        pair = [helper.make_node("QuantizeLinear", [src, s, z], [t + "_QuantizeLinear_Output"],
                                 name=t + "_QuantizeLinear"),
                helper.make_node("DequantizeLinear", [t + "_QuantizeLinear_Output", s, z], [dst],
                                 name=t + "_DequantizeLinear")]
        if t in graph_inputs:
            front += pair
        else:
            pairs[t] = pair
    for n in nodes:
        for k, o in enumerate(n.output):
            if o in pairs:
                n.output[k] = o + "_prequant"
        out_nodes.append(n)
        for o in n.output:
            if o.endswith("_prequant") and o[: -len("_prequant")] in pairs:
                out_nodes += pairs[o[: -len("_prequant")]]

    del g.node[:]
    g.node.extend(weight_nodes + front + out_nodes)
    keep = [i for i in g.initializer if i.name not in dropped]
    del g.initializer[:]
    g.initializer.extend(keep + new_inits)
    del g.value_info[:]
    onnx.checker.check_model(model)
    return model


# --- dynamic quantisation of Conv, ConvInteger form ---------------------------------------

def quantize_dynamic_conv(model):
    """Every Conv with an initializer weight becomes, as ORT's quantize_dynamic writes it:
    DynamicQuantizeLinear(x) -> ConvInteger(x_q, W_u8, x_zp, W_zp) -> Cast(float) ->
    Mul(x_scale * W_scale) -> Add(bias as [1,C,1,1]). Weights uint8 per tensor, asymmetric
    (range widened to hold 0). One DynamicQuantizeLinear per quantised value."""
    model = onnx.ModelProto.FromString(model.SerializeToString())
    g = model.graph
    inits = {i.name: numpy_helper.to_array(i) for i in g.initializer}
    new_inits, dropped, out_nodes = [], set(), []
    dql = {}
    for n in g.node:
        if n.op_type != "Conv" or n.input[1] not in inits:
            out_nodes.append(n)
            continue
        x, w_name = n.input[0], n.input[1]
        if x not in dql:
            dql[x] = (x + "_quantized", x + "_scale", x + "_zero_point")
            out_nodes.append(helper.make_node("DynamicQuantizeLinear", [x], list(dql[x]),
                                              name=x + "_DynamicQuantizeLinear"))
        xq, xs, xz = dql[x]
        w = inits[w_name]
        lo, hi = min(float(w.min()), 0.0), max(float(w.max()), 0.0)
        ws = np.float32((hi - lo) / 255.0 if hi > lo else 1.0)
        wz = np.uint8(np.clip(np.round(-lo / ws), 0, 255))
        wq = np.clip(np.round(w / ws) + wz, 0, 255).astype(np.uint8)
        new_inits += [numpy_helper.from_array(wq, w_name + "_quantized"),
                      numpy_helper.from_array(ws, w_name + "_scale"),
                      numpy_helper.from_array(wz, w_name + "_zero_point")]
        dropped.add(w_name)
        base = n.name or n.output[0]
        conv_out = base + "_output_quantized"
        out_nodes.append(helper.make_node("ConvInteger", [xq, w_name + "_quantized", xz, w_name + "_zero_point"],
                                          [conv_out], name=base + "_quant", **_attrs(n)))
        cast = base + "_output_quantized_cast_output"
        out_nodes.append(helper.make_node("Cast", [conv_out], [cast], name=base + "_output_quantized_cast",
                                          to=TensorProto.FLOAT))
        scales = base + "_scales_mul"
        out_nodes.append(helper.make_node("Mul", [xs, w_name + "_scale"], [scales], name=base + "_scales_mul"))
        has_bias = len(n.input) > 2 and n.input[2]
        scaled = base + "_output_scaled" if has_bias else n.output[0]
        out_nodes.append(helper.make_node("Mul", [cast, scales], [scaled], name=base + "_output_scale_mul"))
        if has_bias:
            b_name = n.input[2]
            bias = inits[b_name].reshape(1, -1, 1, 1)
            new_inits.append(numpy_helper.from_array(bias, b_name + "_reshaped"))
            dropped.add(b_name)
            out_nodes.append(helper.make_node("Add", [scaled, b_name + "_reshaped"], [n.output[0]],
                                              name=base + "_bias_add"))
    del g.node[:]
    g.node.extend(out_nodes)
    keep = [i for i in g.initializer if i.name not in dropped]
    del g.initializer[:]
    g.initializer.extend(keep + new_inits)
    del g.value_info[:]
    onnx.checker.check_model(model)
    return model


# --- float16 ------------------------------------------------------------------------------

def to_float16(model):
    """The whole graph in float16: float32 initializers, Constant values, Cast targets and
    the graph's inputs and outputs become float16. Refuses operators whose float inputs must
    stay float32 (Resize's scales), which these models do not use."""
    model = onnx.ModelProto.FromString(model.SerializeToString())
    g = model.graph
    for n in g.node:
        if n.op_type == "Resize":
            raise ValueError(f"to_float16: {n.name}: Resize keeps float32 scales; not handled")
        if n.op_type == "Constant":
            for a in n.attribute:
                if a.name == "value" and a.t.data_type == TensorProto.FLOAT:
                    a.t.CopyFrom(numpy_helper.from_array(numpy_helper.to_array(a.t).astype(np.float16), a.t.name))
        if n.op_type == "Cast":
            for a in n.attribute:
                if a.name == "to" and a.i == TensorProto.FLOAT:
                    a.i = TensorProto.FLOAT16
    converted = []
    for i in g.initializer:
        if i.data_type == TensorProto.FLOAT:
            converted.append(numpy_helper.from_array(numpy_helper.to_array(i).astype(np.float16), i.name))
        else:
            converted.append(i)
    del g.initializer[:]
    g.initializer.extend(converted)
    for vi in list(g.input) + list(g.output):
        if vi.type.tensor_type.elem_type == TensorProto.FLOAT:
            vi.type.tensor_type.elem_type = TensorProto.FLOAT16
    del g.value_info[:]
    onnx.checker.check_model(model)
    return model


def count_ops(model):
    counts = {}
    for n in model.graph.node:
        counts[n.op_type] = counts.get(n.op_type, 0) + 1
    return ", ".join(f"{k} {v}" for k, v in sorted(counts.items()))
