#!/usr/bin/env bash
# Installs the built tree into a temporary prefix, then builds a consumer of
# the scene library twice (find_package -> sinew::scene_io, and pkg-config
# sinew-scene-io) and loads scenes/pendulum.json with it: the plugins the file
# lists must be found in the installed plugin folder with no options.
# usage: install_scene_check.sh BUILD_DIR SOURCE_DIR
set -euo pipefail
build=$1
src=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cmake --install "$build" --prefix "$tmp/prefix" >/dev/null
# no SINEW_PLUGIN_PATH: the loader finds the plugins installed beside the
# library it runs with (sn_default_plugin_dir)
unset SINEW_PLUGIN_PATH
libs="$tmp/prefix/lib:$tmp/prefix/lib64:$(ls -d "$tmp"/prefix/lib/*/ 2>/dev/null | tr '\n' ':')"
# 1. CMake package
cmake -S "$src/tests/consumer_scene" -B "$tmp/cmake" -DCMAKE_PREFIX_PATH="$tmp/prefix" -DCMAKE_BUILD_TYPE=Release \
  >/dev/null
cmake --build "$tmp/cmake" >/dev/null
LD_LIBRARY_PATH="$libs" "$tmp/cmake/scene_consumer" "$src/scenes/pendulum.json"
# 2. pkg-config
pc=$(dirname "$(find "$tmp/prefix" -name sinew-scene-io.pc | head -n 1)")
flags=$(PKG_CONFIG_PATH="$pc" pkg-config --cflags --libs sinew-scene-io)
cc -std=c17 -Wall -Wextra -Werror "$src/tests/consumer_scene/scene_consumer.c" $flags -o "$tmp/consumer_pc"
libdir=$(PKG_CONFIG_PATH="$pc" pkg-config --variable=libdir sinew-scene-io)
LD_LIBRARY_PATH="$libdir" "$tmp/consumer_pc" "$src/scenes/pyramid10.json"
echo "install_scene_check: find_package and pkg-config consumers of sinew::scene_io passed"
