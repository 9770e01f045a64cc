#!/usr/bin/env bash
# Issue 39's decode benchmark: a GPT-style decoder step (4 layers, d 512, 8 heads, vocabulary
# 8192, KV cache past[4,2,1,8,P,64]) exported by torch 1.13, run in a greedy loop from a
# 16-token prompt by GE's Python module and by ONNX Runtime 1.30 (onnxruntime-node) at the
# same thread count. Every step is a new input-shape signature (P grows by one).
#
#   bash bench/dynamic/run_decode.sh [--steps 64,256] [--threads 1,2] [--build DIR] [--work DIR]
#
# One row per (steps, threads): GE and ORT total ms and their ratio (target <= 0.8), GE's
# median step, GE's static step at the middle cache length (a session run again and again
# at that shape) and their ratio (target <= 1.2), and how many generated tokens agree with
# ORT's (greedy decoding on random weights: near-ties may part the two after a while).
# Without node or ONNX Runtime it prints 'skipped: ...' and exits 0.
set -uo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/../.." && pwd)"
steps_list=64,256
threads_list=1,2
build="$root/build/release"
work=""
while [ $# -gt 0 ]; do
  case "$1" in
    --steps) steps_list="${2:-}"; shift 2 ;;
    --threads) threads_list="${2:-}"; shift 2 ;;
    --build) build="${2:-}"; shift 2 ;;
    --work) work="${2:-}"; shift 2 ;;
    -h|--help) sed -n '2,15p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "run_decode.sh: unknown argument '$1'" >&2; exit 2 ;;
  esac
done
build="$(cd "$build" 2>/dev/null && pwd)" || { echo "run_decode.sh: no build folder" >&2; exit 2; }
[ -n "$work" ] || work="$build/bench/decode"
python="${PYTHON:-/usr/bin/python3}"
export PYTHONPATH="$build/lib/python3/dist-packages${PYTHONPATH:+:$PYTHONPATH}"
export ORT_HOME="${ORT_HOME:-/tmp/ort-peer}"
command -v node >/dev/null || { echo "skipped: node not found"; exit 0; }
node -e "require('$ORT_HOME/node_modules/onnxruntime-node')" 2>/dev/null ||
  { echo "skipped: onnxruntime-node not in $ORT_HOME (sh ../shared/tools/ort/setup.sh)"; exit 0; }
mkdir -p "$work" || exit 2
model="$work/decoder.onnx"
[ -f "$model" ] || "$python" "$here/decode_loop.py" export "$work" >/dev/null 2>&1 ||
  { echo "run_decode.sh: exporting the decoder failed" >&2; exit 1; }
printf '%-6s %-3s %10s %10s %7s %10s %10s %7s %s\n' steps T "GE ms" "ORT ms" GE/ORT "GE step" "static" step/st tokens
IFS=, read -ra all_steps <<<"$steps_list"
IFS=, read -ra all_threads <<<"$threads_list"
for steps in "${all_steps[@]}"; do
  for t in "${all_threads[@]}"; do
    middle=$((16 + steps / 2))
    ge_json=$("$python" "$here/decode_loop.py" run "$model" --steps "$steps" --threads "$t" --static "$middle") ||
      { echo "run_decode.sh: GE failed" >&2; exit 1; }
    ort_json=$(node "$here/decode_loop_ort.js" "$model" "$steps" "$t") || { echo "run_decode.sh: ORT failed" >&2; exit 1; }
    "$python" - "$steps" "$t" "$middle" "$ge_json" "$ort_json" <<'PY'
import json, sys
steps, threads, middle = sys.argv[1], sys.argv[2], sys.argv[3]
ge, ort = json.loads(sys.argv[4]), json.loads(sys.argv[5])
static = ge["static_step_ms"][middle]
agree = 0
for a, b in zip(ge["tokens"], ort["tokens"]):
    if a != b:
        break
    agree += 1
print(f"{steps:<6} {threads:<3} {ge['total_ms']:10.1f} {ort['total_ms']:10.1f} {ge['total_ms'] / ort['total_ms']:7.2f} "
      f"{ge['median_step_ms']:10.2f} {static:10.2f} {ge['median_step_ms'] / static:7.2f} {agree}/{len(ge['tokens'])}")
PY
  done
done
