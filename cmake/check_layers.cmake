# The include direction of the engine's sources (CTest: include_layers).
#   cmake -DSRC=<engine/src> -P check_layers.cmake
#
# engine/src's folders are layers, lowest first:
#   0 platform      the operating system
#   1 base          allocation, arrays, math, SIMD, constants, stage runner
#   2 geometry      shapes, mass, polygons
#   3 collision     broadphase tree, distance, manifolds, contacts, queries,
#                   continuous collision
#   4 rigid, soft, constraints   the solvers (one layer: they hand each
#                   other solver states and particle views within a step)
#   5 world         the world, its step, snapshots, enumeration, drawing
# A file includes headers of its own layer and the layers below it. The one
# header above that a lower file may include is world/world.h, the world
# struct, and only from a .c file of collision or a solver: their functions
# take the world and read its object arrays. A header below world/ never
# includes it (the public sinew/types.h declares sn_world). Headers outside
# these folders (sinew/*.h) are not layers.
if(NOT SRC)
  message(FATAL_ERROR "usage: cmake -DSRC=<engine/src> -P check_layers.cmake")
endif()
get_filename_component(SRC "${SRC}" ABSOLUTE)

set(rank_platform 0)
set(rank_base 1)
set(rank_geometry 2)
set(rank_collision 3)
set(rank_rigid 4)
set(rank_soft 4)
set(rank_constraints 4)
set(rank_world 5)

set(errors 0)
set(checked 0)
file(GLOB_RECURSE files RELATIVE ${SRC} ${SRC}/*.c ${SRC}/*.h ${SRC}/*.inc)
foreach(file ${files})
  string(REGEX REPLACE "/.*" "" layer "${file}")
  if(NOT DEFINED rank_${layer})
    message(SEND_ERROR "${file}: folder '${layer}' is no layer (add it to cmake/check_layers.cmake)")
    math(EXPR errors "${errors} + 1")
    continue()
  endif()
  set(own ${rank_${layer}})
  file(STRINGS ${SRC}/${file} lines REGEX "^[ \t]*#[ \t]*include[ \t]*\"")
  foreach(line ${lines})
    string(REGEX REPLACE "^[ \t]*#[ \t]*include[ \t]*\"([^\"]*)\".*" "\\1" target "${line}")
    string(REGEX MATCH "^[^/]+/" dir "${target}")
    string(REGEX REPLACE "/$" "" dir "${dir}")
    if(dir STREQUAL "" OR NOT DEFINED rank_${dir})
      continue() # sinew/*.h, a file of the same folder (.inc), a system header
    endif()
    math(EXPR checked "${checked} + 1")
    set(theirs ${rank_${dir}})
    if(theirs LESS_EQUAL own)
      continue()
    endif()
    if((target STREQUAL "world/world.h" OR target STREQUAL "world/world_pool.h") AND file MATCHES "\\.c$" AND own GREATER_EQUAL 3)
      continue() # the world struct, for the functions that take it
    endif()
    message(SEND_ERROR "${file} (layer ${layer}, ${own}) includes ${target} (layer ${dir}, ${theirs}): "
                       "a lower layer may not include a higher one")
    math(EXPR errors "${errors} + 1")
  endforeach()
endforeach()
list(LENGTH files count)
if(count EQUAL 0)
  message(FATAL_ERROR "no sources under ${SRC}")
endif()
if(errors GREATER 0)
  message(FATAL_ERROR "${errors} include(s) against the layer order")
endif()
message(STATUS "include layers: ${count} files, ${checked} includes of engine folders, in order")
