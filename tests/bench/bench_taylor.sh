#!/bin/sh
# taylor1 against interval in one run (SPEC §7; a benchmark, not a test): SREnclosureCompute on
# the same pendulum grid cells, dynamics model 2-W-W-2 (random initial weights) and, if a
# network file is given, the same for `simreach verify -network FILE` (enclosure phase).
# Prints cells/s per core (CPU time) of both and the ratio taylor1 / interval, with the load.
#   tests/bench/bench_taylor.sh BUILD_DIR [NETWORK.h5]     (env: GRID=400 WIDTHS="32,32 64,64")
set -eu
BUILD=$(cd "${1:?usage: bench_taylor.sh BUILD_DIR [NETWORK.h5]}" && pwd)
NET=${2:-}
GRID=${GRID:-400}
WIDTHS=${WIDTHS:-"32,32 64,64"}
echo "# $(date -u '+%F %T'); uptime: $(uptime)"
for W in $WIDTHS; do
  ri=$("$BUILD/tests/bench_enclosure" -grid "$GRID" -mlp_widths "$W" -enclosure interval -reps 3 | grep '^RESULT')
  rt=$("$BUILD/tests/bench_enclosure" -grid "$GRID" -mlp_widths "$W" -enclosure taylor1 -reps 3 | grep '^RESULT')
  echo "$ri" "$rt" | awk '{ci = $5 / $7; ct = $14 / $16;
    printf "%s %d cells: interval %.3g cells/s (CPU %.3f s, mean width %.3g), taylor1 %.3g cells/s (CPU %.3f s, mean width %.3g): taylor1/interval time %.2f\n",
      $3, $5, ci, $7, $9, ct, $16, $18, ci / ct}'
done
if [ -n "$NET" ]; then
  enc() { "$BUILD/simreach" verify -network "$NET" -cells "$GRID,$GRID" -enclosure "$1" | grep -o 'enclosure [0-9.]* s' | awk '{print $2}'; }
  ti=$(enc interval); tt=$(enc taylor1)
  echo "verify -network $NET -cells $GRID,$GRID: enclosure phase interval $ti s, taylor1 $tt s: ratio $(echo "$tt $ti" | awk '{printf "%.2f", $1 / $2}')"
fi
echo "# uptime: $(uptime)"
