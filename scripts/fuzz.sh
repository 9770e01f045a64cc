#!/usr/bin/env bash
# Builds GE's libFuzzer targets in a clang tree (the default build uses GCC, which has no
# libFuzzer) and runs each for a bounded time through ctest.
#   scripts/fuzz.sh [SECONDS]       default 60 s per target; build dir: build-fuzz
#   scripts/fuzz.sh --long          one hour per target (a soak of the fuzzers, not in ctest)
# Environment: GE_FUZZ_BUILD_DIR (default build-fuzz), JOBS (default 1).
# The whole tree is built with -fsanitize=fuzzer-no-link,address so the core and the ONNX
# parser plugin give coverage feedback; a crash leaves its reproducer in
# build-fuzz/tests/fuzz/corpus_*/ -- fix the bug, then check it into tests/fuzz/crashes/<target>/.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
seconds="${1:-60}"
[ "$seconds" = "--long" ] && seconds=3600
build="${GE_FUZZ_BUILD_DIR:-$root/build-fuzz}"
jobs="${JOBS:-1}"
flags="-fsanitize=fuzzer-no-link,address -fno-omit-frame-pointer"
cmake -S "$root" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  -DCMAKE_C_COMPILER=clang -DCMAKE_CXX_COMPILER=clang++ \
  -DCMAKE_CXX_FLAGS="$flags" -DCMAKE_SHARED_LINKER_FLAGS="-fsanitize=address" \
  -DCMAKE_MODULE_LINKER_FLAGS="-fsanitize=address" -DCMAKE_EXE_LINKER_FLAGS="-fsanitize=address" \
  -DGE_WARNINGS_AS_ERRORS=OFF -DGE_FUZZ_SECONDS="$seconds"
cmake --build "$build" --target ge_fuzz_model_file ge_fuzz_onnx_parser ge_fuzz_tensor_file ge_fuzz_text_ir ge_fuzz_autofuse_cache ge_fuzz_registry \
  ge_parser_onnx -j "$jobs"
# Plugins use ASan's runtime from the executable; leaks in one-off plugin globals are not bugs.
export ASAN_OPTIONS="${ASAN_OPTIONS:-detect_leaks=0}"
ctest --test-dir "$build" -R '^ge_fuzz_' --output-on-failure
