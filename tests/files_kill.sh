#!/usr/bin/env bash
# One rule for the .part files of every command (issue 22 items 4, SPEC §13, docs/files.md):
# `verify -output` and `safe -output` on 2 ranks killed by kill -9 at 5 moments of their write
# (SIMREACH_TEST_PAUSE stops rank 0 there: lock taken; .part created, before the work; .part
# half written; .part complete, before the rename; after the rename, before the lock's release).
# Each time the old file stays byte-identical (after the rename it is the new, complete file),
# and the same command rerun succeeds with no manual cleanup: the stale lock is taken over with
# one line and its .part removed.  Then: a live lock refuses (exit 2) and touches nothing; a
# .part with no lock is refused and left alone; a stale .part that is a link is removed, never
# followed.
# Usage: files_kill.sh NETWORK.h5 WORKDIR   (environment: see study_common.sh)
. "$(dirname "$0")/study_common.sh"
net=$1 dir=$2
rm -rf "$dir" && mkdir -p "$dir" || fail "cannot create $dir"
V=(verify -network "$net" -cells 40,40)
sr_run 2 "${V[@]}" -output "$dir/old.h5" > "$dir/old.log" 2>&1 || { cat "$dir/old.log"; fail "verify -output"; }
sr_run 2 safe "$dir/old.h5" -trajectories 500 -output "$dir/sold.h5" > "$dir/sold.log" 2>&1 || { cat "$dir/sold.log"; fail "safe -output"; }

# same_data A B: every dataset of A equal to B's (the timings of /metrics are attributes)
same_data() {
  "$PY" - "$1" "$2" <<'PYEOF'
import sys, h5py
a, b = h5py.File(sys.argv[1], "r"), h5py.File(sys.argv[2], "r")
na, nb = [], []
a.visititems(lambda n, o: na.append(n) if isinstance(o, h5py.Dataset) else None)
b.visititems(lambda n, o: nb.append(n) if isinstance(o, h5py.Dataset) else None)
if sorted(na) != sorted(nb): sys.exit(f"different datasets {sorted(set(na) ^ set(nb))}")
for n in na:
    if a[n][()].tobytes() != b[n][()].tobytes(): sys.exit(f"{n} differs")
PYEOF
}

# killed NAME MOMENT OLD ARGS...: simreach ARGS (-output NAME -force over a copy of OLD) killed by
# kill -9 of rank 0 at MOMENT; checks the file, then reruns ARGS and checks the rerun.
killed() {
  local name=$1 m=$2 old=$3; shift 3
  local out="$dir/$name.h5" log="$dir/$name.$m.log" pid="" i sum0
  cp "$old" "$out" && sum0=$(md5sum < "$out")
  SIMREACH_TEST_PAUSE=$m sr_run 2 "$@" -output "$out" -force > "$log" 2>&1 &
  local job=$!
  for i in $(seq 1200); do
    pid=$(grep -a -o "SIMREACH_TEST_PAUSE=$m: process [0-9]*" "$log" | awk '{print $3}')
    [ -n "$pid" ] && break
    kill -0 $job 2> /dev/null || break
    sleep 0.1
  done
  [ -n "$pid" ] || { kill $job 2> /dev/null; cat "$log"; fail "$name: never paused at $m"; }
  kill -9 "$pid"
  wait $job && fail "$name killed at $m: exit 0"
  if [ "$m" = renamed ]; then
    same_data "$out" "$old" || fail "$name killed after the rename: the new file is not complete"
  else
    [ "$(md5sum < "$out")" = "$sum0" ] || fail "$name killed at $m: the old file was changed"
  fi
  [ -e "$out.lock" ] || fail "$name killed at $m: no lock left (the test did not kill the writer?)"
  case $m in created | write | commit) [ -e "$out.part" ] || fail "$name killed at $m: no .part" ;; esac
  sr_run 2 "$@" -output "$out" -force > "$log.rerun" 2>&1 || { cat "$log.rerun"; fail "$name: the rerun after a kill at $m"; }
  grep -q "^simreach: taking over the stale lock $out.lock (process $pid on .* is gone)" "$log.rerun" || { cat "$log.rerun"; fail "$name: no line on the stale lock after a kill at $m"; }
  case $m in created | write | commit) grep -q "its partial file $out.part was removed" "$log.rerun" || { cat "$log.rerun"; fail "$name: the .part's removal not said"; } ;; esac
  [ -e "$out.lock" ] || [ -e "$out.part" ] && fail "$name: the rerun left a lock or a .part"
  same_data "$out" "$old" || fail "$name: the rerun after a kill at $m wrote a different file"
  echo "ok: $name killed at $m: old file intact, rerun took over the lock$(grep -q 'partial file' "$log.rerun" && echo ' and removed the .part')"
}
for m in locked created write commit renamed; do
  killed v "$m" "$dir/old.h5" "${V[@]}"
  killed s "$m" "$dir/sold.h5" safe "$dir/old.h5" -trajectories 500
done

# a live lock (the pid of this shell, on this host) refuses with exit 2 and touches nothing
cp "$dir/old.h5" "$dir/live.h5"
printf 'someone\n' > "$dir/live.h5.part"
printf 'simreach-lock 1\nhost %s\npid %s\nslurm_job -\nrefreshed %020d\nfile %s\n' "$(hostname)" $$ "$(date +%s)" "$dir/live.h5" > "$dir/live.h5.lock"
sums=$(cat "$dir/live.h5" "$dir/live.h5.part" "$dir/live.h5.lock" | md5sum)
sr_run 2 "${V[@]}" -output "$dir/live.h5" -force > "$dir/live.log" 2>&1
rc=$?
[ $rc -eq 2 ] || { cat "$dir/live.log"; fail "a live lock: exit $rc, expected 2"; }
grep -q "^simreach: $dir/live.h5 is in use by another simreach (host $(hostname), pid $$" "$dir/live.log" || { cat "$dir/live.log"; fail "a live lock: no line naming the owner"; }
[ "$(cat "$dir/live.h5" "$dir/live.h5.part" "$dir/live.h5.lock" | md5sum)" = "$sums" ] || fail "a live lock: the file, its .part or its lock was touched"
sums=$(cat "$dir/live.h5" "$dir/live.h5.part" | md5sum)
echo "ok: a live lock refuses (exit 2): $(grep -o 'is in use.*' "$dir/live.log" | cut -c1-80)..."
# a .part that no lock names is not ours: refused (exit 2), left alone
rm -f "$dir/live.h5.lock"
sr_run 2 "${V[@]}" -output "$dir/live.h5" -force > "$dir/nolock.log" 2>&1
rc=$?
[ $rc -eq 2 ] || { cat "$dir/nolock.log"; fail "a .part with no lock: exit $rc, expected 2"; }
grep -q "live.h5.part exists, but no lock .* names its writer.*left untouched" "$dir/nolock.log" || { cat "$dir/nolock.log"; fail "a .part with no lock: no line naming it"; }
[ "$(cat "$dir/live.h5" "$dir/live.h5.part" | md5sum)" = "$sums" ] || fail "a .part with no lock: a file was touched"
[ -e "$dir/live.h5.lock" ] && fail "a refused write left its lock"
echo "ok: a .part with no lock is refused and left alone"
# a stale lock of another host (not refreshed for long) whose .part is a link: the link is removed, not its target
cp "$dir/old.h5" "$dir/target.h5" && sumt=$(md5sum < "$dir/target.h5")
rm -f "$dir/live.h5.part" && ln -s target.h5 "$dir/live.h5.part"
printf 'simreach-lock 1\nhost otherhost.example\npid 4242\nslurm_job -\nrefreshed %020d\nfile %s\n' 1000 "$dir/live.h5" > "$dir/live.h5.lock"
sr_run 2 safe "$dir/old.h5" -trajectories 0 -output "$dir/live.h5" -force > "$dir/link.log" 2>&1 || { cat "$dir/link.log"; fail "a stale lock with a linked .part"; }
grep -q "taking over the stale lock.*not refreshed for.*its partial file $dir/live.h5.part was removed" "$dir/link.log" || { cat "$dir/link.log"; fail "stale lock of another host: no line"; }
[ "$(md5sum < "$dir/target.h5")" = "$sumt" ] || fail "the link's target was written"
[ -L "$dir/live.h5.part" ] || [ -e "$dir/live.h5.lock" ] && fail "the link or the lock was left"
echo "PASS: kill -9 at 5 moments of verify -output and safe -output: old files intact, reruns without cleanup; live locks refuse; .part without lock left alone"
