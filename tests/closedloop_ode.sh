#!/usr/bin/env bash
# simreach closedloop end to end (SPEC §15) on the ARCH pendulum plant with the hand-made tanh
# controller tests/data/pendulum_tanh_controller.h5:
# - exit codes: VERIFIED 0 (tests/data/pendulum_spec_late.txt), FALSIFIED 6 with a confirmed
#   counterexample (a window the trajectory from the top corner breaks), UNKNOWN 5 with the open
#   pieces listed (split budget 0);
# - the same verdict and bit-identical pieces and tubes on 1 and 2 ranks;
# - analysis/tube.py draws the tubes;
# - bad plant, spec and network files and mismatched dimensions: one line naming file, line and
#   problem, exit 2, no output file written; an existing output is not replaced without -force.
# Usage: closedloop_ode.sh SRCDIR WORKDIR   (environment: SIMREACH, MPIEXEC, MPIEXEC_EXTRA, PY)
. "$(dirname "$0")/study_common.sh"
src=$1
dir=$2
rm -rf "$dir" && mkdir -p "$dir" || fail "cannot create $dir"
P=$src/jobs/arch/pendulum/plant.txt
N=$src/tests/data/pendulum_tanh_controller.h5
S=$src/tests/data/pendulum_spec_late.txt
cl() { local np=$1; shift; sr_run "$np" closedloop -closedloop_progress 0 "$@"; }

# verdicts and exit codes
cl 1 -plant "$P" -network "$N" -spec "$S" -o "$dir/v1.h5" > "$dir/v1.out" 2>&1; rc=$?
[ $rc = 0 ] && grep -q "VERIFIED" "$dir/v1.out" || { cat "$dir/v1.out"; fail "VERIFIED run: exit $rc"; }
cl 2 -plant "$P" -network "$N" -spec "$S" -o "$dir/v2.h5" > "$dir/v2.out" 2>&1; rc=$?
[ $rc = 0 ] && grep -q "VERIFIED" "$dir/v2.out" || { cat "$dir/v2.out"; fail "VERIFIED run on 2 ranks: exit $rc"; }
"$PY" - "$dir/v1.h5" "$dir/v2.h5" <<'PYEOF' || fail "1 and 2 ranks differ"
import sys, h5py, numpy as np
a, b = (h5py.File(p, "r") for p in sys.argv[1:])
assert a.attrs["verdict"] == b.attrs["verdict"]
assert np.array_equal(a["pieces"][:], b["pieces"][:]), "pieces differ"
assert np.array_equal(a["tubes"][:], b["tubes"][:], equal_nan=True), "tubes differ"
assert a["pieces"].shape[0] >= 2, "the VERIFIED case should need a split (2 leaves with the adaptive sub-steps, 5 without)"
print("1 and 2 ranks: %d identical pieces" % a["pieces"].shape[0])
PYEOF
cat > "$dir/spec_bad.txt" <<'SPEOF'
initial x1 in [1.0, 1.2]
initial x2 in [0.0, 0.2]
always [0.3, 0.6]: x1 <= 1
SPEOF
cl 1 -plant "$P" -network "$N" -spec "$dir/spec_bad.txt" > "$dir/f.out" 2>&1; rc=$?
[ $rc = 6 ] && grep -q "FALSIFIED.*confirmed by the validated enclosure" "$dir/f.out" || { cat "$dir/f.out"; fail "FALSIFIED run: exit $rc"; }
cl 2 -plant "$P" -network "$N" -spec "$dir/spec_bad.txt" > "$dir/f2.out" 2>&1; rc=$?
[ $rc = 6 ] || { cat "$dir/f2.out"; fail "FALSIFIED run on 2 ranks: exit $rc"; }
cl 1 -plant "$P" -network "$N" -spec "$S" -closedloop_max_depth 0 > "$dir/u.out" 2>&1; rc=$?
[ $rc = 5 ] && grep -q "UNKNOWN: 1 of 1 leaf pieces open" "$dir/u.out" && grep -q "open piece .* not proven at step" "$dir/u.out" && grep -q "closedloop: why (1 open pieces): .*-closedloop_" "$dir/u.out" || { cat "$dir/u.out"; fail "UNKNOWN run: exit $rc"; }

# the picture
if "$PY" -c "import matplotlib" 2> /dev/null; then
  "$PY" "$src/analysis/tube.py" "$dir/v1.h5" -o "$dir/tube.png" || fail "analysis/tube.py"
  [ -s "$dir/tube.png" ] || fail "no tube.png"
fi

# refusals: one line, exit 2, before any work
refuse() { # expected-pattern args...   (run without mpiexec: its own exit notices are not ours)
  local pat=$1; shift
  "$SIMREACH" closedloop "$@" > "$dir/r.out" 2>&1; local rc=$?
  [ $rc = 2 ] || { cat "$dir/r.out"; fail "exit $rc (want 2) for: $*"; }
  [ "$(grep -c "^simreach:" "$dir/r.out")" = 1 ] || { cat "$dir/r.out"; fail "not one line for: $*"; } # (Open MPI adds its MPI_Abort notice when a reader fails on one rank)
  grep -q -- "$pat" "$dir/r.out" || { cat "$dir/r.out"; fail "message lacks '$pat' for: $*"; }
  [ -e "$dir/never.h5" ] && fail "an output file was written for: $*"
  return 0
}
badplant() { printf '%s\n' "$@" > "$dir/bad_plant.txt"; }
badplant "states x1 x2" "outputs 1" "input x1" "input x2" "control a = y1" "der x1 = x2" "der x2 = sin(x1 + a" "period 0.05" "horizon 1"
refuse "plant file $dir/bad_plant.txt:7:.*expected ')'" -plant "$dir/bad_plant.txt" -network "$N" -spec "$S" -o "$dir/never.h5"
badplant "states x1 x2" "outputs 1" "input x1" "input x2" "control a = y1" "der x1 = x2" "der x2 = sinh(x1) + a" "period 0.05" "horizon 1"
refuse "bad_plant.txt:7:10: unknown name 'sinh'" -plant "$dir/bad_plant.txt" -network "$N" -spec "$S" -o "$dir/never.h5"
badplant "states x1 x2" "outputs 1" "input x1" "input x2" "control a = y2" "der x1 = x2" "der x2 = a" "period 0.05" "horizon 1"
refuse "bad_plant.txt:5:13: network output 'y2'" -plant "$dir/bad_plant.txt" -network "$N" -spec "$S"
badplant "states x1 x2" "outputs 1" "input x1" "input x2" "control a = y1" "der x1 = x2" "period 0.05" "horizon 1"
refuse "no 'der x2' line" -plant "$dir/bad_plant.txt" -network "$N" -spec "$S"
badplant "states x1 x2" "outputs 1" "input x1" "input x2" "control a = y1" "der x1 = x2" "der x2 = a" "period 0.3" "horizon 1"
refuse "horizon 1 is not a multiple of the period 0.3" -plant "$dir/bad_plant.txt" -network "$N" -spec "$S"
# dimension mismatches between the files
badplant "states x1 x2" "outputs 1" "input x1" "control a = y1" "der x1 = x2" "der x2 = a" "period 0.05" "horizon 1"
refuse "network.*2 inputs, but plant file .* has 1 'input' lines" -plant "$dir/bad_plant.txt" -network "$N" -spec "$S"
badplant "states x1 x2" "outputs 2" "input x1" "input x2" "control a = y1" "der x1 = x2" "der x2 = a" "period 0.05" "horizon 1"
refuse "1 outputs, but plant file .* says 'outputs 2'" -plant "$dir/bad_plant.txt" -network "$N" -spec "$S"
printf 'initial x1 in [1, 1.2]\ninitial x3 in [0, 1]\nalways: x1 <= 2\n' > "$dir/bad_spec.txt"
refuse "spec file $dir/bad_spec.txt:2:9: 'x3' is not a state" -plant "$P" -network "$N" -spec "$dir/bad_spec.txt"
printf 'initial x1 in [1, 1.2]\nalways: x1 <= 2\n' > "$dir/bad_spec.txt"
refuse "no 'initial x2 in" -plant "$P" -network "$N" -spec "$dir/bad_spec.txt"
printf 'initial x1 in [1, 1.2]\ninitial x2 in [0, 1]\nalways [0, 5]: x1 <= 2\n' > "$dir/bad_spec.txt"
refuse "bad_spec.txt:3:.*window \[0, 5\] is not inside the horizon" -plant "$P" -network "$N" -spec "$dir/bad_spec.txt"
printf 'initial x1 in [1, 1.2]\ninitial x2 in [0, 1]\nalways: x1 < 2\n' > "$dir/bad_spec.txt"
refuse "bad_spec.txt:3:12: expected '<=', '>=' or 'in'" -plant "$P" -network "$N" -spec "$dir/bad_spec.txt"
printf 'not hdf5\n' > "$dir/bad_net.h5"
refuse "bad_net.h5: not an HDF5 file" -plant "$P" -network "$dir/bad_net.h5" -spec "$S"
refuse "plant /nonexistent: cannot read the file" -plant /nonexistent -network "$N" -spec "$S"
refuse "closedloop_substeps 3: allowed are powers of two" -plant "$P" -network "$N" -spec "$S" -closedloop_substeps 3
refuse "closedloop_order 2: allowed are integers 4..20" -plant "$P" -network "$N" -spec "$S" -closedloop_order 2
refuse "v1.h5: the file exists; give -force" -plant "$P" -network "$N" -spec "$S" -o "$dir/v1.h5"
echo "closedloop_ode: all checks passed"
