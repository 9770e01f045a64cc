#!/usr/bin/env python3
"""ge-run --profile end to end: runs the sample model on one backend and checks the
Chrome trace: it parses, has a compile track with the compile stages, a runs track, and
one "stream N" track per stream holding exactly the kernel launches of every run.

    ge_run_profile_test.py GE_RUN MODEL INPUT_NPY BACKEND OUT_DIR
"""

import json
import os
import subprocess
import sys

RUNS = 3
EPSILON_US = 1e-3  # rounding of ns to us


def fail(message):
    print("FAIL: " + message)
    sys.exit(1)


def check(condition, message):
    if not condition:
        fail(message)


def run(args):
    result = subprocess.run(args, capture_output=True, text=True)
    return result.returncode, result.stdout, result.stderr


def main():
    ge_run, model, input_npy, backend, out_dir = sys.argv[1:6]
    os.makedirs(out_dir, exist_ok=True)
    trace_file = os.path.join(out_dir, "profile_" + backend + ".json")
    if os.path.exists(trace_file):
        os.remove(trace_file)

    code, out, err = run([ge_run, model, "--input", "input=" + input_npy, "--backend", backend,
                          "--repeat", str(RUNS), "--profile", trace_file])
    check(code == 0, "ge-run failed (%d): %s%s" % (code, out, err))
    check("wrote profile to " + trace_file in out, "no summary line: " + out)
    with open(trace_file) as f:
        trace = json.load(f)

    events = trace["traceEvents"]
    other = trace["otherData"]
    check(other["backend"] == backend, "otherData.backend: %r" % other["backend"])
    check(other["runs"] == RUNS, "otherData.runs: %r" % other["runs"])
    check(other["device_traced"] == 1, "the %s device was not traced" % backend)
    launches = other["kernel_launches_per_run"]
    check(launches >= 1, "kernel_launches_per_run: %r" % launches)

    processes = {e["pid"]: e["args"]["name"] for e in events if e["ph"] == "M" and e["name"] == "process_name"}
    tracks = {(e["pid"], e["tid"]): e["args"]["name"] for e in events if e["ph"] == "M" and e["name"] == "thread_name"}
    complete = [e for e in events if e["ph"] == "X"]
    for e in complete:
        check((e["pid"], e["tid"]) in tracks, "event on an unnamed track: %r" % e)
        check(e["dur"] >= 0, "negative duration: %r" % e)

    def on(track_name):
        return [e for e in complete if tracks[(e["pid"], e["tid"])] == track_name]

    stages = [e["name"] for e in on("compile")]
    for stage in ("parse", "verify", "infer shapes", "passes", "compile (task sink)", "load (task sink)"):
        check(stage in stages, "compile track lacks '%s': %r" % (stage, stages))
    check(processes[on("compile")[0]["pid"]] == "ge-run (wall time)", "host process: %r" % processes)
    runs = sorted(on("runs"), key=lambda e: e["ts"])
    check([e["name"] for e in runs] == ["run %d" % i for i in range(RUNS)], "runs track: %r" % runs)

    stream_tracks = {key: name for key, name in tracks.items() if name.startswith("stream ")}
    check(stream_tracks, "no stream tracks: %r" % tracks)
    device_pids = {pid for pid, _ in stream_tracks}
    check(len(device_pids) == 1, "stream tracks in several processes: %r" % stream_tracks)
    device_process = processes[device_pids.pop()]
    expected_clock = "(simulated time)" if backend == "npu_sim" else "(wall time)"
    check(device_process == backend + " " + expected_clock, "device process: %r" % device_process)

    kernels = 0
    for key, name in stream_tracks.items():
        tasks = sorted((e for e in complete if (e["pid"], e["tid"]) == key), key=lambda e: e["ts"])
        check(tasks, "empty track " + name)
        stream_kernels = [e for e in tasks if e["cat"] == "kernel"]
        check(len(stream_kernels) % RUNS == 0,
              "%s: %d kernel events, not the same each of %d runs" % (name, len(stream_kernels), RUNS))
        kernels += len(stream_kernels)
        for before, after in zip(tasks, tasks[1:]):
            check(after["ts"] >= before["ts"] + before["dur"] - EPSILON_US,
                  "%s: tasks overlap on one stream: %r, %r" % (name, before, after))
        if backend == "cpu":  # wall time: every task lies inside a run
            check(tasks[0]["ts"] >= runs[0]["ts"] - EPSILON_US, "%s: a task before the first run" % name)
            check(tasks[-1]["ts"] + tasks[-1]["dur"] <= runs[-1]["ts"] + runs[-1]["dur"] + EPSILON_US,
                  "%s: a task after the last run" % name)
    check(kernels == RUNS * launches,
          "%d kernel events on the stream tracks, expected %d runs x %d launches" % (kernels, RUNS, launches))

    # Bad paths: a clear error and exit status 1, before compiling.
    for bad, why in ((os.path.join(out_dir, "no-such-dir", "t.json"), "does not exist"),
                     (out_dir, "is a directory")):
        code, out, err = run([ge_run, model, "--input", "input=" + input_npy, "--backend", backend,
                              "--profile", bad])
        check(code == 1, "--profile %s: exit %d, expected 1" % (bad, code))
        check(why in err and bad in err, "--profile %s: unclear error: %r" % (bad, err))
    if backend == "cpu":
        check_bounded_trace(ge_run, out_dir)
    print("OK: %s trace with %d stream track(s), %d kernel events (%d runs x %d)" %
          (backend, len(stream_tracks), kernels, RUNS, launches))


def check_bounded_trace(ge_run, out_dir):
    """A long --repeat keeps memory bounded: the device traces the first 100,000 runs
    only (fewer for a model with more than 10 tasks a run), and says so."""
    model = os.path.join(out_dir, "one_op.onnx")
    # Debian's python3-onnx (what the build's model generators use) writes the model.
    make = ("import sys, onnx\nfrom onnx import TensorProto as T, helper as h\n"
            "g = h.make_graph([h.make_node('Relu', ['x'], ['y'])], 'one_op',"
            " [h.make_tensor_value_info('x', T.FLOAT, [4])], [h.make_tensor_value_info('y', T.FLOAT, [4])])\n"
            "onnx.save(h.make_model(g, opset_imports=[h.make_opsetid('', 17)]), sys.argv[1])\n")
    code, out, err = run(["/usr/bin/python3", "-c", make, model])
    check(code == 0, "writing the one-op model failed: " + err)
    trace_file = os.path.join(out_dir, "profile_long.json")
    runs = 100050
    code, out, err = run([ge_run, model, "--input", "x=random", "--repeat", str(runs), "--profile", trace_file])
    check(code == 0, "ge-run --repeat %d failed (%d): %s%s" % (runs, code, out, err))
    check("traced of %d run(s)" % runs in out, "no bounded-trace summary: " + out)
    traced = int(out.split(" device tasks over ")[1].split(" traced")[0])
    check(traced == 100000, "traced %d runs, expected 100000" % traced)


if __name__ == "__main__":
    main()
