#!/usr/bin/env bash
# Sets up what ge-serve needs (scripts/setup.sh --serve), builds it, and serves the bundled
# sample CNN as model 'small_cnn' on 127.0.0.1:8000 (REST) and :8001 (gRPC) until Ctrl-C.
# Query it from another shell:
#   curl -s -H 'Content-Type: application/json' localhost:8000/v2/models/small_cnn/infer \
#        -d @samples/models/small_cnn/infer_request.json
# Arguments after the script's name go to ge-serve (e.g. --port 9000).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh --serve
cmake --preset release -DGE_BUILD_TESTS=OFF >/dev/null
cmake --build --preset release --target ge_products ge-serve
repository=build/release/sample_repository
mkdir -p "$repository/small_cnn/1"
cp samples/models/small_cnn.onnx "$repository/small_cnn/1/model.onnx"
exec build/release/bin/ge-serve "$repository" "$@"
