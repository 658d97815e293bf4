# The files the documentation names exist (CTest: doc_paths).
#   cmake -DROOT=<source dir> -P check_doc_paths.cmake
#
# Every path-like word ending in a source or data suffix in README.md,
# sandbox/README.md and docs/*.md must name a file of the repository: as
# written (from the repository's root or, with ../, from the page's folder),
# or under engine/src/, engine/include/, engine/, scenefile/include/, docs/
# (pages write module paths such as rigid/solver.c and public headers such as
# sinew/plugin.h). A bare file name must be the name of some file of the
# repository. Placeholders of examples and system headers are listed below.
# In docs/architecture.md, every row "| stage | `file` | `function` |" of the
# step's table must name a function that the file defines or calls.
cmake_minimum_required(VERSION 3.16)
if(NOT ROOT)
  message(FATAL_ERROR "usage: cmake -DROOT=<source dir> -P check_doc_paths.cmake")
endif()
get_filename_component(ROOT "${ROOT}" ABSOLUTE)

# names in examples and headers from outside the repository
set(not_files my_kernel.inc after.json level.json FILE.json stdatomic.h stb_easy_font.h thread_pool.h check.h
              sinew/thread_pool.h)

file(GLOB_RECURSE all_files RELATIVE "${ROOT}" "${ROOT}/*")
set(names "")
foreach(f IN LISTS all_files)
  if(f MATCHES "^(build|\\.git)/")
    continue()
  endif()
  get_filename_component(n "${f}" NAME)
  list(APPEND names "${n}")
endforeach()

file(GLOB pages "${ROOT}/docs/*.md")
list(APPEND pages "${ROOT}/README.md" "${ROOT}/sandbox/README.md")
set(failures 0)
foreach(page IN LISTS pages)
  file(READ "${page}" text)
  # list separators and brackets would split or merge CMake list items
  string(REPLACE ";" " " text "${text}")
  string(REPLACE "[" " " text "${text}")
  string(REPLACE "]" " " text "${text}")
  string(REPLACE "\\" " " text "${text}")
  get_filename_component(page_dir "${page}" DIRECTORY)
  file(RELATIVE_PATH page_name "${ROOT}" "${page}")
  string(REGEX MATCHALL "[A-Za-z0-9_./-]*[A-Za-z0-9]\\.(c|h|inc|cmake|cpp|sh|json)([^A-Za-z0-9_]|$)" words "${text}")
  foreach(w IN LISTS words)
    string(REGEX REPLACE "[^A-Za-z0-9_]$" "" w "${w}")
    if(w MATCHES "^(/|https?:|_)" OR w IN_LIST not_files)
      continue()
    endif()
    if(NOT w MATCHES "/")
      if(NOT w IN_LIST names)
        message("${page_name}: names ${w}, and no file of the repository has that name")
        math(EXPR failures "${failures} + 1")
      endif()
      continue()
    endif()
    set(found FALSE)
    foreach(prefix "${ROOT}/" "${page_dir}/" "${ROOT}/engine/src/" "${ROOT}/engine/include/" "${ROOT}/engine/"
                   "${ROOT}/scenefile/include/" "${ROOT}/docs/")
      if(EXISTS "${prefix}${w}")
        set(found TRUE)
        break()
      endif()
    endforeach()
    if(NOT found)
      message("${page_name}: names ${w}, which does not exist")
      math(EXPR failures "${failures} + 1")
    endif()
  endforeach()
endforeach()

# the step's table: each function is in its file
file(STRINGS "${ROOT}/docs/architecture.md" rows REGEX "^\\| [^|]+ \\| `[^`]+\\.c` \\| `sn_[a-z0-9_]+` \\|$")
list(LENGTH rows row_count)
if(row_count LESS 10)
  message("docs/architecture.md: the step's table has ${row_count} rows (expected the stages, 10 or more)")
  math(EXPR failures "${failures} + 1")
endif()
foreach(row IN LISTS rows)
  string(REGEX REPLACE "^\\| [^|]+ \\| `([^`]+)` \\| `([^`]+)` \\|$" "\\1;\\2" pair "${row}")
  list(GET pair 0 file)
  list(GET pair 1 fn)
  if(NOT EXISTS "${ROOT}/${file}")
    message("docs/architecture.md: the step's table names ${file}, which does not exist")
    math(EXPR failures "${failures} + 1")
    continue()
  endif()
  file(READ "${ROOT}/${file}" source)
  string(FIND "${source}" "${fn}(" at)
  if(at EQUAL -1)
    message("docs/architecture.md: the step's table puts ${fn} in ${file}, which has no ${fn}(")
    math(EXPR failures "${failures} + 1")
  endif()
endforeach()

if(failures GREATER 0)
  message(FATAL_ERROR "${failures} stale names in the documentation")
endif()
message(STATUS "documentation names ${row_count} stages; every file it names exists")
