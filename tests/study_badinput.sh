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
# expect NP PATTERN ARGS...: simreach study ARGS fails, its output matches PATTERN, good.h5 unchanged
expect() {
  local np=$1 pat=$2; shift 2
  n=$((n + 1))
  local log="$dir/case$n.log"
  if sr_run "$np" study -options_file "$opts" "$@" > "$log" 2>&1; then fail "case $n ($*): exit 0"; fi
  grep -q -i -E -- "$pat" "$log" || { cat "$log"; fail "case $n ($*): no message matching '$pat'"; }
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
expect 1 "-tau.*tau > 0" "${F[@]}" -tau 0
expect 1 "-tau.*tau > 0" "${F[@]}" -tau 0.1,-0.2
expect 1 "-beta.*beta >= 0" "${F[@]}" -beta 0,-0.1
expect 1 "-beta.*empty" "${F[@]}" -beta ""
expect 1 "-beta.*empty entry" "${F[@]}" -beta 0,,0.5
expect 1 "-tau.*not a finite number" "${F[@]}" -tau 0.05,abc
expect 1 "-seeds.*allowed" "${F[@]}" -seeds 0
expect 1 "-cells" "${F[@]}" -cells 0,4
expect 1 "-cells" "${F[@]}" -cells 4
expect 1 "-cells" "${F[@]}" -cells 4,4,4
expect 1 "-w_min|-w_max" "${F[@]}" -w_min 0.5 -w_max 0.1
expect 1 "-eps" "${F[@]}" -eps -1
expect 1 "-succ_margin" "${F[@]}" -succ_margin -0.5
expect 1 "-recheck_depth" "${F[@]}" -recheck_depth 999
expect 1 "-pretrain_epochs" "${F[@]}" -pretrain_epochs -3
expect 1 "-control_steps" "${F[@]}" -control_steps 0
expect 1 "-control_steps.*-model controller" "${F[@]}" -control_steps 3 -model dynamics
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
echo "PASS: $n bad inputs refused before any work, files untouched"
