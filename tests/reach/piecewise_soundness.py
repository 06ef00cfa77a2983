#!/usr/bin/env python3
"""Soundness of the plant file's piecewise expressions (SPEC §15 turn 4, issue 35 items 3 and 7):
if(COND, A, B) with comparisons and and/or/not, argmax(...) and case(...), each answer and tube of
simreach closedloop against an oracle written apart from the C code (NumPy: the plants by hand,
the networks by a forward pass, np.argmax for the first largest, np.where for if).

Plants (X0 = [0.9, 1.1] x [-0.1, 0.1], random 2-16-M ReLU networks written here as NNet):
  ifnext   discrete, 20 updates of 0.1: the update switches on 'p <= 1 and not (v < -0.02)' (the
           condition is undecided over X0 and over the pieces that straddle it: the hull of both
           branches is taken);
  argmax   discrete, three networks chosen by 'select argmax initial 1', a state k holding the
           previous advisory (next k = argmax(y1, y2, y3)), the control
           case(argmax(y1, y2, y3), y1, -y2, if(k == 3 or p > 1.05, 0.5 * y3, -0.5 * y3));
  bang     continuous, 10 periods of 0.1: a bang-bang control u = if(y1 <= 0, -1, 1) held over the
           period (the controls are enclosed in affine forms: undecided, the hull [-1, 1]);
  ifder    continuous: der v = if(p >= 0, -p - 0.2 v + u, 10) where every trajectory keeps
           p >= 0 (decided over every a-priori enclosure: the Taylor mode takes the branch);
  crossing continuous: der v = if(p >= 1, -p, -2 p + 1) (continuous, Lipschitz) crossed by the
           trajectories: the Taylor mode has no enclosure over a step whose a-priori box meets the
           switch, so it must not answer VERIFIED (UNKNOWN, 'flow' named as the cause).
Checks: 'always: p <= 100' with -o: every oracle state (discrete: at samples j and j + 1; continuous:
every RK4 point of period j) inside the tube box of period j of every piece holding its start; a
bound 5 % above the oracle's maximum of p never FALSIFIED, one 20 % below never VERIFIED; the planted
-closedloop_test_planted_shrink 0.5 (the test executable) puts oracle states outside (caught).  The
argmax case must use all three networks and hit every case branch in the oracle.  Bad piecewise
expressions are refused in one line, file:line:col, exit 2.
Usage: piecewise_soundness.py SIMREACH WORKDIR"""
import os
import subprocess
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from relu_nnet import write_relu_nnet  # noqa: E402

try:
    import h5py
except ImportError:
    print("piecewise_soundness: h5py missing, skipped")
    sys.exit(77)

simreach, work = sys.argv[1:3]
testhooks = os.environ.get("SIMREACH_TESTHOOKS", "")
os.makedirs(work, exist_ok=True)
HID, TOL, K = 16, 1e-9, 200
LO, HI = np.array([0.9, -0.1]), np.array([1.1, 0.1])
rng = np.random.default_rng(3508)


def write_net(path, nout, scale):
    W1 = rng.normal(0, 0.5, (HID, 2)); b1 = rng.normal(0, 0.1, HID)
    W2 = rng.normal(0, scale, (nout, HID)); b2 = rng.normal(0, 0.1, nout)
    return write_relu_nnet(path, W1, b1, W2, b2, f"piecewise_soundness: 2-{HID}-{nout} ReLU")


def o_ifnext(x, nets, steps):
    out = [x[:, :2]]
    for _ in range(steps):
        p, v = x[:, 0], x[:, 1]
        u = nets[0](x)[:, 0]
        c = (p <= 1) & ~(v < -0.02)
        x = np.stack([p + 0.1 * v, v + 0.1 * np.where(c, -p + u, -2 * p - 0.3 * v + u)], axis=1)
        out.append(x)
    return np.array(out), None


def o_argmax(x, nets, steps):
    x = np.hstack([x, np.ones((len(x), 1))])  # k = 1
    out, sel, used, branches = [x], np.zeros(len(x), int), set(), set()
    for _ in range(steps):
        p, v, k = x[:, 0], x[:, 1], x[:, 2]
        y = np.stack([n(x[:, :2]) for n in nets])[sel, np.arange(len(x))]
        used |= set(sel.tolist())
        a = np.argmax(y, axis=1)  # the first largest
        branches |= set(a.tolist())
        u = np.where(a == 0, y[:, 0], np.where(a == 1, -y[:, 1], np.where((k == 3) | (p > 1.05), 0.5 * y[:, 2], -0.5 * y[:, 2])))
        x = np.stack([p + 0.1 * v, 0.95 * v - 0.1 * p + 0.1 * u, a + 1.0], axis=1)
        sel = a
        out.append(x)
    return np.array(out), (used, branches)


def rk4(x, f, T, steps, ctrl, hook):
    h = T / K
    for j in range(steps):
        u = ctrl(x)
        for s in range(K + 1):
            hook(j, x)
            if s == K:
                break
            k1 = f(x, u); k2 = f(x + h / 2 * k1, u); k3 = f(x + h / 2 * k2, u); k4 = f(x + h * k3, u)
            x = x + h / 6 * (k1 + 2 * k2 + 2 * k3 + k4)
    return x


def f_bang(x, u):
    return np.stack([x[:, 1], -x[:, 0] - 0.2 * x[:, 1] + u], axis=1)


def f_ifder(x, u):
    p, v = x[:, 0], x[:, 1]
    return np.stack([v, np.where(p >= 0, -p - 0.2 * v + u, 10.0)], axis=1)


def f_cross(x, u):
    p, v = x[:, 0], x[:, 1]
    return np.stack([v, np.where(p >= 1, -p, -2 * p + 1) + 0.1 * u], axis=1)


HEAD = "states p v\noutputs {m}\ninput p\ninput v\n"
cases = {  # name: plant text, networks, outputs, discrete oracle or (field, control of y)
    "ifnext": (HEAD.format(m=1) + "control u = y1\nnext p = p + 0.1 * v\n"
               "next v = v + 0.1 * if(p <= 1 and not (v < -0.02), -p + u, -2 * p - 0.3 * v + u)\nperiod 0.1\nsteps 20\n", 1, 1, o_ifnext),
    "argmax": ("states p v k\noutputs 3\ninput p\ninput v\nselect argmax initial 1\n"
               "control u = case(argmax(y1, y2, y3), y1, -y2, if(k == 3 or p > 1.05, 0.5 * y3, -0.5 * y3))\n"
               "control a = argmax(y1, y2, y3)\nnext p = p + 0.1 * v\nnext v = 0.95 * v - 0.1 * p + 0.1 * u\nnext k = a\n"
               "period 0.1\nsteps 20\n", 3, 3, o_argmax),
    "bang": (HEAD.format(m=1) + "control u = if(y1 <= 0, -1, 1)\nder p = v\nder v = -p - 0.2 * v + u\nperiod 0.1\nsteps 10\n",
             1, 1, (f_bang, lambda y: np.where(y[:, 0] <= 0, -1.0, 1.0))),
    "ifder": (HEAD.format(m=1) + "control u = y1\nder p = v\nder v = if(p >= 0, -p - 0.2 * v + u, 10)\nperiod 0.1\nsteps 10\n",
              1, 1, (f_ifder, lambda y: y[:, 0])),
    "crossing": (HEAD.format(m=1) + "control u = y1\nder p = v\nder v = if(p >= 1, -p, -2 * p + 1) + 0.1 * u\nperiod 0.1\nsteps 10\n",
                 1, 1, (f_cross, lambda y: y[:, 0])),
}


def run(exe, plant, nets, spec, extra):
    cmd = [exe, "closedloop", "-plant", plant, "-network", ",".join(nets), "-spec", spec, "-closedloop_progress", "0",
           "-closedloop_max_depth", "8"] + extra
    r = subprocess.run(cmd, capture_output=True, text=True)
    if exe == testhooks:
        ended = {"with every piece proven under the fault": "VERIFIED", "with a counterexample": "FALSIFIED", "with open pieces": "UNKNOWN"}
        v = next((v for k, v in ended.items() if "PLANTED-FAULT" in r.stdout and k in r.stdout), None) if r.returncode == 7 else None
    else:
        v = next((w for w in ("VERIFIED", "FALSIFIED", "UNKNOWN") if f"closedloop: {w}" in r.stdout), None)
    if v is None:
        sys.exit(f"piecewise_soundness: {' '.join(cmd)} exit {r.returncode}\n{r.stdout}{r.stderr}")
    return v, r.stdout


def tube_escapes(h5, x0, points):
    """points: (period j, states (len(x0), n)) pairs; escapes from the tube of period j of every
    piece holding x0 (the first two coordinates: the other states start at a point)"""
    f = h5py.File(h5, "r")
    P, tubes = f["pieces"][...], f["tubes"][...]
    n = tubes.shape[2]
    hold = np.all((P[None, :, :2] <= x0[:, None, :]) & (x0[:, None, :] <= P[None, :, n:n + 2]), axis=2)
    bad, checked = 0, 0
    for j, x in points:
        tb = tubes[:, j]
        ok = ~np.isnan(tb).any(axis=(1, 2))
        d = np.max(np.maximum(tb[None, :, :, 0] - x[:, None, :], x[:, None, :] - tb[None, :, :, 1]), axis=2)
        m = hold & ok[None, :]
        bad += int((d[m] > TOL).sum()); checked += int(m.sum())
    return bad, checked


fails = 0
g = np.linspace(0, 1, 31)
x0 = LO + (HI - LO) * np.array([[a, b] for a in g for b in g])
for ci, (name, (text, nnet, nout, oracle)) in enumerate(cases.items()):
    rng = np.random.default_rng(3508 + ci)  # one stream per case: a case's networks do not depend on the others
    plant = os.path.join(work, f"{name}.txt")
    with open(plant, "w") as f:
        f.write(text)
    steps = 20 if callable(oracle) else 10
    for attempt in range(40):  # the argmax case: networks drawn until every network and branch occurs
        fns, nets = [], []
        for k in range(nnet):
            nets.append(os.path.join(work, f"{name}_net{k + 1}.nnet"))
            fns.append(write_net(nets[-1], nout, 0.4 if name != "argmax" else 1.0))
        if name != "argmax" or o_argmax(x0, fns, steps)[1] == ({0, 1, 2}, {0, 1, 2}):
            break
    if callable(oracle):  # discrete
        X, info = oracle(x0, fns, steps)
        points = [(j, X[j]) for j in range(steps)] + [(j, X[j + 1]) for j in range(steps)]
        pvals = X[..., 0]
        if info is not None:
            used, branches = info
            print(f"{name}: the oracle runs networks {sorted(u + 1 for u in used)} and case branches {sorted(b + 1 for b in branches)}")
            if used != {0, 1, 2} or branches != {0, 1, 2}:
                print("  every network and every branch must occur (test set-up)")
                fails += 1
    else:
        field, ctl = oracle
        pts = []
        rk4(x0, field, 0.1, steps, lambda x: ctl(fns[0](x)), lambda j, x: pts.append((j, x.copy())))
        points = pts
        pvals = np.array([x[:, 0] for _, x in pts])
        if name == "ifder" and not pvals.min() > 0.1:
            print(f"  ifder: the oracle's p reaches {pvals.min():.3f}, near the switch at 0 (test set-up)")
            fails += 1
    pmax, rngp = float(pvals.max()), float(pvals.max() - pvals.min())
    specs = {"tube": "always: p <= 100", "held": f"always: p <= {pmax + 0.05 * rngp:.9f}", "broken": f"always: p <= {pmax - 0.2 * rngp:.9f}"}
    init = "initial p in [0.9, 1.1]\ninitial v in [-0.1, 0.1]\n" + ("initial k in [1, 1]\n" if name == "argmax" else "")
    for sname, formula in specs.items():
        spec = os.path.join(work, f"{name}_{sname}.spec")
        with open(spec, "w") as f:
            f.write(init + formula + "\n")
        h5 = os.path.join(work, f"{name}_{sname}.h5")
        v, out = run(simreach, plant, nets, spec, ["-o", h5, "-force"] if sname == "tube" else [])
        if name == "crossing":  # no enclosure across the switch: never VERIFIED, the flow named
            wrong = v == "VERIFIED" or (sname == "tube" and (v != "UNKNOWN" or "validated flow over the period failed" not in out)) or (sname == "held" and v == "FALSIFIED")
            print(f"{name} {sname}: {formula}: simreach {v}{'  WRONG' if wrong else ''}")
            fails += wrong
            continue
        wrong = (sname == "broken" and v == "VERIFIED") or (sname == "held" and v == "FALSIFIED") or (sname == "tube" and v != "VERIFIED")
        line = f"{name} {sname}: {formula}: simreach {v}{'  WRONG' if wrong else ''}"
        if sname == "tube":
            e, c = tube_escapes(h5, x0, points)
            line += f"; {c} tube checks, {e} escapes"
            wrong |= e > 0 or c == 0
            v, _ = run(testhooks, plant, nets, spec, ["-o", h5 + ".planted.h5", "-force", "-closedloop_test_planted_shrink", "0.5"])
            e, c = tube_escapes(h5 + ".planted.h5", x0, points)
            line += f"\n  planted shrink 0.5: {e} escapes of {c} checks {'(caught)' if e else 'NOT CAUGHT'}"
            wrong |= e == 0
        print(line)
        fails += wrong

# refusals: one line naming file:line:col, exit 2, before any work
base = cases["bang"][0]
bad = ((base.replace("if(y1 <= 0, -1, 1)", "if(y1, -1, 1)"), ":5:18: expected a comparison (<=, <, >=, >, ==) in the condition"),
       (base.replace("if(y1 <= 0, -1, 1)", "if(0.1 <= 0.1, -1, 1)"), ":5:20: this comparison of constants is undecided"),
       (base.replace("if(y1 <= 0, -1, 1)", "if(y1 <= 0, -1)"), ":5:27: expected ','"),
       (base.replace("if(y1 <= 0, -1, 1)", "case(y1)"), ":5:13: case(I, V1, ..., Vk) needs an index and at least one value"),
       (base.replace("if(y1 <= 0, -1, 1)", "argmax(y1, y1 +)"), ":5:28: expected a name, found ')'"))
spec = os.path.join(work, "bang_tube.spec")
for k, (text, want) in enumerate(bad):
    plant = os.path.join(work, f"bad{k}.txt")
    with open(plant, "w") as f:
        f.write(text)
    r = subprocess.run([simreach, "closedloop", "-plant", plant, "-network", os.path.join(work, "bang_net1.nnet"), "-spec", spec], capture_output=True, text=True)
    ok = r.returncode == 2 and f"plant file {plant}{want}" in r.stdout + r.stderr and len((r.stdout + r.stderr).strip().splitlines()) == 1
    print(f"refused bad{k}: exit {r.returncode} {'ok' if ok else 'WRONG: ' + (r.stdout + r.stderr).strip()[:300]}")
    fails += not ok
print("FAIL" if fails else "PASS")
sys.exit(1 if fails else 0)
