"""Resident memory over many runs at random input-shape signatures (issue 39, item 5).

    PYTHONPATH=build/release/lib/python3/dist-packages /usr/bin/python3 \\
        bench/dynamic/memory_flat.py MODEL --runs 10000 [--threads 1]

MODEL is the decoder step of run_decode.sh (ids [1,T], past [4,2,1,8,P,64]); each run
draws T in 1..4 and P in 0..255 (1,024 signatures, so most runs meet a signature again
now and then and some are compiled). Prints the resident set after the first 10% of the
runs, every tenth of the runs, half way and at the end, with the growth from each (target
within 5%). Exits 1 when the second half of the runs grows it by over 5% (the caches
and the tensor pool fill up to their bounds in the first thousands of runs; a leak keeps
growing).
"""
import argparse
import sys
import time

import numpy as np


def resident_bytes():
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * 4096


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("model")
    parser.add_argument("--runs", type=int, default=10000)
    parser.add_argument("--threads", type=int, default=1)
    args = parser.parse_args()
    import ge
    session = ge.Session(args.model, threads=args.threads)
    rng = np.random.default_rng(0)
    cache = rng.standard_normal((4, 2, 1, 8, 255, 64)).astype(np.float32)
    warm = max(args.runs // 10, 1)
    start = time.perf_counter()
    baseline = middle = None
    for i in range(args.runs):
        t, p = int(rng.integers(1, 5)), int(rng.integers(0, 256))
        past = np.ascontiguousarray(cache[:, :, :, :, :p, :])
        session.run({"ids": rng.integers(0, 8192, (1, t)).astype(np.int64), "past": past})
        if i + 1 == warm:
            baseline = resident_bytes()
        if i + 1 == args.runs // 2:
            middle = resident_bytes()
        if (i + 1) % warm == 0:
            print(f"  after {i + 1} runs: resident {resident_bytes() / 2**20:.1f} MiB", flush=True)
    final = resident_bytes()
    middle = middle or baseline
    print(f"{args.runs} runs in {time.perf_counter() - start:.1f} s; resident {baseline / 2**20:.1f} MiB after "
          f"{warm} runs ({100 * (final / baseline - 1):+.1f}% to the end), {middle / 2**20:.1f} MiB half way "
          f"({100 * (final / middle - 1):+.1f}% to the end), {final / 2**20:.1f} MiB at the end")
    return 0 if final <= middle * 1.05 else 1

if __name__ == "__main__":
    sys.exit(main())
