#!/usr/bin/env bash
# Installs GE into a temporary prefix, builds samples/memory_assigner and samples/custom_op
# from copies outside GE's tree against that install only (find_package(GE 0.2)), and runs
# their models with the installed ge-run and the sample plugins. Also checks that the install holds no
# private header and that a newer GE version is refused by find_package.
#   out_of_tree_test.sh BUILD_DIR SOURCE_DIR
source "$(dirname "$0")/sdk_test_lib.sh"
[[ -f $prefix/include/ge/graph.h && -f $prefix/include/ge/plugin_api/plugin.h ]] || fail "public headers missing"
if find "$prefix/include" -name '*_test_util.h' -o -name '*.cc' | grep -q .; then fail "private files installed"; fi

# The installed tools run from the prefix alone: built-in plugins through the installed registry.
"$prefix/bin/ge-run" --list-plugins > "$work/builtin.txt" 2>&1 || { cat "$work/builtin.txt"; fail "installed ge-run"; }
grep -q "greedy_by_size" "$work/builtin.txt" || fail "installed registry lacks the built-in plugins"

build_sample memory_assigner
model=$source/samples/models/small_cnn
"$prefix/bin/ge-run" --plugins "$work/memory_assigner/sample_plugins.toml" "$model.onnx" --input "$model/input_0.pb" \
  --expected-dir "$model" --memory-assigner first_fit -v > "$work/run.txt" 2>&1 || { cat "$work/run.txt"; fail "run"; }
grep -q "memory plan: assigner 'first_fit'" "$work/run.txt" || { cat "$work/run.txt"; fail "first_fit was not used"; }

# The custom op: its schema and cpu kernel come from the plugin; the task sink runs the kernel.
build_sample custom_op
model=$source/samples/custom_op/swish_mlp
if "$prefix/bin/ge-run" "$model.onnx" > "$work/no-plugin.txt" 2>&1; then fail "the custom op ran without its plugin"; fi
grep -q "no op library knows ge_sample::Swish" "$work/no-plugin.txt" || { cat "$work/no-plugin.txt"; fail "no precise message"; }
"$prefix/bin/ge-run" --plugins "$work/custom_op/sample_plugins.toml" "$model.onnx" --input "$model/input_0.pb" \
  --expected-dir "$model" -v > "$work/swish.txt" 2>&1 || { cat "$work/swish.txt"; fail "run the custom op"; }
grep -q "memory plan:" "$work/swish.txt" && grep -qE "Swish .* ge_sample.Swish" "$work/swish.txt" ||
  { cat "$work/swish.txt"; fail "the custom op's kernel did not run in the task sink"; }
# A .gem of it records the plugin, and runs only with it.
"$prefix/bin/ge-compile" --model "$model.onnx" --output "$work/swish.gem" --plugins "$work/custom_op/sample_plugins.toml" \
  > "$work/compile.txt" 2>&1 || { cat "$work/compile.txt"; fail "compile the custom op"; }
if "$prefix/bin/ge-run" "$work/swish.gem" > "$work/gem.txt" 2>&1; then fail "the .gem ran without the custom op's plugin"; fi
grep -q "needs plugin 'sample_swish'" "$work/gem.txt" || { cat "$work/gem.txt"; fail "no precise message for the .gem"; }
"$prefix/bin/ge-run" "$work/swish.gem" --plugins "$work/custom_op/sample_plugins.toml" --input "$model/input_0.pb" \
  --expected-dir "$model" > "$work/gem.txt" 2>&1 || { cat "$work/gem.txt"; fail "run the custom op's .gem"; }

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
echo "out-of-tree samples: memory_assigner and custom_op built against $prefix and ran"
