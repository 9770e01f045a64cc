#!/usr/bin/python3
"""Builds log_softmax_head.onnx, the model the fusion_pass sample rewrites, with its input
and independently computed outputs.

Run with /usr/bin/python3 (needs onnx and numpy):
    /usr/bin/python3 samples/fusion_pass/make_model.py

A classifier head, Gemm(16 -> 10), whose log-probabilities are written in the two ways
exporters spell log(softmax(x)):
- log_probs:            Log(Softmax(logits, axis=-1))
- log_probs_decomposed: Log(Exp(logits - ReduceMax) / ReduceSum(Exp(logits - ReduceMax)))
The expected outputs come from a plain numpy reference (float64, cast to float32), not
from GE, so that ge-run --expected-dir checks GE against an outside oracle.
"""

import os

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

HERE = os.path.dirname(os.path.abspath(__file__))
MODEL_PATH = os.path.join(HERE, "log_softmax_head.onnx")
DATA_DIR = os.path.join(HERE, "log_softmax_head")
BATCH, FEATURES, CLASSES = 4, 16, 10


def reference(x, w, b):
    logits = x.astype(np.float64) @ w.astype(np.float64) + b.astype(np.float64)
    shifted = logits - logits.max(axis=-1, keepdims=True)
    log_probs = shifted - np.log(np.exp(shifted).sum(axis=-1, keepdims=True))
    return log_probs.astype(np.float32)


def make_model(w, b):
    nodes = [
        helper.make_node("Gemm", ["input", "fc_w", "fc_b"], ["logits"], name="fc"),
        # torch.log(torch.softmax(logits, -1)) as exported.
        helper.make_node("Softmax", ["logits"], ["probs"], name="softmax", axis=-1),
        helper.make_node("Log", ["probs"], ["log_probs"], name="log"),
        # The same, with the softmax written out (fused into a Softmax by GE's fuse_softmax).
        helper.make_node("ReduceMax", ["logits"], ["max"], name="max", axes=[-1], keepdims=1),
        helper.make_node("Sub", ["logits", "max"], ["shifted"], name="shift"),
        helper.make_node("Exp", ["shifted"], ["exp"], name="exp"),
        helper.make_node("ReduceSum", ["exp", "axes"], ["sum"], name="sum", keepdims=1),
        helper.make_node("Div", ["exp", "sum"], ["probs2"], name="div"),
        helper.make_node("Log", ["probs2"], ["log_probs_decomposed"], name="log2"),
    ]
    initializers = [numpy_helper.from_array(w, name="fc_w"), numpy_helper.from_array(b, name="fc_b"),
                    numpy_helper.from_array(np.array([-1], dtype=np.int64), name="axes")]
    graph = helper.make_graph(
        nodes, "log_softmax_head",
        [helper.make_tensor_value_info("input", TensorProto.FLOAT, [BATCH, FEATURES])],
        [helper.make_tensor_value_info(name, TensorProto.FLOAT, [BATCH, CLASSES])
         for name in ("log_probs", "log_probs_decomposed")],
        initializer=initializers)
    model = helper.make_model(graph, producer_name="ge-samples", opset_imports=[helper.make_opsetid("", 13)])
    model.ir_version = 8
    onnx.checker.check_model(model, full_check=True)
    return model


def write_tensor(path, array, name):
    with open(path, "wb") as f:
        f.write(numpy_helper.from_array(array, name=name).SerializeToString())


def main():
    rng = np.random.default_rng(20240716)
    w = rng.uniform(-1.0, 1.0, size=(FEATURES, CLASSES)).astype(np.float32)
    b = rng.uniform(-0.5, 0.5, size=(CLASSES,)).astype(np.float32)
    x = rng.uniform(-3.0, 3.0, size=(BATCH, FEATURES)).astype(np.float32)
    # A confident row: some logits lie more than 104 below the largest, where a float32
    # Softmax underflows to 0 and Log(0) = -inf. LogSoftmax stays finite there.
    x[0] *= 12.0
    y = reference(x, w, b)
    assert np.isfinite(y).all() and y.min() < -110.0, y.min()

    os.makedirs(DATA_DIR, exist_ok=True)
    onnx.save(make_model(w, b), MODEL_PATH)
    write_tensor(os.path.join(DATA_DIR, "input_0.pb"), x, "input")
    write_tensor(os.path.join(DATA_DIR, "output_0.pb"), y, "log_probs")
    write_tensor(os.path.join(DATA_DIR, "output_1.pb"), y, "log_probs_decomposed")
    print("wrote", MODEL_PATH, "and", DATA_DIR, "; log-probabilities in", y.min(), y.max())


if __name__ == "__main__":
    main()
