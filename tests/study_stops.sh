#!/usr/bin/env bash
# Issue #13: a study stopped or starved at the two moments a timed kill cannot hit reliably,
# driven deterministically under gdb (a breakpoint, then the event):
# 1. SIGTERM during the final gather: exit 83 with the -resume hint, the file stays readable,
#    and -resume completes (exit 0, the verdict) with the same file as an uninterrupted study;
# 2. the disk fills up during the creation of the results file (a small tmpfs filled after the
#    free-space check): exit 4, the message names the file and says the disk is full, no
#    FILE.part, no FILE, no lock left;
# 3. a results file larger than the file-size limit (ulimit -f) is refused before writing (exit 4),
#    naming the file and the limit, instead of the process being killed by SIGXFSZ half-way;
# 4. an allocation failing inside PETSc mid-run is one line "out of memory", exit 4.
# Usage: study_stops.sh OPTIONS_FILE WORKDIR   (environment: see study_common.sh; needs gdb,
# else exit 77 = skipped; part 2 needs a tmpfs mount, i.e. root, else it is skipped)
. "$(dirname "$0")/study_common.sh"
opts=$1 dir=$(realpath -m "$2")
rm -rf "$dir" && mkdir -p "$dir" || fail "cannot create $dir"
command -v gdb > /dev/null || { echo "SKIP: no gdb"; exit 77; }
# gdb_run LOG GDB-COMMANDS -- ARGS...: simreach ARGS as an MPI singleton under gdb; prints the exit code
gdb_run() {
  local log=$1 cmds=$2; shift 3
  printf 'set confirm off\nset breakpoint pending on\nhandle SIGTERM nostop noprint pass\n%b' "$cmds" > "$log.gdb"
  gdb -q -batch -x "$log.gdb" --args "$SIMREACH" "$@" > "$log" 2>&1
  local code
  code=$(grep -a -o 'exited with code [0-7]*' "$log" | tail -1 | awk '{print $4}')
  if [ -n "$code" ]; then echo $((8#$code)); elif grep -a -q 'exited normally' "$log"; then echo 0; else echo none; fi
}
"$SIMREACH" study -options_file "$opts" -output "$dir/ref.h5" > "$dir/ref.log" 2>&1 || { cat "$dir/ref.log"; fail "the reference study"; }

# 1. SIGTERM during the final gather
rc=$(gdb_run "$dir/gather.log" 'break SRGatherResults\nrun\ndelete\nsignal SIGTERM\n' -- study -options_file "$opts" -output "$dir/g.h5")
grep -a -q "Breakpoint 1, SRGatherResults" "$dir/gather.log" || { cat "$dir/gather.log"; echo "SKIP: gdb cannot run simreach here (ptrace?)"; exit 77; }
[ "$rc" = 83 ] || { cat "$dir/gather.log"; fail "SIGTERM during the final gather: exit $rc, expected 83"; }
grep -a -q "^simreach: the study was stopped by signal 15 (SIGTERM) during the final gather.*rerun the same command with -resume" "$dir/gather.log" || { cat "$dir/gather.log"; fail "SIGTERM during the final gather: no message with the -resume hint"; }
[ -e "$dir/g.h5.lock" ] && fail "the study stopped in its gather left its lock"
sr_readable "$dir/g.h5" || fail "the file of the study stopped in its gather is not readable"
sr_run 1 study -options_file "$opts" -output "$dir/g.h5" -resume > "$dir/resume.log" 2>&1 || { cat "$dir/resume.log"; fail "-resume after the stop in the gather"; }
grep -q "Predicted signature" "$dir/resume.log" || { cat "$dir/resume.log"; fail "-resume printed no verdict"; }
sr_compare "$dir/ref.h5" "$dir/g.h5" || fail "the resumed file differs from the uninterrupted study"
echo "ok: SIGTERM during the final gather -> exit 83, $(grep -a -o 'stopped by signal.*' "$dir/gather.log" | cut -c1-70)...; the file reads; -resume completes, identical to the uninterrupted study"

# 2. the disk fills up while the results file is created
mnt="$dir/mnt"
mkdir -p "$mnt"
if mount -t tmpfs -o size=8m tmpfs "$mnt" 2> /dev/null; then
  trap 'umount "$mnt" 2> /dev/null' EXIT
  # the breakpoint is after the free-space check, before the file's blocks are allocated
  rc=$(gdb_run "$dir/full.log" "break SRFileReserve\nrun\nshell dd if=/dev/zero of=$mnt/fill bs=64k 2> /dev/null; true\ndelete\ncontinue\n" -- study -options_file "$opts" -output "$mnt/full.h5")
  grep -a -q "Breakpoint 1, SRFileReserve" "$dir/full.log" || { cat "$dir/full.log"; fail "the creation never reached SRFileReserve"; }
  [ "$rc" = 4 ] || { cat "$dir/full.log"; fail "disk full during creation: exit $rc, expected 4"; }
  grep -a -q "^simreach: cannot create $mnt/full.h5: the disk holding $mnt/full.h5 is full.*the partial file $mnt/full.h5.part was removed" "$dir/full.log" || { cat "$dir/full.log"; fail "disk full during creation: no message naming the file and the full disk"; }
  grep -a -q "PETSC ERROR" "$dir/full.log" && { cat "$dir/full.log"; fail "disk full: a PETSc error block"; }
  left=$(ls -A "$mnt" | grep -v '^fill$')
  [ -z "$left" ] || fail "disk full during creation left: $left"
  umount "$mnt"
  trap - EXIT
  echo "ok: disk full during creation -> exit 4, $(grep -a -o '^simreach: cannot create.*' "$dir/full.log" | cut -c1-140)...; nothing left"
else
  echo "skipped: disk full during creation (cannot mount a tmpfs here)"
fi

# 3. a file larger than ulimit -f
# (the limit leaves room for the few MB of files MPI itself writes)
( ulimit -f 16384; "$SIMREACH" study -options_file "$opts" -output "$dir/big.h5" -mlp_widths 256,256 -checkpoints 50 -epochs 50 ) > "$dir/fsize.log" 2>&1
rc=$?
[ $rc -eq 4 ] || { cat "$dir/fsize.log"; fail "ulimit -f: exit $rc, expected 4"; }
grep -q "^simreach: $dir/big.h5 needs [0-9.]* MB, more than the file-size limit of this process (ulimit -f: 16.78 MB)" "$dir/fsize.log" || { cat "$dir/fsize.log"; fail "ulimit -f: no message naming the file and the limit"; }
ls "$dir"/big.h5* > /dev/null 2>&1 && fail "ulimit -f: a file was left"
echo "ok: ulimit -f -> exit 4, $(grep -o '^simreach: .*' "$dir/fsize.log" | cut -c1-120)..."
# 4. an allocation that fails anyway, inside PETSc in the middle of the work (the request made
#    impossible under gdb: PetscMallocA's size argument, register r9 on x86-64): one line, exit 4,
#    not PETSc's error block (Debian's PETSc raises it with an error code other than PETSC_ERR_MEM)
if [ "$(uname -m)" = x86_64 ]; then
  rc=$(gdb_run "$dir/oom.log" 'break SRAdamCreate\nrun\ndelete\nbreak PetscMallocA\ncontinue\nset var $r9 = 0x4000000000000000\ndelete\ncontinue\n' -- train -sys pendulum -model dynamics -epochs 1 -checkpoints 1 -quiet)
  [ "$rc" = 4 ] || { cat "$dir/oom.log"; fail "a failing allocation: exit $rc, expected 4"; }
  grep -a -q "^simreach: out of memory" "$dir/oom.log" || { cat "$dir/oom.log"; fail "a failing allocation: no 'out of memory' line"; }
  grep -a -q "PETSC ERROR" "$dir/oom.log" && { cat "$dir/oom.log"; fail "a failing allocation: a PETSc error block"; }
  echo "ok: an allocation failing inside PETSc -> exit 4, $(grep -a -o '^simreach: out of memory.*' "$dir/oom.log" | cut -c1-100)..."
fi
echo "PASS: SIGTERM in the final gather, disk full during creation, file-size limit, a failing allocation"
