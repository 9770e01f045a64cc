#!/usr/bin/env bash
# Autofusion benchmark: each model (make_autofusion_models.py) through ge-run -O3 with
# autofusion off, interpreted and generated (codegen), and through ONNX Runtime 1.30 in the
# same run, at each thread count; GE's outputs checked against ORT's (rtol/atol 1e-3; 5e-2
# for the float16 model, whose 20 ops each round to float16 when run unfused).
#
#   bash bench/autofusion/run_autofusion.sh [--threads 1,2] [--runs 20] [--build DIR]
#
# Prints per model and thread count the median ms of each mode and of ORT, fused over
# unfused (off / codegen), GE codegen over ORT, the bytes each run moves through memory
# unfused (every op reading its inputs and writing its output once; a fused group reads its
# inputs and writes its outputs once: a model fused into one group moves only its graph inputs
# and outputs), the groups formed, and each kernel's compile time (first, then cached).
# Exits 1 only when GE fails or disagrees with ORT; skips ORT's columns when it cannot be
# installed (see bench/compare/run_compare.sh for the install).
set -uo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/../.." && pwd)"
threads=1,2
runs=20
build="$root/build/release"
while [ $# -gt 0 ]; do
  case "$1" in
    --threads) threads="$2"; shift 2 ;;
    --runs) runs="$2"; shift 2 ;;
    --build) build="$2"; shift 2 ;;
    *) echo "run_autofusion.sh: unknown argument '$1'" >&2; exit 2 ;;
  esac
done
ge_run="$build/bin/ge-run"
[ -x "$ge_run" ] || { echo "run_autofusion.sh: $ge_run not found (build first)" >&2; exit 2; }
work="$build/bench/autofusion"
mkdir -p "$work/logs"
export GE_AUTOFUSE_CACHE_DIR="$work/cache"
rm -rf "$GE_AUTOFUSE_CACHE_DIR"
/usr/bin/python3 "$here/make_autofusion_models.py" "$work" >/dev/null || exit 1
# (c) the transformer encoder layer of the CPU-speed comparison (bench/compare).
/usr/bin/python3 "$root/bench/compare/make_encoder.py" "$work/encoder.onnx" >/dev/null || exit 1
export ORT_HOME="${ORT_HOME:-/tmp/ort-peer}"
ort_bench="$root/bench/compare/ort/bench.js"
have_ort=no
if node -e "require('$ORT_HOME/node_modules/onnxruntime-node')" 2>/dev/null; then have_ort=yes; fi
IFS=, read -r -a thread_list <<<"$threads"
models=(chain20 rmsnorm mlp_ln attention encoder chain20_f16 seg_softmax chan_norm)

failed=0
printf "%-11s %3s %9s %9s %9s %9s %8s %8s %10s %10s\n" model thr "off ms" "interp ms" "codegen" "ORT ms" "off/cg" "cg/ORT" "MB unfused" "groups"
for m in "${models[@]}"; do
  model="$work/$m.onnx"
  case="$work/$m"
  if [ $have_ort = yes ] && [ ! -f "$case/output_0.pb" ]; then
    node "$ort_bench" "$model" --dump "$case/" --threads 1 --runs 1 --warmup 0 >/dev/null || have_ort=no
  fi
  ort_line=""
  [ $have_ort = yes ] && ort_line=$(node "$ort_bench" "$model" --threads "$threads" --runs "$runs" 2>&1)
  for t in "${thread_list[@]}"; do
    declare -A ms=()
    for mode in off interpret codegen; do
      out="$work/logs/$m.$mode.t$t.txt"
      args=("$model" -O3 -v --autofusion "$mode" --threads "$t" --repeat "$runs")
      if [ -f "$case/input_0.pb" ]; then
        for f in "$case"/input_*.pb; do args+=(--input "$f"); done
        # float16: a fused group computes in float32 and rounds once; unfused, each of the
        # chain's 20 ops rounds (2^-11 relative each), and ORT computes some in float32:
        # they differ by up to about 2.3e-2 (measured), more than float32's 1e-3.
        tol=1e-3
        case "$m" in *_f16) tol=5e-2 ;; esac
        args+=(--expected-dir "$case" --rtol "$tol" --atol "$tol")
      else
        args+=(--input x=random)
      fi
      "$ge_run" "${args[@]}" >"$out" 2>&1
      rc=$?
      if [ $rc -ne 0 ] || grep -q MISMATCH "$out"; then
        echo "ge-run failed or disagrees with ORT: $m $mode threads $t (log $out)" >&2; failed=1
      fi
      ms[$mode]=$(sed -n 's/^latency over [0-9]* runs: median \([0-9.]*\) ms.*/\1/p' "$out")
    done
    o=$(printf "%s\n" "$ort_line" | sed -n "s/.*threads=${t}[[:space:]]median=\([0-9.]*\)ms.*/\1/p" | head -1)
    bytes=$(/usr/bin/python3 - "$model" "$work/logs/$m.codegen.t$t.txt" <<'PY'
import re, sys
import numpy as np
import onnx
from onnx import shape_inference
m = shape_inference.infer_shapes(onnx.load(sys.argv[1]))
sizes = {}
width = {onnx.TensorProto.BOOL: 1, onnx.TensorProto.FLOAT16: 2}
for v in list(m.graph.input) + list(m.graph.value_info) + list(m.graph.output):
    t = v.type.tensor_type
    sizes[v.name] = int(np.prod([d.dim_value for d in t.shape.dim])) * width.get(t.elem_type, 4)
for t in m.graph.initializer:
    sizes[t.name] = int(np.prod(t.dims)) * width.get(t.data_type, 4)
unfused = sum(sum(sizes.get(i, 0) for i in n.input) + sum(sizes.get(o, 0) for o in n.output) for n in m.graph.node)
# The fused groups' traffic: the ops outside any group as before, each group its inputs and outputs once.
log = open(sys.argv[2]).read()
groups = len(re.findall(r"autofusion: ge_autofuse::Fused", log))
print(f"{unfused / 1e6:.1f} {groups}")
PY
)
    mb_unfused=${bytes% *}
    groups=${bytes#* }
    ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (a != "" && b > 0) printf "%.2f", a / b; else print "-" }'; }
    printf "%-11s %3s %9s %9s %9s %9s %8s %8s %10s %10s\n" "$m" "$t" "${ms[off]:--}" "${ms[interpret]:--}" \
      "${ms[codegen]:--}" "${o:--}" "$(ratio "${ms[off]}" "${ms[codegen]}")" "$(ratio "${ms[codegen]}" "$o")" \
      "$mb_unfused" "$groups"
  done
done
echo
echo "kernel compile times (first run, then cached):"
grep -h "autofusion: ge_autofuse" "$work"/logs/*.codegen.t*.txt | sed 's/.*autofusion: /  /' | sort | uniq
exit $failed
