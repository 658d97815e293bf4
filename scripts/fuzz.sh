#!/usr/bin/env bash
# Builds the libFuzzer targets (clang, ASan + UBSan, docs/fuzzing.md) in
# build/fuzz and runs each for FUZZ_SECONDS seconds (default 30, as in CI).
# New inputs go to build/fuzz/work/<target>/ (kept between runs, so longer
# runs build on earlier ones); the seeds in fuzz/corpus/<target>/ are read,
# never written. A crash or invariant failure stops the script with the
# reproducer's path. FUZZ_TARGETS="world polygon" runs a subset.
#
# FUZZ_CI=1 (what scripts/test.sh and so CI use) makes the run repeatable:
# seed 1, a fixed number of inputs per target (about 20 s each here, capped
# at 120 s), and a fresh work folder, so a CI failure reproduces on any
# machine with the same command and CI does not fail on what a longer random
# exploration happens to reach that day. Exploration (the default) is random
# and timed; run it by hand and add what it finds to fuzz/corpus/.
set -euo pipefail
cd "$(dirname "$0")/.."
seconds=${FUZZ_SECONDS:-30}
targets=${FUZZ_TARGETS:-scene_load polygon descriptor world snapshot}
cmake -S . -B build/fuzz -G Ninja -DCMAKE_C_COMPILER=clang -DCMAKE_BUILD_TYPE=RelWithDebInfo -DSINEW_FUZZ=ON \
  -DSINEW_BUILD_TESTS=OFF -DSINEW_BUILD_BENCH=OFF -DSINEW_BUILD_SANDBOX=OFF -DSINEW_WERROR=ON >/dev/null
cmake --build build/fuzz --target fuzz_all -j "$(nproc)"
mkdir -p build/fuzz/artifacts
for t in $targets; do
  work=build/fuzz/work/$t
  log=build/fuzz/fuzz_$t.log
  mkdir -p "$work"
  extra=()
  [ -f "fuzz/$t.dict" ] && extra+=("-dict=fuzz/$t.dict")
  if [ "${FUZZ_CI:-0}" = 1 ]; then
    case $t in
    scene_load) runs=60000 ;;
    polygon) runs=500000 ;;
    descriptor) runs=300000 ;;
    world) runs=1500 ;;
    snapshot) runs=15000 ;;
    *) runs=10000 ;;
    esac
    rm -rf "$work" && mkdir -p "$work"
    extra+=("-seed=1" "-runs=$runs")
    limit=120
    echo "fuzz: $t, $runs inputs from seed 1 (CI mode)"
  else
    limit=$seconds
    echo "fuzz: $t for ${seconds} s"
  fi
  if ! build/fuzz/fuzz/fuzz_$t "$work" "fuzz/corpus/$t" "${extra[@]}" -max_total_time="$limit" -timeout=60 \
    -artifact_prefix="build/fuzz/artifacts/$t-" -print_final_stats=1 >"$log" 2>&1; then
    grep -E -A12 "invariant failed|ERROR: |runtime error" "$log" | head -n 60 || true
    grep -E "Test unit written|SUMMARY" "$log" || true
    echo "fuzz: $t FAILED; reproduce with build/fuzz/fuzz/fuzz_$t <the artifact above>," \
      "then fix and add the file to fuzz/corpus/$t/ (docs/fuzzing.md)" >&2
    exit 1
  fi
  grep -E "^(Done|stat::number_of_executed_units|stat::new_units_added)" "$log" | tr '\n' ' '
  echo
done
echo "fuzz: all targets clean"
