#!/usr/bin/env python3
"""Soundness of the property language (SPEC §15 turn 4, issue 35 items 2 and 7): or, not (an
avoided box) and nonlinear atoms, each answer of simreach closedloop against an oracle written
apart from the C code.

The plant is a damped oscillator p' = v, v' = -p - 0.2 v + u closed by a random 2-16-1 ReLU network
(Stanford NNet, written here), period 0.1, 10 periods, X0 = [0.9, 1.1] x [-0.1, 0.1].  The oracle:
the plant by hand in NumPy, the network by a NumPy forward pass, RK4 with 50 steps per period from
a 61 x 61 grid of X0; each formula is evaluated at every RK4 point (always) or at the horizon
(at_end).  Cases:
  nl_true     always: sqrt(p^2 + v^2) <= 1.05 max|x|          (holds)
  or_true     at_end: p <= P or v >= V                         (holds: P, V from the oracle)
  disc_hit    always: sqrt((p - c)^2 + (v - d)^2) >= r         (broken: the disc is on the path of an
                                                                interior start point)
  box_hit     always: not (p in [..] and v in [..])           (broken the same way)
  box_true    always: not (p in [..] and v in [..])           (holds: the box is off every path)
An answer is wrong when it is VERIFIED and the oracle breaks the formula, or FALSIFIED and the
oracle holds it everywhere.  The runs must give no wrong answer; under the planted
-closedloop_test_planted_shrink 0.5 (it also shrinks the enclosures of nonlinear and negated
atoms; run through the test executable simreach_testhooks, which answers PLANTED-FAULT, exit 7,
and says how the split ended) at least one wrong VERIFIED must
appear (the fault is caught).  Usage: spec_soundness.py SIMREACH WORKDIR"""
import os
import subprocess
import sys

import numpy as np

simreach, work = sys.argv[1:3]
# the planted fault exists only in the test executable (docs/arch.md "Test build")
testhooks = os.environ.get("SIMREACH_TESTHOOKS", "")
os.makedirs(work, exist_ok=True)
T, STEPS, K, HID = 0.1, 10, 50, 16
rng = np.random.default_rng(35)
W1 = rng.normal(0, 0.4, (HID, 2)); b1 = rng.normal(0, 0.1, HID)
W2 = rng.normal(0, 0.3, (1, HID)); b2 = rng.normal(0, 0.1, 1)
net = os.path.join(work, "ctrl.nnet")
with open(net, "w") as f:
    f.write("// spec_soundness: 2-16-1 ReLU\n2,2,1,16\n2,16,1\n0\n-5,-5\n5,5\n0,0,0\n1,1,1\n")
    for W, b in ((W1, b1), (W2, b2)):
        for row in W:
            f.write(",".join(f"{x:.17g}" for x in row) + "\n")
        for x in b:
            f.write(f"{x:.17g}\n")
plant = os.path.join(work, "plant.txt")
with open(plant, "w") as f:
    f.write("states p v\noutputs 1\ninput p\ninput v\ncontrol u = y1\nder p = v\nder v = -p - 0.2 * v + u\n"
            f"period 0.1\nsteps {STEPS}\n")
LO, HI = np.array([0.9, -0.1]), np.array([1.1, 0.1])


def ctrl(x):
    h = np.maximum(np.clip(x, -5, 5) @ W1.T + b1, 0)
    return (h @ W2.T + b2)[:, 0]


def field(x, u):
    return np.stack([x[:, 1], -x[:, 0] - 0.2 * x[:, 1] + u], axis=1)


def simulate(x):
    """every RK4 point of every trajectory: (STEPS * K + 1, N, 2)"""
    out, h = [x.copy()], T / K
    for _ in range(STEPS):
        u = ctrl(x)
        for _ in range(K):
            k1 = field(x, u); k2 = field(x + h / 2 * k1, u); k3 = field(x + h / 2 * k2, u); k4 = field(x + h * k3, u)
            x = x + h / 6 * (k1 + 2 * k2 + 2 * k3 + k4)
            out.append(x.copy())
    return np.array(out)


g = np.linspace(0, 1, 61)
grid = LO + (HI - LO) * np.array([[a, b] for a in g for b in g])
star = LO + (HI - LO) * np.array([0.31, 0.73])  # an interior start point: not the centre, no corner
X = simulate(np.vstack([grid, star]))
p, v = X[..., 0], X[..., 1]
cases = {}
cases["nl_true"] = (f"always: sqrt(p^2 + v^2) <= {1.05 * np.sqrt(p**2 + v**2).max():.6f}", None)
Pend, Vend = p[-1], v[-1]
P = float(np.median(Pend)); V = float(Vend[Pend > P].min()) - 0.01
cases["or_true"] = (f"at_end: p <= {P:.6f} or v >= {V:.6f}", None)
c, d = X[5 * K, -1]  # the interior trajectory at t = 0.5
r = 0.004
cases["disc_hit"] = (f"always: sqrt((p - {c:.6f})^2 + (v - {d:.6f})^2) >= {r}", None)
cases["box_hit"] = (f"always: not (p in [{c - r:.6f}, {c + r:.6f}] and v in [{d - r:.6f}, {d + r:.6f}])", None)
off = np.abs(p).max() + 0.5
cases["box_true"] = (f"always: not (p in [{off:.6f}, {off + 1:.6f}] and v in [-1, 1])", None)
# a conjunction whose second atom is broken by some trajectory (the first holds everywhere):
# never VERIFIED; read as a disjunction it would be (issue 37's mutation list, spec_and_as_or)
R = 1.05 * float(np.sqrt(p**2 + v**2).max())
Vmax = float(np.median(v.max(axis=0)))
cases["and_hit"] = (f"always: sqrt(p^2 + v^2) <= {R:.6f} and v <= {Vmax:.6f}", None)


def oracle(name, text):
    """True when the formula holds on every oracle point"""
    if name == "nl_true":
        return bool((np.sqrt(p**2 + v**2) <= float(text.split("<=")[1])).all())
    if name == "or_true":
        return bool(((Pend <= P + 0) | (Vend >= V)).all())
    if name == "disc_hit":
        return bool((np.sqrt((p - c)**2 + (v - d)**2) >= r).all())
    inside = lambda lo1, hi1, lo2, hi2: (p >= lo1) & (p <= hi1) & (v >= lo2) & (v <= hi2)
    if name == "box_hit":
        return not inside(c - r, c + r, d - r, d + r).any()
    if name == "and_hit":
        return bool(((np.sqrt(p**2 + v**2) <= R) & (v <= Vmax)).all())
    return not inside(off, off + 1, -1, 1).any()


fails, wrong_planted = 0, 0
for planted in (False, True):
    for name, (formula, _) in cases.items():
        spec = os.path.join(work, f"{name}.txt")
        with open(spec, "w") as f:
            f.write("initial p in [0.9, 1.1]\ninitial v in [-0.1, 0.1]\n" + formula + "\n")
        cmd = [testhooks if planted else simreach, "closedloop", "-plant", plant, "-network", net, "-spec", spec, "-closedloop_progress", "0",
               "-closedloop_samples", "16", "-closedloop_max_depth", "10"]
        if planted:
            cmd += ["-closedloop_test_planted_shrink", "0.5"]
        res = subprocess.run(cmd, capture_output=True, text=True)
        verdict = next((w for w in ("VERIFIED", "FALSIFIED", "UNKNOWN") if f"closedloop: {w}" in res.stdout), None)
        if planted:  # the test executable answers PLANTED-FAULT, exit 7, and says how the split ended
            ended = {"with every piece proven under the fault": "VERIFIED", "with a counterexample": "FALSIFIED",
                     "with open pieces": "UNKNOWN"}
            verdict = next((v for k, v in ended.items() if "PLANTED-FAULT" in res.stdout and k in res.stdout), None)
            if res.returncode != 7:
                verdict = None
        if verdict is None:
            sys.exit(f"spec_soundness: {' '.join(cmd)} exit {res.returncode}\n{res.stdout}{res.stderr}")
        truth = oracle(name, formula)
        wrong = (verdict == "VERIFIED" and not truth) or (verdict == "FALSIFIED" and truth)
        print(f"{'planted ' if planted else ''}{name}: {formula}\n  simreach {verdict}, oracle {'holds' if truth else 'broken'}"
              f" on {p.shape[1]} trajectories x {p.shape[0]} points{'  WRONG' if wrong else ''}")
        if planted:
            wrong_planted += wrong
        else:
            fails += wrong
            if name.endswith("_hit") and truth:
                print("  the oracle should break this case (test set-up)")
                fails += 1
print(f"planted shrink 0.5: {wrong_planted} wrong answers {'(caught)' if wrong_planted else 'NOT CAUGHT'}")
# bad formulas: refused with one line naming file:line:col, exit 2, before any work
for body, want in (("always: not (p in [1, 2] and v <= 1", ":3:36: expected ')'"),
                   ("always: sinh(p) <= 1", ":3:9: 'sinh' is not a state"),
                   ("always: p <= 1 or", ":3:18: expected a number, a state"),
                   ("always: p^1.5 <= 1", ":3:11: expected an integer power"),
                   ("always: p <= 1 xor v <= 1", ":3:16: expected 'and', 'or' or the end of the line")):
    spec = os.path.join(work, "bad.txt")
    with open(spec, "w") as f:
        f.write("initial p in [0.9, 1.1]\ninitial v in [-0.1, 0.1]\n" + body + "\n")
    res = subprocess.run([simreach, "closedloop", "-plant", plant, "-network", net, "-spec", spec], capture_output=True, text=True)
    ok = res.returncode == 2 and f"spec file {spec}{want}" in res.stdout + res.stderr
    print(f"refused '{body}': exit {res.returncode} {'ok' if ok else 'WRONG: ' + (res.stdout + res.stderr).strip()[:300]}")
    fails += not ok
fails += wrong_planted == 0
print("FAIL" if fails else "PASS")
sys.exit(1 if fails else 0)
