# ctest driver for sinew-bench --handoff (tests/CMakeLists.txt):
#   cmake -DBENCH=<sinew-bench> -P handoff_check.cmake
# Runs the two-worker hand-off probe and checks its one JSON line: the probe's
# name, the round trips asked for, a positive median no larger than the 95th
# percentile, a worst round trip no shorter than the median, and a count of
# slow round trips within the round trips. Then the options it refuses (exit
# 2): a negative count, --round-trips without --handoff, --handoff with a
# scene. No time is compared with a bound.
cmake_minimum_required(VERSION 3.19)
include(${CMAKE_CURRENT_LIST_DIR}/json_line.cmake)
set(trips 3000)
sn_bench_json_line(line --handoff --round-trips ${trips})
string(JSON probe GET "${line}" probe)
string(JSON got GET "${line}" round_trips)
string(JSON workers GET "${line}" workers)
if(NOT probe STREQUAL "handoff" OR NOT got EQUAL trips OR NOT workers EQUAL 2)
  message(FATAL_ERROR "handoff: probe '${probe}', ${got} round trips (asked ${trips}), ${workers} workers")
endif()
# (the figures as printed: whole nanoseconds, tenths of a microsecond)
string(REGEX MATCH "\"round_trip_ns_median\": ([0-9]+)" _ "${line}")
set(median "${CMAKE_MATCH_1}")
string(REGEX MATCH "\"round_trip_ns_p95\": ([0-9]+)" _ "${line}")
set(p95 "${CMAKE_MATCH_1}")
string(REGEX MATCH "\"round_trip_us_max\": ([0-9]+)\\.([0-9])" _ "${line}")
math(EXPR max_ns "${CMAKE_MATCH_1} * 1000 + ${CMAKE_MATCH_2} * 100 + 100") # rounded down to a tenth of a us
string(JSON slow GET "${line}" round_trips_over_20us)
if(NOT median GREATER 0 OR p95 LESS median OR max_ns LESS median)
  message(FATAL_ERROR "handoff: median ${median} ns, p95 ${p95} ns, worst ${max_ns} ns out of order")
endif()
if(slow LESS 0 OR slow GREATER trips)
  message(FATAL_ERROR "handoff: ${slow} slow round trips of ${trips}")
endif()
foreach(args "--handoff;--round-trips;-5" "--round-trips;10" "--handoff;--scene;tiny")
  execute_process(COMMAND ${BENCH} ${args} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if(NOT rc EQUAL 2 OR NOT err MATCHES "--handoff")
    message(FATAL_ERROR "sinew-bench ${args}: exit ${rc}, '${err}' (expected 2 and a message naming --handoff)")
  endif()
endforeach()
