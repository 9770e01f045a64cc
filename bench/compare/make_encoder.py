"""Writes one BERT-base-sized transformer encoder layer as ONNX (opset 13), spelled the way
the PyTorch exporter writes a Hugging Face BertLayer: MatMul + Add projections,
Reshape/Transpose into 12 heads, MatMul for Q.K^T, Div by sqrt(64), Add of a constant
attention mask, Softmax, LayerNorm as ReduceMean/Sub/Pow/ReduceMean/Add/Sqrt/Div/Mul/Add
and GELU as x * 0.5 * (1 + Erf(x / sqrt 2)).

input [1,128,768] -> output [1,128,768]; random weights (seed 3), 7.1 M parameters.
usage: /usr/bin/python3 make_encoder.py OUT.onnx [--seq 128]"""

import argparse
import math
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import numpy as np  # noqa: E402
from compare_builder import Builder  # noqa: E402

HIDDEN, HEADS, FFN = 768, 12, 3072


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("out")
    ap.add_argument("--seq", type=int, default=128)
    args = ap.parse_args()
    S, H, D = args.seq, HIDDEN, HIDDEN // HEADS
    b = Builder(seed=3)

    def linear(x, cin, cout):
        y = b.op("MatMul", [x, b.scaled("W", (cin, cout), cin)])
        return b.op("Add", [b.weight("bias", (cout,), scale=0.02), y])  # the exporter puts the bias first

    def layer_norm(x):
        mean = b.op("ReduceMean", [x], axes=[-1])
        centred = b.op("Sub", [x, mean])
        var = b.op("ReduceMean", [b.op("Pow", [centred, b.f32("two", 2.0)])], axes=[-1])
        std = b.op("Sqrt", [b.op("Add", [var, b.f32("eps", 1e-12)])])
        normed = b.op("Div", [centred, std])
        gamma = b.constant("gamma", (1 + 0.1 * b.rng.standard_normal(H)).astype(np.float32))
        return b.op("Add", [b.op("Mul", [normed, gamma]), b.weight("beta", (H,), scale=0.02)])

    def heads(x, perm):
        y = b.op("Reshape", [x, b.i64("shape", [1, S, HEADS, D])])
        return b.op("Transpose", [y], perm=perm)

    x = "input"
    q = heads(linear(x, H, H), [0, 2, 1, 3])        # [1,12,S,64]
    k = heads(linear(x, H, H), [0, 2, 3, 1])        # [1,12,64,S]: key.transpose(-1,-2) folded in
    v = heads(linear(x, H, H), [0, 2, 1, 3])        # [1,12,S,64]
    scores = b.op("Div", [b.op("MatMul", [q, k]), b.f32("sqrt_d", math.sqrt(D))])
    mask = np.zeros((1, 1, 1, S), dtype=np.float32)
    mask[..., S - S // 8:] = -10000.0               # (1 - attention_mask) * -10000: last 1/8 is padding
    probs = b.op("Softmax", [b.op("Add", [scores, b.constant("mask", mask)])], axis=-1)
    ctx = b.op("Transpose", [b.op("MatMul", [probs, v])], perm=[0, 2, 1, 3])
    ctx = b.op("Reshape", [ctx, b.i64("shape", [1, S, H])])
    attn = layer_norm(b.op("Add", [linear(ctx, H, H), x]))

    h = linear(attn, H, FFN)
    half = b.op("Mul", [h, b.f32("half", 0.5)])   # x * 0.5 * (1.0 + erf(x / sqrt(2.0))), in trace order
    erf = b.op("Erf", [b.op("Div", [h, b.f32("sqrt2", math.sqrt(2.0))])])
    gelu = b.op("Mul", [half, b.op("Add", [erf, b.f32("one", 1.0)])])
    layer_norm(b.op("Add", [linear(gelu, FFN, H), attn]))
    b.nodes[-1].output[0] = "output"  # the last Add of the LayerNorm is the graph output

    b.save_model(args.out, "bert_encoder_layer", [(x, [1, S, H])], [("output", [1, S, H])])


if __name__ == "__main__":
    main()
