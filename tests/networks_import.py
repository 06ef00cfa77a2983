#!/usr/bin/env python3
"""ONNX and NNet networks in simreach (SPEC §14), checked against independent references.

  networks_import.py --simreach PATH --mpiexec PATH --dir DIR [--points 10000]

1. ONNX oracle: models exported by PyTorch (torch.onnx.export, float32, Gemm/Relu/Tanh/Sigmoid,
   input Sub/Div normalisation, output Mul/Sub as in the ARCH controllers' u = f(x) - 10) and
   graphs built with onnx.helper (float64 MatMul + Add, Identity, Flatten, Reshape, Squeeze,
   Unsqueeze, Constant, raw_data and typed fields).  The reference is a NumPy forward pass
   written here from the ONNX graph itself (python3-onnx reads graph and initializers;
   onnxruntime is not in Debian), independent of the C reader; simreach's N(x)
   (`verify -eval`) must agree within 1e-6 relative (|a - b| <= 1e-6 max(1, |b|)) on 10^4
   random points, and so must PyTorch's own outputs (the export round trip).
2. NNet: a file with clipping bounds inside the sampled box, compared with the format's
   reference semantics (NNet.py evaluate_network: clip to [mins, maxes], (x - means) / ranges,
   ReLU hidden layers, y * ranges[-1] + means[-1]) at points inside, exactly at and beyond the
   clipping bounds.
3. The converter: `simreach network F.onnx -output F.h5 -sys S -model M` prints layers and
   writes our file; the file gives the same N(x) bit for bit; `verify` on the ONNX file and on
   the converted file write identical enclosures; an existing output is not replaced.
4. Bad files: truncated, NaN weight, unsupported operator, dimension mismatch with -sys, second
   graph input, NNet with a NaN and a short NNet file: one line naming the file, exit 2, and
   nothing else done (no output file, no result lines).
Exit 77 (skip) without python3-onnx / torch."""
import argparse
import os
import subprocess
import sys

try:
    import numpy as np
    import onnx
    from onnx import helper, numpy_helper, TensorProto
    import torch
    from torch import nn
except ImportError as e:
    print(f"networks_import.py: SKIP: {e}")
    sys.exit(77)

DOMAIN = {"pendulum": ([-1.0, -2.0], [1.0, 2.0]), "dubins": ([-2.0, -1.0, -1.5708], [2.0, 1.0, 1.5708])}
FAILS = []


def fail(msg):
    print("FAIL:", msg)
    FAILS.append(msg)


# ---------------------------------------------------------------- NumPy reference of ONNX graphs
def onnx_numpy_forward(model, X):
    """Evaluate the graph on the rows of X (float64) with NumPy, node by node."""
    g = model.graph
    env = {t.name: numpy_helper.to_array(t).astype(np.float64) for t in g.initializer}
    inits = set(env)
    inputs = [i.name for i in g.input if i.name not in inits]
    assert len(inputs) == 1
    env[inputs[0]] = X.astype(np.float64)
    for nd in g.node:
        a = {at.name: helper.get_attribute_value(at) for at in nd.attribute}
        ins = [env[i] if i else None for i in nd.input]
        op = nd.op_type
        if op == "Constant":
            out = numpy_helper.to_array(a["value"]).astype(np.float64)
        elif op == "Gemm":
            A, B = ins[0], ins[1]
            if a.get("transA", 0):
                A = A.T
            if a.get("transB", 0):
                B = B.T
            out = a.get("alpha", 1.0) * (A @ B)
            if len(ins) > 2 and ins[2] is not None:
                out = out + a.get("beta", 1.0) * ins[2]
        elif op == "MatMul":
            out = ins[0] @ ins[1]
        elif op == "Conv":  # a fully connected layer (kernel over the whole input), as MATLAB exports
            W = ins[1].reshape(ins[1].shape[0], -1)
            out = ins[0].reshape(ins[0].shape[0], -1) @ W.T
            if len(ins) > 2 and ins[2] is not None:
                out = out + ins[2]
        elif op in ("Add", "Sub", "Mul", "Div"):
            f = {"Add": np.add, "Sub": np.subtract, "Mul": np.multiply, "Div": np.divide}[op]
            out = f(ins[0], ins[1])
        elif op == "Relu":
            out = np.maximum(ins[0], 0.0)
        elif op == "Tanh":
            out = np.tanh(ins[0])
        elif op == "Sigmoid":
            out = 1.0 / (1.0 + np.exp(-ins[0]))
        elif op in ("Identity", "Flatten", "Squeeze", "Unsqueeze", "Reshape"):
            out = ins[0].reshape(ins[0].shape[0], -1)  # batch x vector
        else:
            raise ValueError(f"reference: operator {op} not in the test's set")
        env[nd.output[0]] = out
    return env[g.output[0].name].reshape(X.shape[0], -1)


def simreach_eval(args, net, sysname, model, X, extra=()):
    pts = os.path.join(args.dir, "points.txt")
    np.savetxt(pts, X, fmt="%.17g")
    r = subprocess.run([args.simreach, "verify", "-network", net, "-sys", sysname, "-model", model, "-eval", pts, *extra],
                       capture_output=True, text=True)
    if r.returncode != 0:
        fail(f"{net}: simreach verify -eval exit {r.returncode}: {r.stdout[-400:]} {r.stderr[-400:]}")
        return None
    rows = [l.split() for l in r.stdout.splitlines() if l.startswith("N ")]
    return np.array([[float(v) for v in row[1:row.index("f")]] for row in rows])


def rel_err(a, b):
    return float(np.max(np.abs(a - b) / np.maximum(1.0, np.abs(b))))


def points(sysname, n, rng, widen=1.0):
    lo, hi = (np.asarray(v) for v in DOMAIN[sysname])
    c, h = (lo + hi) / 2, (hi - lo) / 2 * widen
    return c - h + 2 * h * rng.random((n, len(lo)))


# ---------------------------------------------------------------- ONNX models
class Normalised(nn.Module):
    """(x - mean) / range -> MLP -> * scale - offset: the ARCH controllers' shape."""

    def __init__(self, n, widths, act, nout, scale, offset, mean=None, rng_=None):
        super().__init__()
        layers, w = [], [n] + widths
        for i in range(len(widths)):
            layers += [nn.Linear(w[i], w[i + 1]), act()]
        layers.append(nn.Linear(w[-1], nout))
        self.seq = nn.Sequential(*layers)
        self.norm = mean is not None
        if self.norm:
            self.register_buffer("mean", torch.tensor(mean, dtype=torch.float32))
            self.register_buffer("rng", torch.tensor(rng_, dtype=torch.float32))
        self.scale, self.offset = scale, offset

    def forward(self, x):
        if self.norm:
            x = (x - self.mean) / self.rng
        y = self.seq(x)
        if self.scale != 1.0:
            y = y * self.scale
        if self.offset != 0.0:
            y = y - self.offset
        return y


def torch_models():
    torch.manual_seed(7)
    return [
        ("relu_2_25_25_1", "pendulum", "controller", Normalised(2, [25, 25], nn.ReLU, 1, 1.0, 10.0)),
        ("tanh_norm", "pendulum", "controller", Normalised(2, [16, 16], nn.Tanh, 1, 2.0, 0.5, [0.1, -0.3], [0.5, 2.0])),
        ("sigmoid_dyn", "pendulum", "dynamics", Normalised(2, [12], nn.Sigmoid, 2, 1.0, 0.0)),
        ("relu_dubins", "dubins", "controller", Normalised(3, [20, 20, 20], nn.ReLU, 1, 1.0, 20.0)),
    ]


def helper_model_f64(rng):
    """float64 MatMul + Add, Identity, Flatten, Reshape, Squeeze/Unsqueeze, Constant, raw and typed data."""
    W0 = rng.normal(size=(2, 10))
    b0 = rng.normal(size=(10,))
    W1 = rng.normal(size=(10, 10)) * 0.5
    b1 = rng.normal(size=(10,))
    W2 = rng.normal(size=(10, 2)) * 0.3
    inits = [
        numpy_helper.from_array(W0, "W0"),  # raw_data, float64
        helper.make_tensor("b0", TensorProto.DOUBLE, [10], b0.tolist()),  # typed double_data
        numpy_helper.from_array(W1, "W1"),
        numpy_helper.from_array(b1, "b1"),
        numpy_helper.from_array(W2, "W2"),
        numpy_helper.from_array(np.array([1, 2], dtype=np.int64), "shape"),
        numpy_helper.from_array(np.array([1, 10], dtype=np.int64), "shape10"),
    ]
    nodes = [
        helper.make_node("Identity", ["x"], ["x1"], name="id"),
        helper.make_node("Flatten", ["x1"], ["x2"], name="flat"),
        helper.make_node("MatMul", ["x2", "W0"], ["h0"], name="mm0"),
        helper.make_node("Add", ["h0", "b0"], ["h0b"], name="add0"),
        helper.make_node("Relu", ["h0b"], ["a0"], name="relu0"),
        helper.make_node("Reshape", ["a0", "shape10"], ["a0r"], name="reshape"),
        helper.make_node("MatMul", ["a0r", "W1"], ["h1"], name="mm1"),
        helper.make_node("Add", ["h1", "b1"], ["h1b"], name="add1"),
        helper.make_node("Sigmoid", ["h1b"], ["a1"], name="sig1"),
        helper.make_node("Constant", [], ["b2"], name="const", value=numpy_helper.from_array(rng.normal(size=(2,)), "b2v")),
        helper.make_node("MatMul", ["a1", "W2"], ["h2"], name="mm2"),
        helper.make_node("Add", ["h2", "b2"], ["y"], name="add2"),
    ]
    g = helper.make_graph(nodes, "f64", [helper.make_tensor_value_info("x", TensorProto.DOUBLE, [1, 2])],
                          [helper.make_tensor_value_info("y", TensorProto.DOUBLE, [1, 2])], inits)
    m = helper.make_model(g, producer_name="networks_import.py", opset_imports=[helper.make_opsetid("", 13)])
    onnx.checker.check_model(m)
    return m


def check_onnx(args, rng):
    for name, sysname, model, mod in torch_models():
        path = os.path.join(args.dir, name + ".onnx")
        n = len(DOMAIN[sysname][0])
        torch.onnx.export(mod.eval(), torch.zeros(1, n), path, input_names=["x"], output_names=["y"])
        X = points(sysname, args.points, rng, widen=1.5)
        ref = onnx_numpy_forward(onnx.load(path), X)
        ours = simreach_eval(args, path, sysname, model, X)
        with torch.no_grad():
            tref = mod(torch.from_numpy(X).float()).double().numpy()
        if ours is None:
            continue
        e1, e2 = rel_err(ours, ref), rel_err(ours, tref)
        print(f"onnx {name}: {len(X)} points, simreach vs NumPy reference {e1:.2e}, vs PyTorch float32 {e2:.2e}")
        if not (e1 <= 1e-6 and e2 <= 1e-6):
            fail(f"{name}: disagreement {e1:.2e} / {e2:.2e} > 1e-6")
    path = os.path.join(args.dir, "f64.onnx")
    onnx.save(helper_model_f64(rng), path)
    X = points("pendulum", args.points, rng, widen=1.5)
    ref = onnx_numpy_forward(onnx.load(path), X)
    ours = simreach_eval(args, path, "pendulum", "dynamics", X)
    if ours is not None:
        e = rel_err(ours, ref)
        print(f"onnx f64 (MatMul+Add, Identity, Flatten, Reshape, Constant, raw/typed float64): simreach vs NumPy {e:.2e}")
        if not e <= 1e-12:
            fail(f"f64: disagreement {e:.2e} > 1e-12 (float64 weights, same arithmetic)")


def check_arch(args, rng):
    """The published ARCH-COMP AINNCS controllers of jobs/arch (Keras, MATLAB Gemm and Conv exports)."""
    arch = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "jobs", "arch")
    if not os.path.isdir(arch):
        return
    for d in sorted(os.listdir(arch)):
        for f in sorted(os.listdir(os.path.join(arch, d))) if os.path.isdir(os.path.join(arch, d)) else []:
            if not f.endswith(".onnx"):
                continue
            path = os.path.join(arch, d, f)
            r = subprocess.run([args.simreach, "network", path], capture_output=True, text=True)
            if r.returncode != 0:
                fail(f"{path}: simreach network exit {r.returncode}: {r.stderr.strip()}")
                continue
            m = onnx.load(path)
            nin = [i for i in m.graph.input if i.name not in {t.name for t in m.graph.initializer}][0]
            n = int(np.prod([x.dim_value for x in nin.type.tensor_type.shape.dim if x.dim_value > 0]))
            print(f"arch {d}/{f}: read ({n} inputs)")
            if n == 2:  # the single pendulum: against the NumPy reference
                X = points("pendulum", args.points, rng, widen=1.5)
                ref = onnx_numpy_forward(m, X)
                ours = simreach_eval(args, path, "pendulum", "controller", X)
                if ours is not None:
                    e = rel_err(ours, ref)
                    print(f"arch {d}/{f}: {len(X)} points, simreach vs NumPy reference {e:.2e}")
                    if not e <= 1e-6:
                        fail(f"{path}: disagreement {e:.2e}")


def check_convert(args):
    src = os.path.join(args.dir, "relu_2_25_25_1.onnx")
    out = os.path.join(args.dir, "relu_2_25_25_1.h5")
    if os.path.exists(out):
        os.remove(out)  # a previous run's
    r = subprocess.run([args.simreach, "network", src, "-output", out, "-sys", "pendulum", "-model", "controller"], capture_output=True, text=True)
    if r.returncode != 0 or "layer 1: 25 -> 25, relu" not in r.stdout or "output 0: y * 1 + -10" not in r.stdout:
        fail(f"simreach network -output: exit {r.returncode}\n{r.stdout}{r.stderr}")
        return
    print(r.stdout.strip())
    again = subprocess.run([args.simreach, "network", src, "-output", out, "-sys", "pendulum", "-model", "controller"], capture_output=True, text=True)
    if again.returncode != 2:
        fail(f"an existing -output was not refused (exit {again.returncode})")
    X = points("pendulum", 200, np.random.default_rng(5))
    a = simreach_eval(args, src, "pendulum", "controller", X)
    b = simreach_eval(args, out, "pendulum", "controller", X)
    if a is None or b is None or not np.array_equal(a, b):
        fail("the converted file does not give the same N(x) bit for bit")
    import h5py
    encl = []
    for net, extra in ((src, ["-sys", "pendulum", "-model", "controller"]), (out, [])):
        o = os.path.join(args.dir, os.path.basename(net) + ".abs.h5")
        r = subprocess.run([args.mpiexec, "-n", "2", *args.mpiexec_extra.split(), args.simreach, "verify", "-network", net, *extra,
                            "-cells", "60,60", "-enclosure", "both", "-output", o, "-force"], capture_output=True, text=True)
        if r.returncode != 0:
            fail(f"verify {net}: exit {r.returncode}: {r.stdout[-300:]}{r.stderr[-300:]}")
            return
        with h5py.File(o, "r") as f:
            encl.append(f["cells/enclosure"][()])
            fmt = f.attrs["simreach_format"]
            if (fmt.decode() if isinstance(fmt, bytes) else fmt) != "simreach-abstraction-3":
                fail(f"{o}: format {fmt}, expected simreach-abstraction-3 (activations, output offset and checksums)")
    if not np.array_equal(encl[0], encl[1]):
        fail("verify on the ONNX file and on the converted HDF5 file differ")
    r = subprocess.run([args.mpiexec, "-n", "2", *args.mpiexec_extra.split(), args.simreach, "check", o], capture_output=True, text=True)
    if r.returncode != 0 or "every cell proven" not in r.stdout:
        fail(f"simreach check of the ONNX network's abstraction file: exit {r.returncode}\n{r.stdout[-500:]}")
    print("convert: simreach network -output writes our file; same N(x) bit for bit, same enclosures, check proves every cell")


# ---------------------------------------------------------------- NNet
def write_nnet(path, Ws, bs, mins, maxes, means, ranges):
    sizes = [Ws[0].shape[1]] + [W.shape[0] for W in Ws]
    with open(path, "w") as f:
        f.write("// networks_import.py test network\n// second comment line\n")
        f.write(f"{len(Ws)},{sizes[0]},{sizes[-1]},{max(sizes)},\n")
        f.write(",".join(str(s) for s in sizes) + ",\n0,\n")
        for arr in (mins, maxes, means, ranges):
            f.write(",".join(repr(float(v)) for v in arr) + ",\n")
        for W, b in zip(Ws, bs):
            for row in W:
                f.write(",".join(repr(float(v)) for v in row) + ",\n")
            for v in b:
                f.write(repr(float(v)) + ",\n")


def nnet_reference(X, Ws, bs, mins, maxes, means, ranges):
    """NNet.py evaluate_network: clip, normalise, ReLU hidden layers, un-normalise the output."""
    n = X.shape[1]
    Z = np.empty_like(X)
    for j in range(n):
        x = np.where(X[:, j] > maxes[j], maxes[j], np.where(X[:, j] < mins[j], mins[j], X[:, j]))
        Z[:, j] = (x - means[j]) / ranges[j]
    h = Z
    for k, (W, b) in enumerate(zip(Ws, bs)):
        h = h @ W.T + b
        if k < len(Ws) - 1:
            h = np.maximum(h, 0.0)
    return h * ranges[-1] + means[-1]


def check_nnet(args, rng):
    Ws = [rng.normal(size=(25, 2)), rng.normal(size=(25, 25)) * 0.3, rng.normal(size=(1, 25)) * 0.3]
    bs = [rng.normal(size=25) * 0.1, rng.normal(size=25) * 0.1, rng.normal(size=1)]
    mins, maxes = np.array([-0.5, -1.0]), np.array([0.7, 1.5])
    means, ranges = np.array([0.1, -0.2, 0.3]), np.array([0.8, 2.5, 4.0])
    path = os.path.join(args.dir, "pend.nnet")
    write_nnet(path, Ws, bs, mins, maxes, means, ranges)
    X = points("pendulum", args.points, rng, widen=1.5)
    # exactly at the bounds and beyond them, every combination
    edge = []
    for a in (mins[0], maxes[0], mins[0] - 0.3, maxes[0] + 0.3, 0.0):
        for b in (mins[1], maxes[1], mins[1] - 0.5, maxes[1] + 0.5, 0.0):
            edge.append([a, b])
    X = np.vstack([np.array(edge), X])
    ref = nnet_reference(X, Ws, bs, mins, maxes, means, ranges)
    ours = simreach_eval(args, path, "pendulum", "controller", X)
    if ours is not None:
        e, e_edge = rel_err(ours, ref), rel_err(ours[:len(edge)], ref[:len(edge)])
        print(f"nnet: {len(X)} points ({len(edge)} at and beyond the clipping bounds): simreach vs the format's reference {e:.2e} (bounds {e_edge:.2e})")
        if not e <= 1e-12:
            fail(f"nnet: disagreement {e:.2e}")


# ---------------------------------------------------------------- bad files
def expect_refused(args, path, want, extra=("-sys", "pendulum", "-model", "controller")):
    out = os.path.join(args.dir, "never.h5")
    r = subprocess.run([args.simreach, "verify", "-network", path, *extra, "-cells", "10,10", "-output", out], capture_output=True, text=True)
    lines = [l for l in (r.stdout + r.stderr).splitlines() if l.strip()]
    ok = r.returncode == 2 and len(lines) == 1 and want in lines[0] and path in lines[0] and not os.path.exists(out)
    print(f"refused {os.path.basename(path)}: exit {r.returncode}: {lines[0] if lines else ''}")
    if not ok:
        fail(f"{path}: expected one line with '{want}' and exit 2 before any work; got exit {r.returncode}: {lines}")


def check_bad(args, rng):
    good = os.path.join(args.dir, "relu_2_25_25_1.onnx")
    data = open(good, "rb").read()
    p = os.path.join(args.dir, "truncated.onnx")
    open(p, "wb").write(data[: len(data) * 2 // 3])
    expect_refused(args, p, "ONNX")
    m = onnx.load(good)
    W = m.graph.initializer[0]
    arr = numpy_helper.to_array(W).copy()
    arr.flat[3] = np.nan
    W.CopyFrom(numpy_helper.from_array(arr, W.name))
    p = os.path.join(args.dir, "nan.onnx")
    onnx.save(m, p)
    expect_refused(args, p, "must be finite")
    m = onnx.load(good)
    for nd in m.graph.node:
        if nd.op_type == "Relu":
            nd.op_type = "LeakyRelu"
            break
    p = os.path.join(args.dir, "leaky.onnx")
    onnx.save(m, p)
    expect_refused(args, p, "operator LeakyRelu is not supported")
    expect_refused(args, good, "inputs", extra=("-sys", "dubins", "-model", "controller"))
    m = onnx.load(good)
    m.graph.input.append(helper.make_tensor_value_info("x2", TensorProto.FLOAT, [1, 2]))
    p = os.path.join(args.dir, "two_inputs.onnx")
    onnx.save(m, p)
    expect_refused(args, p, "second graph input")
    nn_path = os.path.join(args.dir, "pend.nnet")
    text = open(nn_path).read().splitlines()
    bad = text[:12] + ["nan," + text[12].split(",", 1)[1]] + text[13:]
    p = os.path.join(args.dir, "nan.nnet")
    open(p, "w").write("\n".join(bad) + "\n")
    expect_refused(args, p, "must be finite")
    p = os.path.join(args.dir, "short.nnet")
    open(p, "w").write("\n".join(text[: len(text) // 2]) + "\n")
    expect_refused(args, p, "ends before")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--simreach", required=True)
    ap.add_argument("--mpiexec", required=True)
    ap.add_argument("--mpiexec-extra", default="")
    ap.add_argument("--dir", required=True)
    ap.add_argument("--points", type=int, default=10000)
    args = ap.parse_args()
    os.makedirs(args.dir, exist_ok=True)
    rng = np.random.default_rng(2026)
    check_onnx(args, rng)
    check_arch(args, rng)
    check_convert(args)
    check_nnet(args, rng)
    check_bad(args, rng)
    if FAILS:
        print(f"networks_import.py: {len(FAILS)} failure(s)")
        return 1
    print("networks_import.py: ONNX and NNet agree with their references; bad files refused")
    return 0


if __name__ == "__main__":
    sys.exit(main())
