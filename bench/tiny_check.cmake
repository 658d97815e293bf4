# ctest driver for sinew-bench --scene tiny (tests/CMakeLists.txt):
#   cmake -DBENCH=<sinew-bench> -P tiny_check.cmake
# Runs the two-body scene (a static ground box, one dynamic box resting on
# it) for a few thousand steps on one and on two threads and checks each JSON
# line: the scene, its one dynamic body, the steps asked for, a positive
# median step time given in microseconds as well as in milliseconds (the same
# figure), a box that stayed where it was put (resting: max_dx below 1 mm,
# nothing fallen) and the same state hash on both thread counts. No time is
# compared with a bound.
cmake_minimum_required(VERSION 3.19)
include(${CMAKE_CURRENT_LIST_DIR}/json_line.cmake)
set(steps 2000)
foreach(threads 1 2)
  sn_bench_json_line(line --scene tiny --steps ${steps} --threads ${threads})
  foreach(pair "scene;tiny" "bodies;1" "steps;${steps}" "fallen;0")
    list(GET pair 0 key)
    list(GET pair 1 want)
    string(JSON got GET "${line}" ${key})
    if(NOT got STREQUAL want)
      message(FATAL_ERROR "tiny: ${key} ${got}, expected ${want}")
    endif()
  endforeach()
  # (the figures as printed: string(JSON) would hand back the doubles' digits)
  string(REGEX MATCH "\"us_step_median\": ([0-9.]+)" _ "${line}")
  set(us "${CMAKE_MATCH_1}")
  string(REGEX MATCH "\"ms_step_median\": ([0-9.]+)" _ "${line}")
  set(ms "${CMAKE_MATCH_1}")
  string(JSON dx GET "${line}" max_dx)
  if(NOT us GREATER 0)
    message(FATAL_ERROR "tiny: us_step_median ${us} is not positive")
  endif()
  # us = 1000 ms: both in tenths of a microsecond (ms has 4 decimals, us 3),
  # equal within one tenth (the rounding of the two prints)
  string(REGEX REPLACE "^([0-9]+)\\.([0-9][0-9][0-9][0-9])$" "\\1\\2" ms_tenths "${ms}")
  string(REGEX REPLACE "^([0-9]+)\\.([0-9])[0-9][0-9]$" "\\1\\2" us_tenths "${us}")
  # (leading zeros off: a match, not a replace, which would strip again after each)
  string(REGEX MATCH "[1-9][0-9]*$|0$" ms_tenths "${ms_tenths}")
  string(REGEX MATCH "[1-9][0-9]*$|0$" us_tenths "${us_tenths}")
  math(EXPR diff "${ms_tenths} - ${us_tenths}")
  if(diff GREATER 1 OR diff LESS -1)
    message(FATAL_ERROR "tiny: us_step_median ${us} is not 1000 x ms_step_median ${ms}")
  endif()
  if(NOT dx LESS 0.001)
    message(FATAL_ERROR "tiny: the resting box moved ${dx} m (max_dx), more than 1 mm")
  endif()
  string(JSON hash GET "${line}" state_hash)
  if(DEFINED first_hash AND NOT hash STREQUAL first_hash)
    message(FATAL_ERROR "tiny: state hash ${hash} on ${threads} threads, ${first_hash} on 1")
  endif()
  set(first_hash ${hash})
endforeach()
