"""A few helpers to write CNN models with onnx.helper and random weights (bench only).

Run with /usr/bin/python3 (Debian's python3-onnx and numpy)."""

import numpy as np
from onnx import TensorProto, helper, numpy_helper


class ModelBuilder:
    def __init__(self, seed, batchnorm):
        self.rng = np.random.default_rng(seed)
        self.batchnorm = batchnorm
        self.nodes = []
        self.initializers = []
        self.count = 0

    def name(self, prefix):
        self.count += 1
        return f"{prefix}_{self.count}"

    def weight(self, prefix, shape, scale=0.05):
        name = self.name(prefix)
        data = (self.rng.standard_normal(shape) * scale).astype(np.float32)
        self.initializers.append(numpy_helper.from_array(data, name))
        return name

    def constant(self, prefix, array):
        name = self.name(prefix)
        self.initializers.append(numpy_helper.from_array(array, name))
        return name

    def node(self, op, inputs, prefix, **attrs):
        out = self.name(prefix)
        self.nodes.append(helper.make_node(op, inputs, [out], name=out, **attrs))
        return out

    def conv(self, x, cin, cout, kernel, stride=1, groups=1):
        w = self.weight("w", (cout, cin // groups, kernel, kernel))
        inputs = [x, w]
        if not self.batchnorm:
            inputs.append(self.weight("b", (cout,)))  # batch norm folded into the bias
        pad = kernel // 2
        y = self.node("Conv", inputs, "conv", kernel_shape=[kernel, kernel], strides=[stride, stride],
                      pads=[pad, pad, pad, pad], group=groups)
        if self.batchnorm:
            scale = self.constant("scale", (1 + 0.1 * self.rng.standard_normal(cout)).astype(np.float32))
            bias = self.weight("bias", (cout,))
            mean = self.weight("mean", (cout,))
            var = self.constant("var", (1 + 0.1 * np.abs(self.rng.standard_normal(cout))).astype(np.float32))
            y = self.node("BatchNormalization", [y, scale, bias, mean, var], "bn", epsilon=1e-5)
        return y

    def classifier(self, x, channels, classes=1000):
        pooled = self.node("GlobalAveragePool", [x], "pool")
        flat = self.node("Flatten", [pooled], "flatten", axis=1)
        w = self.weight("fc_w", (classes, channels))
        b = self.weight("fc_b", (classes,))
        return self.node("Gemm", [flat, w, b], "fc", transB=1)

    def save(self, path, graph_name, x, y, classes=1000):
        graph = helper.make_graph(
            self.nodes, graph_name,
            [helper.make_tensor_value_info(x, TensorProto.FLOAT, [1, 3, 224, 224])],
            [helper.make_tensor_value_info(y, TensorProto.FLOAT, [1, classes])],
            self.initializers)
        model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)], producer_name="ge-bench")
        model.ir_version = 8
        import onnx
        onnx.save(model, path)
