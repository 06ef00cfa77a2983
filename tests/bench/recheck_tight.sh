#!/usr/bin/env bash
# The tight settings of issue 15 (SPEC §11): the re-check must give 0 falsified and 0 unknown.
# Each is a one-run study (beta 0.15, tau 0.05, seed 1) of the shipped job file with the lists
# made as tight as the options allow; the rows carry the run's per-checkpoint re-check, and
# simreach check re-verifies the stored triples (printing the cost per cell).
# Usage: tests/bench/recheck_tight.sh BUILD_DIR OUT_DIR [NP]
set -uo pipefail
build=$1 out=$2 np=${3:-1}
src=$(cd "$(dirname "$0")/../.." && pwd)
mkdir -p "$out"
S="mpiexec -n $np --oversubscribe --allow-run-as-root $build/simreach"
one="-beta 0.15 -tau 0.05 -seeds 1 -force"
run() { # NAME OPTIONS...
  local name=$1; shift
  /usr/bin/time -f "$name study: %e s" $S study "$@" $one -output "$out/$name.h5" -log_view ascii:"$out/$name.logview" > "$out/$name.study.log" 2>&1
  grep -E "^Criterion 3|study:" "$out/$name.study.log"
  # the run's own re-check: calls (one per checkpoint) and seconds
  grep -E "^SRRunRecheck " "$out/$name.logview" | awk -v n="$name" '{print n " run re-check: " $2 " calls, " $4 " s"}'
  /usr/bin/time -f "$name check: %e s" $S check "$out/$name.h5" > "$out/$name.check.log" 2>&1; echo "$name check exit $?"
  grep -E "^simreach check:" "$out/$name.check.log"
}
run toy1d_taylor1_m0    -options_file "$src/jobs/toy1d.opts" -cells 1000 -enclosure taylor1 -succ_margin 0
run pendulum_wm_both    -options_file "$src/jobs/pendulum.opts" -model dynamics -control_steps 1 -enclosure both
run pendulum_taylor1_m0 -options_file "$src/jobs/pendulum.opts" -enclosure taylor1 -succ_margin 0
run dubins_both         -options_file "$src/jobs/dubins.opts" -cells 12,10,10 -enclosure both
