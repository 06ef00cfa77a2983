#!/usr/bin/env bash
# No claim from an unchecked file (issue 22, SPEC §13): an abstraction file of simreach verify
# with each corruption planted — sink flags cleared, lo > hi rows, an out-of-range index, a moved
# boundary, a widened domain, an unknown flag, a list of lo = -2e9, a bit flipped in every
# dataset — raw, and with every checksum recomputed (tests/sr_reseal.py, so that only the
# validation on open can see the edit).  reach, safe (with and without -output), check and
# verify -recheck must each refuse it: non-zero exit, no "verified" / "proven" / verified-safe
# line, no -output written, one line naming the file.
# Usage: abs_corrupt.sh WORKDIR   (environment: see study_common.sh)
. "$(dirname "$0")/study_common.sh"
dir=$1
rm -rf "$dir" && mkdir -p "$dir" || fail "cannot create $dir"
RESEAL="$(dirname "$0")/sr_reseal.py"
T="-sys pendulum -model controller -mlp_widths 8 -cells 4,4 -beta 0 -tau 0.05 -seeds 1 -epochs 2 -checkpoints 1 -samples 64 -heldout 64 -target_samples 4 -guard none -quiet"
sr_run 2 study $T -output "$dir/res.h5" > "$dir/res.log" 2>&1 || { cat "$dir/res.log"; fail "study"; }
sr_run 2 verify -from "$dir/res.h5" -run 0 -cells 12,12 -output "$dir/abs.h5" > "$dir/abs.log" 2>&1 || { cat "$dir/abs.log"; fail "verify -output"; }
"$SIMREACH" reach "$dir/abs.h5" -init -0.1,0.1,-0.2,0.2 -steps 20 > "$dir/abs.reach.log" 2>&1 || { cat "$dir/abs.reach.log"; fail "reach on the intact file"; }
"$SIMREACH" check "$dir/abs.h5" > "$dir/abs.check.log" 2>&1 || { cat "$dir/abs.check.log"; fail "check on the intact file"; }

# plant NAME PYTHON-BODY (f: the h5py file opened r+, np)
plant() {
  cp "$dir/abs.h5" "$dir/$1.h5"
  "$PY" - "$dir/$1.h5" "$2" <<'PYEOF' || fail "planting $1"
import sys, h5py, numpy as np
f = h5py.File(sys.argv[1], "r+")
exec(sys.argv[2])
f.close()
PYEOF
}
claims() { grep -E "\(verified\)|every cell proven|verified-safe set|proven, 0 falsified, 0 unknown.*-> every" "$@"; }
refused() { # FILE [ALSO]: every command refuses it (ALSO: verify -recheck too)
  local f=$1 base rc cmds
  base=$(basename "$f" .h5)
  rm -f "$dir/out.h5"
  cmds=("reach $f -init -0.1,0.1,-0.2,0.2 -steps 20" "safe $f -trajectories 0 -output $dir/out.h5" "check $f")
  [ -n "${2:-}" ] && cmds+=("verify -recheck $f")
  for cmd in "${cmds[@]}"; do
    "$SIMREACH" $cmd > "$dir/$base.log" 2> "$dir/$base.err"
    rc=$?
    [ $rc -ne 0 ] || { cat "$dir/$base.log" "$dir/$base.err"; fail "$base: simreach $cmd exited 0"; }
    claims "$dir/$base.log" && fail "$base: simreach $cmd printed a claim"
    [ -e "$dir/out.h5" ] && fail "$base: safe -output wrote a file"
    grep -q "^simreach: .*$base.h5" "$dir/$base.err" || { cat "$dir/$base.err"; fail "$base: simreach $cmd: no line naming the file"; }
    [ "$(grep -c '^simreach: ' "$dir/$base.err")" -eq 1 ] || { cat "$dir/$base.err"; fail "$base: simreach $cmd: more than one line"; }
  done
}
N=0
for sealed in raw sealed; do
  while IFS='|' read -r name body; do
    [ -n "$name" ] || continue
    plant "$name-$sealed" "$body"
    [ $sealed = sealed ] && { "$PY" "$RESEAL" "$dir/$name-$sealed.h5" || fail "sr_reseal $name"; }
    refused "$dir/$name-$sealed.h5" recheck
    N=$((N + 1))
  done <<'EOF2'
sinkclear|L = f["cells/list"]; r = L[()]; r[:, -1] &= ~1; L[...] = r
lohi|L = f["cells/list"]; r = L[()]; n = (r.shape[1] - 1) // 2; r[:, :n] = r[:, n:2*n] + 1; L[...] = r
range|L = f["cells/list"]; r = L[()]; n = (r.shape[1] - 1) // 2; r[3, n] = 500; L[...] = r
lo2e9|L = f["cells/list"]; r = L[()]; n = (r.shape[1] - 1) // 2; r[:, :n] = -2000000000; L[...] = r
boundary|p = f["partition"]; b = p["boundary_lo_0"][()]; b[-1] = 10; p["boundary_lo_0"][...] = b; p["boundary_hi_0"][...] = b
domain|p = f["partition"]; d = p["domain_lo"][()]; d[0] -= 1; p["domain_lo"][...] = d
flag|L = f["cells/list"]; r = L[()]; r[5, -1] = 4; L[...] = r
EOF2
done
# a bit flipped in every dataset (and the header attributes), raw
"$PY" - "$dir/abs.h5" > "$dir/datasets.txt" <<'PYEOF' || fail "listing datasets"
import sys, h5py
f = h5py.File(sys.argv[1], "r")
f.visititems(lambda n, o: print(n) if isinstance(o, h5py.Dataset) and o.size > 0 else None)
PYEOF
i=0
while read -r ds; do
  i=$((i + 1))
  plant "flip$i" "d = f['$ds']; a = d[()]; b = a.reshape(-1).view(np.uint8); b[len(b) // 2] ^= 4; d[...] = a"
  refused "$dir/flip$i.h5"
  N=$((N + 1))
done < "$dir/datasets.txt"
for attr in K bisect; do
  plant "attr$attr" "v = f.attrs['$attr']; f.attrs['$attr'] = v ^ 2"
  refused "$dir/attr$attr.h5"
  N=$((N + 1))
done
plant "attrparam" "g = f['network']; v = g.attrs['sys_param']; v[0] += 0.5; g.attrs['sys_param'] = v"
refused "$dir/attrparam.h5"
N=$((N + 1))
# on 2 ranks too: the same one-line refusal, no MPI_ABORT
for name in sinkclear-sealed lo2e9-sealed flip3; do
  for cmd in "reach $dir/$name.h5 -init -0.1,0.1,-0.2,0.2 -steps 20" "safe $dir/$name.h5 -trajectories 0" "check $dir/$name.h5"; do
    sr_run 2 $cmd > "$dir/np2.log" 2> "$dir/np2.err" && fail "$name on 2 ranks: simreach $cmd exited 0"
    grep -q MPI_ABORT "$dir/np2.err" && { cat "$dir/np2.err"; fail "$name on 2 ranks: MPI_ABORT"; }
    [ "$(grep -c '^simreach: ' "$dir/np2.err")" -eq 1 ] || { cat "$dir/np2.err"; fail "$name on 2 ranks: not one line"; }
  done
done
echo "ok: $N corrupted abstraction files refused by reach, safe, check and verify -recheck (no claim, no output, one line), 2 ranks alike"
