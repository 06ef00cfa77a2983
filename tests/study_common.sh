#!/usr/bin/env bash
# Helpers of the study tests (sourced).  Environment: SIMREACH (the program), MPIEXEC,
# MPIEXEC_EXTRA (e.g. "--oversubscribe --allow-run-as-root"), PY (Debian's /usr/bin/python3).
set -uo pipefail
: "${SIMREACH:?set SIMREACH to the simreach program}" "${MPIEXEC:=mpiexec}" "${MPIEXEC_EXTRA:=--oversubscribe}" "${PY:=/usr/bin/python3}"
fail() { echo "FAIL: $*" >&2; exit 1; }
# sr_run NP ARGS...: simreach on NP ranks
sr_run() { local np=$1; shift; "$MPIEXEC" -n "$np" $MPIEXEC_EXTRA "$SIMREACH" "$@"; }
# sr_compare A B: every dataset and the options_canonical attribute identical, bit for bit
# (NaN equal to NaN), except the wall-clock table /runs/wall.  Prints the first difference.
sr_compare() {
  "$PY" - "$1" "$2" <<'PYEOF'
import sys, h5py, numpy as np
a, b = h5py.File(sys.argv[1], "r"), h5py.File(sys.argv[2], "r")
names = []
a.visititems(lambda n, o: names.append(n) if isinstance(o, h5py.Dataset) else None)
nb = []
b.visititems(lambda n, o: nb.append(n) if isinstance(o, h5py.Dataset) else None)
if sorted(names) != sorted(nb):
    sys.exit(f"different datasets: {sorted(set(names) ^ set(nb))}")
for n in sorted(names):
    if n == "runs/wall":
        continue
    x, y = a[n][()], b[n][()]
    if x.shape != y.shape or x.dtype != y.dtype:
        sys.exit(f"{n}: shape/type {x.shape} {x.dtype} vs {y.shape} {y.dtype}")
    if x.tobytes() != y.tobytes():
        idx = np.argwhere(np.atleast_1d(x != y) if x.dtype.kind != "f" else ~((x == y) | (np.isnan(x) & np.isnan(y))))
        sys.exit(f"{n}: differs, first at {idx[0] if len(idx) else '?'}")
for k in ("simreach_format", "simreach_version", "options_canonical"):
    if a.attrs[k] != b.attrs[k]:
        sys.exit(f"attribute {k} differs")
print(f"identical: {len(names) - 1} datasets (wall excluded)")
PYEOF
}
# sr_readable F: the file opens and every dataset reads
sr_readable() {
  "$PY" - "$1" <<'PYEOF'
import sys, h5py
f = h5py.File(sys.argv[1], "r")
f.visititems(lambda n, o: o[()] if isinstance(o, h5py.Dataset) else None)
assert f.attrs["simreach_format"] in (b"simreach-results-3", "simreach-results-3")
PYEOF
}
