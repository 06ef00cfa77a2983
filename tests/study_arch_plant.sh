#!/usr/bin/env bash
# The study on an ARCH plant (issue 36, SPEC §16): jobs/arch/tora/study_plant.txt states the
# dynamics of the ARCH TORA benchmark (the same 'der' lines as jobs/arch/tora/plant.txt) with a
# bounded controller, the LQR reference and a domain; a small study on it trains guarded on 2
# ranks (every phi step through the guard, one control period of the ODE held per step),
# gathers, proves every stored cell, and records the plant by path and digest.  The
# benchmark's own loop file (no reference, no bound) is refused in one line before any work.
# Usage: study_arch_plant.sh SOURCE_DIR WORKDIR   (environment: see study_common.sh)
. "$(dirname "$0")/study_common.sh"
src=$1 dir=$2
rm -rf "$dir" && mkdir -p "$dir" || fail "cannot create $dir"
P="$src/jobs/arch/tora/study_plant.txt" A="$src/jobs/arch/tora/plant.txt"
diff <(grep '^der ' "$P") <(grep '^der ' "$A") > /dev/null || fail "study_plant.txt does not state the dynamics of the ARCH TORA file"
T="-plant $P -model controller -cells 2,2,2,2 -tight_bisect 0 -safe_cells 3,3,3,3 -seeds 1 -beta 0,0.15 -tau 0.05 -epochs 2 -checkpoints 3 -samples 64 -heldout 64 -target_samples 4"
sr_run 2 study $T -output "$dir/tora.h5" > "$dir/tora.log" 2>&1 || { cat "$dir/tora.log"; fail "the study on the TORA plant"; }
grep -q "gather: 2 runs (2 done, 0 diverged)" "$dir/tora.log" || { cat "$dir/tora.log"; fail "not every run finished"; }
grep -q "2 of 2 runs accepted at least half of their phi steps" "$dir/tora.log" || { cat "$dir/tora.log"; fail "the guard rejected the training"; }
grep -q "^Criterion 3.* 0 falsified, 0 unknown .*-> HOLDS" "$dir/tora.log" || { cat "$dir/tora.log"; fail "criterion 3"; }
grep -q "^Criterion 1" "$dir/tora.log" && grep -q "^Manipulation check" "$dir/tora.log" || fail "the gather's verdict lines"
"$PY" - "$dir/tora.h5" "$P" <<'PYEOF' || fail "the results file does not record the plant"
import sys, h5py
o = h5py.File(sys.argv[1], "r").attrs["options_canonical"]
o = o.decode() if isinstance(o, bytes) else o
assert f"-plant {sys.argv[2]}\n" in o and "-plant_digest " in o, o
PYEOF
sr_run 1 study -plant "$A" -model controller -output "$dir/arch.h5" > "$dir/arch.log" 2>&1
rc=$?
[ $rc -eq 2 ] || { cat "$dir/arch.log"; fail "the ARCH loop file: exit $rc, expected 2"; }
grep -q "^simreach: .*plant.txt states the loop .*reference" "$dir/arch.log" || { cat "$dir/arch.log"; fail "the ARCH loop file: no one-line refusal naming it"; }
[ -e "$dir/arch.h5" ] && fail "a refused study wrote arch.h5"
echo "PASS: the study trains, guards, gathers and proves on the ARCH TORA dynamics; the loop file is refused"
