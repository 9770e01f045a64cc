#!/usr/bin/python3
"""Generates the models the optimisation-equivalence test runs at -O0 and -O3.

  /usr/bin/python3 make_models.py OUT_DIR

writes (ONNX opset 17, float32, random weights from a fixed seed), each with a random
input NAME.input.bin and the output a float64 numpy evaluation of the model gives for it,
NAME.output.bin (raw little-endian float32):
  resnet_bottleneck.onnx      1x1 -> 3x3 -> 1x1 convolutions with BatchNormalization and
                              Relu, identity shortcut (torchvision style, convs without bias)
  mobilenet_v2_block.onnx     inverted residual: expand 1x1, depthwise 3x3, project 1x1,
                              BatchNormalization, Relu6 as Clip(0, 6), shortcut
  transformer_encoder.onnx    one post-norm encoder layer: multi-head self-attention whose
                              reshapes take their target from Shape arithmetic, a decomposed
                              (max-shifted) softmax, decomposed LayerNormalization and a
                              decomposed erf GELU in the feed-forward block
"""
import math
import os
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

RNG = np.random.RandomState(20240601)


class Builder:
    def __init__(self, name):
        self.name = name
        self.nodes, self.inits, self.count = [], [], 0

    def fresh(self, prefix):
        self.count += 1
        return f"{prefix}_{self.count}"

    def const(self, prefix, array):
        name = self.fresh(prefix)
        self.inits.append(numpy_helper.from_array(np.asarray(array), name))
        return name

    def op(self, op_type, inputs, **attrs):
        out = self.fresh(op_type.lower())
        self.nodes.append(helper.make_node(op_type, inputs, [out], name=out + "_node", **attrs))
        return out

    def model(self, inputs, output, output_shape):
        graph = helper.make_graph(
            self.nodes, self.name,
            [helper.make_tensor_value_info(n, TensorProto.FLOAT, s) for n, s in inputs],
            [helper.make_tensor_value_info(output, TensorProto.FLOAT, output_shape)],
            self.inits)
        model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)],
                                  producer_name="ge-pass-tests")
        model.ir_version = 8
        onnx.checker.check_model(model)
        return model


def weights(*shape):
    fan_in = int(np.prod(shape[1:])) if len(shape) > 1 else shape[0]
    return (RNG.randn(*shape) / np.sqrt(fan_in)).astype(np.float32)


def conv_bn(b, x, c_in, c_out, k, group=1, activation=None):
    w = b.const("w", weights(c_out, c_in // group, k, k))
    y = b.op("Conv", [x, w], kernel_shape=[k, k], pads=[k // 2] * 4, group=group)
    scale = b.const("scale", RNG.uniform(0.5, 1.5, c_out).astype(np.float32))
    bias = b.const("bias", (0.1 * RNG.randn(c_out)).astype(np.float32))
    mean = b.const("mean", (0.1 * RNG.randn(c_out)).astype(np.float32))
    var = b.const("var", RNG.uniform(0.5, 1.5, c_out).astype(np.float32))
    y = b.op("BatchNormalization", [y, scale, bias, mean, var], epsilon=1e-5)
    if activation == "relu":
        y = b.op("Relu", [y])
    elif activation == "relu6":
        y = b.op("Clip", [y, b.const("zero", np.float32(0)), b.const("six", np.float32(6))])
    return y


def resnet_bottleneck():
    b = Builder("resnet_bottleneck")
    c, mid, hw = 32, 8, 8
    y = conv_bn(b, "x", c, mid, 1, activation="relu")
    y = conv_bn(b, y, mid, mid, 3, activation="relu")
    y = conv_bn(b, y, mid, c, 1)
    y = b.op("Relu", [b.op("Add", [y, "x"])])
    return b.model([("x", [1, c, hw, hw])], y, [1, c, hw, hw])


def mobilenet_v2_block():
    b = Builder("mobilenet_v2_block")
    c, expanded, hw = 16, 96, 8
    y = conv_bn(b, "x", c, expanded, 1, activation="relu6")
    y = conv_bn(b, y, expanded, expanded, 3, group=expanded, activation="relu6")
    y = conv_bn(b, y, expanded, c, 1)
    y = b.op("Add", [y, "x"])
    return b.model([("x", [1, c, hw, hw])], y, [1, c, hw, hw])


def linear(b, x, d_in, d_out):
    w = b.const("w", (RNG.randn(d_in, d_out) / np.sqrt(d_in)).astype(np.float32))
    bias = b.const("b", (0.1 * RNG.randn(d_out)).astype(np.float32))
    return b.op("Add", [b.op("MatMul", [x, w]), bias])


def layer_norm(b, x, d):
    mean = b.op("ReduceMean", [x], axes=[-1])
    diff = b.op("Sub", [x, mean])
    var = b.op("ReduceMean", [b.op("Pow", [diff, b.const("two", np.float32(2))])], axes=[-1])
    std = b.op("Sqrt", [b.op("Add", [var, b.const("eps", np.float32(1e-5))])])
    normed = b.op("Div", [diff, std])
    gamma = b.const("gamma", RNG.uniform(0.5, 1.5, d).astype(np.float32))
    beta = b.const("beta", (0.1 * RNG.randn(d)).astype(np.float32))
    return b.op("Add", [b.op("Mul", [normed, gamma]), beta])


def gelu(b, x):
    inner = b.op("Erf", [b.op("Div", [x, b.const("sqrt2", np.float32(np.sqrt(2.0)))])])
    y = b.op("Mul", [x, b.op("Add", [inner, b.const("one", np.float32(1))])])
    return b.op("Mul", [y, b.const("half", np.float32(0.5))])


def transformer_encoder():
    b = Builder("transformer_encoder")
    seq, d, heads, ffn = 8, 32, 4, 64
    dk = d // heads
    # [batch, seq] from Shape(x), then [batch, seq, heads, dk]: folds to a constant.
    batch_seq = b.op("Shape", ["x"], start=0, end=2)
    split_shape = b.op("Concat", [batch_seq, b.const("heads_dk", np.array([heads, dk], np.int64))], axis=0)
    merge_shape = b.op("Concat", [batch_seq, b.const("model_dim", np.array([d], np.int64))], axis=0)

    def heads_of(t, perm):
        return b.op("Transpose", [b.op("Reshape", [t, split_shape])], perm=perm)

    q = heads_of(linear(b, "x", d, d), [0, 2, 1, 3])  # [1, h, s, dk]
    k = heads_of(linear(b, "x", d, d), [0, 2, 3, 1])  # [1, h, dk, s]
    v = heads_of(linear(b, "x", d, d), [0, 2, 1, 3])
    scores = b.op("Div", [b.op("MatMul", [q, k]), b.const("scale", np.float32(np.sqrt(dk)))])
    shifted = b.op("Sub", [scores, b.op("ReduceMax", [scores], axes=[-1])])
    e = b.op("Exp", [shifted])
    attention = b.op("Div", [e, b.op("ReduceSum", [e, b.const("last", np.array([-1], np.int64))])])
    context = b.op("Transpose", [b.op("MatMul", [attention, v])], perm=[0, 2, 1, 3])
    context = b.op("Reshape", [context, merge_shape])
    y = layer_norm(b, b.op("Add", [linear(b, context, d, d), "x"]), d)
    hidden = gelu(b, linear(b, y, d, ffn))
    out = layer_norm(b, b.op("Add", [linear(b, hidden, ffn, d), y]), d)
    # The output has named dims, left to inference: unoptimised, the reshapes make it dynamic,
    # and a declared static shape would mark the last node static while its inputs are
    # not (the executor then prepares it statically and fails).
    return b.model([("x", [1, seq, d])], out, ["batch", "seq", "model"])


def rmsnorm_swish():
    """RMSNorm and Swish spelled out in primitives, as no pattern fusion knows them: the
    autofusion pass (-O3) makes one ge_autofuse.Fused node of all nine ops."""
    b = Builder("rmsnorm_swish")
    x = "x"
    ms = b.op("ReduceMean", [b.op("Mul", [x, x])], axes=[-1], keepdims=1)
    y = b.op("Div", [x, b.op("Sqrt", [b.op("Add", [ms, b.const("eps", np.array(1e-6, np.float32))])])])
    y = b.op("Mul", [y, b.const("gamma", RNG.uniform(0.5, 1.5, 64).astype(np.float32))])
    y = b.op("Mul", [y, b.op("Sigmoid", [y])])
    y = b.op("Tanh", [b.op("Add", [y, b.const("shift", RNG.uniform(-0.5, 0.5, 64).astype(np.float32))])])
    return b.model([("x", [16, 64])], y, [16, 64])


def conv2d(x, w, pads, group):
    n, c, h, wd = x.shape
    m, cg, kh, kw = w.shape
    x = np.pad(x, ((0, 0), (0, 0), (pads[0], pads[2]), (pads[1], pads[3])))
    oh, ow = x.shape[2] - kh + 1, x.shape[3] - kw + 1
    out = np.zeros((n, m, oh, ow))
    per_group = m // group
    for g in range(group):
        xs = x[:, g * cg:(g + 1) * cg]
        for i in range(kh):
            for j in range(kw):
                patch = xs[:, :, i:i + oh, j:j + ow]  # n, cg, oh, ow
                out[:, g * per_group:(g + 1) * per_group] += np.einsum(
                    "ncij,mc->nmij", patch, w[g * per_group:(g + 1) * per_group, :, i, j])
    return out


def evaluate(model, feeds):
    """A float64 numpy evaluation of the ops these models use: the test's oracle."""
    values = {t.name: numpy_helper.to_array(t).astype(np.float64) if t.data_type == TensorProto.FLOAT
              else numpy_helper.to_array(t) for t in model.graph.initializer}
    values.update(feeds)
    for node in model.graph.node:
        a = {attr.name: helper.get_attribute_value(attr) for attr in node.attribute}
        x = [values[i] for i in node.input]
        op = node.op_type
        if op == "Conv":
            y = conv2d(x[0], x[1], a.get("pads", [0] * 4), a.get("group", 1))
        elif op == "BatchNormalization":
            shape = (1, -1, 1, 1)
            y = (x[0] - x[3].reshape(shape)) / np.sqrt(x[4].reshape(shape) + a["epsilon"]) * x[1].reshape(shape) \
                + x[2].reshape(shape)
        elif op == "Relu":
            y = np.maximum(x[0], 0)
        elif op == "Clip":
            y = np.clip(x[0], x[1], x[2])
        elif op in ("Add", "Sub", "Mul", "Div", "Pow"):
            y = {"Add": np.add, "Sub": np.subtract, "Mul": np.multiply, "Div": np.divide, "Pow": np.power}[op](x[0], x[1])
        elif op == "MatMul":
            y = np.matmul(x[0], x[1])
        elif op == "Shape":
            y = np.array(x[0].shape[a.get("start", 0):a.get("end", x[0].ndim)], np.int64)
        elif op == "Concat":
            y = np.concatenate(x, axis=a["axis"])
        elif op == "Reshape":
            y = x[0].reshape(x[1])
        elif op == "Transpose":
            y = np.transpose(x[0], a["perm"])
        elif op in ("ReduceMax", "ReduceMean"):
            y = (np.max if op == "ReduceMax" else np.mean)(x[0], axis=tuple(a["axes"]), keepdims=True)
        elif op == "ReduceSum":
            y = np.sum(x[0], axis=tuple(x[1]), keepdims=True)
        elif op in ("Exp", "Sqrt", "Tanh"):
            y = {"Exp": np.exp, "Sqrt": np.sqrt, "Tanh": np.tanh}[op](x[0])
        elif op == "Sigmoid":
            y = 1.0 / (1.0 + np.exp(-x[0]))
        elif op == "Erf":
            y = np.vectorize(math.erf)(x[0])
        else:
            raise NotImplementedError(op)
        values[node.output[0]] = y
    return values[model.graph.output[0].name]


def main():
    if len(sys.argv) != 2:
        sys.exit("usage: make_models.py OUT_DIR")
    out_dir = sys.argv[1]
    os.makedirs(out_dir, exist_ok=True)
    for name, make in [("resnet_bottleneck", resnet_bottleneck), ("mobilenet_v2_block", mobilenet_v2_block),
                       ("transformer_encoder", transformer_encoder), ("rmsnorm_swish", rmsnorm_swish)]:
        model = make()
        onnx.save(model, os.path.join(out_dir, name + ".onnx"))
        dims = [d.dim_value for d in model.graph.input[0].type.tensor_type.shape.dim]
        x = RNG.uniform(-1, 1, dims).astype(np.float32)
        y = evaluate(model, {model.graph.input[0].name: x.astype(np.float64)}).astype(np.float32)
        x.astype("<f4").tofile(os.path.join(out_dir, name + ".input.bin"))
        y.astype("<f4").tofile(os.path.join(out_dir, name + ".output.bin"))


if __name__ == "__main__":
    main()
