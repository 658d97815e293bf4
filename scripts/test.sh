#!/usr/bin/env bash
# Runs every test: installs dependencies, builds Release and runs the Check
# suites through CTest (with a valgrind run of the headless sandbox), then
# builds again with ASan+UBSan and runs them again,
# then runs every fuzz target on a fixed seed and input count (FUZZ_CI=1:
# repeatable, ~20 s each; scripts/fuzz.sh, docs/fuzzing.md), the
# release-shaped install test (scripts/install-test.sh), the whole suite
# again in the Release build without file loading (SINEW_DLOPEN=OFF: the
# shipped types linked in; the tests of plugin files report skipped,
# docs/architecture.md "Building without file loading") and the Windows
# cross build with its smoke test under wine (scripts/windows-test.sh).
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
# no file loading at all (SINEW_DLOPEN=OFF): the shipped types linked in, every test
cmake -S . -B build/nodlopen -G Ninja -DCMAKE_BUILD_TYPE=Release -DSINEW_WERROR=ON -DSINEW_DLOPEN=OFF >/dev/null
cmake --build build/nodlopen -j "$jobs"
ctest --test-dir build/nodlopen --output-on-failure -j "$jobs" | tee build/nodlopen/ctest.log
total=$(grep -oE 'tests failed out of [0-9]+' build/nodlopen/ctest.log | grep -oE '[0-9]+$')
skipped=$(grep -E '^[[:space:]]*[0-9]+ - .* \(Skipped\)$' build/nodlopen/ctest.log | sed -E 's/^[[:space:]]*[0-9]+ - //; s/ \(Skipped\)$//' || true)
skip_count=$(grep -c . <<<"$skipped" || true)
echo "SINEW_DLOPEN=OFF: $total tests, $((total - skip_count)) passed, $skip_count skipped (they need plugin files, or what else this machine lacks):" \
  $skipped
# neither the engine nor the libraries around it call the dynamic loader
undefined=$(nm build/nodlopen/engine/libsinew.a build/nodlopen/scenefile/libsinew_scene_io.a \
  build/nodlopen/plugins/libsinew_plugins.a build/nodlopen/bench/libsinew_scenes.a)
if grep -qE " U (dlopen|dlsym|dladdr)" <<<"$undefined"; then
  echo "the libraries built with SINEW_DLOPEN=OFF still call the dynamic loader" >&2
  exit 1
fi
# Windows: MinGW-w64 cross build (DLLs), smoke test and plugin checks under wine
JOBS="$jobs" scripts/windows-test.sh
