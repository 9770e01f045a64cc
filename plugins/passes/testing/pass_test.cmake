# ge_add_pass_test(<name> SOURCES ... [LIBRARIES ...]): a gtest executable for a pass
# plugin. It loads the build's plugin registry (see plugin_test_env.h), so it depends on
# every plugin it may load.
include_guard(GLOBAL)

function(ge_add_pass_test name)
  cmake_parse_arguments(ARG "" "" "SOURCES;LIBRARIES" ${ARGN})
  set(GE_PASS_TEST_PLUGINS
    ge_ops_onnx ge_ops_ge_fused ge_backend_cpu
    ge_pass_dce ge_pass_noop_elimination ge_pass_half_widening ge_pass_constant_folding ge_pass_cse ge_pass_fusion
    ge_pass_layout_assignment ge_pass_autofusion)
  ge_add_test(${name} SOURCES ${ARG_SOURCES} LIBRARIES ge_core ${ARG_LIBRARIES})
  if(TARGET ${name})
    target_include_directories(${name} PRIVATE ${CMAKE_CURRENT_FUNCTION_LIST_DIR})
    add_dependencies(${name} ${GE_PASS_TEST_PLUGINS})
  endif()
endfunction()
