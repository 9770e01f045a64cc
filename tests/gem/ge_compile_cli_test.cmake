# ge-compile's command line: compile, --info, and its error messages.
# Variables: GE_COMPILE, MODEL, WORK_DIR.
file(MAKE_DIRECTORY ${WORK_DIR})

function(expect_run expected_rc)
  cmake_parse_arguments(ARG "" "" "ARGS;CONTAINS;LACKS" ${ARGN})
  execute_process(COMMAND ${GE_COMPILE} ${ARG_ARGS} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if(NOT rc EQUAL expected_rc)
    message(FATAL_ERROR "ge-compile ${ARG_ARGS}: exit ${rc}, expected ${expected_rc}\n${out}\n${err}")
  endif()
  foreach(fragment IN LISTS ARG_CONTAINS)
    string(FIND "${out}${err}" "${fragment}" at)
    if(at EQUAL -1)
      message(FATAL_ERROR "ge-compile ${ARG_ARGS}: output lacks '${fragment}':\n${out}\n${err}")
    endif()
  endforeach()
  foreach(fragment IN LISTS ARG_LACKS)
    string(FIND "${out}${err}" "${fragment}" at)
    if(NOT at EQUAL -1)
      message(FATAL_ERROR "ge-compile ${ARG_ARGS}: output has '${fragment}':\n${out}\n${err}")
    endif()
  endforeach()
endfunction()

set(gem ${WORK_DIR}/small_cnn.gem)
file(REMOVE ${gem})
expect_run(0 ARGS --model ${MODEL} --output ${gem} -O2 CONTAINS "compiled '${MODEL}' for cpu -O2 into '${gem}'")
expect_run(0 ARGS --info ${gem}
  CONTAINS "format version: 5" "backend: cpu (-O2)" "precision: fp32\n" "execution: task sink, 1 stream, 0 events, "
           "memory: feature map " "lower bound " "source model: small_cnn.onnx" "inputs:\n  input : float32[1,3,16,16]"
           "outputs:\n" "op histogram:\n" "required plugins:\n" "(backend)" "(op_library)")
# MaxUnpool accumulates into a zeroed output: the file lists its atomic-clean group.
set(unpool_model /usr/share/libonnx-testdata/data/node/test_maxunpool_export_without_output_shape/model.onnx)
if(EXISTS ${unpool_model})
  expect_run(0 ARGS --model ${unpool_model} --output ${WORK_DIR}/unpool.gem)
  expect_run(0 ARGS --info ${WORK_DIR}/unpool.gem CONTAINS "atomic clean: 1 group, one memset each per run: [0, 512) 1 block on stream 0")
endif()
expect_run(0 ARGS --model ${MODEL} --output ${WORK_DIR}/fixed.gem --input-shape "input:1,3,16,16" -O0)
expect_run(0 ARGS --info ${WORK_DIR}/fixed.gem CONTAINS "input : float32[1,3,16,16]" "(-O0)")
expect_run(1 ARGS --model ${MODEL} --output ${WORK_DIR}/x.gem --input-shape "input:1,3,8,8" CONTAINS
  "--input-shape: input 'input' dim 2 is 16 in the model, not 8")
expect_run(0 ARGS --verify ${gem} CONTAINS "loaded '${gem}' for cpu: ")
# Seed 001: the offline compiler needs no device. Compiling for npu_sim creates no
# simulated device (its creation is logged at -v); loading the file does.
expect_run(0 ARGS --model ${MODEL} --output ${WORK_DIR}/npu_sim.gem --backend npu_sim -v
  CONTAINS "compiled '${MODEL}' for npu_sim -O2" "execution plans: 1 stream(s)" LACKS "simulated device created")
expect_run(0 ARGS --verify ${WORK_DIR}/npu_sim.gem --backend npu_sim -v
  CONTAINS "npu_sim: simulated device created" "loaded '${WORK_DIR}/npu_sim.gem' for npu_sim: ")
expect_run(1 ARGS --verify ${gem} --backend npu_sim CONTAINS "was compiled for backend 'cpu', not 'npu_sim'")
# The memory assigner and the stream count reach the stored plans.
expect_run(0 ARGS --model ${MODEL} --output ${WORK_DIR}/naive.gem --memory-assigner naive
  CONTAINS "execution plans: 1 stream(s), 0 event(s)" "(memory plan by naive)")
expect_run(0 ARGS --info ${WORK_DIR}/naive.gem CONTAINS "(assigner naive;")
expect_run(0 ARGS --verify ${WORK_DIR}/naive.gem CONTAINS "loaded '${WORK_DIR}/naive.gem' for cpu: ")
expect_run(1 ARGS --model ${MODEL} --output ${WORK_DIR}/x.gem --memory-assigner nosuch CONTAINS
  "unknown memory assigner 'nosuch'")
# small_cnn is one chain: --streams 4 still needs one stream (and keeps the memory plan).
expect_run(0 ARGS --model ${MODEL} --output ${WORK_DIR}/streams.gem --streams 4 CONTAINS "execution plans: 1 stream(s)")
expect_run(1 ARGS --model ${MODEL} --output ${WORK_DIR}/x.gem --streams 0 CONTAINS "--streams expects an integer in [1, 64], got '0'")
# Intra-op threads: a model compiled for 2 threads loads with 1 (kernels need no more
# workspace than planned).
expect_run(0 ARGS --model ${MODEL} --output ${WORK_DIR}/threads.gem --threads 2 -O3)
expect_run(0 ARGS --verify ${WORK_DIR}/threads.gem --threads 1 CONTAINS "loaded '${WORK_DIR}/threads.gem' for cpu: ")
expect_run(1 ARGS --model ${MODEL} --output ${WORK_DIR}/x.gem --threads 0 CONTAINS "--threads expects an integer in [1, 1024], got '0'")
expect_run(1 ARGS --info ${MODEL} CONTAINS "is not a GE model file (wrong magic)")
expect_run(1 ARGS --model ${MODEL} CONTAINS "--output (or --export-onnx) is required")
expect_run(1 ARGS --model ${MODEL} --output ${WORK_DIR}/x.gem --input-shape "nosuch:1" CONTAINS
  "--input-shape: the model has no runtime input 'nosuch'")
expect_run(1 ARGS --model ${MODEL} --output ${WORK_DIR}/x.gem -O7 CONTAINS "-O expects an integer in [0, 3], got '7'")
expect_run(1 ARGS --info ${WORK_DIR}/does_not_exist.gem CONTAINS "cannot read model file")
# --precision is recorded in the .gem (fp32 where the CPU has no bfloat16 arithmetic, which
# the compile says) and --verify checks one given against it.
expect_run(1 ARGS --model ${MODEL} --output ${WORK_DIR}/x.gem --precision fp16 CONTAINS
  "--precision expects fp32, bf16 or mixed, got 'fp16'")
execute_process(COMMAND ${GE_COMPILE} --model ${MODEL} --output ${WORK_DIR}/bf16.gem --precision bf16
  RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "ge-compile --precision bf16: exit ${rc}\n${out}\n${err}")
elseif(out MATCHES "\nprecision: bf16\n")
  set(stored bf16)
  set(other fp32)
elseif(out MATCHES "\nprecision: fp32 \\(bf16 asked; backend cpu has none\\)\n" AND
       err MATCHES "backend cpu: this CPU has no bfloat16 arithmetic")
  set(stored fp32)
  set(other bf16)
else()
  message(FATAL_ERROR "ge-compile --precision bf16 says neither bf16 nor why it compiled fp32:\n${out}\n${err}")
endif()
expect_run(0 ARGS --info ${WORK_DIR}/bf16.gem CONTAINS "precision: ${stored}\n")
expect_run(0 ARGS --verify ${WORK_DIR}/bf16.gem --precision ${stored} CONTAINS "loaded '${WORK_DIR}/bf16.gem' for cpu: ")
expect_run(0 ARGS --verify ${WORK_DIR}/bf16.gem CONTAINS "loaded '${WORK_DIR}/bf16.gem' for cpu: ")
expect_run(1 ARGS --verify ${WORK_DIR}/bf16.gem --precision ${other} CONTAINS
  "was compiled with precision ${stored}, not ${other}")
# npu_sim has no bfloat16 arithmetic: it says so once and compiles float32.
expect_run(0 ARGS --model ${MODEL} --output ${WORK_DIR}/npu_bf16.gem --backend npu_sim --precision bf16 CONTAINS
  "backend 'npu_sim' has no bf16 arithmetic: running float32 instead of bf16"
  "precision: fp32 (bf16 asked; backend npu_sim has none)")
expect_run(0 ARGS --info ${WORK_DIR}/npu_bf16.gem CONTAINS "precision: fp32\n")
# Dynamic gears need dynamic input dims; small_cnn's are static.
expect_run(1 ARGS --model ${MODEL} --output ${WORK_DIR}/x.gem --input-shape "input=1,3,16,16"
  --input-shape "input=1,3,16,16" CONTAINS "dynamic gears need dynamic dims")
