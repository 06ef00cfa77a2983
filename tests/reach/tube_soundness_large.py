#!/usr/bin/env python3
"""Closed-loop soundness for plants beyond the old 8-state limit (SPEC §15 turn 4, issue 35 item 1).

k decoupled copies of a damped oscillator x' = v, v' = -x - 0.2 v + u_i (a known linear system;
n = 2k states), closed by one ReLU network of n inputs and k outputs (random weights, written
here as a Stanford NNet file with input clipping and normalisation), period 0.1, 10 periods,
X0 a box of width 0.02 per state, spec `always` a box.  The oracle is written apart from the C
code, as in tube_soundness.py: the plant by hand in NumPy, the network by a NumPy forward pass
of the NNet semantics, RK4 with 100 steps per period from the corners of a random 64 of X0's
corners and 200 random points; every state at every RK4 point of period j must lie in the tube
box of period j of every leaf holding its start point (tolerance 1e-7).  The run must be
VERIFIED with no escape, and the planted -closedloop_test_planted_shrink 0.5 must be caught.
Usage: tube_soundness_large.py SIMREACH WORKDIR K [K ...]   (n = 2K states per case)"""
import os
import subprocess
import sys

import numpy as np

try:
    import h5py
except ImportError as e:
    print(f"tube_soundness_large: skipped ({e})")
    sys.exit(77)

simreach, work = sys.argv[1:3]
ks = [int(a) for a in sys.argv[3:]] or [6]
os.makedirs(work, exist_ok=True)
testhooks = os.environ.get("SIMREACH_TESTHOOKS", "")
TOL, T, STEPS, HID = 1e-7, 0.1, 10, 16


def write_case(k, rng):
    n = 2 * k
    W1 = rng.normal(0, 0.3, (HID, n)); b1 = rng.normal(0, 0.1, HID)
    W2 = rng.normal(0, 0.3, (k, HID)); b2 = rng.normal(0, 0.1, k)
    mins, maxes = -np.full(n, 5.0), np.full(n, 5.0)
    means, ranges = np.append(np.zeros(n), 0.0), np.append(np.full(n, 2.0), 1.0)
    net = os.path.join(work, f"ctrl{n}.nnet")
    with open(net, "w") as f:
        f.write(f"// tube_soundness_large: {n}-{HID}-{k} ReLU\n2,{n},{k},{max(n, HID)}\n{n},{HID},{k}\n0\n")
        for v in (mins, maxes, means, ranges):
            f.write(",".join(f"{x:.17g}" for x in v) + "\n")
        for W, b in ((W1, b1), (W2, b2)):
            for row in W:
                f.write(",".join(f"{x:.17g}" for x in row) + "\n")
            for x in b:
                f.write(f"{x:.17g}\n")
    names = [f"p{i}" for i in range(k)], [f"v{i}" for i in range(k)]
    st = [s for i in range(k) for s in (names[0][i], names[1][i])]
    plant = os.path.join(work, f"plant{n}.txt")
    with open(plant, "w") as f:
        f.write(f"# {k} decoupled damped oscillators (tube_soundness_large.py)\nstates {' '.join(st)}\noutputs {k}\n")
        for s in st:
            f.write(f"input {s}\n")
        for i in range(k):
            f.write(f"control u{i} = y{i + 1}\n")
        for i in range(k):
            f.write(f"der p{i} = v{i}\nder v{i} = -p{i} - 0.2 * v{i} + u{i}\n")
        f.write(f"period 0.1\nsteps {STEPS}\n")
    x0 = rng.uniform(-0.5, 0.5, n)
    spec = os.path.join(work, f"spec{n}.txt")
    with open(spec, "w") as f:
        for s, c in zip(st, x0):
            f.write(f"initial {s} in [{c - 0.01:.6f}, {c + 0.01:.6f}]\n")
        for c in range(0, n, 16):  # the spec language takes 32 atoms per constraint
            f.write("always: " + " and ".join(f"{s} in [-20, 20]" for s in st[c:c + 16]) + "\n")

    def ctrl(x):
        z = (np.clip(x, mins, maxes) - means[:n]) / ranges[:n]
        h = np.maximum(z @ W1.T + b1, 0)
        return (h @ W2.T + b2) * ranges[n] + means[n]

    def field(x, u):
        d = np.empty_like(x)
        d[:, 0::2] = x[:, 1::2]
        d[:, 1::2] = -x[:, 0::2] - 0.2 * x[:, 1::2] + u
        return d
    return plant, net, spec, ctrl, field


def run(name, plant, net, spec, extra):
    out = os.path.join(work, f"{name}{'_planted' if extra else ''}.h5")
    # the planted fault exists only in the test executable, which answers PLANTED-FAULT, exit 7
    cmd = [testhooks if extra else simreach, "closedloop", "-plant", plant, "-network", net, "-spec", spec, "-o", out, "-force",
           "-closedloop_progress", "0"] + extra
    r = subprocess.run(cmd, capture_output=True, text=True)
    if r.returncode not in ((7,) if extra else (0, 5, 6)) or (extra and "PLANTED-FAULT" not in r.stdout):
        sys.exit(f"tube_soundness_large: {' '.join(cmd)} exit {r.returncode}\n{r.stdout}{r.stderr}")
    lines = r.stdout.strip().splitlines()
    return out, (lines[1] if len(lines) > 1 else r.stdout.strip()), r.stdout


def check(h5, ctrl, field, rng, npoints=200, ncorners=64):
    f = h5py.File(h5, "r")
    P, tubes = f["pieces"][...], f["tubes"][...]
    n = tubes.shape[2]
    lo, hi = P[:, :n], P[:, n:2 * n]
    X0lo, X0hi = lo.min(0), hi.max(0)
    corners = X0lo + (X0hi - X0lo) * rng.integers(0, 2, (ncorners, n))
    x = np.vstack([corners, X0lo + (X0hi - X0lo) * rng.random((npoints, n))])
    hold = np.all((lo[None, :, :] <= x[:, None, :]) & (x[:, None, :] <= hi[None, :, :]), axis=2)
    worst, escapes, checked, K = -np.inf, 0, 0, 100
    for j in range(STEPS):
        u = ctrl(x)
        h = T / K
        tb = tubes[:, j]
        ok = ~np.isnan(tb).any(axis=(1, 2))
        for s in range(K + 1):
            d = np.max(np.maximum(tb[None, :, :, 0] - x[:, None, :], x[:, None, :] - tb[None, :, :, 1]), axis=2)
            m = hold & ok[None, :]
            if m.any():
                worst = max(worst, d[m].max())
                escapes += int((d[m] > TOL).sum())
                checked += int(m.sum())
            if s == K:
                break
            k1 = field(x, u)
            k2 = field(x + h / 2 * k1, u)
            k3 = field(x + h / 2 * k2, u)
            k4 = field(x + h * k3, u)
            x = x + h / 6 * (k1 + 2 * k2 + 2 * k3 + k4)
    return escapes, checked, worst


fails = 0
for k in ks:
    rng = np.random.default_rng(100 + k)
    plant, net, spec, ctrl, field = write_case(k, rng)
    name = f"osc{2 * k}"
    h5, verdict, full = run(name, plant, net, spec, [])
    wall = [l for l in full.splitlines() if "wall" in l]
    if "VERIFIED" not in verdict:
        print(f"{name}: want VERIFIED, got: {verdict}")
        fails += 1
    e, c, w = check(h5, ctrl, field, rng)
    print(f"{name} ({2 * k} states): {verdict}\n  {wall[0] if wall else ''}\n  {c} tube checks, {e} escapes, largest excess {w:.3g}")
    fails += e > 0
    h5, verdict, _ = run(name, plant, net, spec, ["-closedloop_test_planted_shrink", "0.5"])
    e, c, w = check(h5, ctrl, field, rng)
    print(f"  planted shrink 0.5: {e} escapes of {c} checks {'(caught)' if e else 'NOT CAUGHT'}")
    fails += e == 0
print("FAIL" if fails else "PASS")
sys.exit(1 if fails else 0)
