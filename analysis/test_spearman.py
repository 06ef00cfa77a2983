#!/usr/bin/python3
"""Checks the Spearman values a simreach study stored in /summary against scipy.

    /usr/bin/python3 analysis/test_spearman.py RESULTS.h5

Independent oracle for the gather phase (SPEC §9): scipy.stats.spearmanr (average ranks for
ties) on the stored checkpoint rows (held-out L_sim, held-out H), per run (/summary/spearman_run), pooled per tau
(/summary/spearman_tau) and over every run (/summary/spearman_all).  Rows never written are NaN
in the checkpoint column and are left out; a value is NaN when it is undefined (fewer than two
rows or a constant series), on both sides.  Exit status 0 when everything agrees to 1e-12.
Uses Debian's python3-h5py and python3-scipy (run with /usr/bin/python3).
"""
import math
import sys

import h5py
import numpy as np
from scipy import stats


def columns(dset):
    c = dset.attrs["columns"]
    return (c.decode() if isinstance(c, bytes) else str(c)).split(",")


def spearman(x, y):
    x, y = np.asarray(x, float), np.asarray(y, float)
    if len(x) < 2 or not (np.all(np.isfinite(x)) and np.all(np.isfinite(y))):
        return math.nan
    if np.all(x == x[0]) or np.all(y == y[0]):
        return math.nan
    return float(stats.spearmanr(x, y).correlation)


def agree(a, b, tol=1e-12):
    return (math.isnan(a) and math.isnan(b)) or abs(a - b) <= tol


def main(path):
    f = h5py.File(path, "r")
    ck = f["/runs/checkpoints"]
    col = {n: i for i, n in enumerate(columns(ck))}
    table = ck[()]
    pts = f["/grid/points"][()]
    taus = f["/grid/tau"][()]
    s = f["/summary"]
    bad, checked = [], 0

    def rows(r):
        t = table[r]
        ok = np.isfinite(t[:, col["checkpoint"]])
        return t[ok, col["Lsim"]], t[ok, col["H"]]  # the training L_sim against the held-out H (SPEC §9, turn 4, issue 33)

    for r in range(table.shape[0]):
        x, y = rows(r)
        want, got = spearman(x, y), float(s["spearman_run"][r])
        checked += 1
        if not agree(want, got):
            bad.append(f"run {r}: file {got!r}, scipy {want!r}")
    for it, tau in enumerate(taus):
        xs, ys = [], []
        for r in range(table.shape[0]):
            if pts[r, 1] == tau:
                x, y = rows(r)
                xs += list(x)
                ys += list(y)
        want, got = spearman(xs, ys), float(s["spearman_tau"][it])
        checked += 1
        if not agree(want, got):
            bad.append(f"tau {tau}: file {got!r}, scipy {want!r}")
    xs, ys = [], []
    for r in range(table.shape[0]):
        x, y = rows(r)
        xs += list(x)
        ys += list(y)
    want, got = spearman(xs, ys), float(s["spearman_all"][()].reshape(-1)[0])
    checked += 1
    if not agree(want, got):
        bad.append(f"pooled: file {got!r}, scipy {want!r}")
    defined = sum(1 for r in range(table.shape[0]) if not math.isnan(float(s["spearman_run"][r])))
    if defined == 0:
        bad.append("no run has a defined Spearman value: the check would be empty")
    for b in bad:
        print("MISMATCH", b)
    print(f"{checked} Spearman values checked against scipy.stats.spearmanr ({defined} runs defined): {'OK' if not bad else 'FAILED'}")
    return 1 if bad else 0


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    sys.exit(main(sys.argv[1]))
