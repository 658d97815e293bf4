#!/usr/bin/env bash
# Renders every scene of the sandbox (the standard scenes of docs/benchmark.md and the
# demos, as `sinew-sandbox --list-scenes` names them) after its default number
# of steps to docs/images/<scene>.png at 640x360, headless (no display needed).
# Builds the sandbox first if needed. Usage: scripts/pictures.sh [BUILD_DIR]
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:-build/release}
if [ ! -f "$build/build.ninja" ]; then
  cmake -S . -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release >/dev/null
fi
cmake --build "$build" --target sinew-sandbox -j "$(nproc)" >/dev/null
sb="$build/sandbox/sinew-sandbox"
mkdir -p docs/images
"$sb" --list-scenes | awk '{print $1}' | while read -r scene; do
  "$sb" --headless --scene "$scene" --width 640 --height 360 --screenshot "docs/images/$scene.png"
done
