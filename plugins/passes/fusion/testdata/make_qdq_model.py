#!/usr/bin/python3
"""Generates the QDQ model the fuse_qdq model test runs at -O0 and -O2.

  /usr/bin/python3 make_qdq_model.py OUT_DIR

A small float CNN (torch.nn, exported by torch.onnx.export at opset 13 in eval mode, which
folds the BatchNormalizations into the convolutions):
  conv1 3x3 + BN + Relu -> conv2 3x3 + BN, residual Add, Relu -> conv3 3x3 stride 2 + Relu
  -> global average pool -> flatten -> Linear (Gemm)
is quantised statically into QDQ form, laid out as ONNX Runtime's QDQ quantiser writes it:
uint8 activations per tensor (QuantizeLinear -> DequantizeLinear on the model input and on
every input and output of Conv, Add and Gemm, placed after the Relu that follows one),
their scales calibrated from min/max over a few random inputs; int8 symmetric weights per
output channel (DequantizeLinear, axis 0); int32 biases of scale x_scale * w_scale through
DequantizeLinear. Writes
  qdq_cnn.onnx          the QDQ model (input "x" float32[1,3,32,32], output "logits")
  qdq_cnn.input.bin     one random input (raw little-endian float32)
and checks, with a small torch interpreter of the graph, that the QDQ model's logits are
close to the float model's. Also writes
  qdq_cnn_torch.onnx    the same network with the BatchNormalizations folded, fake-quantised
                        in torch (torch.fake_quantize_per_tensor_affine on the activations,
                        uint8, calibrated on the same inputs; per-channel int8 on the weights)
                        and exported by torch.onnx.export: PyTorch's own QDQ form, whose
                        weights are QuantizeLinear(float W) -> DequantizeLinear and whose
                        biases stay float
  qdq_cnn_torch.input.bin  its input (the same as qdq_cnn's)"""
import os
import sys

import numpy as np
import onnx
import torch
import torch.nn.functional as F
from onnx import TensorProto, helper, numpy_helper

INPUT_SHAPE = (1, 3, 32, 32)


class SmallCnn(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.conv1 = torch.nn.Conv2d(3, 16, 3, padding=1)
        self.bn1 = torch.nn.BatchNorm2d(16)
        self.conv2 = torch.nn.Conv2d(16, 16, 3, padding=1)
        self.bn2 = torch.nn.BatchNorm2d(16)
        self.conv3 = torch.nn.Conv2d(16, 32, 3, stride=2, padding=1)
        self.fc = torch.nn.Linear(32, 10)

    def forward(self, x):
        y = F.relu(self.bn1(self.conv1(x)))
        y = F.relu(y + self.bn2(self.conv2(y)))
        y = F.relu(self.conv3(y))
        return self.fc(torch.flatten(F.adaptive_avg_pool2d(y, 1), 1))


def export_float_model(path):
    torch.manual_seed(37)
    net = SmallCnn()
    with torch.no_grad():  # BN statistics that are not the identity, so the fold matters
        for bn in (net.bn1, net.bn2):
            bn.running_mean.uniform_(-0.2, 0.2)
            bn.running_var.uniform_(0.5, 2.0)
            bn.weight.uniform_(0.5, 1.5)
            bn.bias.uniform_(-0.2, 0.2)
    net.eval()
    torch.onnx.export(net, torch.zeros(INPUT_SHAPE), path, opset_version=13, input_names=["x"],
                      output_names=["logits"], do_constant_folding=True)
    return onnx.load(path)


class FakeQuantCnn(torch.nn.Module):
    """SmallCnn with BN folded, fake-quantised at the points ONNX Runtime's quantiser
    quantises; calibrate() records each point's range on float runs."""

    def __init__(self, net):
        super().__init__()
        def fold(conv, bn):
            s = bn.weight / torch.sqrt(bn.running_var + bn.eps)
            return (conv.weight * s.reshape(-1, 1, 1, 1)).detach(), ((conv.bias - bn.running_mean) * s + bn.bias).detach()
        self.w1, self.b1 = fold(net.conv1, net.bn1)
        self.w2, self.b2 = fold(net.conv2, net.bn2)
        self.w3, self.b3 = net.conv3.weight.detach(), net.conv3.bias.detach()
        self.wfc, self.bfc = net.fc.weight.detach(), net.fc.bias.detach()
        # Parameters, as in a QAT model: the exporter keeps their QuantizeLinear ->
        # DequantizeLinear (plain tensors would be traced as constants and folded).
        for name in ("w1", "b1", "w2", "b2", "w3", "b3", "wfc", "bfc"):
            setattr(self, name, torch.nn.Parameter(getattr(self, name), requires_grad=False))
        # Symmetric per-output-channel weight scales, precomputed (else traced as ops).
        for name in ("w1", "w2", "w3", "wfc"):
            w = getattr(self, name)
            reach = w.abs().flatten(1).max(dim=1).values
            scale = (torch.where(reach > 0, reach, torch.ones_like(reach)) / 127.0).float()
            setattr(self, name + "_scale", torch.nn.Parameter(scale, requires_grad=False))
        self.ranges, self.params = {}, None

    def act(self, point, t):
        if self.params is None:
            low, high = self.ranges.get(point, (0.0, 0.0))
            self.ranges[point] = (min(low, float(t.min())), max(high, float(t.max())))
            return t
        scale, zero = self.params[point]
        return torch.fake_quantize_per_tensor_affine(t, float(scale), int(zero), 0, 255)

    def weight(self, name):
        w = getattr(self, name)
        if self.params is None:
            return w
        zero = torch.zeros(w.shape[0], dtype=torch.int32)
        return torch.fake_quantize_per_channel_affine(w, getattr(self, name + "_scale"), zero, 0, -128, 127)

    def forward(self, x):
        x = self.act(0, x)
        y = self.act(1, F.relu(F.conv2d(x, self.weight("w1"), self.b1, padding=1)))
        z = self.act(2, F.conv2d(y, self.weight("w2"), self.b2, padding=1))
        y = self.act(3, F.relu(y + z))
        y = self.act(4, F.relu(F.conv2d(y, self.weight("w3"), self.b3, stride=2, padding=1)))
        y = self.act(5, torch.flatten(F.adaptive_avg_pool2d(y, 1), 1))
        return self.act(6, F.linear(y, self.weight("wfc"), self.bfc))


def export_fake_quant_model(path, inputs):
    torch.manual_seed(37)
    net = SmallCnn()
    with torch.no_grad():  # the same initialisation as export_float_model
        for bn in (net.bn1, net.bn2):
            bn.running_mean.uniform_(-0.2, 0.2)
            bn.running_var.uniform_(0.5, 2.0)
            bn.weight.uniform_(0.5, 1.5)
            bn.bias.uniform_(-0.2, 0.2)
    net.eval()
    fq = FakeQuantCnn(net)
    with torch.no_grad():
        for x in inputs:
            fq(torch.from_numpy(x))
        fq.params = {p: activation_parameters(*r) for p, r in fq.ranges.items()}
        torch.onnx.export(fq, torch.from_numpy(inputs[0]), path, opset_version=13, input_names=["x"],
                          output_names=["logits"], do_constant_folding=True)
    return onnx.load(path)


# ---- a small interpreter over torch, for the ops of these two graphs ----

def _attrs(node):
    return {a.name: helper.get_attribute_value(a) for a in node.attribute}


def _q_shape(scale, rank, axis):
    shape = [1] * rank
    if scale.dim() == 1:
        shape[axis] = -1
    return shape


def run_graph(model, feeds):
    """Every tensor's value (float64 arithmetic; Q/DQ as ONNX defines them)."""
    values = {i.name: torch.from_numpy(numpy_helper.to_array(i).copy()) for i in model.graph.initializer}
    values.update({k: torch.from_numpy(v) for k, v in feeds.items()})
    for node in model.graph.node:
        x = [values[i] if i else None for i in node.input]
        a = _attrs(node)
        op = node.op_type
        if op == "Conv":
            pads = a.get("pads", [0, 0, 0, 0])
            xp = F.pad(x[0].double(), (pads[1], pads[3], pads[0], pads[2]))
            b = x[2].double() if len(x) > 2 and x[2] is not None else None
            y = F.conv2d(xp, x[1].double(), b, stride=a.get("strides", [1, 1]), dilation=a.get("dilations", [1, 1]),
                         groups=a.get("group", 1))
        elif op == "Relu":
            y = torch.relu(x[0])
        elif op == "Add":
            y = x[0] + x[1]
        elif op == "GlobalAveragePool":
            y = x[0].mean(dim=(2, 3), keepdim=True)
        elif op == "Flatten":
            y = torch.flatten(x[0], a.get("axis", 1))
        elif op == "Gemm":
            b = x[1].double().t() if a.get("transB", 0) else x[1].double()
            y = x[0].double() @ b * a.get("alpha", 1.0)
            if len(x) > 2 and x[2] is not None:
                y = y + a.get("beta", 1.0) * x[2].double()
        elif op == "QuantizeLinear":
            scale, zero = x[1].double(), x[2]
            shape = _q_shape(scale, x[0].dim(), a.get("axis", 1))
            lo, hi = (0, 255) if zero.dtype == torch.uint8 else (-128, 127)
            q = torch.round(x[0].double() / scale.reshape(shape)) + zero.double().reshape(shape)  # half to even
            y = q.clamp(lo, hi).to(zero.dtype)
        elif op == "DequantizeLinear":
            scale = x[1].double()
            shape = _q_shape(scale, x[0].dim(), a.get("axis", 1))
            y = (x[0].double() - x[2].double().reshape(shape)) * scale.reshape(shape)
        else:
            sys.exit(f"make_qdq_model.py: no interpreter rule for {op} ({node.name})")
        values[node.output[0]] = y
    return values


# ---- static quantisation in QDQ form ----

def activation_parameters(low, high):
    """uint8, the range widened to hold 0 (so that 0 is exact, as ONNX Runtime does)."""
    low, high = min(low, 0.0), max(high, 0.0)
    scale = (high - low) / 255.0 if high > low else 1.0
    zero = int(np.clip(round(-low / scale), 0, 255))
    return np.float32(scale), np.uint8(zero)


def quantize_static_qdq(model, calibration):
    graph = model.graph
    inits = {i.name: numpy_helper.to_array(i) for i in graph.initializer}
    consumers = {}
    for node in graph.node:
        for i in node.input:
            consumers.setdefault(i, []).append(node)

    def followed_by_relu(tensor):
        users = consumers.get(tensor, [])
        return users[0].output[0] if len(users) == 1 and users[0].op_type == "Relu" else tensor

    quantised = []  # activation tensors that get Q -> DQ, in graph order
    for node in graph.node:
        if node.op_type not in ("Conv", "Gemm", "Add"):
            continue
        data_inputs = [node.input[0]] if node.op_type in ("Conv", "Gemm") else list(node.input)
        for t in data_inputs + [followed_by_relu(node.output[0])]:
            if t not in inits and t not in quantised:
                quantised.append(t)
    ranges = {}
    for values in calibration:
        for t in quantised:
            v = values[t]
            low, high = float(v.min()), float(v.max())
            old = ranges.get(t, (low, high))
            ranges[t] = (min(low, old[0]), max(high, old[1]))
    params = {t: activation_parameters(*ranges[t]) for t in quantised}

    new_inits = [i for i in graph.initializer]
    nodes = []
    dq_name = {}  # activation -> its dequantised name

    outputs = {o.name for o in graph.output}

    def add_qdq(t):
        """Q -> DQ on activation t; a graph output keeps its name on the dequantised value
        (its producer's output is renamed t_float)."""
        scale, zero = params[t]
        source = t + "_float" if t in outputs else t
        new_inits.append(numpy_helper.from_array(np.array(scale, np.float32), t + "_scale"))
        new_inits.append(numpy_helper.from_array(np.array(zero, np.uint8), t + "_zero_point"))
        nodes.append(helper.make_node("QuantizeLinear", [source, t + "_scale", t + "_zero_point"], [t + "_quantized"],
                                      name=t + "_QuantizeLinear"))
        dequantized = t if t in outputs else t + "_dequantized"
        nodes.append(helper.make_node("DequantizeLinear", [t + "_quantized", t + "_scale", t + "_zero_point"],
                                      [dequantized], name=t + "_DequantizeLinear"))
        dq_name[t] = dequantized

    def quantize_weight(node, x_tensor, axis):
        w_name = node.input[1]
        w = inits[w_name].astype(np.float64)
        channels = w.shape[axis]
        reach = np.abs(np.moveaxis(w, axis, 0).reshape(channels, -1)).max(axis=1)
        w_scale = (np.where(reach > 0, reach, 1.0) / 127.0).astype(np.float32)
        shape = [1] * w.ndim
        shape[axis] = -1
        w_q = np.clip(np.round(w / w_scale.reshape(shape)), -127, 127).astype(np.int8)
        new_inits.append(numpy_helper.from_array(w_q, w_name + "_quantized"))
        new_inits.append(numpy_helper.from_array(w_scale, w_name + "_scale"))
        new_inits.append(numpy_helper.from_array(np.zeros(channels, np.int8), w_name + "_zero_point"))
        nodes.append(helper.make_node("DequantizeLinear", [w_name + "_quantized", w_name + "_scale", w_name + "_zero_point"],
                                      [w_name + "_dequantized"], name=w_name + "_DequantizeLinear", axis=axis))
        inputs = [dq_name[x_tensor], w_name + "_dequantized"]
        if len(node.input) > 2 and node.input[2]:
            b_name = node.input[2]
            b_scale = (np.float32(params[x_tensor][0]) * w_scale).astype(np.float32)
            b_q = np.round(inits[b_name].astype(np.float64) / b_scale.astype(np.float64)).astype(np.int32)
            new_inits.append(numpy_helper.from_array(b_q, b_name + "_quantized"))
            new_inits.append(numpy_helper.from_array(b_scale, b_name + "_scale"))
            new_inits.append(numpy_helper.from_array(np.zeros(channels, np.int32), b_name + "_zero_point"))
            nodes.append(helper.make_node("DequantizeLinear", [b_name + "_quantized", b_name + "_scale",
                                                               b_name + "_zero_point"],
                                          [b_name + "_dequantized"], name=b_name + "_DequantizeLinear", axis=0))
            inputs.append(b_name + "_dequantized")
        return inputs

    for t in quantised:  # the model input's pair comes first
        if any(i.name == t for i in graph.input):
            add_qdq(t)
    for node in graph.node:
        node = onnx.NodeProto.FromString(node.SerializeToString())
        if node.op_type == "Conv":
            inputs = quantize_weight(node, node.input[0], 0)
        elif node.op_type == "Gemm":
            inputs = quantize_weight(node, node.input[0], 0 if _attrs(node).get("transB", 0) else 1)
        else:
            inputs = [dq_name.get(i, i) for i in node.input]
        del node.input[:]
        node.input.extend(inputs)
        for k, out in enumerate(node.output):
            if out in outputs and out in params:
                node.output[k] = out + "_float"
        nodes.append(node)
        for out in node.output:
            name = out[:-len("_float")] if out.endswith("_float") else out
            if name in params:
                add_qdq(name)
    used = {i for n in nodes for i in n.input}
    new_graph = helper.make_graph(nodes, graph.name, list(graph.input), list(graph.output),
                                  [i for i in new_inits if i.name in used])
    qdq = helper.make_model(new_graph, opset_imports=[helper.make_opsetid("", 13)], producer_name="ge-qdq-test")
    qdq.ir_version = 8
    onnx.checker.check_model(qdq)
    return qdq


def main():
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    out = sys.argv[1]
    os.makedirs(out, exist_ok=True)
    float_model = export_float_model(os.path.join(out, "qdq_cnn.float.onnx"))
    rng = np.random.RandomState(37)
    calibration = [run_graph(float_model, {"x": rng.randn(*INPUT_SHAPE).astype(np.float32)}) for _ in range(8)]
    qdq = quantize_static_qdq(float_model, calibration)
    ops = [n.op_type for n in qdq.graph.node]
    if ops.count("Conv") != 3 or ops.count("Gemm") != 1:
        sys.exit(f"make_qdq_model.py: the exported graph has ops {sorted(set(ops))}, expected 3 Conv and 1 Gemm")
    x = rng.randn(*INPUT_SHAPE).astype(np.float32)
    expected = run_graph(float_model, {"x": x})["logits"]
    got = run_graph(qdq, {"x": x})["logits"]
    error = float((got - expected).abs().max() / expected.abs().max())
    if error > 0.1:
        sys.exit(f"make_qdq_model.py: the QDQ logits differ from the float ones by {error:.3g} of their range")
    onnx.save(qdq, os.path.join(out, "qdq_cnn.onnx"))
    x.tofile(os.path.join(out, "qdq_cnn.input.bin"))
    rng = np.random.RandomState(37)
    inputs = [rng.randn(*INPUT_SHAPE).astype(np.float32) for _ in range(8)]
    torch_qdq = export_fake_quant_model(os.path.join(out, "qdq_cnn_torch.onnx"), inputs)
    torch_ops = [n.op_type for n in torch_qdq.graph.node]
    if torch_ops.count("QuantizeLinear") < 11 or torch_ops.count("Conv") != 3 or torch_ops.count("Gemm") != 1:
        sys.exit(f"make_qdq_model.py: torch's fake-quantised export has ops {torch_ops}")
    x.tofile(os.path.join(out, "qdq_cnn_torch.input.bin"))
    print(f"wrote {out}/qdq_cnn_torch.onnx ({len(torch_ops)} nodes, {torch_ops.count('QuantizeLinear')} QuantizeLinear)")
    print(f"wrote {out}/qdq_cnn.onnx ({len(qdq.graph.node)} nodes; QDQ logits within {error:.3g} of the float model's)")


if __name__ == "__main__":
    main()
