#!/usr/bin/env bash
# .gem benchmark: for generated MobileNetV2 and ResNet-50 graphs, the time ge-compile takes
# (parse, passes, kernels, stream and memory planning, write) against the time loading the
# file takes (ge-compile --verify: read, checksum, decode, validate the stored plans,
# prepare kernels, copy weights), and the file size against the weights it holds.
# Prints one "result:" line per model (median of REPEAT runs). No thresholds.
#   bash bench/gem/run_gem_bench.sh [BUILD_DIR] [REPEAT]
set -euo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
build="${1:-$root/build/release}"
repeat="${2:-5}"
bin="$build/bin"
work="$build/bench/gem"
mkdir -p "$work"
median() { sort -g | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }
for model in mobilenet_v2 resnet50; do
  onnx="$work/$model.onnx"
  gem="$work/$model.gem"
  [ -f "$onnx" ] || /usr/bin/python3 "$root/bench/memory/make_$model.py" "$onnx" >/dev/null
  compile_ms=$(for _ in $(seq "$repeat"); do
    "$bin/ge-compile" --model "$onnx" --output "$gem" | sed -n "s/.* in \([0-9.]*\) ms (plugins.*/\1/p"
  done | median)
  load_ms=$(for _ in $(seq "$repeat"); do
    "$bin/ge-compile" --verify "$gem" | sed -n "s/.* nodes in \([0-9.]*\) ms (plugins.*/\1/p"
  done | median)
  info=$("$bin/ge-compile" --info "$gem")
  file_bytes=$(stat -c %s "$gem")
  weights_bytes=$(sed -n 's/^weights: [0-9]* tensors, \([0-9]*\) bytes$/\1/p' <<<"$info")
  streams=$(sed -n 's/^execution: task sink, \([0-9]*\) stream.*/\1/p' <<<"$info")
  feature_map=$(sed -n 's/^memory: feature map \([0-9]*\) bytes.*/\1/p' <<<"$info")
  awk -v m="$model" -v c="$compile_ms" -v l="$load_ms" -v f="$file_bytes" -v w="$weights_bytes" \
      -v s="$streams" -v fm="$feature_map" 'BEGIN {
    printf "result: %s compile_ms=%.1f load_ms=%.1f load/compile=%.3f file_bytes=%d weights_bytes=%d file/weights=%.4f streams=%s feature_map_bytes=%s\n",
      m, c, l, l / c, f, w, f / w, s, fm }'
done
