#!/usr/bin/env bash
# Dynamic-shape benchmark: models with symbolic input dims, an If, and NonZero mid-graph
# (make_dynamic_models.py), each run by GE (ge-run -O3) after warm-up against the same
# model exported with static shapes and against ONNX Runtime 1.30 at the same thread
# count, on the same seeded random inputs; GE's outputs are checked against ORT's.
#
#   bash bench/dynamic/run_dynamic.sh [--threads 1] [--runs 200] [--build DIR] [--work DIR]
#        [--vad PATH/silero_vad.onnx]
#
# One row per case: GE median ms on the dynamic model, on its static twin, their ratio
# (targets: <= 1.1, <= 1.3 for nonzero), ORT median ms and GE/ORT (target <= 0.8), the
# first run's specialisation (compile) time, and the tensor-pool allocations per run after
# two warm-up runs (target 0). --vad adds Silero VAD (16 kHz; no static twin). Exits 1
# when GE fails or disagrees with ORT; a slow ratio is never an error. Without node/npm or
# ONNX Runtime it prints 'skipped: ...' and exits 0.
#
# Environment: ORT_HOME (default /tmp/ort-peer), PYTHON (python3 with onnx, numpy;
# default /usr/bin/python3).
set -uo pipefail

here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/../.." && pwd)"
threads=1
runs=200
build="$root/build/release"
work=default
vad=""
usage() { sed -n '2,19p' "$0" | sed 's/^# \{0,1\}//'; }
while [ $# -gt 0 ]; do
  case "$1" in
    --threads) threads="${2:-}"; shift $(($# > 1 ? 2 : 1)) ;;
    --runs) runs="${2:-}"; shift $(($# > 1 ? 2 : 1)) ;;
    --build) build="${2:-}"; shift $(($# > 1 ? 2 : 1)) ;;
    --work) work="${2:-}"; shift $(($# > 1 ? 2 : 1)) ;;
    --vad) vad="${2:-}"; shift $(($# > 1 ? 2 : 1)) ;;
    -h|--help) usage; exit 0 ;;
    *) echo "run_dynamic.sh: unknown argument '$1'" >&2; usage >&2; exit 2 ;;
  esac
done
[[ "$runs" =~ ^[1-9][0-9]*$ ]] && [ "$runs" -ge 3 ] || { echo "run_dynamic.sh: --runs expects an integer >= 3" >&2; exit 2; }
[[ "$threads" =~ ^[1-9][0-9]*$ ]] || { echo "run_dynamic.sh: --threads expects one positive integer" >&2; exit 2; }
[ -z "$vad" ] || [ -f "$vad" ] || { echo "run_dynamic.sh: no model '$vad'" >&2; exit 2; }
build="$(cd "$build" 2>/dev/null && pwd)" || { echo "run_dynamic.sh: no build folder '$build'" >&2; exit 2; }
[ "$work" = default ] && work="$build/bench/dynamic"
ge_run="$build/bin/ge-run"
[ -x "$ge_run" ] || { echo "run_dynamic.sh: $ge_run not found (build ge-run first)" >&2; exit 2; }
python="${PYTHON:-/usr/bin/python3}"
export ORT_HOME="${ORT_HOME:-/tmp/ort-peer}"
export PYTHONDONTWRITEBYTECODE=1
ort_bench="$root/bench/compare/ort/bench.js"

# --- ONNX Runtime: a measuring instrument, installed on demand, never a GE dependency ---
ort_module="$ORT_HOME/node_modules/onnxruntime-node"
if [ ! -f "$ort_module/package.json" ]; then
  if ! command -v node >/dev/null || ! command -v npm >/dev/null; then echo "skipped: node/npm not found"; exit 0; fi
  echo "installing onnxruntime-node@1.30.0 into $ORT_HOME ..."
  (mkdir -p "$ORT_HOME" && cd "$ORT_HOME" && { [ -f package.json ] || npm init -y >/dev/null; } &&
    ONNXRUNTIME_NODE_INSTALL=skip npm install --no-audit --no-fund onnxruntime-node@1.30.0 >/dev/null) ||
    { echo "skipped: npm install onnxruntime-node@1.30.0 failed"; exit 0; }
fi
node -e "require('$ort_module')" 2>/dev/null || { echo "skipped: onnxruntime-node in $ORT_HOME does not load"; exit 0; }

# --- models and reference cases (ORT's seeded random inputs and its outputs) ---
mkdir -p "$work/logs" || exit 2
log="$work/logs"
"$python" "$here/make_dynamic_models.py" "$work" >/dev/null || { echo "run_dynamic.sh: generating models failed" >&2; exit 1; }
dump() {  # dump CASE MODEL ORT-ARGS...: ORT's inputs and outputs for a case into $work/CASE
  local case="$1" model="$2"
  shift 2
  rm -rf "${work:?}/$case"
  node "$ort_bench" "$work/$model" "$@" --dump "$work/$case/" --threads 1 --runs 1 --warmup 0 >/dev/null ||
    { echo "run_dynamic.sh: ONNX Runtime could not run $model" >&2; exit 1; }
}
cnn_sizes=(1,3,64,64 1,3,96,160 2,3,128,128)
for s in "${cnn_sizes[@]}"; do dump "cnn_$s" cnn_dynamic.onnx --shape "x=$s"; done
dump speech speech_if.onnx --value sr=16000
dump nonzero nonzero_mid.onnx
dump kept nonzero_index.onnx  # the same seeded input: which rows NonZero keeps
"$python" "$here/make_dynamic_models.py" "$work" "$work/kept/output_0.pb" >/dev/null ||
  { echo "run_dynamic.sh: generating nonzero_static.onnx failed" >&2; exit 1; }
if [ -n "$vad" ]; then
  cp "$vad" "$work/silero_vad.onnx"
  dump vad silero_vad.onnx --value sr=16000 --shape input=1,512 --shape state=2,1,128
fi

# --- runs ---
failed=0
median_of() { sed -n 's/^latency over [0-9]* runs: median \([0-9.]*\) ms.*/\1/p' "$1"; }
ge() {  # ge LOG MODEL CASE [check [N]]: GE on the case's inputs (the first N of them)
  local out="$1" model="$2" case="$3" check="${4:-}" count="${5:-99}"
  local args=() k=0
  for f in "$work/$case"/input_*.pb; do [ $k -lt "$count" ] && args+=(--input "$f"); k=$((k + 1)); done
  [ -n "$check" ] && args+=(--expected-dir "$work/$case" --rtol 1e-3 --atol 1e-3)
  "$ge_run" "$work/$model" "${args[@]}" -O3 --threads "$threads" --repeat "$runs" -v >"$out" 2>&1
  local rc=$?
  if [ -n "$check" ] && { [ $rc -ne 0 ] || grep -q MISMATCH "$out" || ! grep -q ": OK, max abs error" "$out"; }; then
    echo "GE failed or disagrees with ORT on $case ($model, log $out):" >&2
    grep -E "MISMATCH|error" "$out" | head -3 >&2
    failed=1
  fi
}
ort() {  # ort MODEL ORT-ARGS...: ORT's median ms at $threads
  local model="$1"
  shift
  node "$ort_bench" "$work/$model" "$@" --threads "$threads" --runs "$runs" 2>/dev/null |
    sed -n "s/.*threads=${threads}[[:space:]]median=\([0-9.]*\)ms.*/\1/p" | head -1
}
row() {  # row CASE DYN-LOG STATIC-LOG ORT-MS
  local g s o compile alloc
  g=$(median_of "$2")
  s=$([ -n "$3" ] && median_of "$3")
  o="$4"
  compile=$(sed -n 's/^specialisations: .* compile \([0-9.]*\) ms$/\1/p' "$2")
  alloc=$(sed -n 's/^allocations after warm-up: \([0-9]*\) over \([0-9]*\) runs$/\1\/\2/p' "$2")
  printf "%-22s %9s %9s %8s %9s %7s %11s %12s\n" "$1" "${g:--}" "${s:--}" \
    "$(awk -v a="$g" -v b="$s" 'BEGIN { if (a != "" && b > 0) printf "%.2f", a / b; else print "-" }')" "${o:--}" \
    "$(awk -v a="$g" -v b="$o" 'BEGIN { if (a != "" && b > 0) printf "%.2f", a / b; else print "-" }')" \
    "${compile:--}" "${alloc:--}"
}
rows=()
for s in "${cnn_sizes[@]}"; do
  IFS=, read -r n c h w <<<"$s"
  ge "$log/cnn_$s.dyn.txt" cnn_dynamic.onnx "cnn_$s" check
  ge "$log/cnn_$s.static.txt" "cnn_static_${n}x${h}x${w}.onnx" "cnn_$s"
  rows+=("cnn[$s]|$log/cnn_$s.dyn.txt|$log/cnn_$s.static.txt|$(ort cnn_dynamic.onnx --shape "x=$s")")
done
ge "$log/speech.dyn.txt" speech_if.onnx speech check
ge "$log/speech.static.txt" speech_static.onnx speech "" 1  # x only: the twin has no rate input
rows+=("speech_if(16k)|$log/speech.dyn.txt|$log/speech.static.txt|$(ort speech_if.onnx --value sr=16000)")
ge "$log/nonzero.dyn.txt" nonzero_mid.onnx nonzero check
ge "$log/nonzero.static.txt" nonzero_static.onnx nonzero
rows+=("nonzero_mid|$log/nonzero.dyn.txt|$log/nonzero.static.txt|$(ort nonzero_mid.onnx)")
if [ -n "$vad" ]; then
  ge "$log/vad.dyn.txt" silero_vad.onnx vad check
  rows+=("silero_vad(16k)|$log/vad.dyn.txt||$(ort silero_vad.onnx --value sr=16000 --shape input=1,512 --shape state=2,1,128)")
fi

echo
echo "threads $threads, median of $runs runs after warm-up (GE: -O3)"
printf "%-22s %9s %9s %8s %9s %7s %11s %12s\n" case "GE ms" static "dyn/st" "ORT ms" GE/ORT "compile ms" "allocs/runs"
for r in "${rows[@]}"; do
  IFS='|' read -r name dyn stat o <<<"$r"
  row "$name" "$dyn" "$stat" "$o"
done
exit $failed
