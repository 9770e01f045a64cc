"""Shared helpers for the GE-vs-ORT comparison models (bench only).

Reuses bench/memory/onnx_builder.py (imported by path, unchanged) and adds what the
transformer, matmul and detector generators need: fan-in scaled weights, typed constants
and a save() with arbitrary input and output shapes. Run with /usr/bin/python3
(Debian's python3-onnx and numpy)."""

import os
import sys

import numpy as np

_HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(_HERE, "..", "memory"))
from onnx_builder import ModelBuilder  # noqa: E402

import onnx  # noqa: E402
from onnx import TensorProto, helper  # noqa: E402


class Builder(ModelBuilder):
    """ModelBuilder with no batch norms (an exporter in eval mode folds them) and helpers."""

    def __init__(self, seed):
        super().__init__(seed=seed, batchnorm=False)

    def scaled(self, prefix, shape, fan_in, gain=1.0):
        """Gaussian weight with std gain/sqrt(fan_in): keeps activations at a steady scale."""
        return self.weight(prefix, shape, scale=gain / np.sqrt(fan_in))

    def f32(self, prefix, value):
        return self.constant(prefix, np.asarray(value, dtype=np.float32))

    def i64(self, prefix, value):
        return self.constant(prefix, np.asarray(value, dtype=np.int64))

    def op(self, op, inputs, **attrs):
        return self.node(op, inputs, op.lower(), **attrs)

    def num_nodes(self, op):
        return sum(1 for n in self.nodes if n.op_type == op)

    def save_model(self, path, graph_name, inputs, outputs, opset=13):
        """inputs/outputs: lists of (name, shape); every tensor is float32."""
        graph = helper.make_graph(
            self.nodes, graph_name,
            [helper.make_tensor_value_info(n, TensorProto.FLOAT, s) for n, s in inputs],
            [helper.make_tensor_value_info(n, TensorProto.FLOAT, s) for n, s in outputs],
            self.initializers)
        model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)], producer_name="ge-bench")
        model.ir_version = 8
        onnx.checker.check_model(model)
        onnx.save(model, path)
