#!/usr/bin/env bash
# Issue #34 (SPEC §15 turn 4): everything derived from a plant or spec file is bounded, and no
# input gives a false verdict.
# - steps from horizon / period computed in double and capped at 10^7 (horizon 1e12 wrapped to
#   -2147483648 steps and a spec false at t = 0 was VERIFIED), the period held to 1e-9..1e9:
#   exit 2, one line naming file:line:col;
# - nesting (30,000 parentheses, 50,000 nested sin(, 100,000 signs: a SIGSEGV before), division
#   by a constant zero, more distinct operations than the budget: exit 2, one line file:line:col;
# - only regular files: a FIFO (a hang before), a directory or a device as -plant or -spec is
#   refused by type;
# - 10,000 and 50,000 constant terms are folded once (they were re-evaluated at every step);
# - a spec false at t = 0 over 10^7 steps is FALSIFIED on 1 and 2 ranks (the simulation stops at
#   its first violation; that it is fast is not asserted);
# - a violation of an always constraint shorter than 1/16 of a period, near the end, is FALSIFIED
#   (confirmed with more sub-steps around the simulated time); a simulated violation the validated
#   enclosure cannot confirm is named in the UNKNOWN report.
# The big files are generated here.  Usage: plantfile_limits.sh SRCDIR WORKDIR
# (environment: SIMREACH, MPIEXEC, MPIEXEC_EXTRA, PY)
. "$(dirname "$0")/study_common.sh"
src=$1 dir=$2
rm -rf "$dir" && mkdir -p "$dir" || fail "cannot create $dir"
P=$src/jobs/arch/pendulum/plant.txt
N=$src/tests/data/pendulum_tanh_controller.h5
S=$src/tests/data/pendulum_spec_late.txt
cl() { local np=$1; shift; sr_run "$np" closedloop -closedloop_progress 0 "$@"; }

# refuse PATTERN ARGS...: exit 2, exactly one line, matching PATTERN, within 60 s (no hang)
refuse() {
  local pat=$1; shift
  timeout 60 "$SIMREACH" closedloop -closedloop_progress 0 "$@" > "$dir/r.out" 2>&1; local rc=$?
  [ $rc = 2 ] || { head -c 2000 "$dir/r.out"; fail "exit $rc (want 2) for: ${*:0:6}"; }
  [ "$(wc -l < "$dir/r.out")" = 1 ] || { head -c 2000 "$dir/r.out"; fail "not one line for: $*"; }
  grep -q -- "$pat" "$dir/r.out" || { cat "$dir/r.out"; fail "message lacks '$pat' for: $*"; }
  return 0
}
# variants of the pendulum plant (line 14: der x2, line 15: period, line 16: horizon)
"$PY" - "$P" "$dir" <<'PYEOF' || fail "writing the plant files"
import sys
base, d = open(sys.argv[1]).read(), sys.argv[2]
der = "der x2 = g / l * sin(x1) + (a - c * x2) / (m * l^2)"
assert der in base and "period 0.05\n" in base and "horizon 1\n" in base
def w(name, s):
    open(f"{d}/{name}.txt", "w").write(s)
w("horizon1e12", base.replace("horizon 1\n", "horizon 1e12\n"))
w("horizon600000", base.replace("horizon 1\n", "horizon 600000\n"))
w("period1e-300", base.replace("period 0.05\n", "period 1e-300\n"))
w("steps_over", base.replace("horizon 1\n", "steps 10000001\n"))
w("steps_max", base.replace("horizon 1\n", "steps 10000000\n"))
w("parens", base.replace(der, "der x2 = " + "(" * 30000 + "a" + ")" * 30000))
w("sins", base.replace(der, "der x2 = " + "sin(" * 50000 + "x1" + ")" * 50000 + " + a"))
w("signs", base.replace(der, "der x2 = " + "-" * 100000 + "a"))
w("div0const", base.replace("const c = 0\n", "const c = 0\nconst k = 1 / (c * 3)\n"))
w("div0der", base.replace(der, "der x2 = a / (2 - 2)"))
w("budget", base.replace(der, "der x2 = a + " + " + ".join(f"{i + 1} * sin(x1 + {i})" for i in range(6000))))
w("const10k", base.replace("const c = 0\n", "const c = 0\nconst k = " + " + ".join(["0.001"] * 10000) + "\n"))
w("const50k", base.replace("const c = 0\n", "const c = 0\nconst k = " + " + ".join(["0.001"] * 50000) + "\n"))
PYEOF
d=$dir
refuse "plant file $d/horizon1e12.txt:16:9: horizon 1e+12 / period 0.05 = 2e+13 periods; at most 10000000" -plant "$d/horizon1e12.txt" -network "$N" -spec "$S"
refuse "plant file $d/horizon600000.txt:16:9: horizon 600000 / period 0.05 = 1.2e+07 periods" -plant "$d/horizon600000.txt" -network "$N" -spec "$S"
refuse "plant file $d/period1e-300.txt:15:8: period 1e-300: allowed are 1e-09..1e+09" -plant "$d/period1e-300.txt" -network "$N" -spec "$S"
refuse "plant file $d/steps_over.txt:16:7: steps 10000001: expected an integer 1..10000000" -plant "$d/steps_over.txt" -network "$N" -spec "$S"
refuse "plant file $d/parens.txt:14:110: expression nested deeper than 100" -plant "$d/parens.txt" -network "$N" -spec "$S"
refuse "plant file $d/sins.txt:14:414: expression nested deeper than 100" -plant "$d/sins.txt" -network "$N" -spec "$S"
refuse "plant file $d/signs.txt:14:110: expression nested deeper than 100" -plant "$d/signs.txt" -network "$N" -spec "$S"
refuse "plant file $d/div0const.txt:9:13: division by zero" -plant "$d/div0const.txt" -network "$N" -spec "$S"
refuse "plant file $d/div0der.txt:14:12: division by zero" -plant "$d/div0der.txt" -network "$N" -spec "$S"
refuse "plant file $d/budget.txt:14:[0-9]*: the expressions need more than 10000 distinct operations" -plant "$d/budget.txt" -network "$N" -spec "$S"
# only regular files (a FIFO with no writer hung the reader)
mkfifo "$d/fifo" || fail "mkfifo"
refuse "-plant $d/fifo: is a FIFO; give a regular file" -plant "$d/fifo" -network "$N" -spec "$S"
refuse "-spec $d/fifo: is a FIFO; give a regular file" -plant "$P" -network "$N" -spec "$d/fifo"
refuse "-plant $d: is a directory" -plant "$d" -network "$N" -spec "$S"
refuse "-spec /dev/null: is a character device" -plant "$P" -network "$N" -spec /dev/null

# constants are folded: 10,000 and 50,000 terms run like the plain plant
for f in const10k const50k; do
  timeout 300 "$SIMREACH" closedloop -closedloop_progress 0 -plant "$d/$f.txt" -network "$N" -spec "$S" > "$d/$f.out" 2>&1; rc=$?
  [ $rc = 0 ] && grep -q "VERIFIED" "$d/$f.out" || { cat "$d/$f.out"; fail "$f: exit $rc (want 0, VERIFIED)"; }
done

# a spec false at t = 0 (X0 has x1 >= 1) over the largest horizon: FALSIFIED, on 1 and 2 ranks
printf 'initial x1 in [1.0, 1.2]\ninitial x2 in [0.0, 0.2]\nalways: x1 <= -1000\n' > "$d/false_at_0.txt"
for np in 1 2; do
  timeout 300 "$MPIEXEC" -n $np $MPIEXEC_EXTRA "$SIMREACH" closedloop -closedloop_progress 0 -plant "$d/steps_max.txt" -network "$N" -spec "$d/false_at_0.txt" > "$d/f0_$np.out" 2>&1; rc=$?
  [ $rc = 6 ] && grep -q "FALSIFIED.*confirmed by the validated enclosure" "$d/f0_$np.out" || { cat "$d/f0_$np.out"; fail "false at t = 0, $np ranks: exit $rc (want 6)"; }
  grep -q "VERIFIED" "$d/f0_$np.out" && fail "VERIFIED for a false spec"
done

# what -o would keep (tubes and the trajectory over 10^7 steps) is bounded before the work
timeout 60 "$SIMREACH" closedloop -closedloop_progress 0 -plant "$d/steps_max.txt" -network "$N" -spec "$d/false_at_0.txt" -o "$d/never.h5" > "$d/o.out" 2>&1; rc=$?
[ $rc = 2 ] && [ "$(grep -c '^simreach:' "$d/o.out")" = 1 ] && grep -q "simreach: -o: 10000000 steps of 2 states need 0.32 GB per piece for the tubes and 3.2 GB for the trajectory" "$d/o.out" || { cat "$d/o.out"; fail "-o over 10^7 steps: exit $rc (want 2, one line)"; }
[ -e "$d/never.h5" ] && fail "an output file was written"

# an always constraint broken for ~0.021 s (< 1/16 of the period 0.5) in the last periods:
# x1 = A cos(t + phi) peaks at t = 6.1406 (between two sixteenths of the period), A up to 1.0000048
cat > "$d/osc_plant.txt" <<'EOF'
# a harmonic oscillator (the network's output is not used)
states x1 x2
outputs 1
input x1
input x2
control a = y1
der x1 = x2
der x2 = -x1
period 0.5
steps 13
EOF
printf 'initial x1 in [0.98985, 0.98986]\ninitial x2 in [-0.14208, -0.14207]\nalways: x1 <= 0.99995\n' > "$d/osc_spec.txt"
for np in 1 2; do
  timeout 600 "$MPIEXEC" -n $np $MPIEXEC_EXTRA "$SIMREACH" closedloop -closedloop_progress 0 -closedloop_max_depth 2 -plant "$d/osc_plant.txt" -network "$N" -spec "$d/osc_spec.txt" > "$d/osc$np.out" 2>&1; rc=$?
  [ $rc = 6 ] && grep -q "FALSIFIED.*spec line 3.*confirmed by the validated enclosure" "$d/osc$np.out" || { cat "$d/osc$np.out"; fail "short violation, $np ranks: exit $rc (want 6, FALSIFIED)"; }
done

# a simulated violation the validated enclosure cannot confirm (the simulation takes the
# disturbance's midpoint, w = 0 keeps x1 at 0): UNKNOWN, and the report names it
cat > "$d/dist_plant.txt" <<'EOF'
states x1 x2
outputs 1
input x1
input x2
control a = y1
disturbance w in [0, 2]
der x1 = w
der x2 = 0
period 0.5
steps 4
EOF
printf 'initial x1 in [0, 0]\ninitial x2 in [0, 0]\nalways: x1 <= 1.5\n' > "$d/dist_spec.txt"
for np in 1 2; do
  timeout 600 "$MPIEXEC" -n $np $MPIEXEC_EXTRA "$SIMREACH" closedloop -closedloop_progress 0 -plant "$d/dist_plant.txt" -network "$N" -spec "$d/dist_spec.txt" > "$d/dist$np.out" 2>&1; rc=$?
  [ $rc = 5 ] && grep -q "UNKNOWN" "$d/dist$np.out" || { cat "$d/dist$np.out"; fail "unconfirmed violation, $np ranks: exit $rc (want 5, UNKNOWN)"; }
  grep -q "the simulated trajectory (RK4, 20 steps per period, disturbances at their midpoints) from (x1 = 0, x2 = 0) breaks the constraint of spec line 3 at t = 1.525 by 0.025, NOT confirmed by the validated enclosure" "$d/dist$np.out" \
    || { cat "$d/dist$np.out"; fail "the UNKNOWN report does not name the simulated violation ($np ranks)"; }
done
# the same for an eventually constraint (with w = 2 the window is met): said as such
printf 'initial x1 in [0, 0]\ninitial x2 in [0, 0]\neventually [1.5, 2]: x1 >= 2.5\n' > "$d/ev_spec.txt"
timeout 600 "$SIMREACH" closedloop -closedloop_progress 0 -plant "$d/dist_plant.txt" -network "$N" -spec "$d/ev_spec.txt" > "$d/ev.out" 2>&1; rc=$?
[ $rc = 5 ] && grep -q "from (x1 = 0, x2 = 0) never meets the constraint of spec line 3 in its window (it misses by 0.5 at best), NOT confirmed" "$d/ev.out" \
  || { cat "$d/ev.out"; fail "unconfirmed eventually violation: exit $rc (want 5, the violation named)"; }
echo "plantfile_limits: all checks passed"
