# Build-time helpers (issue 16, item 5: the first command must stay quick on 2 cores).
#
# Most translation units here parse ~100k lines of the C++20 standard library and the core
# headers before their own code; on the 121 files of the cpu kernel library alone that is
# a third of their compile time. A precompiled header per target parses them once.
option(GE_PRECOMPILE_HEADERS "Precompile the standard and core headers shared by the larger targets" ON)

# The standard headers most of GE's translation units include (directly or through
# ge/graph.h, ge/plugin_api/kernel.h and ge/status.h).
set(GE_PCH_STANDARD_HEADERS
  <algorithm> <array> <cmath> <cstdint> <cstring> <functional> <limits> <list> <map> <memory>
  <optional> <set> <span> <string> <string_view> <unordered_map> <unordered_set> <utility>
  <variant> <vector>)

# ge_precompile_headers(<target> [HEADERS <extra header>...]): precompiles the standard
# headers above, "ge/graph.h" and the extra headers for <target>. Name an extra header as
# it is included, in brackets so that CMake leaves it alone ([["ge/logging.h"]]), or a
# header of the calling directory by its path. Only worth it for targets with several
# translation units: the precompiled header costs about one parse of its headers. It is
# force-included into every source of the target, so a source that must not see it (one
# built with other macros, say) sets SKIP_PRECOMPILE_HEADERS.
function(ge_precompile_headers target)
  if(NOT GE_PRECOMPILE_HEADERS)
    return()
  endif()
  cmake_parse_arguments(ARG "" "" "HEADERS" ${ARGN})
  target_precompile_headers(${target} PRIVATE ${GE_PCH_STANDARD_HEADERS} [["ge/graph.h"]] ${ARG_HEADERS})
endfunction()

# ge_cold_code(<target-or-sources>...): code that runs while a model is loaded or compiled,
# or in a command-line tool, not per inference (parsers, the text IR, the verifier,
# passes, planners). It is built at -O2 rather than Release's -O3, which compiles it about
# a quarter faster (measured on the text IR's sources and memory_plan.cc); -O3 buys such
# code little, and it runs once per model. Kernels and the per-inference paths (executor,
# model runner, streams) stay at -O3.
#   ge_cold_code(TARGETS <target>...)   every source of the targets
#   ge_cold_code(SOURCES <source>...)   these sources (of targets in the calling directory)
function(ge_cold_code)
  cmake_parse_arguments(ARG "" "" "TARGETS;SOURCES" ${ARGN})
  set(option "$<$<CONFIG:Release>:-O2>")
  foreach(target IN LISTS ARG_TARGETS)
    target_compile_options(${target} PRIVATE ${option})
  endforeach()
  if(ARG_SOURCES)
    set_property(SOURCE ${ARG_SOURCES} APPEND PROPERTY COMPILE_OPTIONS ${option})
  endif()
endfunction()

# ge_unity_build(<target> [GROUP <name> SOURCES <source>...]): compiles the target's
# sources as one translation unit, or only the listed ones (one unit per GROUP name; the
# target's other sources stay separate). Worth it where every source includes a header
# of many inline functions that each translation unit would otherwise compile and emit
# again. Measured with the Release flags and the precompiled headers, CPU seconds for the
# target's sources compiled one by one -> as one unit: ge_cpu_dnnl 107 -> 17 (oneDNN's
# dnnl.hpp), the fusion passes 47 -> 9, ge_backend_cpu 24 -> 8, the cpu kernels' math
# family 87 -> 66; ge_run_lib, ge_ops_onnx_impl, ge_plugin_sdk and ge_onnx_common take
# 16, 19, 10 and 12 CPU s as one unit, about half their per-source time or less.
# The sources must not define clashing names in anonymous namespaces (the core's do, so
# it stays per source). Option GE_UNITY_BUILD (on) turns it off, e.g. to see which source
# a diagnostic belongs to.
option(GE_UNITY_BUILD "Compile selected targets' sources as one translation unit (faster builds)" ON)
function(ge_unity_build target)
  if(NOT GE_UNITY_BUILD)
    return()
  endif()
  cmake_parse_arguments(ARG "" "GROUP" "SOURCES" ${ARGN})
  if(ARG_SOURCES)
    if(NOT ARG_GROUP)
      set(ARG_GROUP unity)
    endif()
    set_target_properties(${target} PROPERTIES UNITY_BUILD ON UNITY_BUILD_MODE GROUP)
    set_property(SOURCE ${ARG_SOURCES} TARGET_DIRECTORY ${target} PROPERTY UNITY_GROUP "${target}_${ARG_GROUP}")
  else()
    set_target_properties(${target} PROPERTIES UNITY_BUILD ON UNITY_BUILD_MODE BATCH UNITY_BUILD_BATCH_SIZE 0)
  endif()
endfunction()
