#!/usr/bin/env python3
"""The network files of the ARCH-COMP 2022 AINNCS benchmarks (jobs/arch) against oracles written
here, apart from the C readers (SPEC §14, issue 35 item 4).

  networks_arch.py --eval PATH(test_network_eval) --simreach PATH --arch DIR --dir DIR [--points 2000]

1. NNet, ARCH-COMP 2022 layout (Single Pendulum, Double Pendulum less/more robust, Airplane):
   a NumPy reader of the text written here (line by line: header, the sizes line with the output
   size repeated, five lines holding 0, rows of weights, biases; ReLU hidden, linear output);
   simreach's N(x) must agree within 1e-13 relative (|a - b| <= 1e-13 max(1, |b|)).
2. The same networks' ONNX twins: a NumPy forward pass over the graph read with python3-onnx
   (MatMul, Add, Relu, Gemm, Sigmoid, Tanh); simreach's N(x) of the ONNX file within 1e-13.
3. NNet against ONNX: the NNet weights are the ONNX float32 weights rounded to 5 decimals
   (checked: every |dW| <= 5e-6 + 1e-12), so the two functions differ; at each point the
   difference must lie within the bound that rounding allows, propagated layer by layer
   (|dz| <= |W| |dh| + |dW| |h| + |db|, ReLU 1-Lipschitz), and the bound is reported.
4. POLAR text (TORA heterogeneous relu-tanh, sigmoid): a NumPy reader of the one-number-per-line
   format (per neuron: weights then bias; u = (N - offset) * scalar) with the activations of the
   benchmark's Specifications.txt; simreach's N(x) within 1e-13.
5. Layout refusals: an ARCH-layout file whose 0 line is changed, a sizes line with one entry too
   many, a POLAR file with a number too many or without -network_activations: exit 2, one line.
Points: the benchmark's X0 box widened 3x around its centre, and [-3, 3]^n."""
import argparse
import os
import subprocess
import sys

try:
    import numpy as np
    import onnx
    from onnx import numpy_helper, helper
except ImportError as e:
    print(f"networks_arch.py: SKIP: {e}")
    sys.exit(77)

FAILS = []


def fail(msg):
    print("FAIL:", msg)
    FAILS.append(msg)


# ---------------------------------------------------------------- oracles
def nnet_arch_read(path):
    """(layers [(W, b)]) of an NNet file of the ARCH-COMP 2022 layout, or raise."""
    lines = [l for l in open(path) if not l.startswith("//")]
    nums = lambda l: [float(t) for t in l.replace(",", " ").split()]
    head = [int(v) for v in nums(lines[0])]
    nl, nin, nout = head[0], head[1], head[2]
    sizes = [int(v) for v in nums(lines[1])]
    assert len(sizes) == nl + 2 and sizes[-1] == nout and sizes[0] == nin and sizes[nl] == nout, "sizes line"
    for k in range(2, 7):
        assert nums(lines[k]) == [0.0], "zero line"
    rows = [nums(l) for l in lines[7:] if l.strip()]
    layers, i = [], 0
    for l in range(nl):
        W = np.array(rows[i:i + sizes[l + 1]]); i += sizes[l + 1]
        assert W.shape == (sizes[l + 1], sizes[l])
        b = np.array([r[0] for r in rows[i:i + sizes[l + 1]]]); i += sizes[l + 1]
        layers.append((W, b))
    assert i == len(rows), "trailing data"
    return layers


def mlp_forward(layers, acts, X):
    H = X
    for (W, b), a in zip(layers, acts):
        Z = H @ W.T + b
        H = {"relu": lambda z: np.maximum(z, 0), "linear": lambda z: z, "tanh": np.tanh,
             "sigmoid": lambda z: 1 / (1 + np.exp(-z))}[a](Z)
    return H


def onnx_forward(model, X):
    g = model.graph
    env = {t.name: numpy_helper.to_array(t).astype(np.float64) for t in g.initializer}
    inp = [i.name for i in g.input if i.name not in env]
    env[inp[0]] = X
    for nd in g.node:
        a = {at.name: helper.get_attribute_value(at) for at in nd.attribute}
        x = [env[i] for i in nd.input]
        op = nd.op_type
        if op == "MatMul":
            y = x[0] @ x[1]
        elif op == "Add":
            y = x[0] + x[1]
        elif op == "Relu":
            y = np.maximum(x[0], 0)
        elif op == "Sigmoid":
            y = 1 / (1 + np.exp(-x[0]))
        elif op == "Tanh":
            y = np.tanh(x[0])
        elif op == "Gemm":
            A = x[0].T if a.get("transA", 0) else x[0]
            B = x[1].T if a.get("transB", 0) else x[1]
            y = a.get("alpha", 1.0) * (A @ B) + (a.get("beta", 1.0) * x[2] if len(x) > 2 else 0)
        else:
            raise RuntimeError(f"oracle: operator {op} not written here")
        env[nd.output[0]] = y
    return env[g.output[0].name]


def onnx_layers(model):
    """(W, b) per dense layer of a MatMul/Add chain (W as out x in)."""
    init = {t.name: numpy_helper.to_array(t).astype(np.float64) for t in model.graph.initializer}
    out, W = [], None
    for nd in model.graph.node:
        if nd.op_type == "MatMul":
            W = init[nd.input[1]].T
        elif nd.op_type == "Add":
            out.append((W, init[nd.input[1]]))
    return out


def polar_read(path):
    v = [float(l) for l in open(path) if l.strip()]
    nin, nout, nh = int(v[0]), int(v[1]), int(v[2])
    sizes = [nin] + [int(x) for x in v[3:3 + nh]] + [nout]
    i, layers = 3 + nh, []
    for l in range(nh + 1):
        W = np.zeros((sizes[l + 1], sizes[l])); b = np.zeros(sizes[l + 1])
        for r in range(sizes[l + 1]):
            W[r] = v[i:i + sizes[l]]; i += sizes[l]
            b[r] = v[i]; i += 1
        layers.append((W, b))
    offset, scalar = v[i], v[i + 1]
    assert i + 2 == len(v), "trailing data"
    return layers, offset, scalar


# ---------------------------------------------------------------- simreach
def sim_eval(args, net, X, extra=()):
    pts = os.path.join(args.dir, "points.txt")
    np.savetxt(pts, X, fmt="%.17g")
    r = subprocess.run([args.eval, "-network", net, "-points", pts, *extra], capture_output=True, text=True)
    if r.returncode != 0:
        fail(f"{net}: test_network_eval exit {r.returncode}: {r.stdout[-300:]} {r.stderr[-300:]}")
        return None
    return np.array([[float(t) for t in l.split()[1:]] for l in r.stdout.splitlines() if l.startswith("N ")])


def rel(a, b):
    return float(np.max(np.abs(a - b) / np.maximum(1.0, np.abs(b))))


def points(rng, lo, hi, n):
    lo, hi = np.asarray(lo, float), np.asarray(hi, float)
    c, h = (lo + hi) / 2, np.maximum((hi - lo) / 2, 0.05) * 3
    A = c + h * rng.uniform(-1, 1, (n // 2, lo.size))
    B = rng.uniform(-3, 3, (n - n // 2, lo.size))
    return np.vstack([A, B])


NNETS = [  # (folder, stem, X0 lo, X0 hi)
    ("pendulum", "controller_single_pendulum", [1.0, 0.0], [1.2, 0.2]),
    ("double_pendulum_less", "controller_double_pendulum_less_robust", [1.0] * 4, [1.3] * 4),
    ("double_pendulum_more", "controller_double_pendulum_more_robust", [1.0] * 4, [1.3] * 4),
    ("airplane", "controller_airplane", [0, 0, 0] + [0.0] * 6 + [0, 0, 0], [0, 0, 0] + [1.0] * 6 + [0, 0, 0]),
]
POLARS = [("tora_relu_tanh", "nn_tora_relu_tanh.txt", ["relu", "relu", "relu", "tanh"]),
          ("tora_sigmoid", "nn_tora_sigmoid.txt", ["sigmoid"] * 4)]


def refused(args, cmd, what):
    r = subprocess.run(cmd, capture_output=True, text=True)
    lines = [l for l in (r.stdout + r.stderr).splitlines() if l.strip()]
    if r.returncode != 2 or len(lines) != 1:
        fail(f"{what}: exit {r.returncode}, {len(lines)} lines (want exit 2, one line): {lines[:3]}")
    else:
        print(f"refused ({what}): {lines[0][:160]}")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--eval", required=True)
    ap.add_argument("--simreach", required=True)
    ap.add_argument("--arch", required=True)
    ap.add_argument("--dir", required=True)
    ap.add_argument("--points", type=int, default=2000)
    args = ap.parse_args()
    os.makedirs(args.dir, exist_ok=True)
    rng = np.random.default_rng(35)
    for folder, stem, lo, hi in NNETS:
        nnet = os.path.join(args.arch, folder, stem + ".nnet")
        onx = os.path.join(args.arch, folder, stem + ".onnx")
        X = points(rng, lo, hi, args.points)
        layers = nnet_arch_read(nnet)
        acts = ["relu"] * (len(layers) - 1) + ["linear"]
        ref_nnet = mlp_forward(layers, acts, X)
        model = onnx.load(onx)
        ref_onnx = onnx_forward(model, X)
        c_nnet, c_onnx = sim_eval(args, nnet, X), sim_eval(args, onx, X)
        if c_nnet is None or c_onnx is None:
            continue
        e1, e2 = rel(c_nnet, ref_nnet), rel(c_onnx, ref_onnx)
        if e1 > 1e-13:
            fail(f"{nnet}: simreach vs the NNet oracle {e1:.3g} > 1e-13")
        if e2 > 1e-13:
            fail(f"{onx}: simreach vs the ONNX oracle {e2:.3g} > 1e-13")
        # 3. NNet vs ONNX within the 5-decimal rounding of the weights
        ol = onnx_layers(model)
        dW = [np.abs(a[0] - b[0]) for a, b in zip(layers, ol)]
        db = [np.abs(a[1] - b[1]) for a, b in zip(layers, ol)]
        if max(float(d.max()) for d in dW + db) > 5e-6 + 1e-12:
            fail(f"{nnet}: a weight differs from the ONNX twin's by more than 5e-6")
        H, dH = X, np.zeros_like(X)
        for l, ((W, b), d, e) in enumerate(zip(ol, dW, db)):
            Z = H @ W.T + b
            dH = dH @ np.abs(layers[l][0]).T + np.abs(H) @ d.T + e
            H = np.maximum(Z, 0) if l < len(ol) - 1 else Z
        bound = dH * (1 + 1e-9) + 1e-12
        diff = np.abs(c_nnet - c_onnx)
        if np.any(diff > bound):
            fail(f"{stem}: NNet and ONNX differ by {diff.max():.3g} beyond the rounding bound")
        print(f"{stem}: {X.shape[0]} points; simreach vs NNet oracle {e1:.2g}, vs ONNX oracle {e2:.2g}; "
              f"NNet - ONNX max {diff.max():.3g} (rounding bound there {bound.max():.3g}, "
              f"largest share of the bound {float(np.max(diff / bound)):.3f})")
    for folder, fn, acts in POLARS:
        path = os.path.join(args.arch, folder, fn)
        layers, off, sc = polar_read(path)
        X = points(rng, [-0.77, -0.45, 0.51, -0.3], [-0.75, -0.43, 0.54, -0.28], args.points)
        ref = (mlp_forward(layers, acts, X) - off) * sc
        c = sim_eval(args, path, X, ["-network_activations", ",".join(acts)])
        if c is None:
            continue
        e = rel(c, ref)
        if e > 1e-13:
            fail(f"{path}: simreach vs the POLAR oracle {e:.3g} > 1e-13")
        print(f"{fn}: {X.shape[0]} points, u = (N - {off:g}) * {sc:g}; simreach vs oracle {e:.2g}; u in [{ref.min():.3f}, {ref.max():.3f}]")
    # 5. refusals
    src = os.path.join(args.arch, "pendulum", "controller_single_pendulum.nnet")
    L = open(src).read().splitlines(True)
    bad = os.path.join(args.dir, "bad_zero.nnet")
    open(bad, "w").writelines(L[:5] + ["1\n"] + L[6:])
    refused(args, [args.simreach, "network", bad], "an ARCH-layout 0 line changed to 1")
    bad2 = os.path.join(args.dir, "bad_sizes.nnet")
    open(bad2, "w").writelines(L[:4] + [L[4].rstrip() + ", 1\n"] + L[5:])
    refused(args, [args.simreach, "network", bad2], "a sizes line with one entry too many")
    tora = os.path.join(args.arch, "tora_sigmoid", "nn_tora_sigmoid.txt")
    refused(args, [args.simreach, "network", tora], "POLAR text without -network_activations")
    bad3 = os.path.join(args.dir, "bad_extra.txt")
    open(bad3, "w").write(open(tora).read() + "1\n")
    refused(args, [args.simreach, "network", bad3, "-network_activations", "sigmoid,sigmoid,sigmoid,sigmoid"], "POLAR text with a number too many")
    if FAILS:
        print(f"networks_arch: {len(FAILS)} failures")
        sys.exit(1)
    print("networks_arch: all checks passed")


if __name__ == "__main__":
    main()
