#!/usr/bin/env bash
# Sets everything up, builds, and runs the main demo: the sandbox's default
# scene (rigid and soft bodies together) in a window. Without a display (no
# $DISPLAY / $WAYLAND_DISPLAY, or SDL cannot open a window) it runs the scene
# headless instead and prints where the screenshot went. Extra arguments go
# to sinew-sandbox (e.g. --scene demo-wheel).
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh
cmake -S . -B build/release -G Ninja -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build build/release -j "$(nproc)"
if [ -z "${DISPLAY:-}${WAYLAND_DISPLAY:-}" ]; then
  echo "demo: no display; running the default scene headless"
fi
# the sandbox itself falls back to headless when it cannot open a window
exec ./build/release/sandbox/sinew-sandbox --screenshot build/demo.png "$@"
