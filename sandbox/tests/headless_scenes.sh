#!/usr/bin/env bash
# Every built-in scene (as --list-scenes names them) runs headless for 60
# steps and writes a 640x360 PNG that decodes, has that size and more than
# one colour. The frame has no overlay, so the colours come from the world.
# usage: headless_scenes.sh SANDBOX PNG_CHECK OUTDIR
set -euo pipefail
sandbox=$1 check=$2 out=$3
mkdir -p "$out"
mapfile -t scenes < <("$sandbox" --list-scenes | awk '{print $1}')
if [ ${#scenes[@]} -lt 5 ]; then
  echo "FAIL: --list-scenes gave ${#scenes[@]} scenes" >&2
  exit 1
fi
fail=0
for s in "${scenes[@]}"; do
  png="$out/$s.png"
  rm -f "$png"
  if ! "$sandbox" --headless --scene "$s" --steps 60 --screenshot "$png" --width 640 --height 360 --no-overlay \
    >"$out/$s.log" 2>&1; then
    echo "FAIL: scene $s exited nonzero:" >&2
    cat "$out/$s.log" >&2
    fail=1
    continue
  fi
  if ! "$check" "$png" 640 360; then
    echo "FAIL: scene $s: bad screenshot" >&2
    fail=1
  fi
done
[ $fail -eq 0 ] && echo "all ${#scenes[@]} scenes rendered"
exit $fail
