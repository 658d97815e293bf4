# The CTest entries of the test files' parts (tests/support/test_main.h).
# CTest includes the build's test_parts.cmake (TEST_INCLUDE_FILES, written by
# tests/CMakeLists.txt) before it runs anything; that file includes this one and
# calls sn_add_test_parts once per test executable, with the properties of
# the executable's own entry in SN_TEST_PART_PROPERTIES.

# Asks the executable `exe` (of the CTest entry `test`) for its parts and adds
# the entry "<test>.<part>" for each: the executable with --part <part>.
function(sn_add_test_parts test exe)
  if(NOT EXISTS "${exe}")
    return() # not built: the entry `test` itself fails
  endif()
  execute_process(COMMAND "${exe}" --list-parts OUTPUT_VARIABLE out ERROR_VARIABLE err RESULT_VARIABLE status)
  string(REGEX MATCHALL "[^\n]+" parts "${out}")
  set(bad "")
  foreach(part IN LISTS parts)
    if(NOT part MATCHES "^[A-Za-z0-9_]+$")
      set(bad "${part}")
    endif()
  endforeach()
  if(NOT status EQUAL 0 OR bad)
    # an entry that fails, so that the failure shows in the results
    add_test("${test}.list_parts" "${SN_TEST_CMAKE_COMMAND}" -E echo
             "${exe} --list-parts failed (exit ${status}, line '${bad}'): ${err}")
    set_tests_properties("${test}.list_parts" PROPERTIES WILL_FAIL TRUE)
    return()
  endif()
  foreach(part IN LISTS parts)
    add_test("${test}.${part}" "${exe}" --part "${part}")
    set_tests_properties("${test}.${part}" PROPERTIES ${SN_TEST_PART_PROPERTIES})
  endforeach()
endfunction()
