#!/usr/bin/python3
"""Builds samples/models/small_cnn.onnx with its input and independently computed output.

Run with /usr/bin/python3 (needs onnx and numpy):
    /usr/bin/python3 samples/models/make_small_cnn.py

The expected output is computed here with a plain numpy reference (float64, cast to
float32), not with GE, so that ge-run --expected-dir checks GE against an outside oracle.
"""

import os

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

HERE = os.path.dirname(os.path.abspath(__file__))
MODEL_PATH = os.path.join(HERE, "small_cnn.onnx")
DATA_DIR = os.path.join(HERE, "small_cnn")

BN_EPSILON = 1e-5


# ---- numpy reference ----------------------------------------------------------------

def conv2d(x, w, b, pads, strides, group):
    """NCHW convolution with symmetric pads [top, left, bottom, right] and groups."""
    n, c, h, wd = x.shape
    m, cg, kh, kw = w.shape
    assert c == cg * group and m % group == 0
    xp = np.pad(x, ((0, 0), (0, 0), (pads[0], pads[2]), (pads[1], pads[3])))
    oh = (h + pads[0] + pads[2] - kh) // strides[0] + 1
    ow = (wd + pads[1] + pads[3] - kw) // strides[1] + 1
    y = np.zeros((n, m, oh, ow), dtype=np.float64)
    mg = m // group
    for g in range(group):
        xs = xp[:, g * cg:(g + 1) * cg]
        for oc in range(g * mg, (g + 1) * mg):
            for i in range(oh):
                for j in range(ow):
                    patch = xs[:, :, i * strides[0]:i * strides[0] + kh,
                               j * strides[1]:j * strides[1] + kw]
                    y[:, oc, i, j] = np.sum(patch * w[oc], axis=(1, 2, 3))
            y[:, oc] += b[oc]
    return y


def batch_norm(x, scale, bias, mean, var, eps):
    shape = (1, -1, 1, 1)
    return (x - mean.reshape(shape)) / np.sqrt(var.reshape(shape) + eps) * \
        scale.reshape(shape) + bias.reshape(shape)


def relu(x):
    return np.maximum(x, 0)


def max_pool_2x2(x):
    n, c, h, w = x.shape
    return x.reshape(n, c, h // 2, 2, w // 2, 2).max(axis=(3, 5))


def gemm_trans_b(a, b, c):
    return a @ b.T + c


def softmax(x):
    e = np.exp(x - x.max(axis=-1, keepdims=True))
    return e / e.sum(axis=-1, keepdims=True)


def reference(x, p):
    f64 = {k: v.astype(np.float64) for k, v in p.items()}
    y = conv2d(x.astype(np.float64), f64["conv1_w"], f64["conv1_b"], [1, 1, 1, 1], [1, 1], 1)
    y = batch_norm(y, f64["bn_scale"], f64["bn_bias"], f64["bn_mean"], f64["bn_var"], BN_EPSILON)
    y = max_pool_2x2(relu(y))
    y = conv2d(y, f64["conv2_w"], f64["conv2_b"], [1, 1, 1, 1], [1, 1], 2)
    y = max_pool_2x2(relu(y))
    y = y.reshape(y.shape[0], -1)
    y = gemm_trans_b(y, f64["fc_w"], f64["fc_b"])
    return softmax(y).astype(np.float32)


# ---- model ----------------------------------------------------------------------------

def make_params(rng):
    def uniform(shape, scale):
        return rng.uniform(-scale, scale, size=shape).astype(np.float32)

    return {
        "conv1_w": uniform((8, 3, 3, 3), 0.5),
        "conv1_b": uniform((8,), 0.1),
        "bn_scale": rng.uniform(0.5, 1.5, size=(8,)).astype(np.float32),
        "bn_bias": uniform((8,), 0.2),
        "bn_mean": uniform((8,), 0.2),
        "bn_var": rng.uniform(0.5, 1.5, size=(8,)).astype(np.float32),
        "conv2_w": uniform((16, 4, 3, 3), 0.3),
        "conv2_b": uniform((16,), 0.1),
        "fc_w": uniform((10, 256), 0.2),
        "fc_b": uniform((10,), 0.1),
    }


def make_model(p):
    nodes = [
        helper.make_node("Conv", ["input", "conv1_w", "conv1_b"], ["conv1"], name="conv1",
                         kernel_shape=[3, 3], pads=[1, 1, 1, 1], strides=[1, 1]),
        helper.make_node("BatchNormalization",
                         ["conv1", "bn_scale", "bn_bias", "bn_mean", "bn_var"], ["bn1"],
                         name="bn1", epsilon=BN_EPSILON),
        helper.make_node("Relu", ["bn1"], ["relu1"], name="relu1"),
        helper.make_node("MaxPool", ["relu1"], ["pool1"], name="pool1",
                         kernel_shape=[2, 2], strides=[2, 2]),
        helper.make_node("Conv", ["pool1", "conv2_w", "conv2_b"], ["conv2"], name="conv2",
                         kernel_shape=[3, 3], pads=[1, 1, 1, 1], strides=[1, 1], group=2),
        helper.make_node("Relu", ["conv2"], ["relu2"], name="relu2"),
        helper.make_node("MaxPool", ["relu2"], ["pool2"], name="pool2",
                         kernel_shape=[2, 2], strides=[2, 2]),
        helper.make_node("Flatten", ["pool2"], ["flat"], name="flatten", axis=1),
        helper.make_node("Gemm", ["flat", "fc_w", "fc_b"], ["logits"], name="fc", transB=1),
        helper.make_node("Softmax", ["logits"], ["output"], name="softmax", axis=-1),
    ]
    graph = helper.make_graph(
        nodes, "small_cnn",
        [helper.make_tensor_value_info("input", TensorProto.FLOAT, [1, 3, 16, 16])],
        [helper.make_tensor_value_info("output", TensorProto.FLOAT, [1, 10])],
        initializer=[numpy_helper.from_array(v, name=k) for k, v in p.items()])
    model = helper.make_model(graph, producer_name="ge-samples",
                              opset_imports=[helper.make_opsetid("", 13)])
    model.ir_version = 8
    onnx.checker.check_model(model, full_check=True)
    return model


def main():
    rng = np.random.default_rng(20240601)
    params = make_params(rng)
    x = rng.uniform(-1.0, 1.0, size=(1, 3, 16, 16)).astype(np.float32)
    y = reference(x, params)

    os.makedirs(DATA_DIR, exist_ok=True)
    onnx.save(make_model(params), MODEL_PATH)
    np.save(os.path.join(DATA_DIR, "input_0.npy"), x)
    with open(os.path.join(DATA_DIR, "input_0.pb"), "wb") as f:
        f.write(numpy_helper.from_array(x, name="input").SerializeToString())
    with open(os.path.join(DATA_DIR, "output_0.pb"), "wb") as f:
        f.write(numpy_helper.from_array(y, name="output").SerializeToString())
    print("wrote", MODEL_PATH, "and", DATA_DIR, "; output =", y.ravel())


if __name__ == "__main__":
    main()
