#!/usr/bin/env python3
"""The seed's published 1-D check beside a study of jobs/toy1d_likeforlike.opts (SPEC §9, last
bullet; docs/study.md, "The published check like for like").

    python3 analysis/published_check.py FILE.h5

Prints, per (beta, tau), the final-checkpoint means over seeds of the columns that carry the
seed's figures (prediction MSE = pred_error, eps-coverage = coverage, successors = succ_empirical,
the cells hit by sampled images, and succ_certified, |C(k)| with the sink, beside it; H), the
smallest H in any row, and Spearman(L_sim, H) over the 9 final checkpoints as the seed pooled
them (3 betas x 3 seeds at one tau, and 3 betas x 3 taus per seed), with the seed's values.
Exit 1 when the file lacks the grid the seed's check ran (beta 0 and 0.15)."""
import sys

import h5py
import numpy as np
from scipy.stats import spearmanr

SEED = {"pred_error": (0.00063, 0.00262), "coverage": (0.993, 0.090), "succ_empirical": (1.331, 0.650), "H": (0.0707, -0.0365)}


def main(path):
    f = h5py.File(path, "r")
    ck = f["/runs/checkpoints"][()]
    cols = f["/runs/checkpoints"].attrs["columns"]
    cols = (cols.decode() if isinstance(cols, bytes) else str(cols)).split(",")
    c = cols.index
    beta, tau = list(f["/grid/beta"][()]), list(f["/grid/tau"][()])
    ns, nt = len(f["/grid/seed"][()]), len(tau)
    if 0.0 not in beta or 0.15 not in beta:
        sys.exit(f"{path}: the seed's check needs beta 0 and 0.15 in /grid/beta (has {beta})")

    def final(ib, it, s):
        r = (ib * nt + it) * ns + s
        rows = [j for j in range(ck.shape[1]) if np.isfinite(ck[r, j, c("Lsim")])]
        return ck[r, rows[-1]]

    names = ("pred_error", "coverage", "succ_empirical", "succ_certified", "H")
    print("beta tau | " + " | ".join(names) + "   (final checkpoint, mean over %d seeds)" % ns)
    for ib, b in enumerate(beta):
        for it, t in enumerate(tau):
            F = np.array([final(ib, it, s) for s in range(ns)])
            print(f"{b:g} {t:g} | " + " | ".join(f"{F[:, c(n)].mean():.5g}" for n in names))
    print("seed (beta 0 -> 0.15): " + ", ".join(f"{n} {a} -> {b}" for n, (a, b) in SEED.items()) + ", Spearman 0.967 over 9 final checkpoints")
    print(f"smallest H in any row: {np.nanmin(ck[:, :, c('H')]):.4g}")
    for it, t in enumerate(tau):
        F = np.array([final(ib, it, s) for ib in range(len(beta)) for s in range(ns)])
        print(f"Spearman(L_sim, H) over the {len(F)} final checkpoints at tau {t:g} (betas x seeds): {spearmanr(F[:, c('Lsim')], F[:, c('H')])[0]:.3f}")
    for s in range(ns):
        F = np.array([final(ib, it, s) for ib in range(len(beta)) for it in range(nt)])
        print(f"Spearman(L_sim, H) over the {len(F)} final checkpoints of seed {s} (betas x taus): {spearmanr(F[:, c('Lsim')], F[:, c('H')])[0]:.3f}")


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    main(sys.argv[1])
