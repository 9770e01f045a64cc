# Memory planning tests: the planner (core/src/memory/memory_plan.cc), its validators
# (memory_plan_validation.cc) and the memory-priority order (memory_priority_order.cc);
# included from core/CMakeLists.txt.
ge_add_test(ge_core_memory_plan_test
            SOURCES ${CMAKE_CURRENT_LIST_DIR}/src/memory/memory_plan_test.cc
                    ${CMAKE_CURRENT_LIST_DIR}/src/memory/memory_plan_validation_test.cc
                    ${CMAKE_CURRENT_LIST_DIR}/src/memory/memory_priority_order_test.cc
                    ${CMAKE_CURRENT_LIST_DIR}/src/memory/first_fit_assigner_test.cc
            LIBRARIES ge_core ge_testing)
# Weight merging (core/src/passes/weight_merging.cc): the plan's weights region, the .gem file,
# the task sink's one-copy upload and shrink, on cpu and npu_sim through the built registry.
ge_add_test(ge_core_weight_merging_test SOURCES ${CMAKE_CURRENT_LIST_DIR}/src/passes/weight_merging_test.cc
            LIBRARIES ge_core ge_testing)
if(TARGET ge_core_weight_merging_test)
  add_dependencies(ge_core_weight_merging_test ge_backend_cpu ge_backend_npu_sim ge_ops_onnx ge_memory_naive
    ge_memory_greedy_by_size ge_memory_hill_climb)
endif()
# Memory reuse order (core/src/memory/memory_reuse_order.cc): multi-stream plans that keep a
# one-stream plan's bytes, checked in random interleavings of the streams.
ge_add_test(ge_core_memory_reuse_order_test SOURCES ${CMAKE_CURRENT_LIST_DIR}/src/memory/memory_reuse_order_test.cc
            LIBRARIES ge_core ge_testing)
