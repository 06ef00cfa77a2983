#!/usr/bin/python3
"""Checks the final enclosures a simreach study stored in /runs/enclosures.

    /usr/bin/python3 analysis/test_enclosures.py RESULTS.h5 [--simreach PATH]

For every finished run of a partition study: the row is written (no NaN), every enclosure is a
box (lo <= hi), the tightest enclosure lies inside the run's own (it is intersected with `both`,
which is inside `interval`), and the volume-weighted mean volume of the stored tightest boxes,
recomputed here from the stored cells (/runs/cells) and the domain of SPEC §2, equals the last
checkpoint row's vol_E_tight (the same network and cells) to 1e-9 relative.  Runs never finished
must have NaN rows.  With --simreach: for three finished runs, f_phi at a 7^n grid of every cell
(corners and faces included; `simreach verify -from RESULTS -run r -eval`) lies inside both stored
enclosures of its cell, and a planted violation (one stored box shrunk below a sampled image) is
caught.  Exit status 0 when all holds; 77 (skip) for free boxes or a file without the dataset.
"""
import os
import subprocess
import sys
import tempfile

import h5py
import numpy as np

DOMAIN = {"toy1d": [(-2.0, 2.0)], "pendulum": [(-1.0, 1.0), (-2.0, 2.0)],
          "dubins": [(-2.0, 2.0), (-1.0, 1.0), (-np.pi / 2, np.pi / 2)]}


def option(canonical, key, default=None):
    for line in canonical.splitlines():
        parts = line.split(None, 1)
        if parts and parts[0] == key:
            return parts[1] if len(parts) > 1 else ""
    return default


def images(simreach, path, r, X):
    """f_phi(x) of run r's final network at the rows of X (simreach verify -eval)."""
    with tempfile.NamedTemporaryFile("w", suffix=".txt", delete=False) as t:
        for x in X:
            t.write(" ".join(repr(float(v)) for v in x) + "\n")
        name = t.name
    try:
        out = subprocess.run([simreach, "verify", "-from", path, "-run", str(r), "-eval", name], capture_output=True, text=True, check=True).stdout
    finally:
        os.unlink(name)
    Y = [[float(v) for v in line.split(" f ", 1)[1].split()] for line in out.splitlines() if " f " in line]
    return np.array(Y)


def outside(Y, owner, lo, hi):
    """How many images lie outside the box of their cell."""
    return int(np.sum(np.any((Y < lo[owner]) | (Y > hi[owner]), axis=1)))


def main(path, simreach=None):
    f = h5py.File(path, "r")
    canon = f.attrs["options_canonical"]
    canon = canon.decode() if isinstance(canon, bytes) else str(canon)
    if option(canon, "-cells_param", "partition") != "partition":
        print("SKIP: not a partition study")
        return 77
    sysname = option(canon, "-sys", "pendulum")
    dom = DOMAIN[sysname]
    n = len(dom)
    counts = [int(c) for c in option(canon, "-cells").split(",")]
    K = int(np.prod(counts))
    if "/runs/enclosures" not in f:
        print("SKIP: no /runs/enclosures (a file written before they were stored)")
        return 77
    E = f["/runs/enclosures"][()]
    status = f["/runs/status"][()]
    cells = f["/runs/cells"][()]
    ck = f["/runs/checkpoints"]
    cols = ck.attrs["columns"]
    cols = (cols.decode() if isinstance(cols, bytes) else str(cols)).split(",")
    iv = cols.index("vol_E_tight")
    table = ck[()]
    assert E.shape == (len(status), K, 4 * n), E.shape
    bad = 0
    checked = 0
    for r in range(len(status)):
        if status[r] != 2:  # not done: never written
            if not np.all(np.isnan(E[r])):
                print(f"run {r}: status {status[r]} but enclosures written")
                bad += 1
            continue
        e = E[r]
        if np.isnan(e).any():
            print(f"run {r}: done but /runs/enclosures has NaN")
            bad += 1
            continue
        rlo, rhi, tlo, thi = e[:, 0:n], e[:, n:2 * n], e[:, 2 * n:3 * n], e[:, 3 * n:4 * n]
        if (rlo > rhi).any() or (tlo > thi).any():
            print(f"run {r}: an enclosure with lo > hi")
            bad += 1
        if (tlo < rlo).any() or (thi > rhi).any():
            print(f"run {r}: the tightest enclosure leaves the run's own")
            bad += 1
        # the partition: interior boundaries dimension by dimension, the ends of D
        faces, off = [], 0
        for d in range(n):
            m = counts[d]
            faces.append(np.concatenate([[dom[d][0]], cells[r, off:off + m - 1], [dom[d][1]]]))
            off += m - 1
        sw = sv = 0.0
        for k in range(K):
            q, wk = k, 1.0
            for d in range(n):
                i = q % counts[d]
                q //= counts[d]
                wk *= faces[d][i + 1] - faces[d][i]
            vol = float(np.prod(thi[k] - tlo[k])) if np.all(np.isfinite(e[k])) else np.inf
            sw += wk
            sv += wk * vol
        rows = table[r, :, iv]
        last = rows[~np.isnan(rows)][-1]
        if not (abs(sv / sw - last) <= 1e-9 * max(abs(last), 1e-300)):
            print(f"run {r}: mean vol of the stored tightest boxes {sv / sw!r}, last checkpoint vol_E_tight {last!r}")
            bad += 1
        if simreach and (checked in (0, 2) or r == len(status) - 1):
            # dense sampling: a 7^n grid of each cell, corners and faces included
            g = np.linspace(0.0, 1.0, 7)
            mesh = np.array(np.meshgrid(*([g] * n), indexing="ij")).reshape(n, -1).T
            X, owner = [], []
            for k in range(K):
                q, lo, hi = k, [], []
                for d in range(n):
                    i = q % counts[d]
                    q //= counts[d]
                    lo.append(faces[d][i])
                    hi.append(faces[d][i + 1])
                lo, hi = np.array(lo), np.array(hi)
                X.extend(lo + mesh * (hi - lo))
                owner.extend([k] * len(mesh))
            X, owner = np.array(X), np.array(owner)
            Y = images(simreach, path, r, X)
            if Y.shape != X.shape:
                print(f"run {r}: simreach verify -eval gave {Y.shape} images for {X.shape} points")
                bad += 1
            else:
                no_r, no_t = outside(Y, owner, rlo, rhi), outside(Y, owner, tlo, thi)
                if no_r or no_t:
                    print(f"run {r}: {no_r} sampled images outside the run's stored E_k, {no_t} outside the tightest")
                    bad += 1
                # planted violation: the tightest box of one cell shrunk below its highest image in dimension 0
                k0 = int(owner[np.argmax(Y[:, 0])])
                thi2 = thi.copy()
                thi2[k0, 0] = Y[owner == k0, 0].max() - 1e-9 * max(1.0, abs(thi[k0, 0]))
                if outside(Y, owner, tlo, thi2) == 0:
                    print(f"run {r}: a planted violation in cell {k0} was not caught")
                    bad += 1
                print(f"run {r}: {len(X)} sampled images inside both stored enclosures of their cells; planted violation caught")
        checked += 1
    if bad or checked == 0:
        print(f"FAIL: {bad} problems, {checked} finished runs checked")
        return 1
    print(f"PASS: /runs/enclosures of {checked} finished runs: boxes, tightest inside the run's, mean volume = last checkpoint's")
    return 0


if __name__ == "__main__":
    args = sys.argv[1:]
    sim = None
    if "--simreach" in args:
        i = args.index("--simreach")
        sim = args[i + 1]
        del args[i : i + 2]
    sys.exit(main(args[0], sim))
