#!/usr/bin/env bash
# Sets everything up and runs the main demo: until the sandbox lands, the
# benchmark's pyramid scene (50 rows, 600 steps) with its JSON line.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh
cmake -S . -B build/release -G Ninja -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build build/release -j "$(nproc)"
./build/release/bench/sinew-bench --scene pyramid --size 50
