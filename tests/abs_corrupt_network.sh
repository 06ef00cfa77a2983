#!/usr/bin/env bash
# No claim from an unchecked network or safety file; the network file carries its closed loop
# (issue 22 items 1 and 5, SPEC §13).
#  1. A controller trained with -control_steps 10 (a short study), written out by `simreach
#     network RESULTS -run 0 -output`, imported into PyTorch and exported again by
#     analysis/network_torch.py, verifies (`verify -network`) to the same lists and enclosures
#     as the run's own abstraction (`verify -from`); -control_steps 1 or another u_max on that
#     file is refused (one line, exit 2), as on its abstraction file with safe / reach / check.
#  2. A bit flipped in every dataset and header attribute of the network file, and edits
#     resealed with every checksum recomputed (tests/sr_reseal_net.py: NaN weight, widths that
#     contradict the model, a widened domain, an unknown activation, another control period),
#     make `verify -network` refuse: exit 2, one line naming the file, nothing written.
#  3. The safety file of `safe -output`: `check SAFE` recomputes it (exit 0 intact); a bit
#     flipped in every dataset and in header attributes, a horizon claimed safe and resealed, a
#     source that names another abstraction and resealed: no "equal" claim, non-zero exit.
# Usage: abs_corrupt_network.sh WORKDIR   (environment: see study_common.sh)
. "$(dirname "$0")/study_common.sh"
dir=$1 src=$(cd "$(dirname "$0")/.." && pwd)
rm -rf "$dir" && mkdir -p "$dir" || fail "cannot create $dir"
"$PY" -c "import torch, h5py" 2>/dev/null || { echo "SKIP: python3-torch or h5py missing"; exit 77; }
RESEAL="$src/tests/sr_reseal_net.py"
T="-sys pendulum -model controller -control_steps 10 -mlp_widths 8 -cells 4,4 -beta 0 -tau 0.05 -seeds 1 -epochs 2 -checkpoints 1 -samples 64 -heldout 64 -target_samples 4 -guard none -safe_cells 0 -quiet"
sr_run 2 study $T -output "$dir/res.h5" > "$dir/res.log" 2>&1 || { cat "$dir/res.log"; fail "study"; }
"$SIMREACH" network "$dir/res.h5" -run 0 -output "$dir/run.h5" > "$dir/run.log" 2>&1 || { cat "$dir/run.log"; fail "network -run 0 -output"; }
grep -q "control_steps 10" "$dir/run.log" || { cat "$dir/run.log"; fail "the run's network file does not state -control_steps 10"; }
"$PY" "$src/analysis/network_torch.py" roundtrip --net "$dir/run.h5" --out "$dir/torch.h5" > "$dir/torch.log" || { cat "$dir/torch.log"; fail "network_torch.py roundtrip"; }
sr_run 2 verify -from "$dir/res.h5" -run 0 -cells 12,12 -output "$dir/abs_run.h5" > "$dir/abs_run.log" 2>&1 || { cat "$dir/abs_run.log"; fail "verify -from"; }
sr_run 2 verify -network "$dir/torch.h5" -cells 12,12 -output "$dir/abs_torch.h5" > "$dir/abs_torch.log" 2>&1 || { cat "$dir/abs_torch.log"; fail "verify -network (the re-imported file)"; }
"$PY" - "$dir/abs_run.h5" "$dir/abs_torch.h5" <<'PYEOF' || fail "the re-imported network does not verify to the run's own lists"
import sys, h5py, numpy as np
a, b = h5py.File(sys.argv[1], "r"), h5py.File(sys.argv[2], "r")
for k in ("cells/list", "cells/enclosure", "network/params"):
    assert np.array_equal(a[k][()], b[k][()]), k
for k in ("control_steps", "sys_umax", "sys_dt", "sys_param"):
    assert np.array_equal(a["network"].attrs[k], b["network"].attrs[k]), k
assert int(np.asarray(b["network"].attrs["control_steps"]).reshape(-1)[0]) == 10
print(f"same lists ({a['cells/list'].shape[0]} cells) and enclosures, control_steps 10")
PYEOF
# the transforms and activations in and out of PyTorch: clipping, normalisation, output scaling
"$PY" - "$src/analysis" "$dir/tr.h5" <<'PYEOF' || fail "writing a network with transforms from PyTorch"
import sys, math, torch
sys.path.insert(0, sys.argv[1])
from network_torch import InputTransform, OutputTransform, write_network
torch.manual_seed(3)
seq = torch.nn.Sequential(InputTransform([-0.5, -math.inf], [0.5, 1.5], [0.1, -0.3], [0.5, 2.0]),
                          torch.nn.Linear(2, 12), torch.nn.ReLU(), torch.nn.Linear(12, 12), torch.nn.Sigmoid(),
                          torch.nn.Linear(12, 1), torch.nn.Tanh(), OutputTransform([4.0], [-0.25])).to(torch.float64)
write_network(sys.argv[2], seq, "pendulum", "controller", control_steps=3, sys_umax=2.5)
PYEOF
"$PY" "$src/analysis/network_torch.py" check --net "$dir/tr.h5" --simreach "$SIMREACH" > "$dir/tr.log" || { cat "$dir/tr.log"; fail "transforms: PyTorch and simreach disagree"; }
"$SIMREACH" network "$dir/tr.h5" > "$dir/tr.log" 2>&1 || { cat "$dir/tr.log"; fail "network on the PyTorch file with transforms"; }
grep -q "u_max 2.5" "$dir/tr.log" && grep -q "control_steps 3" "$dir/tr.log" && grep -q "clipped to \[-0.5, 0.5\]" "$dir/tr.log" && grep -q "y \* 4 + -0.25" "$dir/tr.log" || { cat "$dir/tr.log"; fail "the file does not state what PyTorch wrote"; }
one_line() { # LOG ERR WHAT: non-zero exit checked by the caller; one 'simreach:' line naming WHAT
  [ "$(grep -c '^simreach: ' "$2")" -eq 1 ] || { cat "$1" "$2"; fail "$3: not one line"; }
  grep -q "^simreach: .*$3" "$2" || { cat "$2"; fail "$3: the line does not name it"; }
}
for opt in "-control_steps 1" "-pendulum_umax 3" "-pendulum_g 5"; do
  "$SIMREACH" verify -network "$dir/torch.h5" -cells 12,12 $opt > "$dir/opt.log" 2> "$dir/opt.err"
  [ $? -eq 2 ] || { cat "$dir/opt.log" "$dir/opt.err"; fail "verify -network $opt: not refused with exit 2"; }
  one_line "$dir/opt.log" "$dir/opt.err" "${opt%% *}"
  for cmd in "check $dir/abs_torch.h5" "safe $dir/abs_torch.h5 -trajectories 0" "reach $dir/abs_torch.h5 -init -0.1,0.1,-0.1,0.1 -steps 3"; do
    "$SIMREACH" $cmd $opt > "$dir/opt.log" 2> "$dir/opt.err" && { cat "$dir/opt.log"; fail "simreach $cmd $opt exited 0"; }
    [ $? -eq 2 ] || { cat "$dir/opt.err"; fail "simreach $cmd $opt: not exit 2"; }
  done
done
N=0
net_refused() { # FILE: verify -network refuses it, nothing written
  local f=$1 base rc
  base=$(basename "$f" .h5)
  rm -f "$dir/out.h5"
  "$SIMREACH" verify -network "$f" -cells 12,12 -output "$dir/out.h5" > "$dir/$base.log" 2> "$dir/$base.err"
  rc=$?
  [ $rc -eq 2 ] || { cat "$dir/$base.log" "$dir/$base.err"; fail "$base: verify -network exited $rc, not 2"; }
  [ -e "$dir/out.h5" ] && fail "$base: verify wrote -output"
  one_line "$dir/$base.log" "$dir/$base.err" "$base.h5"
  N=$((N + 1))
}
plant() { # SRC NAME PYTHON-BODY (f: the h5py file opened r+, np)
  cp "$1" "$dir/$2.h5"
  "$PY" - "$dir/$2.h5" "$3" <<'PYEOF' || fail "planting $2"
import sys, h5py, numpy as np
f = h5py.File(sys.argv[1], "r+")
exec(sys.argv[2])
f.close()
PYEOF
}
# every dataset of the network file, a bit flipped (raw)
"$PY" - "$dir/torch.h5" > "$dir/netds.txt" <<'PYEOF' || fail "listing datasets"
import sys, h5py
h5py.File(sys.argv[1], "r").visititems(lambda n, o: print(n) if isinstance(o, h5py.Dataset) else None)
PYEOF
i=0
while read -r ds; do
  i=$((i + 1))
  plant "$dir/torch.h5" "netflip$i" "d = f['$ds']; a = d[()]; b = a.reshape(-1).view(np.uint8); b[len(b) // 2] ^= 4; d[...] = a"
  net_refused "$dir/netflip$i.h5"
done < "$dir/netds.txt"
# header attributes changed (raw: the header checksum), then resealed edits (the validation)
while IFS='|' read -r name body; do
  [ -n "$name" ] || continue
  plant "$dir/torch.h5" "net$name" "$body"
  net_refused "$dir/net$name.h5"
  plant "$dir/torch.h5" "net$name-sealed" "$body"
  "$PY" "$RESEAL" "$dir/net$name-sealed.h5" || fail "sr_reseal_net $name"
  case $name in cs1|umax|param) ;; *) net_refused "$dir/net$name-sealed.h5" ;; esac
done <<'EOF2'
cs1|f.attrs["control_steps"] = np.int64(1)
umax|f.attrs["sys_umax"] = np.float64(3)
param|v = f.attrs["sys_param"]; v[0] += 0.5; f.attrs["sys_param"] = v
domain|v = f.attrs["domain_lo"]; v[0] -= 1; f.attrs["domain_lo"] = v
act|f.attrs["activations"] = np.bytes_("tanh,softplus,linear")
model|f.attrs["model"] = np.bytes_("dynamics")
sys|f.attrs["sys"] = np.bytes_("dubins")
nan|d = f["layers/0/weight"]; a = d[()]; a[2, 1] = np.nan; d[...] = a
inf|d = f["layers/0/bias"]; a = d[()]; a[1] = np.inf; d[...] = a
range|f.attrs["input_clip_lo"] = np.zeros(2); f.attrs["input_clip_hi"] = np.ones(2); f.attrs["input_mean"] = np.zeros(2); f.attrs["input_range"] = np.zeros(2)
EOF2
# a resealed control period or constants are a different closed loop: verify answers for it, so
# check that its abstraction says so, and that an option contradicting it is refused
"$SIMREACH" network "$dir/netcs1-sealed.h5" > "$dir/cs1.log" 2>&1 || { cat "$dir/cs1.log"; fail "network on the resealed control_steps 1 file"; }
grep -q "control_steps 1$" "$dir/cs1.log" || { cat "$dir/cs1.log"; fail "the resealed file does not state control_steps 1"; }
"$SIMREACH" verify -network "$dir/netcs1-sealed.h5" -cells 12,12 -control_steps 10 > "$dir/cs1.log" 2> "$dir/cs1.err"
[ $? -eq 2 ] || { cat "$dir/cs1.log" "$dir/cs1.err"; fail "-control_steps 10 on a control_steps 1 file: not refused"; }
# old network formats are still read (format 2 of the earlier writer)
plant "$dir/torch.h5" "fmt2" 'f.attrs["simreach_format"] = np.bytes_("simreach-network-2"); [f.attrs.__delitem__(k) for k in ("sys_param", "sys_dt", "sys_umax", "domain_lo", "domain_hi", "header_checksum")]'
"$SIMREACH" verify -network "$dir/fmt2.h5" -cells 12,12 > "$dir/fmt2.log" 2>&1 || { cat "$dir/fmt2.log"; fail "a format-2 network file is no longer read"; }
plant "$dir/torch.h5" "fmt9" 'f.attrs["simreach_format"] = np.bytes_("simreach-network-9")'
net_refused "$dir/fmt9.h5"

# 3. the safety file
sr_run 2 safe "$dir/abs_torch.h5" -trajectories 2000 -output "$dir/safe.h5" > "$dir/safe.log" 2>&1 || { cat "$dir/safe.log"; fail "safe -output"; }
sr_run 2 check "$dir/safe.h5" > "$dir/safecheck.log" 2>&1 || { cat "$dir/safecheck.log"; fail "check on the intact safety file"; }
grep -q "equal" "$dir/safecheck.log" || { cat "$dir/safecheck.log"; fail "check on the intact safety file: no verdict"; }
sr_run 2 verify -from "$dir/res.h5" -run 0 -cells 12,12 -enclosure taylor1 -output "$dir/abs_other.h5" > /dev/null 2>&1 || fail "verify (another abstraction)"
safe_refused() { # FILE: check refuses it or says it is not the abstraction's; never "equal", never exit 0
  local f=$1 base rc
  base=$(basename "$f" .h5)
  "$SIMREACH" check "$f" > "$dir/$base.log" 2> "$dir/$base.err"
  rc=$?
  [ $rc -ne 0 ] || { cat "$dir/$base.log" "$dir/$base.err"; fail "$base: check exited 0"; }
  grep -q "equal" "$dir/$base.log" && { cat "$dir/$base.log"; fail "$base: check printed a claim"; }
  [ $rc -eq 2 ] && one_line "$dir/$base.log" "$dir/$base.err" "$base.h5"
  N=$((N + 1))
}
"$PY" - "$dir/safe.h5" > "$dir/safeds.txt" <<'PYEOF' || fail "listing datasets"
import sys, h5py
h5py.File(sys.argv[1], "r").visititems(lambda n, o: print(n) if isinstance(o, h5py.Dataset) else None)
PYEOF
i=0
while read -r ds; do
  for pos in 0 mid; do
    i=$((i + 1))
    plant "$dir/safe.h5" "safeflip$i" "d = f['$ds']; a = d[()]; b = a.reshape(-1).view(np.uint8); b[0 if '$pos' == '0' else len(b) // 2] ^= 4; d[...] = a"
    safe_refused "$dir/safeflip$i.h5"
  done
done < "$dir/safeds.txt"
while IFS='|' read -r name body; do
  [ -n "$name" ] || continue
  plant "$dir/safe.h5" "safe$name" "$body"
  safe_refused "$dir/safe$name.h5"
  plant "$dir/safe.h5" "safe$name-sealed" "$body"
  "$PY" "$RESEAL" "$dir/safe$name-sealed.h5" || fail "sr_reseal_net $name"
  safe_refused "$dir/safe$name-sealed.h5"
done <<EOF2
claim|H = f["horizon"]; a = H[()]; k = int(np.argmax(a >= 0)); a[k] = -1; H[...] = a; f.attrs["safe_cells"] = np.int64((a == -1).sum())
fewer|H = f["horizon"]; a = H[()]; a[a > 0] -= 1; H[...] = a; f.attrs["max_horizon"] = np.int64(max(int(a.max()), 0))
count|f.attrs["safe_cells"] = np.int64(int(f.attrs["safe_cells"]) + 1)
K|f.attrs["K"] = np.int64(int(f.attrs["K"]) + 1)
counts|c = f.attrs["counts"]; c[0] += 1; f.attrs["counts"] = c
domain|v = f.attrs["domain_hi"]; v[1] += 1; f.attrs["domain_hi"] = v
violations|f.attrs["trajectory_violations"] = np.int64(3)
source|f.attrs["source_file"] = np.bytes_("$dir/abs_other.h5"); f.attrs["abstraction"] = np.bytes_("$dir/abs_other.h5")
EOF2
plant "$dir/safe.h5" "safefmt1" 'f.attrs["simreach_format"] = np.bytes_("simreach-safety-1")'
safe_refused "$dir/safefmt1.h5"
# on 2 ranks too: exit non-zero, no claim, no MPI_ABORT, a refusal in one line
for cmd in "verify -network $dir/netflip1.h5 -cells 12,12" "verify -network $dir/netnan-sealed.h5 -cells 12,12" "verify -network $dir/netact-sealed.h5 -cells 12,12" "check $dir/safeflip1.h5" "check $dir/safeclaim-sealed.h5" "check $dir/safeK-sealed.h5"; do
  sr_run 2 $cmd > "$dir/np2.log" 2> "$dir/np2.err"
  rc=$?
  [ $rc -ne 0 ] || { cat "$dir/np2.log"; fail "2 ranks: simreach $cmd exited 0"; }
  grep -q "equal\|(verified)\|every cell proven" "$dir/np2.log" && { cat "$dir/np2.log"; fail "2 ranks: simreach $cmd printed a claim"; }
  grep -q MPI_ABORT "$dir/np2.err" && { cat "$dir/np2.err"; fail "2 ranks: simreach $cmd: MPI_ABORT"; }
  # a refusal (exit 2) is one line; check's "NOT the one ... gives" (exit 5) is its answer
  [ $rc -ne 2 ] || [ "$(grep -c '^simreach: ' "$dir/np2.err")" -eq 1 ] || { cat "$dir/np2.log" "$dir/np2.err"; fail "2 ranks: simreach $cmd: not one line"; }
  N=$((N + 1))
done
echo "ok: -control_steps 10 run -> network file -> PyTorch -> network file verifies to the run's own lists; contradicting options refused; $N corrupted network and safety files refused (no claim, exit non-zero, one line)"
