#!/usr/bin/env bash
# Sets everything up, builds GE's tools and plugins (not the test suite: scripts/test.sh
# builds that) and runs ge-run on the bundled sample CNN, checking its outputs against
# expected outputs computed independently with numpy.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh --tools
# Without the test suite (no gtest needed); scripts/test.sh's preset turns it back on.
cmake --preset release -DGE_BUILD_TESTS=OFF >/dev/null
cmake --build --preset release --target ge_products
echo
echo "== plugins =="
build/release/bin/ge-run --list-plugins
echo
echo "== ge-run samples/models/small_cnn.onnx =="
build/release/bin/ge-run samples/models/small_cnn.onnx \
  --input samples/models/small_cnn/input_0.pb \
  --expected-dir samples/models/small_cnn --repeat 20 -v
