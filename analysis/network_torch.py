#!/usr/bin/env python3
"""PyTorch <-> simreach network files (SPEC §10; layout in src/model/network_file.c and
analysis/abstraction-schema.md).

  write_network(path, seq, sys, model)  an nn.Sequential of Linear layers, each followed by
                                        at most one of Tanh, ReLU, Sigmoid, Identity -> our file
  read_network(path) -> (seq, sys, model)  our file (format 1 or 2) -> an nn.Sequential (float64)

Command line:
  network_torch.py train --sys pendulum --model dynamics --widths 32,32 --seed 0 --steps 300 --out net.h5
      [--act relu]  trains a float64 PyTorch network (hidden activation tanh, relu or sigmoid) on the system's open-loop step (dynamics: f(x) = x + N(x)
      fitted to the pendulum/Dubins/toy step with u = 0; controller: N fitted so that
      umax tanh(N(x)) follows the reference -K x law) and writes it;
  network_torch.py check --net net.h5 --simreach PATH [--points 64]
      reads the file back into PyTorch, checks the parameters survive the round trip, runs
      `simreach verify -network net.h5 -eval points` and checks that both implementations give
      the same N_phi(x) at the points (relative difference <= 1e-12).
Exit 77 (skip) when torch or h5py is missing, with a message."""
import argparse
import math
import os
import subprocess
import sys
import tempfile

try:
    import h5py
    import numpy as np
    import torch
    from torch import nn
except ImportError as e:  # the ctest skips cleanly
    print(f"network_torch.py: SKIP: {e} (install python3-torch and python3-h5py)")
    sys.exit(77)

FORMAT = "simreach-network-2"   # SPEC §13, §14: the activations of every layer
FORMAT1 = "simreach-network-1"  # tanh hidden layers, linear output; still read
ACT_MODULES = {"tanh": nn.Tanh, "relu": nn.ReLU, "sigmoid": nn.Sigmoid}
ACT_NAMES = {nn.Tanh: "tanh", nn.ReLU: "relu", nn.Sigmoid: "sigmoid", nn.Identity: "linear"}
DIMS = {"toy1d": 1, "pendulum": 2, "dubins": 3}
DOMAIN = {"toy1d": ([-2.0], [2.0]), "pendulum": ([-1.0, -2.0], [1.0, 2.0]),
          "dubins": ([-2.0, -1.0, -math.pi / 2], [2.0, 1.0, math.pi / 2])}


def _fixed(s):
    return np.bytes_(s)  # fixed-length string attributes (what simreach reads)


def activations_of(seq):
    """(Linear modules, one activation name per Linear) of an nn.Sequential."""
    lin, acts = [], []
    for m in seq:
        if isinstance(m, nn.Linear):
            lin.append(m)
            acts.append("linear")
        elif type(m) in ACT_NAMES and lin and acts[-1] == "linear":
            acts[-1] = ACT_NAMES[type(m)]
        elif isinstance(m, nn.Flatten) and not lin:
            continue
        else:
            raise ValueError(f"the network must be Linear layers each followed by at most one of "
                             f"Tanh, ReLU, Sigmoid, Identity; got {[type(x).__name__ for x in seq]}")
    if not lin:
        raise ValueError("the network has no Linear layer")
    return lin, acts


def write_network(path, seq, sysname, model, control_steps=1):
    """Write an nn.Sequential of Linear layers with any of Tanh/ReLU/Sigmoid/Identity after each."""
    lin, acts = activations_of(seq)
    widths = [lin[0].in_features] + [m.out_features for m in lin]
    tmp = path + ".part"
    with h5py.File(tmp, "w") as f:
        f.attrs["simreach_format"] = _fixed(FORMAT)
        f.attrs["sys"] = _fixed(sysname)
        f.attrs["model"] = _fixed(model)
        f.attrs["activations"] = _fixed(",".join(acts))
        f.attrs["control_steps"] = np.int64(control_steps)
        f["widths"] = np.asarray(widths, dtype=np.int64)
        for i, m in enumerate(lin):
            f[f"layers/{i}/weight"] = m.weight.detach().to(torch.float64).cpu().numpy()
            f[f"layers/{i}/bias"] = m.bias.detach().to(torch.float64).cpu().numpy()
    os.replace(tmp, path)


def _str(v):
    return v.decode() if isinstance(v, bytes) else str(v)


def read_network(path):
    """Our file (format 1 or 2) -> (nn.Sequential in float64, sys, model)."""
    with h5py.File(path, "r") as f:
        fmt = _str(f.attrs["simreach_format"])
        if fmt not in (FORMAT, FORMAT1):
            raise ValueError(f"{path}: format {fmt!r}, expected {FORMAT!r} or {FORMAT1!r}")
        sysname = _str(f.attrs["sys"])
        model = _str(f.attrs["model"])
        widths = [int(w) for w in f["widths"][()]]
        L = len(widths) - 1
        if fmt == FORMAT1:
            acts = ["tanh"] * (L - 1) + ["linear"]
        else:
            acts = _str(f.attrs["activations"]).split(",")
            if len(acts) != L:
                raise ValueError(f"{path}: {len(acts)} activations for {L} layers")
        layers = []
        for i in range(L):
            m = nn.Linear(widths[i], widths[i + 1]).to(torch.float64)
            with torch.no_grad():
                m.weight.copy_(torch.from_numpy(f[f"layers/{i}/weight"][()]))
                m.bias.copy_(torch.from_numpy(f[f"layers/{i}/bias"][()]))
            layers.append(m)
            if acts[i] != "linear":
                layers.append(ACT_MODULES[acts[i]]())
    return nn.Sequential(*layers), sysname, model


def _open_loop_step(sysname, x):
    """The true step of SPEC §2 with u = 0 (torch, float64)."""
    if sysname == "toy1d":
        return 0.9 * x + 0.25 * torch.sin(3 * x)
    if sysname == "pendulum":
        th, w = x[:, 0], x[:, 1]
        dt, g, b = 0.05, 9.81, 0.1
        w1 = w + dt * (g * torch.sin(th) - b * w)
        return torch.stack([th + dt * w1, w1], dim=1)
    px, py, h = x[:, 0], x[:, 1], x[:, 2]
    return torch.stack([px + 0.1 * torch.cos(h), py + 0.1 * torch.sin(h), h], dim=1)


def train(args):
    torch.manual_seed(args.seed)
    n = DIMS[args.sys]
    widths = [int(w) for w in args.widths.split(",")]
    nout = n if args.model == "dynamics" else 1
    sizes = [n] + widths + [nout]
    layers = []
    for i in range(len(sizes) - 1):
        layers.append(nn.Linear(sizes[i], sizes[i + 1]))
        if i < len(sizes) - 2:
            layers.append(ACT_MODULES[args.act]())
    seq = nn.Sequential(*layers).to(torch.float64)
    lo, hi = (torch.tensor(v, dtype=torch.float64) for v in DOMAIN[args.sys])
    opt = torch.optim.Adam(seq.parameters(), lr=1e-2)
    for step in range(args.steps):
        x = lo + (hi - lo) * torch.rand(256, n, dtype=torch.float64)
        if args.model == "dynamics":
            loss = ((x + seq(x) - _open_loop_step(args.sys, x)) ** 2).mean()
        else:  # a stabilising law -x.sum clipped by tanh: only a target to fit
            loss = ((torch.tanh(seq(x))[:, 0] + torch.tanh(x.sum(dim=1))) ** 2).mean()
        opt.zero_grad()
        loss.backward()
        opt.step()
    print(f"network_torch.py: trained {args.sys} {args.model} {sizes} for {args.steps} steps, loss {loss.item():.3e}")
    write_network(args.out, seq, args.sys, args.model)
    print(f"network_torch.py: wrote {args.out}")
    return 0


def check(args):
    seq, sysname, model = read_network(args.net)
    # round trip: write what was read, read again, parameters bit-identical
    with tempfile.TemporaryDirectory() as d:
        p2 = os.path.join(d, "again.h5")
        write_network(p2, seq, sysname, model)
        seq2, s2, m2 = read_network(p2)
        assert (s2, m2) == (sysname, model)
        for a, b in zip(seq.parameters(), seq2.parameters()):
            assert torch.equal(a, b), "parameters changed in the round trip"
        n = DIMS[sysname]
        lo, hi = (np.asarray(v) for v in DOMAIN[sysname])
        rng = np.random.default_rng(1)
        pts = lo + (hi - lo) * rng.random((args.points, n))
        ptsf = os.path.join(d, "points.txt")
        np.savetxt(ptsf, pts, fmt="%.17g")
        out = subprocess.run([args.simreach, "verify", "-network", args.net, "-eval", ptsf],
                             check=True, capture_output=True, text=True).stdout
    rows = [l.split() for l in out.splitlines() if l.startswith("N ")]
    assert len(rows) == args.points, f"simreach printed {len(rows)} rows for {args.points} points:\n{out}"
    with torch.no_grad():
        ref = seq(torch.from_numpy(pts)).numpy()
    worst = 0.0
    for i, r in enumerate(rows):
        k = r.index("f")
        ours = np.asarray([float(v) for v in r[1:k]])
        err = np.max(np.abs(ours - ref[i]) / np.maximum(1.0, np.abs(ref[i])))
        worst = max(worst, err)
    print(f"network_torch.py: {args.points} points, largest relative difference PyTorch vs simreach {worst:.3e}")
    if not worst <= 1e-12:
        print("network_torch.py: FAIL: the implementations disagree")
        return 1
    print("network_torch.py: round trip and outputs agree")
    return 0


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = ap.add_subparsers(dest="cmd", required=True)
    t = sub.add_parser("train")
    t.add_argument("--sys", default="pendulum", choices=sorted(DIMS))
    t.add_argument("--model", default="dynamics", choices=["dynamics", "controller"])
    t.add_argument("--widths", default="32,32")
    t.add_argument("--act", default="tanh", choices=sorted(ACT_MODULES))
    t.add_argument("--seed", type=int, default=0)
    t.add_argument("--steps", type=int, default=300)
    t.add_argument("--out", required=True)
    c = sub.add_parser("check")
    c.add_argument("--net", required=True)
    c.add_argument("--simreach", required=True)
    c.add_argument("--points", type=int, default=64)
    a = ap.parse_args()
    return train(a) if a.cmd == "train" else check(a)


if __name__ == "__main__":
    sys.exit(main())
