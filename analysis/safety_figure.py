#!/usr/bin/env python3
"""Figure of a safety file (simreach safe -output): each cell coloured by its verified horizon,
the verified-safe set in its own colour.  1-D: horizon against x; 2-D: a map over the cells;
3-D: a slice at the middle index of the last dimension (or --slice i).

    analysis/safety_figure.py SAFE.h5 ABS.h5 -o horizon.png [--slice i]

Reads the partition (cell boundaries) from the abstraction file the safety file names.
Debian's python3-h5py, numpy and matplotlib."""
import argparse
import sys

import h5py
import matplotlib
matplotlib.use("Agg")
import matplotlib.pyplot as plt
import numpy as np


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("safety")
    ap.add_argument("abstraction")
    ap.add_argument("-o", "--output", required=True)
    ap.add_argument("--slice", type=int, default=None, help="3-D: index of the last dimension to draw")
    a = ap.parse_args()
    s, f = h5py.File(a.safety, "r"), h5py.File(a.abstraction, "r")
    n, K = int(f.attrs["n"][0]), int(f.attrs["K"][0])
    if int(s.attrs["K"]) != K:
        sys.exit(f"{a.safety} has {int(s.attrs['K'])} cells, {a.abstraction} has {K}: not the same abstraction")
    N = [int(c) for c in f["partition/counts"][()]]
    b = [0.5 * f[f"partition/boundary_lo_{e}"][()] + 0.5 * f[f"partition/boundary_hi_{e}"][()] for e in range(n)]
    h = s["horizon"][()].astype(float)
    hmax = max(1.0, h.max())
    safe = h < 0
    h[safe] = np.nan
    sysname = f["network"].attrs["sys"]
    sysname = sysname.decode() if isinstance(sysname, bytes) else str(sysname)
    title = (f"{sysname}: verified-safe {float(s.attrs['safe_fraction']):.3f} of vol(D) (grey), "
             f"horizons of the rest (max {int(s.attrs['max_horizon'])})")
    fig, ax = plt.subplots(figsize=(7, 5))
    cmap = plt.get_cmap("viridis").copy()
    cmap.set_bad("0.75")
    if n == 1:
        x = 0.5 * (b[0][:-1] + b[0][1:])
        ax.bar(x, np.where(safe, hmax + 1, h), width=np.diff(b[0]), color=np.where(safe, "0.6", "C0"))
        ax.set_xlabel("x")
        ax.set_ylabel("verified horizon (grey: safe)")
    else:
        grid = h.reshape([N[e] for e in reversed(range(n))])  # [i2][i1][i0]
        if n == 3:
            sl = N[2] // 2 if a.slice is None else a.slice
            grid = grid[sl]
            title += f"\nslice: index {sl} of dimension 2, [{b[2][sl]:.3g}, {b[2][sl + 1]:.3g}]"
        m = ax.pcolormesh(b[0], b[1], np.ma.masked_invalid(grid), cmap=cmap, vmin=0, vmax=hmax, shading="flat")
        fig.colorbar(m, ax=ax, label="verified horizon (steps in D)")
        ax.set_xlabel("x0")
        ax.set_ylabel("x1")
    ax.set_title(title, fontsize=9)
    fig.tight_layout()
    fig.savefig(a.output, dpi=110)
    print(f"safety_figure: wrote {a.output}")


if __name__ == "__main__":
    main()
