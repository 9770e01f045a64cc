"""Writes MobileNetV2 (batch 1, 3x224x224, 1000 classes, random weights) as ONNX.

usage: /usr/bin/python3 make_mobilenet_v2.py OUT.onnx [--batchnorm]
Without --batchnorm the batch norms are folded into the convolutions (as an exporter in
eval mode writes it); ReLU6 is Clip(0, 6)."""

import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import numpy as np  # noqa: E402
from onnx_builder import ModelBuilder  # noqa: E402


def main():
    out = sys.argv[1]
    b = ModelBuilder(seed=2, batchnorm="--batchnorm" in sys.argv)
    zero = b.constant("zero", np.array(0, dtype=np.float32))
    six = b.constant("six", np.array(6, dtype=np.float32))

    def relu6(x):
        return b.node("Clip", [x, zero, six], "relu6")

    x = "input"
    y = relu6(b.conv(x, 3, 32, 3, stride=2))
    channels = 32
    # (expansion t, output channels c, repeats n, first stride s)
    for t, c, n, s in [(1, 16, 1, 1), (6, 24, 2, 2), (6, 32, 3, 2), (6, 64, 4, 2), (6, 96, 3, 1), (6, 160, 3, 2),
                       (6, 320, 1, 1)]:
        for i in range(n):
            stride = s if i == 0 else 1
            hidden = channels * t
            h = y
            if t != 1:
                h = relu6(b.conv(h, channels, hidden, 1))
            h = relu6(b.conv(h, hidden, hidden, 3, stride=stride, groups=hidden))
            h = b.conv(h, hidden, c, 1)
            if stride == 1 and channels == c:
                h = b.node("Add", [y, h], "add")
            y = h
            channels = c
    y = relu6(b.conv(y, channels, 1280, 1))
    logits = b.classifier(y, 1280)
    b.save(out, "mobilenet_v2", x, logits)


if __name__ == "__main__":
    main()
