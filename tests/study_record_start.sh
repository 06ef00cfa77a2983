#!/usr/bin/env bash
# SPEC §9 (issue 33 item 7): -record_start measures row 0, the network training starts from, so
# that accuracy matching sees the start of the baseline's trajectory.  It must measure only: rows
# 1.. and every stored network, list and state bit for bit those of the same study without it,
# and row 0 finite (a row 0 left NaN, or a row 0 that re-lists or re-targets, fails).
# Usage: study_record_start.sh OPTIONS_FILE WORKDIR   (environment: see study_common.sh)
. "$(dirname "$0")/study_common.sh"
opts=$1 dir=$2
rm -rf "$dir" && mkdir -p "$dir" || fail "cannot create $dir"
sr_run 1 study -options_file "$opts" -output "$dir/plain.h5" > "$dir/plain.log" 2>&1 || { cat "$dir/plain.log"; fail "study"; }
sr_run 1 study -options_file "$opts" -record_start -output "$dir/rs.h5" > "$dir/rs.log" 2>&1 || { cat "$dir/rs.log"; fail "study -record_start"; }
"$PY" - "$dir/plain.h5" "$dir/rs.h5" <<'PYEOF' || fail "-record_start changed the training or left row 0 empty"
import sys, h5py, numpy as np
a, b = h5py.File(sys.argv[1], "r"), h5py.File(sys.argv[2], "r")
cols = a["/runs/checkpoints"].attrs["columns"]
cols = (cols.decode() if isinstance(cols, bytes) else str(cols)).split(",")
same = lambda x, y: x.shape == y.shape and bool(np.all((x == y) | (np.isnan(x) & np.isnan(y)))) if x.dtype.kind == "f" else np.array_equal(x, y)
ca, cb = a["/runs/checkpoints"][()], b["/runs/checkpoints"][()]
if not same(ca[:, 1:, :], cb[:, 1:, :]):
    sys.exit("checkpoint rows 1.. differ with -record_start")
for name in ("network", "network_checkpoints", "cells", "successor_box", "enclosures", "status"):
    if not same(a["/runs/" + name][()], b["/runs/" + name][()]):
        sys.exit(f"/runs/{name} differs with -record_start")
if not np.all(np.isnan(ca[:, 0, :])):
    sys.exit("row 0 written without -record_start")
for c in ("pred_error", "succ_tight", "vol_E_tight", "Lsim", "H"):
    if not np.all(np.isfinite(cb[:, 0, cols.index(c)])):
        sys.exit(f"row 0 column {c} not measured with -record_start")
print(f"-record_start: row 0 measured in {cb.shape[0]} runs, rows 1.. and the stored networks identical")
PYEOF
