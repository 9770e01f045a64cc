#!/usr/bin/env bash
# Large models (issue 15 item 4): a model whose external weights exceed 2 GB loads and runs,
# and its weights are resident once per process (read at load into private memory, not
# mapped: issue 36 item 3; a weight oneDNN prepacks is resident twice, source and copy).
#
#   bash bench/large_model/run_large_model.sh [--gib 2.2] [--dir /tmp/ge-large] [--ge build/release/bin/ge-run]
#
# Prints per model the weights file size, ge-run's peak RSS (/usr/bin/time -v) and the
# wall time of load + one run. Needs about 2 x --gib GiB of disk under --dir.
set -euo pipefail
cd "$(dirname "$0")/../.."
gib=2.2
dir=/tmp/ge-large
ge=build/release/bin/ge-run
while [[ $# -gt 0 ]]; do
  case "$1" in
    --gib) gib="$2"; shift 2 ;;
    --dir) dir="$2"; shift 2 ;;
    --ge) ge="$2"; shift 2 ;;
    *) echo "unknown argument: $1" >&2; exit 2 ;;
  esac
done
[[ -x "$ge" ]] || { echo "no ge-run at $ge (build first)" >&2; exit 2; }
if [[ ! -f "$dir/layers/model.onnx" ]]; then
  /usr/bin/python3 bench/large_model/make_large_model.py "$dir" --gib "$gib"
fi
printf '%-8s %12s %14s %10s\n' model weights_MiB peak_RSS_MiB seconds
for model in gather matvec layers; do
  folder="$dir/$model"
  weights=$(( $(stat -c %s "$folder/weights.bin") >> 20 ))
  log=$(mktemp)
  start=$(date +%s.%N)
  /usr/bin/time -v "$ge" "$folder/model.onnx" --input "$folder/input_0.pb" --threads 1 >/dev/null 2>"$log" || {
    cat "$log" >&2; exit 1; }
  end=$(date +%s.%N)
  rss=$(( $(awk -F: '/Maximum resident set size/ {gsub(/ /, "", $2); print $2}' "$log") >> 10 ))
  printf '%-8s %12d %14d %10.2f\n' "$model" "$weights" "$rss" "$(echo "$end - $start" | bc)"
  rm -f "$log"
done
