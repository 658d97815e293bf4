# Included by the sinew-bench ctest drivers (tiny_check.cmake,
# handoff_check.cmake): sn_bench_json_line(<var> <arguments>...) runs
# ${BENCH} with the arguments, shows what it printed, fails unless it exited
# with 0 and printed exactly one line, and sets <var> to that line.
function(sn_bench_json_line out_var)
  execute_process(COMMAND ${BENCH} ${ARGN} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  string(REPLACE ";" " " shown "${ARGN}")
  message(STATUS "sinew-bench ${shown}\n${out}${err}")
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "sinew-bench ${shown} exited with ${rc}")
  endif()
  string(STRIP "${out}" line)
  string(FIND "${line}" "\n" newline)
  if(NOT newline EQUAL -1)
    message(FATAL_ERROR "sinew-bench ${shown}: more than one JSON line")
  endif()
  set(${out_var} "${line}" PARENT_SCOPE)
endfunction()
