#!/bin/sh
# Enclosure benchmark (SPEC 7; not a test).  One run times SREnclosureCompute on the 1000 x 1000
# pendulum grid (10^6 cells) for interval and taylor1, dynamics model 2-32-32-2 and 2-64-64-2,
# on 1 and 2 ranks, and the same midpoint-radius interval propagation in NumPy
# (tests/bench/numpy_reference.py, Debian's /usr/bin/python3, single-threaded BLAS) on the
# same boxes and weights.  Prints cells/s, the ratio to NumPy, the 2-rank parallel efficiency
# and the fraction of the core's FMA peak.
#   tests/bench/bench_enclosure.sh BUILD_DIR      (env: GRID=1000 TAYLOR_GRID=1000 REPS=3)
set -eu
BUILD=${1:?usage: bench_enclosure.sh BUILD_DIR}
HERE=$(cd "$(dirname "$0")" && pwd)
BIN=$BUILD/tests/bench_enclosure
GRID=${GRID:-1000}
TAYLOR_GRID=${TAYLOR_GRID:-1000}
REPS=${REPS:-3}
# Peak assumption: AMD EPYC Zen 4 (lscpu: family 25 model 17, avx2 fma avx512f), 2.6 GHz
# (cpu MHz / BogoMIPS 5192 / 2), 2 FMA pipes x 4 doubles x 2 flops = 16 flop/cycle.
PEAK_GHZ=${PEAK_GHZ:-2.6}
PEAK_FLOP_PER_CYCLE=${PEAK_FLOP_PER_CYCLE:-16}
MPIEXEC="mpiexec --oversubscribe"
[ "$(id -u)" = 0 ] && MPIEXEC="$MPIEXEC --allow-run-as-root"
NCORES=$(getconf _NPROCESSORS_ONLN)
export OPENBLAS_NUM_THREADS=1 OMP_NUM_THREADS=1 MKL_NUM_THREADS=1
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT

echo "# $(date -u '+%F %T') on $NCORES cores, load average: $(cut -d' ' -f1-3 /proc/loadavg)"
echo "# peak assumption: ${PEAK_GHZ} GHz x ${PEAK_FLOP_PER_CYCLE} flop/cycle per core"
for W in 32,32 64,64; do
  for T in interval taylor1; do
    G=$GRID; R=$REPS
    [ "$T" = taylor1 ] && G=$TAYLOR_GRID && R=1
    for NP in 1 2; do
      DUMP=""
      [ "$T" = interval ] && [ "$NP" = 1 ] && DUMP="-dump $TMP/w$W"
      $MPIEXEC -n $NP "$BIN" -grid $G -mlp_widths $W -enclosure $T -reps $R $DUMP | grep '^RESULT' >> "$TMP/results"
    done
  done
  /usr/bin/python3 "$HERE/numpy_reference.py" "$TMP/w$W" "$W" | sed "s/^/$W /" >> "$TMP/numpy"
done
/usr/bin/python3 - "$TMP/results" "$TMP/numpy" "$PEAK_GHZ" "$PEAK_FLOP_PER_CYCLE" <<'PY'
import sys
res = [l.split() for l in open(sys.argv[1])]
npy = {l.split()[0]: l.split()[2:] for l in open(sys.argv[2])}
peak = float(sys.argv[3]) * 1e9 * float(sys.argv[4])
row = {}
for _, t, w, p, K, wall, cpu, fpc, width in res:
    row[(t, w, int(p))] = (int(K), float(wall), float(cpu), float(fpc), float(width))
print(f"{'model':<11}{'type':<9}{'ranks':>5}{'cells':>9}{'wall s':>9}{'CPU s':>8}{'cells/s':>11}"
      f"{'cells/s/core(CPU)':>18}{'xNumPy':>8}{'(CPU)':>7}{'eff.2r':>8}{'%peak':>7}{'mean width':>12}")
for (t, w, p), (K, wall, cpu, fpc, width) in sorted(row.items(), key=lambda kv: (kv[0][1], kv[0][0], kv[0][2])):
    key = ",".join(w.split("-")[1:-1])
    ratio = rcpu = ""
    if t == "interval" and p == 1 and key in npy:
        _, nwall, ncpu, diff = npy[key]
        ratio, rcpu = f"{float(nwall) / wall:.1f}", f"{float(ncpu) / cpu:.1f}"
    eff = ""
    if p == 2 and (t, w, 1) in row:
        eff = f"{100 * row[(t, w, 1)][1] / (2 * wall):.0f}%"
    percore = K / p / cpu
    print(f"{w:<11}{t:<9}{p:>5}{K:>9}{wall:>9.3f}{cpu:>8.3f}{K / wall:>11.3g}{percore:>18.3g}{ratio:>8}{rcpu:>7}{eff:>8}"
          f"{100 * fpc * percore / peak:>6.1f}%{width:>12.4g}")
for key, (K, nwall, ncpu, diff) in npy.items():
    print(f"NumPy 2-{key.replace(',', '-')}-2 interval: {int(K)} cells, wall {float(nwall):.3f} s, CPU {float(ncpu):.3f} s, "
          f"{int(K) / float(nwall):.3g} cells/s; max |E_numpy - E_C| / mean width = {diff}")
print("xNumPy: NumPy time / C time on one rank, from wall and (CPU) times; eff.2r: T1 / (2 T2) from wall times;")
print("%peak: PetscLogFlops count per cell x cells/s per core (CPU time) / peak.  CPU s is what the")
print("processes got on a shared machine; wall s includes waiting for the cores.")
PY
