#!/usr/bin/env bash
# Installs the built tree into a temporary prefix, then builds and runs a
# consumer program twice: with find_package(sinew) and with pkg-config.
# usage: install_check.sh BUILD_DIR SOURCE_DIR
set -euo pipefail
build=$1
src=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cmake --install "$build" --prefix "$tmp/prefix" >/dev/null
# 1. CMake package
cmake -S "$src/tests/consumer" -B "$tmp/cmake" -DCMAKE_PREFIX_PATH="$tmp/prefix" -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build "$tmp/cmake" >/dev/null
# the plugin tutorial's example, built exactly as docs/plugins.md says
cmake -S "$src/docs/examples/spring_plugin" -B "$tmp/spring" -DCMAKE_PREFIX_PATH="$tmp/prefix" >/dev/null
cmake --build "$tmp/spring" >/dev/null
LD_LIBRARY_PATH="$tmp/prefix/lib:$tmp/prefix/lib64:$(ls -d "$tmp"/prefix/lib/*/ 2>/dev/null | tr '\n' ':')" \
  "$tmp/cmake/consumer" "$tmp/spring/spring.so"
# 2. pkg-config
pc=$(dirname "$(find "$tmp/prefix" -name sinew.pc | head -n 1)")
flags=$(PKG_CONFIG_PATH="$pc" pkg-config --cflags --libs sinew)
cc -std=c17 -Wall -Wextra -Werror "$src/tests/consumer/consumer.c" $flags -lm -o "$tmp/consumer_pc"
# the same plugin with pkg-config (headers only, never -lsinew)
cc -std=c17 -Wall -Wextra -Werror -shared -fPIC -fvisibility=hidden -Wl,-z,defs \
  $(PKG_CONFIG_PATH="$pc" pkg-config --cflags sinew) "$src/docs/examples/spring_plugin/spring.c" -o "$tmp/spring_pc.so"
libdir=$(PKG_CONFIG_PATH="$pc" pkg-config --variable=libdir sinew)
LD_LIBRARY_PATH="$libdir" "$tmp/consumer_pc" "$tmp/spring_pc.so"
echo "install_check: find_package and pkg-config consumers and the tutorial plugin all passed"
