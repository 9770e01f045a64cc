#!/usr/bin/env bash
# Sets everything up, builds GE and runs the whole test suite through ctest.
# Usage: scripts/test.sh [preset]   (release by default; `asan` for ASan+UBSan)
set -euo pipefail
cd "$(dirname "$0")/.."
preset="${1:-release}"
bash scripts/setup.sh
bash scripts/build.sh "$preset"
ctest --preset "$preset" -j2
