#!/usr/bin/env python3
"""GE against ONNX Runtime on every model of the zoo cache, in one run (issue 40's table).

For each exported zoo model (tests/zoo: `ctest -L zoo` fills the cache, default
~/.cache/ge/zoo) this runs ONNX Runtime 1.30 (bench/compare/ort/bench.js, random inputs of the
zoo's own inputs) and ge-run -O3 on the same inputs, at each thread count, and one
more ge-run -v at one thread for where GE's time goes. It prints one row per model:

    model  GE ms 1T  ORT ms 1T  GE/ORT 1T  ...  2T/1T speedup  reference share  top reference ops

then the geometric mean of GE/ORT per thread count, the models slower than ORT, and the
op histogram of the time spent in reference kernels across the zoo (kernel names without
".dnnl:", "winograd" or "ge_autofuse": the library's loops, not generated code).

    run_zoo_bench.py --ge-run build/release/bin/ge-run [--cache DIR] [--threads 1,2]
                     [--runs 5] [--timeout 300] [--json OUT.json] [names ...]

Timing only: outputs are checked by the zoo's tests, not here. ONNX Runtime comes from
ORT_HOME (default /tmp/ort-peer; ../shared/tools/ort/setup.sh installs it). Exit status 0
(a slow model is not an error), 2 for bad arguments or no ge-run.
"""
import argparse
import json
import math
import os
import re
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
ORT_BENCH = os.path.join(ROOT, "bench", "compare", "ort", "bench.js")  # --input NAME=FILE.pb
OP_ROW = re.compile(r"^  (\S+)\s+([0-9.]+)\s+([0-9.]+)\s+([0-9.]+)%\s+(\d+)(?:\s+(.*))?$")
# ge-run's median is over every run: the first ones of a model whose shapes are specialised
# at run time (or whose If bodies are) compile. This many more runs keep them out of it, as
# bench.js's warm-up runs do for ONNX Runtime.
WARM_UP_RUNS = 6
KERNEL_ROW = re.compile(r"^\s+([0-9.]+)\s+([0-9.]+)\s+([0-9.]+)%\s+(\d+)\s+(\S+)$")


def is_reference_kernel(name):
    return name.startswith("cpu.") and not any(fast in name for fast in (".dnnl:", "winograd", "ge_autofuse"))


def ge_median(out):
    m = re.search(r"latency over \d+ runs: median ([0-9.]+) ms", out)
    return float(m.group(1)) if m else None


def reference_time(out):
    """(ms per run in reference kernels, ms per run in all kernels, {op type: reference ms})
    from ge-run -v's table of device time per op type."""
    table = out.split("device time per op type", 1)
    if len(table) < 2:
        return None
    reference, total, by_op = 0.0, 0.0, {}
    op = None
    for line in table[1].splitlines()[2:]:
        if line.startswith("the ") or not line.strip():
            break
        row = OP_ROW.match(line)
        if row:
            op, ms, kernel = row.group(1), float(row.group(3)), row.group(6) or ""
            if op == "total":
                total = ms
                break
            if "kernels:" not in kernel and is_reference_kernel(kernel):
                reference += ms
                by_op[op] = by_op.get(op, 0.0) + ms
            continue
        row = KERNEL_ROW.match(line)
        if row and op is not None and is_reference_kernel(row.group(5)):
            ms = float(row.group(2))
            reference += ms
            by_op[op] = by_op.get(op, 0.0) + ms
    return reference, total, by_op


def run(cmd, timeout, env=None):
    try:
        r = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout, env=env)
    except subprocess.TimeoutExpired:
        return None, f"timed out after {timeout} s"
    if r.returncode != 0:
        return None, ((r.stderr or r.stdout).strip().splitlines() or [f"exit {r.returncode}"])[-1][:200]
    return r.stdout, None


def bench_model(args, name, folder, threads):
    with open(os.path.join(folder, "meta.json")) as f:
        meta = json.load(f)
    model = os.path.join(folder, "model.onnx")
    row = {"model": name, "ge": {}, "ort": {}, "error": None}
    ort_inputs, inputs = [], []
    for i, input_name in enumerate(meta["inputs"]):
        ort_inputs += ["--input", f"{input_name}={os.path.join(folder, f'input_{i}.pb')}"]
        inputs += ["--input", f"{input_name}={os.path.join(folder, f'input_{i}.npy')}"]
    out, error = run(["node", ORT_BENCH, model, "--threads", ",".join(map(str, threads)), "--runs", str(args.runs)]
                     + ort_inputs, args.timeout)
    if out is None:
        row["error"] = "ORT: " + error
    else:
        for t in threads:
            m = re.search(rf"threads={t}\s+median=([0-9.]+)ms", out)
            if m:
                row["ort"][t] = float(m.group(1))
    for t in threads:
        out, error = run([args.ge_run, model, "-O3", "--threads", str(t), "--repeat", str(args.runs + WARM_UP_RUNS)] +
                         inputs, args.timeout)
        if out is None:
            row["error"] = (row["error"] + "; " if row["error"] else "") + f"GE {t}T: " + error
            return row
        row["ge"][t] = ge_median(out)
    out, error = run([args.ge_run, model, "-O3", "--threads", "1", "--repeat", str(args.runs + WARM_UP_RUNS), "-v"] +
                     inputs, args.timeout)
    if out is not None:
        row["reference"] = reference_time(out)
    return row


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--ge-run", required=True)
    ap.add_argument("--cache", default=os.path.expanduser("~/.cache/ge/zoo"))
    ap.add_argument("--threads", default="1,2")
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--timeout", type=int, default=300)
    ap.add_argument("--json")
    ap.add_argument("names", nargs="*")
    args = ap.parse_args()
    if not os.access(args.ge_run, os.X_OK):
        print(f"run_zoo_bench.py: no ge-run at {args.ge_run}", file=sys.stderr)
        return 2
    if not re.fullmatch(r"[1-9][0-9]*(,[1-9][0-9]*)*", args.threads) or args.runs < 1:
        print("run_zoo_bench.py: --threads expects e.g. 1,2 and --runs a positive count", file=sys.stderr)
        return 2
    threads = [int(t) for t in args.threads.split(",")]
    names = args.names or sorted(n for n in os.listdir(args.cache)
                                 if os.path.exists(os.path.join(args.cache, n, "meta.json")))
    rows = []
    for name in names:
        folder = os.path.join(args.cache, name)
        if not os.path.exists(os.path.join(folder, "model.onnx")):
            print(f"{name}: not in the cache {args.cache}", file=sys.stderr)
            continue
        row = bench_model(args, name, folder, threads)
        rows.append(row)
        print_row(row, threads)
        sys.stdout.flush()
    summarize(rows, threads)
    if args.json:
        with open(args.json, "w") as f:
            json.dump(rows, f, indent=1)
    return 0


def ratio(row, t):
    ge, ort = row["ge"].get(t), row["ort"].get(t)
    return ge / ort if ge and ort else None


def print_row(row, threads):
    cells = [f"{row['model']:34}"]
    for t in threads:
        r = ratio(row, t)
        ge, ort = row["ge"].get(t), row["ort"].get(t)
        cells.append(f"{t}T GE {ge or 0:9.2f} ORT {ort or 0:9.2f} = {r:5.2f}" if r else f"{t}T {'-':>30}")
    if len(threads) > 1 and row["ge"].get(threads[0]) and row["ge"].get(threads[-1]):
        cells.append(f"speedup {row['ge'][threads[0]] / row['ge'][threads[-1]]:4.2f}")
    reference = row.get("reference")
    if reference and reference[1] > 0:
        top = sorted(reference[2].items(), key=lambda kv: -kv[1])[:3]
        cells.append(f"ref {100 * reference[0] / reference[1]:5.1f}% " +
                     ", ".join(f"{op} {ms:.2f}" for op, ms in top))
    if row["error"]:
        cells.append(row["error"])
    print("  ".join(cells))


def summarize(rows, threads):
    print()
    for t in threads:
        ratios = [ratio(r, t) for r in rows if ratio(r, t)]
        if not ratios:
            continue
        mean = math.exp(sum(math.log(x) for x in ratios) / len(ratios))
        slower = sorted((r["model"] for r in rows if (ratio(r, t) or 0) > 1.0))
        print(f"{t} thread(s): geometric mean GE/ORT {mean:.2f} over {len(ratios)} models; "
              f"{len(slower)} slower than ORT: {', '.join(slower) or 'none'}")
    histogram = {}
    for r in rows:
        for op, ms in (r.get("reference") or (0, 0, {}))[2].items():
            histogram[op] = histogram.get(op, 0.0) + ms
    if histogram:
        print("time in reference kernels across the zoo at 1 thread (ms per run, summed over models):")
        for op, ms in sorted(histogram.items(), key=lambda kv: -kv[1]):
            print(f"  {op:28} {ms:9.2f}")


if __name__ == "__main__":
    sys.exit(main())
