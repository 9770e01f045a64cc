#!/bin/sh
# Runs every case under DATA_DIR/node through ONNX Runtime (../shared/tools/ort/run.js) and
# compares ORT's outputs with the generated output_K.pb (rtol 1e-4, atol 1e-5; exact for
# integers/bools; dtype and shape must match). Prints one line per disagreement or ORT
# failure and a summary.
#   sh check_against_ort.sh [DATA_DIR]      (default /tmp/ge-newer-cases)
# Env: RUN_JS (default /work/shared/tools/ort/run.js), PYTHON (default /usr/bin/python3).
DATA_DIR=${1:-/tmp/ge-newer-cases}
RUN_JS=${RUN_JS:-/work/shared/tools/ort/run.js}
PYTHON=${PYTHON:-/usr/bin/python3}
CASES_PY_DIR=$(cd "$(dirname "$0")" && pwd); export CASES_PY_DIR
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
ok=0; bad=0; noort=0
for d in "$DATA_DIR"/node/*/; do
  name=$(basename "$d")
  ds="$d/test_data_set_0"
  out="$TMP/$name"; mkdir -p "$out"
  ins=$(ls "$ds"/input_*.pb 2>/dev/null | sort -V)
  # shellcheck disable=SC2086
  if ! err=$(node "$RUN_JS" "$d/model.onnx" "$out" $ins 2>&1); then
    echo "ORT-FAIL  $name: $(echo "$err" | head -n 1)"
    noort=$((noort + 1)); continue
  fi
  if msg=$("$PYTHON" - "$ds" "$out" <<'EOF'
import sys, glob, os
import numpy as np
from onnx import TensorProto, numpy_helper
sys.path.insert(0, os.environ["CASES_PY_DIR"])
import small_types
exp_dir, got_dir = sys.argv[1], sys.argv[2]
def load(p):
    t = TensorProto()
    with open(p, "rb") as f:
        t.ParseFromString(f.read())
    if t.data_type >= small_types.F8E4M3FN:  # float8/int4/float4: compare decoded values
        return small_types.from_proto(t).values()
    return numpy_helper.to_array(t)
msgs = []
for e in sorted(glob.glob(os.path.join(exp_dir, "output_*.pb"))):
    k = os.path.basename(e)
    g = os.path.join(got_dir, k)
    if not os.path.exists(g):
        msgs.append(f"{k}: missing from ORT"); continue
    a, b = load(e), load(g)
    if a.dtype != b.dtype or a.shape != b.shape:
        msgs.append(f"{k}: expected {a.dtype}{list(a.shape)}, ORT {b.dtype}{list(b.shape)}"); continue
    if a.dtype.kind in "fc":
        a64, b64 = a.astype(np.float64), b.astype(np.float64)
        close = np.isclose(b64, a64, rtol=1e-4, atol=1e-5, equal_nan=True)
    else:
        close = a == b
    if not close.all():
        i = np.argwhere(~close)[0]
        diff = np.max(np.abs(a.astype(np.float64) - b.astype(np.float64))) if a.dtype.kind in "fciu" else 1
        msgs.append(f"{k}: {int((~close).sum())}/{a.size} differ, max abs diff {diff:.3g}; "
                    f"first at {tuple(int(x) for x in i)}: expected {a[tuple(i)]}, ORT {b[tuple(i)]}")
print("; ".join(msgs))
sys.exit(1 if msgs else 0)
EOF
  ); then ok=$((ok + 1)); else echo "DIFF      $name: $msg"; bad=$((bad + 1)); fi
done
echo "ORT check: $ok agree, $bad disagree, $noort ORT could not run"
