#!/usr/bin/env python3
"""The VCAS and QUAD controllers of jobs/arch (issue 35), as simreach reads them, against NumPy
forward passes written here from the ONNX graphs (python3-onnx reads the tensors; the operators are
evaluated by hand: VCAS Sub, five 1x1 Conv + Relu, a 1x1 Conv, Flatten; QUAD Gemm (transB) and
Sigmoid).  simreach's N(x) (test_network_eval: SRNetworkLoad and SRMLPForward) must agree within
1e-13 relative (|a - b| <= 1e-13 max(1, |b|)) at 2,000 points per network: half around the
instances' states (VCAS: the normalised inputs of h in [-400, 400] ft, hd in [-60, 60] ft/s, tau in
[0, 25] s; QUAD: [-0.5, 0.5]^6 x [-0.3, 0.3]^6), half in [-3, 3]^n.  The nine VCAS networks must
differ from each other (the files are the nine advisories', not one file nine times).
Usage: networks_vcas_quad.py TEST_NETWORK_EVAL SRCDIR WORKDIR"""
import os
import subprocess
import sys

import numpy as np

try:
    import onnx
    from onnx import numpy_helper
except ImportError as e:
    print(f"networks_vcas_quad: skipped ({e})")
    sys.exit(77)

ev, src, work = sys.argv[1:4]
os.makedirs(work, exist_ok=True)
A = os.path.join(src, "jobs", "arch")
rng = np.random.default_rng(3509)
fails = 0


def tensors(m):
    return {t.name: numpy_helper.to_array(t).astype(np.float64) for t in m.graph.initializer}


def vcas_forward(path, X):
    m = onnx.load(path)
    T = tensors(m)
    z = X
    convs = [nd for nd in m.graph.node if nd.op_type == "Conv"]
    for nd in m.graph.node:
        if nd.op_type == "Sub":
            z = z - T[nd.input[1]].reshape(-1)
        elif nd.op_type == "Conv":
            W = T[nd.input[1]]
            z = z @ W.reshape(W.shape[0], -1).T + T[nd.input[2]]
        elif nd.op_type == "Relu":
            z = np.maximum(z, 0)
        elif nd.op_type != "Flatten":
            sys.exit(f"networks_vcas_quad: {path}: unexpected operator {nd.op_type}")
    return z, len(convs)


def quad_forward(path, X):
    m = onnx.load(path)
    T = tensors(m)
    z = X
    for nd in m.graph.node:
        if nd.op_type == "Gemm":
            tb = [a.i for a in nd.attribute if a.name == "transB"]
            W = T[nd.input[1]]
            z = z @ (W.T if tb and tb[0] else W) + T[nd.input[2]]
        elif nd.op_type == "Sigmoid":
            z = 1 / (1 + np.exp(-z))
        else:
            sys.exit(f"networks_vcas_quad: {path}: unexpected operator {nd.op_type}")
    return z


def sim_eval(net, X):
    pts = os.path.join(work, "points.txt")
    np.savetxt(pts, X, fmt="%.17g")
    r = subprocess.run([ev, "-network", net, "-points", pts], capture_output=True, text=True)
    if r.returncode != 0:
        sys.exit(f"networks_vcas_quad: {net}: test_network_eval exit {r.returncode}: {r.stdout[-300:]} {r.stderr[-300:]}")
    return np.array([[float(t) for t in l.split()[1:]] for l in r.stdout.splitlines() if l.startswith("N ")])


def rel(a, b):
    return float(np.max(np.abs(a - b) / np.maximum(1.0, np.abs(b))))


near = np.column_stack([rng.uniform(-400, 400, 1000) / 16000, rng.uniform(-60, 60, 1000) / 5000, (rng.uniform(0, 25, 1000) - 20) / 40])
X = np.vstack([near, rng.uniform(-3, 3, (1000, 3))])
outs = []
for k in range(1, 10):
    net = os.path.join(A, "vcas", f"VertCAS_noResp_pra0{k}_v9_20HU_200.onnx")
    want, nconv = vcas_forward(net, X)
    got = sim_eval(net, X)
    d = rel(got, want) if got.shape == want.shape else np.inf
    ok = d <= 1e-13 and nconv == 6 and want.shape[1] == 9
    print(f"vcas network {k}: {len(X)} points, largest relative difference {d:.2g} {'ok' if ok else 'WRONG'}")
    fails += not ok
    outs.append(want)
same = [(i + 1, j + 1) for i in range(9) for j in range(i) if np.allclose(outs[i], outs[j])]
if same:
    print(f"vcas networks equal in pairs {same}: WRONG")
    fails += 1
near = np.hstack([rng.uniform(-0.5, 0.5, (1000, 6)), rng.uniform(-0.3, 0.3, (1000, 6))])
X = np.vstack([near, rng.uniform(-3, 3, (1000, 12))])
net = os.path.join(A, "quad", "quad_controller_3_64_torch.onnx")
want, got = quad_forward(net, X), sim_eval(net, X)
d = rel(got, want) if got.shape == want.shape else np.inf
print(f"quad network: {len(X)} points, largest relative difference {d:.2g} {'ok' if d <= 1e-13 else 'WRONG'}")
fails += not d <= 1e-13
print("FAIL" if fails else "PASS")
sys.exit(1 if fails else 0)
