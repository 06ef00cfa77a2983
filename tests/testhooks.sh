#!/usr/bin/env bash
# No test hook in the product (issue 34, item 2; docs/arch.md "Test build"):
# - the product executable refuses -closedloop_test_planted_shrink as an unknown option: one
#   line, exit 2, no output file, an existing output file unchanged;
# - the test executable simreach_testhooks, under the planted fault, on 1 and 2 ranks: never
#   VERIFIED, never exit 0 (PLANTED-FAULT, exit 7), and the -o file records the fault
#   (verdict PLANTED-FAULT, attribute planted_fault), which `simreach check` reports (exit 5)
#   and analysis/tube.py marks;
# - without the fault the same question is FALSIFIED (exit 6): the fault would have turned a
#   false spec into VERIFIED (the reproduction of the issue);
# - SIMREACH_TEST_PAUSE only pauses (tests/files_kill.sh): it changes no verdict here.
# Usage: testhooks.sh SRCDIR WORKDIR   (environment: SIMREACH, SIMREACH_TESTHOOKS, MPIEXEC, MPIEXEC_EXTRA, PY)
. "$(dirname "$0")/study_common.sh"
src=$1 dir=$2
: "${SIMREACH_TESTHOOKS:?set SIMREACH_TESTHOOKS to the test executable}"
rm -rf "$dir" && mkdir -p "$dir" || fail "cannot create $dir"
D=$src/tests/data/issue34
Q=(-plant "$D/plant_cos.txt" -network "$D/net_tiny.nnet" -spec "$D/spec_cos.txt" -closedloop_progress 0)

# the product: the option does not exist
echo "an existing file" > "$dir/keep.h5"
sum0=$(sha256sum < "$dir/keep.h5")
"$SIMREACH" closedloop "${Q[@]}" -closedloop_test_planted_shrink 0.9 -o "$dir/p.h5" > "$dir/p.out" 2>&1; rc=$?
[ $rc = 2 ] && [ "$(grep -c '^simreach:' "$dir/p.out")" = 1 ] && grep -q "unknown option(s): -closedloop_test_planted_shrink" "$dir/p.out" || { cat "$dir/p.out"; fail "product: exit $rc, want 2 and one line naming the option"; }
grep -q VERIFIED "$dir/p.out" && fail "product printed VERIFIED"
[ -e "$dir/p.h5" ] && fail "product wrote an output file"
"$SIMREACH" closedloop "${Q[@]}" -closedloop_test_planted_shrink 0.9 -o "$dir/keep.h5" -force > "$dir/p2.out" 2>&1 && fail "product accepted the option with -force"
[ "$(sha256sum < "$dir/keep.h5")" = "$sum0" ] || fail "the existing file was changed"
"$SIMREACH" closedloop -help 2>&1 | grep -q test_planted && fail "product -help mentions the test option"

# the test executable under the planted fault
for np in 1 2; do
  "$MPIEXEC" -n $np $MPIEXEC_EXTRA "$SIMREACH_TESTHOOKS" closedloop "${Q[@]}" -closedloop_test_planted_shrink 0.9 -o "$dir/t$np.h5" > "$dir/t$np.out" 2>&1; rc=$?
  [ $rc = 7 ] || { cat "$dir/t$np.out"; fail "testhooks on $np ranks: exit $rc, want 7"; }
  grep -q "VERIFIED" "$dir/t$np.out" && { cat "$dir/t$np.out"; fail "testhooks on $np ranks printed VERIFIED under a planted fault"; }
  grep -q "closedloop: PLANTED-FAULT: the test option -closedloop_test_planted_shrink 0.9" "$dir/t$np.out" || { cat "$dir/t$np.out"; fail "no PLANTED-FAULT line"; }
  "$PY" - "$dir/t$np.h5" <<'PYEOF' || fail "the output file does not record the fault"
import sys, h5py
f = h5py.File(sys.argv[1], "r")
s = lambda k: f.attrs[k].decode() if isinstance(f.attrs[k], bytes) else str(f.attrs[k])
assert s("verdict") == "PLANTED-FAULT", s("verdict")
assert s("planted_fault") == "-closedloop_test_planted_shrink 0.9", s("planted_fault")
PYEOF
  "$SIMREACH" check "$dir/t$np.h5" > "$dir/c$np.out" 2>&1; rc=$?
  [ $rc = 5 ] && grep -q "planted fault.*answers nothing" "$dir/c$np.out" || { cat "$dir/c$np.out"; fail "check on the planted file: exit $rc, want 5"; }
  ls "$dir"/*.part "$dir"/*.lock 2> /dev/null && fail ".part or .lock left"
done
if "$PY" -c "import matplotlib" 2> /dev/null; then
  "$PY" "$src/analysis/tube.py" "$dir/t1.h5" -o "$dir/t1.png" > "$dir/tube.out" 2>&1 || { cat "$dir/tube.out"; fail "tube.py on the planted file"; }
fi
# the same question without the fault: FALSIFIED
"$SIMREACH_TESTHOOKS" closedloop "${Q[@]}" > "$dir/f.out" 2>&1; rc=$?
[ $rc = 6 ] && grep -q "closedloop: FALSIFIED" "$dir/f.out" || { cat "$dir/f.out"; fail "without the fault: exit $rc, want 6 (FALSIFIED)"; }
# SIMREACH_TEST_PAUSE at a moment this command never reaches: only pauses, no verdict effect
SIMREACH_TEST_PAUSE=study_checkpoint "$SIMREACH" closedloop "${Q[@]}" > "$dir/e.out" 2>&1; rc=$?
[ $rc = 6 ] || { cat "$dir/e.out"; fail "SIMREACH_TEST_PAUSE changed the verdict: exit $rc"; }
echo "PASS: the product refuses the test option; under the planted fault exit 7 PLANTED-FAULT on 1 and 2 ranks, recorded in the file; without it FALSIFIED"
