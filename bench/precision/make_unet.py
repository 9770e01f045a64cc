"""Writes a U-Net-like encoder-decoder CNN of residual blocks (random weights, seed 0,
opset 13), float32 or dynamically quantised as ONNX Runtime's quantize_dynamic writes it
(precision_models.quantize_dynamic_conv: every Conv becomes DynamicQuantizeLinear ->
ConvInteger with uint8 weights -> Cast -> Mul -> Add).

  stem 3x3 3->16 | 3 encoder levels: residual block, 3x3 stride-2 conv doubling the channels
  | 2 residual blocks at 64x64x128 | 3 decoder levels: nearest 2x Resize, 1x1 conv halving
  the channels, Concat with the skip, 3x3 conv, residual block | 1x1 head to 2 classes.
  A residual block is x + conv3x3(relu(conv3x3(x))) followed by Relu. 27 Conv, about
  14 GMAC at 512x512.

The quantised model is checked before saving: on 2 random inputs its output must stay
within 10% of the float output's largest magnitude.

input 'input' [1,3,S,S] -> 'output' [1,2,S,S] (S = --size, default 512).
usage: /usr/bin/python3 make_unet.py OUT.onnx --variant fp32|int8 [--size 512]"""

import argparse
import io
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import numpy as np  # noqa: E402
import onnx  # noqa: E402
import torch  # noqa: E402
from torch import nn  # noqa: E402
import precision_models as pm  # noqa: E402


def conv(cin, cout, k, stride=1, gain=1.0):
    c = nn.Conv2d(cin, cout, k, stride=stride, padding=k // 2)
    nn.init.normal_(c.weight, std=gain * np.sqrt(2.0 / (cin * k * k)))  # He: unit scale through Relu
    nn.init.normal_(c.bias, std=0.05)
    return c


class Residual(nn.Module):
    def __init__(self, c):
        super().__init__()
        self.a, self.b = conv(c, c, 3), conv(c, c, 3, gain=0.5)

    def forward(self, x):
        return torch.relu(x + self.b(torch.relu(self.a(x))))


class UNet(nn.Module):
    def __init__(self, base=16, levels=3):
        super().__init__()
        self.stem = conv(3, base, 3)
        chans = [base * 2**i for i in range(levels + 1)]
        self.enc = nn.ModuleList(Residual(c) for c in chans[:-1])
        self.down = nn.ModuleList(conv(c, 2 * c, 3, stride=2) for c in chans[:-1])
        self.middle = nn.Sequential(Residual(chans[-1]), Residual(chans[-1]))
        self.reduce = nn.ModuleList(conv(2 * c, c, 1) for c in reversed(chans[:-1]))
        self.merge = nn.ModuleList(conv(2 * c, c, 3) for c in reversed(chans[:-1]))
        self.dec = nn.ModuleList(Residual(c) for c in reversed(chans[:-1]))
        self.head = conv(base, 2, 1)

    def forward(self, x):
        x = torch.relu(self.stem(x))
        skips = []
        for block, down in zip(self.enc, self.down):
            x = block(x)
            skips.append(x)
            x = torch.relu(down(x))
        x = self.middle(x)
        for reduce, merge, block, skip in zip(self.reduce, self.merge, self.dec, reversed(skips)):
            x = reduce(nn.functional.interpolate(x, scale_factor=2.0, mode="nearest"))
            x = block(torch.relu(merge(torch.cat([x, skip], dim=1))))
        return self.head(x)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("out")
    ap.add_argument("--variant", choices=["fp32", "int8"], required=True)
    ap.add_argument("--size", type=int, default=512)
    args = ap.parse_args()
    torch.manual_seed(0)
    net = UNet().eval()
    shape = (1, 3, args.size, args.size)
    buf = io.BytesIO()
    with torch.no_grad():
        torch.onnx.export(net, torch.zeros(shape), buf, opset_version=13, input_names=["input"],
                          output_names=["output"], do_constant_folding=True)
    model = onnx.load_from_string(buf.getvalue())
    if args.variant == "int8":
        quantised = pm.quantize_dynamic_conv(model)
        for k in range(2):
            feeds = {"input": pm.random_input(shape, 200 + k)}
            f = pm.run_graph(model, feeds)["output"]
            q = pm.run_graph(quantised, feeds)["output"]
            rel = np.abs(f - q).max() / np.abs(f).max()
            print(f"input {k}: output std {f.std():.3g}, max |int8 - float| / max |float| {rel:.3g}")
            if not rel <= 0.1:
                sys.exit(f"make_unet.py: the quantised output is off the float output by {rel:.3g} of its "
                         "largest magnitude (more than 0.1)")
        model = quantised
    print(pm.count_ops(model))
    onnx.save(model, args.out)


if __name__ == "__main__":
    main()
