#!/usr/bin/env python3
"""PyTorch <-> simreach network files (SPEC §10, §13, §14; layout in src/model/network_file.c and
analysis/abstraction-schema.md).

  write_network(path, seq, sys, model, control_steps=1, sys_param=None, sys_dt=None, sys_umax=None)
        an nn.Sequential of Linear layers, each followed by at most one of Tanh, ReLU, Sigmoid,
        Identity, optionally led by an InputTransform (NNet clipping and normalisation) and ended
        by an OutputTransform (scaling, offset) -> our file, format 3: the closed loop it belongs
        to (system, constants, u_max, control_steps; the table's constants when not given) and a
        checksum per dataset and over the header
  read_network(path) -> (seq, sys, model)   our file (format 1, 2 or 3; format 3's checksums
        and domain checked) -> an nn.Sequential (float64) with the transforms as modules
  read_closed_loop(path) -> dict            sys, model, control_steps, sys_param, sys_dt, sys_umax

Command line:
  network_torch.py train --sys pendulum --model dynamics --widths 32,32 --seed 0 --steps 300 --out net.h5
      [--act relu]  trains a float64 PyTorch network (hidden activation tanh, relu or sigmoid) on the system's open-loop step (dynamics: f(x) = x + N(x)
      fitted to the pendulum/Dubins/toy step with u = 0; controller: N fitted so that
      tanh(N(x)) follows a stabilising -x law: a fit target only; simreach applies umax tanh(N)
      to a tanh network of its own and clip(N, -umax, umax) to any other: docs/networks.md) and
      writes it;
  network_torch.py roundtrip --net net.h5 --out again.h5
      imports our file into PyTorch and exports it again (closed loop, activations, transforms);
  network_torch.py check --net net.h5 --simreach PATH [--points 64]
      reads the file back into PyTorch, checks the parameters and the closed loop survive the
      round trip, runs `simreach verify -network net.h5 -eval points` and checks that both
      implementations give the same N_phi(x) at the points (relative difference <= 1e-12).
Exit 77 (skip) when torch or h5py is missing, with a message."""
import argparse
import math
import struct
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

FORMAT = "simreach-network-3"   # SPEC §13: the closed loop and checksums; §14: activations
FORMATS_OLD = ("simreach-network-1", "simreach-network-2")  # still read (no checksums)
ACT_MODULES = {"tanh": nn.Tanh, "relu": nn.ReLU, "sigmoid": nn.Sigmoid}
ACT_NAMES = {nn.Tanh: "tanh", nn.ReLU: "relu", nn.Sigmoid: "sigmoid", nn.Identity: "linear"}
DIMS = {"toy1d": 1, "pendulum": 2, "dubins": 3}
NU = {"toy1d": 0, "pendulum": 1, "dubins": 1}
DOMAIN = {"toy1d": ([-2.0], [2.0]), "pendulum": ([-1.0, -2.0], [1.0, 2.0]),
          "dubins": ([-2.0, -1.0, -math.pi / 2], [2.0, 1.0, math.pi / 2])}
# the constants of src/model/system.c's table: sys_param (3), dt, u_max
CONSTANTS = {"toy1d": ([0.9, 0.25, 3.0], 1.0, 0.0), "pendulum": ([9.81, 0.1, 0.0], 0.05, 8.0),
             "dubins": ([1.0, 0.0, 0.0], 0.1, 1.0)}
TRANSFORM_IN = ("input_clip_lo", "input_clip_hi", "input_mean", "input_range")
TRANSFORM_OUT = ("output_scale", "output_offset")


class InputTransform(nn.Module):
    """z = (min(max(x, lo), hi) - mean) / range (NNet clipping and normalisation; SPEC §14)."""

    def __init__(self, lo, hi, mean, rng):
        super().__init__()
        for k, v in (("lo", lo), ("hi", hi), ("mean", mean), ("range", rng)):
            self.register_buffer(k, torch.as_tensor(np.asarray(v, dtype=np.float64)))

    def forward(self, x):
        return (torch.minimum(torch.maximum(x, self.lo), self.hi) - self.mean) / self.range


class OutputTransform(nn.Module):
    """y = N scale + offset (NNet output scaling, u = f(x) - 10; SPEC §14)."""

    def __init__(self, scale, offset):
        super().__init__()
        self.register_buffer("scale", torch.as_tensor(np.asarray(scale, dtype=np.float64)))
        self.register_buffer("offset", torch.as_tensor(np.asarray(offset, dtype=np.float64)))

    def forward(self, y):
        return y * self.scale + self.offset


def _fixed(s):
    return np.bytes_(s)  # fixed-length string attributes (what simreach reads)


def fnv(data, seed):
    """SRChecksum64 (src/io/fileio.c): FNV-1a 64 over the bytes, from seed; never 0."""
    h = (14695981039346656037 ^ seed) & 0xFFFFFFFFFFFFFFFF
    for b in bytes(data):
        h ^= b
        h = (h * 1099511628211) & 0xFFFFFFFFFFFFFFFF
    return h if h else 1


def checksum_seed(tag, i=0, j=0):
    """SRChecksumSeed."""
    return fnv(struct.pack("<qq", i, j), fnv(tag.encode(), 0))


def _f8(v):
    return np.asarray(v, dtype="<f8").reshape(-1).tobytes()


def header_checksum(loop, acts, transforms):
    """The format-3 header checksum (analysis/abstraction-schema.md, the network file)."""
    lo, hi = DOMAIN[loop["sys"]]
    h = checksum_seed("network-header")
    for t in (FORMAT, loop["sys"], loop["model"], acts):
        h = fnv(t.encode(), h)
    h = fnv(struct.pack("<q", int(loop["control_steps"])), h)
    h = fnv(_f8(loop["sys_param"]), h)
    h = fnv(_f8(loop["sys_dt"]), h)
    h = fnv(_f8(loop["sys_umax"]), h)
    h = fnv(_f8(lo), h)
    h = fnv(_f8(hi), h)
    for name in TRANSFORM_IN + TRANSFORM_OUT:
        if name in transforms:
            h = fnv(_f8(transforms[name]), fnv(name.encode(), h))
    return h


def activations_of(seq):
    """(Linear modules, one activation name per Linear, transforms dict) of an nn.Sequential."""
    lin, acts, tr = [], [], {}
    mods = list(seq)
    for i, m in enumerate(mods):
        if isinstance(m, nn.Linear):
            lin.append(m)
            acts.append("linear")
        elif type(m) in ACT_NAMES and lin and acts[-1] == "linear":
            acts[-1] = ACT_NAMES[type(m)]
        elif isinstance(m, nn.Flatten) and not lin:
            continue
        elif isinstance(m, InputTransform) and not lin:
            tr.update(zip(TRANSFORM_IN, (m.lo, m.hi, m.mean, m.range)))
        elif isinstance(m, OutputTransform) and i == len(mods) - 1 and lin:
            tr.update(zip(TRANSFORM_OUT, (m.scale, m.offset)))
        else:
            raise ValueError(f"the network must be Linear layers each followed by at most one of "
                             f"Tanh, ReLU, Sigmoid, Identity (led by an InputTransform, ended by an "
                             f"OutputTransform); got {[type(x).__name__ for x in seq]}")
    if not lin:
        raise ValueError("the network has no Linear layer")
    tr = {k: v.detach().to(torch.float64).cpu().numpy().reshape(-1) for k, v in tr.items()}
    return lin, acts, tr


def closed_loop(sysname, model, control_steps=1, sys_param=None, sys_dt=None, sys_umax=None):
    """The closed loop a network belongs to (SPEC §13), the table's constants where not given."""
    p, dt, um = CONSTANTS[sysname]
    p = list(p if sys_param is None else sys_param) + [0.0] * 3
    return {"sys": sysname, "model": model, "control_steps": int(control_steps), "sys_param": [float(v) for v in p[:3]],
            "sys_dt": float(dt if sys_dt is None else sys_dt), "sys_umax": float(um if sys_umax is None else sys_umax)}


def write_network(path, seq, sysname, model, control_steps=1, sys_param=None, sys_dt=None, sys_umax=None, loop=None):
    """Write an nn.Sequential (see activations_of) as our file, format 3 (SPEC §13)."""
    lin, acts, tr = activations_of(seq)
    loop = loop or closed_loop(sysname, model, control_steps, sys_param, sys_dt, sys_umax)
    widths = [lin[0].in_features] + [m.out_features for m in lin]
    if widths[0] != DIMS[loop["sys"]] or widths[-1] != (DIMS[loop["sys"]] if loop["model"] == "dynamics" else NU[loop["sys"]]):
        raise ValueError(f"widths {widths} do not fit a {loop['model']} model of {loop['sys']}")
    acts_s = ",".join(acts)
    lo, hi = DOMAIN[loop["sys"]]
    tmp = path + ".part"
    with h5py.File(tmp, "w") as f:
        f.attrs["simreach_format"] = _fixed(FORMAT)
        f.attrs["sys"] = _fixed(loop["sys"])
        f.attrs["model"] = _fixed(loop["model"])
        f.attrs["activations"] = _fixed(acts_s)
        f.attrs["control_steps"] = np.int64(loop["control_steps"])
        f.attrs["sys_param"] = np.asarray(loop["sys_param"], dtype=np.float64)
        f.attrs["sys_dt"] = np.float64(loop["sys_dt"])
        f.attrs["sys_umax"] = np.float64(loop["sys_umax"])
        f.attrs["domain_lo"] = np.asarray(lo, dtype=np.float64)
        f.attrs["domain_hi"] = np.asarray(hi, dtype=np.float64)
        for k, v in tr.items():
            f.attrs[k] = np.asarray(v, dtype=np.float64)
        f.attrs["header_checksum"] = np.uint64(header_checksum(loop, acts_s, tr))
        data = {"widths": np.asarray(widths, dtype=np.int64)}
        for i, m in enumerate(lin):
            data[f"layers/{i}/weight"] = m.weight.detach().to(torch.float64).cpu().numpy()
            data[f"layers/{i}/bias"] = m.bias.detach().to(torch.float64).cpu().numpy()
        for name, a in data.items():
            f[name] = a
            f[name].attrs["checksum"] = np.uint64(fnv(np.ascontiguousarray(a).tobytes(), checksum_seed(name)))
    os.replace(tmp, path)


def _str(v):
    return v.decode() if isinstance(v, bytes) else str(v)


def _read(path):
    """Our file -> (nn.Sequential, closed loop dict); format 3 checked as simreach checks it."""
    with h5py.File(path, "r") as f:
        fmt = _str(f.attrs["simreach_format"])
        if fmt != FORMAT and fmt not in FORMATS_OLD:
            raise ValueError(f"{path}: format {fmt!r}, expected {FORMAT!r} (or {', '.join(FORMATS_OLD)})")
        sysname, model = _str(f.attrs["sys"]), _str(f.attrs["model"])
        loop = closed_loop(sysname, model, int(np.asarray(f.attrs.get("control_steps", 1)).reshape(-1)[0]))
        widths = [int(w) for w in f["widths"][()]]
        L = len(widths) - 1
        acts_s = "tanh," * (L - 1) + "linear" if fmt == FORMATS_OLD[0] else _str(f.attrs["activations"])
        acts = acts_s.split(",")
        if len(acts) != L:
            raise ValueError(f"{path}: {len(acts)} activations for {L} layers")
        tr = {k: np.asarray(f.attrs[k], dtype=np.float64).reshape(-1) for k in TRANSFORM_IN + TRANSFORM_OUT if k in f.attrs}
        if fmt == FORMAT:
            loop["sys_param"] = [float(v) for v in np.asarray(f.attrs["sys_param"]).reshape(-1)]
            loop["sys_dt"] = float(np.asarray(f.attrs["sys_dt"]).reshape(-1)[0])
            loop["sys_umax"] = float(np.asarray(f.attrs["sys_umax"]).reshape(-1)[0])
            if int(np.asarray(f.attrs["header_checksum"]).reshape(-1)[0]) != header_checksum(loop, acts_s, tr):
                raise ValueError(f"{path}: the header attributes fail their checksum")
            names = ["widths"] + [f"layers/{i}/{w}" for i in range(L) for w in ("weight", "bias")]
            for name in names:
                want = int(np.asarray(f[name].attrs["checksum"]).reshape(-1)[0])
                if want != fnv(np.ascontiguousarray(f[name][()]).tobytes(), checksum_seed(name)):
                    raise ValueError(f"{path}: dataset /{name} fails its checksum")
        layers = [InputTransform(*(tr[k] for k in TRANSFORM_IN))] if TRANSFORM_IN[0] in tr else []
        for i in range(L):
            m = nn.Linear(widths[i], widths[i + 1]).to(torch.float64)
            with torch.no_grad():
                m.weight.copy_(torch.from_numpy(f[f"layers/{i}/weight"][()]))
                m.bias.copy_(torch.from_numpy(f[f"layers/{i}/bias"][()]))
            layers.append(m)
            if acts[i] != "linear":
                layers.append(ACT_MODULES[acts[i]]())
        if TRANSFORM_OUT[0] in tr:
            layers.append(OutputTransform(*(tr[k] for k in TRANSFORM_OUT)))
    return nn.Sequential(*layers), loop


def read_network(path):
    """Our file (format 1, 2 or 3) -> (nn.Sequential in float64, sys, model)."""
    seq, loop = _read(path)
    return seq, loop["sys"], loop["model"]


def read_closed_loop(path):
    """The closed loop our file states (format 1 and 2: the table's constants)."""
    return _read(path)[1]


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
    seq, loop = _read(args.net)
    sysname = loop["sys"]
    # round trip: write what was read, read again: parameters, transforms and closed loop bit-identical
    with tempfile.TemporaryDirectory() as d:
        p2 = os.path.join(d, "again.h5")
        write_network(p2, seq, sysname, loop["model"], loop=loop)
        seq2, loop2 = _read(p2)
        assert loop2 == loop, f"the closed loop changed in the round trip: {loop} -> {loop2}"
        sd, sd2 = seq.state_dict(), seq2.state_dict()
        assert sd.keys() == sd2.keys(), "the layers changed in the round trip"
        for k in sd:
            assert torch.equal(sd[k], sd2[k]), f"{k} changed in the round trip"
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


def roundtrip(args):
    """Import into PyTorch and export again: what a user does with a network between tools."""
    seq, loop = _read(args.net)
    write_network(args.out, seq, loop["sys"], loop["model"], loop=loop)
    print(f"network_torch.py: {args.net} -> PyTorch {[type(m).__name__ for m in seq]} -> {args.out} "
          f"(-sys {loop['sys']} -model {loop['model']} -control_steps {loop['control_steps']}, u_max {loop['sys_umax']})")
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
    r = sub.add_parser("roundtrip")
    r.add_argument("--net", required=True)
    r.add_argument("--out", required=True)
    a = ap.parse_args()
    return {"train": train, "check": check, "roundtrip": roundtrip}[a.cmd](a)


if __name__ == "__main__":
    sys.exit(main())
