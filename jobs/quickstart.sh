#!/usr/bin/env bash
# The main job: set up (packages, build), then run the default study (jobs/pendulum.opts) on
# 2 MPI ranks and its positive control (jobs/positive_control.opts: the study's own options with
# -loss width1, the first-order width of the enclosure |M_tight| counts, SPEC §9), print the verdict table with the control (gather -control; the study's
# criterion-2 verdict rests on it and is stored in the results file), and write the analysis
# report to report/ from that file.
# Extra arguments go to simreach (e.g. -force to overwrite an existing results.h5).
set -euo pipefail
top=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
"$top/jobs/setup.sh"
cd "$top"
mpiflags=(--oversubscribe)
[ "$(id -u)" -eq 0 ] && mpiflags+=(--allow-run-as-root)
out="${SR_OUTPUT:-results.h5}"
if [ -e "$out" ] && [[ " $* " != *" -resume "* ]] && [[ " $* " != *" -force "* ]]; then
  new="results-$(date +%Y%m%d-%H%M%S).h5"
  echo "quickstart: $out exists; keeping it and writing $new instead (pass -force to overwrite, -resume to continue)"
  out=$new
fi
mpiexec -n 2 "${mpiflags[@]}" build/simreach study -options_file jobs/pendulum.opts -output "$out" "$@"
# the positive control: a finished control file is reused (-resume only re-reads it)
ctl="${SR_CONTROL:-control.h5}"
control() { mpiexec -n 2 "${mpiflags[@]}" build/simreach study -options_file jobs/positive_control.opts -output "$ctl" "$@" > "${ctl%.h5}.log"; }
if [ -e "$ctl" ] && ! control -resume 2>> "${ctl%.h5}.log"; then
  # a control of other options (e.g. the unguarded control before issue 21) cannot be resumed:
  # keep it under another name and run the control anew
  old="${ctl%.h5}-$(date +%Y%m%d-%H%M%S).h5"
  echo "quickstart: $ctl is not a control of jobs/positive_control.opts ($(grep -m1 '^simreach:' "${ctl%.h5}.log" || true)); keeping it as $old and running the control anew"
  mv "$ctl" "$old"
  control
elif [ ! -e "$ctl" ]; then
  control
fi
echo "quickstart: the verdict with the positive control $ctl (its own table: ${ctl%.h5}.log)"
build/simreach gather "$out" -control "$ctl"
/usr/bin/python3 analysis/report.py "$out" -o report
echo "quickstart: results in $out, positive control in $ctl, report written to report/report.md"
