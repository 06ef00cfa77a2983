#!/usr/bin/env python3
"""Soundness of discrete-time plants and network switching (SPEC §15 turn 4, issue 35 items 3 and 7):
each answer and tube of simreach closedloop against an oracle written apart from the C code.

Two plants, period 0.1, 20 updates, X0 = [0.9, 1.1] x [-0.1, 0.1]:
  disc    next p = p + 0.1 v, next v = v + 0.1 (-sin p - 0.2 v + u), u = y1 of one random 2-16-1
          ReLU network (Stanford NNet, written here);
  switch  next p = p + 0.1 v, next v = 0.95 v - 0.1 p + 0.1 u, u = y1 - y2, two random 2-16-2 ReLU
          networks, 'select argmax initial 1' (network k runs after output k was the largest).
The oracle: the updates by hand in NumPy, the networks by a NumPy forward pass, the argmax by
np.argmax (the first largest), from a 41 x 41 grid of X0 and its corners.  Checks per plant:
  tube    'always: p <= 100' with -o: every oracle state at sample j and j + 1 lies in the tube box
          of period j of every piece holding its start point (and the run is VERIFIED);
  held    'always: p <= max + 5 % of the range': never FALSIFIED;
  broken  'always: p <= max - 20 % of the range': never VERIFIED (FALSIFIED expected);
and the planted -closedloop_test_planted_shrink 0.5 (the test executable simreach_testhooks, exit 7,
PLANTED-FAULT) must put oracle states outside the tube (caught).  The switch case must use both
networks in the oracle and leave the argmax uncertain somewhere (else it tests nothing new).
Bad plant files are refused in one line naming file:line:col, exit 2; a wrong number of networks
for 'select' is refused naming -network, exit 2.  Usage: discrete_soundness.py SIMREACH WORKDIR"""
import os
import subprocess
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from relu_nnet import write_relu_nnet  # noqa: E402

try:
    import h5py
except ImportError:
    print("discrete_soundness: h5py missing, skipped")
    sys.exit(77)

simreach, work = sys.argv[1:3]
testhooks = os.environ.get("SIMREACH_TESTHOOKS", "")  # the planted fault: test executable only
os.makedirs(work, exist_ok=True)
STEPS, HID, TOL = 20, 16, 1e-9
LO, HI = np.array([0.9, -0.1]), np.array([1.1, 0.1])
rng = np.random.default_rng(3507)


def write_net(path, nout, scale):
    W1 = rng.normal(0, 0.5, (HID, 2)); b1 = rng.normal(0, 0.1, HID)
    W2 = rng.normal(0, scale, (nout, HID)); b2 = rng.normal(0, 0.1, nout)
    return write_relu_nnet(path, W1, b1, W2, b2, f"discrete_soundness: 2-{HID}-{nout} ReLU")


def oracle_disc(x, nets):
    out = [x]
    for _ in range(STEPS):
        u = nets[0](x)[:, 0]
        p, v = x[:, 0], x[:, 1]
        x = np.stack([p + 0.1 * v, v + 0.1 * (-np.sin(p) - 0.2 * v + u)], axis=1)
        out.append(x)
    return np.array(out), None


def oracle_switch(x, nets):
    out, sel, used, close = [x], np.zeros(len(x), int), set(), 0.0
    for _ in range(STEPS):
        y = np.where(sel[:, None] == 0, nets[0](x), nets[1](x))
        used |= set(sel.tolist())
        close = max(close, float((np.abs(y[:, 0] - y[:, 1]) < 0.02).mean()))
        sel = np.argmax(y, axis=1)
        u = y[:, 0] - y[:, 1]
        p, v = x[:, 0], x[:, 1]
        x = np.stack([p + 0.1 * v, 0.95 * v - 0.1 * p + 0.1 * u], axis=1)
        out.append(x)
    return np.array(out), (used, close)


PLANT_HEAD = "states p v\noutputs {m}\ninput p\ninput v\n"
cases = {
    "disc": (PLANT_HEAD.format(m=1) + "control u = y1\nnext p = p + 0.1 * v\nnext v = v + 0.1 * (-sin(p) - 0.2 * v + u)\nperiod 0.1\nsteps 20\n", 1, 1, oracle_disc),
    "switch": (PLANT_HEAD.format(m=2) + "select argmax initial 1\ncontrol u = y1 - y2\nnext p = p + 0.1 * v\nnext v = 0.95 * v - 0.1 * p + 0.1 * u\n"
               "period 0.1\nsteps 20\n", 2, 2, oracle_switch),
}


def run(exe, plant, nets, spec, extra):
    cmd = [exe, "closedloop", "-plant", plant, "-network", ",".join(nets), "-spec", spec, "-closedloop_progress", "0",
           "-closedloop_max_depth", "10"] + extra
    r = subprocess.run(cmd, capture_output=True, text=True)
    if exe == testhooks:
        ended = {"with every piece proven under the fault": "VERIFIED", "with a counterexample": "FALSIFIED", "with open pieces": "UNKNOWN"}
        v = next((v for k, v in ended.items() if "PLANTED-FAULT" in r.stdout and k in r.stdout), None) if r.returncode == 7 else None
    else:
        v = next((w for w in ("VERIFIED", "FALSIFIED", "UNKNOWN") if f"closedloop: {w}" in r.stdout), None)
    if v is None:
        sys.exit(f"discrete_soundness: {' '.join(cmd)} exit {r.returncode}\n{r.stdout}{r.stderr}")
    return v


def escapes(h5, X, x0):
    """oracle states X[j], X[j+1] outside the tube of period j of a piece holding x0"""
    f = h5py.File(h5, "r")
    P, tubes = f["pieces"][...], f["tubes"][...]
    n = tubes.shape[2]
    hold = np.all((P[None, :, :n] <= x0[:, None, :]) & (x0[:, None, :] <= P[None, :, n:2 * n]), axis=2)
    bad, checked = 0, 0
    for j in range(STEPS):
        tb = tubes[:, j]
        ok = ~np.isnan(tb).any(axis=(1, 2))
        for x in (X[j], X[j + 1]):
            d = np.max(np.maximum(tb[None, :, :, 0] - x[:, None, :], x[:, None, :] - tb[None, :, :, 1]), axis=2)
            m = hold & ok[None, :]
            bad += int((d[m] > TOL).sum()); checked += int(m.sum())
    return bad, checked


fails = 0
g = np.linspace(0, 1, 41)
x0 = np.vstack([LO + (HI - LO) * np.array([[a, b] for a in g for b in g])])
for name, (text, nnet, nout, oracle) in cases.items():
    plant = os.path.join(work, f"{name}.txt")
    with open(plant, "w") as f:
        f.write(text)
    fns, nets = [], []
    for k in range(nnet):
        nets.append(os.path.join(work, f"{name}_net{k + 1}.nnet"))
        fns.append(write_net(nets[-1], nout, 0.4))
    X, info = oracle(x0, fns)
    if info is not None:
        used, close = info
        print(f"{name}: the oracle runs networks {sorted(int(u) + 1 for u in used)}; largest share of |y1 - y2| < 0.02 in a period {close:.2f}")
        if used != {0, 1} or close == 0:
            print("  both networks must run and the argmax must be close somewhere (test set-up)")
            fails += 1
    p = X[..., 0]
    pmax, rngp = float(p.max()), float(p.max() - p.min())
    specs = {"tube": "always: p <= 100", "held": f"always: p <= {pmax + 0.05 * rngp:.9f}", "broken": f"always: p <= {pmax - 0.2 * rngp:.9f}"}
    for sname, formula in specs.items():
        spec = os.path.join(work, f"{name}_{sname}.spec")
        with open(spec, "w") as f:
            f.write("initial p in [0.9, 1.1]\ninitial v in [-0.1, 0.1]\n" + formula + "\n")
        h5 = os.path.join(work, f"{name}_{sname}.h5")
        v = run(simreach, plant, nets, spec, ["-o", h5, "-force"] if sname == "tube" else [])
        wrong = (sname == "broken" and v == "VERIFIED") or (sname == "held" and v == "FALSIFIED") or (sname == "tube" and v != "VERIFIED")
        line = f"{name} {sname}: {formula}: simreach {v}{'  WRONG' if wrong else ''}"
        if sname == "tube":
            e, c = escapes(h5, X, x0)
            line += f"; {c} tube checks, {e} escapes"
            wrong |= e > 0 or c == 0
            v = run(testhooks, plant, nets, spec, ["-o", h5 + ".planted.h5", "-force", "-closedloop_test_planted_shrink", "0.5"])
            e, c = escapes(h5 + ".planted.h5", X, x0)
            line += f"\n  planted shrink 0.5: {e} escapes of {c} checks {'(caught)' if e else 'NOT CAUGHT'}"
            wrong |= e == 0
        print(line)
        fails += wrong

# refusals: one line, file:line:col, exit 2, before any work
disc_text, sw_text = cases["disc"][0], cases["switch"][0]
bad = ((disc_text.replace("next v =", "der v ="), ":7:1: 'der' in a plant with 'next' lines (line 6)"),
       (disc_text.replace("next p = p", "next q = p"), ":6:7: 'q' is not a state"),
       (sw_text.replace("select argmax initial 1", "select argmin initial 1"), ":5:8: expected 'argmax'"),
       (sw_text.replace("select argmax initial 1", "select argmax initial 3"), ":5:23: initial: expected an integer 1..2"))
spec = os.path.join(work, "disc_tube.spec")
for k, (text, want) in enumerate(bad):
    plant = os.path.join(work, f"bad{k}.txt")
    with open(plant, "w") as f:
        f.write(text)
    nets = [os.path.join(work, "switch_net1.nnet"), os.path.join(work, "switch_net2.nnet")] if "select" in text else [os.path.join(work, "disc_net1.nnet")]
    r = subprocess.run([simreach, "closedloop", "-plant", plant, "-network", ",".join(nets), "-spec", spec], capture_output=True, text=True)
    ok = r.returncode == 2 and f"plant file {plant}{want}" in r.stdout + r.stderr
    print(f"refused bad{k}: exit {r.returncode} {'ok' if ok else 'WRONG: ' + (r.stdout + r.stderr).strip()[:300]}")
    fails += not ok
r = subprocess.run([simreach, "closedloop", "-plant", os.path.join(work, "switch.txt"), "-network", os.path.join(work, "switch_net1.nnet"), "-spec", spec], capture_output=True, text=True)
ok = r.returncode == 2 and "-network" in r.stdout + r.stderr and "give one per output" in r.stdout + r.stderr
print(f"refused one network for 'select' over 2 outputs: exit {r.returncode} {'ok' if ok else 'WRONG: ' + (r.stdout + r.stderr).strip()[:300]}")
fails += not ok
print("FAIL" if fails else "PASS")
sys.exit(1 if fails else 0)
