"""Plant the attack of issue 34 in an abstraction file (simreach verify -output): every row's sink
flag cleared, E_k clipped to D and the row's index box set to the cells the clipped E_k meets,
so that the validation on open passes once tests/sr_reseal.py recomputes the checksums; only a
re-proof of the lists catches it.   python3 sr_clip_sink.py FILE"""


import sys, h5py, numpy as np
f = h5py.File(sys.argv[1], "r+")
L = f["cells/list"]; r = L[()]; n = (r.shape[1] - 1) // 2
E = f["cells/enclosure"]; e = E[()]
p = f["partition"]
ok = (r[:, -1] & 2) == 0
for d in range(n):
    cl, ch = p[f"cell_lo_{d}"][()], p[f"cell_hi_{d}"][()]
    lo, hi = p[f"boundary_hi_{d}"][0], p[f"boundary_lo_{d}"][-1]
    e[ok, d] = np.clip(e[ok, d], lo, hi)
    e[ok, n + d] = np.clip(e[ok, n + d], lo, hi)
    r[ok, d] = np.searchsorted(ch, e[ok, d], side="left")
    r[ok, n + d] = np.searchsorted(cl, e[ok, n + d], side="right") - 1
r[ok, -1] &= ~1
L[...] = r
E[...] = e
f.close()
