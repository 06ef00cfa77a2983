#!/usr/bin/env bash
# simreach verify end to end (SPEC §10): a network file, the abstraction file on 1, 2 and 4 ranks
# (identical /cells, /partition, /network, /failures and metrics counts), the re-check with the
# other enclosure and with bisection passes, a planted violation (an edited list) is caught with
# a witness and a non-zero exit, -from a study's results file, and bad input refused.
# Usage: verify.sh TEST_VERIFY_EXE WORKDIR [RESULTS.h5]   (environment: see study_common.sh)
. "$(dirname "$0")/study_common.sh"
tv=$1 dir=$2 results=${3:-}
rm -rf "$dir" && mkdir -p "$dir" || fail "cannot create $dir"
"$tv" -write_network "$dir/pend.h5" -sys pendulum -model dynamics -seed 3 || fail "writing a network file"
"$tv" -write_network "$dir/dub.h5" -sys dubins -model controller -seed 4 -scale 2 || fail "writing a network file"
for np in 1 2 4; do
  sr_run $np verify -network "$dir/pend.h5" -cells 60,50 -output "$dir/p$np.h5" > "$dir/p$np.log" 2>&1 || { cat "$dir/p$np.log"; fail "verify on $np ranks"; }
  sr_run $np verify -network "$dir/dub.h5" -cells 12,10,8 -enclosure both -bisect 3 -output "$dir/d$np.h5" > "$dir/d$np.log" 2>&1 || { cat "$dir/d$np.log"; fail "dubins verify on $np ranks"; }
done
"$PY" - "$dir" <<'PYEOF' || fail "abstraction files differ between rank counts"
import sys, h5py, numpy as np
d = sys.argv[1]
for base in ("p", "d"):
    ref = h5py.File(f"{d}/{base}1.h5", "r")
    assert ref.attrs["simreach_format"] in (b"simreach-abstraction-3", "simreach-abstraction-3")
    K, n = int(ref.attrs["K"][0]), int(ref.attrs["n"][0])
    assert ref["cells/enclosure"].shape == (K, 2 * n) and ref["cells/list"].shape == (K, 2 * n + 1)
    for np_ in (2, 4):
        other = h5py.File(f"{d}/{base}{np_}.h5", "r")
        for name in ("cells/enclosure", "cells/list", "failures/cell", "failures/witness", "network/params", "partition/counts", "partition/cell_lo_0", "partition/boundary_hi_0"):
            a, b = ref[name][()], other[name][()]
            assert a.tobytes() == b.tobytes(), f"{base}: {name} differs on {np_} ranks"
        for k in ("K", "entries", "sink", "failures", "nonfinite", "succ_mean", "volE_mean"):
            assert ref["metrics"].attrs[k] == other["metrics"].attrs[k], f"{base}: metric {k} differs on {np_} ranks"
print("identical on 1, 2, 4 ranks")
PYEOF
grep -q "containment failures: 0" "$dir/p1.log" || fail "a fresh verification has failures"
sr_run 2 verify -recheck "$dir/p1.h5" > "$dir/re1.log" 2>&1 || { cat "$dir/re1.log"; fail "re-check (taylor1) of an untouched file"; }
grep -q "re-enclosed with taylor1" "$dir/re1.log" || fail "the re-check does not use the other enclosure"
sr_run 2 verify -recheck "$dir/d1.h5" -enclosure both -bisect 3 > "$dir/re2.log" 2>&1 || { cat "$dir/re2.log"; fail "re-check (both, bisect 3: the same enclosure) of an untouched file"; }
# planted violation: one list loses its top index in dimension 0, its stored enclosure is cut to
# match and every checksum recomputed (tests/sr_reseal.py: an edit the validation on open cannot
# see; only the re-proof can)
cp "$dir/p1.h5" "$dir/planted.h5"
cell=$("$PY" - "$dir/planted.h5" <<'PYEOF'
import sys, h5py, numpy as np
f = h5py.File(sys.argv[1], "r+")
L, E = f["cells/list"], f["cells/enclosure"]
rows, enc, olo = L[()], E[()], f["partition/cell_lo_0"][()]
for k in range(rows.shape[0]):
    if rows[k, 2] > rows[k, 0] + 1 and rows[k, 4] == 0:
        rows[k, 2] -= 1
        enc[k, 2] = min(enc[k, 2], np.nextafter(olo[rows[k, 2] + 1], -np.inf))
        L[k], E[k] = rows[k], enc[k]
        print(k)
        break
PYEOF
)
"$PY" "$(dirname "$0")/sr_reseal.py" "$dir/planted.h5" || fail "sr_reseal.py"
[ -n "$cell" ] || fail "no cell to plant a violation in"
if sr_run 2 verify -recheck "$dir/planted.h5" -enclosure interval > "$dir/planted.log" 2>&1; then cat "$dir/planted.log"; fail "planted violation in cell $cell not caught"; fi
grep -q "FAILED cell $cell:.*uncovered point of E_k: [-0-9]" "$dir/planted.log" || { cat "$dir/planted.log"; fail "planted violation: no failing cell $cell with a witness"; }
# -enclosure crown (SPEC §16: CROWN over each cell, src/bounds/netbox.c): no failures, identical on
# 1 and 2 ranks, and `simreach check` re-proves its lists with the interval enclosure
for np in 1 2; do
  sr_run $np verify -network "$dir/pend.h5" -cells 60,50 -enclosure crown -output "$dir/pc$np.h5" > "$dir/pc$np.log" 2>&1 || { cat "$dir/pc$np.log"; fail "verify -enclosure crown on $np ranks"; }
done
grep -q "containment failures: 0" "$dir/pc1.log" || fail "verify -enclosure crown has failures"
cmp -s <("$PY" -c 'import sys,h5py; print(h5py.File(sys.argv[1])["cells/list"][()].tobytes().hex())' "$dir/pc1.h5") <("$PY" -c 'import sys,h5py; print(h5py.File(sys.argv[1])["cells/list"][()].tobytes().hex())' "$dir/pc2.h5") || fail "verify -enclosure crown: lists differ between 1 and 2 ranks"
sr_run 2 check "$dir/pc1.h5" > "$dir/checkc.log" 2>&1 || { cat "$dir/checkc.log"; fail "simreach check of a crown-built abstraction file"; }
# simreach check on abstraction files: the untouched one passes, the planted one exits non-zero
sr_run 2 check "$dir/p1.h5" > "$dir/check1.log" 2>&1 || { cat "$dir/check1.log"; fail "simreach check of an untouched abstraction file"; }
grep -q "every cell proven" "$dir/check1.log" || fail "simreach check: no verdict"
# (the three-outcome re-check of src/abstraction/recheck.c: the planted cell falsified with a witness, exit 5,
# the same verdict lines on 1 and 2 ranks).  The plant above may remove a cell only the loose
# interval box met (the re-check then rightly proves the cell with taylor1), so this one keeps
# a single column of the list in dimension 0, where the image spans at least three.
cp "$dir/p1.h5" "$dir/planted2.h5"
cell=$("$PY" - "$dir/planted2.h5" <<'PYEOF'
import sys, h5py, numpy as np
f = h5py.File(sys.argv[1], "r+")
L, E = f["cells/list"], f["cells/enclosure"]
rows, enc, olo = L[()], E[()], f["partition/cell_lo_0"][()]
for k in range(rows.shape[0]):
    top = np.nextafter(olo[rows[k, 0] + 1], -np.inf) if rows[k, 0] + 1 < len(olo) else 0
    if rows[k, 2] > rows[k, 0] + 2 and rows[k, 4] == 0 and enc[k, 0] <= top:
        rows[k, 2] = rows[k, 0]
        enc[k, 2] = top
        L[k], E[k] = rows[k], enc[k]
        print(k)
        break
PYEOF
)
"$PY" "$(dirname "$0")/sr_reseal.py" "$dir/planted2.h5" || fail "sr_reseal.py"
[ -n "$cell" ] || fail "no cell to plant a violation in"
sr_run 2 check "$dir/planted2.h5" > "$dir/check2.log" 2>&1
rc=$?
[ $rc -eq 5 ] || { cat "$dir/check2.log"; fail "simreach check exited $rc on a planted violation, expected 5 (not proven)"; }
grep -qE "^  cell $cell: falsified, x = \(" "$dir/check2.log" || { cat "$dir/check2.log"; fail "simreach check: the planted cell is not falsified with a witness"; }
grep -q -- "-> FALSIFIED" "$dir/check2.log" || { cat "$dir/check2.log"; fail "simreach check: the summary does not say FALSIFIED"; }
sr_run 1 check "$dir/planted2.h5" > "$dir/check2_np1.log" 2>&1
diff <(grep -E '^  cell |-> ' "$dir/check2_np1.log" | sed 's/; [0-9.e-]* s)/)/') <(grep -E '^  cell |-> ' "$dir/check2.log" | sed 's/; [0-9.e-]* s)/)/') > /dev/null || { diff "$dir/check2_np1.log" "$dir/check2.log"; fail "simreach check: results differ on 1 and 2 ranks"; }
# -from a study's results file (when the study fixture ran)
if [ -n "$results" ] && [ -f "$results" ]; then
  sr_run 2 verify -from "$results" -run 0 -cells 40,40 -output "$dir/from.h5" > "$dir/from.log" 2>&1 || { cat "$dir/from.log"; fail "verify -from a results file"; }
  grep -q "run 0 (beta" "$dir/from.log" || fail "verify -from: no run named"
  sr_run 2 verify -from "$results" -run 1 -checkpoint 1 -cells 30,30 > "$dir/fromck.log" 2>&1 || { cat "$dir/fromck.log"; fail "verify -from a results file at checkpoint 1"; }
  grep -q "checkpoint 1" "$dir/fromck.log" || fail "verify -from -checkpoint: the checkpoint is not named"
  sr_run 2 verify -from "$results" -run 3 -learned_cells -output "$dir/learned.h5" > "$dir/learned.log" 2>&1 || { cat "$dir/learned.log"; fail "verify -from -learned_cells"; }
  grep -q "learned partition" "$dir/learned.log" || fail "verify -learned_cells: the partition is not named"
  grep -q "containment failures: 0" "$dir/learned.log" || fail "verify -learned_cells has failures"
  sr_run 2 verify -recheck "$dir/learned.h5" > "$dir/relearned.log" 2>&1 || { cat "$dir/relearned.log"; fail "re-check of a learned-partition abstraction"; }
  sr_run 2 check "$dir/learned.h5" > "$dir/checklearned.log" 2>&1 || { cat "$dir/checklearned.log"; fail "simreach check of a learned-partition abstraction"; }
  grep -q "0 falsified, 0 unknown.*-> every cell proven" "$dir/checklearned.log" || { cat "$dir/checklearned.log"; fail "simreach check of a learned partition: no verdict"; }
  if sr_run 1 verify -from "$results" -run 0 -checkpoint 999 -cells 30,30 > "$dir/bad.log" 2>&1; then fail "accepted -checkpoint 999"; fi
  # on 2 ranks too: one line, exit 2, not MPI_ABORT's banner (issue 22: a reader checking on PETSC_COMM_SELF)
  sr_run 2 verify -from "$results" -run 0 -checkpoint 999 -cells 30,30 > "$dir/bad2.log" 2>&1
  rc=$?
  [ $rc -eq 2 ] || { cat "$dir/bad2.log"; fail "-checkpoint 999 on 2 ranks: exit $rc, expected 2"; }
  grep -q "MPI_ABORT" "$dir/bad2.log" && { cat "$dir/bad2.log"; fail "-checkpoint 999 on 2 ranks: MPI_ABORT"; }
  [ "$(grep -c '^simreach: -checkpoint 999: .* has checkpoints 0\.\.' "$dir/bad2.log")" -eq 1 ] || { cat "$dir/bad2.log"; fail "-checkpoint 999 on 2 ranks: not one line"; }
fi
# bad input: refused before any work, naming the option
for bad in "-cells 10" "-bisect 30 -cells 10,10" "-cells 10,10 -enclosure cubic"; do
  if sr_run 1 verify -network "$dir/pend.h5" $bad > "$dir/bad.log" 2>&1; then fail "accepted: $bad"; fi
done
if sr_run 1 verify -network "$dir/nonexistent.h5" -cells 10,10 > "$dir/bad.log" 2>&1; then fail "accepted a missing network file"; fi
grep -q "nonexistent.h5" "$dir/bad.log" || fail "missing network file not named"
if sr_run 1 verify -network "$dir/pend.h5" -cells 10,10 -output "$dir/p1.h5" > "$dir/bad.log" 2>&1; then fail "overwrote an existing abstraction file without -force"; fi
echo "PASS: verify identical on 1, 2, 4 ranks; re-checks pass; planted violation caught; bad input refused"
