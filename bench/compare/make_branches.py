"""Writes four independent MatMul branches as ONNX (opset 13): a graph with parallelism
between operators. Each branch is MatMul 1024x1024 + Add bias + Relu + MatMul 1024x1024;
the four branch outputs are summed with Adds.

input [1,256,1024] -> output [1,256,1024]; random weights (seed 4), 8.4 M parameters,
4.3 GFLOP per run.
usage: /usr/bin/python3 make_branches.py OUT.onnx [--branches 4] [--tokens 256] [--width 1024]"""

import argparse
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from compare_builder import Builder  # noqa: E402


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("out")
    ap.add_argument("--branches", type=int, default=4)
    ap.add_argument("--tokens", type=int, default=256)
    ap.add_argument("--width", type=int, default=1024)
    args = ap.parse_args()
    n, w = args.tokens, args.width
    b = Builder(seed=4)
    x = "input"
    total = None
    for _ in range(args.branches):
        h = b.op("MatMul", [x, b.scaled("W", (w, w), w, gain=2 ** 0.5)])
        h = b.op("Relu", [b.op("Add", [h, b.weight("bias", (w,), scale=0.02)])])
        h = b.op("MatMul", [h, b.scaled("W", (w, w), w)])
        total = h if total is None else b.op("Add", [total, h])
    b.nodes[-1].output[0] = "output"
    b.save_model(args.out, "matmul_branches", [(x, [1, n, w])], [("output", [1, n, w])])


if __name__ == "__main__":
    main()
