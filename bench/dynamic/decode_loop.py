"""Greedy decoding with a GPT-style decoder step on GE (issue 39's benchmark (a)).

    python3 decode_loop.py export WORK                 # WORK/decoder.onnx (torch 1.13)
    python3 decode_loop.py run MODEL --steps 64 --threads 1 [--static P,P,...]

`run` feeds a 16-token prompt (ids [1,16], an empty cache past [L,2,1,H,0,Dh]) and then
STEPS single tokens, each the argmax of the previous logits, the cache growing by one per
step: every step is a new input-shape signature. It prints one JSON line: the total, the
first step and the median of the others in ms, the tokens, and with --static the median
latency of a session run again and again at each given cache length P (the same model at
a shape it has seen: what a step costs without any preparation).
"""
import argparse
import json
import os
import sys
import time

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
PROMPT = 16


def prompt_ids(vocab):
    return np.array([[(i * 7919) % vocab for i in range(PROMPT)]], dtype=np.int64)


def export(work):
    import torch
    sys.path.insert(0, os.path.join(HERE, "..", "..", "tests", "zoo"))
    from zoo_models import DecoderStep
    torch.manual_seed(0)
    model = DecoderStep(vocab=8192, d=512, heads=8, layers=4).eval()
    ids, past = torch.randint(0, 8192, (1, 3)), torch.randn(4, 2, 1, 8, 7, 64)
    os.makedirs(work, exist_ok=True)
    torch.onnx.export(model, (ids, past), os.path.join(work, "decoder.onnx"), input_names=["ids", "past"],
                      output_names=["logits", "present"], opset_version=14,
                      dynamic_axes={"ids": {1: "T"}, "past": {4: "P"}, "logits": {1: "T"}, "present": {4: "PT"}})


def run(args):
    import ge
    session = ge.Session(args.model, threads=args.threads)
    past_info = next(i for i in session.inputs if i.name == "past")
    layers, _, _, heads, _, dh = past_info.shape
    ids = prompt_ids(8192)
    past = np.zeros((layers, 2, 1, heads, 0, dh), np.float32)
    times, tokens = [], []
    start = time.perf_counter()
    for _ in range(args.steps + 1):
        t = time.perf_counter()
        out = session.run({"ids": ids, "past": past})
        times.append((time.perf_counter() - t) * 1e3)
        past = out["present"]
        ids = out["logits"][:, -1:].argmax(-1).astype(np.int64)
        tokens.append(int(ids[0, 0]))
    total = (time.perf_counter() - start) * 1e3
    result = {"total_ms": total, "first_ms": times[0], "median_step_ms": float(np.median(times[1:])),
              "steps_ms": times, "tokens": tokens}
    if args.static:
        rng = np.random.default_rng(0)
        static = {}
        for p in [int(v) for v in args.static.split(",")]:
            fixed = ge.Session(args.model, threads=args.threads)
            inputs = {"ids": np.ones((1, 1), np.int64), "past": rng.standard_normal((layers, 2, 1, heads, p, dh)).astype(np.float32)}
            for _ in range(3):
                fixed.run(inputs)  # per op, then compiled for this shape
            laps = []
            for _ in range(20):
                t = time.perf_counter()
                fixed.run(inputs)
                laps.append((time.perf_counter() - t) * 1e3)
            static[p] = float(np.median(laps))
        result["static_step_ms"] = static
    print(json.dumps(result))


def main():
    parser = argparse.ArgumentParser()
    sub = parser.add_subparsers(dest="command", required=True)
    e = sub.add_parser("export")
    e.add_argument("work")
    r = sub.add_parser("run")
    r.add_argument("model")
    r.add_argument("--steps", type=int, default=64)
    r.add_argument("--threads", type=int, default=1)
    r.add_argument("--static", default="")
    args = parser.parse_args()
    export(args.work) if args.command == "export" else run(args)


if __name__ == "__main__":
    main()
