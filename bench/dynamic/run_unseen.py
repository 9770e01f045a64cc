"""Unseen input shapes against compiled ones (issue 39's benchmarks (b) and (c)).

    PYTHONPATH=build/release/lib/python3/dist-packages /usr/bin/python3 \\
        bench/dynamic/run_unseen.py [--work DIR] [--threads 1] [--runs 10] [--cases encoder,cnn]

Exports with torch 1.13 (once, into --work, default build/release/bench/unseen):
  encoder  a BERT-base-like encoder (d 768, 12 heads, 4 layers; tests/zoo's Encoder),
           ids [1, S] with S symbolic, run at 20 lengths between 8 and 384 in a seeded
           random order;
  cnn      torchvision's ResNet-18 (random weights) with [1, 3, H, W] symbolic, run at 10
           seeded random resolutions between 96 and 320 (multiples of 8).

Each case runs in one session the way a server sees its requests: every shape arrives
once, in that order (with the session's default specialise_after, a shape seen once is
never compiled). The time of that run is the "unseen" latency. Then, for each shape, a
session with that static input shape (compiled at load, the task sink) runs it --runs
times; its median is the "compiled" latency. Prints one row per shape (unseen ms,
compiled ms, ratio) and the median and maximum ratio per case (issue 39's target: every
ratio <= 1.1), and one JSON line per case at the end.
"""
import argparse
import json
import os
import sys
import time

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.join(HERE, "..", "..")


def export(work):
    import torch
    import torchvision
    sys.path.insert(0, os.path.join(ROOT, "tests", "zoo"))
    from zoo_models import Encoder
    os.makedirs(work, exist_ok=True)
    encoder = os.path.join(work, "encoder.onnx")
    if not os.path.exists(encoder):
        torch.manual_seed(0)
        model = Encoder(d=768, heads=12, layers=4).eval()
        torch.onnx.export(model, (torch.randint(0, 8192, (1, 128)),), encoder, input_names=["ids"],
                          output_names=["out"], opset_version=14, dynamic_axes={"ids": {1: "S"}})
    cnn = os.path.join(work, "resnet18.onnx")
    if not os.path.exists(cnn):
        torch.manual_seed(0)
        model = torchvision.models.resnet18().eval()
        torch.onnx.export(model, (torch.randn(1, 3, 224, 224),), cnn, input_names=["x"], output_names=["y"],
                          opset_version=14, dynamic_axes={"x": {2: "H", 3: "W"}})
    return {"encoder": encoder, "cnn": cnn}


def shapes_of(case):
    rng = np.random.default_rng(39)
    if case == "encoder":
        lengths = rng.choice(np.arange(8, 385), size=20, replace=False)
        return [(1, int(s)) for s in lengths]
    sides = np.arange(96, 321, 8)
    return [(1, 3, int(rng.choice(sides)), int(rng.choice(sides))) for _ in range(10)]


def data_for(case, shape, seed):
    rng = np.random.default_rng(seed)
    if case == "encoder":
        return rng.integers(0, 8192, shape).astype(np.int64)
    return rng.standard_normal(shape).astype(np.float32)


def run_case(ge, case, model, threads, runs):
    shapes = shapes_of(case)
    name = "ids" if case == "encoder" else "x"
    session = ge.Session(model, threads=threads)
    session.run({name: data_for(case, shapes[0], 0)})  # loading and the first run's one-time costs
    session = ge.Session(model, threads=threads)
    unseen = []
    for i, shape in enumerate(shapes):
        x = data_for(case, shape, i + 1)
        start = time.perf_counter()
        session.run({name: x})
        unseen.append((time.perf_counter() - start) * 1e3)
    rows = []
    for i, shape in enumerate(shapes):
        x = data_for(case, shape, i + 1)
        fixed = ge.Session(model, threads=threads, input_shapes={name: list(shape)})
        for _ in range(2):
            fixed.run({name: x})
        laps = []
        for _ in range(runs):
            start = time.perf_counter()
            fixed.run({name: x})
            laps.append((time.perf_counter() - start) * 1e3)
        compiled = float(np.median(laps))
        rows.append({"shape": list(shape), "unseen_ms": unseen[i], "compiled_ms": compiled,
                     "ratio": unseen[i] / compiled})
        print(f"{case:8} {str(list(shape)):20} unseen {unseen[i]:8.2f} ms  compiled {compiled:8.2f} ms  "
              f"ratio {unseen[i] / compiled:5.2f}", flush=True)
    ratios = [r["ratio"] for r in rows]
    summary = {"case": case, "threads": threads, "median_ratio": float(np.median(ratios)), "max_ratio": max(ratios),
               "rows": rows}
    print(f"{case:8} median ratio {summary['median_ratio']:.2f}, max {summary['max_ratio']:.2f} (target <= 1.1)",
          flush=True)
    return summary


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--work", default=os.path.join(ROOT, "build", "release", "bench", "unseen"))
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--runs", type=int, default=10)
    parser.add_argument("--cases", default="encoder,cnn")
    args = parser.parse_args()
    import ge
    models = export(args.work)
    summaries = []
    for case in args.cases.split(","):
        if case not in models:
            parser.error(f"unknown case '{case}' (encoder, cnn)")
        summaries.append(run_case(ge, case, models[case], args.threads, args.runs))
    for summary in summaries:
        print(json.dumps(summary))


if __name__ == "__main__":
    main()
