#!/usr/bin/env python3
"""The ARCH-COMP 2022 AINNCS instances added by issue 35 (jobs/arch), answered as published.

- Single Pendulum, Double Pendulum less and more robust, Airplane: FALSIFIED, exit 6, from the NNet file and from
  the ONNX twin, on 1 rank and on 2 ranks (the same counterexample); the counterexample printed
  is re-simulated here (NumPy RK4 of the plant written by hand, the network by a NumPy forward
  pass of the ONNX graph) and must break the spec's box.
- TORA heterogeneous relu-tanh and sigmoid (POLAR text controllers): VERIFIED, exit 0, on 1 and
  2 ranks; the tubes `-o` stores must hold the trajectories of a NumPy oracle written apart from
  the C code (the POLAR text read here, RK4 with 200 steps per period from the 16 corners of X0
  and 200 random points; tolerance 1e-7), every simulated end point must lie in the goal, and
  the planted -closedloop_test_planted_shrink 0.5 must be caught.
- VCAS (discrete time, nine networks): hd(0) = -19.5, -22.5 VERIFIED (tubes against a NumPy oracle
  of 4,003 start points, planted shrink caught), -25.5, -28.5 FALSIFIED (the counterexample
  re-simulated), on 1 and 2 ranks.
- QUAD: JuliaReach's X0 (1 % of the published radius) VERIFIED on 1 and 2 ranks (tubes against a
  NumPy RK4 oracle, planted shrink caught); the published X0 UNKNOWN at its split budget.
Usage: arch_verdicts.py SIMREACH SRCDIR WORKDIR MPIEXEC [MPIEXEC_ARGS ...]"""
import os
import re
import subprocess
import sys

import numpy as np

try:
    import h5py
    import onnx
    from onnx import numpy_helper
except ImportError as e:
    print(f"arch_verdicts: skipped ({e})")
    sys.exit(77)

simreach, src, work = sys.argv[1:4]
mpiexec = sys.argv[4:]
os.makedirs(work, exist_ok=True)
testhooks = os.environ.get("SIMREACH_TESTHOOKS", "")
A = os.path.join(src, "jobs", "arch")
TOL = 1e-7
fails = 0


def fail(msg):
    global fails
    print("FAIL:", msg)
    fails += 1


def run(name, net, np_, extra=(), out=None):
    d = os.path.join(A, name)
    # the planted fault exists only in the test executable, which answers PLANTED-FAULT, exit 7
    cmd = [testhooks if extra else simreach, "closedloop", "-plant", os.path.join(d, "plant.txt"), "-network", os.path.join(d, net),
           "-spec", os.path.join(d, "spec.txt"), "-closedloop_progress", "0"] + open(os.path.join(d, "options")).read().split()
    if out:
        cmd += ["-o", out, "-force"]
    if np_ > 1:
        cmd = mpiexec[:1] + ["-n", str(np_)] + mpiexec[1:] + cmd
    r = subprocess.run(cmd + list(extra), capture_output=True, text=True)
    return r.returncode, r.stdout + r.stderr


# ---------------------------------------------------------------- oracles
def onnx_net(path):
    m = onnx.load(path)
    init = {t.name: numpy_helper.to_array(t).astype(np.float64) for t in m.graph.initializer}
    inp = [i.name for i in m.graph.input if i.name not in init][0]

    def f(x):
        v = dict(init)
        v[inp] = x
        for nd in m.graph.node:
            a = [v[i] for i in nd.input]
            v[nd.output[0]] = {"MatMul": lambda: a[0] @ a[1], "Add": lambda: a[0] + a[1],
                               "Relu": lambda: np.maximum(a[0], 0)}[nd.op_type]()
        return v[m.graph.output[0].name]
    return f


def polar_net(path, acts):
    v = [float(l) for l in open(path) if l.strip()]
    nin, nout, nh = int(v[0]), int(v[1]), int(v[2])
    sizes = [nin] + [int(x) for x in v[3:3 + nh]] + [nout]
    i, layers = 3 + nh, []
    for l in range(nh + 1):
        W, b = np.zeros((sizes[l + 1], sizes[l])), np.zeros(sizes[l + 1])
        for r in range(sizes[l + 1]):
            W[r] = v[i:i + sizes[l]]; i += sizes[l]
            b[r] = v[i]; i += 1
        layers.append((W, b))
    off, sc = v[i], v[i + 1]
    fn = {"relu": lambda z: np.maximum(z, 0), "tanh": np.tanh, "sigmoid": lambda z: 1 / (1 + np.exp(-z))}

    def f(x):
        h = x
        for (W, b), a in zip(layers, acts):
            h = fn[a](h @ W.T + b)
        return (h - off) * sc
    return f


def cols(*c):
    return np.stack(c, axis=-1)


def dp_field(x, u):  # dynamics_dp.m
    t1, t2, v1, v2 = x.T
    T1, T2 = u[:, 0], u[:, 1]
    s, c = np.sin(t1 - t2), np.cos(t1 - t2)
    inner = s * v1 ** 2 + 8 * T2 + 2 * np.sin(t2) - c * (-(s * v2 ** 2) / 2 + 4 * T1 + 2 * np.sin(t1))
    return cols(v1, v2, 4 * T1 + 2 * np.sin(t1) - (v2 ** 2 * s) / 2 + c * inner / (2 * (c ** 2 / 2 - 1)),
                -inner / (c ** 2 / 2 - 1))


def airplane_field(x, a):  # dynamics.m, matrices multiplied out here
    X, Y, Z, u, v, w, phi, th, psi, r, p, q = x.T
    Fx, Fy, Fz, Mx, My, Mz = a.T
    cps, sps, cth, sth, cph, sph = np.cos(psi), np.sin(psi), np.cos(th), np.sin(th), np.cos(phi), np.sin(phi)
    Tpsi = np.array([[cps, -sps, 0 * cps], [sps, cps, 0 * cps], [0 * cps, 0 * cps, 1 + 0 * cps]])
    Tth = np.array([[cth, 0 * cth, sth], [0 * cth, 1 + 0 * cth, 0 * cth], [-sth, 0 * cth, cth]])
    Tph = np.array([[1 + 0 * cph, 0 * cph, 0 * cph], [0 * cph, cph, -sph], [0 * cph, sph, cph]])
    M1 = np.einsum("ijn,jkn,kln->iln", Tpsi, Tth, Tph)
    M2 = np.array([[cth, sth * sph, sth * cph], [0 * cth, cth * cph, -cth * sph], [0 * cth, sph, cph]]) / cth
    d123 = np.einsum("ijn,jn->in", M1, np.array([u, v, w]))
    d789 = np.einsum("ijn,jn->in", M2, np.array([p, q, r]))
    return cols(d123[0], d123[1], d123[2], -sth + Fx - q * w + r * v, cth * sph + Fy - r * u + p * w,
                cth * cph + Fz - p * v + q * u, d789[0], d789[1], d789[2], Mz, Mx, My)


def tora_field(x, u):
    return cols(x[:, 1], -x[:, 0] + 0.1 * np.sin(x[:, 2]), x[:, 3], u[:, 0])


def simulate(x, ctrl, field, T, steps, K=200, hook=None):
    for j in range(steps):
        u = ctrl(x)
        h = T / K
        for s in range(K + 1):
            if hook:
                hook(j, s, x)
            if s == K:
                break
            k1 = field(x, u)
            k2 = field(x + h / 2 * k1, u)
            k3 = field(x + h / 2 * k2, u)
            k4 = field(x + h * k3, u)
            x = x + h / 6 * (k1 + 2 * k2 + 2 * k3 + k4)
    return x


# ---------------------------------------------------------------- FALSIFIED instances
def pendulum_field(x, u):  # dynamics_sp.m, m = l = 0.5, g = 1, c = 0
    return cols(x[:, 1], 2.0 * np.sin(x[:, 0]) + u[:, 0] / 0.125)


FALS = [  # name, files, oracle field, control of y, period, steps, box (state index, lo, hi), window
    ("pendulum", ["controller_single_pendulum.nnet", "controller_single_pendulum.onnx"],
     pendulum_field, lambda y: y, 0.05, 20, [(0, 0.0, 1.0)], (0.5, 1.0)),
    ("double_pendulum_less", ["controller_double_pendulum_less_robust.nnet", "controller_double_pendulum_less_robust.onnx"],
     dp_field, lambda y: y, 0.05, 20, [(i, -1.0, 1.7) for i in range(4)], None),
    ("double_pendulum_more", ["controller_double_pendulum_more_robust.nnet", "controller_double_pendulum_more_robust.onnx"],
     dp_field, lambda y: y, 0.02, 20, [(i, -0.5, 1.5) for i in range(4)], None),
    ("airplane", ["controller_airplane.nnet", "controller_airplane.onnx"],
     airplane_field, lambda y: y, 0.1, 20, [(1, -0.5, 0.5), (6, -1.0, 1.0), (7, -1.0, 1.0), (8, -1.0, 1.0)], None),
]
for name, nets, field, ctl, T, steps, box, win in FALS:
    onx = onnx_net(os.path.join(A, name, nets[1]))
    for net in nets:
        seen = {}
        for np_ in (1, 2):
            rc, out = run(name, net, np_)
            m = re.search(r"FALSIFIED: the trajectory from \(([^)]*)\)", out)
            if rc != 6 or not m:
                fail(f"{name} {net} {np_} rank(s): want FALSIFIED exit 6, got exit {rc}: {out[-300:]}")
                continue
            seen[np_] = m.group(1)
        if len(seen) == 2 and seen[1] != seen[2]:
            fail(f"{name} {net}: 1 and 2 ranks give different counterexamples: {seen[1]} / {seen[2]}")
        if 1 in seen:
            x0 = np.array([[float(t.split("=")[1]) for t in seen[1].split(",")]])
            worst = [-np.inf]

            def hook(j, s, x):
                t = (j + s / 200) * T
                if win and not (win[0] <= t <= win[1]):
                    return
                for i, lo, hi in box:
                    worst[0] = max(worst[0], float(lo - x[0, i]), float(x[0, i] - hi))
            simulate(x0, lambda x: ctl(onx(x)), field, T, steps, hook=hook)
            if not worst[0] > 0:
                fail(f"{name} {net}: the counterexample does not break the box in the NumPy oracle (margin {worst[0]:.3g})")
            print(f"{name} ({net}): FALSIFIED on 1 and 2 ranks from ({seen[1]}); the oracle's trajectory leaves the box by {worst[0]:.3g}")

# ---------------------------------------------------------------- VERIFIED instances
VER = [("tora_relu_tanh", "nn_tora_relu_tanh.txt", ["relu", "relu", "relu", "tanh"], lambda y: y),
       ("tora_sigmoid", "nn_tora_sigmoid.txt", ["sigmoid"] * 4, lambda y: 0.5 * y + 5.5)]
for name, net, acts, ctl in VER:
    f = polar_net(os.path.join(A, name, net), acts)
    for np_ in (1, 2):
        rc, out = run(name, net, np_)
        if rc != 0 or "VERIFIED" not in out:
            fail(f"{name} {np_} rank(s): want VERIFIED exit 0, got exit {rc}: {out[-300:]}")
    for planted in (False, True):
        h5 = os.path.join(work, f"{name}{'_planted' if planted else ''}.h5")
        rc, out = run(name, net, 1, ["-closedloop_test_planted_shrink", "0.5"] if planted else [], out=h5)
        if planted and (rc != 7 or "PLANTED-FAULT" not in out):
            fail(f"{name}: planted run: want PLANTED-FAULT exit 7, got exit {rc}: {out[-300:]}")
        F = h5py.File(h5, "r")
        P, tubes = F["pieces"][...], F["tubes"][...]
        n = tubes.shape[2]
        lo, hi = P[:, :n], P[:, n:2 * n]
        X0lo, X0hi = lo.min(0), hi.max(0)
        rng = np.random.default_rng(7)
        corners = X0lo + (X0hi - X0lo) * np.array([[(c >> i) & 1 for i in range(n)] for c in range(2 ** n)])
        x = np.vstack([corners, X0lo + (X0hi - X0lo) * rng.random((200, n))])
        hold = np.all((lo[None] <= x[:, None]) & (x[:, None] <= hi[None]), axis=2)
        st = {"esc": 0, "chk": 0, "worst": -np.inf}

        def hook(j, s, xx):
            tb = tubes[:, j]
            ok = ~np.isnan(tb).any(axis=(1, 2))
            d = np.max(np.maximum(tb[None, :, :, 0] - xx[:, None, :], xx[:, None, :] - tb[None, :, :, 1]), axis=2)
            m = hold & ok[None, :]
            if m.any():
                st["worst"] = max(st["worst"], d[m].max())
                st["esc"] += int((d[m] > TOL).sum())
                st["chk"] += int(m.sum())
        xe = simulate(x, lambda z: ctl(f(z)), tora_field, 0.5, 10, hook=hook)
        if planted:
            print(f"  planted shrink 0.5: {st['esc']} escapes of {st['chk']} {'(caught)' if st['esc'] else 'NOT CAUGHT'}")
            if not st["esc"]:
                fail(f"{name}: planted shrink not caught")
        else:
            goal = (xe[:, 0] >= -0.1) & (xe[:, 0] <= 0.2) & (xe[:, 1] >= -0.9) & (xe[:, 1] <= -0.6)
            print(f"{name}: VERIFIED on 1 and 2 ranks; {st['chk']} tube checks, {st['esc']} escapes, largest excess "
                  f"{st['worst']:.3g}; {int(goal.sum())} of {len(xe)} simulated end points in the goal")
            if st["esc"]:
                fail(f"{name}: {st['esc']} tube escapes")
            if not goal.all():
                fail(f"{name}: a simulated end point misses the goal, yet VERIFIED")

# ---------------------------------------------------------------- VCAS (discrete time, nine networks)
# The oracle is written from the benchmark's description (Specifications.txt, planeDynamics.m and
# the advisory rules of JuliaReach's model, docs/arch.md), not from jobs/arch/vcas/plant.txt: per
# start point the previous advisory adv (1 = COC) picks network adv, the new advisory is the first
# largest of its nine scores on (h / 16000, hd / 5000, (tau - 20) / 40), the acceleration is 0 when
# the advisory repeats and 60 hd complies with it, else the advisory's middle acceleration.
def vcas_net(path):
    m = onnx.load(path)
    init = {t.name: numpy_helper.to_array(t).astype(np.float64) for t in m.graph.initializer}
    ops = [(nd.op_type, list(nd.input)) for nd in m.graph.node]
    if [o for o, _ in ops] != ["Sub"] + ["Conv", "Relu"] * 5 + ["Conv", "Flatten"]:
        sys.exit(f"arch_verdicts: {path}: unexpected graph {[o for o, _ in ops]}")
    mean = init[ops[0][1][1]].reshape(-1)
    layers = [(init[i[1]].reshape(init[i[1]].shape[0], -1), init[i[2]]) for o, i in ops if o == "Conv"]

    def f(x):
        z = x - mean
        for k, (W, b) in enumerate(layers):
            z = z @ W.T + b
            if k + 1 < len(layers):
                z = np.maximum(z, 0)
        return z
    return f


G = 32.2
ACC = np.array([0, -7 * G / 24, 7 * G / 24, -7 * G / 24, 7 * G / 24, -G / 3, G / 3, -G / 3, G / 3])
COMPLY = [lambda r: np.zeros_like(r, bool), lambda r: r <= 0, lambda r: r >= 0, lambda r: r <= -1500, lambda r: r >= 1500,
          lambda r: r <= -1500, lambda r: r >= 1500, lambda r: r <= -2500, lambda r: r >= 2500]


def vcas_oracle(h0, hd0, nets):
    x = np.stack([h0, np.full_like(h0, hd0), np.full_like(h0, 25.0), np.ones_like(h0)], axis=1)
    out = [x.copy()]
    for _ in range(10):
        adv = x[:, 3].astype(int) - 1
        inp = np.stack([x[:, 0] / 16000, x[:, 1] / 5000, (x[:, 2] - 20) / 40], axis=1)
        y = np.empty((len(x), 9))
        for k in range(9):
            y[adv == k] = nets[k](inp[adv == k])
        new = np.argmax(y, axis=1)  # the first largest
        comply = np.array([COMPLY[a](60 * hd) for a, hd in zip(new, x[:, 1])])
        acc = np.where((new == adv) & comply, 0.0, ACC[new])
        x = np.stack([x[:, 0] - x[:, 1] - 0.5 * acc, x[:, 1] + acc, x[:, 2] - 1, new + 1.0], axis=1)
        out.append(x.copy())
    return np.array(out)


vdir = os.path.join(A, "vcas")
vfiles = [os.path.join(vdir, f"VertCAS_noResp_pra0{k}_v9_20HU_200.onnx") for k in range(1, 10)]
vnets = [vcas_net(p) for p in vfiles]


def run_vcas(inst, np_, exe=None, extra=()):
    cmd = [exe or simreach, "closedloop", "-plant", os.path.join(vdir, "plant.txt"), "-network", ",".join(vfiles),
           "-spec", os.path.join(A, inst, "spec.txt"), "-closedloop_progress", "0"] + open(os.path.join(A, inst, "options")).read().split()
    if np_ > 1:
        cmd = mpiexec[:1] + ["-n", str(np_)] + mpiexec[1:] + cmd
    r = subprocess.run(cmd + list(extra), capture_output=True, text=True)
    return r.returncode, r.stdout + r.stderr


h0 = np.concatenate([np.linspace(-133, -129, 4001), [-133.0, -129.0]])
for inst, hd0, want in (("vcas_19_5", -19.5, "VERIFIED"), ("vcas_22_5", -22.5, "VERIFIED"),
                        ("vcas_25_5", -25.5, "FALSIFIED"), ("vcas_28_5", -28.5, "FALSIFIED")):
    X = vcas_oracle(h0, hd0, vnets)
    broken = (np.abs(X[:, :, 0]) <= 100).any(axis=0)
    seen = {}
    for np_ in (1, 2):
        rc, out = run_vcas(inst, np_)
        m = re.search(r"FALSIFIED: the trajectory from \(([^)]*)\)", out)
        if want == "VERIFIED" and (rc != 0 or "closedloop: VERIFIED" not in out):
            fail(f"{inst} {np_} rank(s): want VERIFIED exit 0, got exit {rc}: {out[-300:]}")
        if want == "FALSIFIED":
            if rc != 6 or not m:
                fail(f"{inst} {np_} rank(s): want FALSIFIED exit 6, got exit {rc}: {out[-300:]}")
            else:
                seen[np_] = m.group(1)
    if want == "VERIFIED":
        if broken.any():
            fail(f"{inst}: VERIFIED, yet {int(broken.sum())} oracle trajectories enter |h| <= 100")
        line = f"{inst}: VERIFIED on 1 and 2 ranks; the oracle's {len(h0)} trajectories keep |h| > 100 (closest {np.abs(X[:, :, 0]).min():.2f} ft)"
        for planted in (False, True):
            h5 = os.path.join(work, f"{inst}{'_planted' if planted else ''}.h5")
            rc, out = run_vcas(inst, 1, testhooks if planted else None, ["-o", h5, "-force"] + (["-closedloop_test_planted_shrink", "0.5"] if planted else []))
            F = h5py.File(h5, "r")
            P, tubes = F["pieces"][...], F["tubes"][...]
            hold = (P[None, :, 0] <= h0[:, None]) & (h0[:, None] <= P[None, :, 4])
            esc, chk, worst = 0, 0, -np.inf
            for j in range(10):
                tb = tubes[:, j]
                ok = ~np.isnan(tb).any(axis=(1, 2))
                for x in (X[j], X[j + 1]):
                    d = np.max(np.maximum(tb[None, :, :, 0] - x[:, None, :], x[:, None, :] - tb[None, :, :, 1]), axis=2)
                    mk = hold & ok[None, :]
                    worst = max(worst, float(d[mk].max())) if mk.any() else worst
                    esc += int((d[mk] > TOL).sum()); chk += int(mk.sum())
            if planted:
                line += f"\n  planted shrink 0.5: {esc} escapes of {chk} {'(caught)' if esc else 'NOT CAUGHT'}"
                if not esc or rc != 7:
                    fail(f"{inst}: planted shrink not caught (exit {rc})")
            else:
                line += f"; {chk} tube checks, {esc} escapes, largest excess {worst:.3g}"
                if esc or not chk:
                    fail(f"{inst}: {esc} tube escapes of {chk}")
        print(line)
    else:
        if not broken.any():
            fail(f"{inst}: the oracle finds no trajectory entering |h| <= 100")
        if len(seen) == 2 and seen[1] != seen[2]:
            fail(f"{inst}: 1 and 2 ranks give different counterexamples: {seen[1]} / {seen[2]}")
        if 1 in seen:
            x0 = dict(t.strip().split(" = ") for t in seen[1].split(","))
            Xc = vcas_oracle(np.array([float(x0["h"])]), float(x0["hd"]), vnets)
            k = np.flatnonzero(np.abs(Xc[:, 0, 0]) <= 100)
            if not len(k):
                fail(f"{inst}: the counterexample ({seen[1]}) keeps |h| > 100 in the oracle")
            else:
                print(f"{inst}: FALSIFIED on 1 and 2 ranks from ({seen[1]}); the oracle's trajectory reaches h = {Xc[k[0], 0, 0]:.2f} at step {k[0]}"
                      f" ({int(broken.sum())} of {len(h0)} oracle start points break the property)")

# ---------------------------------------------------------------- QUAD (12 states)
# The rigid-body reading of dynamics.m (docs/arch.md "QUAD"), written here from Beard's model, the
# controller by a NumPy pass over the ONNX graph (Gemm, Sigmoid).  quad_small (JuliaReach's X0, 1 %
# of the published radius): VERIFIED on 1 and 2 ranks, the tubes hold the oracle's trajectories from
# the 64 corners and 200 random points of X0, the planted shrink is caught.  quad as published:
# UNKNOWN at its split budget (never VERIFIED or FALSIFIED without a trajectory that misses).
def gemm_net(path):
    m = onnx.load(path)
    init = {t.name: numpy_helper.to_array(t).astype(np.float64) for t in m.graph.initializer}
    inp = [i.name for i in m.graph.input if i.name not in init][0]

    def f(x):
        v = dict(init)
        v[inp] = x
        for nd in m.graph.node:
            a = [v[i] for i in nd.input]
            tb = [at.i for at in nd.attribute if at.name == "transB"]
            v[nd.output[0]] = {"Gemm": lambda: a[0] @ (a[1].T if tb and tb[0] else a[1]) + a[2],
                               "Sigmoid": lambda: 1 / (1 + np.exp(-a[0]))}[nd.op_type]()
        return v[m.graph.output[0].name]
    return f


def quad_field(x, u):
    g, m, Jx, Jy, Jz = 9.81, 1.4, 0.054, 0.054, 0.104
    x1, x2, x3, x4, x5, x6, x7, x8, x9, x10, x11, x12 = x.T
    s7, c7, s8, c8, s9, c9 = np.sin(x7), np.cos(x7), np.sin(x8), np.cos(x8), np.sin(x9), np.cos(x9)
    return cols(c8 * c9 * x4 + (s7 * s8 * c9 - c7 * s9) * x5 + (c7 * s8 * c9 + s7 * s9) * x6,
                c8 * s9 * x4 + (s7 * s8 * s9 + c7 * c9) * x5 + (c7 * s8 * s9 - s7 * c9) * x6,
                s8 * x4 - s7 * c8 * x5 - c7 * c8 * x6,
                x12 * x5 - x11 * x6 - g * s8,
                x10 * x6 - x12 * x4 + g * c8 * s7,
                x11 * x4 - x10 * x5 + g * c8 * c7 - g - u[:, 0] / m,
                x10 + s7 * s8 / c8 * x11 + c7 * s8 / c8 * x12,
                c7 * x11 - s7 * x12,
                (s7 * x11 + c7 * x12) / c8,
                (Jy - Jz) * x11 * x12 / Jx + u[:, 1] / Jx,
                (Jz - Jx) * x10 * x12 / Jy + u[:, 2] / Jy,
                (Jx - Jy) * x10 * x11 / Jz)


qdir = os.path.join(A, "quad")
qnet = gemm_net(os.path.join(qdir, "quad_controller_3_64_torch.onnx"))


def run_quad(inst, np_, exe=None, extra=()):
    cmd = [exe or simreach, "closedloop", "-plant", os.path.join(qdir, "plant.txt"), "-network", os.path.join(qdir, "quad_controller_3_64_torch.onnx"),
           "-spec", os.path.join(A, inst, "spec.txt"), "-closedloop_progress", "0"] + open(os.path.join(A, inst, "options")).read().split()
    if np_ > 1:
        cmd = mpiexec[:1] + ["-n", str(np_)] + mpiexec[1:] + cmd
    r = subprocess.run(cmd + list(extra), capture_output=True, text=True)
    return r.returncode, r.stdout + r.stderr


for inst, r0 in (("quad_small", 0.004), ("quad", 0.4)):
    rng = np.random.default_rng(12)
    c6 = np.array([[(c >> i) & 1 for i in range(6)] for c in range(64)]) * 2 * r0 - r0
    x = np.zeros((264, 12))
    x[:, :6] = np.vstack([c6, rng.uniform(-r0, r0, (200, 6))])
    for np_ in (1, 2):
        rc, out = run_quad(inst, np_)
        want = (0, "closedloop: VERIFIED") if inst == "quad_small" else (5, "closedloop: UNKNOWN")
        if rc != want[0] or want[1] not in out:
            fail(f"{inst} {np_} rank(s): want {want[1]} exit {want[0]}, got exit {rc}: {out[-300:]}")
    if inst == "quad":
        xe = simulate(x, qnet, quad_field, 0.1, 50)
        miss = int(((xe[:, 2] < 0.94) | (xe[:, 2] > 1.06)).sum())
        print(f"quad (published X0): UNKNOWN on 1 and 2 ranks (as expected at -closedloop_max_depth 3); {miss} of {len(xe)} oracle end points miss the goal")
        continue
    line = f"{inst}: VERIFIED on 1 and 2 ranks"
    for planted in (False, True):
        h5 = os.path.join(work, f"{inst}{'_planted' if planted else ''}.h5")
        rc, out = run_quad(inst, 1, testhooks if planted else None, ["-o", h5, "-force"] + (["-closedloop_test_planted_shrink", "0.5"] if planted else []))
        F = h5py.File(h5, "r")
        P, tubes = F["pieces"][...], F["tubes"][...]
        hold = np.all((P[None, :, :12] <= x[:, None]) & (x[:, None] <= P[None, :, 12:24]), axis=2)
        st = {"esc": 0, "chk": 0, "worst": -np.inf}

        def hook(j, s, xx):
            tb = tubes[:, j]
            ok = ~np.isnan(tb).any(axis=(1, 2))
            d = np.max(np.maximum(tb[None, :, :, 0] - xx[:, None, :], xx[:, None, :] - tb[None, :, :, 1]), axis=2)
            mk = hold & ok[None, :]
            if mk.any():
                st["worst"] = max(st["worst"], d[mk].max())
                st["esc"] += int((d[mk] > TOL).sum())
                st["chk"] += int(mk.sum())
        xe = simulate(x, qnet, quad_field, 0.1, 50, K=50, hook=hook)
        if planted:
            line += f"\n  planted shrink 0.5: {st['esc']} escapes of {st['chk']} {'(caught)' if st['esc'] else 'NOT CAUGHT'}"
            if not st["esc"] or rc != 7:
                fail(f"{inst}: planted shrink not caught (exit {rc})")
        else:
            goal = (xe[:, 2] >= 0.94) & (xe[:, 2] <= 1.06)
            line += f"; {st['chk']} tube checks, {st['esc']} escapes, largest excess {st['worst']:.3g}; {int(goal.sum())} of {len(xe)} end points in the goal"
            if st["esc"] or not st["chk"] or not goal.all():
                fail(f"{inst}: {st['esc']} tube escapes of {st['chk']}, {int((~goal).sum())} end points outside the goal")
    print(line)
print("FAIL" if fails else "PASS")
sys.exit(1 if fails else 0)
