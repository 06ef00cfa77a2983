#!/usr/bin/env bash
# gather -control (SPEC §9): the positive control's lines, the options in which it differs from
# the study, and a criterion-2 null that reads NOT TESTED without a detected control.
# Usage: study_control.sh OPTIONS_FILE STUDY.h5 WORKDIR   (environment: see study_common.sh)
. "$(dirname "$0")/study_common.sh"
opts=$1 study=$2 dir=$3
rm -rf "$dir" && mkdir -p "$dir" || fail "cannot create $dir"
# gather -control writes its verdict into the file (issue 21): work on a copy, not the shared study
cp "$study" "$dir/study.h5" || fail "cannot copy $study"
study="$dir/study.h5"
# the study as its own control: same options
sr_run 1 gather "$study" -control "$study" > "$dir/self.log" 2>&1 || { cat "$dir/self.log"; fail "gather -control (itself)"; }
grep -q "^Positive control $study: .* -> \(DETECTED\|NOT DETECTED\)$" "$dir/self.log" || { cat "$dir/self.log"; fail "no Positive control line"; }
grep -q "the control has this study's options besides the sweep" "$dir/self.log" || { cat "$dir/self.log"; fail "the same options not recognised"; }
# a control that differs: train-then-abstract with encl at a large weight
sr_run 2 study -options_file "$opts" -loss encl -beta 0,3 -guard none -lr 5e-3 -output "$dir/control.h5" > "$dir/control_study.log" 2>&1 || { cat "$dir/control_study.log"; fail "control study"; }
sr_run 1 gather "$study" -control "$dir/control.h5" > "$dir/diff.log" 2>&1 || { cat "$dir/diff.log"; fail "gather -control"; }
grep -q "the control differs from this study in 3 option(s) besides the sweep: -guard none (study: backtrack), -loss encl (study: unset), -lr 5e-3 (study: 1e-2)$" "$dir/diff.log" || { grep 'differs' "$dir/diff.log"; fail "the differing options not named"; }
grep -qE "^  control beta=3\.? tau=0\.05: acted" "$dir/diff.log" || { cat "$dir/diff.log"; fail "no per-setting control line"; }
# a null without a detected control is NOT TESTED; with a detected control it may be DOES NOT HOLD
c2=$(grep '^Criterion 2,' "$dir/diff.log")
if grep -q "NOT DETECTED" "$dir/diff.log"; then
  [[ "$c2" != *"DOES NOT HOLD"* ]] || fail "DOES NOT HOLD without a detected positive control: $c2"
fi
# one verdict everywhere (SPEC §9): the printed criterion-2 verdict is the one stored in the file,
# with the control's path and outcome, and analysis/report.py writes the same
want=$(case "$c2" in *"-> HOLDS"*) echo 1 ;; *"-> DOES NOT HOLD"*) echo 0 ;; *) echo -1 ;; esac)
det=$(grep -q "^Positive control .* -> DETECTED$" "$dir/diff.log" && echo 1 || echo 0)
grep -q "the verdict with the positive control is stored in $study" "$dir/diff.log" || fail "the gather did not say it stored the verdict"
"$PY" - "$study" "$want" "$det" "$dir/control.h5" <<'PYEOF' || fail "the stored verdict differs from the printed one"
import sys, h5py
f = h5py.File(sys.argv[1], "r"); d = f["/summary/verdict"]
c = d.attrs["control"]; c = c.decode() if isinstance(c, bytes) else str(c)
ok = int(d[1]) == int(sys.argv[2]) and int(d.attrs["control_detected"][0]) == int(sys.argv[3]) and c == sys.argv[4] and int(d.attrs["rule_version"][0]) == 3
print("stored verdict", list(d[()]), "control", c, "detected", int(d.attrs["control_detected"][0]), "->", "OK" if ok else "DIFFERS")
sys.exit(0 if ok else 1)
PYEOF
"$PY" "$(dirname "$0")/../analysis/report.py" "$study" -o "$dir/report" > "$dir/report.log" 2>&1 || { cat "$dir/report.log"; fail "report.py"; }
rep=$(grep -F '| >= 20 %' "$dir/report/report.md")
case "$want" in 1) [[ "$rep" == *"| yes |"* ]] ;; 0) [[ "$rep" == *"| no |"* ]] ;; *) [[ "$rep" == *"| NOT TESTED |"* ]] ;; esac || fail "report.md says '$rep', the gather printed '$c2'"
# a file whose /summary/table has the columns of an older simreach (40): gather -control refuses
# it in one line, exit 2, before any work, and leaves it as it was (SPEC §13)
cp "$study" "$dir/old.h5" || fail "cannot copy $study"
"$PY" - "$dir/old.h5" <<'PYEOF' || fail "cannot write the older summary table"
import sys, h5py, numpy as np
f = h5py.File(sys.argv[1], "r+"); t = f["/summary/table"]; shp = t.shape; cols = t.attrs.get("columns")
del f["/summary/table"]; d = f.create_dataset("/summary/table", data=np.full(shp[:2] + (40,), np.nan))
PYEOF
sum_before=$(md5sum < "$dir/old.h5")
sr_run 2 gather "$dir/old.h5" -control "$dir/control.h5" > "$dir/old.log" 2>&1; rc=$?
[ "$rc" -eq 2 ] || { cat "$dir/old.log"; fail "gather -control on an older summary table: exit $rc, expected 2"; }
[ "$(grep -c '^simreach: ' "$dir/old.log")" -eq 1 ] && ! grep -q "PETSC ERROR\|HDF5" "$dir/old.log" || { cat "$dir/old.log"; fail "gather -control on an older summary table: not one line of refusal"; }
grep -q "^simreach: $dir/old.h5: /summary/table has 40 columns, this simreach .* writes [0-9]* .*gather -control cannot store its verdict there" "$dir/old.log" || { cat "$dir/old.log"; fail "the refusal does not name the file and the columns"; }
[ "$(md5sum < "$dir/old.h5")" = "$sum_before" ] || fail "the refused file was changed"
[ ! -e "$dir/old.h5.lock" ] || fail "the refusal left a lock file"
echo "PASS: gather -control on an older summary table: $(grep '^simreach: ' "$dir/old.log")"
echo "PASS: gather -control prints the control, its differing options, and the null rule; printed verdict == file == report"
