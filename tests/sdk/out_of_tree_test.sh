#!/usr/bin/env bash
# Installs GE into a temporary prefix, builds samples/memory_assigner from a copy outside
# GE's tree against that install only (find_package(GE 0.2)), and runs the sample CNN with
# the installed ge-run and the sample plugin. Also checks that the install holds no
# private header and that a newer GE version is refused by find_package.
#   out_of_tree_test.sh BUILD_DIR SOURCE_DIR
set -euo pipefail
build=$1
source=$2
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }

cmake --install "$build" --prefix "$work/prefix" >/dev/null
prefix=$work/prefix
[[ -x $prefix/bin/ge-run && -f $prefix/bin/ge_plugins.toml && -f $prefix/lib/cmake/GE/GEConfig.cmake ]] ||
  fail "install tree is incomplete: $(ls -R "$prefix" | head -20)"
[[ -f $prefix/include/ge/graph.h && -f $prefix/include/ge/plugin_api/plugin.h ]] || fail "public headers missing"
if find "$prefix/include" -name '*_test_util.h' -o -name '*.cc' | grep -q .; then fail "private files installed"; fi

# The installed tools run from the prefix alone: built-in plugins through the installed registry.
"$prefix/bin/ge-run" --list-plugins > "$work/builtin.txt" 2>&1 || { cat "$work/builtin.txt"; fail "installed ge-run"; }
grep -q "greedy_by_size" "$work/builtin.txt" || fail "installed registry lacks the built-in plugins"

cp -r "$source/samples/memory_assigner" "$work/sample-src"
cmake -S "$work/sample-src" -B "$work/sample" -G Ninja -DCMAKE_BUILD_TYPE=Release \
  -DCMAKE_PREFIX_PATH="$prefix" > "$work/configure.txt" 2>&1 || { cat "$work/configure.txt"; fail "configure"; }
cmake --build "$work/sample" > "$work/build.txt" 2>&1 || { cat "$work/build.txt"; fail "build"; }
if grep -q -- "-I$source" "$work/sample/build.ninja"; then fail "the sample's build reads GE's source tree"; fi

model=$source/samples/models/small_cnn
"$prefix/bin/ge-run" --plugins "$work/sample/sample_plugins.toml" "$model.onnx" --input "$model/input_0.pb" \
  --expected-dir "$model" --memory-assigner first_fit -v > "$work/run.txt" 2>&1 || { cat "$work/run.txt"; fail "run"; }
grep -q "memory plan: assigner 'first_fit'" "$work/run.txt" || { cat "$work/run.txt"; fail "first_fit was not used"; }

# A project asking for a newer GE than installed is refused at configure time.
mkdir -p "$work/newer"
cat > "$work/newer/CMakeLists.txt" <<'CMAKE'
cmake_minimum_required(VERSION 3.25)
project(needs_newer LANGUAGES CXX)
find_package(GE 0.3 REQUIRED)
CMAKE
if cmake -S "$work/newer" -B "$work/newer/build" -DCMAKE_PREFIX_PATH="$prefix" > "$work/newer.txt" 2>&1; then
  fail "find_package(GE 0.3) accepted GE $(grep -o 'VERSION [0-9.]*' "$build/GEConfigVersion.cmake" | head -1)"
fi
grep -q "0.3" "$work/newer.txt" || { cat "$work/newer.txt"; fail "no version message"; }
echo "out-of-tree sample: built against $prefix and ran with first_fit"
