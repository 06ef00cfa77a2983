#!/usr/bin/env bash
# Issue #13: sizes and integers at their limits, for every command.
# - every integer option of every command is parsed whole: a value past 2^32 (which a 32-bit
#   PetscInt would wrap to a small one) or past the option's range is refused in one line
#   naming the option, the value and the range, exit 2, before any work;
# - a problem whose arrays would overflow PetscInt is refused (exit 2) naming the option, and one
#   whose memory is known up front to exceed what the process may use (here `ulimit -v`) is
#   refused (exit 4) naming the options and the memory needed, before any work and without
#   PETSc's error block.
# Usage: limits.sh OPTIONS_FILE WORKDIR   (environment: see study_common.sh)
. "$(dirname "$0")/study_common.sh"
opts=$1 dir=$2
rm -rf "$dir" && mkdir -p "$dir" || fail "cannot create $dir"
# fixtures: a tiny study, a network file, its abstraction on 4 x 4 cells
sr_run 1 study -options_file "$opts" -output "$dir/res.h5" > "$dir/res.log" 2>&1 || { cat "$dir/res.log"; fail "the tiny study"; }
"$PY" - "$dir" <<'PYEOF' || fail "writing the fixture network"
import sys, h5py, numpy as np
d = sys.argv[1]
def net(path, widths, data=True):
    with h5py.File(path, "w") as f:
        for k, v in (("simreach_format", "simreach-network-1"), ("sys", "pendulum"), ("model", "dynamics"), ("activation", "tanh")):
            f.attrs[k] = np.bytes_(v)
        f["widths"] = np.asarray(widths, dtype=np.int64)
        for l in range(len(widths) - 1):
            shape = (widths[l + 1], widths[l])
            if data:
                f[f"layers/{l}/weight"] = np.full(shape, 0.01)
                f[f"layers/{l}/bias"] = np.zeros(widths[l + 1])
            else:  # declared, never written: the file stays small, reads give zeros
                f.create_dataset(f"layers/{l}/weight", shape=shape, dtype="f8")
                f.create_dataset(f"layers/{l}/bias", shape=(widths[l + 1],), dtype="f8")
net(f"{d}/net.h5", [2, 8, 2])
# about 4.8e8 parameters (3.6 GB as doubles): more than the test's ulimit -v allows
net(f"{d}/bignet.h5", [2, 22000, 22000, 2], data=False)
# 1.2e12 parameters: more than a PetscInt counts
net(f"{d}/hugenet.h5", [2, 1 << 20, 1 << 20, 2], data=False)
PYEOF
sr_run 1 verify -network "$dir/net.h5" -cells 4,4 -output "$dir/abs.h5" > "$dir/abs.log" 2>&1 || { cat "$dir/abs.log"; fail "the fixture abstraction"; }
# the same abstraction claiming 40000 x 40000 cells: the lists declared, never written (a small file)
"$PY" - "$dir" "$(dirname "$0")/sr_reseal.py" <<'PYEOF' || fail "writing the fixture bigabs.h5"
import sys, shutil, h5py, numpy as np
d = sys.argv[1]
shutil.copy(f"{d}/abs.h5", f"{d}/bigabs.h5")
N = [40000, 40000]
K = N[0] * N[1]
with h5py.File(f"{d}/bigabs.h5", "r+") as f:
    f.attrs["K"] = np.asarray([K], dtype=np.int64)
    f["metrics"].attrs["K"] = np.asarray([K], dtype=np.int64)
    p = f["partition"]
    del p["counts"]
    p["counts"] = np.asarray(N, dtype=np.int64)
    del p.attrs["kind"]
    p.attrs["kind"] = np.bytes_(b"boundaries")  # exact boundaries: the cell boxes are [g_i, g_i+1]
    for e in range(2):
        g = np.linspace(p["domain_lo"][e], p["domain_hi"][e], N[e] + 1)
        for name, v in ((f"cell_lo_{e}", g[:-1]), (f"cell_hi_{e}", g[1:]), (f"boundary_lo_{e}", g), (f"boundary_hi_{e}", g)):
            del p[name]
            p[name] = v
    c = f["cells"]
    del c["enclosure"], c["list"]
    c.create_dataset("enclosure", shape=(K, 4), dtype="f8")
    c.create_dataset("list", shape=(K, 5), dtype="i4")
    del c["checksum"]
    c.create_dataset("checksum", shape=(K,), dtype="u8")
import importlib.util
spec = importlib.util.spec_from_file_location("sr_reseal", sys.argv[2])
m = importlib.util.module_from_spec(spec); spec.loader.exec_module(m)
m.reseal(f"{d}/bigabs.h5", rows=False)  # its header and partition pass validation; the rows are never read
PYEOF
sum_res=$(md5sum < "$dir/res.h5")
n=0
# refuse RC PATTERN COMMAND ARGS...: simreach exits RC, one or two lines matching PATTERN, no
# PETSc block, no work (nothing printed by the command's normal path), fixtures unchanged
refuse() {
  local want=$1 pat=$2; shift 2
  n=$((n + 1))
  local log="$dir/case$n.log" rc
  # one rank runs as an MPI singleton (no mpiexec: a second instead of three)
  ( [ -n "${LIMIT_KB:-}" ] && ulimit -v "$LIMIT_KB"; if [ -n "${NP:-}" ]; then sr_run "$NP" "$@"; else "$SIMREACH" "$@"; fi ) > "$log" 2>&1
  rc=$?
  [ $rc -eq "$want" ] || { cat "$log"; fail "case $n ($*): exit code $rc, expected $want"; }
  grep -q -E -- "$pat" "$log" || { cat "$log"; fail "case $n ($*): no message matching '$pat'"; }
  grep -q "PETSC ERROR" "$log" && { cat "$log"; fail "case $n ($*): a PETSc error block instead of a one-line refusal"; }
  [ "$(grep -c '^simreach: ' "$log")" -le 2 ] || { cat "$log"; fail "case $n ($*): more than two lines of message"; }
  grep -q -E "runs done|status: |^safe: |^reach: |^simreach verify: |successors per cell" "$log" && { cat "$log"; fail "case $n ($*): work started"; }
  [ "$(md5sum < "$dir/res.h5")" = "$sum_res" ] || fail "case $n ($*): res.h5 was modified"
  echo "ok $n: $* -> $(grep -m1 '^simreach: ' "$log")"
}
W=4294967297 # 2^32 + 1: a 32-bit PetscInt would read 1
# item 2: one wrap case per integer option of every command
# (the run's options all go through the same table, src/commands/options.c; a few stand for them)
for o in epochs checkpoints samples target_samples seed tao_max_it; do
  refuse 2 "option -$o $W: $W is out of range; allowed are integers" train -sys pendulum -$o $W
done
refuse 2 "option -mlp_widths 8,$W: entry 2: $W is out of range" train -sys pendulum -mlp_widths 8,$W
refuse 2 "option -cells 4,$W: entry 2: $W is out of range" train -sys pendulum -cells 4,$W
for o in seeds cell_ranks recheck_store; do
  refuse 2 "option -$o $W: $W is out of range" study -options_file "$opts" -output "$dir/res.h5" -force -$o $W
done
refuse 2 "option -seed_list 1,$W: entry 2: $W is out of range" study -options_file "$opts" -output "$dir/res.h5" -force -seed_list 1,$W
refuse 2 "option -grid_slice '0/$W'.*allowed is i/n" study -options_file "$opts" -output "$dir/res.h5" -force -grid_slice 0/$W
refuse 2 "option -grid_slice '0/99999999999999999999'.*allowed is i/n" study -options_file "$opts" -output "$dir/res.h5" -force -grid_slice 0/99999999999999999999
refuse 2 "option -floor_points $W: $W is out of range" abstract -sys pendulum -model dynamics -cells 4,4 -floor_points $W
refuse 2 "option -seed $W: $W is out of range" abstract -sys pendulum -model dynamics -cells 4,4 -seed $W
refuse 2 "option -cells $W,4: entry 1: $W is out of range" verify -network "$dir/net.h5" -cells $W,4
# K: at most 1e8 cells where every rank holds arrays of 2 n K (train, study, abstract), up to
# 2^31 - 1 for verify, which streams its owned cells (a missing network file is then the refusal)
refuse 2 "option -cells 20000,20000: 4e\+08 cells; allowed are at most 100000000 cells" train -sys pendulum -cells 20000,20000
refuse 2 "option -cells 50000,50000: 2.5e\+09 cells; allowed are at most 2147483647 cells" verify -network "$dir/net.h5" -cells 50000,50000
refuse 2 "-network $dir/nothere.h5: no such readable file" verify -network "$dir/nothere.h5" -cells 40000,40000
refuse 2 "option -bisect $W: $W is out of range" verify -network "$dir/net.h5" -cells 4,4 -bisect $W
refuse 2 "option -run $W: $W is out of range" verify -from "$dir/res.h5" -run $W -cells 4,4
refuse 2 "option -run_seed $W: $W is out of range" verify -from "$dir/res.h5" -run_beta 0 -run_tau 0.05 -run_seed $W -cells 4,4
refuse 2 "option -checkpoint $W: $W is out of range" verify -from "$dir/res.h5" -run 0 -checkpoint $W -cells 4,4
refuse 2 "option -max_print $W: $W is out of range" verify -recheck "$dir/abs.h5" -max_print $W
refuse 2 "option -run $W: $W is out of range" check "$dir/res.h5" -run $W
refuse 2 "option -max_print $W: $W is out of range" check "$dir/res.h5" -max_print $W
refuse 2 "option -bisect $W: $W is out of range" check "$dir/abs.h5" -bisect $W
for o in trajectories trajectory_cap seed max_iterations; do
  refuse 2 "option -$o $W: $W is out of range" safe "$dir/abs.h5" -$o $W
done
refuse 2 "option -trajectory_cap 1000001: 1000001 is out of range; allowed are integers 1 to 1000000" safe "$dir/abs.h5" -trajectory_cap 1000001
refuse 2 "option -steps $W: $W is out of range; allowed are integers 0 to 1000000" reach "$dir/abs.h5" -init -0.1,0.1,-0.1,0.1 -steps $W
refuse 2 "option -steps -1: -1 is out of range" reach "$dir/abs.h5" -init -0.1,0.1,-0.1,0.1 -steps -1
# item 1: sizes.  Arrays past PetscInt are refused input (2), naming the option and the most allowed ...
refuse 2 "-samples 100000000 .*-mlp_widths 32,32: .*activations.*allowed are at most [0-9]+ samples" train -sys pendulum -model dynamics -samples 100000000
refuse 2 "-assign_neighbors 1000: the Gaussian assignment.*entries" train -sys pendulum -assign gauss -assign_neighbors 1000 -samples 10000000
refuse 2 "-network .*hugenet.h5 \(widths 2,1048576,1048576,2\): the network's parameters would have 1.1e\+12 entries" verify -network "$dir/hugenet.h5" -cells 4,4
# ... and memory known up front to exceed what the process may use (here ulimit -v, 3 GB) is
# refused for lack of resources (4), naming the options and the memory needed, before any work
export LIMIT_KB=3000000
refuse 4 "not enough memory: -samples 10000000 .*the run .*needs at least [0-9.]+ GB per rank; the address-space limit \(ulimit -v\) leaves" train -sys pendulum -model dynamics -samples 10000000
refuse 4 "not enough memory: .*-mlp_widths 4096,4096,4096,4096 .*network [0-9.]+ GB" train -sys pendulum -model dynamics -mlp_widths 4096,4096,4096,4096
NP=2 refuse 4 "not enough memory: -samples 10000000 .*needs at least" study -options_file "$opts" -output "$dir/big.h5" -samples 10000000
[ -e "$dir/big.h5" ] || [ -e "$dir/big.h5.part" ] && fail "the refused study created a file"
refuse 4 "not enough memory: -network .*bignet.h5 \(widths 2,22000,22000,2\): the network .*needs at least" verify -network "$dir/bignet.h5" -cells 4,4
refuse 4 "not enough memory: the abstraction file's 1600000000 cells \(-cells 40000,40000 .*needs at least" safe "$dir/bigabs.h5"
refuse 4 "not enough memory: the abstraction file's 1600000000 cells" reach "$dir/bigabs.h5" -init -0.1,0.1,-0.1,0.1 -steps 3
unset LIMIT_KB
echo "PASS: $n cases refused before any work"
