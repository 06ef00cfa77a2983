#!/usr/bin/env bash
# Benchmarks of simreach verify (SPEC §10; figures for the README, never asserted in tests).
# Prints every figure beside its reference in the same run, so ratios are read side by side:
#   1. 10^6 pendulum cells, -enclosure interval, 1 and 2 ranks: enclosure, lists, containment;
#      list building against the enclosure (ratio);
#   2. weak scaling 1 -> 2 ranks: 5x10^5 cells per rank;
#   3. taylor1 against interval on the same 10^5 cells (ratio);
#   4. 10^7 cells on 2 ranks: time and peak RSS per rank (/usr/bin/time -f %M);
#   5. a Dubins network on 100^3 cells (2 ranks, both enclosures, written and re-checked);
#   6. results-file sizes of a pendulum study at 25x25 .. 100x100 cells (the file is created at
#      its full size before the first run starts; the study is stopped once the file exists).
# Usage: bench_verify.sh BUILD_DIR [WORKDIR]      (needs /usr/bin/python3 with torch for the networks)
set -uo pipefail
build=$(cd "$1" && pwd); dir=${2:-/tmp/bench_verify}; src=$(cd "$(dirname "$0")/../.." && pwd)
S=$build/simreach; MPI="mpiexec --allow-run-as-root --oversubscribe"
mkdir -p "$dir" && cd "$dir" || exit 1
phase() { grep -o 'enclosure [0-9.]* s, lists [0-9.]* s, containment [0-9.]* s' "$1"; }
tot() { phase "$1" | awk '{print $2 + $5 + $8}'; }
enc() { phase "$1" | awk '{print $2}'; }
lst() { phase "$1" | awk '{print $5}'; }
# the machine is shared: the load beside every figure, and each rank's CPU time and peak RSS
ld() { uptime | sed 's/.*load average/load average/'; }
TIME="/usr/bin/time -f rank_cpu_user=%U_sys=%S_wall=%e_rss_kB=%M"
cpu() { grep -o 'rank_cpu[^ ]*' "$1" | tr '\n' ' '; }
echo "== load: $(uptime)"
[ -f pend.h5 ] || /usr/bin/python3 "$src/analysis/network_torch.py" train --sys pendulum --widths 32,32 --steps 300 --out pend.h5
[ -f dub.h5 ] || /usr/bin/python3 "$src/analysis/network_torch.py" train --sys dubins --model controller --widths 16,16 --steps 300 --out dub.h5

echo "== 1. 10^6 pendulum cells (PyTorch-trained 2-32-32-2 network), -enclosure interval"
for np in 1 2; do
  l=$(ld); $MPI -n $np $TIME $S verify -network pend.h5 -cells 1000,1000 > v1e6_np$np.log 2> v1e6_np$np.time
  printf "  %d rank(s): %s  -> enclosure+lists+containment %.3f s; lists/enclosure %.2f  [%s; %s]\n" $np "$(phase v1e6_np$np.log)" "$(tot v1e6_np$np.log)" "$(echo "$(lst v1e6_np$np.log) $(enc v1e6_np$np.log)" | awk '{print $1 / $2}')" "$(cpu v1e6_np$np.time)" "$l"
done

echo "== 2. weak scaling: 5x10^5 cells per rank"
l1=$(ld); $MPI -n 1 $TIME $S verify -network pend.h5 -cells 1000,500 > weak1.log 2> weak1.time
l2=$(ld); $MPI -n 2 $TIME $S verify -network pend.h5 -cells 1000,1000 > weak2.log 2> weak2.time
t1=$(tot weak1.log); t2=$(tot weak2.log)
printf "  1 rank 5e5 cells %.3f s [%s; %s], 2 ranks 1e6 cells %.3f s [%s; %s]: efficiency %.0f %%\n" $t1 "$(cpu weak1.time)" "$l1" $t2 "$(cpu weak2.time)" "$l2" "$(echo "$t1 $t2" | awk '{print 100 * $1 / $2}')"

echo "== 3. taylor1 against interval, 10^5 cells, 1 rank"
$MPI -n 1 $S verify -network pend.h5 -cells 400,250 > ti.log
$MPI -n 1 $S verify -network pend.h5 -cells 400,250 -enclosure taylor1 > tt.log
printf "  interval %.3f s, taylor1 %.3f s: taylor1/interval %.1f\n" "$(enc ti.log)" "$(enc tt.log)" "$(echo "$(enc tt.log) $(enc ti.log)" | awk '{print $1 / $2}')"

echo "== 4. 10^7 cells on 2 ranks: peak RSS per rank"
l=$(ld); $MPI -n 2 $TIME $S verify -network pend.h5 -cells 4000,2500 -progress > v1e7.log 2> v1e7.time
grep -v '^ *verify:' v1e7.log | tail -3; echo "  per rank: $(cpu v1e7.time) [$l]"

echo "== 5. Dubins controller (PyTorch-trained 3-16-16-1) on 100^3 cells, 2 ranks, -enclosure both, written and re-checked"
$MPI -n 2 $S verify -network dub.h5 -cells 100,100,100 -enclosure both -output dub100.h5 -force > dub.log; tail -4 dub.log; ls -l dub100.h5 | awk '{printf "  file %.1f MB\n", $5 / 1e6}'
$MPI -n 2 $S verify -recheck dub100.h5 -enclosure interval -bisect 3 | tail -2

echo "== 6. results-file size of a pendulum study (jobs/pendulum.opts, 12 runs) by cell count"
for N in 25 50 70 100; do
  rm -f study$N.h5
  $MPI -n 1 $S study -options_file "$src/jobs/pendulum.opts" -cells $N,$N -output study$N.h5 -force > study$N.log 2>&1 &
  pid=$!
  for i in $(seq 1 600); do [ -f study$N.h5 ] && break; sleep 0.5; done
  kill $pid 2> /dev/null; wait $pid 2> /dev/null
  ls -l study$N.h5 2> /dev/null | awk -v N=$N '{printf "  %dx%d cells: %.1f MB\n", N, N, $5 / 1e6}'
done
