"""Models for the autofusion benchmark (bench only; Debian's python3-onnx and numpy).

    python3 make_autofusion_models.py OUT_DIR

chain20.onnx  a 20-op elementwise chain over x[1024, 4096] (4M floats): scale-and-shift,
              a decomposed Swish and Mish-like tail, clamps; one input, one output.
rmsnorm.onnx  RMSNorm spelled out over x[1024, 4096] (Mul, ReduceMean, Add, Sqrt, Div,
              Mul) followed by a decomposed GELU, as exporters write them.
mlp_ln.onnx   a transformer MLP block over x[128, 768]: MatMul 768x3072 + bias, decomposed
              GELU (Div, Erf, Add, Mul, Mul), MatMul 3072x768 + bias, residual, then a
              LayerNorm spelled out in primitives (ReduceMean, Sub, Pow, ReduceMean, Add,
              Sqrt, Div, Mul, Add).
attention.onnx  attention's tail over scores x[8, 12, 256, 256]: scale (Mul), a causal bool
              mask through Where(mask, x, -inf), Softmax over the last axis.
chain20_f16.onnx  chain20 in float16: input, constants, every op and the output float16.
seg_softmax.onnx  a segmentation head's tail over logits x[4, 21, 128, 128]: scale and bias
              per class [21, 1, 1], Softmax over the classes (axis 1).
chan_norm.onnx  a LayerNorm over the channels of x[8, 64, 64, 64] (axis 1 of NCHW) spelled
              out (ReduceMean, Sub, Pow, ReduceMean, Add, Sqrt, Div), scale and shift
              per channel [64, 1, 1].
"""

import os
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

rng = np.random.default_rng(7)


class Graph:
    def __init__(self, dtype=np.float32):
        self.nodes, self.inits, self.count, self.dtype = [], [], 0, dtype

    def const(self, value, dtype=None):
        dtype = dtype or self.dtype
        name = f"c{len(self.inits)}"
        self.inits.append(numpy_helper.from_array(np.asarray(value, dtype=dtype), name))
        return name

    def op(self, op, *inputs, **attrs):
        self.count += 1
        out = f"t{self.count}"
        self.nodes.append(helper.make_node(op, list(inputs), [out], name=f"{op.lower()}_{self.count}", **attrs))
        return out

    def save(self, path, x_shape, y, y_shape):
        elem = TensorProto.FLOAT16 if self.dtype == np.float16 else TensorProto.FLOAT
        graph = helper.make_graph(self.nodes, "g", [helper.make_tensor_value_info("x", elem, x_shape)],
                                  [helper.make_tensor_value_info(y, elem, y_shape)], self.inits)
        model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
        model.ir_version = 8
        onnx.checker.check_model(model)
        onnx.save(model, path)


def gelu(g, x):
    return g.op("Mul", g.op("Mul", x, g.const(0.5)), g.op("Add", g.op("Erf", g.op("Div", x, g.const(1.4142135))),
                                                       g.const(1.0)))


def chain20(path, dtype=np.float32):
    g = Graph(dtype)
    x = "x"
    t = g.op("Mul", x, g.const(rng.standard_normal(4096) * 0.5))      # 1 scale
    t = g.op("Add", t, g.const(rng.standard_normal(4096) * 0.1))      # 2 shift
    s = g.op("Sigmoid", t)                                            # 3
    t = g.op("Mul", t, s)                                             # 4 swish
    t = g.op("Sub", t, g.const(0.25))                                 # 5
    a = g.op("Abs", t)                                                # 6
    t = g.op("Add", g.op("Mul", a, g.const(0.5)), t)                  # 7, 8
    e = g.op("Exp", g.op("Neg", a))                                   # 9, 10
    t = g.op("Mul", t, g.op("Add", e, g.const(1.0)))                  # 11, 12
    t = g.op("Tanh", t)                                               # 13
    t = g.op("Max", t, g.const(-0.9))                                 # 14
    t = g.op("Min", t, g.const(0.9))                                  # 15
    t = g.op("Div", t, g.const(rng.uniform(0.5, 2.0, 4096)))          # 16
    t = g.op("Relu", g.op("Add", t, x))                               # 17, 18
    t = g.op("Sqrt", g.op("Add", t, g.const(1e-3)))                   # 19, 20
    g.save(path, [1024, 4096], t, [1024, 4096])


def rmsnorm(path):
    g = Graph()
    x = "x"
    ms = g.op("ReduceMean", g.op("Mul", x, x), axes=[-1], keepdims=1)
    t = g.op("Div", x, g.op("Sqrt", g.op("Add", ms, g.const(1e-6))))
    t = g.op("Mul", t, g.const(rng.uniform(0.5, 1.5, 4096)))
    t = gelu(g, t)
    g.save(path, [1024, 4096], t, [1024, 4096])


def mlp_ln(path):
    g = Graph()
    x = "x"
    h = g.op("Add", g.op("MatMul", x, g.const(rng.standard_normal((768, 3072)) / np.sqrt(768))),
             g.const(rng.standard_normal(3072) * 0.1))
    h = gelu(g, h)
    h = g.op("Add", g.op("MatMul", h, g.const(rng.standard_normal((3072, 768)) / np.sqrt(3072))),
             g.const(rng.standard_normal(768) * 0.1))
    r = g.op("Add", h, x)
    mean = g.op("ReduceMean", r, axes=[-1], keepdims=1)
    d = g.op("Sub", r, mean)
    var = g.op("ReduceMean", g.op("Pow", d, g.const(2.0)), axes=[-1], keepdims=1)
    y = g.op("Div", d, g.op("Sqrt", g.op("Add", var, g.const(1e-5))))
    y = g.op("Add", g.op("Mul", y, g.const(rng.uniform(0.5, 1.5, 768))), g.const(rng.standard_normal(768) * 0.1))
    g.save(path, [128, 768], y, [128, 768])


def chain20_f16(path):
    chain20(path, np.float16)


def seg_softmax(path):
    g = Graph()
    shape = [4, 21, 128, 128]
    t = g.op("Mul", "x", g.const(rng.uniform(0.5, 1.5, (21, 1, 1))))
    t = g.op("Add", t, g.const(rng.standard_normal((21, 1, 1)) * 0.1))
    g.save(path, shape, g.op("Softmax", t, axis=1), shape)


def chan_norm(path):
    g = Graph()
    shape = [8, 64, 64, 64]
    mean = g.op("ReduceMean", "x", axes=[1], keepdims=1)
    d = g.op("Sub", "x", mean)
    var = g.op("ReduceMean", g.op("Pow", d, g.const(2.0)), axes=[1], keepdims=1)
    y = g.op("Div", d, g.op("Sqrt", g.op("Add", var, g.const(1e-5))))
    y = g.op("Add", g.op("Mul", y, g.const(rng.uniform(0.5, 1.5, (64, 1, 1)))),
             g.const(rng.standard_normal((64, 1, 1)) * 0.1))
    g.save(path, shape, y, shape)


def attention(path):
    g = Graph()
    shape = [8, 12, 256, 256]
    scaled = g.op("Mul", "x", g.const(0.125))
    causal = np.tril(np.ones((256, 256), dtype=bool))[None, None]
    masked = g.op("Where", g.const(causal, dtype=bool), scaled, g.const(-np.inf))
    g.save(path, shape, g.op("Softmax", masked, axis=-1), shape)


if __name__ == "__main__":
    out = sys.argv[1] if len(sys.argv) > 1 else "."
    os.makedirs(out, exist_ok=True)
    for name, make in [("chain20", chain20), ("rmsnorm", rmsnorm), ("mlp_ln", mlp_ln), ("attention", attention),
                       ("chain20_f16", chain20_f16), ("seg_softmax", seg_softmax), ("chan_norm", chan_norm)]:
        make(os.path.join(out, name + ".onnx"))
        print(os.path.join(out, name + ".onnx"))
