#!/usr/bin/env bash
# Whole-model benchmark: GE (ge-run -O3) against ONNX Runtime 1.30 (CPU) in the same run, on
# the same seeded random inputs, at each thread count; GE's outputs are checked against
# ORT's (rtol 1e-3, atol 1e-3). See README.md here.
#
#   bash bench/compare/run_compare.sh [--threads 1,2] [--runs 10] [--build DIR] [--work DIR]
#        [--models resnet50,mobilenetv2,encoder,branches,detector]
#
# Prints one row per model and thread count (GE median ms, ORT median ms, GE/ORT, outputs
# agree) and each engine's 2-thread over 1-thread speedup. Exits 1 on a real error only: GE
# crashed or failed, or its outputs differ from ORT's; a slow ratio is never an error. When
# ORT cannot be installed (no npm, no registry) it prints 'skipped: ...' and exits 0.
#
# Environment: ORT_HOME (where onnxruntime-node is or gets installed; default /tmp/ort-peer),
# PYTHON (a python3 with onnx and numpy; default /usr/bin/python3).
set -uo pipefail

here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/../.." && pwd)"
threads=1,2
runs=10
models=resnet50,mobilenetv2,encoder,branches,detector
build="$root/build/release"
work=default
usage() { sed -n '2,15p' "$0" | sed 's/^# \{0,1\}//'; }
while [ $# -gt 0 ]; do
  case "$1" in
    --threads) threads="${2:-}"; shift $(($# > 1 ? 2 : 1)) ;;
    --runs) runs="${2:-}"; shift $(($# > 1 ? 2 : 1)) ;;
    --models) models="${2:-}"; shift $(($# > 1 ? 2 : 1)) ;;
    --build) build="${2:-}"; shift $(($# > 1 ? 2 : 1)) ;;
    --work) work="${2:-}"; shift $(($# > 1 ? 2 : 1)) ;;
    -h|--help) usage; exit 0 ;;
    *) echo "run_compare.sh: unknown argument '$1'" >&2; usage >&2; exit 2 ;;
  esac
done
if [ -z "$build" ] || [ -z "$models" ] || [ -z "$work" ]; then
  echo "run_compare.sh: an option is missing its value" >&2; usage >&2; exit 2
fi
[[ "$runs" =~ ^[1-9][0-9]*$ ]] || { echo "run_compare.sh: --runs expects a positive integer" >&2; exit 2; }
[[ "$threads" =~ ^[1-9][0-9]*(,[1-9][0-9]*)*$ ]] || { echo "run_compare.sh: --threads expects e.g. 1,2" >&2; exit 2; }
build="$(cd "$build" 2>/dev/null && pwd)" || { echo "run_compare.sh: no build folder '$build'" >&2; exit 2; }
[ "$work" = default ] && work="$build/bench/compare"
python="${PYTHON:-/usr/bin/python3}"
export ORT_HOME="${ORT_HOME:-/tmp/ort-peer}"
export PYTHONDONTWRITEBYTECODE=1
IFS=, read -r -a thread_list <<<"$threads"
IFS=, read -r -a model_list <<<"$models"

# ge-run may be rebuilt while this runs: wait a little for it to reappear.
ge_run="$build/bin/ge-run"
wait_for_ge_run() {
  for _ in $(seq 30); do [ -x "$ge_run" ] && return 0; sleep 2; done
  echo "run_compare.sh: $ge_run not found (build ge-run first)" >&2
  exit 2
}
wait_for_ge_run

# --- ONNX Runtime (a measuring instrument, installed on demand; never a dependency of GE) ---
ort_module="$ORT_HOME/node_modules/onnxruntime-node"
if [ ! -f "$ort_module/package.json" ]; then
  if ! command -v node >/dev/null || ! command -v npm >/dev/null; then
    echo "skipped: node/npm not found, cannot install ONNX Runtime"
    exit 0
  fi
  echo "installing onnxruntime-node@1.30.0 into $ORT_HOME ..."
  if ! (mkdir -p "$ORT_HOME" && cd "$ORT_HOME" && { [ -f package.json ] || npm init -y >/dev/null; } &&
        ONNXRUNTIME_NODE_INSTALL=skip npm install --no-audit --no-fund onnxruntime-node@1.30.0 >/dev/null); then
    echo "skipped: npm install onnxruntime-node@1.30.0 into $ORT_HOME failed"
    exit 0
  fi
fi
if ! node -e "require('$ort_module')" 2>/dev/null; then
  echo "skipped: onnxruntime-node in $ORT_HOME does not load"
  exit 0
fi
ort_bench="$here/ort/bench.js"

# --- models and reference data ---
declare -A generator=(
  [resnet50]="$root/bench/memory/make_resnet50.py"
  [mobilenetv2]="$root/bench/memory/make_mobilenet_v2.py"
  [encoder]="$here/make_encoder.py"
  [branches]="$here/make_branches.py"
  [detector]="$here/make_detector.py"
)
for m in "${model_list[@]}"; do
  [ -n "${generator[$m]+x}" ] || { echo "run_compare.sh: unknown model '$m' (known: ${!generator[*]})" >&2; exit 2; }
done
mkdir -p "$work" || exit 2
log="$work/logs"
mkdir -p "$log"
for m in "${model_list[@]}"; do
  model="$work/$m.onnx"
  gen="${generator[$m]}"
  if [ ! -f "$model" ] || [ "$gen" -nt "$model" ] || [ "$here/compare_builder.py" -nt "$model" ] ||
     [ "$root/bench/memory/onnx_builder.py" -nt "$model" ]; then
    echo "generating $m.onnx"
    "$python" "$gen" "$model" >/dev/null || { echo "run_compare.sh: generating $m failed" >&2; exit 1; }
  fi
  case="$work/$m"
  if [ ! -f "$case/output_0.pb" ] || [ "$model" -nt "$case/output_0.pb" ]; then
    rm -rf "$case"
    node "$ort_bench" "$model" --dump "$case/" --threads 1 --runs 1 --warmup 0 >/dev/null ||
      { echo "run_compare.sh: ONNX Runtime could not run $m.onnx" >&2; exit 1; }
  fi
done

# --- GE's thread count: ge-run --threads N. A ge-run without that option (it is new) runs
# at its default instead, confined to the first N CPUs with taskset where there is one. ---
ge_threads_flag=yes
ncpu=$(nproc 2>/dev/null || echo 1)
run_ge() {  # run_ge THREADS LOG ARGS...: runs ge-run, output into LOG; returns its exit status
  local rc
  run_ge_once "$@"
  rc=$?
  if [ $rc -eq 126 ] || [ $rc -eq 127 ]; then  # ge-run replaced by a rebuild while starting: once more
    sleep 5
    run_ge_once "$@"
    rc=$?
  fi
  return $rc
}
run_ge_once() {
  local t="$1" out="$2" rc
  shift 2
  wait_for_ge_run
  if [ "$ge_threads_flag" = yes ]; then
    "$ge_run" "$@" --threads "$t" >"$out" 2>&1
    rc=$?
    grep -q "unknown option '--threads'" "$out" || return $rc
    ge_threads_flag=no
  fi
  if command -v taskset >/dev/null && [ "$t" -le "$ncpu" ]; then
    taskset -c "0-$((t - 1))" "$ge_run" "$@" >"$out" 2>&1
  else
    "$ge_run" "$@" >"$out" 2>&1
  fi
}

declare -A ge_ms ort_ms agree
failed=0
for m in "${model_list[@]}"; do
  model="$work/$m.onnx"
  case="$work/$m"
  inputs=()
  for f in "$case"/input_*.pb; do inputs+=(--input "$f"); done

  # ORT: one session per thread count, median over --runs after 3 warm-up runs.
  if ! node "$ort_bench" "$model" --threads "$threads" --runs "$runs" >"$log/$m.ort.txt" 2>&1; then
    echo "run_compare.sh: ONNX Runtime failed on $m.onnx:" >&2; tail -5 "$log/$m.ort.txt" >&2; exit 1
  fi
  for t in "${thread_list[@]}"; do
    ort_ms[$m,$t]=$(sed -n "s/.*threads=${t}[[:space:]]median=\([0-9.]*\)ms.*/\1/p" "$log/$m.ort.txt" | head -1)
  done

  for t in "${thread_list[@]}"; do
    out="$log/$m.ge.t$t.txt"
    run_ge "$t" "$out" "$model" "${inputs[@]}" -O3 --repeat "$runs" --expected-dir "$case" --rtol 1e-3 --atol 1e-3
    rc=$?
    ge_ms[$m,$t]=$(sed -n 's/^latency over [0-9]* runs: median \([0-9.]*\) ms.*/\1/p' "$out")
    if [ $rc -eq 0 ] && grep -q ": OK, max abs error" "$out" && ! grep -q "MISMATCH" "$out"; then
      agree[$m,$t]=yes
    elif grep -q "MISMATCH" "$out"; then
      agree[$m,$t]=no
      failed=1
      echo "GE outputs differ from ORT's: $m, threads $t (log $out):" >&2
      grep "MISMATCH" "$out" | head -3 >&2
    else
      agree[$m,$t]="error(rc=$rc)"
      failed=1
      echo "ge-run failed: $m, threads $t, exit status $rc (log $out):" >&2
      tail -5 "$out" >&2
    fi
  done
done

# --- report ---
note=""
[ "$ge_threads_flag" = no ] && note="*"
echo
printf "%-12s %7s %13s %14s %8s %14s\n" model threads "GE median ms" "ORT median ms" GE/ORT "outputs agree"
for m in "${model_list[@]}"; do
  for t in "${thread_list[@]}"; do
    g="${ge_ms[$m,$t]:-}"; o="${ort_ms[$m,$t]:-}"
    ratio=$(awk -v g="$g" -v o="$o" 'BEGIN { if (g != "" && o > 0) printf "%.2f", g / o; else print "-" }')
    printf "%-12s %7s %13s %14s %8s %14s\n" "$m" "$t$note" "${g:--}" "${o:--}" "$ratio" "${agree[$m,$t]}"
  done
done
if [ "$ge_threads_flag" = no ]; then
  if command -v taskset >/dev/null; then
    echo "* this ge-run has no --threads option: GE ran at its default thread count, pinned to the first N CPUs (taskset)"
  else
    echo "* this ge-run has no --threads option: GE ran at its default thread count in every row"
  fi
fi

has1=no; has2=no
for t in "${thread_list[@]}"; do [ "$t" = 1 ] && has1=yes; [ "$t" = 2 ] && has2=yes; done
if [ $has1 = yes ] && [ $has2 = yes ]; then
  echo
  echo "2-thread speedup (1-thread median / 2-thread median):"
  printf "%-12s %8s %8s\n" model GE ORT
  for m in "${model_list[@]}"; do
    awk -v m="$m" -v g1="${ge_ms[$m,1]:-}" -v g2="${ge_ms[$m,2]:-}" -v o1="${ort_ms[$m,1]:-}" -v o2="${ort_ms[$m,2]:-}" '
      function r(a, b) { return (a != "" && b > 0) ? sprintf("%.2fx", a / b) : "-" }
      BEGIN { printf "%-12s %8s %8s\n", m, r(g1, g2), r(o1, o2) }'
  done
fi
echo
echo "targets (GE/ORT, same thread count): resnet50 <= 0.6, mobilenetv2 <= 0.8, encoder <= 0.9, detector <= 0.8, branches <= 0.8"
echo "models, reference data and logs: $work"
exit $failed
