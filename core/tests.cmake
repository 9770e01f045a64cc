# Unit tests of the text IR, DOT export and verifier; included from core/CMakeLists.txt.
ge_add_test(ge_core_graph_text_test SOURCES ${CMAKE_CURRENT_LIST_DIR}/src/ir/graph_text_test.cc LIBRARIES ge_core)
ge_add_test(ge_core_graph_dot_test SOURCES ${CMAKE_CURRENT_LIST_DIR}/src/ir/graph_dot_test.cc LIBRARIES ge_core)
ge_add_test(ge_core_verifier_test SOURCES ${CMAKE_CURRENT_LIST_DIR}/src/ir/verifier_test.cc LIBRARIES ge_core)
