"""Writes an OCR-style text detector as ONNX (opset 13), shaped like PP-OCR's DB detector
(MobileNetV3-style backbone, DBFPN neck, DB head) and spelled the way the PyTorch exporter
writes it:
- backbone: inverted residual blocks (1x1 expand, depthwise kxk, optional squeeze-excite,
  1x1 project; residual Add where the shape allows), activations ReLU or HardSwish spelled
  out as x * Clip(x + 3, 0, 6) / 6 (Clip with min/max inputs); squeeze-excite is
  GlobalAveragePool, 1x1 Conv, Relu, 1x1 Conv, HardSigmoid, Mul;
- neck: 1x1 Convs to 96 channels at strides 4/8/16/32, top-down Resize (nearest, 2x,
  'scales' input) + Add, 3x3 Convs to 24 channels, Resize up to stride 4 and Concat;
- head: 3x3 Conv + Relu, ConvTranspose 2x + Relu, ConvTranspose 2x + Sigmoid.
Batch norms are folded into the convolutions (eval-mode export).

Random weights (seed 5), scaled the way a folded batch norm would: the graph is evaluated
in numpy while it is built, on a seeded random 3x320x320 image, and each convolution's
weights are scaled so that its output has unit standard deviation (2 for the logits), so
activations stay in a sane range at any depth and the probability map is not all 0 or 1.

input [1,3,640,640] -> probability map [1,1,640,640]; 60 Conv + 2 ConvTranspose,
0.97 M parameters, 4.5 GFLOP per run.
usage: /usr/bin/python3 make_detector.py OUT.onnx [--size 640]"""

import argparse
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import numpy as np  # noqa: E402
from numpy.lib.stride_tricks import sliding_window_view  # noqa: E402
from compare_builder import Builder  # noqa: E402

# Inverted residual blocks: kernel, expanded channels, output channels, squeeze-excite,
# activation, stride. FEATURE_BLOCKS feed the neck (strides 4, 8, 16, 32).
BLOCKS = [
    (3, 16, 16, False, "relu", 1),
    (3, 64, 24, False, "relu", 2),
    (3, 72, 24, False, "relu", 1),    # -> C2, stride 4
    (5, 72, 32, True, "relu", 2),
    (5, 96, 32, True, "relu", 1),
    (5, 96, 32, True, "relu", 1),     # -> C3, stride 8
    (3, 192, 48, False, "hswish", 2),
    (3, 240, 64, False, "hswish", 1),
    (3, 336, 64, True, "hswish", 1),  # -> C4, stride 16
    (5, 336, 96, True, "hswish", 2),
    (5, 480, 96, True, "hswish", 1),
    (5, 480, 96, True, "hswish", 1),  # + 1x1 Conv to 480 -> C5, stride 32
]
FEATURE_BLOCKS = (2, 5, 8, 11)
FPN_CHANNELS = 96
CALIBRATION_SIZE = 320


def make_divisible(v, divisor=8):
    new_v = max(divisor, int(v + divisor / 2) // divisor * divisor)
    return new_v + divisor if new_v < 0.9 * v else new_v


class Detector:
    """Emits ONNX nodes and evaluates them in numpy (batch 1, CHW) at the same time.
    A tensor is a (name, value) pair."""

    def __init__(self, b):
        self.b = b
        self.zero, self.three, self.six = b.f32("zero", 0.0), b.f32("three", 3.0), b.f32("six", 6.0)

    def conv(self, t, cin, cout, k, stride=1, groups=1, target_std=1.0):
        x = t[1]
        w = self.b.rng.standard_normal((cout, cin // groups, k, k))
        p = k // 2
        win = sliding_window_view(np.pad(x, ((0, 0), (p, p), (p, p))), (k, k), axis=(1, 2))[:, ::stride, ::stride]
        if groups == 1:
            y = np.einsum("chwij,ocij->ohw", win, w, optimize=True)
        else:  # depthwise
            y = np.einsum("chwij,cij->chw", win, w[:, 0], optimize=True)
        scale = target_std / max(float(y.std()), 1e-6)  # what a folded batch norm does
        w, y = w * scale, y * scale
        bias = (0.02 * self.b.rng.standard_normal(cout)).astype(np.float32)
        y = (y + bias[:, None, None]).astype(np.float32)
        name = self.b.node("Conv", [t[0], self.b.constant("w", w.astype(np.float32)), self.b.constant("b", bias)],
                           "conv", kernel_shape=[k, k], strides=[stride, stride], pads=[p] * 4, group=groups)
        return name, y

    def deconv2x(self, t, cin, cout, target_std=1.0):
        x = t[1]
        w = self.b.rng.standard_normal((cin, cout, 2, 2))
        y = np.einsum("chw,coij->ohiwj", x, w).reshape(cout, 2 * x.shape[1], 2 * x.shape[2])
        scale = target_std / max(float(y.std()), 1e-6)
        w, y = w * scale, y * scale
        bias = (0.02 * self.b.rng.standard_normal(cout)).astype(np.float32)
        y = (y + bias[:, None, None]).astype(np.float32)
        name = self.b.node("ConvTranspose", [t[0], self.b.constant("w", w.astype(np.float32)),
                                             self.b.constant("b", bias)], "deconv", kernel_shape=[2, 2], strides=[2, 2])
        return name, y

    def add(self, a, c):
        return self.b.op("Add", [a[0], c[0]]), a[1] + c[1]

    def relu(self, t):
        return self.b.op("Relu", [t[0]]), np.maximum(t[1], 0)

    def hswish(self, t):
        clipped = self.b.op("Clip", [self.b.op("Add", [t[0], self.three]), self.zero, self.six])
        name = self.b.op("Div", [self.b.op("Mul", [t[0], clipped]), self.six])
        return name, t[1] * np.clip(t[1] + 3, 0, 6) / 6

    def act(self, t, kind):
        return self.relu(t) if kind == "relu" else self.hswish(t)

    def squeeze_excite(self, t, c):
        mid = make_divisible(c // 4)
        pooled = (self.b.op("GlobalAveragePool", [t[0]]), t[1].mean(axis=(1, 2), keepdims=True))
        s = self.relu(self.conv(pooled, c, mid, 1))
        s = self.conv(s, mid, c, 1)
        gate = self.b.op("HardSigmoid", [s[0]], alpha=1.0 / 6, beta=0.5), np.clip(s[1] / 6 + 0.5, 0, 1)
        return self.b.op("Mul", [t[0], gate[0]]), t[1] * gate[1]

    def upsample(self, t, factor):
        scales = self.b.f32("scales", [1.0, 1.0, float(factor), float(factor)])
        name = self.b.node("Resize", [t[0], "", scales], "resize", mode="nearest",
                           coordinate_transformation_mode="asymmetric", nearest_mode="floor")
        return name, t[1].repeat(factor, axis=1).repeat(factor, axis=2)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("out")
    ap.add_argument("--size", type=int, default=640)
    args = ap.parse_args()
    b = Builder(seed=5)
    d = Detector(b)
    image = np.random.default_rng(6).uniform(-1, 1, (3, CALIBRATION_SIZE, CALIBRATION_SIZE)).astype(np.float32)

    y = d.hswish(d.conv(("input", image), 3, 16, 3, stride=2))
    cin, features = 16, []
    for i, (k, exp, cout, se, kind, stride) in enumerate(BLOCKS):
        h = y
        if exp != cin:
            h = d.act(d.conv(h, cin, exp, 1), kind)
        h = d.act(d.conv(h, exp, exp, k, stride=stride, groups=exp), kind)
        if se:
            h = d.squeeze_excite(h, exp)
        h = d.conv(h, exp, cout, 1)
        if stride == 1 and cin == cout:
            h = d.add(y, h)
        y, cin = h, cout
        if i in FEATURE_BLOCKS:
            features.append((y, cin))
    features[-1] = (d.hswish(d.conv(y, cin, 480, 1)), 480)

    # DBFPN neck.
    inner = [d.conv(f, c, FPN_CHANNELS, 1) for f, c in features]            # strides 4, 8, 16, 32
    for i in range(len(inner) - 2, -1, -1):
        inner[i] = d.add(inner[i], d.upsample(inner[i + 1], 2))
    outs = [d.conv(t, FPN_CHANNELS, FPN_CHANNELS // 4, 3) for t in inner]
    outs = [outs[0]] + [d.upsample(t, 2 ** i) for i, t in enumerate(outs[1:], start=1)]
    outs.reverse()                                                          # p5, p4, p3, p2
    fuse = b.op("Concat", [t[0] for t in outs], axis=1), np.concatenate([t[1] for t in outs])

    # DB head: probability map at the input resolution.
    c = FPN_CHANNELS // 4
    h = d.relu(d.conv(fuse, FPN_CHANNELS, c, 3))
    h = d.relu(d.deconv2x(h, c, c))
    logits = d.deconv2x(h, c, 1, target_std=2.0)
    b.op("Sigmoid", [logits[0]])
    b.nodes[-1].output[0] = "output"

    s = args.size
    b.save_model(args.out, "text_detector", [("input", [1, 3, s, s])], [("output", [1, 1, s, s])])
    params = sum(int(np.prod(t.dims)) for t in b.initializers)
    print(f"{args.out}: {b.num_nodes('Conv')} Conv, {b.num_nodes('ConvTranspose')} ConvTranspose, "
          f"{len(b.nodes)} nodes, {params} parameters")


if __name__ == "__main__":
    main()
