#!/usr/bin/env bash
# SPEC §9 (issue 33): beta = 0 does not depend on tau in training, so a study trains it once per
# seed and evaluates it at every tau.  Its rows at tau = 0.2 must be bit for bit those of a study
# that trains beta = 0 at tau = 0.2 itself; the tau-dependent columns must differ between the
# taus (a copy of the first tau's row would fail), and the study trains only the owners.
# Usage: study_beta0.sh OPTIONS_FILE WORKDIR   (environment: see study_common.sh)
. "$(dirname "$0")/study_common.sh"
opts=$1 dir=$2
rm -rf "$dir" && mkdir -p "$dir" || fail "cannot create $dir"
sr_run 1 study -options_file "$opts" -output "$dir/all.h5" > "$dir/all.log" 2>&1 || { cat "$dir/all.log"; fail "study"; }
grep -q "8 runs in $dir/all.h5, 6 to do" "$dir/all.log" || { grep 'runs in' "$dir/all.log"; fail "beta = 0 trained per tau (expected 6 of 8 runs to train)"; }
sr_run 1 study -options_file "$opts" -beta 0 -tau 0.2 -output "$dir/one.h5" > "$dir/one.log" 2>&1 || { cat "$dir/one.log"; fail "study at tau 0.2"; }
"$PY" - "$dir/all.h5" "$dir/one.h5" <<'PYEOF' || fail "beta = 0 at tau 0.2 differs from training it at tau 0.2"
import sys, h5py, numpy as np
a, b = h5py.File(sys.argv[1], "r"), h5py.File(sys.argv[2], "r")
cols = a["/runs/checkpoints"].attrs["columns"]
cols = (cols.decode() if isinstance(cols, bytes) else str(cols)).split(",")
same = lambda x, y: x.shape == y.shape and bool(np.all((x == y) | (np.isnan(x) & np.isnan(y)))) if x.dtype.kind == "f" else np.array_equal(x, y)
# all.h5: runs (beta 0, tau 0.05, seeds 1 2), (beta 0, tau 0.2, seeds 1 2), ...; one.h5: (beta 0, tau 0.2, seeds 1 2)
for name in ("checkpoints", "network", "network_checkpoints", "cells", "successor_box", "enclosures", "status", "state_double"):
    for s in range(2):
        if not same(a["/runs/" + name][2 + s], b["/runs/" + name][s]):
            sys.exit(f"/runs/{name} of seed {s + 1}: differs")
ck = a["/runs/checkpoints"]
for c in ("Lsim", "Lsim_heldout", "Lsim_ref_heldout", "taulogN"):
    j = cols.index(c)
    if same(ck[0][1:, j], ck[2][1:, j]):
        sys.exit(f"column {c} is the same at tau 0.05 and 0.2: the rows were copied, not evaluated")
print("beta = 0 at tau 0.2: identical to training it at tau 0.2 (2 seeds)")
PYEOF
