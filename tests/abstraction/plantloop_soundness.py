#!/usr/bin/env python3
"""Soundness of the abstraction of a plant file's closed loop (SPEC §16, issue 36): `verify -plant`
of the ARCH TORA loop (its input and control lines, the ONNX controller, one period held), or
with --system=docking of the ARCH Docking loop (a linear plant: its period by the exact map of
src/model/flow_linear.c), with crown and with the interval bound (the batched kernel over
blocks of cells, src/abstraction/plantstep.c; 4x4x4x3 cells so that the blocks of 1 and 2 ranks
differ).

The oracle is written apart from the C code: the vector field by hand in NumPy (not the
plant-file parser), the controller by a NumPy forward pass over the ONNX graph read with
python3-onnx (not the C reader), RK4 with 200 steps per period with the control held.  From the
corners, the centre and random points of every cell, the state after one period must lie in the
union of the cell's certified successors read from the abstraction file (the index box of
/cells/list, with the boundaries of /partition; outside D only when the row lists the sink).
Also: 1 and 2 ranks write the same /cells (lists and enclosures, bitwise); `check` re-proves the
file; a planted shrink (simreach_testhooks -verify_test_planted_shrink, the validated period
shrunk) exits 7, records the fault in the file, is caught by the oracle and refused by `check`.
Usage: plantloop_soundness.py [--system=tora|docking] SIMREACH SRCDIR WORKDIR [MPIEXEC ...]"""
import os
import subprocess
import sys

import numpy as np

try:
    import h5py
    import onnx
    from onnx import numpy_helper
except ImportError as e:
    print(f"plantloop_soundness: skipped ({e})")
    sys.exit(77)

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "reach"))
from onnx_numpy import onnx_forward  # noqa: E402

argv = sys.argv[1:]
system = "tora"
if argv and argv[0].startswith("--system="):
    system = argv.pop(0).split("=", 1)[1]
simreach, src, work = argv[0:3]
mpiexec = argv[3:]
testhooks = os.environ.get("SIMREACH_TESTHOOKS", "")
os.makedirs(work, exist_ok=True)
TOL = 1e-7
CELLS = "4,4,4,4" if system == "tora" else "4,4,4,3"  # Docking: 96 cells a rank on 2, so blocks of 64 differ from 1 rank's


def fail(msg):
    print(f"plantloop_soundness: FAIL: {msg}")
    sys.exit(1)


def tora(x, u):
    """TORA's vector field (dynamics9.m) over a batch x (N x 4), u (N,)"""
    return np.stack([x[:, 1], -x[:, 0] + 0.1 * np.sin(x[:, 2]), x[:, 3], u], axis=-1)


def docking(x, u):
    """Clohessy-Wiltshire (ARCH Docking dynamics.m) over a batch x (N x 4), u (N x 2) the thrusts"""
    n, m = 0.001027, 12.0
    return np.stack([x[:, 2], x[:, 3], 2 * n * x[:, 3] + 3 * n * n * x[:, 0] + u[:, 0] / m, -2 * n * x[:, 2] + u[:, 1] / m], axis=-1)


def period(x, net, T=1.0, steps=200):
    """RK4 over one period from the batch x, the control held (TORA: u = y1 - 10; Docking: the
    thrusts y1, y2)"""
    u = net(x)[:, 0] - 10.0 if system == "tora" else net(x)[:, 0:2]
    g = tora if system == "tora" else docking
    h = T / steps
    for _ in range(steps):
        k1 = g(x, u)
        k2 = g(x + 0.5 * h * k1, u)
        k3 = g(x + 0.5 * h * k2, u)
        k4 = g(x + h * k3, u)
        x = x + h / 6 * (k1 + 2 * k2 + 2 * k3 + k4)
    return x


def run(args, code=0, exe=None, ranks=1):
    cmd = (mpiexec + ["-n", str(ranks)] if ranks > 1 else []) + [exe or simreach] + args
    p = subprocess.run(cmd, capture_output=True, text=True)
    if p.returncode != code:
        fail(f"{' '.join(cmd)}: exit {p.returncode}, want {code}\n{p.stdout}{p.stderr}")
    return p.stdout + p.stderr


def violations(path, net, rng, per_cell):
    """(number of images outside the certified successors, images tested)"""
    with h5py.File(path, "r") as f:
        counts = f["partition/counts"][:]
        dlo, dhi = f["partition/domain_lo"][:], f["partition/domain_hi"][:]
        clo = [f[f"partition/cell_lo_{d}"][:] for d in range(4)]
        chi = [f[f"partition/cell_hi_{d}"][:] for d in range(4)]
        blo = [f[f"partition/boundary_lo_{d}"][:] for d in range(4)]
        bhi = [f[f"partition/boundary_hi_{d}"][:] for d in range(4)]
        lists = f["cells/list"][:]
    K, bad, tested = len(lists), 0, 0
    for k in range(K):
        idx, r = [], k
        for d in range(4):
            idx.append(r % counts[d])
            r //= counts[d]
        lo = np.array([clo[d][idx[d]] for d in range(4)])
        hi = np.array([chi[d][idx[d]] for d in range(4)])
        row = lists[k]
        if row[8] & 2:
            continue  # a nonfinite cell certifies nothing (given the sink)
        pts = [lo + (hi - lo) * rng.random(4) for _ in range(per_cell)] + [0.5 * (lo + hi)]
        pts += [np.where(np.array([(c >> d) & 1 for d in range(4)]), hi, lo) for c in range(16)]
        Y = period(np.array(pts), net)
        for y in Y:
            tested += 1
            outside = np.any(y < dlo - TOL) or np.any(y > dhi + TOL)
            near = np.any(y < dlo + TOL) or np.any(y > dhi - TOL)
            inbox = all(row[d] <= row[4 + d] and blo[d][row[d]] - TOL <= y[d] <= bhi[d][row[4 + d] + 1] + TOL for d in range(4))
            if inbox or ((outside or near) and row[8] & 1):
                continue
            bad += 1
    return bad, tested


if system == "tora":
    plant = f"{src}/jobs/arch/tora/plant.txt"
    onnxf = f"{src}/jobs/arch/tora/controllerTora.onnx"
else:
    plant = f"{src}/jobs/arch/docking/plant.txt"
    onnxf = f"{src}/jobs/arch/docking/model.onnx"
net = onnx_forward(onnxf)
base = ["verify", "-plant", plant, "-model", "controller", "-network", onnxf, "-cells", CELLS, "-enclosure", "crown"]
for f in ("a1.h5", "a2.h5", "ap.h5", "i1.h5", "i2.h5", "ip.h5"):
    if os.path.exists(f"{work}/{f}"):
        os.remove(f"{work}/{f}")


def one_and_two(args, f1name, f2name):
    """the abstraction on 1 rank, and on 2 bitwise equal; its images inside the successors"""
    run(args + ["-output", f"{work}/{f1name}"])
    if mpiexec:
        run(args + ["-output", f"{work}/{f2name}"], ranks=2)
        with h5py.File(f"{work}/{f1name}", "r") as f1, h5py.File(f"{work}/{f2name}", "r") as f2:
            for ds in ("cells/list", "cells/enclosure", "cells/checksum"):
                if not np.array_equal(f1[ds][:], f2[ds][:]):
                    fail(f"{' '.join(args)}: /{ds} differs between 1 and 2 ranks")
    bad, tested = violations(f"{work}/{f1name}", net, np.random.default_rng(36), 8)
    if bad:
        fail(f"{' '.join(args)}: {bad} of {tested} simulated one-period images lie outside their cell's certified successors")
    print(f"plantloop_soundness: {system} {args[args.index('-enclosure') + 1]}: {tested} one-period images inside their cells' certified successors")


one_and_two(base, "a1.h5", "a2.h5")
ibase = base[:-1] + ["interval"]
if system == "docking":  # the batched interval kernel over blocks of cells
    one_and_two(ibase, "i1.h5", "i2.h5")
out = run(["check", f"{work}/a1.h5"])
if "every cell proven" not in out:
    fail(f"check did not re-prove the file:\n{out}")
out = run(["verify", "-recheck", f"{work}/a1.h5"])  # a loop's file: re-enclosed with the bound it was built with
if "re-enclosed with crown" not in out or "failed 0" not in out:
    fail(f"verify -recheck did not re-prove the file with crown:\n{out}")

for cmd in ("train", "abstract") if system == "tora" else ():  # not yet for a loop: refused in one line before any work
    out = run([cmd, "-plant", plant, "-model", "controller"], code=2)
    if "states the loop of its input and control lines" not in out or out.count("simreach:") != 1:
        fail(f"{cmd} -plant of a loop: no one-line refusal:\n{out}")
out = run(base + ["-output", f"{work}/ax.h5", "-verify_test_planted_shrink", "0.95"], code=2)  # the product: no such option
if "unknown option(s): -verify_test_planted_shrink" not in out or os.path.exists(f"{work}/ax.h5"):
    fail(f"the product did not refuse the test option in one line before any work:\n{out}")
if not testhooks:
    print("plantloop_soundness: SIMREACH_TESTHOOKS not set: the planted fault is not tested")
    sys.exit(0)
out = run(base + ["-output", f"{work}/ap.h5", "-verify_test_planted_shrink", "0.95"], code=7, exe=testhooks)
if "PLANTED-FAULT" not in out:
    fail(f"the planted fault is not announced:\n{out}")
with h5py.File(f"{work}/ap.h5", "r") as f:
    srcattr = f.attrs.get("network_source", b"")
    srcattr = srcattr.decode() if isinstance(srcattr, bytes) else str(srcattr)
    if "PLANTED-FAULT" not in srcattr:
        fail(f"the file does not record the planted fault (source '{srcattr}')")
bad, tested = violations(f"{work}/ap.h5", net, np.random.default_rng(36), 8)
if bad == 0:
    fail(f"the planted shrink was not caught by the oracle ({tested} images)")
print(f"plantloop_soundness: planted shrink caught: {bad} of {tested} images outside")
out = run(["check", f"{work}/ap.h5", "-recheck_depth", "2"], code=5)
print("plantloop_soundness: check refuses the file of the planted shrink (exit 5)")
if system == "docking":  # the planted shrink on the linear map with the batched interval bound
    run(ibase + ["-output", f"{work}/ip.h5", "-verify_test_planted_shrink", "0.95"], code=7, exe=testhooks)
    bad, tested = violations(f"{work}/ip.h5", net, np.random.default_rng(36), 8)
    if bad == 0:
        fail(f"the planted shrink with -enclosure interval was not caught by the oracle ({tested} images)")
    print(f"plantloop_soundness: planted shrink (interval) caught: {bad} of {tested} images outside")
