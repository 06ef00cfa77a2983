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


FORMAT = "simreach closedloop tubes 2"  # src/reach/tubes_file.c, docs/files.md "The tubes file"


def fnv64(data, seed):
    """SRChecksum64 (src/io/fileio.c): FNV-1a 64 from seed; 0 is never returned"""
    h = 14695981039346656037 ^ seed
    for b in data:
        h = ((h ^ b) * 1099511628211) & 0xFFFFFFFFFFFFFFFF
    return h or 1


def seed(tag):
    """SRChecksumSeed(tag, 0, 0)"""
    return fnv64(np.zeros(2, "<i8").tobytes(), fnv64(tag.encode(), 0))


def refuse(path, why):
    print(f"tube.py: tubes file {path}: {why}", file=sys.stderr)
    sys.exit(2)


def validate(path):
    """the whole file checked as `simreach check` does (SRTubesFileValidate), refused in one line"""
    try:
        f = h5py.File(path, "r")
    except OSError as e:
        refuse(path, f"cannot be opened as HDF5 (truncated or damaged: {str(e).splitlines()[0]})")
    try:
        def s(k):
            v = f.attrs[k]
            return v.decode() if isinstance(v, bytes) else str(v)

        fmt = s("simreach_format") if "simreach_format" in f.attrs else "(none)"
        if fmt == "simreach closedloop tubes 1":
            refuse(path, "written before tubes files carried checksums: write it again with simreach closedloop -o")
        if fmt != FORMAT:
            refuse(path, f"not a simreach closedloop tubes file (format '{fmt}')")
        h = {k: s(k) for k in ("verdict", "planted_fault", "plant", "network", "spec", "states")}
        for k in ("steps", "leaves", "open", "trajectory_sub", "constraint_rows", "has_tubes"):
            h[k] = int(np.asarray(f.attrs[k]).reshape(-1)[0])
        h["period"] = float(np.asarray(f.attrs["period"]).reshape(-1)[0])
        n = len(h["states"].split(","))
        lo, hi = (np.asarray(f.attrs[k], "<f8").reshape(-1) for k in ("x0_lo", "x0_hi"))
        iv = np.array([n, h["steps"], h["leaves"], h["open"], h["trajectory_sub"], h["constraint_rows"], h["has_tubes"]], "<i8")
        c = fnv64(iv.tobytes(), seed("tubes-header"))
        for k in ("verdict", "planted_fault", "plant", "network", "spec", "states"):
            c = fnv64(h[k].encode() + b"\0", c)
        c = fnv64(lo.tobytes(), fnv64(np.array([h["period"]], "<f8").tobytes(), c))
        c = fnv64(hi.tobytes(), c)
        if len(lo) != n or len(hi) != n or int(np.asarray(f.attrs["header_checksum"]).reshape(-1)[0]) != c:
            refuse(path, "the header attributes (verdict, files, states, period, steps, counts, X0) fail their checksum (the file is damaged or was edited)")
        shapes = {"pieces": (h["leaves"], 2 * n + 3), "constraints": (h["constraint_rows"], n + 5),
                  "trajectory": (h["steps"] * h["trajectory_sub"] + 1, n)}
        if h["has_tubes"]:
            shapes["tubes"] = (h["leaves"], h["steps"], n, 2)
        for k, shp in shapes.items():
            if k not in f or f[k].shape != shp:
                refuse(path, f"dataset /{k} missing or of shape {f[k].shape if k in f else None}; the header says {shp}")
            d = np.ascontiguousarray(f[k][...], "<f8")
            if "checksum" not in f[k].attrs or int(np.asarray(f[k].attrs["checksum"]).reshape(-1)[0]) != fnv64(d.tobytes(), seed(k)):
                refuse(path, f"dataset /{k} fails its checksum (the file is damaged)")
        P = f["pieces"][...]
        st, dp = P[:, 2 * n], P[:, 2 * n + 2]
        if not (np.isin(st, (0, 1)).all() and (P[:, :n] <= P[:, n:2 * n]).all() and (P[:, :n] >= lo).all() and (P[:, n:2 * n] <= hi).all()):
            refuse(path, "dataset /pieces holds a row that is no leaf of X0")
        if int((st == 1).sum()) != h["open"]:
            refuse(path, f"{int((st == 1).sum())} open leaves in /pieces, attribute open says {h['open']}")
        v = h["verdict"]
        if v == "VERIFIED" and (h["open"] or not h["has_tubes"] or h["planted_fault"] or len(P) == 0 or np.sum(np.ldexp(1.0, -dp.astype(int))) != 1.0):
            refuse(path, "says VERIFIED, but its leaves are not all proven or do not cover X0")
        if v == "UNKNOWN" and not h["open"]:
            refuse(path, "says UNKNOWN, but no leaf is open")
        if v not in ("VERIFIED", "UNKNOWN", "FALSIFIED", "PLANTED-FAULT") or (v == "PLANTED-FAULT") != bool(h["planted_fault"]):
            refuse(path, f"verdict '{v}' (planted fault '{h['planted_fault']}')")
        return f, h
    except (KeyError, OSError, ValueError, IndexError, TypeError) as e:
        refuse(path, f"damaged or incomplete ({type(e).__name__}: {str(e).splitlines()[0] if str(e) else ''})")


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("file")
    ap.add_argument("-o", "--out", required=True)
    ap.add_argument("--dims", default="0,1")
    a = ap.parse_args()
    f, h = validate(a.file)
    names, verdict = h["states"].split(","), h["verdict"]
    if verdict == "PLANTED-FAULT":
        verdict = f"PLANTED-FAULT ({h['planted_fault']}: answers nothing)"
    T, steps, n = h["period"], h["steps"], len(names)
    pieces = f["pieces"][:]
    tubes = f["tubes"][:] if "tubes" in f else None
    cons = f["constraints"][:]
    traj = f["trajectory"][:]
    sub = h["trajectory_sub"]
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
    fig.suptitle(f"{h['plant']}: {verdict}, {len(pieces)} pieces", fontsize=9)
    fig.tight_layout()
    fig.savefig(a.out, dpi=130)


if __name__ == "__main__":
    main()
