#!/usr/bin/env bash
# Bad input to simreach study: each case exits non-zero before any work, with a message that
# names the option or file (and what is allowed), and an existing results file stays
# byte-identical -- even with -force, which would overwrite it if the work had started.
# Usage: study_badinput.sh OPTIONS_FILE WORKDIR   (environment: see study_common.sh)
. "$(dirname "$0")/study_common.sh"
opts=$1 dir=$2
rm -rf "$dir" && mkdir -p "$dir" || fail "cannot create $dir"
good="$dir/good.h5"
sr_run 1 study -options_file "$opts" -output "$good" > "$dir/good.log" 2>&1 || { cat "$dir/good.log"; fail "the valid study"; }
sum0=$(md5sum < "$good")
n=0
# expect NP PATTERN ARGS...: simreach study ARGS fails with the exit code of refused input (2,
# README "Exit codes"; RC=4 expect ... for not enough disk space), its message matches PATTERN and is one or two lines from simreach (no
# PETSc error block), nothing ran and good.h5 is unchanged
expect() {
  local np=$1 pat=$2; shift 2
  n=$((n + 1))
  local log="$dir/case$n.log" rc
  sr_run "$np" study -options_file "$opts" "$@" > "$log" 2>&1
  rc=$?
  [ $rc -ne 0 ] || fail "case $n ($*): exit 0"
  [ $rc -eq "${RC:-2}" ] || { cat "$log"; fail "case $n ($*): exit code $rc, expected ${RC:-2}"; }
  grep -q -i -E -- "$pat" "$log" || { cat "$log"; fail "case $n ($*): no message matching '$pat'"; }
  grep -q "PETSC ERROR" "$log" && { cat "$log"; fail "case $n ($*): a PETSc error block instead of a one-line refusal"; }
  [ "$(grep -c '^simreach: ' "$log")" -le 2 ] || { cat "$log"; fail "case $n ($*): more than two lines of message"; }
  [ "$(md5sum < "$good")" = "$sum0" ] || fail "case $n ($*): $good was modified"
  grep -q "runs done" "$log" && fail "case $n ($*): work started"
  echo "ok $n: $* -> $(grep -m1 -o -i -E -- "$pat.{0,60}" "$log" | head -1)"
}
F=(-output "$good" -force)
expect 1 "-sys.*pendulum" "${F[@]}" -sys nosuch
expect 1 "-model.*(dynamics|controller)" "${F[@]}" -model nosuch
expect 1 "-enclosure.*interval" "${F[@]}" -enclosure nosuch
expect 1 "-guard.*reject" "${F[@]}" -guard nosuch
expect 1 "-target.*empirical" "${F[@]}" -target nosuch
expect 1 "-tau 0:.*out of range.*\\(0, " "${F[@]}" -tau 0
expect 1 "-tau 0.1,-0.2:.*out of range.*\\(0, " "${F[@]}" -tau 0.1,-0.2
expect 1 "-beta 0,-0.1:.*out of range.*\\[0, " "${F[@]}" -beta 0,-0.1
expect 1 "-beta.*empty" "${F[@]}" -beta ""
expect 1 "-beta.*empty entry" "${F[@]}" -beta 0,,0.5
expect 1 "-tau 0.05,abc.*'abc' is not a number" "${F[@]}" -tau 0.05,abc
expect 1 "-seeds.*allowed" "${F[@]}" -seeds 0
expect 1 "-cells" "${F[@]}" -cells 0,4
expect 1 "-cells" "${F[@]}" -cells 4
expect 1 "-cells" "${F[@]}" -cells 4,4,4
expect 1 "-w_min|-w_max" "${F[@]}" -w_min 0.5 -w_max 0.1
expect 1 "-eps" "${F[@]}" -eps -1
expect 1 "-succ_margin" "${F[@]}" -succ_margin -0.5
expect 1 "-recheck_depth 999.*integers 0 to 200" "${F[@]}" -recheck_depth 999
expect 1 "-pretrain_epochs" "${F[@]}" -pretrain_epochs -3
expect 1 "-control_steps" "${F[@]}" -control_steps 0
expect 1 "-control_steps.*-model controller" "${F[@]}" -control_steps 3 -model dynamics
# SPEC §2: a reference closed loop that is not Schur stable is refused, naming its spectral radius
expect 1 "-sys dubins -control_steps 20: the reference closed loop is not stable \\(spectral radius 4.8" "${F[@]}" -sys dubins -cells 3,2,2 -control_steps 20
expect 1 "-control_steps 64: no reference gain" "${F[@]}" -control_steps 64
expect 2 "-cell_ranks 3 does not divide" "${F[@]}" -cell_ranks 3
expect 1 "-resume and -force" -output "$good" -resume -force
expect 1 "unknown option.*-no_such_option" "${F[@]}" -no_such_option 1
expect 1 "exists.*-resume.*-force" -output "$good"
# -resume with a file that is not ours, or not from these options
printf 'not an HDF5 file\n' > "$dir/garbage.h5"
sumg=$(md5sum < "$dir/garbage.h5")
expect 1 "garbage.h5 is not a readable HDF5 file" -output "$dir/garbage.h5" -resume
[ "$(md5sum < "$dir/garbage.h5")" = "$sumg" ] || fail "garbage.h5 was modified"
"$PY" -c "import h5py,sys; h5py.File(sys.argv[1],'w').create_dataset('x', data=[1,2,3])" "$dir/other.h5" || fail "h5py"
sumo=$(md5sum < "$dir/other.h5")
expect 1 "other.h5 is an HDF5 file but not a simreach results file" -output "$dir/other.h5" -resume
[ "$(md5sum < "$dir/other.h5")" = "$sumo" ] || fail "other.h5 was modified"
expect 1 "good.h5 was written with different options.*-epochs" -output "$good" -resume -epochs 7
expect 1 "good.h5 was written with different options" -output "$good" -resume -beta 0,0.25
: > "$dir/empty.h5"
expect 1 "empty.h5 is not a readable HDF5 file" -output "$dir/empty.h5" -resume
# issue #13, item 1: integers are parsed whole, never wrapped at 2^32 (-force would have replaced good.h5)
expect 1 "-epochs 4294967297.*out of range.*integers 0 to" "${F[@]}" -epochs 4294967297
expect 1 "-epochs 99999999999.*out of range.*integers 0 to" "${F[@]}" -epochs 99999999999
expect 1 "-seeds 4294967299.*out of range.*integers 1 to 256" "${F[@]}" -seeds 4294967299
expect 1 "-seed_list 4294967297.*out of range.*integers 0 to" "${F[@]}" -seed_list 4294967297
expect 1 "-seeds abc.*not an integer.*integers 1 to 256" "${F[@]}" -seeds abc
expect 1 "-checkpoints 2147483648.*out of range" "${F[@]}" -checkpoints 2147483648
# item 7: lists are not cut or padded; flags and names are checked; a refusal names the option
expect 1 "-mlp_widths 16,,16.*entry 2.*empty" "${F[@]}" -mlp_widths 16,,16
expect 1 "-mlp_widths .*21 entries.*at most 8" "${F[@]}" -mlp_widths 1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17,18,19,20,21
expect 1 "-cells 4,4,4,4,4,4,4.*at most 6" "${F[@]}" -cells 4,4,4,4,4,4,4
expect 1 "-cells: 4 counts given; -sys pendulum has dimension 2" "${F[@]}" -cells 4,4,4,4
expect 1 "-resume maybe.*not a boolean" -output "$good" -resume maybe
expect 1 "-pendulum_g inf.*not a finite number" "${F[@]}" -pendulum_g inf
( cd "$dir" && expect 1 "-output: no value.*file name" -output "" -force )
[ -e "$dir/.part" ] && fail "-output '' left $dir/.part"
# item 6: values that would make TAO fail are refused up front
expect 1 "-beta 0,1e300.*out of range" "${F[@]}" -beta 0,1e300
expect 1 "-volume_weight 1e300.*out of range" "${F[@]}" -volume_weight 1e300
expect 1 "-lr nan.*not a finite number" "${F[@]}" -lr nan
# item 6: a missing -options_file is refused input (2), not 83 ("stopped by a signal")
sr_run 2 study -options_file "$dir/no_such.opts" -output "$dir/x.h5" > "$dir/nofile.log" 2>&1
rc=$?
[ $rc -eq 2 ] || { cat "$dir/nofile.log"; fail "missing -options_file: exit $rc, expected 2"; }
grep -q "options_file.*no_such.opts.*cannot open" "$dir/nofile.log" || { cat "$dir/nofile.log"; fail "missing -options_file: no message naming it"; }
echo "ok: missing -options_file -> exit 2, $(grep -m1 -o 'option -options_file.*' "$dir/nofile.log")"
# item 4: FILE.part is created exclusively: an existing one, or a link to another file, is never written through
printf 'someone else\x27s file\n' > "$dir/new.h5.part"
sump=$(md5sum < "$dir/new.h5.part")
expect 1 "new.h5.part exists.*left untouched" -output "$dir/new.h5"
[ "$(md5sum < "$dir/new.h5.part")" = "$sump" ] || fail "an existing .part was overwritten"
[ -e "$dir/new.h5" ] && fail "new.h5 was created although new.h5.part was in the way"
cp "$good" "$dir/important.h5"
sumi=$(md5sum < "$dir/important.h5")
ln -s important.h5 "$dir/s.h5.part"
expect 1 "s.h5.part exists.*left untouched" -output "$dir/s.h5"
[ "$(md5sum < "$dir/important.h5")" = "$sumi" ] || fail "a study wrote through the link s.h5.part into important.h5"
# item 3: a results file locked by a live study elsewhere is refused, naming the file and the owner
printf 'simreach-lock 1\nhost otherhost.example\npid 4242\nslurm_job 777\nrefreshed %020d\nfile %s\n' "$(date +%s)" "$good" > "$good.lock"
expect 1 "good.h5 is in use by another simreach.*host otherhost.example, pid 4242, Slurm job 777" -output "$good" -resume
expect 1 "good.h5 is in use by another simreach" -output "$good" -force
rm -f "$good.lock"
# item 7: the whole file is allocated up front, so its size is known: a file larger than the disk
# (here about 850 GB: a network of 10^6 parameters stored at 10^5 checkpoints) is refused before writing
RC=4 expect 1 "not enough disk space for .*big.h5.*disk is too full" -output "$dir/big.h5" -mlp_widths 1024,1024 -checkpoints 100000 -seeds 1 -beta 0 -tau 0.05 -heldout 1 -samples 1 -target_samples 1
[ -e "$dir/big.h5.part" ] && fail "a .part was left after refusing for disk space"
echo "PASS: $n bad inputs refused before any work, files untouched"
