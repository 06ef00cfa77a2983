#!/usr/bin/env bash
# reach and safe say what they proved (issue 34, item 6; docs/files.md "What each command
# re-proves"): on an abstraction file edited consistently and resealed (tests/sr_clip_sink.py:
# sink flags cleared, E_k clipped to D; tests/sr_reseal.py) reach and safe re-prove the lists
# first and refuse, on 1 and 2 ranks: exit 5, one line, no "(verified)", no "verified-safe set",
# no -output written; with -reprove false they answer "NOT verified here" naming simreach check;
# on the intact file reach prints "(verified)" with the rows re-proven.
# Usage: reprove.sh TEST_VERIFY WORKDIR   (environment: SIMREACH, MPIEXEC, MPIEXEC_EXTRA, PY)
. "$(dirname "$0")/study_common.sh"
tv=$1 dir=$2
rm -rf "$dir" && mkdir -p "$dir" || fail "cannot create $dir"
"$tv" -write_network "$dir/pend.h5" -sys pendulum -model dynamics -seed 3 > /dev/null || fail "writing a network file"
sr_run 2 verify -network "$dir/pend.h5" -cells 60,50 -output "$dir/abs.h5" > "$dir/abs.log" 2>&1 || { cat "$dir/abs.log"; fail "verify -output"; }
R=(-init -0.01,0.01,-0.01,0.01 -steps 1)
sr_run 2 reach "$dir/abs.h5" "${R[@]}" > "$dir/ok.log" 2>&1 || { cat "$dir/ok.log"; fail "reach on the intact file"; }
grep -q "(verified); the lists: every one of the 3000 stored rows re-proven here" "$dir/ok.log" || { cat "$dir/ok.log"; fail "reach on the intact file: no re-proven (verified)"; }
cp "$dir/abs.h5" "$dir/atk.h5"
"$PY" "$(dirname "$0")/sr_clip_sink.py" "$dir/atk.h5" && "$PY" "$(dirname "$0")/sr_reseal.py" "$dir/atk.h5" || fail "planting the edit"
for np in 1 2; do
  for cmd in "reach $dir/atk.h5 ${R[*]}" "safe $dir/atk.h5 -trajectories 0 -output $dir/s.h5"; do
    sr_run $np $cmd > "$dir/a.log" 2>&1; rc=$?
    [ $rc = 5 ] || { cat "$dir/a.log"; fail "$np ranks: simreach $cmd: exit $rc, want 5"; }
    grep -q "(verified)\|verified-safe set" "$dir/a.log" && { cat "$dir/a.log"; fail "$np ranks: simreach $cmd printed a claim"; }
    [ "$(grep -c '^simreach:' "$dir/a.log")" = 1 ] && grep -q "stored rows do not re-prove" "$dir/a.log" || { cat "$dir/a.log"; fail "$np ranks: simreach $cmd: not one line naming the rows"; }
    [ -e "$dir/s.h5" ] && fail "safe wrote -output from unproven lists"
  done
done
"$SIMREACH" reach "$dir/atk.h5" "${R[@]}" -reprove false > "$dir/g.log" 2>&1 || { cat "$dir/g.log"; fail "reach -reprove false"; }
grep -q "(verified)" "$dir/g.log" && fail "reach -reprove false printed (verified)"
grep -q "NOT verified here: given the stored lists, not re-proven here (-reprove false; re-prove them: simreach check $dir/atk.h5)" "$dir/g.log" || { cat "$dir/g.log"; fail "reach -reprove false does not say what it proved"; }
echo "PASS: the resealed edit is refused by reach and safe on 1 and 2 ranks; -reprove false says NOT verified"
