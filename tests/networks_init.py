#!/usr/bin/env python3
"""A study that fine-tunes a field controller: -init_network (SPEC §14, issue 24).

  networks_init.py --simreach PATH --dir DIR

1. A small pendulum controller exported from PyTorch to ONNX (2-8-8-1 ReLU, input (x - m) / r,
   output y * 3 - 1: the ARCH controllers' shape) starts a study (`-model controller
   -mlp_widths 8,8 -init_network F.onnx`).  The run's initial network, row 0 of
   /runs/network_checkpoints (`verify -from R.h5 -run 0 -checkpoint 0 -eval`), is the imported
   function: N(x) within 1e-6 relative of PyTorch's float64 forward pass on 500 points (and bit
   for bit what `verify -network F.onnx -eval` gives), and f(x) is the pendulum step with the
   control u = clip(N(x), -8, 8) (docs/networks.md: an imported controller's output is used as
   read and saturated, not squashed by 8 tanh).  The run trains (its final network differs)
   and the file's last network is re-read with the file's activations and transforms.
2. A tanh controller without transforms (simreach's own shape) read from ONNX is still a field
   controller: `simreach network` shows the identity output transform that marks it, and
   f(x) uses clip(N) where |N| > 8.
3. Refused in one line naming -init_network (or the file), exit 2, no results file: a shape
   mismatch (layer and shapes named), a file that is no network, a missing file, an
   unsupported ONNX operator, -loss encl and -volume_weight > 0 with an imported network.
4. verify of a 4-input controller (ARCH TORA) is refused in one line (cells have at most 3 dims).
Exit 77 (skip) without torch / onnx."""
import argparse
import os
import subprocess
import sys

try:
    import numpy as np
    import onnx
    import torch
    from torch import nn
except ImportError as e:
    print(f"networks_init.py: SKIP: {e}")
    sys.exit(77)

FAILS = []
TINY = ["-sys", "pendulum", "-model", "controller", "-cells", "4,4", "-beta", "0,0.5", "-tau", "0.05",
        "-seeds", "1", "-guard", "backtrack", "-guard_halvings", "2", "-epochs", "6", "-checkpoints", "3",
        "-lr", "1e-2", "-samples", "128", "-heldout", "128", "-target_samples", "8", "-tao_max_it", "3",
        "-safe_cells", "20,20", "-quiet"]


def fail(msg):
    print("FAIL:", msg)
    FAILS.append(msg)


class Ctrl(nn.Module):
    """(x - m) / r -> ReLU MLP -> y * 3 - 1."""

    def __init__(self, act, norm):
        super().__init__()
        self.f = nn.Sequential(nn.Linear(2, 8), act(), nn.Linear(8, 8), act(), nn.Linear(8, 1))
        self.norm = norm

    def forward(self, x):
        if not self.norm:
            return self.f(x)
        return self.f((x - torch.tensor([0.1, -0.2], dtype=x.dtype)) / torch.tensor([0.5, 2.0], dtype=x.dtype)) * 3.0 - 1.0


def export(path, act, norm, seed, gain=1.0):
    torch.manual_seed(seed)
    m = Ctrl(act, norm).double()
    with torch.no_grad():
        m.f[4].weight.mul_(gain)
    torch.onnx.export(m, torch.zeros(1, 2, dtype=torch.float64), path, input_names=["x"], output_names=["u"])
    return m


def run(cmd):
    return subprocess.run(cmd, capture_output=True, text=True)


def evaluate(args, src, X):
    """N and f at the rows of X from `verify ... -eval`; src: the arguments naming the network."""
    pts = os.path.join(args.dir, "points.txt")
    np.savetxt(pts, X, fmt="%.17g")
    r = run([args.simreach, "verify", *src, "-eval", pts])
    if r.returncode != 0:
        fail(f"verify {' '.join(src)} -eval: exit {r.returncode}: {r.stdout[-300:]} {r.stderr[-300:]}")
        return None, None, []
    rows = [l.split() for l in r.stdout.splitlines() if l.startswith("N ")]
    N = np.array([[float(v) for v in row[1:row.index("f")]] for row in rows])
    F = np.array([[float(v) for v in row[row.index("f") + 1:]] for row in rows])
    return N, F, [l for l in r.stdout.splitlines() if l.startswith("N ")]


def pendulum_step(X, u, g=9.81, b=0.1, dt=0.05):
    """SPEC §2: w' = w + dt (g sin th - b w + u), th' = th + dt w' (one held step)."""
    th, w = X[:, 0], X[:, 1]
    w2 = w + dt * (g * np.sin(th) - b * w + u)
    return np.c_[th + dt * w2, w2]


def rel(a, b):
    return float(np.max(np.abs(a - b) / np.maximum(1.0, np.abs(b))))


def check_study(args, rng):
    onx = os.path.join(args.dir, "ctrl_relu.onnx")
    m = export(onx, nn.ReLU, True, 3)
    res = os.path.join(args.dir, "init.h5")
    r = run([args.simreach, "study", *TINY, "-mlp_widths", "8,8", "-volume_weight", "0", "-init_network", onx, "-output", res, "-force"])
    print(f"study -init_network {os.path.basename(onx)}: exit {r.returncode}")
    if r.returncode != 0:
        fail(f"study -init_network: exit {r.returncode}: {r.stdout[-600:]} {r.stderr[-600:]}")
        return
    X = np.c_[rng.uniform(-1.5, 1.5, 500), rng.uniform(-3, 3, 500)]  # beyond D too
    with torch.no_grad():
        ref = m(torch.tensor(X, dtype=torch.float64)).numpy()
    for run_ in (0, 1):  # beta 0 and beta 0.5 start from the same imported network
        N0, F0, lines0 = evaluate(args, ["-from", res, "-run", str(run_), "-checkpoint", "0"], X)
        if N0 is None:
            return
        e = rel(N0, ref)
        ef = rel(F0, pendulum_step(X, np.clip(N0[:, 0], -8, 8)))
        print(f"run {run_} checkpoint 0 vs PyTorch float64: N within {e:.2e}, f vs the step at clip(N) {ef:.2e}")
        if not e <= 1e-6:
            fail(f"run {run_}: checkpoint 0 differs from the imported network by {e:.2e} (> 1e-6 relative)")
        if not ef <= 1e-12:
            fail(f"run {run_}: f at checkpoint 0 is not the pendulum step at u = clip(N, -8, 8) ({ef:.2e})")
    _, _, lines_file = evaluate(args, ["-network", onx, "-sys", "pendulum", "-model", "controller"], X)
    if lines_file != lines0:
        fail("checkpoint 0 and the ONNX file evaluate differently (verify -eval lines differ)")
    else:
        print("checkpoint 0 and verify -network F.onnx: identical N and f on every point")
    Nf, Ff, _ = evaluate(args, ["-from", res, "-run", "1"], X)
    if Nf is None:
        return
    moved = rel(Nf, N0)
    ef = rel(Ff, pendulum_step(X, np.clip(Nf[:, 0], -8, 8)))
    print(f"run 1 final network: moved {moved:.2e} from the imported one; f vs the step at clip(N) {ef:.2e}")
    if not moved > 1e-6:
        fail("the study did not train the imported network (final == initial)")
    if not ef <= 1e-12:
        fail(f"final network: f is not the step at clip(N) ({ef:.2e})")
    # the -init_network file replaced by one of the same shapes but other activations: the runs'
    # network can no longer be rebuilt from it, and every reader (and -resume) refuses it
    export(onx, nn.Tanh, True, 3)
    pts = os.path.join(args.dir, "points.txt")
    for what, cmd in (("verify -from", [args.simreach, "verify", "-from", res, "-run", "1", "-eval", pts]),
                      ("check", [args.simreach, "check", res]),
                      ("study -resume", [args.simreach, "study", *TINY, "-mlp_widths", "8,8", "-volume_weight", "0", "-init_network", onx, "-output", res, "-resume"])):
        r = run(cmd)
        out = (r.stdout + r.stderr).strip().splitlines()
        print(f"{what} after the -init_network file changed: exit {r.returncode}: {out[-1][:160] if out else ''}")
        if r.returncode == 0 or not any("init_network" in l for l in out):
            fail(f"{what} accepted a changed -init_network file (exit {r.returncode})")
    export(onx, nn.ReLU, True, 3)  # the same file as before, for the tests below


def check_tanh_marker(args, rng):
    onx = os.path.join(args.dir, "ctrl_tanh.onnx")
    m = export(onx, nn.Tanh, False, 5, gain=40.0)
    r = run([args.simreach, "network", onx])
    if r.returncode != 0 or "output 0: y * 1 + 0" not in r.stdout:
        fail(f"network {onx}: expected the identity output transform line; got exit {r.returncode}: {r.stdout}")
    X = np.c_[rng.uniform(-1, 1, 400), rng.uniform(-2, 2, 400)]
    with torch.no_grad():
        ref = m(torch.tensor(X, dtype=torch.float64)).numpy()
    N, F, _ = evaluate(args, ["-network", onx, "-sys", "pendulum", "-model", "controller"], X)
    if N is None:
        return
    sat = int(np.sum(np.abs(N[:, 0]) > 8))
    e, ef = rel(N, ref), rel(F, pendulum_step(X, np.clip(N[:, 0], -8, 8)))
    print(f"tanh ONNX controller: N within {e:.2e} of PyTorch, {sat} of {len(X)} points saturated, f vs the step at clip(N) {ef:.2e}")
    if not (e <= 1e-6 and ef <= 1e-12 and sat > 0):
        fail(f"tanh ONNX controller: N {e:.2e}, f {ef:.2e}, saturated points {sat}")


def expect_refused(args, extra, want):
    out = os.path.join(args.dir, "never.h5")
    r = run([args.simreach, "study", *TINY, "-output", out, "-force", *extra])
    lines = [l for l in (r.stdout + r.stderr).splitlines() if l.strip()]
    ok = r.returncode == 2 and len(lines) == 1 and all(w in lines[0] for w in want) and not os.path.exists(out)
    print(f"refused ({' '.join(extra[-2:])}): exit {r.returncode}: {lines[0] if lines else ''}")
    if not ok:
        fail(f"{extra}: expected one line with {want} and exit 2 before any work; got exit {r.returncode}: {lines}")


def check_bad(args):
    onx = os.path.join(args.dir, "ctrl_relu.onnx")
    expect_refused(args, ["-volume_weight", "0", "-mlp_widths", "8", "-init_network", onx], ["-init_network", onx, "layer 1", "8 -> 8", "8 -> 1", "-mlp_widths 8,8"])
    expect_refused(args, ["-volume_weight", "0", "-mlp_widths", "8,8,8", "-init_network", onx], ["-init_network", onx, "layer 2", "2-8-8-1", "2-8-8-8-1"])
    junk = os.path.join(args.dir, "junk.onnx")
    open(junk, "wb").write(bytes(range(256)) * 3)
    expect_refused(args, ["-volume_weight", "0", "-mlp_widths", "8,8", "-init_network", junk], [junk])
    txt = os.path.join(args.dir, "notes.txt")
    open(txt, "w").write("this is not a network\n")
    expect_refused(args, ["-volume_weight", "0", "-mlp_widths", "8,8", "-init_network", txt], [txt])
    missing = os.path.join(args.dir, "missing.onnx")
    expect_refused(args, ["-volume_weight", "0", "-mlp_widths", "8,8", "-init_network", missing], ["-init_network", missing, "no such readable file"])
    m = onnx.load(onx)
    for nd in m.graph.node:
        if nd.op_type == "Relu":
            nd.op_type = "Elu"
            break
    elu = os.path.join(args.dir, "elu.onnx")
    onnx.save(m, elu)
    expect_refused(args, ["-volume_weight", "0", "-mlp_widths", "8,8", "-init_network", elu], [elu, "Elu"])
    expect_refused(args, ["-volume_weight", "0", "-mlp_widths", "8,8", "-loss", "encl", "-init_network", onx], ["-loss encl", onx])
    expect_refused(args, ["-volume_weight", "0.05", "-mlp_widths", "8,8", "-init_network", onx], ["-volume_weight 0.05", onx])


def check_wide(args):
    """Cell verification covers the systems of SPEC §2 (at most 3 states): a 4-input ARCH controller
    (TORA) is refused by verify in one line naming its inputs, exit 2."""
    tora = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "jobs", "arch", "tora", "controllerTora.onnx")
    out = os.path.join(args.dir, "never_abs.h5")
    r = run([args.simreach, "verify", "-network", tora, "-sys", "dubins", "-model", "controller", "-cells", "4,4,4", "-output", out])
    lines = [l for l in (r.stdout + r.stderr).splitlines() if l.strip()]
    print(f"verify a 4-input controller: exit {r.returncode}: {lines[0] if lines else ''}")
    if not (r.returncode == 2 and len(lines) == 1 and "4 inputs" in lines[0] and "3 states" in lines[0] and not os.path.exists(out)):
        fail(f"verify of the 4-input TORA controller: expected one line naming 4 inputs and 3 states, exit 2; got {r.returncode}: {lines}")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--simreach", required=True)
    ap.add_argument("--dir", required=True)
    args = ap.parse_args()
    os.makedirs(args.dir, exist_ok=True)
    rng = np.random.default_rng(24)
    check_study(args, rng)
    check_tanh_marker(args, rng)
    check_bad(args)
    check_wide(args)
    if FAILS:
        print(f"networks_init.py: {len(FAILS)} failure(s)")
        return 1
    print("networks_init.py: the study starts from the imported controller and trains it; bad inputs refused")
    return 0


if __name__ == "__main__":
    sys.exit(main())
