#!/usr/bin/env bash
# The ARCH-COMP AINNCS benchmarks of jobs/arch (SPEC §15, docs/arch.md) on 1 and 2 ranks:
# verdict, wall and CPU time, pieces, peak RSS per rank — one CSV row each, printed beside the
# published verdict.  Run from the project root after a build:
#   tests/bench/bench_arch.sh [build/simreach] [pendulum tora acc unicycle double_pendulum_less
#     double_pendulum_more tora_relu_tanh tora_sigmoid airplane attitude_control docking
#     vcas_19_5 vcas_22_5 vcas_25_5 vcas_28_5 quad quad_small]
# An instance folder may hold 'networks' (the -network argument, paths from the project root:
# VCAS's nine networks) and 'plant' (the plant file's path, shared by the four VCAS instances).
# Each benchmark's extra options are in jobs/arch/<name>/options; BENCH_EXTRA adds options to
# every run (e.g. -closedloop_network forward to compare the controller enclosures).
# BENCH_TIMEOUT=S caps each run at S seconds: a capped run prints verdict TIMEOUT and the pieces
# of its last progress line (pieces handled, proven, open, queued).  Report the machine load
# (uptime is printed before each benchmark) beside the figures; the ARCH-COMP machines differ.
# The published column is the verdict of the ARCH-COMP AINNCS reports (docs/arch.md; quad: none
# for the published X0, JuliaReach verified quad_small's smaller one).
set -u
exe=${1:-build/simreach}
shift || true
# the program first (issue 34): a folder or a missing file is refused in one line, exit 2
if [ ! -f "$exe" ] || [ ! -x "$exe" ]; then
  echo "bench_arch.sh: $exe is not an executable file; give the simreach program, e.g. build/simreach" >&2
  exit 2
fi
benches=${*:-pendulum tora acc unicycle double_pendulum_less double_pendulum_more tora_relu_tanh tora_sigmoid airplane attitude_control docking vcas_19_5 vcas_22_5 vcas_25_5 vcas_28_5 quad quad_small}
extra=()
[ "$(id -u)" -eq 0 ] && extra+=(--allow-run-as-root)
declare -A published=([pendulum]=FALSIFIED [tora]=VERIFIED [acc]=VERIFIED [unicycle]=VERIFIED
  [double_pendulum_less]=FALSIFIED [double_pendulum_more]=FALSIFIED [tora_relu_tanh]=VERIFIED
  [tora_sigmoid]=VERIFIED [airplane]=FALSIFIED [attitude_control]=VERIFIED [docking]=VERIFIED
  [vcas_19_5]=VERIFIED [vcas_22_5]=VERIFIED [vcas_25_5]=FALSIFIED [vcas_28_5]=FALSIFIED [quad]=- [quad_small]=VERIFIED)
# Where each published verdict comes from (the markdown table's source column; docs/arch.md
# "Published verdicts"): R the ARCH-COMP22 AINNCS report (doi 10.29007/wfgr), J the result line of
# its JuliaReach repeatability package (JuliaReach/ARCH2022_AINNCS_RE), M the verdict that
# ClosedLoopReachability.jl's model of the benchmark asserts, - none published for this instance.
declare -A source=([pendulum]=R [tora]=R [acc]=R [unicycle]=R [double_pendulum_less]="R, J"
  [double_pendulum_more]="R, J" [tora_relu_tanh]="R, J" [tora_sigmoid]="R, J" [airplane]="R, J"
  [attitude_control]="R, J" [docking]="R (J: a smaller X0)" [vcas_19_5]=M [vcas_22_5]=M [vcas_25_5]=M
  [vcas_28_5]=M [quad]=- [quad_small]="J")
declare -A md_v1 md_v2 md_cpu1 md_wall2 md_pieces md_rss1
echo "# $(date -u +%FT%TZ) $(uptime)"
echo "benchmark,ranks,verdict,published,exit,wall_s,cpu_s,pieces,max_rss_mb"
tmo=() prog=0
[ -n "${BENCH_TIMEOUT:-}" ] && tmo=(timeout "$BENCH_TIMEOUT") prog=1
for b in $benches; do
  echo "# $b: $(uptime)"
  d=jobs/arch/$b
  opts=$(cat "$d/options" 2> /dev/null)
  for np in 1 2; do
    log=$(mktemp)
    nets=("$d"/*.onnx "$d"/nn_*.txt) # the published controller (jobs/arch/PROVENANCE.md): ONNX, else POLAR text
    net=${nets[0]}
    [ -e "$net" ] || net=${nets[1]}
    [ -f "$d/networks" ] && net=$(cat "$d/networks")
    plant=$d/plant.txt
    [ -f "$d/plant" ] && plant=$(cat "$d/plant")
    t0=$(date +%s.%N)
    # shellcheck disable=SC2086
    "${tmo[@]}" mpiexec -n "$np" --oversubscribe "${extra[@]}" "$exe" closedloop -closedloop_progress "$prog" -plant "$plant" -network "$net" -spec "$d/spec.txt" $opts ${BENCH_EXTRA:-} > "$log" 2>&1
    rc=$?
    verdict=$(grep -o "closedloop: \(VERIFIED\|FALSIFIED\|UNKNOWN\)" "$log" | head -1 | awk '{print $2}')
    wall=$(sed -n 's/.*closedloop: wall \([0-9.]*\) s.*/\1/p' "$log")
    cpu=$(sed -n 's/.*CPU \([0-9.]*\) s on.*/\1/p' "$log")
    pieces=$(sed -n 's/.*(\([0-9]*\) pieces handled.*/\1/p; s/.*; \([0-9]*\) pieces handled.*/\1/p' "$log" | head -1)
    rss=$(sed -n 's/.*peak RSS \([0-9.]*\) MB.*/\1/p' "$log")
    if [ "$rc" = 124 ]; then
      verdict=TIMEOUT wall=$(echo "$(date +%s.%N) - $t0" | bc) cpu="?"
      pieces=$(grep "pieces, .* proven" "$log" | tail -1 | sed 's/closedloop: //; s/,//g; s/ s$//' | awk '{print $1"_handled/"$3"_proven/"$5"_open/"$7"_queued"}')
    fi
    echo "$b,$np,${verdict:-?},${published[$b]},$rc,${wall:-?},${cpu:-?},${pieces:-0},${rss:-?}"
    if [ "$np" = 1 ]; then md_v1[$b]=${verdict:-?} md_cpu1[$b]=${cpu:-?} md_pieces[$b]=${pieces:-0} md_rss1[$b]=${rss:-?}; else md_v2[$b]=${verdict:-?} md_wall2[$b]=${wall:-?}; fi
    if [ "${verdict:-}" = VERIFIED ] && [ "${published[$b]}" = FALSIFIED ]; then echo "# UNSOUND: $b VERIFIED where the reports found a counterexample" >&2; exit 1; fi
    rm -f "$log"
  done
done
# The table of docs/arch.md (issue 35): one row per instance, CPU and peak RSS on 1 rank, wall on 2.
echo "# markdown (docs/arch.md):"
echo "| instance | published (source) | simreach, 1 / 2 ranks | pieces | CPU s, 1 rank | wall s, 2 ranks | peak RSS MB, 1 rank |"
echo "|---|---|---|---|---|---|---|"
for b in $benches; do
  echo "| $b | ${published[$b]} (${source[$b]}) | ${md_v1[$b]:-?} / ${md_v2[$b]:-?} | ${md_pieces[$b]:-?} | ${md_cpu1[$b]:-?} | ${md_wall2[$b]:-?} | ${md_rss1[$b]:-?} |"
done
# The work queue's scaling where many pieces are needed (issue 25 asks >= 1.8x from 1 to 2 ranks
# wherever >= 64 pieces are needed; no ARCH instance needs that many): TORA with X0 three times
# wider per dimension (tests/bench/data/tora_wide_spec.txt), same options.  BENCH_NO_SCALING=1 skips.
if [ -z "${BENCH_NO_SCALING:-}" ]; then
  d=jobs/arch/tora
  declare -A w
  for np in 1 2; do
    echo "# tora_wide: $(uptime)"
    log=$(mktemp)
    # shellcheck disable=SC2046
    "${tmo[@]}" mpiexec -n "$np" --oversubscribe "${extra[@]}" "$exe" closedloop -closedloop_progress 0 -plant "$d/plant.txt" -network "$d/controllerTora.onnx" -spec tests/bench/data/tora_wide_spec.txt $(cat "$d/options") > "$log" 2>&1
    rc=$?
    w[$np]=$(sed -n 's/.*closedloop: wall \([0-9.]*\) s.*/\1/p' "$log")
    echo "tora_wide,$np,$(grep -o 'closedloop: \(VERIFIED\|FALSIFIED\|UNKNOWN\)' "$log" | awk '{print $2}'),-,$rc,${w[$np]:-?},$(sed -n 's/.*CPU \([0-9.]*\) s on.*/\1/p' "$log"),$(sed -n 's/.*(\([0-9]*\) pieces handled.*/\1/p' "$log"),$(sed -n 's/.*peak RSS \([0-9.]*\) MB.*/\1/p' "$log")"
    rm -f "$log"
  done
  [ -n "${w[1]:-}" ] && [ -n "${w[2]:-}" ] && echo "# tora_wide speed-up 1 -> 2 ranks (wall): $(echo "scale=2; ${w[1]} / ${w[2]}" | bc)x"
fi
