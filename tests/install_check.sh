#!/usr/bin/env bash
# Installs the built tree into a temporary prefix, then builds and runs a
# consumer program twice: with find_package(sinew) and with pkg-config.
# With "linked-in" (a Sinew built without file loading, SINEW_DLOPEN=OFF)
# the tutorial's plugin is linked into the consumer instead of loaded.
# usage: install_check.sh BUILD_DIR SOURCE_DIR [linked-in]
set -euo pipefail
build=$1
src=$2
linked=${3:-}
spring_src="$src/docs/examples/spring_plugin/spring.c"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cmake --install "$build" --prefix "$tmp/prefix" >/dev/null
# 1. CMake package
consumer_options=()
[ "$linked" = linked-in ] && consumer_options=(-DCONSUMER_SPRING_LINKED=ON "-DSPRING_SOURCE=$spring_src")
cmake -S "$src/tests/consumer" -B "$tmp/cmake" -DCMAKE_PREFIX_PATH="$tmp/prefix" -DCMAKE_BUILD_TYPE=Release \
  "${consumer_options[@]}" >/dev/null
cmake --build "$tmp/cmake" >/dev/null
# the plugin tutorial's example, built exactly as docs/plugins.md says
cmake -S "$src/docs/examples/spring_plugin" -B "$tmp/spring" -DCMAKE_PREFIX_PATH="$tmp/prefix" >/dev/null
cmake --build "$tmp/spring" >/dev/null
LD_LIBRARY_PATH="$tmp/prefix/lib:$tmp/prefix/lib64:$(ls -d "$tmp"/prefix/lib/*/ 2>/dev/null | tr '\n' ':')" \
  "$tmp/cmake/consumer" "$tmp/spring/spring.so"
# 2. pkg-config
pc=$(dirname "$(find "$tmp/prefix" -name sinew.pc | head -n 1)")
flags=$(PKG_CONFIG_PATH="$pc" pkg-config --cflags --libs sinew)
libdir=$(PKG_CONFIG_PATH="$pc" pkg-config --variable=libdir sinew)
if [ "$linked" = linked-in ]; then
  # the plugin's source compiled into the program (SN_PLUGIN_STATIC=spring)
  cc -std=c17 -Wall -Wextra -Werror -DCONSUMER_SPRING_LINKED -DSN_PLUGIN_STATIC=spring \
    "$src/tests/consumer/consumer.c" "$spring_src" $flags -lm -o "$tmp/consumer_pc"
  LD_LIBRARY_PATH="$libdir" "$tmp/consumer_pc" linked-in
else
  cc -std=c17 -Wall -Wextra -Werror "$src/tests/consumer/consumer.c" $flags -lm -o "$tmp/consumer_pc"
  # the same plugin with pkg-config (headers only, never -lsinew)
  cc -std=c17 -Wall -Wextra -Werror -shared -fPIC -fvisibility=hidden -Wl,-z,defs \
    $(PKG_CONFIG_PATH="$pc" pkg-config --cflags sinew) "$spring_src" -o "$tmp/spring_pc.so"
  LD_LIBRARY_PATH="$libdir" "$tmp/consumer_pc" "$tmp/spring_pc.so"
fi
# a batched kernel built out of tree against the installed plugin headers
# (sinew/plugin_batch.h among them): the shipped xpbd_distance source; where
# files are loaded, the installed sinew-plugin-check passes it
kernel_src="$src/plugins/xpbd_distance/xpbd_distance.c"
kernel_flags=(-std=c17 -O2 -Wall -Wextra -Wpedantic -Werror -ffp-contract=off -fPIC
  $(PKG_CONFIG_PATH="$pc" pkg-config --cflags sinew))
if [ "$linked" = linked-in ]; then
  cc "${kernel_flags[@]}" -DSN_PLUGIN_STATIC=xpbd_distance -c "$kernel_src" -o "$tmp/xpbd_distance.o"
else
  cc "${kernel_flags[@]}" -shared -fvisibility=hidden -Wl,-z,defs "$kernel_src" -lm -o "$tmp/xpbd_distance.so"
  verdict=$(LD_LIBRARY_PATH="$libdir" "$tmp/prefix/bin/sinew-plugin-check" --seeds 4 "$tmp/xpbd_distance.so")
  grep -qF "verdict: PASS" <<<"$verdict" || { echo "install_check: sinew-plugin-check: $verdict" >&2; exit 1; }
fi
echo "install_check: find_package and pkg-config consumers, the tutorial plugin (${linked:-loaded}) and a batched kernel all passed"
