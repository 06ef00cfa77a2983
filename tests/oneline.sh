#!/usr/bin/env bash
# One-line errors (issue 34, item 8), each: the exit code, exactly one "simreach:" line, no
# PETSc block, no MPI_ABORT banner:
# - verify -enclosure foo (2 ranks), closedloop -closedloop_progress 2 (2 ranks): exit 2;
# - verify -recheck on a file with unproven cells (tests/sr_clip_sink.py): exit 5, the cells listed;
# - a truncated abstraction file given to reach, safe, check, verify -recheck: named as truncated;
# - SIGTERM to mpiexec during verify, closedloop and safe (2 ranks): "stopped by signal 15
#   (SIGTERM)", non-zero, no .part or .lock left, an existing output unchanged;
# - tests/bench/bench_arch.sh given a folder: refused, exit 2;
# - an ONNX Conv whose kernel_shape contradicts its weights: refused naming the attribute.
# Usage: oneline.sh SRCDIR WORKDIR TEST_VERIFY   (environment: SIMREACH, MPIEXEC, MPIEXEC_EXTRA, PY)
. "$(dirname "$0")/study_common.sh"
src=$1 dir=$2 tv=$3
rm -rf "$dir" && mkdir -p "$dir" || fail "cannot create $dir"
D=$src/tests/data/issue34
one() { # RC PATTERN LOG GOT
  [ "$4" = "$1" ] || { cat "$3"; fail "exit $4, want $1: $3"; }
  [ "$(grep -c '^simreach:' "$3")" = 1 ] && grep -q "^simreach: .*$2" "$3" || { cat "$3"; fail "not one simreach: line with '$2': $3"; }
  grep -q "MPI_ABORT\|PETSC ERROR" "$3" && { cat "$3"; fail "a PETSc block or an MPI_ABORT banner: $3"; }
  return 0
}
"$tv" -write_network "$dir/pend.h5" -sys pendulum -model dynamics -seed 3 > /dev/null || fail "writing a network file"
sr_run 2 verify -network "$dir/pend.h5" -cells 60,50 -output "$dir/abs.h5" > "$dir/abs.log" 2>&1 || { cat "$dir/abs.log"; fail "verify -output"; }

sr_run 2 verify -network "$dir/pend.h5" -cells 6,5 -enclosure foo > "$dir/e1.log" 2>&1
one 2 "option -enclosure foo: allowed are interval,taylor1,both,crown,affine" "$dir/e1.log" $?
sr_run 2 closedloop -plant "$D/plant_cos.txt" -network "$D/net_tiny.nnet" -spec "$D/spec_cos.txt" -closedloop_progress 2 > "$dir/e2.log" 2>&1
one 2 "option -closedloop_progress 2: not a boolean" "$dir/e2.log" $?
cp "$dir/abs.h5" "$dir/atk.h5"
"$PY" "$src/tests/sr_clip_sink.py" "$dir/atk.h5" && "$PY" "$src/tests/sr_reseal.py" "$dir/atk.h5" || fail "planting"
sr_run 2 verify -recheck "$dir/atk.h5" > "$dir/e3.log" 2>&1
one 5 "verify -recheck $dir/atk.h5: [0-9]* of 3000 cells are not proven" "$dir/e3.log" $?
grep -q "FAILED cell" "$dir/e3.log" || fail "verify -recheck does not list the cells"
head -c 100000 "$dir/abs.h5" > "$dir/trunc.h5"
for c in "reach $dir/trunc.h5 -init 0,1,0,1" "safe $dir/trunc.h5" "check $dir/trunc.h5" "verify -recheck $dir/trunc.h5"; do
  sr_run 2 $c > "$dir/e4.log" 2>&1
  one 2 "$dir/trunc.h5 is truncated: it holds 100000 of the" "$dir/e4.log" $?
done

# SIGTERM to mpiexec while the work runs (each run is sized to take minutes: it is stopped long
# before).  Open MPI 4.1's mpiexec sends SIGCONT, then SIGTERM odls_base_sigkill_timeout seconds
# later, then SIGKILL as many seconds after: 2 s, as tests/study_signals.sh (docs/files.md)
export OMPI_MCA_odls_base_sigkill_timeout=2
echo "an existing file" > "$dir/keep.h5"
keep=$(sha256sum < "$dir/keep.h5")
stop() { # NAME MOMENT ARGS...: start on 2 ranks, wait until it is held at the test pause MOMENT
  # (SIMREACH_TEST_PAUSE; "-": its first output line and a second more), SIGTERM mpiexec
  local name=$1 moment=$2; shift 2
  if [ "$moment" = - ]; then
    "$MPIEXEC" -n 2 $MPIEXEC_EXTRA "$SIMREACH" "$@" > "$dir/$name.log" 2>&1 &
  else
    SIMREACH_TEST_PAUSE=$moment "$MPIEXEC" -n 2 $MPIEXEC_EXTRA "$SIMREACH" "$@" > "$dir/$name.log" 2>&1 &
  fi
  local pid=$! i
  for i in $(seq 1 1200); do
    if [ "$moment" = - ]; then [ -s "$dir/$name.log" ] && break; else grep -q "paused here" "$dir/$name.log" && break; fi
    sleep 0.1
  done
  [ "$moment" = - ] && sleep 1
  kill -TERM $pid
  wait $pid
  local rc=$?
  [ $rc != 0 ] || { cat "$dir/$name.log"; fail "$name: exit 0 after SIGTERM"; }
  [ "$(grep -c '^simreach: stopped by signal 15 (SIGTERM)' "$dir/$name.log")" = 1 ] || { cat "$dir/$name.log"; fail "$name: not one 'stopped by signal 15 (SIGTERM)' line"; }
  grep -q "VERIFIED\|verified-safe set\|PETSC ERROR" "$dir/$name.log" && { cat "$dir/$name.log"; fail "$name: a claim or a PETSc block after SIGTERM"; }
  ls "$dir"/*.part "$dir"/*.lock 2> /dev/null && fail "$name: .part or .lock left"
  [ "$(sha256sum < "$dir/keep.h5")" = "$keep" ] || fail "$name: the existing output changed"
  return 0
}
# verify is held where its .part is complete and not yet renamed (the last moment a stop must
# leave the existing file as it was): on an idle machine a run sized in cells finished and renamed
# before the signal arrived; safe's 2 x 10^8 trajectories take minutes
stop verify commit verify -network "$dir/pend.h5" -cells 1000,1000 -output "$dir/keep.h5" -force -progress
stop closedloop - closedloop -plant "$src/jobs/arch/pendulum/plant.txt" -network "$src/tests/data/pendulum_tanh_controller.h5" -spec "$src/tests/data/pendulum_spec_late.txt" -closedloop_samples 10000000 -o "$dir/keep.h5" -force
stop safe - safe "$dir/abs.h5" -trajectories 200000000 -output "$dir/keep.h5" -force
# a stop after the rename (held at the moment "renamed"): the file is whole, and the line says so
SIMREACH_TEST_PAUSE=renamed "$MPIEXEC" -n 2 $MPIEXEC_EXTRA "$SIMREACH" verify -network "$dir/pend.h5" -cells 100,100 -output "$dir/late.h5" > "$dir/late.log" 2>&1 &
late=$!
for i in $(seq 1 1200); do grep -q "paused here" "$dir/late.log" && break; sleep 0.1; done
kill -TERM $late
wait $late
[ $? != 0 ] && grep -q "^simreach: stopped by signal 15 (SIGTERM) after its output file was written in full" "$dir/late.log" || { cat "$dir/late.log"; fail "a stop after the rename: not said so"; }
"$SIMREACH" check "$dir/late.h5" > "$dir/late_check.log" 2>&1 || { cat "$dir/late_check.log"; fail "a stop after the rename: the file does not check"; }

# bench_arch.sh checks its argument
bash "$src/tests/bench/bench_arch.sh" "$dir" > "$dir/b.log" 2>&1; rc=$?
[ $rc = 2 ] && [ "$(wc -l < "$dir/b.log")" = 1 ] && grep -q "is not an executable file" "$dir/b.log" || { cat "$dir/b.log"; fail "bench_arch.sh on a folder: exit $rc"; }

# an ONNX Conv whose kernel_shape contradicts its weights (one process: a reader's refusal)
if "$PY" -c "import onnx" 2> /dev/null; then
  "$PY" - "$dir/conv.onnx" <<'PYEOF' || fail "writing the ONNX file"
import sys, numpy as np, onnx
from onnx import helper, TensorProto, numpy_helper
W = numpy_helper.from_array(np.ones((3, 2, 1, 1)), "W")
W2 = numpy_helper.from_array(np.ones((1, 3)), "W2")
nodes = [helper.make_node("Conv", ["x", "W"], ["h"], kernel_shape=[2, 2]), helper.make_node("Flatten", ["h"], ["f"]),
         helper.make_node("Relu", ["f"], ["r"]), helper.make_node("Gemm", ["r", "W2"], ["y"], transB=1)]
g = helper.make_graph(nodes, "conv", [helper.make_tensor_value_info("x", TensorProto.DOUBLE, [1, 2, 1, 1])],
                      [helper.make_tensor_value_info("y", TensorProto.DOUBLE, [1, 1])], [W, W2])
onnx.save(helper.make_model(g), sys.argv[1])
PYEOF
  "$SIMREACH" network "$dir/conv.onnx" > "$dir/o.log" 2>&1
  one 2 "attribute kernel_shape .* contradicts the kernel 'W'" "$dir/o.log" $?
fi
echo "PASS: one-line errors"
