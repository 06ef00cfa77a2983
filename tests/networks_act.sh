#!/usr/bin/env bash
# Networks with ReLU / sigmoid layers end to end (SPEC §13, §14): PyTorch -> network file
# (format 2) -> simreach agrees with PyTorch at points (network_torch.py check); verify on a grid
# with both enclosures writes an abstraction file (format 3) naming the activations; simreach
# check re-proves every cell of it with the stored activations; a network file of a tanh
# network without activations is still read (verify_command covers it) and a format-2 file with an unknown
# activation is refused with one line and exit 2 before any work.
# Usage: networks_act.sh WORKDIR   (environment: see study_common.sh)
. "$(dirname "$0")/study_common.sh"
dir=$1 src=$(cd "$(dirname "$0")/.." && pwd)
rm -rf "$dir" && mkdir -p "$dir" || fail "cannot create $dir"
"$PY" -c "import torch, h5py" 2>/dev/null || { echo "SKIP: python3-torch or h5py missing"; exit 77; }
for act in relu sigmoid; do
  "$PY" "$src/analysis/network_torch.py" train --sys pendulum --act $act --widths 16,16 --steps 60 --out "$dir/$act.h5" > /dev/null || fail "training a $act network"
  "$PY" "$src/analysis/network_torch.py" check --net "$dir/$act.h5" --simreach "$SIMREACH" > "$dir/$act.check" || { cat "$dir/$act.check"; fail "$act: PyTorch and simreach disagree"; }
  sr_run 2 verify -network "$dir/$act.h5" -cells 40,40 -enclosure both -output "$dir/$act.abs.h5" > "$dir/$act.log" 2>&1 || { cat "$dir/$act.log"; fail "$act: verify"; }
  "$PY" - "$dir/$act.abs.h5" $act <<'PYEOF' || fail "$act: abstraction file does not carry the activations"
import sys, h5py
f = h5py.File(sys.argv[1], "r")
fmt = f.attrs["simreach_format"]; fmt = fmt.decode() if isinstance(fmt, bytes) else fmt
acts = f["network"].attrs["activations"]; acts = acts.decode() if isinstance(acts, bytes) else acts
assert fmt == "simreach-abstraction-3", fmt
assert acts == f"{sys.argv[2]},{sys.argv[2]},linear", acts
PYEOF
  sr_run 2 check "$dir/$act.abs.h5" > "$dir/$act.checkabs" 2>&1 || { cat "$dir/$act.checkabs"; fail "$act: simreach check of the abstraction file"; }
  grep -q "every cell proven" "$dir/$act.checkabs" || { cat "$dir/$act.checkabs"; fail "$act: simreach check: no verdict"; }
done
# an unknown activation: one line, exit 2
cp "$dir/relu.h5" "$dir/bad.h5"
"$PY" -c "import h5py, numpy as np; f = h5py.File('$dir/bad.h5', 'r+'); f.attrs['activations'] = np.bytes_('relu,softplus,linear')"
set +e
sr_run 1 verify -network "$dir/bad.h5" -cells 10,10 > "$dir/bad.log" 2>&1
rc=$?
set -e
[ $rc -eq 2 ] || { cat "$dir/bad.log"; fail "unknown activation: exit $rc, expected 2"; }
grep -q "softplus.*allowed are tanh, relu, sigmoid, linear" "$dir/bad.log" || { cat "$dir/bad.log"; fail "unknown activation: no clear message"; }
echo "networks_act: relu and sigmoid networks round-trip, verify, check; bad activation refused"
