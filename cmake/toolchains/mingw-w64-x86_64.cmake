# Cross build for 64-bit Windows with Debian's MinGW-w64 (gcc-mingw-w64-x86-64-win32):
#
#   cmake -S . -B build/windows -G Ninja -DCMAKE_TOOLCHAIN_FILE=cmake/toolchains/mingw-w64-x86_64.cmake
#   cmake --build build/windows -j 2
#   ctest --test-dir build/windows      # runs sinew-smoke.exe under wine, if installed
#
# Builds libsinew.dll, the plugins as DLLs and tests/smoke; the parts that
# need Linux-only libraries (Check, SDL2, cJSON) or peers are off.
# scripts/windows-test.sh does all of it, wine included.
set(CMAKE_SYSTEM_NAME Windows)
set(CMAKE_SYSTEM_PROCESSOR x86_64)
set(SINEW_MINGW_TRIPLE x86_64-w64-mingw32)

# The win32 thread model (no winpthreads DLL to ship); plain triple names otherwise.
find_program(CMAKE_C_COMPILER NAMES ${SINEW_MINGW_TRIPLE}-gcc-win32 ${SINEW_MINGW_TRIPLE}-gcc REQUIRED)
find_program(CMAKE_CXX_COMPILER NAMES ${SINEW_MINGW_TRIPLE}-g++-win32 ${SINEW_MINGW_TRIPLE}-g++)
find_program(CMAKE_RC_COMPILER NAMES ${SINEW_MINGW_TRIPLE}-windres)
set(CMAKE_FIND_ROOT_PATH /usr/${SINEW_MINGW_TRIPLE})
set(CMAKE_FIND_ROOT_PATH_MODE_PROGRAM NEVER)
set(CMAKE_FIND_ROOT_PATH_MODE_LIBRARY ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_INCLUDE ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_PACKAGE ONLY)

# CTest runs the Windows programs through wine when it is installed.
find_program(SINEW_WINE NAMES wine wine64)
if(SINEW_WINE)
  set(CMAKE_CROSSCOMPILING_EMULATOR ${SINEW_WINE})
endif()

# What a Windows build has no use for, or no library for.
set(SINEW_BUILD_TESTS OFF CACHE BOOL "Check suites (Linux)")
set(SINEW_BUILD_SANDBOX OFF CACHE BOOL "SDL2 sandbox")
set(SINEW_BUILD_SCENE_IO OFF CACHE BOOL "scene files (cJSON)")
set(SINEW_BENCH_PEERS OFF CACHE BOOL "Box2D and Chipmunk peers")
set(SINEW_BUILD_SMOKE ON CACHE BOOL "the smoke test program")
