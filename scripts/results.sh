#!/usr/bin/env bash
# Regenerates docs/results.md and docs/images/results.svg: Sinew against its
# peers (Box2D 2.4.1 and Chipmunk 7.0.3 from Debian) on the standard rigid
# scenes, measured by `sinew-bench --peers` in one run, with the machine it
# ran on. Takes a few minutes (pyramid 100 on the peers is slow).
#   scripts/results.sh            # install deps, build Release, run, write both files
#   SINEW_RESULTS_NO_DEPS=1 scripts/results.sh   # skip install-deps.sh
set -euo pipefail
cd "$(dirname "$0")/.."
[ "${SINEW_RESULTS_NO_DEPS:-0}" = 1 ] || scripts/install-deps.sh
build=build/release
cmake -S . -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build "$build" --target sinew-bench
bench="$build/bench/sinew-bench"

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
mkdir -p docs/images
load_before=$(cut -d' ' -f1-3 /proc/loadavg)
started=$(date -u '+%Y-%m-%d %H:%M UTC')
"$bench" --peers --svg docs/images/results.svg --table "$tmp/table.md" >"$tmp/lines.jsonl" 2>"$tmp/stderr.txt"
# Threads: the same scene on 1 and 2 workers (sinew::threads pool), turn
# about, twice each; the state hash must not change.
field() { grep -o "\"$1\": [^,}]*" "$2" | head -1 | sed 's/.*: //; s/"//g'; }
threads_table="$tmp/threads.md"
echo "| scene | workers | ms/step median: best (runs) | speedup | state_hash |" >"$threads_table"
echo "|---|---:|---|---:|---|" >>"$threads_table"
for spec in "pyramid 100 300" "cloth 128 120"; do
  set -- $spec
  for round in 1 2; do
    for t in 1 2; do
      "$bench" --scene "$1" --size "$2" --steps "$3" --threads "$t" >"$tmp/t_$1_${t}_$round.json"
    done
  done
  for t in 1 2; do
    a=$(field ms_step_median "$tmp/t_$1_${t}_1.json")
    b=$(field ms_step_median "$tmp/t_$1_${t}_2.json")
    best=$(printf '%s\n%s\n' "$a" "$b" | sort -g | head -1)
    h1=$(field state_hash "$tmp/t_$1_${t}_1.json")
    h2=$(field state_hash "$tmp/t_$1_${t}_2.json")
    [ "$h1" = "$h2" ] || { echo "results.sh: $1 $2 on $t workers: hash $h1 then $h2" >&2; exit 1; }
    eval "best_$t=$best; hash_$t=$h1; runs_$t=\"$a, $b\""
  done
  [ "$hash_1" = "$hash_2" ] || { echo "results.sh: $1 $2: 1 worker $hash_1, 2 workers $hash_2" >&2; exit 1; }
  speedup=$(awk -v a="$best_1" -v b="$best_2" 'BEGIN { printf "%.2f", a / b }')
  echo "| $1 $2 | 1 | $best_1 ($runs_1) | — | $hash_1 |" >>"$threads_table"
  echo "| $1 $2 | 2 | $best_2 ($runs_2) | $speedup | $hash_2 |" >>"$threads_table"
done
# Cloth (the XPBD target): single thread, two runs each, the best CPU
# time counts; projections = constraints x substeps x soft iterations.
cloth_table="$tmp/cloth.md"
echo "| scene | particles | constraints | CPU ms/step median: best (runs) | projections/s (CPU time) | max_strain | state_hash |" >"$cloth_table"
echo "|---|---:|---:|---|---:|---:|---|" >>"$cloth_table"
for n in 32 64 128; do
  for round in 1 2; do "$bench" --scene cloth --size "$n" --steps 120 >"$tmp/cloth_${n}_$round.json"; done
  a=$(field cpu_ms_step_median "$tmp/cloth_${n}_1.json"); b=$(field cpu_ms_step_median "$tmp/cloth_${n}_2.json")
  best_round=1; awk -v a="$a" -v b="$b" 'BEGIN { exit !(b < a) }' && best_round=2
  f="$tmp/cloth_${n}_$best_round.json"
  echo "| cloth $n | $(field particles "$f") | $(field constraints "$f") | $(field cpu_ms_step_median "$f") ($a, $b) | $(field cpu_proj_per_s "$f") | $(field max_strain "$f") | $(field state_hash "$f") |" >>"$cloth_table"
done
# Where Sinew's step goes (sn_world_get_profile medians, ms, wall clock).
profile_table="$tmp/profile.md"
echo "| scene | step | collide | solve setup | substeps | solve finish | sleep |" >"$profile_table"
echo "|---|---:|---:|---:|---:|---:|---:|" >>"$profile_table"
for spec in "pyramid 50 300" "pyramid 100 300" "rain 2000 600"; do
  set -- $spec
  "$bench" --scene "$1" --size "$2" --steps "$3" >"$tmp/prof_$1_$2.json"
  prof=$(grep -o '"profile_ms": {[^}]*}' "$tmp/prof_$1_$2.json" | sed 's/"profile_ms": //')
  part() { echo "$prof" | grep -o "\"$1\": [0-9.]*" | sed 's/.*: //'; }
  echo "| $1 $2 | $(field ms_step_median "$tmp/prof_$1_$2.json") | $(part collide) | $(part solve_setup) | $(part substeps) | $(part solve_finish) | $(part sleep) |" >>"$profile_table"
done
prof="$(grep -o '"profile_ms": {[^}]*}' "$tmp/cloth_128_1.json" | sed 's/"profile_ms": //')"
echo "| cloth 128 | $(field ms_step_median "$tmp/cloth_128_1.json") | $(part collide) | $(part solve_setup) | $(part substeps) | $(part solve_finish) | $(part sleep) |" >>"$profile_table"
# The single-thread targets against this run's CPU-time ratios.
ratio_of() { # scene size field
  grep "\"scene\": \"$1\", \"size\": $2," "$tmp/lines.jsonl" | grep '"ratio_box2d"' |
    grep -o "\"$3\": [0-9.]*" | head -1 | sed 's/.*: //'
}
targets_table="$tmp/targets.md"
echo "| target | needs | this run | met |" >"$targets_table"
echo "|---|---:|---:|---|" >>"$targets_table"
target() { # label needs(speedup) ratio
  local got; got=$(awk -v r="$3" 'BEGIN { if (r > 0) printf "%.2fx", 1 / r; else print "?" }')
  local met; met=$(awk -v r="$3" -v n="$2" 'BEGIN { print (r > 0 && 1 / r >= n) ? "yes" : "no" }')
  echo "| $1 | ${2}x | $got | $met |" >>"$targets_table"
}
for spec in "pyramid 50 4 3" "pyramid 100 4 3" "rain 2000 4 2.5"; do
  set -- $spec
  target "$1 $2 vs Box2D 2.4.1" "$3" "$(ratio_of "$1" "$2" cpu_ratio_box2d)"
  target "$1 $2 vs Chipmunk 7" "$4" "$(ratio_of "$1" "$2" cpu_ratio_chipmunk)"
done
p100_dx=$(grep '"engine": "sinew' "$tmp/lines.jsonl" | grep '"scene": "pyramid", "size": 100,' | grep -o '"max_dx": [0-9.]*' | sed 's/.*: //')
echo "| pyramid 100 max_dx (Sinew) | < 0.1 m | $p100_dx m | $(awk -v d="$p100_dx" 'BEGIN { print (d != "" && d < 0.1) ? "yes" : "no" }') |" >>"$targets_table"
cloth_best=$(grep "^| cloth 128 " "$cloth_table" | awk -F'|' '{ gsub(/ /, "", $6); print $6 }')
echo "| cloth 128 projections/s per core | 1.5e+08 | $cloth_best | $(awk -v p="$cloth_best" 'BEGIN { print (p >= 1.5e8) ? "yes" : "no" }') |" >>"$targets_table"
for spec in "pyramid 100" "cloth 128"; do
  sp=$(grep "^| $spec | 2 |" "$threads_table" | awk -F'|' '{ gsub(/ /, "", $5); print $5 }')
  echo "| $spec on two workers | 1.7x | ${sp}x | $(awk -v s="$sp" 'BEGIN { print (s >= 1.7) ? "yes" : "no" }') |" >>"$targets_table"
done
load_after=$(cut -d' ' -f1-3 /proc/loadavg)
if grep -q "peer not built" "$tmp/lines.jsonl"; then
  echo "results.sh: a peer engine is not built in (install libbox2d-dev libchipmunk-dev):" >&2
  grep "peer not built" "$tmp/lines.jsonl" >&2
  exit 1
fi

cpu=$(grep -m1 '^model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ *//')
cache=$(grep -m1 '^cache size' /proc/cpuinfo | cut -d: -f2- | sed 's/^ *//' || true)
avx2=$(grep -m1 -qw avx2 /proc/cpuinfo && echo "AVX2" || echo "no AVX2")
os=$(. /etc/os-release && echo "$PRETTY_NAME")
cc_version=$(cc --version | head -1)
cxx_version=$(c++ --version 2>/dev/null | head -1 || echo "none")
# The flags the engine was compiled with (from the compile database).
flags=$(grep -m1 '"command".*engine/src/collision/contact.c' "$build/compile_commands.json" |
        sed -e 's/.*"command": "//' -e 's/ -o .*//' | tr ' ' '\n' | grep -E '^-(O|D|f|m|std)' | tr '\n' ' ' | sed 's/ $//')
box2d_pkg=$(dpkg-query -W -f='${Version}' libbox2d-dev 2>/dev/null || echo "?")
chipmunk_pkg=$(dpkg-query -W -f='${Version}' libchipmunk-dev 2>/dev/null || echo "?")

# the Box2D suite's section (scripts/results-box2d.sh) is kept as it is
sed -n '/^<!-- box2d-suite/,/^<!-- \/box2d-suite -->/p' docs/results.md >"$tmp/suite_section.md" 2>/dev/null || true
{
  cat <<EOF
# Results: Sinew and its peers

Generated by \`scripts/results.sh\` (do not edit by hand; run it again). Every number below comes
from one run of \`sinew-bench --peers --svg docs/images/results.svg\`: the standard rigid scenes of
docs/benchmark.md on Sinew, Box2D 2.4.1 and Chipmunk 7.0.3 in the same process, the engines taking
turns of 10 steps (see [benchmark.md](benchmark.md#peers)). Single thread, Release, medians of the
per-step times; **Sinew ÷ engine** is the ratio of the medians (below 1: Sinew is faster), by the
monotonic clock (the \`ratio_*\` fields, as the benchmark protocol times steps) and by the thread's CPU
time (\`cpu_ratio_*\`), which a shared machine's time slicing does not inflate: with more runnable jobs
than cores, a step of a few ms is now and then descheduled for a whole slice, and the clock counts it.
The last section, Box2D v3's own benchmark suite, comes from \`scripts/results-box2d.sh\` (a run of its own).

**The peers are Debian's builds, with their assertions on** (libbox2d-dev $box2d_pkg calls
\`assert\`; libchipmunk-dev $chipmunk_pkg reports "Debug Enabled"). Their speed here is what a Debian
user gets, not the best each can do: builds with \`-DNDEBUG\` would be faster.

## Machine

- Run: $started, load average $load_before before and $load_after after (the machine is shared:
  the engines run interleaved so that load falls on each alike, but time slicing still inflates
  the clock's medians unevenly: compare the CPU-time ratios)
- CPU: $cpu ($(nproc) logical cores available, $avx2${cache:+, cache $cache})
- OS: $os; kernel \`$(uname -srmo)\`
- Compilers: $cc_version; C++ (the Box2D driver): $cxx_version
- Sinew flags: \`$flags\`
- Settings: Sinew at its defaults (8 substeps); Box2D 8 velocity / 3 position iterations (its
  testbed); Chipmunk 30 iterations (its stacking demo), collision slop 0.005 m. Sleeping off for all.

## Targets in this run

Speedups are the inverse of the CPU-time ratios below (single thread, same process, engines
interleaved); the cloth figure is the best of two CPU-time runs; the two-worker speedups are from
the table further down (wall clock: on a shared machine the second worker competes with other jobs).

EOF
  cat "$targets_table"
  cat <<'EOF'

## Table

EOF
  cat "$tmp/table.md"
  cat <<'EOF'

top_drift, max_dx, fallen, min_y_gap and ke_end are the stability fields of docs/benchmark.md
(for rain and chain top_drift and max_dx measure flow, not collapse, and are left out);
link_error is the chain's worst joint separation over the link length.

## Two threads

Not a peer comparison (the peers run on one thread): Sinew's own scaling, `sinew-bench --scene S
--threads N` with the `sinew::threads` pool, 1 and 2 workers turn about, two runs each (the
best median counts; both are shown). The state hash is the same on every run: threads never change
a result. On a 2-core machine shared with other jobs, the second worker competes with them.

EOF
  cat "$threads_table"
  cat <<'EOF'

## Cloth (XPBD)

Sinew alone (no peer has XPBD cloth): `sinew-bench --scene cloth --size N --steps 120`, single
thread, two runs, the lower CPU time counts. Projections per second = constraints x substeps x
soft iterations over the CPU time of the median step (the whole step: prediction, collisions and
the rest count against it).

EOF
  cat "$cloth_table"
  cat <<'EOF'

## Where Sinew's step goes

Medians of `sn_world_get_profile` over one single-thread run (ms, wall clock; the parts meet end to
start and add up to the step; see [benchmark.md](benchmark.md)).

EOF
  cat "$profile_table"
  cat <<'EOF'

## ms per step against body count (pyramid N)

![ms per step against dynamic bodies, pyramid 10 to 100](images/results.svg)

## The lines

One JSON line per engine per scene, then the ratio line (ratio = Sinew time / peer time,
speedup = its inverse):

```json
EOF
  cat "$tmp/lines.jsonl"
  echo '```'
  if [ -s "$tmp/suite_section.md" ]; then
    echo
    cat "$tmp/suite_section.md"
  fi
} >docs/results.md
echo "results.sh: wrote docs/results.md and docs/images/results.svg"
