#!/usr/bin/env python3
"""ge.torch.compile against PyTorch (issue 41's benchmark): PyTorch eager (torch.no_grad,
eval) and torch.jit.freeze + torch.jit.optimize_for_inference, at 1 and 2 threads, on
ResNet-50, MobileNetV3-Large and a BERT-base-like encoder (12 layers, d 768, 12 heads,
S=128), random weights. Also the time to compile ResNet-50 from a .pt file (ge.Session on
an archive ge.torch.save wrote: load, freeze, the example run, mapping and compilation).

  PYTHONPATH=build/release/lib/python3/dist-packages /usr/bin/python3 \\
      bench/torchscript/run_torch_bench.py [--threads 1,2] [--runs 20] [--models resnet50,...]

Prints one row per model and thread count: median ms of each, the speedup of GE over the
faster of the two, and the largest output difference relative to the output's scale."""
import argparse
import os
import statistics
import tempfile
import time
import warnings

import torch
import torch.nn as nn
import torchvision.models as tv

import ge
import ge.torch

warnings.filterwarnings("ignore")


def bert_base():
    layer = nn.TransformerEncoderLayer(768, 12, 3072, batch_first=True, activation="gelu")
    return nn.TransformerEncoder(layer, 12, enable_nested_tensor=False)


MODELS = {
    "resnet50": (lambda: tv.resnet50(), lambda: torch.randn(1, 3, 224, 224)),
    "mobilenet_v3_large": (lambda: tv.mobilenet_v3_large(), lambda: torch.randn(1, 3, 224, 224)),
    "bert_base_encoder": (bert_base, lambda: torch.randn(1, 128, 768)),
}


def median_ms(fn, runs):
    fn()
    fn()
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        fn()
        times.append((time.perf_counter() - start) * 1e3)
    return statistics.median(times)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--threads", default="1,2")
    parser.add_argument("--runs", type=int, default=20)
    parser.add_argument("--models", default=",".join(MODELS))
    args = parser.parse_args()
    torch.manual_seed(0)
    print(f"torch {torch.__version__}, GE {ge.__version__}, {os.cpu_count()} CPUs")
    print(f"{'model':<20} {'thr':>3} {'eager ms':>9} {'jit ms':>9} {'GE ms':>9} {'speedup':>8} {'max err/scale':>14}")
    for name in args.models.split(","):
        make, example = MODELS[name]
        module = make().eval()
        x = example()
        with torch.no_grad():
            reference = module(x)
            jit = torch.jit.optimize_for_inference(torch.jit.freeze(torch.jit.trace(module, x, check_trace=False)))
        for threads in [int(t) for t in args.threads.split(",")]:
            torch.set_num_threads(threads)
            with torch.no_grad():
                eager_ms = median_ms(lambda: module(x), args.runs)
                jit_ms = median_ms(lambda: jit(x), args.runs)
            compiled = ge.torch.compile(module, (x,), threads=threads)
            ge_ms = median_ms(lambda: compiled(x), args.runs)
            got = compiled(x)
            scale = float(reference.abs().max())
            err = float((got - reference).abs().max()) / max(scale, 1e-12)
            speedup = min(eager_ms, jit_ms) / ge_ms
            print(f"{name:<20} {threads:>3} {eager_ms:>9.2f} {jit_ms:>9.2f} {ge_ms:>9.2f} {speedup:>7.2f}x {err:>14.2e}",
                  flush=True)
    if "resnet50" in args.models.split(","):
        with tempfile.TemporaryDirectory() as work:
            path = os.path.join(work, "resnet50.pt")
            ge.torch.save(tv.resnet50().eval(), (torch.randn(1, 3, 224, 224),), path)
            times = []
            for _ in range(3):
                start = time.perf_counter()
                ge.Session(path)
                times.append(time.perf_counter() - start)
            print(f"compile ResNet-50 from .pt (ge.Session, median of 3): {statistics.median(times) * 1e3:.0f} ms")


if __name__ == "__main__":
    main()
