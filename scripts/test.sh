#!/usr/bin/env bash
# Runs every test: installs dependencies, builds Release and runs the Check
# suites through CTest (with a valgrind run of the headless sandbox), then
# builds again with ASan+UBSan and runs them again,
# then runs every fuzz target on a fixed seed and input count (FUZZ_CI=1:
# repeatable, ~20 s each; scripts/fuzz.sh, docs/fuzzing.md), the
# release-shaped install test (scripts/install-test.sh), the build without
# file loading (SINEW_DLOPEN=OFF; the shipped types linked in) and the
# Windows cross build with its smoke test under wine (scripts/windows-test.sh).
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh
jobs=$(nproc)
cmake -S . -B build/release -G Ninja -DCMAKE_BUILD_TYPE=Release -DSINEW_WERROR=ON >/dev/null
cmake --build build/release -j "$jobs"
ctest --test-dir build/release --output-on-failure -j "$jobs"
cmake -S . -B build/asan -G Ninja -DCMAKE_BUILD_TYPE=Debug -DSINEW_SANITIZE=ON -DSINEW_WERROR=ON >/dev/null
cmake --build build/asan -j "$jobs"
ctest --test-dir build/asan --output-on-failure -j "$jobs"
FUZZ_CI=1 scripts/fuzz.sh
# a release-shaped install, used from its prefix and again after moving it
scripts/install-test.sh
# no file loading at all (SINEW_DLOPEN=OFF): the shipped types linked in
cmake -S . -B build/nodlopen -G Ninja -DCMAKE_BUILD_TYPE=Release -DSINEW_WERROR=ON -DSINEW_DLOPEN=OFF \
  -DSINEW_BUILD_SANDBOX=OFF >/dev/null
cmake --build build/nodlopen -j "$jobs" --target test_static_plugins
ctest --test-dir build/nodlopen --output-on-failure -R "^test_static_plugins$"
undefined=$(nm build/nodlopen/engine/libsinew.a)
if grep -qE " U (dlopen|dlsym|dladdr)" <<<"$undefined"; then
  echo "libsinew.a built with SINEW_DLOPEN=OFF still calls the dynamic loader" >&2
  exit 1
fi
# Windows: MinGW-w64 cross build (DLLs), smoke test and plugin checks under wine
JOBS="$jobs" scripts/windows-test.sh
