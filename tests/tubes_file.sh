#!/usr/bin/env bash
# Tubes files like every other file (issue 34, item 5; docs/files.md "The tubes file"):
# closedloop -o on 1 and 2 ranks writes format 2 (header checksum, a checksum per dataset) that
# `simreach check` and analysis/tube.py accept; each planted damage is refused by both in one
# line (check exit 2; tube.py exit 2 and no traceback): the verdict attribute edited (FALSIFIED
# -> VERIFIED), the same edit with the header checksum recomputed (the verdict against the open
# leaves catches it), a flipped value in /pieces, a truncated file, the old unchecked format 1.
# Usage: tubes_file.sh SRCDIR WORKDIR   (environment: SIMREACH, MPIEXEC, MPIEXEC_EXTRA, PY)
. "$(dirname "$0")/study_common.sh"
src=$1 dir=$2
rm -rf "$dir" && mkdir -p "$dir" || fail "cannot create $dir"
D=$src/tests/data/issue34
CL=(closedloop -plant "$D/plant_cos.txt" -network "$D/net_tiny.nnet" -spec "$D/spec_cos.txt" -closedloop_progress 0)
for np in 1 2; do
  sr_run $np "${CL[@]}" -o "$dir/f$np.h5" > "$dir/f$np.log" 2>&1; rc=$?
  [ $rc = 6 ] || { cat "$dir/f$np.log"; fail "closedloop -o on $np ranks: exit $rc, want 6"; }
  "$SIMREACH" check "$dir/f$np.h5" > "$dir/c$np.log" 2>&1 || { cat "$dir/c$np.log"; fail "check on an intact tubes file"; }
  grep -q "valid (format, checksums, .* consistent with the verdict FALSIFIED)" "$dir/c$np.log" || { cat "$dir/c$np.log"; fail "check: no validity line"; }
done
plot=0
"$PY" -c "import matplotlib" 2> /dev/null && plot=1
[ $plot = 1 ] && { "$PY" "$src/analysis/tube.py" "$dir/f1.h5" -o "$dir/f1.png" > "$dir/p.log" 2>&1 || { cat "$dir/p.log"; fail "tube.py on an intact file"; }; }
plant() { # NAME PYTHON-BODY (f: the copy opened r+; h(): the header checksum recomputed)
  cp "$dir/f1.h5" "$dir/$1.h5"
  "$PY" - "$dir/$1.h5" "$src/analysis" "$2" <<'PYEOF' || fail "planting $1"
import sys, h5py, numpy as np
sys.path.insert(0, sys.argv[2])
import importlib.util
spec = importlib.util.spec_from_file_location("tube", sys.argv[2] + "/tube.py")
tube = importlib.util.module_from_spec(spec)
spec.loader.exec_module(tube)
f = h5py.File(sys.argv[1], "r+")
def sattr(k, v):
    del f.attrs[k]
    f.attrs.create(k, v.encode(), dtype=h5py.string_dtype("ascii", len(v)))
def h():  # recompute header_checksum as an attacker who knows the format would
    s = lambda k: f.attrs[k].decode() if isinstance(f.attrs[k], bytes) else str(f.attrs[k])
    n = len(s("states").split(","))
    iv = np.array([n] + [int(f.attrs[k]) for k in ("steps", "leaves", "open", "trajectory_sub", "constraint_rows", "has_tubes")], "<i8")
    c = tube.fnv64(iv.tobytes(), tube.seed("tubes-header"))
    for k in ("verdict", "planted_fault", "plant", "network", "spec", "states"):
        c = tube.fnv64(s(k).encode() + b"\0", c)
    c = tube.fnv64(np.asarray(f.attrs["x0_lo"], "<f8").tobytes(), tube.fnv64(np.array([float(f.attrs["period"])], "<f8").tobytes(), c))
    c = tube.fnv64(np.asarray(f.attrs["x0_hi"], "<f8").tobytes(), c)
    f.attrs.modify("header_checksum", np.uint64(c))
exec(sys.argv[3])
f.close()
PYEOF
}
refused() { # NAME PATTERN: check and tube.py refuse it in one line
  "$SIMREACH" check "$dir/$1.h5" > "$dir/$1.check" 2>&1; local rc=$?
  [ $rc = 2 ] && [ "$(grep -c '^simreach:' "$dir/$1.check")" = 1 ] && grep -q "$2" "$dir/$1.check" || { cat "$dir/$1.check"; fail "$1: check exit $rc, want 2 and one line with '$2'"; }
  grep -v "^simreach:" "$dir/$1.check" | grep -q "valid\|VERIFIED" && fail "$1: check printed a claim"
  if [ $plot = 1 ]; then
    "$PY" "$src/analysis/tube.py" "$dir/$1.h5" -o "$dir/$1.png" > "$dir/$1.tube" 2>&1; rc=$?
    [ $rc = 2 ] && [ "$(wc -l < "$dir/$1.tube")" = 1 ] && grep -q "^tube.py: tubes file" "$dir/$1.tube" || { cat "$dir/$1.tube"; fail "$1: tube.py exit $rc, want 2 and one line"; }
    grep -q Traceback "$dir/$1.tube" && fail "$1: tube.py traceback"
    [ -e "$dir/$1.png" ] && fail "$1: tube.py drew a picture"
  fi
  return 0
}
plant verdict 'sattr("verdict", "VERIFIED")'
refused verdict "fail their checksum"
plant verdict_sealed 'sattr("verdict", "VERIFIED"); h()'
refused verdict_sealed "says VERIFIED, but"
plant pieces 'P = f["pieces"]; p = P[()]; p[0, 0] += 1e-9; P[...] = p'
refused pieces "dataset /pieces fails its checksum"
plant oldformat 'sattr("simreach_format", "simreach closedloop tubes 1")'
refused oldformat "written before tubes files carried checksums"
head -c 4000 "$dir/f1.h5" > "$dir/trunc.h5"
refused trunc "is truncated"
echo "PASS: tubes files checked on 1 and 2 ranks; 5 damaged files refused by check and tube.py in one line"
