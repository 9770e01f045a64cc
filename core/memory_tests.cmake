# Memory planning tests (core/src/memory_plan.cc); included from core/CMakeLists.txt.
ge_add_test(ge_core_memory_plan_test SOURCES ${CMAKE_CURRENT_LIST_DIR}/src/memory_plan_test.cc LIBRARIES ge_core)
