#!/usr/bin/env bash
# The sandbox's window on a real X server (Xvfb) driven by real X11 input
# (xdotool, through the XTEST extension): pause, single steps, spawning a
# box, a ball and a jelly at the cursor, a debug-draw flag, zooming with the
# wheel, dragging a crate with the left button, quitting with q. The sandbox
# runs with --log-input, and the test asserts on its log: every action
# handled, the steps frozen while paused but for the single steps, the
# spawns at the cursor's world point and in the world's counts, the crate
# lifted by the drag, the zoom about the cursor, and a PNG of the last frame
# that is not a single colour.
# usage: window_check.sh SANDBOX PNG_CHECK OUTDIR SCENE.json
# Exit 77 (CTest SKIP_RETURN_CODE) when xvfb-run or xdotool is missing.
# shellcheck disable=SC2015 # "A && ok || bad": ok always succeeds
set -uo pipefail

if [ "${1:-}" != "--inside" ]; then
  for tool in xvfb-run xauth xdotool timeout; do
    if ! command -v "$tool" >/dev/null; then
      echo "SKIP: $tool not installed (Debian packages xvfb, xauth, xdotool)"
      exit 77
    fi
  done
  mkdir -p "$3"
  # a private X server for this run only; the whole test is bounded in time
  exec timeout --kill-after=10 120 xvfb-run -a -e "$3/xvfb.err" -s "-screen 0 1280x800x24 -nolisten tcp" \
    bash "$0" --inside "$@"
fi
shift
sb=$1 check=$2 out=$3 scene=$4
log=$out/window_x11.log shot=$out/window_x11.png
rm -f "$log" "$shot"
fail=0
ok() { echo "ok   $*"; }
bad() {
  echo "FAIL $*" >&2
  fail=1
}
pause() { sleep "${1:-0.3}"; }

# 640x480 at about 60 frames a second (vsync, or the sandbox's own cap): the
# bound is far more frames than the script needs; q ends the run before. One
# thread: the step's pool waits for descheduled workers when the machine is
# oversubscribed (ctest -j on 2 cores), and frames then take up to a second.
timeout 90 "$sb" --scene "$scene" --width 640 --height 480 --frames 3600 --threads 1 --log-input --screenshot "$shot" \
  >"$log" 2>"$out/window_x11.err" &
pid=$!
finish() {
  kill "$pid" 2>/dev/null
  echo "--- log:" >&2
  cat "$log" "$out/window_x11.err" >&2
  exit 1
}

# the window, mapped, and the scene loaded (its view logged)
win=$(timeout 30 xdotool search --sync --onlyvisible --name '^Sinew sandbox$' | head -n 1)
[ -n "$win" ] || { bad "no window named 'Sinew sandbox' within 30 s" && finish; }
for _ in $(seq 100); do
  grep -q '^view: ' "$log" && break
  pause 0.1
done
view=$(grep -m1 '^view: ' "$log") || { bad "no view line in the log" && finish; }
ok "window $win: $(grep -m1 '^window: ' "$log")"
# view: center (CX, CY) zoom Z px/m size WxH
read -r cx cy zoom w h < <(sed -E 's/^view: center \(([^,]+), ([^)]+)\) zoom ([^ ]+) px\/m size ([0-9]+)x([0-9]+)$/\1 \2 \3 \4 \5/' <<<"$view")
# screen X Y: the window pixel of world point (X, Y) under the first view
screen() { awk -v x="$1" -v y="$2" -v cx="$cx" -v cy="$cy" -v z="$zoom" -v w="$w" -v h="$h" \
  'BEGIN { printf "%d %d\n", w / 2 + (x - cx) * z + 0.5, h / 2 - (y - cy) * z + 0.5 }'; }
# expect N PATTERN: wait (at most 20 s) until the log has N lines matching PATTERN, so that
# slow frames do not merge actions that the checks need in separate frames
expect() {
  for _ in $(seq 200); do
    [ "$(grep -cE "$2" "$log")" -ge "$1" ] && return 0
    pause 0.1
  done
  bad "after 20 s, fewer than $1 log lines match '$2'"
  finish
}
move() {
  local px py
  read -r px py < <(screen "$1" "$2")
  xdotool mousemove --window "$win" --sync "$px" "$py"
}
key() { xdotool key --clearmodifiers "$1"; }

# keys go to the window under the pointer (no window manager), and to the focus
move 0 3
xdotool windowfocus --sync "$win" 2>/dev/null || true
pause

# F9 before any F5: nothing to go back to
key F9
expect 1 '^input: snapshot restore: none'

# pause, two single steps, run again
key space
expect 1 '^input: pause on'
pause 0.6
key s
expect 1 '^input: step'
pause
key s
expect 2 '^input: step'
pause
key space
expect 1 '^input: pause off'
pause

# a box, a ball and a jelly at the cursor, 3 m up between the crates
move -1.5 3 && pause 0.2 && key b && expect 1 '^input: spawn box'
move 0 3 && pause 0.2 && key c && expect 1 '^input: spawn ball'
move 1.5 3 && pause 0.2 && key j && expect 1 '^input: spawn jelly'
# debug draw: AABBs
key 2
expect 1 '^input: flag aabbs'

# drag the left crate (resting at (-4, 0.5)) 3 m up, in small moves, and hold it there
move -4 0.5
pause 0.2
xdotool mousedown 1
expect 1 '^input: drag (start|nothing|failed)'
for y in 1 1.5 2 2.5 3 3.5; do
  move -4 "$y"
  pause 0.1
done
pause 1.2
xdotool mouseup 1
expect 1 '^input: drag end'

# zoom in twice about the right crate (4, 0.5)
move 4 0.5
pause 0.2
xdotool click 4
expect 1 '^input: zoom'
xdotool click 4
expect 2 '^input: zoom'

# F5 saves the world (bodies 5 by now), it runs on, F9 goes back to the saved step
key F5
expect 1 '^input: snapshot save'
pause 0.5
key F9
expect 1 '^input: snapshot restore \(steps'

key q
wait "$pid"
rc=$?
[ $rc -eq 0 ] && ok "exit 0" || bad "sandbox exit $rc"

# ---- the log
L=$(cat "$log")
has() { grep -cE "$1" <<<"$L"; }
num() { grep -oE "$2" <<<"$1" | head -n 1 | grep -oE '[-0-9.]+$'; }
near() { awk -v a="$1" -v b="$2" -v t="$3" 'BEGIN { d = a - b; exit !(d <= t && d >= -t) }'; }

for line in '^input: pause on \(steps [0-9]+\)$' '^input: pause off \(steps [0-9]+\)$' '^input: flag aabbs on$' \
  '^input: quit$' '^world: exit: '; do
  [ "$(has "$line")" -eq 1 ] && ok "logged once: $line" || bad "not logged once: $line"
done
[ "$(has '^input: step \(steps [0-9]+\)$')" -eq 2 ] && ok "two single steps" || bad "single steps: $(has '^input: step')"

# paused: only the two single steps advanced the world
on=$(num "$(grep -m1 '^input: pause on' <<<"$L")" 'steps [0-9]+')
s1=$(num "$(grep -m1 '^input: step' <<<"$L")" 'steps [0-9]+')
s2=$(num "$(grep '^input: step' <<<"$L" | sed -n 2p)" 'steps [0-9]+')
off=$(num "$(grep -m1 '^input: pause off' <<<"$L")" 'steps [0-9]+')
if [ -n "$on" ] && [ "$s1" = "$on" ] && [ "$s2" = "$((on + 1))" ] && [ "$off" = "$((on + 2))" ]; then
  ok "pause froze the steps at $on; single steps $s1 -> $s2 -> $off"
else
  bad "pause: steps at pause on $on, single steps $s1 $s2, pause off $off (expected $on, $((on + 1)), $((on + 2)))"
fi

# spawns at the cursor's world point (a pixel is 1/zoom m)
tol=$(awk -v z="$zoom" 'BEGIN { print 1.5 / z }')
for spec in "box -1.5" "ball 0" "jelly 1.5"; do
  read -r kind x <<<"$spec"
  line=$(grep -m1 "^input: spawn $kind at " <<<"$L")
  px=$(sed -E 's/.* at \(([^,]+), ([^)]+)\)$/\1/' <<<"$line")
  py=$(sed -E 's/.* at \(([^,]+), ([^)]+)\)$/\2/' <<<"$line")
  if [ -n "$line" ] && near "$px" "$x" "$tol" && near "$py" 3 "$tol"; then
    ok "spawn $kind at ($px, $py)"
  else
    bad "spawn $kind: '$line', expected at ($x, 3) within $tol m"
  fi
done

# the world's counts: two more bodies, one more soft body with its particles and constraints
counts() { sed -E 's/.*bodies ([0-9]+), soft bodies ([0-9]+), particles ([0-9]+), constraints ([0-9]+)$/\1 \2 \3 \4/' <<<"$1"; }
read -r b0 k0 p0 c0 < <(counts "$(grep -m1 '^world: .*window_scene.json: steps 0,' <<<"$L")")
read -r b1 k1 p1 c1 < <(counts "$(grep -m1 '^world: exit: ' <<<"$L")")
if [ "${b0:-x}" = 3 ] && [ "${b1:-x}" = 5 ] && [ "$k1" = $((k0 + 1)) ] && [ "$p1" -gt "$p0" ] && [ "$c1" -gt "$c0" ]; then
  ok "counts: bodies $b0 -> $b1, soft bodies $k0 -> $k1, particles $p0 -> $p1, constraints $c0 -> $c1"
else
  bad "counts: bodies ${b0:-?} -> ${b1:-?} (want 3 -> 5), soft bodies ${k0:-?} -> ${k1:-?}, particles ${p0:-?} -> ${p1:-?}, constraints ${c0:-?} -> ${c1:-?}"
fi
steps=$(num "$(grep -m1 '^world: exit: ' <<<"$L")" 'steps [0-9]+')
frames=$(grep -oE ': [0-9]+ frames, [0-9]+ steps' <<<"$L" | grep -oE '^: [0-9]+' | grep -oE '[0-9]+')
if [ -n "$steps" ] && [ -n "$frames" ] && [ "$frames" -gt "$steps" ] && [ "$frames" -lt 3600 ]; then
  ok "$frames frames, $steps steps (frames while paused did not step; quit before the frame bound)"
else
  bad "frames $frames, steps $steps"
fi

# the snapshot: restored to the saved step with the same world (5 bodies, the jelly)
saved=$(num "$(grep -m1 '^input: snapshot save ' <<<"$L")" 'steps [0-9]+')
restored=$(num "$(grep -m1 -E '^input: snapshot restore \(' <<<"$L")" 'steps [0-9]+')
read -r b2 k2 p2 c2 < <(counts "$(grep -m1 '^world: restored: ' <<<"$L")")
if [ -n "$saved" ] && [ "$restored" = "$saved" ] && [ "${b2:-x}" = 5 ] && [ "$k2" = "$k1" ] && [ "$p2" = "$p1" ]; then
  ok "snapshot: saved at step $saved, restored to step $restored with $b2 bodies, $k2 soft bodies, $p2 particles"
else
  bad "snapshot: saved at ${saved:-?}, restored to ${restored:-?}, bodies ${b2:-?} soft ${k2:-?} particles ${p2:-?}"
fi

# the drag: the left crate grabbed where it rests, and held up high when released
start=$(grep -m1 '^input: drag start ' <<<"$L")
end=$(grep -m1 '^input: drag end ' <<<"$L")
body=$(grep -oE 'body [0-9]+' <<<"$start")
sx=$(sed -E 's/.* at \(([^,]+), ([^)]+)\).*/\1/' <<<"$start") sy=$(sed -E 's/.* at \(([^,]+), ([^)]+)\).*/\2/' <<<"$start")
ex=$(sed -E 's/.* at \(([^,]+), ([^)]+)\).*/\1/' <<<"$end") ey=$(sed -E 's/.* at \(([^,]+), ([^)]+)\).*/\2/' <<<"$end")
ds=$(num "$start" 'steps [0-9]+') de=$(num "$end" 'steps [0-9]+')
if [ -n "$body" ] && grep -q "^input: drag end $body at" <<<"$end" && near "$sx" -4 0.05 && near "$sy" 0.5 0.05 &&
  near "$ex" -4 0.5 && awk -v y="$ey" 'BEGIN { exit !(y > 2.0) }' && [ "$de" -gt "$ds" ]; then
  ok "drag: $body from ($sx, $sy) to ($ex, $ey) over $((de - ds)) steps"
else
  bad "drag: start '$start', end '$end' (want the body at (-4, 0.5) lifted above y = 2)"
fi

# zoom about the cursor: 1.15 twice, and the right crate's point stays under the cursor
[ "$(has '^input: zoom in at ')" -eq 2 ] && ok "two zoom steps" || bad "zoom: $(has '^input: zoom in') lines"
zv=$(grep '^view: ' <<<"$L" | tail -n 1)
read -r zcx zcy zz _ _ < <(sed -E 's/^view: center \(([^,]+), ([^)]+)\) zoom ([^ ]+) px\/m size ([0-9]+)x([0-9]+)$/\1 \2 \3 \4 \5/' <<<"$zv")
read -r mx my < <(screen 4 0.5)
if awk -v z0="$zoom" -v z="$zz" -v cx="$zcx" -v cy="$zcy" -v w="$w" -v h="$h" -v mx="$mx" -v my="$my" 'BEGIN {
  # the cursor pixel maps to the same world point before and after
  x0 = '"$cx"' + (mx - w / 2) / z0; y0 = '"$cy"' - (my - h / 2) / z0
  x1 = cx + (mx - w / 2) / z; y1 = cy - (my - h / 2) / z
  r = z / z0 - 1.3225; exit !(r < 1e-3 && r > -1e-3 && (x1 - x0) ^ 2 + (y1 - y0) ^ 2 < 1e-5) }'; then
  ok "zoom x1.3225 about the cursor: $zv"
else
  bad "zoom: first $view, last $zv"
fi

# the last frame
if "$check" "$shot" 640 480 >/dev/null; then ok "screenshot $shot"; else bad "screenshot $shot"; fi
[ $fail -eq 0 ] || finish
