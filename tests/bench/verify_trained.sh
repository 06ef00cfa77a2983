#!/usr/bin/env bash
# A user's path through SPEC §10 on 2 ranks (a benchmark and a demonstration, not a test):
#   1. the default study's results file (RESULTS, default results.h5 of ./jobs/quickstart.sh);
#   2. simreach verify of one of its trained networks (run 0, final checkpoint) on 10^6 cells,
#      then simreach check on the abstraction file;
#   3. a PyTorch-trained pendulum network (analysis/network_torch.py) on 10^6 cells, verify + check;
#   4. a PyTorch-trained Dubins controller on 100^3 cells, verify (both enclosures) + check.
# Prints each command's phase times, outcome line and peak RSS per rank (/usr/bin/time -f %M).
# Usage: verify_trained.sh BUILD_DIR [RESULTS] [WORKDIR]
set -uo pipefail
build=$(cd "$1" && pwd); src=$(cd "$(dirname "$0")/../.." && pwd)
results=$(realpath "${2:-$src/results.h5}"); dir=${3:-/tmp/verify_trained}
S=$build/simreach; MPI="mpiexec --allow-run-as-root --oversubscribe -n 2"
mkdir -p "$dir" && cd "$dir" || exit 1
[ -f "$results" ] || { echo "verify_trained.sh: $results: no results file (run ./jobs/quickstart.sh first)" >&2; exit 2; }
show() { # label, log, time file
  printf "  %-44s %s\n" "$1" "$(grep -E -o 'enclosure [0-9.]+ s, lists [0-9.]+ s, containment [0-9.]+ s' "$2" | head -1)"
  grep -E -i "proven|falsified|unknown|failures" "$2" | head -2 | sed 's/^/    /'
  printf "    per rank: %s\n" "$(grep -o 'rss_kB=[^ ]*' "$3" | tr '\n' ' ')"
}
run() { # label, log stem, simreach args...
  local label=$1 stem=$2; shift 2
  rm -f "$stem.h5" "$stem.time"
  $MPI /usr/bin/time -a -o "$stem.time" -f "rss_kB=%M_wall=%e" "$S" "$@" > "$stem.log" 2> "$stem.err"; local rc=$?
  show "$label (exit $rc)" "$stem.log" "$stem.time"
}
echo "== load: $(uptime)"
echo "== 1-2. the study's run 0 (final network) on 1000 x 1000 cells"
run "verify -from results.h5 -run 0" study_run0 verify -from "$results" -run 0 -cells 1000,1000 -output study_run0.h5
run "check study_run0.h5" check_study_run0 check study_run0.h5
echo "== 3. a PyTorch-trained pendulum network (2-32-32-2) on 1000 x 1000 cells"
[ -f pend.h5 ] || /usr/bin/python3 "$src/analysis/network_torch.py" train --sys pendulum --widths 32,32 --steps 300 --out pend.h5 > /dev/null
run "verify -network pend.h5" torch_pend verify -network pend.h5 -cells 1000,1000 -output torch_pend.h5
run "check torch_pend.h5" check_torch_pend check torch_pend.h5
echo "== 4. a PyTorch-trained Dubins controller (3-16-16-1) on 100^3 cells, both enclosures"
[ -f dub.h5 ] || /usr/bin/python3 "$src/analysis/network_torch.py" train --sys dubins --model controller --widths 16,16 --steps 300 --out dub.h5 > /dev/null
run "verify -network dub.h5 -enclosure both" torch_dub verify -network dub.h5 -cells 100,100,100 -enclosure both -output torch_dub.h5
run "check torch_dub.h5" check_torch_dub check torch_dub.h5
ls -l "$dir"/*.h5 | awk '{printf "  %s %.1f MB\n", $NF, $5 / 1e6}'
