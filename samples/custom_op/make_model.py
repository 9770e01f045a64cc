#!/usr/bin/python3
"""Builds swish_mlp.onnx, a model using the custom op ge_sample.Swish, with its input and
its expected output computed by numpy (not by GE). Deterministic.

    /usr/bin/python3 samples/custom_op/make_model.py
"""

import os

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

HERE = os.path.dirname(os.path.abspath(__file__))
BETA = 1.5

rng = np.random.default_rng(7)
w = rng.standard_normal((16, 8)).astype(np.float32)
b = rng.standard_normal(8).astype(np.float32)
x = rng.standard_normal((2, 16)).astype(np.float32)

nodes = [
    helper.make_node("MatMul", ["x", "w"], ["h"], name="matmul"),
    helper.make_node("Swish", ["h"], ["s"], name="swish", domain="ge_sample", beta=BETA),
    helper.make_node("Add", ["s", "b"], ["y"], name="bias"),
]
graph = helper.make_graph(
    nodes, "swish_mlp",
    [helper.make_tensor_value_info("x", TensorProto.FLOAT, [2, 16])],
    [helper.make_tensor_value_info("y", TensorProto.FLOAT, [2, 8])],
    initializer=[numpy_helper.from_array(w, "w"), numpy_helper.from_array(b, "b")])
model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13), helper.make_opsetid("ge_sample", 1)],
                          producer_name="ge samples/custom_op")
onnx.save(model, os.path.join(HERE, "swish_mlp.onnx"))

h = x.astype(np.float64) @ w.astype(np.float64)
y = (h / (1.0 + np.exp(-BETA * h)) + b).astype(np.float32)
data = os.path.join(HERE, "swish_mlp")
os.makedirs(data, exist_ok=True)
for name, array in (("input_0.pb", x), ("output_0.pb", y)):
    tensor = numpy_helper.from_array(array, "x" if name.startswith("input") else "y")
    with open(os.path.join(data, name), "wb") as f:
        f.write(tensor.SerializeToString())
