# The runtime (task sink, stream planning) plus its tests. Included from
# core/CMakeLists.txt after ge_core is defined. Its sources are part of ge_core because
# Session runs static-shape graphs through ModelRunner; ge_runtime stays as the name
# that benchmarks and tests link.
set(GE_RUNTIME_DIR ${CMAKE_CURRENT_LIST_DIR}/..)
target_sources(ge_core PRIVATE
  ${GE_RUNTIME_DIR}/src/runtime/stream_plan.cc
  ${GE_RUNTIME_DIR}/src/runtime/model_runner.cc
  ${GE_RUNTIME_DIR}/src/runtime/model_runner_addresses.cc
  ${GE_RUNTIME_DIR}/src/runtime/model_runner_capture.cc
  ${GE_RUNTIME_DIR}/src/runtime/model_runner_execution.cc
  ${GE_RUNTIME_DIR}/src/runtime/model_runner_model_file.cc
  ${GE_RUNTIME_DIR}/src/runtime/model_runner_placement.cc
  ${GE_RUNTIME_DIR}/src/runtime/model_runner_preparation.cc
  ${GE_RUNTIME_DIR}/src/runtime/model_runner_tasks.cc
  ${GE_RUNTIME_DIR}/src/runtime/model_runner_weights.cc
  ${GE_RUNTIME_DIR}/src/executor/runtime_input_binding.cc
  ${GE_RUNTIME_DIR}/src/executor/output_binding.cc)
add_library(ge_runtime INTERFACE)
add_library(ge::runtime ALIAS ge_runtime)
target_link_libraries(ge_runtime INTERFACE ge_core)

ge_add_test(ge_runtime_stream_plan_test
  SOURCES ${GE_RUNTIME_DIR}/src/runtime/stream_plan_test.cc
  LIBRARIES ge_runtime)
# Loads the cpu backend, the ONNX op library and parser through the built registry.
ge_add_test(ge_runtime_model_runner_test
  SOURCES ${GE_RUNTIME_DIR}/src/runtime/model_runner_test.cc
  LIBRARIES ge_runtime)
if(TARGET ge_runtime_model_runner_test)
  add_dependencies(ge_runtime_model_runner_test ge_backend_cpu ge_ops_onnx ge_parser_onnx ge_backend_npu_sim
    ge_memory_naive ge_memory_greedy_by_size ge_memory_hill_climb)
  set_property(TEST ge_runtime_model_runner_test APPEND PROPERTY LABELS threads)  # streams on worker threads
endif()
