#!/usr/bin/env python3
"""Soundness of the adaptive sub-steps (issue 35 item 5; docs/arch.md "Adaptive sub-steps"): a
period whose flow fails or whose always check misses is run again with twice the sub-steps, and
the enclosure of the attempt that passes is kept.  Each attempt must be a complete enclosure on its
own; this test checks the tubes of a run that needs such retries against an oracle written apart
from the C code, and that a retry accepting a shrunk result is caught.

The plant is a damped oscillator p' = v, v' = -p - 0.1 v + u closed by a random 2-16-1 ReLU network
(Stanford NNet, written here), period 1 (about a sixth of a turn: the hull of one period is far
from the circle the trajectories stay near), 8 periods, X0 = [0.95, 1.05] x [-0.05, 0.05], and
  always: sqrt(p^2 + v^2) <= R,   R = 1.03 x the oracle's largest radius.
The oracle: the plant by hand in NumPy, the network by a NumPy forward pass, RK4 with 100 steps
per period from the 4 corners and 300 random points of X0.  Checks:
  - with one sub-step per period and no adaptive sub-steps (-closedloop_substeps_max 1) the answer
    is not VERIFIED (the retries are needed: the test set-up);
  - at the defaults the answer is VERIFIED, the report says periods were run again, and every
    oracle point of period j lies in the tube box of period j of every leaf holding its start
    (tolerance 1e-7);
  - under the planted -closedloop_test_planted_retry_shrink 0.5 (the test executable
    simreach_testhooks: PLANTED-FAULT, exit 7), which shrinks only the enclosures of retried
    periods, oracle points escape (the fault is caught).
Usage: adaptive_soundness.py SIMREACH WORKDIR"""
import os
import subprocess
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from relu_nnet import write_relu_nnet  # noqa: E402

try:
    import h5py
except ImportError as e:
    print(f"adaptive_soundness: skipped ({e})")
    sys.exit(77)

simreach, work = sys.argv[1:3]
testhooks = os.environ.get("SIMREACH_TESTHOOKS", "")
os.makedirs(work, exist_ok=True)
T, STEPS, HID, TOL = 1.0, 8, 16, 1e-7
rng = np.random.default_rng(351)
W1 = rng.normal(0, 0.3, (HID, 2)); b1 = rng.normal(0, 0.1, HID)
W2 = rng.normal(0, 0.2, (1, HID)); b2 = rng.normal(0, 0.05, 1)
net = os.path.join(work, "ctrl.nnet")
write_relu_nnet(net, W1, b1, W2, b2, "adaptive_soundness: 2-16-1 ReLU")
plant = os.path.join(work, "plant.txt")
with open(plant, "w") as f:
    f.write(f"states p v\noutputs 1\ninput p\ninput v\ncontrol u = y1\nder p = v\nder v = -p - 0.1 * v + u\nperiod 1\nsteps {STEPS}\n")
LO, HI = np.array([0.95, -0.05]), np.array([1.05, 0.05])


def ctrl(x):
    h = np.maximum(np.clip(x, -5, 5) @ W1.T + b1, 0)
    return (h @ W2.T + b2)[:, 0]


def field(x, u):
    return np.stack([x[:, 1], -x[:, 0] - 0.1 * x[:, 1] + u], axis=1)


def trajectories(x, K=100):
    """every RK4 point, per period: list of STEPS arrays (K + 1, N, 2)"""
    per, h = [], T / K
    for _ in range(STEPS):
        u, pts = ctrl(x), [x.copy()]
        for _ in range(K):
            k1 = field(x, u); k2 = field(x + h / 2 * k1, u); k3 = field(x + h / 2 * k2, u); k4 = field(x + h * k3, u)
            x = x + h / 6 * (k1 + 2 * k2 + 2 * k3 + k4)
            pts.append(x.copy())
        per.append(np.array(pts))
    return per


corners = np.array([[LO[0], LO[1]], [LO[0], HI[1]], [HI[0], LO[1]], [HI[0], HI[1]]])
X = np.vstack([corners, LO + (HI - LO) * rng.random((300, 2))])
per = trajectories(X)
R = 1.03 * max(float(np.sqrt((P**2).sum(axis=2)).max()) for P in per)
spec = os.path.join(work, "spec.txt")
with open(spec, "w") as f:
    f.write(f"initial p in [0.95, 1.05]\ninitial v in [-0.05, 0.05]\nalways: sqrt(p^2 + v^2) <= {R:.6f}\n")


def run(exe, extra, out):
    cmd = [exe, "closedloop", "-plant", plant, "-network", net, "-spec", spec, "-closedloop_progress", "0",
           "-closedloop_samples", "16", "-closedloop_max_depth", "3", "-o", out, "-force"] + extra
    r = subprocess.run(cmd, capture_output=True, text=True)
    return r, " ".join(cmd)


def escapes(h5):
    f = h5py.File(h5, "r")
    P, tubes = f["pieces"][...], f["tubes"][...]
    lo, hi = P[:, :2], P[:, 2:4]
    hold = np.all((lo[None] <= X[:, None]) & (X[:, None] <= hi[None]), axis=2)
    e, c, worst = 0, 0, -np.inf
    for j in range(STEPS):
        tb = tubes[:, j]
        ok = ~np.isnan(tb).any(axis=(1, 2))
        m = hold & ok[None, :]
        for x in per[j]:
            d = np.max(np.maximum(tb[None, :, :, 0] - x[:, None, :], x[:, None, :] - tb[None, :, :, 1]), axis=2)
            if m.any():
                worst = max(worst, float(d[m].max()))
                e += int((d[m] > TOL).sum())
                c += int(m.sum())
    return e, c, worst


fails = 0
r, cmd = run(simreach, ["-closedloop_substeps_max", "1"], os.path.join(work, "off.h5"))
off = "VERIFIED" if "closedloop: VERIFIED" in r.stdout else "not VERIFIED"
print(f"without adaptive sub-steps (-closedloop_substeps_max 1): {off}, exit {r.returncode}")
if r.returncode not in (0, 5) or off == "VERIFIED":
    print("  the retries are not needed here (test set-up), or the run failed:\n" + r.stdout + r.stderr)
    fails += 1
r, cmd = run(simreach, [], os.path.join(work, "on.h5"))
retried = [l for l in r.stdout.splitlines() if "adaptive sub-steps:" in l]
print(f"defaults: exit {r.returncode}; {retried[0] if retried else 'no period retried'}")
if r.returncode != 0 or "closedloop: VERIFIED" not in r.stdout or not retried:
    print("  want VERIFIED with retried periods:\n" + r.stdout + r.stderr)
    fails += 1
else:
    e, c, w = escapes(os.path.join(work, "on.h5"))
    print(f"  {c} tube checks, {e} escapes, largest excess {w:.3g}")
    fails += e > 0
if not testhooks:
    sys.exit("adaptive_soundness: SIMREACH_TESTHOOKS (the test executable) is not set")
h5 = os.path.join(work, "planted.h5")
r, cmd = run(testhooks, ["-closedloop_test_planted_retry_shrink", "0.5"], h5)
if r.returncode != 7 or "PLANTED-FAULT" not in r.stdout:
    sys.exit(f"adaptive_soundness: {cmd}: exit {r.returncode}, want 7 (PLANTED-FAULT)\n{r.stdout}{r.stderr}")
e, c, w = escapes(h5)
print(f"planted retry shrink 0.5: {e} escapes of {c} checks {'(caught)' if e else 'NOT CAUGHT'}")
fails += e == 0
print("FAIL" if fails else "PASS")
sys.exit(1 if fails else 0)
