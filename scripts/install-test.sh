#!/usr/bin/env bash
# A release-shaped install, as a user gets it: configure and build a Release
# tree of the library, plugins, scene library, sandbox and benchmark only;
# install it into a temporary prefix; delete the build tree; then, against the
# prefix alone:
#   - build docs/examples/first_world, the plugin tutorial (docs/examples/
#     spring_plugin) and the test consumers out of tree with find_package and
#     with pkg-config, and run them (the consumer loads the tutorial plugin);
#   - load a scene file whose joints are shipped plugins (found in the
#     installed plugin folder with no option);
#   - run the installed sandbox headless on a plugin demo and on a scene file,
#     and the installed benchmark on one scene;
#   - check the installed library exports only sn_ symbols and the installed
#     binaries hold no path of the build tree;
# then move the prefix elsewhere and run the programs again.
# usage: scripts/install-test.sh (from anywhere; uses a temporary folder)
set -euo pipefail
src=$(cd "$(dirname "$0")/.." && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
unset SINEW_PLUGIN_PATH
build="$tmp/build"
cmake -S "$src" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DSINEW_WERROR=ON -DSINEW_BUILD_TESTS=OFF >/dev/null
cmake --build "$build" -j "$(nproc)" >/dev/null
cmake --install "$build" --prefix "$tmp/prefix" >/dev/null
rm -rf "$build"
ok() { echo "install-test: ok   $*"; }

# the prefix alone, wherever it is: $1
check_prefix() {
  local prefix=$1 out=$2
  mkdir -p "$out"
  local libdir plugins pc
  libdir=$(dirname "$(find "$prefix" -name 'libsinew.so' | head -n 1)")
  plugins="$libdir/sinew/plugins"
  pc="$libdir/pkgconfig"
  [ -f "$plugins/revolute.so" ] || { echo "install-test: no plugins in $plugins" >&2; return 1; }
  [ "$(PKG_CONFIG_PATH="$pc" pkg-config --variable=plugindir sinew)" -ef "$plugins" ] ||
    { echo "install-test: pkg-config plugindir is not $plugins" >&2; return 1; }
  ok "pkg-config plugindir ($prefix)"
  # CMake consumers
  cmake -S "$src/docs/examples/first_world" -B "$out/first" -DCMAKE_PREFIX_PATH="$prefix" >/dev/null
  cmake --build "$out/first" >/dev/null
  LD_LIBRARY_PATH="$libdir" "$out/first/first_world" >/dev/null
  cmake -S "$src/docs/examples/spring_plugin" -B "$out/spring" -DCMAKE_PREFIX_PATH="$prefix" >/dev/null
  cmake --build "$out/spring" >/dev/null
  # sinew_add_plugin(spring SOURCES spring.c STATIC): the linked-in variant defines sn_plugin_entry_spring
  local symbols
  symbols=$(nm "$out/spring/libspring_static.a")
  grep -q " [DR] sn_plugin_entry_spring$" <<<"$symbols" ||
    { echo "install-test: libspring_static.a has no sn_plugin_entry_spring" >&2; return 1; }
  cmake -S "$src/tests/consumer" -B "$out/consumer" -DCMAKE_PREFIX_PATH="$prefix" >/dev/null
  cmake --build "$out/consumer" >/dev/null
  LD_LIBRARY_PATH="$libdir" "$out/consumer/consumer" "$out/spring/spring.so" >/dev/null
  cmake -S "$src/tests/consumer_scene" -B "$out/scene" -DCMAKE_PREFIX_PATH="$prefix" >/dev/null
  cmake --build "$out/scene" >/dev/null
  LD_LIBRARY_PATH="$libdir" "$out/scene/scene_consumer" "$src/scenes/pendulum.json" >/dev/null
  ok "find_package: first_world, the tutorial plugin, a consumer, a scene with shipped joints"
  # the CMake package names the plugin folder
  mkdir -p "$out/var"
  printf 'cmake_minimum_required(VERSION 3.20)\nproject(v LANGUAGES C)\nfind_package(sinew REQUIRED)\nmessage(STATUS "SINEW_PLUGIN_DIR=${SINEW_PLUGIN_DIR}")\n' \
    >"$out/var/CMakeLists.txt"
  local said
  said=$(cmake -S "$out/var" -B "$out/var/b" -DCMAKE_PREFIX_PATH="$prefix")
  grep -qF -- "SINEW_PLUGIN_DIR=$plugins" <<<"$said" ||
    { echo "install-test: find_package gives no SINEW_PLUGIN_DIR=$plugins" >&2; return 1; }
  ok "find_package: SINEW_PLUGIN_DIR"
  # a static program with every shipped type linked in, stepping on the thread pool
  mkdir -p "$out/static"
  cat >"$out/static/app.c" <<'APP'
#include <stdio.h>
#include <sinew/plugins_static.h>
#include <sinew/thread_pool.h>
int main(void) {
  char err[512];
  sn_registry *reg = sn_create_registry(NULL);
  if (sn_registry_add_shipped(reg, err, sizeof err) != SN_OK || sn_registry_get_type_count(reg) != 17) {
    fprintf(stderr, "%s\n", err);
    return 1;
  }
  sn_thread_pool *pool = sn_thread_pool_create(2);
  sn_world_def wd = sn_default_world_def();
  wd.registry = reg;
  sn_thread_pool_apply(pool, &wd);
  sn_world *w = sn_create_world(&wd, NULL);
  sn_body_def bd = sn_default_body_def();
  sn_body_id ground = sn_create_body(w, &bd);
  bd.type = SN_BODY_DYNAMIC;
  bd.position = (sn_vec2){1.0f, 5.0f};
  sn_body_id box = sn_create_body(w, &bd);
  sn_polygon p;
  sn_make_box(0.5f, 0.5f, &p);
  sn_shape_def sd = sn_default_shape_def();
  sn_create_polygon_shape(w, box, &sd, &p);
  sn_param_value v[] = {{"anchor", 0.0, 5.0}};
  sn_constraint_def cd = sn_default_constraint_def();
  cd.type = "revolute";
  cd.bodies[0] = ground;
  cd.bodies[1] = box;
  cd.params = v;
  cd.param_count = 1;
  if (!sn_constraint_is_valid(w, sn_create_constraint(w, &cd))) return 2;
  for (int i = 0; i < 60; ++i) sn_world_step(w, 1.0f / 60.0f);
  sn_vec2 x = sn_body_get_position(w, box);
  int ok = (x.x - 0.0f) * (x.x - 0.0f) + (x.y - 5.0f) * (x.y - 5.0f) < 1.0001f; /* still on its 1 m arm */
  sn_destroy_world(w);
  sn_thread_pool_destroy(pool);
  sn_destroy_registry(reg);
  return ok ? 0 : 3;
}
APP
  printf 'cmake_minimum_required(VERSION 3.20)\nproject(app LANGUAGES C)\nfind_package(sinew REQUIRED)\nadd_executable(app app.c)\ntarget_link_libraries(app PRIVATE sinew::plugins_static sinew::sinew_static sinew::threads)\n' \
    >"$out/static/CMakeLists.txt"
  cmake -S "$out/static" -B "$out/static/b" -DCMAKE_PREFIX_PATH="$prefix" >/dev/null
  cmake --build "$out/static/b" >/dev/null
  "$out/static/b/app"
  ok "a static program with every shipped type linked in, on sinew::threads"
  # pkg-config consumers
  local flags
  flags=$(PKG_CONFIG_PATH="$pc" pkg-config --cflags --libs sinew)
  cc -std=c17 -Wall -Wextra -Werror "$src/docs/examples/first_world/first_world.c" $flags -lm -o "$out/first_pc"
  LD_LIBRARY_PATH="$libdir" "$out/first_pc" >/dev/null
  flags=$(PKG_CONFIG_PATH="$pc" pkg-config --cflags --libs sinew-scene-io)
  cc -std=c17 -Wall -Wextra -Werror "$src/tests/consumer_scene/scene_consumer.c" $flags -o "$out/scene_pc"
  LD_LIBRARY_PATH="$libdir" "$out/scene_pc" "$src/scenes/pyramid10.json" >/dev/null
  ok "pkg-config: first_world, a scene"
  # the installed programs
  local list line
  (cd "$out" && "$prefix/bin/sinew-sandbox" --headless --scene demo-revolute --steps 30 >/dev/null &&
    "$prefix/bin/sinew-sandbox" --headless --scene "$src/scenes/pendulum.json" --steps 30 >/dev/null)
  list=$("$prefix/bin/sinew-sandbox" --list-plugins)
  grep -qF -- "from $plugins/revolute.so" <<<"$list" ||
    { echo "install-test: --list-plugins does not load $plugins/revolute.so" >&2; return 1; }
  line=$("$prefix/bin/sinew-plugin-check" --seeds 4 "$plugins/revolute.so")
  grep -qF "verdict: PASS" <<<"$line" || { echo "install-test: sinew-plugin-check: $line" >&2; return 1; }
  line=$("$prefix/bin/sinew-bench" --scene chain --steps 30)
  grep -qF '"scene": "chain"' <<<"$line" || { echo "install-test: bench chain: $line" >&2; return 1; }
  ok "installed sandbox (a plugin demo, a scene file, --list-plugins), sinew-plugin-check and bench (chain)"
}

check_prefix "$tmp/prefix" "$tmp/run1"
# exports and baked paths
bad=$(nm -D --defined-only "$(find "$tmp/prefix" -name 'libsinew.so' | head -n 1)" | awk '{print $3}' | grep -v '^sn_' || true)
[ -z "$bad" ] || { echo "install-test: libsinew exports non-sn_ symbols: $bad" >&2; exit 1; }
if grep -rlsF "$tmp/build" "$tmp/prefix" >/dev/null; then
  echo "install-test: an installed file holds a build-tree path" >&2
  exit 1
fi
ok "only sn_ symbols exported; no build-tree path installed"
for f in libsinew.so libsinew.a libsinew_plugins.a; do
  p=$(find "$tmp/prefix" -name "$f" | head -n 1)
  echo "install-test: size $f $(stat -L -c %s "$p") bytes"
done
# relocated
mv "$tmp/prefix" "$tmp/moved"
check_prefix "$tmp/moved" "$tmp/run2"
echo "install-test: passed (installed, relocated)"
