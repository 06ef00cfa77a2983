#!/usr/bin/python3
"""NumPy reference for tests/bench/bench_enclosure.sh: the same midpoint-radius interval
propagation as src/abstraction/enclosure.c (SPEC 7; same a-priori rounding terms, np.tanh widened by the
same absolute margin), vectorised over the cells in chunks, on the boxes and weights that
bench_enclosure -dump wrote.  Run with Debian's /usr/bin/python3 (python3-numpy).

  numpy_reference.py PREFIX W1,W2,...   -> prints "NUMPY <cells> <wall s> <CPU s> <max diff vs C / mean width>"
"""
import sys
import time

import numpy as np

prefix, widths = sys.argv[1], [int(w) for w in sys.argv[2].split(",")]
boxes = np.fromfile(prefix + ".boxes").reshape(-1, 2, 2)  # lo[2], hi[2] per cell
params = np.fromfile(prefix + ".params")
Ec = np.fromfile(prefix + ".E").reshape(-1, 4)
dims = [2] + widths + [2]
layers, off = [], 0
for nin, nout in zip(dims[:-1], dims[1:]):
    W = params[off:off + nin * nout].reshape(nout, nin)
    off += nin * nout
    b = params[off:off + nout]
    off += nout
    layers.append((W, np.abs(W), b, np.abs(W).sum(axis=1) + np.abs(b)))
assert off == params.size, "parameter count does not match the widths"

EPS = 2.0 ** -44  # 2 SR_TANH_FAST_ERR, as in the C kernel


def enclose(lo, hi):
    m = 0.5 * lo + 0.5 * hi
    r = np.maximum(hi - m, m - lo)
    for l, (W, aW, b, arow) in enumerate(layers):
        g = (W.shape[1] + 3) * 2.0 ** -52
        M = m @ W.T + b
        R = r @ aW.T
        A = np.abs(m) @ aW.T + np.abs(b) if l == 0 else arow
        rho = (R + A * g) * (1 + g) + np.finfo(float).tiny
        if l == len(layers) - 1:
            return lo + (M - rho), hi + (M + rho)
        a, c = M - rho, M + rho
        a = np.maximum(np.tanh(a) - (EPS + np.abs(a) * 2.0 ** -52), -1.0)
        c = np.minimum(np.tanh(c) + (EPS + np.abs(c) * 2.0 ** -52), 1.0)
        m = 0.5 * a + 0.5 * c
        r = (0.5 * c - 0.5 * a) + 2.0 ** -50


K = boxes.shape[0]
chunk = 1 << 15
E = np.empty((K, 4))
t0, c0 = time.perf_counter(), time.process_time()
for s in range(0, K, chunk):
    lo, hi = enclose(boxes[s:s + chunk, 0, :], boxes[s:s + chunk, 1, :])
    E[s:s + chunk, :2], E[s:s + chunk, 2:] = lo, hi
t, c = time.perf_counter() - t0, time.process_time() - c0
wc = (Ec[:, 2:] - Ec[:, :2]).mean()
diff = np.abs(E - Ec).max() / wc
print(f"NUMPY {K} {t:.6f} {c:.6f} {diff:.3g}")
