#!/usr/bin/env bash
# Reduced-precision benchmark: int8 (QDQ and dynamic ConvInteger), float16 and bfloat16
# models in GE (ge-run -O3) against ONNX Runtime 1.30 (CPU) in the same run, on the same
# seeded random inputs, at each thread count. See README.md here.
#
#   bash bench/precision/run_precision.sh [--threads 1,2] [--runs 5] [--build DIR] [--work DIR]
#        [--models qdq_resnet50,unet_dynamic_int8,f16_resnet50,f16_bert_layer,qdq_bert_layer,resnet50,bert_layer]
#        [--prepare]
#
# Prints one row per model, precision and thread count: GE median ms, the reference's median
# ms (ORT; for the bf16/mixed rows GE float32 on the same model), GE/reference, and whether
# the outputs agree by the precision's rule (compare_outputs.py). --prepare only generates
# the models and ORT's reference outputs (slow the first time: run it outside the build
# lock). Exits 1 on a real error only: ge-run failed or crashed, or outputs disagree; a slow
# ratio is never an error. When ORT cannot be installed (no npm, no registry) it prints
# 'skipped: ...' and exits 0. 2: bad arguments or no ge-run.
#
# Environment: ORT_HOME (where onnxruntime-node is or gets installed; default /tmp/ort-peer),
# PYTHON (a python3 with torch, torchvision, onnx and numpy; default /usr/bin/python3).
set -uo pipefail

here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/../.." && pwd)"
all_models=qdq_resnet50,unet_dynamic_int8,f16_resnet50,f16_bert_layer,qdq_bert_layer,resnet50,bert_layer
threads=1,2
runs=5
models=$all_models
build="$root/build/release"
work=default
prepare=no
usage() { sed -n '2,20p' "$0" | sed 's/^# \{0,1\}//'; }
while [ $# -gt 0 ]; do
  case "$1" in
    --threads) threads="${2:-}"; shift $(($# > 1 ? 2 : 1)) ;;
    --runs) runs="${2:-}"; shift $(($# > 1 ? 2 : 1)) ;;
    --models) models="${2:-}"; shift $(($# > 1 ? 2 : 1)) ;;
    --build) build="${2:-}"; shift $(($# > 1 ? 2 : 1)) ;;
    --work) work="${2:-}"; shift $(($# > 1 ? 2 : 1)) ;;
    --prepare) prepare=yes; shift ;;
    -h|--help) usage; exit 0 ;;
    *) echo "run_precision.sh: unknown argument '$1'" >&2; usage >&2; exit 2 ;;
  esac
done
if [ -z "$build" ] || [ -z "$models" ] || [ -z "$work" ]; then
  echo "run_precision.sh: an option is missing its value" >&2; usage >&2; exit 2
fi
[[ "$runs" =~ ^[1-9][0-9]*$ ]] || { echo "run_precision.sh: --runs expects a positive integer" >&2; exit 2; }
[[ "$threads" =~ ^[1-9][0-9]*(,[1-9][0-9]*)*$ ]] || { echo "run_precision.sh: --threads expects e.g. 1,2" >&2; exit 2; }
build="$(cd "$build" 2>/dev/null && pwd)" || { echo "run_precision.sh: no build folder '$build'" >&2; exit 2; }
[ "$work" = default ] && work="$build/bench/precision"
python="${PYTHON:-/usr/bin/python3}"
export ORT_HOME="${ORT_HOME:-/tmp/ort-peer}"
export PYTHONDONTWRITEBYTECODE=1
IFS=, read -r -a thread_list <<<"$threads"
IFS=, read -r -a model_list <<<"$models"

# Each model: generator and its arguments | output rule (compare_outputs.py) | the float32
# model whose ORT output an f16 model's may also be judged against | extra GE precisions.
declare -A generator=(
  [qdq_resnet50]="make_resnet50.py --variant qdq"
  [f16_resnet50]="make_resnet50.py --variant f16"
  [resnet50]="make_resnet50.py --variant fp32"
  [qdq_bert_layer]="make_bert_layer.py --variant qdq"
  [f16_bert_layer]="make_bert_layer.py --variant f16"
  [bert_layer]="make_bert_layer.py --variant fp32"
  [unet_dynamic_int8]="make_unet.py --variant int8"
)
declare -A rule=([qdq_resnet50]=int8 [unet_dynamic_int8]=int8 [qdq_bert_layer]=int8 [f16_resnet50]=f16
                 [f16_bert_layer]=f16 [resnet50]=fp32 [bert_layer]=fp32)
declare -A float_twin=([f16_resnet50]=resnet50 [f16_bert_layer]=bert_layer)
declare -A top1=([resnet50]=--top1)
for m in "${model_list[@]}"; do
  [ -n "${generator[$m]+x}" ] || { echo "run_precision.sh: unknown model '$m' (known: $all_models)" >&2; exit 2; }
done

ge_run="$build/bin/ge-run"
wait_for_ge_run() {  # ge-run may be rebuilt while this runs: wait a little for it to reappear
  for _ in $(seq 30); do [ -x "$ge_run" ] && return 0; sleep 2; done
  echo "run_precision.sh: $ge_run not found (build ge-run first)" >&2
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
ort_bench="$root/bench/compare/ort/bench.js"

# --- models and ORT's reference data (regenerated when a generator or a helper changes) ---
mkdir -p "$work" || exit 2
work="$(cd "$work" && pwd)"
log="$work/logs"
mkdir -p "$log"
helpers=("$here/precision_models.py" "$root/bench/compare/make_encoder.py" "$root/bench/compare/compare_builder.py"
         "$root/bench/memory/onnx_builder.py")
prepare_model() {  # prepare_model NAME: writes WORK/NAME.onnx and WORK/NAME/{input,output}_K.pb
  local m="$1" model="$work/$1.onnx" case="$work/$1" stale=no gen
  read -r -a gen <<<"${generator[$m]}"
  [ -f "$model" ] || stale=yes
  for f in "$here/${gen[0]}" "${helpers[@]}"; do [ "$f" -nt "$model" ] && stale=yes; done
  if [ $stale = yes ]; then
    echo "generating $m.onnx"
    "$python" "$here/${gen[0]}" "$model" "${gen[@]:1}" >"$log/$m.generate.txt" 2>&1 ||
      { echo "run_precision.sh: generating $m failed:" >&2; tail -5 "$log/$m.generate.txt" >&2; exit 1; }
  fi
  if [ ! -f "$case/output_0.pb" ] || [ "$model" -nt "$case/output_0.pb" ]; then
    rm -rf "$case"
    node "$ort_bench" "$model" --dump "$case/" --threads 1 --runs 1 --warmup 0 >/dev/null 2>"$log/$m.ort-dump.txt" ||
      { echo "run_precision.sh: ONNX Runtime could not run $m.onnx:" >&2; tail -3 "$log/$m.ort-dump.txt" >&2; exit 1; }
  fi
}
declare -A prepared=()
for m in "${model_list[@]}"; do
  for p in "$m" ${float_twin[$m]:-}; do
    [ -n "${prepared[$p]+x}" ] && continue
    prepare_model "$p"
    prepared[$p]=1
  done
done
if [ $prepare = yes ]; then
  echo "models and reference data ready in $work"
  exit 0
fi

# --- GE's precision option (issue 37): rows for it only once ge-run has it ---
precisions=()
if "$ge_run" --help 2>&1 | grep -q -- '--precision'; then
  precisions=(bf16 mixed)
fi

run_ge() {  # run_ge LOG ARGS...: runs ge-run, output into LOG; returns its exit status
  local out="$1" rc
  shift
  wait_for_ge_run
  "$ge_run" "$@" >"$out" 2>&1
  rc=$?
  if [ $rc -eq 126 ] || [ $rc -eq 127 ]; then  # ge-run replaced by a rebuild while starting: once more
    sleep 5
    wait_for_ge_run
    "$ge_run" "$@" >"$out" 2>&1
    rc=$?
  fi
  return $rc
}
median_of() { sed -n 's/^latency over [0-9]* runs: median \([0-9.]*\) ms.*/\1/p' "$1"; }

: >"$log/agreement.txt"
load_start=$(cut -d' ' -f1 /proc/loadavg 2>/dev/null || echo "?")
declare -A ge_ms ref_ms agree
rows=()
failed=0
for m in "${model_list[@]}"; do
  model="$work/$m.onnx"
  case="$work/$m"
  inputs=()
  for f in "$case"/input_*.pb; do inputs+=(--input "$f"); done

  # ORT: one session per thread count, median over --runs after 3 warm-up runs.
  if ! node "$ort_bench" "$model" --threads "$threads" --runs "$runs" >"$log/$m.ort.txt" 2>&1; then
    echo "run_precision.sh: ONNX Runtime failed on $m.onnx:" >&2; tail -5 "$log/$m.ort.txt" >&2; exit 1
  fi
  for t in "${thread_list[@]}"; do
    ref_ms[$m,fp32,$t]=$(sed -n "s/.*threads=${t}[[:space:]]median=\([0-9.]*\)ms.*/\1/p" "$log/$m.ort.txt" | head -1)
  done

  base=fp32
  case "${rule[$m]}" in int8) base=int8 ;; f16) base=f16 ;; esac
  for p in "$base" $([ "${rule[$m]}" = fp32 ] && echo "${precisions[@]}"); do
    key=$p
    [ "$p" = "$base" ] && key=fp32
    for t in "${thread_list[@]}"; do
      rows+=("$m|$p|$t|$key")
      out="$log/$m.$p.t$t.txt"
      got="$work/ge-out/$m.$p.t$t"
      rm -rf "$got"
      mkdir -p "$got"
      extra=()
      [ "$key" != fp32 ] && extra=(--precision "$p")
      run_ge "$out" "$model" "${inputs[@]}" -O3 --repeat "$runs" --threads "$t" --output-dir "$got" "${extra[@]}"
      rc=$?
      ge_ms[$m,$key,$t]=$(median_of "$out")
      if [ "$key" != fp32 ]; then
        ref_ms[$m,$key,$t]="${ge_ms[$m,fp32,$t]:-}"
      fi
      if [ $rc -ne 0 ]; then
        agree[$m,$key,$t]="error(rc=$rc)"
        failed=1
        echo "ge-run failed: $m $p, threads $t, exit status $rc (log $out):" >&2
        grep -v '^\s*$' "$out" | tail -3 >&2
        continue
      fi
      cmp=(--got "$got")
      if [ "$key" = fp32 ]; then
        cmp+=(--rule "${rule[$m]}" --ref "$case" --model "$model")
        [ -n "${float_twin[$m]:-}" ] && cmp+=(--fp32 "$work/${float_twin[$m]}")
      else
        cmp+=(--rule bf16 --ref "$work/ge-out/$m.fp32.t$t" ${top1[$m]:-})
      fi
      verdict=$("$python" "$here/compare_outputs.py" "${cmp[@]}" 2>&1)
      crc=$?
      echo "$m $p threads $t: $verdict" >>"$log/agreement.txt"
      if [ $crc -eq 1 ] && [ "${rule[$m]}" = int8 ]; then
        # ORT's AVX2 u8s8 kernels saturate 16-bit pair sums (its docs: VPMADDUBSW), so on
        # such a CPU ORT itself may be steps from ONNX's result. Judge GE against the
        # unfused float graph too (GE -O0: DequantizeLinear, float32 ops, QuantizeLinear).
        float_graph="$work/ge-out/$m.O0"
        if [ ! -f "$float_graph/output_0.pb" ]; then
          mkdir -p "$float_graph"
          run_ge "$log/$m.O0.txt" "$model" "${inputs[@]}" -O0 --output-dir "$float_graph"
        fi
        if verdict_float=$("$python" "$here/compare_outputs.py" --got "$got" --rule int8 --ref "$float_graph" \
                             --model "$model" 2>&1); then
          crc=0
          agree[$m,$key,$t]="yes*"
          echo "  ORT differs; against the float graph (GE -O0): $verdict_float" >>"$log/agreement.txt"
          continue
        fi
        echo "  against the float graph (GE -O0) too: $verdict_float" >>"$log/agreement.txt"
      fi
      case $crc in
        0) agree[$m,$key,$t]=yes ;;
        1) agree[$m,$key,$t]=no; failed=1; echo "outputs disagree: $m $p, threads $t: $verdict" >&2 ;;
        *) agree[$m,$key,$t]="error"; failed=1; echo "comparing outputs failed: $m $p, threads $t: $verdict" >&2 ;;
      esac
    done
  done
done

# --- report ---
echo
printf "%-18s %-9s %7s %13s %14s %8s %14s\n" model precision threads "GE median ms" "ref median ms" GE/ref "outputs agree"
for r in "${rows[@]}"; do
  IFS='|' read -r m p t key <<<"$r"
  g="${ge_ms[$m,$key,$t]:-}"; o="${ref_ms[$m,$key,$t]:-}"
  ratio=$(awk -v g="$g" -v o="$o" 'BEGIN { if (g != "" && o > 0) printf "%.2f", g / o; else print "-" }')
  printf "%-18s %-9s %7s %13s %14s %8s %14s\n" "$m" "$p" "$t" "${g:--}" "${o:--}" "$ratio" "${agree[$m,$key,$t]:-}"
done
echo
echo "load average (1 min): $load_start at the start, $(cut -d' ' -f1 /proc/loadavg 2>/dev/null || echo "?") at the end, on $(nproc 2>/dev/null || echo "?") CPUs (a load above the CPU count makes the multi-thread rows unreliable)"
echo "ref: ONNX Runtime 1.30 (CPU EP) on the same model and input; for bf16/mixed rows GE float32 (-O3) on the same model."
if [ ${#precisions[@]} -eq 0 ]; then
  echo "this ge-run has no --precision option: no bf16/mixed rows"
fi
echo "agreement rules: compare_outputs.py (int8: within one quantisation step, at most 2% of elements over half a step;"
echo "  f16: within 3e-2 of max |ORT|, or no further from float32 than ORT's float16; bf16: within 2e-2 of max |fp32|,"
echo "  top-1 unchanged); details per row in $log/agreement.txt"
echo "yes*: ORT's int8 outputs differ (its AVX2 u8s8 kernels saturate pair sums), GE's agree with the unfused float"
echo "  graph (GE -O0) by the int8 rule"
echo "targets: int8 and f16 models GE/ORT <= 0.8 at 1 and 2 threads; resnet50 and bert_layer bf16 GE/ref <= 0.59 (>= 1.7x)"
echo "models, reference data and logs: $work"
exit $failed
