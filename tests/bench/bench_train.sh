#!/bin/sh
# Benchmark (not a test): one phi training step (forward, backward, Adam) of 2-32-32-2 and
# 2-64-64-2 MLPs at batch 256 and 4096, simreach vs PyTorch on CPU (float64, same step),
# and the guard's share of a guarded run.  Each side reports the best of three 0.5 s windows.
#   tests/bench/bench_train.sh [BUILD_DIR]   (default /tmp/build; needs libsimreach built there)
# PyTorch: Debian's python3-torch, run with /usr/bin/python3 (not a pyenv python3 on PATH).
set -eu
here=$(cd "$(dirname "$0")" && pwd)
src=$(cd "$here/../.." && pwd)
build=${1:-/tmp/build}
if ! /usr/bin/python3 -c "import torch" 2> /dev/null; then
  if [ "$(id -u)" -eq 0 ]; then apt-get install -y -q python3-torch > /dev/null || { echo "bench_train: apt-get install python3-torch failed" >&2; exit 1; }
  else echo "bench_train: needs Debian's python3-torch for the reference (sudo apt-get install python3-torch)" >&2; exit 1; fi
fi
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
HDF5_INC=$(pkg-config --cflags hdf5-openmpi 2>/dev/null || echo -I/usr/include/hdf5/openmpi)
mpicc -std=c17 -O2 -ffp-contract=off -I"$src/include" $(pkg-config --cflags PETSc) $HDF5_INC "$here/bench_train.c" \
  -o "$out/bench_train" -L"$build" -lsimreach $(pkg-config --libs PETSc) -lm -Wl,-rpath,"$build"
OMP_NUM_THREADS=1 "$out/bench_train" -options_file "$src/jobs/train_pendulum.opts" -quiet | tee "$out/c.txt"
OMP_NUM_THREADS=1 /usr/bin/python3 - "$out/c.txt" <<'PY'
import re, sys, time
import torch
torch.set_num_threads(1)          # the C step is single-threaded too
torch.set_default_dtype(torch.float64)
c = {}
for line in open(sys.argv[1]):
    m = re.match(r"simreach 2-(\d+)-\d+-2 batch\s+(\d+):\s+([\d.]+) steps/s", line)
    if m: c[(int(m.group(1)), int(m.group(2)))] = float(m.group(3))
print("%-22s %12s %12s %8s" % ("net, batch", "simreach/s", "torch/s", "ratio"))
for (w, b), cs in sorted(c.items()):
    torch.manual_seed(1)
    net = torch.nn.Sequential(torch.nn.Linear(2, w), torch.nn.Tanh(), torch.nn.Linear(w, w), torch.nn.Tanh(), torch.nn.Linear(w, 2))
    opt = torch.optim.Adam(net.parameters(), lr=1e-3)
    X = torch.rand(b, 2) * 2 - 1; T = torch.rand(b, 2) * 2 - 1
    ts = 0.0
    for rep in range(3):          # best of 3 windows, as the C side
        steps, t0 = 0, time.perf_counter()
        while time.perf_counter() - t0 < 0.5 or steps < 3:
            opt.zero_grad(); loss = ((net(X) - T) ** 2).sum(1).mean(); loss.backward(); opt.step(); steps += 1
        ts = max(ts, steps / (time.perf_counter() - t0))
    print("2-%d-%d-2 batch %-6d %12.1f %12.1f %8.2f" % (w, w, b, cs, ts, cs / ts))
PY
