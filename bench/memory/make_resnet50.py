"""Writes ResNet-50 v1.5 (batch 1, 3x224x224, 1000 classes, random weights) as ONNX.

usage: /usr/bin/python3 make_resnet50.py OUT.onnx [--batchnorm]
Without --batchnorm the batch norms are folded into the convolutions."""

import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from onnx_builder import ModelBuilder  # noqa: E402


def main():
    out = sys.argv[1]
    b = ModelBuilder(seed=1, batchnorm="--batchnorm" in sys.argv)
    x = "input"
    y = b.node("Relu", [b.conv(x, 3, 64, 7, stride=2)], "relu")
    y = b.node("MaxPool", [y], "maxpool", kernel_shape=[3, 3], strides=[2, 2], pads=[1, 1, 1, 1])
    channels = 64
    for width, blocks, stride in [(64, 3, 1), (128, 4, 2), (256, 6, 2), (512, 3, 2)]:
        for i in range(blocks):
            s = stride if i == 0 else 1
            out_channels = width * 4
            h = b.node("Relu", [b.conv(y, channels, width, 1)], "relu")
            h = b.node("Relu", [b.conv(h, width, width, 3, stride=s)], "relu")
            h = b.conv(h, width, out_channels, 1)
            shortcut = y
            if s != 1 or channels != out_channels:
                shortcut = b.conv(y, channels, out_channels, 1, stride=s)
            y = b.node("Relu", [b.node("Add", [h, shortcut], "add")], "relu")
            channels = out_channels
    logits = b.classifier(y, channels)
    b.save(out, "resnet50", x, logits)


if __name__ == "__main__":
    main()
