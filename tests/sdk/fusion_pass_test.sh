#!/usr/bin/env bash
# Installs GE into a temporary prefix, builds samples/fusion_pass (a pattern-SDK fusion
# pass, Log(Softmax) -> LogSoftmax) from a copy outside GE's tree against that install
# only, and runs the sample's model with the installed ge-run and the plugin: the pass is
# registered, it fuses both spellings in the model (the dumped graph has LogSoftmax and
# no Softmax or Log) and the outputs match the numpy reference; without the plugin the
# confident row underflows to -inf and the comparison fails.
#   fusion_pass_test.sh BUILD_DIR SOURCE_DIR
source "$(dirname "$0")/sdk_test_lib.sh"
[[ -f $prefix/include/ge/plugin_api/pattern_fusion.h ]] || fail "the pattern SDK's header is not installed"

build_sample fusion_pass
sample=$work/fusion_pass-src
registry=$work/fusion_pass/sample_plugins.toml

"$prefix/bin/ge-run" --plugins "$registry" --list-plugins > "$work/list.txt" 2>&1 || { cat "$work/list.txt"; fail "--list-plugins"; }
grep -q "registers pass fuse_log_softmax" "$work/list.txt" || { cat "$work/list.txt"; fail "fuse_log_softmax is not registered"; }

model=$sample/log_softmax_head
run() { "$prefix/bin/ge-run" "$model.onnx" --input "$model/input_0.pb" --expected-dir "$model" "$@"; }

# With the plugin, at the default -O2: both Log(Softmax) fused (one Softmax built by the
# built-in fuse_softmax first), outputs as the reference.
run --plugins "$registry" --dump-graph "$work/dump" -v > "$work/run.txt" 2>&1 || { cat "$work/run.txt"; fail "run with the plugin"; }
grep -q "fuse_log_softmax: 2 fused, 0 rejected" "$work/run.txt" || { cat "$work/run.txt"; fail "fuse_log_softmax did not fuse twice"; }
grep -q "output 0 'log_probs' vs .*: OK" "$work/run.txt" || { cat "$work/run.txt"; fail "output 0 does not match"; }
grep -q "output 1 'log_probs_decomposed' vs .*: OK" "$work/run.txt" || { cat "$work/run.txt"; fail "output 1 does not match"; }
before=$(ls "$work/dump"/*_fuse_log_softmax_before.ir)
after=$(ls "$work/dump"/*_after.ir | sort | tail -1)  # the graph that was compiled
[[ $(grep -c "= Log(" "$before") == 2 ]] || { cat "$before"; fail "before fuse_log_softmax: expected two Log(Softmax)"; }
[[ $(grep -c "= LogSoftmax(" "$after") == 2 ]] || { cat "$after"; fail "$(basename "$after"): expected two LogSoftmax"; }
if grep -qE "= (Log|Softmax|Exp|Div)\(" "$after"; then cat "$after"; fail "$(basename "$after"): the pattern is left"; fi

# Without the plugin the graph keeps Softmax -> Log, whose confident row is -inf.
if run > "$work/plain.txt" 2>&1; then cat "$work/plain.txt"; fail "the outputs match without the plugin"; fi
grep -q "got -inf" "$work/plain.txt" || { cat "$work/plain.txt"; fail "no -inf without the plugin"; }
echo "fusion pass sample: built against $prefix; fuse_log_softmax fused 2 Log(Softmax), outputs match"
