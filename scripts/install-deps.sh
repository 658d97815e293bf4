#!/usr/bin/env bash
# Installs Sinew's build and test dependencies from Debian's archive.
# libstb-dev: the sandbox's text (stb_easy_font.h) and PNGs (stb_image_write, stb_image in tests).
# libclang-rt-dev: clang's runtimes, libFuzzer among them (scripts/fuzz.sh); clang only recommends it.
# xvfb, xauth, xdotool: the sandbox's window test on a private X server with real input
# (sandbox/tests/window_check.sh; xvfb-run needs xauth, which xvfb only recommends).
# Used by README.md and .ci/run. Safe to run twice.
# With arguments: installs just those packages (scripts/windows-test.sh).
set -euo pipefail
pkgs=(build-essential cmake ninja-build pkg-config check libsubunit-dev libsdl2-dev
      libstb-dev clang libclang-rt-dev libbox2d-dev libchipmunk-dev libcjson-dev valgrind xauth xdotool xvfb)
[ $# -gt 0 ] && pkgs=("$@")
missing=()
for p in "${pkgs[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  SUDO=""
  [ "$(id -u)" -ne 0 ] && SUDO="sudo"
  export DEBIAN_FRONTEND=noninteractive
  $SUDO apt-get update -qq
  $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi
echo "install-deps: ${pkgs[*]} present"
