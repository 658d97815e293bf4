#!/usr/bin/env bash
# Cross-builds Sinew for 64-bit Windows with Debian's MinGW-w64 and runs the
# smoke test (tests/smoke: plugins loaded as DLLs, a soft body, a snapshot
# file round trip, bit-identical stepping of the restored copy) under wine:
# libsinew.dll, every shipped plugin as a DLL, sinew-smoke.exe, sinew-bench.exe
# and sinew-plugin-check.exe, warnings as errors (docs/user-guide.md, "Windows").
#
# Installs what it needs with apt-get (the cross compiler, wine), builds in
# build/windows (cmake/toolchains/mingw-w64-x86_64.cmake), runs CTest there
# (CTest starts the .exe through wine) in a fresh, private, headless wine
# prefix that is removed afterwards. If wine cannot run a Windows program
# on this machine at all, it says SKIPPED and exits 0 without claiming a
# pass; any build or test failure exits non-zero.
set -euo pipefail
cd "$(dirname "$0")/.."
jobs=${JOBS:-$(nproc)}

scripts/install-deps.sh cmake ninja-build pkg-config gcc-mingw-w64-x86-64-win32 wine wine64 >/dev/null

build=build/windows
cmake -S . -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DSINEW_WERROR=ON \
  -DCMAKE_TOOLCHAIN_FILE=cmake/toolchains/mingw-w64-x86_64.cmake >/dev/null
cmake --build "$build" -j "$jobs"
tmp=$(mktemp -d /tmp/sinew-windows.XXXXXX)
for f in "$build"/bin/libsinew.dll "$build"/lib/sinew/plugins/revolute.dll; do
  x86_64-w64-mingw32-strip -o "$tmp/stripped" "$f"
  echo "windows-test: $(basename "$f"): $(stat -c %s "$f") bytes, $(stat -c %s "$tmp/stripped") stripped"
done
rm -rf "$tmp"
# the library exports the API and nothing of the runtime: every export an sn_ name
exports=$(x86_64-w64-mingw32-objdump -p "$build"/bin/libsinew.dll |
  sed -n '/\[Ordinal\/Name Pointer\] Table/,/^$/s/^\s*\[ *[0-9]*\] //p')
if [ -z "$exports" ] || grep -v '^sn_' <<<"$exports"; then
  echo "windows-test: libsinew.dll exports no symbols or symbols other than sn_*" >&2
  exit 1
fi
echo "windows-test: libsinew.dll exports $(wc -l <<<"$exports") sn_* functions and nothing else"

# a private, headless wine: no display, no Mono or Gecko installers, no debug output
WINEPREFIX=$(mktemp -d /tmp/sinew-wine.XXXXXX)
export WINEPREFIX WINEDEBUG=-all WINEDLLOVERRIDES="mscoree,mshtml=" WINEARCH=win64
unset DISPLAY WAYLAND_DISPLAY
cleanup() {
  timeout 30 wineserver -k >/dev/null 2>&1 || true
  rm -rf "$WINEPREFIX"
}
trap cleanup EXIT
if ! timeout 300 wineboot -i >/dev/null 2>&1 || ! timeout 60 wine cmd.exe /c exit 0 >/dev/null 2>&1; then
  echo "windows-test: SKIPPED: wine cannot run Windows programs on this machine (the Windows build itself passed)"
  exit 0
fi
timeout 900 ctest --test-dir "$build" --output-on-failure
