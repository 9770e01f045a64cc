#!/usr/bin/env bash
# Installs GE into a temporary prefix, builds samples/toy_backend from a copy outside GE's
# tree against that install only (find_package(GE 0.2)), runs its device test, then runs
# with the installed tools on the toy backend: the sample CNN through the task sink
# (checked against its ONNX test data), a two-branch model compiled for two streams
# (checked against the cpu backend) and a node the backend refuses (its reason logged).
#   toy_backend_test.sh BUILD_DIR SOURCE_DIR
source "$(dirname "$0")/sdk_test_lib.sh"

build_sample toy_backend
grep -q "$prefix/include/ge/plugin_api/backend.h" "$work/toy_backend-deps.txt" || fail "the sample did not compile the installed backend.h"
ctest --test-dir "$work/toy_backend" --output-on-failure > "$work/ctest.txt" 2>&1 || { cat "$work/ctest.txt"; fail "toy_device_test"; }

registry=$work/toy_backend/toy_plugins.toml
run() { "$prefix/bin/ge-run" --plugins "$registry" "$@"; }

# The sample CNN: loaded into the task sink (a memory plan; the per-op executor cannot run
# on a device without host-accessible memory), every kernel a toy one, the output right.
model=$source/samples/models/small_cnn
run "$model.onnx" --backend toy --input "$model/input_0.pb" --expected-dir "$model" -v \
  --profile "$work/cnn.json" > "$work/cnn.txt" 2>&1 || { cat "$work/cnn.txt"; fail "the CNN on toy"; }
grep -q "compiled '.*' for backend toy" "$work/cnn.txt" || { cat "$work/cnn.txt"; fail "not compiled for toy"; }
grep -q "^memory plan: assigner" "$work/cnn.txt" || { cat "$work/cnn.txt"; fail "no memory plan: the CNN did not run in the task sink"; }
grep -q '"load (task sink)"' "$work/cnn.json" || fail "the profile has no task-sink load stage"
for kernel in toy.Conv toy.Relu toy.MaxPool toy.Gemm toy.Softmax; do
  grep -q " $kernel\$" "$work/cnn.txt" || { cat "$work/cnn.txt"; fail "$kernel did not run on the toy device"; }
done
grep -q "output_0.pb: OK" "$work/cnn.txt" || { cat "$work/cnn.txt"; fail "the CNN's output does not match"; }

# Two independent branches joined by a Gemm: on two streams with an event between them.
# SOFTMAX_AXIS=0 makes a Softmax the toy backend refuses.
two_branch_model() {
  SOFTMAX_AXIS=$2 python3 - "$1" <<'PY'
import os, random, struct, sys
def varint(n):
    out = b""
    while n > 0x7F: out, n = out + bytes([n & 0x7F | 0x80]), n >> 7
    return out + bytes([n])
def field(number, value):  # an int (varint) or bytes / str (length-delimited)
    if isinstance(value, int): return varint(number << 3) + varint(value)
    value = value.encode() if isinstance(value, str) else value
    return varint(number << 3 | 2) + varint(len(value)) + value
def attr(name, value):  # AttributeProto: INT (2) or INTS (7)
    if isinstance(value, int): return field(5, field(1, name) + field(20, 2) + field(3, value))
    return field(5, field(1, name) + field(20, 7) + b"".join(field(8, v) for v in value))
def node(op, inputs, output, *attributes):
    return field(1, b"".join(field(1, i) for i in inputs) + field(2, output) + field(3, output) + field(4, op) + b"".join(attributes))
def weight(name, dims):  # float32 TensorProto, raw data
    count = 1
    for d in dims: count *= d
    data = struct.pack("<%df" % count, *[rng.uniform(-0.5, 0.5) for _ in range(count)])
    return field(5, b"".join(field(1, d) for d in dims) + field(2, 1) + field(8, name) + field(9, data))
def tensor_info(number, name, dims):
    shape = b"".join(field(1, field(1, d)) for d in dims)
    return field(number, field(1, name) + field(2, field(1, field(1, 1) + field(2, shape))))
rng = random.Random(7)
window = lambda stride: (attr("kernel_shape", [3, 3]), attr("pads", [1, 1, 1, 1]), attr("strides", [stride, stride]))
graph = (node("MaxPool", ["x"], "p", attr("kernel_shape", [2, 2]), attr("strides", [2, 2])) +
         node("Conv", ["p", "wa", "ba"], "ca", *window(1)) + node("Relu", ["ca"], "a") +
         node("Conv", ["x", "wb"], "b", *window(2)) +
         node("Flatten", ["a"], "fa", attr("axis", 2)) + node("Flatten", ["b"], "fb", attr("axis", 2)) +
         node("Gemm", ["fa", "fb"], "g", attr("transB", 1)) +
         node("Softmax", ["g"], "y", attr("axis", int(os.environ["SOFTMAX_AXIS"]))) + field(2, "two_branch") +
         weight("wa", [6, 3, 3, 3]) + weight("ba", [6]) + weight("wb", [6, 3, 3, 3]) +
         tensor_info(11, "x", [1, 3, 8, 8]) + tensor_info(12, "y", [6, 6]))
open(sys.argv[1], "wb").write(field(1, 8) + field(8, field(1, "") + field(2, 13)) + field(7, graph))
PY
}
if ! command -v python3 > /dev/null; then
  echo "toy backend: built against $prefix, ran the CNN in the task sink (no python3: two-stream run skipped)"
  exit 0
fi
two_branch_model "$work/two_branch.onnx" 1
"$prefix/bin/ge-run" "$work/two_branch.onnx" --input x=random --output-dir "$work/expected" > "$work/cpu.txt" 2>&1 ||
  { cat "$work/cpu.txt"; fail "the two-branch model on cpu"; }
"$prefix/bin/ge-compile" --plugins "$registry" --model "$work/two_branch.onnx" --output "$work/two_branch.gem" \
  --backend toy --streams 2 --stream-memory-ratio 0 > "$work/compile.txt" 2>&1 || { cat "$work/compile.txt"; fail "ge-compile --streams 2"; }
grep -q "execution plans: 2 stream(s), 1 event(s)" "$work/compile.txt" || { cat "$work/compile.txt"; fail "not two streams"; }
run "$work/two_branch.gem" --input x=random --expected-dir "$work/expected" --repeat 200 \
  --profile "$work/two.json" > "$work/two.txt" 2>&1 || { cat "$work/two.txt"; fail "two streams on toy"; }
grep -q "output_0.pb: OK" "$work/two.txt" || { cat "$work/two.txt"; fail "the two-stream output does not match"; }
grep -q '"stream 1"' "$work/two.json" && grep -q '"event_wait"' "$work/two.json" ||
  fail "the toy device's trace has no second stream or no event wait"

# A node the toy kernels refuse: the model does not load, and -v logs the backend's reason.
two_branch_model "$work/softmax_axis0.onnx" 0
if run "$work/softmax_axis0.onnx" --backend toy --input x=random -v > "$work/refused.txt" 2>&1; then
  fail "a Softmax over axis 0 ran on toy"
fi
grep -q "toy backend: only Softmax over the last axis is supported" "$work/refused.txt" ||
  { cat "$work/refused.txt"; fail "no refusal reason"; }
# The backend conformance kit, as installed, on the toy backend: device memory, streams,
# events, the task sink and capture must pass (kernel cases of ops toy lacks are skipped).
[[ -x $prefix/bin/ge-backend-conformance ]] || fail "the install has no ge-backend-conformance"
"$prefix/bin/ge-backend-conformance" --plugins "$registry" --backend toy > "$work/conformance.txt" 2>&1 ||
  { cat "$work/conformance.txt"; fail "the conformance kit fails on toy"; }
for test in DeviceMemory.LargeRoundTripIsBitExact Streams.MemcpyTasksRunInSubmissionOrder \
            Events.WaitOrdersWorkAcrossStreams TaskSink.SessionRunsThroughTheTaskSink \
            TaskSink.TwoStreamsMatchTheReference Capture.ReplayMatchesTheReference Capture.ForkJoinReplaysOnTwoStreams; do
  grep -q "\[       OK \] toy/$test" "$work/conformance.txt" || { cat "$work/conformance.txt"; fail "conformance: $test did not pass"; }
done
echo "toy backend: built against $prefix; the CNN ran in the task sink, two streams matched the cpu backend; conformance kit passed"
