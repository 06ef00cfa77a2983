#!/usr/bin/env bash
# Resume slots never written (issue 26, SPEC §11, §13): with -checkpoints 1 slot 0 is never
# written; check, gather, -resume and verify -learned_cells skip it.  Studies with -checkpoints
# 1, 2, 3, -guard backtrack and none, on 1 and 2 ranks (checked on the other count), are checked
# clean (exit 0, every cell proven); one byte flipped in a written slot gives one line (no
# MPI_ABORT banner) and exit 2.  Labels use C's %g ("beta 0", not "beta 0.").
# Usage: check_slots.sh WORKDIR   (environment: see study_common.sh)
. "$(dirname "$0")/study_common.sh"
dir=$1
rm -rf "$dir" && mkdir -p "$dir" || fail "cannot create $dir"
T="-sys toy1d -model dynamics -mlp_widths 8 -cells 16 -beta 0 -tau 0.05 -seeds 1 -epochs 3 -samples 64 -heldout 64 -target_samples 4 -quiet"
for g in backtrack none; do
  for c in 1 2 3; do
    for np in 1 2; do
      f="$dir/s-$g-$c-$np.h5"
      sr_run $np study $T -guard $g -checkpoints $c -output "$f" > "$f.log" 2>&1 || { cat "$f.log"; fail "study -guard $g -checkpoints $c on $np ranks"; }
      sr_run $((3 - np)) check "$f" > "$f.check.log" 2>&1 || { cat "$f.check.log"; fail "check of -guard $g -checkpoints $c (study on $np ranks) exited $?"; }
      grep -q -- "0 falsified, 0 unknown.*-> every cell proven" "$f.check.log" || { cat "$f.check.log"; fail "-guard $g -checkpoints $c: not every cell proven"; }
      grep -q "^run 0 (beta 0, tau 0.05, seed 1)" "$f.check.log" || { cat "$f.check.log"; fail "label not printed with C's %g"; }
    done
  done
done
echo "ok: -checkpoints 1, 2, 3 x -guard backtrack, none x 1, 2 ranks: check exit 0, every cell proven"
f="$dir/s-backtrack-1-2.h5"
sr_run 2 gather "$f" > "$f.gather.log" 2>&1 || { cat "$f.gather.log"; fail "gather of a one-checkpoint study"; }
grep -q "warning" "$f.gather.log" && { cat "$f.gather.log"; fail "gather warns about a never-written slot"; }
sr_run 2 study $T -guard backtrack -checkpoints 1 -output "$f" -resume > "$f.resume.log" 2>&1 || { cat "$f.resume.log"; fail "-resume of a one-checkpoint study"; }
grep -q "0 to do" "$f.resume.log" || { cat "$f.resume.log"; fail "-resume: the finished run is not recognised"; }
sr_run 2 verify -from "$f" -run 0 -learned_cells -output "$dir/v.h5" > "$dir/v.log" 2>&1 || { cat "$dir/v.log"; fail "verify -learned_cells of a one-checkpoint study"; }
sr_run 2 safe "$f" -run 0 -trajectories 100 > "$dir/safe.log" 2>&1 || { cat "$dir/safe.log"; fail "safe -run of a one-checkpoint study"; }
echo "ok: gather, -resume, verify -learned_cells, safe -run skip the never-written slot"

# one byte flipped in a written slot (the last checkpoint's, and with 3 checkpoints the other)
flip() { # FILE SLOT
  "$PY" - "$1" "$2" <<'PYEOF' || fail "h5py"
import sys, h5py, numpy as np
f = h5py.File(sys.argv[1], "r+")
d = f["runs/state_double"]
row = d[0, int(sys.argv[2]), :]
b = row.view(np.uint8); b[3] ^= 0x5a
d[0, int(sys.argv[2]), :] = row
PYEOF
}
for spec in "backtrack-1-1 1 2" "none-1-2 1 1" "backtrack-3-2 0 2" "none-2-1 0 1"; do
  set -- $spec
  f="$dir/s-$1.h5" g="$dir/flip-$1-$2.h5"
  cp "$f" "$g" && flip "$g" "$2"
  for np in $3; do
    sr_run $np check "$g" > "$g.log" 2> "$g.err"
    rc=$?
    [ $rc -eq 2 ] || { cat "$g.log" "$g.err"; fail "flipped byte in slot $2 of $1 on $np ranks: check exited $rc, expected 2"; }
    n=$(grep -c "^simreach: " "$g.err")
    [ "$n" -eq 1 ] || { cat "$g.err"; fail "flipped byte in slot $2 of $1: $n lines from simreach, expected one"; }
    grep -q "^simreach: .*flip-$1-$2.h5: run 0: resume slot $2 .*fails its checksum" "$g.err" || { cat "$g.err"; fail "flipped byte: the line does not name file, run and slot"; }
    grep -q "MPI_ABORT" "$g.err" && { cat "$g.err"; fail "flipped byte: MPI_ABORT"; }
    grep -q "proven" "$g.log" && { cat "$g.log"; fail "flipped byte: a proven claim was printed"; }
  done
done
echo "ok: one byte flipped in a written slot: one line naming file, run and slot, exit 2, on 1 and 2 ranks"
