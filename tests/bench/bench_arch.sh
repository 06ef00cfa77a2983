#!/usr/bin/env bash
# The ARCH-COMP AINNCS benchmarks of jobs/arch (SPEC §15, docs/arch.md) on 1 and 2 ranks:
# verdict, wall and CPU time, pieces, peak RSS per rank — one CSV row each, printed beside the
# published verdict.  Run from the project root after a build:
#   tests/bench/bench_arch.sh [build/simreach] [pendulum tora acc unicycle]
# Each benchmark's extra options are in jobs/arch/<name>/options.  Report the machine load
# (uptime is printed) beside the figures; the machine of the ARCH-COMP reports differs.
set -u
exe=${1:-build/simreach}
shift || true
benches=${*:-pendulum tora acc unicycle}
extra=()
[ "$(id -u)" -eq 0 ] && extra+=(--allow-run-as-root)
declare -A published=([pendulum]=FALSIFIED [tora]=VERIFIED [acc]=VERIFIED [unicycle]=VERIFIED)
echo "# $(date -u +%FT%TZ) $(uptime)"
echo "benchmark,ranks,verdict,published,exit,wall_s,cpu_s,pieces,max_rss_mb"
for b in $benches; do
  d=jobs/arch/$b
  opts=$(cat "$d/options" 2> /dev/null)
  for np in 1 2; do
    log=$(mktemp)
    # shellcheck disable=SC2086
    mpiexec -n "$np" --oversubscribe "${extra[@]}" "$exe" closedloop -closedloop_progress 0 -plant "$d/plant.txt" -network "$d/controller.h5" -spec "$d/spec.txt" $opts > "$log" 2>&1
    rc=$?
    verdict=$(grep -o "closedloop: \(VERIFIED\|FALSIFIED\|UNKNOWN\)" "$log" | head -1 | awk '{print $2}')
    wall=$(sed -n 's/.*closedloop: wall \([0-9.]*\) s.*/\1/p' "$log")
    cpu=$(sed -n 's/.*CPU \([0-9.]*\) s on.*/\1/p' "$log")
    pieces=$(sed -n 's/.*(\([0-9]*\) pieces handled.*/\1/p; s/.*; \([0-9]*\) pieces handled.*/\1/p' "$log" | head -1)
    rss=$(sed -n 's/.*peak RSS \([0-9.]*\) MB.*/\1/p' "$log")
    echo "$b,$np,${verdict:-?},${published[$b]},$rc,${wall:-?},${cpu:-?},${pieces:-0},${rss:-?}"
    if [ "${verdict:-}" = VERIFIED ] && [ "${published[$b]}" = FALSIFIED ]; then echo "# UNSOUND: $b VERIFIED where the reports found a counterexample" >&2; exit 1; fi
    rm -f "$log"
  done
done
