# Stream capture (ge/runtime/stream_capture.h) plus its test. Included from
# core/CMakeLists.txt after runtime.cmake. ge_runtime is an INTERFACE library over
# ge_core, so, like the other runtime sources, the source is compiled into ge_core.
target_sources(ge_core PRIVATE ${CMAKE_CURRENT_LIST_DIR}/../src/runtime/stream_capture.cc)

ge_add_test(ge_runtime_capture_test
  SOURCES ${CMAKE_CURRENT_LIST_DIR}/../src/runtime/stream_capture_test.cc
  LIBRARIES ge_runtime ge_testing Threads::Threads)
if(TARGET ge_runtime_capture_test)
  # NpuSimQueueDepthOptionSetsTheCascadeSize loads the npu_sim plugin.
  add_dependencies(ge_runtime_capture_test ge_backend_npu_sim)
endif()
