#!/usr/bin/env bash
# -plant FILE on the fine-partition commands and the files that record it (SPEC §13, §16, issue
# 36 item 4): verify of the ARCH pendulum controller on a plant file (the shipped pendulum with
# another g) writes an abstraction file that records the plant; check re-proves it; a changed
# plant is refused in one line naming the file and both digests; the plant moved and given as
# -plant is accepted; a continuous-time plant is verified and re-proved; -sys with -plant and a
# file without domains are refused in one line before any work.
# Usage: plants_files.sh WORKDIR   (environment: see study_common.sh)
. "$(dirname "$0")/study_common.sh"
dir=$1 src=$(cd "$(dirname "$0")/.." && pwd)
rm -rf "$dir" && mkdir -p "$dir" && cd "$dir" || fail "cannot create $dir"
net=$src/jobs/arch/pendulum/controller_single_pendulum.onnx
sed 's/const g = 9.81/const g = 9.5/' "$src/jobs/plants/pendulum.txt" > p.txt
oneline() { [ "$(grep -c '^simreach:' "$1")" -eq 1 ] && ! grep -q "PETSC ERROR" "$1" && grep -q "$2" "$1" || { cat "$1"; fail "$3: expected one line saying '$2'"; }; }
sr_run 2 verify -network "$net" -plant p.txt -model controller -cells 12,10 -output ab.h5 > v.log 2>&1 || { cat v.log; fail "verify -plant"; }
sr_run 1 check ab.h5 > c.log 2>&1 || { cat c.log; fail "check of an abstraction of a plant file"; }
grep -q "every cell proven" c.log || { cat c.log; fail "check did not prove every cell"; }
cp p.txt moved.txt
sed -i 's/const b = 0.1/const b = 0.2/' p.txt
if sr_run 1 check ab.h5 > c2.log 2>&1; then cat c2.log; fail "check accepted a changed plant"; fi
grep -q "made from the plant file p.txt with digest" c2.log || { cat c2.log; fail "the refusal does not name the plant and its digests"; }
sr_run 1 check ab.h5 -plant moved.txt > c3.log 2>&1 || { cat c3.log; fail "check with the plant moved (-plant)"; }
if sr_run 1 verify -network "$net" -sys pendulum -plant moved.txt -model controller -cells 12,10 -output x.h5 > r1.log 2>&1; then fail "-sys with -plant accepted"; fi
grep -q "give one system" r1.log || { cat r1.log; fail "-sys with -plant: no one-line refusal"; }
grep -v '^domain' moved.txt > nodomain.txt
if sr_run 1 verify -network "$net" -plant nodomain.txt -model controller -cells 12,10 -output x.h5 > r2.log 2>&1; then fail "a plant without domains accepted"; fi
grep -q "no 'domain th in" r2.log || { cat r2.log; fail "no domain: no one-line refusal"; }
sed 's/^next \(.*\) = \(.*\)$/der \1 = \2/' moved.txt > ode.txt
# a continuous-time plant: one period by the validated flow (src/model/system_ode.c), re-proved by check
sr_run 2 verify -network "$net" -plant ode.txt -model controller -cells 12,10 -output ode.h5 > o.log 2>&1 || { cat o.log; fail "verify -plant of a continuous-time plant"; }
sr_run 1 check ode.h5 > co.log 2>&1 || { cat co.log; fail "check of an abstraction of a continuous-time plant"; }
grep -q "every cell proven" co.log || { cat co.log; fail "check did not prove every cell of the continuous-time plant"; }
grep -v '^domain' "$src/jobs/arch/acc/plant.txt" > acc_nodomain.txt
for bad in "acc_nodomain.txt:no 'domain x_lead in"; do
  if sr_run 1 verify -network "$net" -plant "${bad%%:*}" -model controller -cells 12,10 -output x.h5 > r3.log 2>&1; then fail "-plant ${bad%%:*} accepted"; fi
  oneline r3.log "simreach: plant file .*${bad#*:}" "-plant ${bad%%:*}"
done
[ ! -e x.h5 ] || fail "a refused run wrote its output"
echo "plants_files: -plant recorded, re-proved, a changed plant refused"
