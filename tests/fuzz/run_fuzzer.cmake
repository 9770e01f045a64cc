# Runs one libFuzzer binary: replays CRASHES/* (must not crash any more), then fuzzes a
# scratch copy of SEEDS for SECONDS. Fails on any crash, leak, timeout or OOM.
file(REMOVE_RECURSE ${SCRATCH})
file(MAKE_DIRECTORY ${SCRATCH})
file(GLOB seeds ${SEEDS}/*)
file(COPY ${seeds} DESTINATION ${SCRATCH})
file(GLOB reproducers ${CRASHES}/*)
if(reproducers)
  execute_process(COMMAND ${FUZZER} ${reproducers} RESULT_VARIABLE rc)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "a checked-in reproducer in ${CRASHES} fails again (exit ${rc})")
  endif()
endif()
execute_process(COMMAND ${FUZZER} -max_total_time=${SECONDS} -timeout=10 -rss_limit_mb=2048
                        -malloc_limit_mb=1024 -print_final_stats=1 -artifact_prefix=${SCRATCH}/ ${SCRATCH} ${SEEDS}
                RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "fuzzer ${FUZZER} failed (exit ${rc}); the reproducer is in ${SCRATCH}/ -- fix the bug and "
                      "check the reproducer into ${CRASHES}/")
endif()
