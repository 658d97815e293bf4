#!/usr/bin/env bash
# The sandbox's command line: listings, the JSON line, the summary and its
# screenshot, bad arguments (clear message, nonzero exit), scene files (not
# in this build yet), the fallback to headless without a display, and windows on the dummy driver.
# usage: cli.sh SANDBOX PNG_CHECK OUTDIR PLUGIN_DIR (PLUGIN_DIR "linked-in": a build that loads no plugin files)
# shellcheck disable=SC2015 # "A && ok || bad": ok always succeeds
set -uo pipefail
sb=$1 check=$2 out=$3 plugins=$4
mkdir -p "$out"
fail=0
ok() { echo "ok   $*"; }
bad() { echo "FAIL $*" >&2; fail=1; }
# expect_fail NAME EXPECTED_TEXT -- command...: nonzero exit and the text on stderr
expect_fail() {
  local name=$1 text=$2
  shift 3
  local err rc
  err=$("$@" 2>&1 >/dev/null)
  rc=$?
  if [ $rc -ne 0 ] && grep -qF -- "$text" <<<"$err"; then ok "$name (exit $rc)"; else bad "$name: exit $rc, stderr: $err"; fi
}

# --list-scenes: every standard scene and every plugin demo, the default marked
list=$("$sb" --list-scenes) || bad "--list-scenes exit"
for s in pyramid tower rain ratio chain cloth jelly mixed showcase demo-revolute demo-prismatic demo-wheel \
  demo-distance demo-weld demo-motor demo-mouse demo-jelly demo-xpbd_distance demo-xpbd_area demo-xpbd_bend \
  demo-xpbd_tether demo-attach demo-ragdoll demo-gears demo-character demo-casts demo-conveyor \
  demo-explosion; do
  grep -q "^$s " <<<"$list" || bad "--list-scenes lacks $s"
done
grep -q "^showcase .*\[default\]" <<<"$list" && ok "--list-scenes" || bad "--list-scenes: showcase not the default"

# --list-plugins: each shipped type with parameters, defaults and ranges
list=$("$sb" --list-plugins) || bad "--list-plugins exit"
for t in revolute prismatic wheel distance weld motor mouse; do
  grep -q "^$t  \[impulse, [12] bod" <<<"$list" || bad "--list-plugins lacks type $t"
done
grep -qE "^  anchor +vec2 +default 0 +range \[-1e\+06, 1e\+06\] +at creation" <<<"$list" || bad "--list-plugins: no anchor row"
for t in xpbd_distance xpbd_area xpbd_bend xpbd_tether; do
  grep -q "^$t  \[xpbd, 0 bodies\]" <<<"$list" || bad "--list-plugins lacks type $t"
done
grep -q "^attach  \[xpbd, 1 body\]" <<<"$list" || bad "--list-plugins lacks type attach"
grep -qE "^  max_force +float +default 1000 +range \[0, 1e\+09\] +runtime" <<<"$list" && ok "--list-plugins" ||
  bad "--list-plugins: no mouse max_force row"

# an explicit --plugin (loading the folder's file again is a no-op) and a missing one; a build
# that loads no plugin files has the shipped types linked in and refuses every --plugin
if [ "$plugins" = linked-in ]; then
  grep -q "^17 constraint types (linked in: this build loads no plugin files)" <<<"$list" && ok "--list-plugins linked in" ||
    bad "--list-plugins: not the linked-in types"
  expect_fail "--plugin refused" "loads no files" -- "$sb" --list-plugins --plugin /nonexistent/revolute.so
else
  "$sb" --list-plugins --plugin "$plugins/revolute.so" >/dev/null && ok "--plugin PATH" || bad "--plugin PATH"
  expect_fail "--plugin missing" "/nonexistent/x.so" -- "$sb" --list-plugins --plugin /nonexistent/x.so
fi

# bad arguments
expect_fail "unknown scene" "unknown scene 'no-such-scene'" -- "$sb" --headless --scene no-such-scene --steps 1
expect_fail "unknown option" "unknown or incomplete argument '--frobnicate'" -- "$sb" --frobnicate
expect_fail "bad --steps" "--steps wants a whole number" -- "$sb" --headless --steps ten
expect_fail "bad --width" "--width wants a whole number" -- "$sb" --headless --width 0
expect_fail "bad --draw" "--draw: unknown flag" -- "$sb" --headless --draw shapes,colour
expect_fail "scene file missing" "$out/x.json: cannot open" -- "$sb" --headless --scene "$out/x.json"
"$sb" --headless --scene "$(dirname "$0")/../../scenes/mixed.json" --steps 60 --screenshot "$out/mixed.png" >/dev/null &&
  "$check" "$out/mixed.png" 1280 720 >/dev/null && ok "scene file (scenes/mixed.json)" || bad "scene file mixed.json"
# a scene file's --json line: its own counts and settings (3 soft bodies, 54
# particles, 91 constraints, sleep on in scenes/mixed.json)
mixed=$(cd "$(dirname "$0")/../../scenes" && pwd)/mixed.json
json=$("$sb" --headless --scene "$mixed" --steps 5 --json --screenshot "$out/mixed-json.png") || bad "scene file --json exit"
grep -q '"bodies": 15, "particles": 54, "constraints": 91, "settings": "substeps=8 soft_iterations=1 sleep=on"' \
  <<<"$json" && ok "scene file --json counts" || bad "scene file --json counts: $json"
# a scene file with a chain: the Box2D suite's spinner (a loop chain of 360 points as its
# container, a motor on a revolute joint), its one constraint loaded
spinner=$(cd "$(dirname "$0")/../../scenes" && pwd)/box2d_spinner.json
json=$("$sb" --headless --scene "$spinner" --steps 5 --json --screenshot "$out/spinner.png") || bad "spinner file exit"
grep -q '"bodies": 3039, "particles": 0, "constraints": 1, "settings": "substeps=8 soft_iterations=1 sleep=on"' <<<"$json" &&
  "$check" "$out/spinner.png" 1280 720 >/dev/null && ok "scene file with a chain (scenes/box2d_spinner.json)" ||
  bad "scene file box2d_spinner.json: $json"
# the default screenshot name of a scene file: its base name, in the current folder
(cd "$out" && rm -f sandbox-mixed.png && "$sb" --headless --scene "$mixed" --steps 2 >/dev/null &&
  [ -f sandbox-mixed.png ]) && ok "default screenshot name of a scene file" || bad "default screenshot name of a scene file"
# --camera: a view of one's own; a malformed one is refused
"$sb" --headless --scene "$mixed" --steps 2 --camera 0,2,40 --screenshot "$out/camera.png" >/dev/null &&
  "$check" "$out/camera.png" 1280 720 >/dev/null && ok "--camera" || bad "--camera"
expect_fail "bad --camera" "--camera wants X,Y,ZOOM" -- "$sb" --headless --camera 0,2
expect_fail "bad --camera zoom" "--camera wants X,Y,ZOOM" -- "$sb" --headless --camera 0,2,0

# --json: the benchmark's line with docs/benchmark.md's field names
json=$("$sb" --headless --scene pyramid --steps 60 --json --screenshot "$out/json.png") || bad "--json exit"
for f in engine scene size steps bodies particles constraints settings ms_step_median ms_step_p95 ms_total top_drift \
  max_dx fallen min_y_gap ke_end max_strain max_area_error state_hash; do
  grep -q "\"$f\": " <<<"$json" || bad "--json lacks $f"
done
grep -q '^{"engine": "sinew-[0-9.]*", "scene": "pyramid", "size": 20, "steps": 60, "bodies": 210,' <<<"$json" &&
  [ "$(wc -l <<<"$json")" -eq 1 ] && ok "--json" || bad "--json: $json"

# the same scene and steps give the same state hash through the sandbox and the benchmark library
json2=$("$sb" --headless --scene pyramid --steps 60 --json --screenshot "$out/json2.png")
[ "$(grep -o '"state_hash": "[0-9a-f]*"' <<<"$json")" = "$(grep -o '"state_hash": "[0-9a-f]*"' <<<"$json2")" ] &&
  ok "deterministic hash" || bad "hash differs between runs"

# the showcase (default scene) mixes rigid and soft bodies and stays sane for 600 steps:
# bodies and particles tracked, a finite and small kinetic energy at the end, no body farther than
# 25 m from where it started (the pendulum swings about 10 m)
json=$("$sb" --headless --steps 600 --json --screenshot "$out/showcase600.png") || bad "showcase 600 steps exit"
bodies=$(grep -o '"bodies": [0-9]*' <<<"$json" | grep -o '[0-9]*$')
particles=$(grep -o '"particles": [0-9]*' <<<"$json" | grep -o '[0-9]*$')
ke=$(grep -o '"ke_end": [^,]*' <<<"$json" | sed 's/"ke_end": //')
dx=$(grep -o '"max_dx": [^,]*' <<<"$json" | sed 's/"max_dx": //')
if grep -q '"scene": "showcase"' <<<"$json" && [ "${bodies:-0}" -gt 0 ] && [ "${particles:-0}" -gt 0 ] &&
  grep -qE '^[0-9]+(\.[0-9]+)?(e[-+][0-9]+)?$' <<<"$ke" && awk -v k="$ke" -v d="$dx" 'BEGIN { exit !(k < 100 && d < 25) }'; then
  ok "showcase 600 steps (bodies $bodies, particles $particles, ke_end $ke, max_dx $dx)"
else
  bad "showcase 600 steps: $json"
fi
"$check" "$out/showcase600.png" 1280 720 >/dev/null || bad "showcase 600 png"

# the summary line names the screenshot; default size 1280x720 with the overlay
sum=$("$sb" --headless --scene showcase --steps 30 --screenshot "$out/showcase.png") || bad "summary exit"
grep -q "showcase: 30 steps.*screenshot $out/showcase.png (1280x720)" <<<"$sum" && ok "summary" || bad "summary: $sum"
"$check" "$out/showcase.png" 1280 720 >/dev/null || bad "showcase png"
"$sb" --headless --scene demo-mouse --steps 30 --draw all --screenshot "$out/all.png" >/dev/null &&
  "$check" "$out/all.png" 1280 720 >/dev/null && ok "--draw all" || bad "--draw all"
# --help lists the flags from the list --draw reads: every one it names is accepted
flags=$("$sb" --help | sed -nE 's/^  --draw LIST .*flags: ([a-z,]+),all$/\1/p')
[ "$(tr ',' '\n' <<<"$flags" | grep -c .)" -eq 10 ] || bad "--help: not the 10 draw flags: '$flags'"
"$sb" --headless --scene demo-mouse --steps 1 --draw "$flags" --screenshot "$out/flags.png" >/dev/null &&
  ok "--draw $flags" || bad "--draw $flags (as --help lists them) refused"

# no display: the window command falls back to headless and says where the picture went
fb=$(cd "$out" && env -u DISPLAY -u WAYLAND_DISPLAY "$sb" --scene ratio --steps 10 2>"$out/fallback.err")
rc=$?
if [ $rc -eq 0 ] && grep -q "running headless" "$out/fallback.err" && grep -q "screenshot sandbox-ratio.png" <<<"$fb" &&
  "$check" "$out/sandbox-ratio.png" 1280 720 >/dev/null; then
  ok "no-display fallback"
else
  bad "no-display fallback: exit $rc, $fb, $(cat "$out/fallback.err")"
fi
# a window on SDL's dummy driver (no display): N frames of one step, then the screenshot
win=$(cd "$out" && env -u DISPLAY -u WAYLAND_DISPLAY SDL_VIDEODRIVER=dummy "$sb" --scene demo-motor --frames 30 \
  --screenshot "$out/window.png" 2>&1)
rc=$?
if [ $rc -eq 0 ] && grep -q "window (dummy driver): demo-motor: 30 frames, 30 steps; screenshot $out/window.png" <<<"$win" &&
  "$check" "$out/window.png" 1280 720 >/dev/null; then
  ok "window (dummy driver)"
else
  bad "window: exit $rc, $win"
fi
# a scene file in a window (it used to show the first built-in scene instead), with --log-input's
# start and exit lines
scenes=$(cd "$(dirname "$0")/../../scenes" && pwd)
win=$(cd "$out" && env -u DISPLAY -u WAYLAND_DISPLAY SDL_VIDEODRIVER=dummy "$sb" --scene "$scenes/mixed.json" --frames 5 \
  --log-input 2>&1)
rc=$?
if [ $rc -eq 0 ] && grep -q "^world: $scenes/mixed.json: steps 0, bodies 18, soft bodies 3, particles 54," <<<"$win" &&
  grep -q "^world: exit: steps 5, bodies 18, soft bodies 3, particles 54," <<<"$win" &&
  grep -q "window (dummy driver): $scenes/mixed.json: 5 frames, 5 steps" <<<"$win"; then
  ok "window (dummy driver): scene file, --log-input"
else
  bad "window scene file: exit $rc, $win"
fi
expect_fail "bad --frames" "--frames wants a whole number" -- "$sb" --frames -3
exit $fail
