#!/usr/bin/env python3
"""Draw the tubes of `simreach closedloop -o TUBES.h5` (SPEC §15; docs/arch.md).

  tube.py TUBES.h5 -o tube.png [--dims 0,1]

One panel per state over time: the hull of all pieces' tube boxes per period (shaded), each
piece's tube (thin outlines, up to 200 pieces), the constraints that bound a single state
(dashed, over their time window), and the simulated trajectory (the counterexample when the
verdict is FALSIFIED, else the one from the centre of X0).  A last panel shows the first two
dimensions (or --dims) in phase space with the pieces of X0 coloured proven / open."""
import argparse
import sys

import h5py
import numpy as np

try:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from matplotlib.patches import Rectangle
except ImportError:
    print("tube.py: matplotlib is missing (Debian python3-matplotlib)", file=sys.stderr)
    sys.exit(77)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("file")
    ap.add_argument("-o", "--out", required=True)
    ap.add_argument("--dims", default="0,1")
    a = ap.parse_args()
    f = h5py.File(a.file, "r")
    fmt = f.attrs["simreach_format"]
    fmt = fmt.decode() if isinstance(fmt, bytes) else str(fmt)
    if not fmt.startswith("simreach closedloop tubes"):
        sys.exit(f"tube.py: {a.file} is not a simreach closedloop tubes file (format '{fmt}')")
    names = f.attrs["states"]
    names = (names.decode() if isinstance(names, bytes) else str(names)).split(",")
    verdict = f.attrs["verdict"]
    verdict = verdict.decode() if isinstance(verdict, bytes) else str(verdict)
    T, steps, n = float(f.attrs["period"]), int(f.attrs["steps"]), len(names)
    pieces = f["pieces"][:]
    tubes = f["tubes"][:] if "tubes" in f else None
    cons = f["constraints"][:]
    traj = f["trajectory"][:]
    sub = int(f["trajectory"].attrs["sub"])
    fig, axes = plt.subplots(1, n + 1, figsize=(3.2 * (n + 1), 3.2), squeeze=False)
    axes = axes[0]
    t = np.arange(steps) * T
    for i in range(n):
        ax = axes[i]
        if tubes is not None and len(tubes):
            lo = np.nanmin(tubes[:, :, i, 0], axis=0)
            hi = np.nanmax(tubes[:, :, i, 1], axis=0)
            ax.fill_between(np.repeat(np.r_[t, steps * T], 2)[1:-1], np.repeat(lo, 2), np.repeat(hi, 2), color="tab:blue", alpha=0.25, lw=0, label="tube (hull)")
            for k in range(min(len(tubes), 200)):
                ax.step(np.r_[t, steps * T], np.r_[tubes[k, :, i, 1], tubes[k, -1, i, 1]], where="post", color="tab:blue", lw=0.2, alpha=0.5)
                ax.step(np.r_[t, steps * T], np.r_[tubes[k, :, i, 0], tubes[k, -1, i, 0]], where="post", color="tab:blue", lw=0.2, alpha=0.5)
        tt = np.arange(traj.shape[0]) * T / sub
        ax.plot(tt, traj[:, i], color="tab:red" if verdict == "FALSIFIED" else "k", lw=1, label="counterexample" if verdict == "FALSIFIED" else "simulation")
        for row in cons:
            av = row[4 : 4 + n]
            nz = np.nonzero(av)[0]
            if len(nz) == 1 and nz[0] == i:
                ax.hlines(row[4 + n] / av[i], row[2], row[3], colors="tab:orange", linestyles="--", lw=1.2)
        ax.set_xlabel("t")
        ax.set_ylabel(names[i])
    d0, d1 = (int(x) for x in a.dims.split(","))
    ax = axes[n]
    for p in pieces:
        lo, hi, st = p[:n], p[n : 2 * n], p[2 * n]
        ax.add_patch(Rectangle((lo[d0], lo[d1]), hi[d0] - lo[d0], hi[d1] - lo[d1], fc="tab:green" if st == 0 else "tab:red", ec="k", lw=0.2, alpha=0.6))
    x0lo, x0hi = f.attrs["x0_lo"], f.attrs["x0_hi"]
    ax.set_xlim(x0lo[d0] - 0.05 * (x0hi[d0] - x0lo[d0]) - 1e-9, x0hi[d0] + 0.05 * (x0hi[d0] - x0lo[d0]) + 1e-9)
    ax.set_ylim(x0lo[d1] - 0.05 * (x0hi[d1] - x0lo[d1]) - 1e-9, x0hi[d1] + 0.05 * (x0hi[d1] - x0lo[d1]) + 1e-9)
    ax.set_xlabel(names[d0])
    ax.set_ylabel(names[d1])
    ax.set_title("X0: pieces proven (green) / open (red)", fontsize=8)
    fig.suptitle(f"{f.attrs['plant'].decode() if isinstance(f.attrs['plant'], bytes) else f.attrs['plant']}: {verdict}, {len(pieces)} pieces", fontsize=9)
    fig.tight_layout()
    fig.savefig(a.out, dpi=130)


if __name__ == "__main__":
    main()
