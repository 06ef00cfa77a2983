#!/usr/bin/python3
"""The analysis report of a simreach study (SPEC §9).

    /usr/bin/python3 analysis/report.py RESULTS.h5 -o DIR [--scaling scaling.csv ...]

Reads the results file (schema: analysis/results-schema.md) and writes into DIR:
  lsim_vs_H.png          L_sim against the hard metric H across checkpoints, one panel per tau,
                         with the file's Spearman value (SPEC §9)
  successors_volume.png  certified successor count and reachable volumes vs beta at the last
                         checkpoint: mean and spread over seeds, with the 20 % reduction line
  task_coverage.png      prediction error and eps-coverage vs beta (the trade-off, SPEC §1)
  gap.png                the measured softmin / softmax gaps against tau log n (SPEC §6)
  tradeoff.png           prediction error against |M_tight| and vol(E_tight), one curve per beta
  counts.png             floor |F|, tightest |M_tight|, the run's |M| and certified |C| per beta
  cells.png              (2-D grids) per-cell certified successor counts as heatmaps, before and
                         after training, for the baseline and the most regularised run
  scaling.png            (with --scaling) strong and weak scaling from slurm/scaling.sbatch
  report.md              the verdict table, the Spearman values and the figures
Every number in report.md comes from the file: the Spearman values and the verdict are the
ones the gather phase wrote to /summary, never recomputed here.
"""
import argparse
import csv
import math
import os
import sys

import matplotlib

matplotlib.use("Agg")
import h5py  # noqa: E402
import matplotlib.pyplot as plt  # noqa: E402
import matplotlib.ticker  # noqa: E402
import numpy as np  # noqa: E402

VERDICT_TEXT = {
    "spearman_gt_0.8": "Spearman(training L_sim, held-out H) > 0.8 across checkpoints",
    "reduction_ge_20pct": ">= 20 % less |M_tight| or vol(E_tight) than beta = 0, same checkpoint and accuracy-matched, where the treatment acted",
    "zero_containment_failures": "zero containment failures in the independent re-check",
}


def columns(dset):
    """The column names of a dataset (its 'columns' attribute, comma separated)."""
    c = dset.attrs.get("columns")
    if c is None:
        return []
    if isinstance(c, bytes):
        c = c.decode()
    return str(c).split(",")


def attr_text(f, name):
    v = f.attrs.get(name, b"")
    return v.decode() if isinstance(v, bytes) else str(v)


def parse_options(text):
    """The options attribute as a dict {key: value} (keys without the leading dash)."""
    opts, words = {}, text.split()
    i = 0
    while i < len(words):
        w = words[i]
        if w.startswith("-") and not _is_number(w):
            key = w.lstrip("-")
            if i + 1 < len(words) and (not words[i + 1].startswith("-") or _is_number(words[i + 1])):
                opts[key] = words[i + 1]
                i += 1
            else:
                opts[key] = "true"
        i += 1
    return opts


def _is_number(s):
    try:
        float(s)
        return True
    except ValueError:
        return False


class Results:
    """The parts of a results file the report uses."""

    def __init__(self, path):
        self.path = path
        with h5py.File(path, "r") as f:
            self.format = attr_text(f, "simreach_format")
            self.version = attr_text(f, "simreach_version")
            self.options_text = attr_text(f, "options")
            self.options = parse_options(self.options_text)
            self.beta = f["/grid/beta"][()]
            self.tau = f["/grid/tau"][()]
            self.seed = f["/grid/seed"][()]
            self.points = f["/grid/points"][()]
            ck = f["/runs/checkpoints"]
            self.ckcols = columns(ck)
            self.ck = ck[()]
            self.status = f["/runs/status"][()]
            self.cells = f["/runs/cells"][()] if "/runs/cells" in f else None
            # C(k) per run: index boxes (lo[n], hi[n], sink flag) per cell; older files: CSR pointers
            self.sbox = f["/runs/successor_box"][()] if "/runs/successor_box" in f else None
            self.sptr = f["/runs/successor_ptr"][()] if "/runs/successor_ptr" in f else None
            s = f["/summary"]
            self.spearman_run = s["spearman_run"][()]
            self.spearman_tau = s["spearman_tau"][()]
            self.spearman_all = float(s["spearman_all"][()].reshape(-1)[0])
            self.gap_ratio_max = float(s["gap_ratio_max"][()].reshape(-1)[0])
            self.table = s["table"][()]
            self.tablecols = columns(s["table"])
            self.counts = s["counts"][()]
            self.countcols = columns(s["counts"])
            self.verdict = s["verdict"][()]
            self.verdictcols = columns(s["verdict"])
            # the positive control the stored verdict stands on (gather -control stores it; issue 21)
            va = s["verdict"].attrs
            c = va.get("control", b"")
            self.control = (c.decode() if isinstance(c, bytes) else str(c)) if c is not None else ""
            self.control_detected = int(np.asarray(va["control_detected"]).reshape(-1)[0]) if "control_detected" in va else -1
            self.rule_version = int(np.asarray(va["rule_version"]).reshape(-1)[0]) if "rule_version" in va else 1
            self.initial = {k: f["/runs/" + k][()] for k in ("cells_initial", "successor_box_initial", "successor_ptr_initial") if "/runs/" + k in f}
            # the final E_k per cell (run's lo, hi, tightest lo, hi); files before it was stored have none
            self.enclosures = f["/runs/enclosures"][()] if "/runs/enclosures" in f else None
        self.nb, self.nt, self.ns = len(self.beta), len(self.tau), len(self.seed)

    def run(self, ib, it, js):
        return (ib * self.nt + it) * self.ns + js

    def col(self, name):
        return self.ckcols.index(name)

    def series(self, r, name):
        """The column of run r over its recorded checkpoints (NaN rows dropped)."""
        v = self.ck[r, :, self.col(name)]
        return v[np.isfinite(self.ck[r, :, 0])]

    def last(self, r, name):
        v = self.series(r, name)
        return v[-1] if len(v) else np.nan

    def tcol(self, name):
        return self.tablecols.index(name)


def fig_lsim_vs_H(res, out):
    fig, axes = plt.subplots(1, res.nt, figsize=(max(6.0, 4.2 * res.nt), 3.8), squeeze=False)
    cmap = plt.get_cmap("viridis")
    for it, tau in enumerate(res.tau):
        ax = axes[0, it]
        for ib, beta in enumerate(res.beta):
            x, y = [], []
            for js in range(res.ns):
                r = res.run(ib, it, js)
                x.extend(res.series(r, "Lsim"))  # criterion 1: the training L_sim against the held-out H (SPEC §9, turn 4)
                y.extend(res.series(r, "H"))
            ax.scatter(x, y, s=14, color=cmap(ib / max(res.nb - 1, 1)), label=f"beta={beta:g}", alpha=0.8)
        ax.set_title(f"tau={tau:g}: Spearman {res.spearman_tau[it]:.3f}")
        ax.set_xlabel("training L_sim (smooth, what the optimiser sees)")
        ax.set_ylabel("H (hard, held-out)")
        ax.grid(alpha=0.3)
    axes[0, 0].legend(fontsize=7)
    fig.suptitle(f"L_sim vs H across checkpoints (pooled Spearman {res.spearman_all:.3f})", fontsize=10)
    fig.tight_layout()
    fig.savefig(out, dpi=110)
    plt.close(fig)


def per_beta(res, it, name):
    """Mean and standard deviation over seeds of the last checkpoint's value, per beta."""
    m, s = [], []
    for ib in range(res.nb):
        v = np.array([res.last(res.run(ib, it, js), name) for js in range(res.ns)])
        v = v[np.isfinite(v)]
        m.append(v.mean() if len(v) else np.nan)
        s.append(v.std(ddof=1) if len(v) > 1 else 0.0)
    return np.array(m), np.array(s)


def fig_beta_panels(res, out, names, titles, reduction_line):
    fig, axes = plt.subplots(1, len(names), figsize=(4.4 * len(names), 3.8), squeeze=False)
    for k, (name, title) in enumerate(zip(names, titles)):
        ax = axes[0, k]
        for it, tau in enumerate(res.tau):
            m, s = per_beta(res, it, name)
            line = ax.errorbar(res.beta, m, yerr=s, marker="o", capsize=3, label=f"tau={tau:g}")
            if reduction_line and np.isfinite(m[0]):
                ax.axhline(0.8 * m[0], color=line[0].get_color(), ls=":", lw=1)
        ax.set_xlabel("beta")
        ax.set_title(title)
        ax.grid(alpha=0.3)
    axes[0, 0].legend(fontsize=7)
    if reduction_line:
        fig.suptitle("last checkpoint, mean +- sd over seeds; dotted: 20 % below the beta = 0 baseline")
    else:
        fig.suptitle("last checkpoint, mean +- sd over seeds")
    fig.tight_layout()
    fig.savefig(out, dpi=110)
    plt.close(fig)


def fig_gap(res, out):
    fig, ax = plt.subplots(figsize=(5, 4))
    for name, bound, label, mk in (("gap_min", "taulogn", "min - softmin", "o"), ("gap_max", "taulogN", "softmax - max", "s")):
        x = np.concatenate([res.series(r, bound) for r in range(len(res.points))])
        y = np.concatenate([res.series(r, name) for r in range(len(res.points))])
        ax.scatter(x, y, s=12, marker=mk, label=label, alpha=0.7)
    hi = np.nanmax(np.concatenate([res.ck[:, :, res.col("taulogn")].ravel(), res.ck[:, :, res.col("taulogN")].ravel(), [1e-12]]))
    ax.plot([0, hi], [0, hi], "k--", lw=1, label="bound tau log n")
    ax.set_xlabel("tau log n")
    ax.set_ylabel("measured gap")
    ax.set_title(f"smooth vs hard gap (max ratio {res.gap_ratio_max:.3f})")
    ax.legend(fontsize=8)
    ax.grid(alpha=0.3)
    fig.tight_layout()
    fig.savefig(out, dpi=110)
    plt.close(fig)


def domain_2d(res):
    sysname = res.options.get("sys", "pendulum")
    if sysname == "pendulum":
        return sysname, np.array([[-1.0, 1.0], [-2.0, 2.0]]), ("theta", "omega")
    return sysname, None, None


def grid_cells(dom, counts):
    """The initial regular grid of D (SPEC §4) as centres and half-widths, K x 2 each."""
    n1, n2 = counts
    h = (dom[:, 1] - dom[:, 0]) / np.array([n1, n2]) / 2
    c = [[dom[0, 0] + (2 * i + 1) * h[0], dom[1, 0] + (2 * j + 1) * h[1]] for i in range(n1) for j in range(n2)]
    return np.array(c), np.tile(h, (n1 * n2, 1))


def cell_counts(lists, K):
    """|C(k)| per cell (sink counted as one) from index-box rows [K][2n+1] (lo, hi, sink flag),
    or from a CSR pointer array [K+1] (files before the index-box storage)."""
    a = np.asarray(lists, dtype=float)
    if a.ndim == 1:
        return a[1 : K + 1] - a[:K]
    n = (a.shape[1] - 1) // 2
    width = np.clip(a[:, n : 2 * n] - a[:, :n] + 1, 0, None)
    return np.prod(width, axis=1) + (a[:, 2 * n] == 1)


def fig_tradeoff(res, out):
    """Prediction error against |M_tight| and vol(E_tight), one curve per beta (the mean over seeds
    across checkpoints, in checkpoint order), the seeds' final points as spread (SPEC §9)."""
    if "succ_tight" not in res.ckcols:
        return False
    fig, axes = plt.subplots(1, 2, figsize=(10, 4))
    cmap = plt.get_cmap("viridis")
    it = 0
    for k, (name, label) in enumerate((("succ_tight", "|M_tight| (tightest enclosure)"), ("vol_E_tight", "vol(E_tight)"))):
        ax = axes[k]
        for ib, beta in enumerate(res.beta):
            color = cmap(ib / max(res.nb - 1, 1))
            xs, ys = [], []
            for js in range(res.ns):
                r = res.run(ib, it, js)
                xs.append(res.series(r, name))
                ys.append(res.series(r, "pred_error"))
            n = min((len(x) for x in xs), default=0)
            if n:
                ax.plot(np.mean([x[:n] for x in xs], axis=0), np.mean([y[:n] for y in ys], axis=0), "-", color=color, lw=1.2, label=f"beta={beta:g}")
                ax.scatter([x[-1] for x in xs if len(x)], [y[-1] for y in ys if len(y)], color=color, s=18, zorder=3)
        ax.set_xlabel(label)
        ax.set_ylabel("prediction error (held-out task loss)")
        ax.set_yscale("log")
        ax.grid(alpha=0.3)
    axes[0].legend(fontsize=7)
    fig.suptitle(f"trade-off at tau={res.tau[it]:g}: curves = mean over seeds across checkpoints, dots = each seed's last checkpoint", fontsize=9)
    fig.tight_layout()
    fig.savefig(out, dpi=110)
    plt.close(fig)
    return True


def fig_counts(res, out):
    """Floor |F|, tightest |M_tight|, the run's minimal |M| and certified |C| per beta (last
    checkpoint, mean +- sd over seeds): where the successor count is set."""
    if "succ_floor" not in res.ckcols:
        return False
    fig, axes = plt.subplots(1, res.nt, figsize=(max(5.0, 4.4 * res.nt), 3.8), squeeze=False)
    for it, tau in enumerate(res.tau):
        ax = axes[0, it]
        for name, label, mk in (("succ_floor", "floor |F|", "v"), ("succ_tight", "tightest |M_tight|", "o"), ("succ_minimal", "run's enclosure |M|", "s"), ("succ_certified", "certified |C|", "^")):
            m, sd = per_beta(res, it, name)
            ax.errorbar(range(res.nb), m, yerr=sd, marker=mk, capsize=3, label=label)
        ax.set_xticks(range(res.nb))
        ax.set_xticklabels([f"{b:g}" for b in res.beta])
        ax.set_xlabel("beta")
        ax.set_ylabel("successors per cell")
        ax.set_title(f"tau={tau:g}")
        ax.grid(alpha=0.3)
    axes[0, 0].legend(fontsize=7)
    fig.suptitle("floor / tightest / the run's minimal / certified successor counts, last checkpoint, mean +- sd over seeds")
    fig.tight_layout()
    fig.savefig(out, dpi=110)
    plt.close(fig)
    return True


def fig_cells(res, out):
    """Per-cell certified successor counts |C(k)| as heatmaps over the 2-D grid, before and after
    training, for the baseline and the most regularised run (tau index 0, first seed); returns a
    note for report.md, or None when the system is not 2-D or the file has no lists."""
    sysname, dom, labels = domain_2d(res)
    if dom is None or (res.sptr is None and res.sbox is None):
        return None
    K = res.sbox.shape[1] if res.sbox is not None else res.sptr.shape[1] - 1
    counts = [int(v) for v in res.options.get("cells", "").split(",") if v.strip().isdigit()]
    if len(counts) != 2 or counts[0] * counts[1] != K:
        return None
    it, ibr = 0, res.nb - 1
    runs = [("baseline beta=%g" % res.beta[0], res.run(0, it, 0)), ("beta=%g" % res.beta[ibr], res.run(ibr, it, 0))]
    partition = res.options.get("cells_param", "partition") == "partition"
    panels = []
    for name, r in runs:
        init = res.initial.get("successor_box_initial", res.initial.get("successor_ptr_initial"))
        if init is not None:
            panels.append((f"{name}: before training", r, cell_counts(init[r], K), False))
        panels.append((f"{name}: after training", r, cell_counts(res.sbox[r] if res.sbox is not None else res.sptr[r], K), True))
    vmax = max(float(np.nanmax(p[2])) for p in panels)
    grid = [np.linspace(dom[d, 0], dom[d, 1], counts[d] + 1) for d in range(2)]
    m0, m1 = counts[0] - 1, counts[1] - 1
    ncol = 2 if len(panels) == 4 else len(panels)
    fig, axes = plt.subplots((len(panels) + ncol - 1) // ncol, ncol, figsize=(4.6 * ncol, 3.9 * ((len(panels) + ncol - 1) // ncol)), squeeze=False, constrained_layout=True)
    from matplotlib.collections import PatchCollection
    from matplotlib.patches import Rectangle

    def boxes(r, after):
        """The cells of run r as (lo, hi) rows: from (c, w) when the stored theta reads as
        centres in D and positive half-widths, else from partition boundaries; the initial grid
        before training."""
        if after and res.cells is not None and np.all(np.isfinite(res.cells[r][: 4 * K])):
            th = res.cells[r]
            c, w = th[: 2 * K].reshape(K, 2), th[2 * K : 4 * K].reshape(K, 2)
            if np.all(w > 0) and np.all(c >= dom[:, 0] - 1e-12) and np.all(c <= dom[:, 1] + 1e-12):
                return c - w, c + w
            if partition and len(th) >= m0 + m1:
                bx = np.concatenate([[dom[0, 0]], th[:m0], [dom[0, 1]]])
                by = np.concatenate([[dom[1, 0]], th[m0 : m0 + m1], [dom[1, 1]]])
                lo = np.array([[bx[k % counts[0]], by[k // counts[0]]] for k in range(K)])
                hi = np.array([[bx[k % counts[0] + 1], by[k // counts[0] + 1]] for k in range(K)])
                return lo, hi
        lo = np.array([[grid[0][k % counts[0]], grid[1][k // counts[0]]] for k in range(K)])
        hi = np.array([[grid[0][k % counts[0] + 1], grid[1][k // counts[0] + 1]] for k in range(K)])
        return lo, hi

    for ax, (title, r, cnt, after) in zip(axes.ravel(), panels):
        lo, hi = boxes(r, after)
        pc = PatchCollection([Rectangle(lo[k], hi[k, 0] - lo[k, 0], hi[k, 1] - lo[k, 1]) for k in range(K)], cmap="magma_r", edgecolor="0.6", linewidth=0.3)
        pc.set_array(np.asarray(cnt, dtype=float))
        pc.set_clim(1, vmax)
        ax.add_collection(pc)
        img = pc
        ax.set_xlim(dom[0])
        ax.set_ylim(dom[1])
        ax.set_title(title + f" (mean {np.mean(cnt):.2f})", fontsize=8)
        ax.set_xlabel(labels[0])
        ax.set_ylabel(labels[1])
    fig.colorbar(img, ax=axes.ravel().tolist(), shrink=0.8, label="|C(k)| (sink counts one)")
    fig.suptitle(f"{sysname}, tau={res.tau[it]:g}, seed={res.seed[0]}: certified successors per cell", fontsize=9)
    fig.savefig(out, dpi=110)
    plt.close(fig)
    return "The heatmaps show |C(k)| per cell (the sink counts one); a few enclosures E_k are drawn on the learned partition below."



def fig_partition(res, out):
    """The learned partition (SPEC §4, -cells_param partition, the default) with a few final
    enclosures E_k drawn (/runs/enclosures): the run whose boundaries moved most (largest beta on
    ties) beside its baseline (beta = 0, same tau and seed), the cells coloured by |C(k)| over the
    initial grid (dashed); for four cells spread over D the cell (bold), the run's own enclosure
    (dashed) and the tightest one (solid) in one colour per cell, the sink (outside D) shaded.
    Returns a note for report.md, or None (not 2-D, free boxes)."""
    sysname, dom, labels = domain_2d(res)
    if dom is None or res.cells is None or res.options.get("cells_param", "partition") != "partition":
        return None
    counts = [int(v) for v in res.options.get("cells", "").split(",") if v.strip().isdigit()]
    if len(counts) != 2:
        return None
    K, m0, m1 = counts[0] * counts[1], counts[0] - 1, counts[1] - 1
    grid = [np.array([dom[d, 0] + i * (dom[d, 1] - dom[d, 0]) / counts[d] for i in range(counts[d] + 1)]) for d in range(2)]

    def bounds(r):
        th = res.cells[r]
        return [np.concatenate([[dom[0, 0]], th[:m0], [dom[0, 1]]]), np.concatenate([[dom[1, 0]], th[m0 : m0 + m1], [dom[1, 1]]])]

    best, bestmove = None, -1.0
    for r in range(res.cells.shape[0]):
        if not np.all(np.isfinite(res.cells[r][: m0 + m1])):
            continue
        b = bounds(r)
        move = max(float(np.max(np.abs(b[d] - grid[d]))) for d in range(2))
        if best is None or move > bestmove + 1e-12 or (abs(move - bestmove) <= 1e-12 and res.beta[r // (res.nt * res.ns)] > res.beta[best // (res.nt * res.ns)]):
            best, bestmove = r, move
    if best is None:
        return None
    ib, rem = divmod(best, res.nt * res.ns)
    it, js = divmod(rem, res.ns)
    runs = [best]
    if ib != 0 and np.all(np.isfinite(res.cells[res.run(0, it, js)][: m0 + m1])):
        runs = [res.run(0, it, js), best]
    # four cells spread over D, at a quarter and three quarters of each index range
    pick = sorted({(counts[0] * a) // 4 + counts[0] * ((counts[1] * c) // 4) for a in (1, 3) for c in (1, 3)})
    colours = ["tab:blue", "tab:green", "tab:orange", "tab:purple"]
    import matplotlib.patches as mpatches
    from matplotlib.colors import ListedColormap
    cmap = ListedColormap(plt.get_cmap("Greys")(np.linspace(0.1, 0.6, 256)))  # light: the boxes stay visible
    cnts = []
    for r in runs:
        if res.sbox is not None and res.sbox.shape[1] == K:
            cnts.append(cell_counts(res.sbox[r], K))
        else:
            cnts.append(cell_counts(res.sptr[r], K) if res.sptr is not None and res.sptr.shape[1] == K + 1 else np.ones(K))
    vmax = max(max(float(np.max(c)) for c in cnts), 1.0)
    fig, axes = plt.subplots(1, len(runs), figsize=(5.4 * len(runs), 4.9), squeeze=False, constrained_layout=True)
    drawn = 0
    for ax, r, cnt in zip(axes.ravel(), runs, cnts):
        b = bounds(r)
        for k in range(K):
            i0, i1 = k % counts[0], k // counts[0]
            ax.add_patch(mpatches.Rectangle((b[0][i0], b[1][i1]), b[0][i0 + 1] - b[0][i0], b[1][i1 + 1] - b[1][i1], facecolor=cmap(cnt[k] / vmax), edgecolor="k", lw=0.5))
        for x in grid[0]:
            ax.axvline(x, color="0.5", ls=":", lw=0.6)
        for y in grid[1]:
            ax.axhline(y, color="0.5", ls=":", lw=0.6)
        lim = [list(dom[0]), list(dom[1])]
        E = res.enclosures[r] if res.enclosures is not None and res.enclosures.shape[1] == K else None
        for q, k in enumerate(pick):
            col = colours[q % len(colours)]
            i0, i1 = k % counts[0], k // counts[0]
            ax.add_patch(mpatches.Rectangle((b[0][i0], b[1][i1]), b[0][i0 + 1] - b[0][i0], b[1][i1 + 1] - b[1][i1], fill=False, edgecolor=col, lw=2.2))
            if E is None or not np.all(np.isfinite(E[k])):
                continue
            for off, ls, lw in ((0, "--", 1.2), (4, "-", 1.6)):
                lo, hi = E[k, off : off + 2], E[k, off + 2 : off + 4]
                ax.add_patch(mpatches.Rectangle(lo, hi[0] - lo[0], hi[1] - lo[1], fill=False, edgecolor=col, ls=ls, lw=lw))
                for d in range(2):
                    lim[d][0], lim[d][1] = min(lim[d][0], lo[d]), max(lim[d][1], hi[d])
            drawn += 1
        # the view: D and the boxes, at most half of D's extent beyond D on each side (loose
        # enclosures run off the edge rather than shrinking the cells to nothing)
        for d in range(2):
            ext = dom[d, 1] - dom[d, 0]
            lim[d] = [max(lim[d][0], dom[d, 0] - 0.5 * ext), min(lim[d][1], dom[d, 1] + 0.5 * ext)]
        pad = [0.03 * (lim[d][1] - lim[d][0]) for d in range(2)]
        ax.set_xlim(lim[0][0] - pad[0], lim[0][1] + pad[0])
        ax.set_ylim(lim[1][0] - pad[1], lim[1][1] + pad[1])
        # the sink: everything outside D
        X0, X1, Y0, Y1 = lim[0][0] - pad[0], lim[0][1] + pad[0], lim[1][0] - pad[1], lim[1][1] + pad[1]
        for rect in ((X0, Y0, dom[0, 0] - X0, Y1 - Y0), (dom[0, 1], Y0, X1 - dom[0, 1], Y1 - Y0), (dom[0, 0], Y0, dom[0, 1] - dom[0, 0], dom[1, 0] - Y0), (dom[0, 0], dom[1, 1], dom[0, 1] - dom[0, 0], Y1 - dom[1, 1])):
            if rect[2] > 0 and rect[3] > 0:
                ax.add_patch(mpatches.Rectangle(rect[:2], rect[2], rect[3], facecolor="mistyrose", edgecolor="none", zorder=0))
        ax.set_xlabel(labels[0]), ax.set_ylabel(labels[1])
        rb, rrem = divmod(r, res.nt * res.ns)
        move = max(float(np.max(np.abs(b[d] - grid[d]))) for d in range(2))
        ax.set_title(f"beta={res.beta[rb]:g} tau={res.tau[it]:g} seed={res.seed[js]}: mean |C| {np.mean(cnt):.2f}, boundary move {move:.3g}", fontsize=8)
    sm = plt.cm.ScalarMappable(cmap=cmap, norm=plt.Normalize(0, vmax))
    fig.colorbar(sm, ax=axes.ravel().tolist(), shrink=0.8, label="cell shade: |C(k)| (sink counts one)")
    fig.suptitle(f"{sysname}: learned partition (solid black; dotted: initial grid) and four cells (bold) with their final E_k:\n"
                 "dashed = the run's enclosure, solid = the tightest (behind |M_tight|); shaded: outside D (the sink); view at most D +- half its size", fontsize=8)
    fig.savefig(out, dpi=110)
    plt.close(fig)
    note = f"The learned partition is run {best} (beta={res.beta[ib]:g}, tau={res.tau[it]:g}, seed={res.seed[js]}): its boundaries moved by up to {bestmove:.3g} from the initial grid."
    if res.enclosures is None:
        note += " This results file has no /runs/enclosures (written before they were stored): the cells are drawn without E_k."
    else:
        note += f" Four cells are drawn with their final enclosures E_k from /runs/enclosures ({drawn} cell enclosure pairs drawn in {len(runs)} panel(s)); the baseline panel shows the same cells of the beta = 0 run of the same tau and seed."
    return note


def read_scaling(paths):
    rows = []
    for p in paths:
        with open(p, newline="") as fh:
            rows.extend(csv.DictReader(fh))
    return rows


def fig_scaling(rows, out):
    fig, axes = plt.subplots(1, 2, figsize=(9, 3.8))
    for ax, mode in zip(axes, ("strong", "weak")):
        sel = [r for r in rows if r["mode"] == mode]
        for ev in sorted({r["event"] for r in sel}):
            pts = sorted((int(r["ranks"]), float(r["time_max"])) for r in sel if r["event"] == ev)
            if pts:
                ax.plot([p[0] for p in pts], [p[1] for p in pts], marker="o", label=ev)
        if sel:
            ranks = sorted({int(r["ranks"]) for r in sel})
            ax.set_xscale("log", base=2)
            ax.set_xticks(ranks)
            ax.set_xticklabels([str(r) for r in ranks])
        ax.set_xlabel("ranks")
        ax.set_ylabel("time (s, max over ranks)")
        ax.set_title(f"{mode} scaling")
        ax.grid(alpha=0.3)
        ax.legend(fontsize=7)
    fig.tight_layout()
    fig.savefig(out, dpi=110)
    plt.close(fig)


def fmt(v, spec=".4g"):
    return "n/a" if v is None or (isinstance(v, float) and not math.isfinite(v)) else format(v, spec)


PUBLISHED = (  # the seed card's published check ("Verification"), beta = 0 -> beta = 0.15
    ("prediction MSE (held-out task loss)", "pred_error", 0.00063, 0.00262, "up"),
    ("eps-coverage", "coverage", 0.993, 0.090, "down"),
    ("successors per cell (cells hit by sampled images)", "succ_empirical", 1.331, 0.650, "down"),
    ("hard residual H", "H", 0.0707, -0.0365, "down"),
)


def published_check(res):
    """For a toy1d study with beta 0 and 0.15: the published figures beside this study's (last
    checkpoint, mean over seeds, per tau), whether each direction reproduces, and the Spearman
    value pooled over the final checkpoints of all runs, as the published check computed it."""
    if res.options.get("sys") != "toy1d" or 0.0 not in list(res.beta) or 0.15 not in [round(float(b), 12) for b in res.beta]:
        return []
    from scipy import stats

    ib0, ib1 = list(res.beta).index(0.0), [round(float(b), 12) for b in res.beta].index(0.15)
    L = ["## The published check beside this study (seed card, 'Verification'; beta = 0 -> 0.15)", "",
         f"Setting: cells_width {res.options.get('cells_width', '1')}, guard {res.options.get('guard', '?')}; last checkpoint, mean over seeds.", "",
         "| quantity | published | " + " | ".join(f"tau={t:g}" for t in res.tau) + " | direction reproduces |", "|---" * (res.nt + 3) + "|"]
    for label, col, p0, p1, way in PUBLISHED:
        cells, agree = [], []
        for it in range(res.nt):
            v0 = np.nanmean([res.last(res.run(ib0, it, js), col) for js in range(res.ns)])
            v1 = np.nanmean([res.last(res.run(ib1, it, js), col) for js in range(res.ns)])
            cells.append(f"{v0:.4g} -> {v1:.4g}")
            agree.append((v1 > v0) if way == "up" else (v1 < v0))
        L.append(f"| {label} | {p0:g} -> {p1:g} | " + " | ".join(cells) + f" | {sum(agree)} of {res.nt} tau |")
    x = [res.last(r, "Lsim_heldout" if "Lsim_heldout" in res.ckcols else "Lsim") for r in range(len(res.points))]
    y = [res.last(r, "H") for r in range(len(res.points))]
    rho = stats.spearmanr(x, y)[0] if len(x) > 2 else float("nan")
    L += ["", f"Spearman(L_sim, H) over the final checkpoints of all {len(x)} runs (the published check pooled 9): {rho:.3f} (published 0.967); "
          f"across all checkpoints, per tau: " + ", ".join(f"{t:g}: {s:.3f}" for t, s in zip(res.tau, res.spearman_tau)) + ".",
          "The successor count compared is the empirical one (cells hit by sampled images, sink counted as one): with gaps between the cells an image "
          "that lands in a gap hits no cell, which is how the published count can fall below 1.", ""]
    return L


# PETSc's TaoConvergedReason values (petsctao.h); 0: no solve in the interval
TAO_REASONS = {3: "CONVERGED_GATOL", 4: "CONVERGED_GRTOL", 5: "CONVERGED_GTTOL", 6: "CONVERGED_STEPTOL", 7: "CONVERGED_MINF",
               8: "CONVERGED_USER", -2: "DIVERGED_MAXITS", -4: "DIVERGED_NAN", -5: "DIVERGED_MAXFCN", -6: "DIVERGED_LS_FAILURE",
               -7: "DIVERGED_TR_REDUCTION", -8: "DIVERGED_USER", 0: "no solve"}


def cell_solve_rows(res):
    """The theta solve per (beta, tau) over the seeds (SPEC §8): theta moves accepted / rejected /
    backtracked (the cumulative counters of each run's last row), intervals with a move that
    counts (theta_moves went up), and TAO's reasons over every interval.  Returns
    [(beta, tau, runs, acc, rej, bt, counted, intervals, {reason name: count})]."""
    need = ("tao_reason", "theta_accepted", "theta_rejected", "theta_backtracked", "theta_moves")
    if any(c not in res.ckcols for c in need):
        return []
    rows = []
    for ib in range(res.nb):
        for it in range(res.nt):
            acc = rej = bt = counted = nint = nruns = 0
            reasons = {}
            for js in range(res.ns):
                r = res.run(ib, it, js)
                mv = res.series(r, "theta_moves")
                if len(mv) == 0:
                    continue
                nruns += 1
                acc += int(res.last(r, "theta_accepted"))
                rej += int(res.last(r, "theta_rejected"))
                bt += int(res.last(r, "theta_backtracked"))
                counted += int(np.sum(np.diff(np.concatenate([[0.0], mv])) > 0))
                nint += len(mv)
                for v in res.series(r, "tao_reason"):
                    name = TAO_REASONS.get(int(v), str(int(v)))
                    reasons[name] = reasons.get(name, 0) + 1
            rows.append((float(res.beta[ib]), float(res.tau[it]), nruns, acc, rej, bt, counted, nint, reasons))
    return rows


def cell_solve_section(res):
    rows = cell_solve_rows(res)
    if not rows:
        return []
    L = ["## The cell solve (theta, SPEC §8)", "",
         "Per (beta, tau) over the seeds: theta moves accepted / rejected / backtracked by the guard, checkpoint intervals "
         "with a move that counts (some boundary moved by >= 1e-3 grid spacing and the frozen objective went down), "
         "and TAO's converged reason over every interval.", "",
         "| beta | tau | runs | accepted | rejected | backtracked | intervals with a counted move | TAO reasons |", "|---|---|---|---|---|---|---|---|"]
    tot = [0, 0, 0, 0, 0]
    totr = {}
    for beta, tau, nruns, acc, rej, bt, counted, nint, reasons in rows:
        rs = ", ".join(f"{k} {v}" for k, v in sorted(reasons.items(), key=lambda kv: -kv[1]))
        L.append(f"| {beta:g} | {tau:g} | {nruns} | {acc} | {rej} | {bt} | {counted} / {nint} | {rs} |")
        for i, v in enumerate((acc, rej, bt, counted, nint)):
            tot[i] += v
        for k, v in reasons.items():
            totr[k] = totr.get(k, 0) + v
    solved = sum(v for k, v in totr.items() if k != "no solve")
    conv = sum(v for k, v in totr.items() if k.startswith("CONVERGED"))
    L += ["", f"All runs: {tot[0]} accepted, {tot[1]} rejected, {tot[2]} backtracked theta moves; "
          f"**{tot[3]} of {tot[4]} intervals** with a counted move; TAO converged in **{conv} of {solved}** solves.", ""]
    return L


def grid_answer(res):
    """The closed-loop answer (SPEC §9) per run: {checkpoint: (safe_grid, horizon_grid)} over the
    rows that have it (the final one; every -safe_every-th too); None when no finished run has
    one (not applicable: -model dynamics, or -safe_cells 0)."""
    if "safe_grid" not in res.ckcols:
        return None
    out, anyv = {}, False
    for r in range(len(res.points)):
        ck = res.ck[r]
        rows = [j for j in range(ck.shape[0]) if np.isfinite(ck[j, 0]) and np.isfinite(ck[j, res.col("safe_grid")])]
        out[r] = {int(ck[j, 0]): (ck[j, res.col("safe_grid")], ck[j, res.col("horizon_grid")]) for j in rows} if int(res.status[r]) == 2 else {}
        anyv = anyv or bool(out[r])
    return out if anyv else None


def _paired(res, ga, ib, it, c, q):
    """Per seed: (value of beta index ib, paired difference against beta = 0) at checkpoint c."""
    ib0 = int(np.argmin(np.abs(res.beta))) if np.any(res.beta == 0) else -1
    v, d = [], []
    for js in range(res.ns):
        a = ga[res.run(ib, it, js)].get(c)
        if a is None:
            continue
        v.append(a[q])
        b = ga[res.run(ib0, it, js)].get(c) if ib0 >= 0 else None
        if b is not None:
            d.append(a[q] - b[q])
    return np.array(v), np.array(d)


def _mse(x):
    return (x.mean(), x.std(ddof=1) / math.sqrt(len(x)) if len(x) > 1 else np.nan) if len(x) else (np.nan, np.nan)


def fig_safe_grid(res, out, ga):
    """Verified-safe fraction and mean horizon on the -safe_cells grid per checkpoint, one column per
    tau: top, each beta's mean +- SE over seeds (beta = 0 the baseline, black); middle, the paired
    change against the baseline of the same seed with its SE and the zero line; bottom, the mean
    verified horizon.  Checkpoints without the answer are absent (final only unless -safe_every)."""
    cks = sorted({c for r in ga for c in ga[r]})
    fig, axes = plt.subplots(3, res.nt, figsize=(max(6.0, 4.4 * res.nt), 9.0), squeeze=False, sharex=True)
    palette = plt.get_cmap("tab10").colors
    for it, tau in enumerate(res.tau):
        for ib, beta in enumerate(res.beta):
            col = "black" if beta == 0 else palette[ib % len(palette)]
            rows = [(c, _mse(_paired(res, ga, ib, it, c, 0)[0]), _mse(_paired(res, ga, ib, it, c, 0)[1]), _mse(_paired(res, ga, ib, it, c, 1)[0])) for c in cks]
            rows = [w for w in rows if np.isfinite(w[1][0])]
            if not rows:
                continue
            x = np.array([w[0] for w in rows], dtype=float) + 0.08 * (ib - (res.nb - 1) / 2)  # side by side
            lab = "beta=0 (baseline)" if beta == 0 else f"beta={beta:g}"
            axes[0, it].errorbar(x, [w[1][0] for w in rows], yerr=[w[1][1] for w in rows], marker="o", ms=4, capsize=3, color=col, label=lab)
            if beta != 0:
                axes[1, it].errorbar(x, [w[2][0] for w in rows], yerr=[w[2][1] for w in rows], marker="o", ms=4, capsize=3, color=col, label=lab)
            axes[2, it].errorbar(x, [w[3][0] for w in rows], yerr=[w[3][1] for w in rows], marker="o", ms=4, capsize=3, color=col, label=lab)
        axes[0, it].set_title(f"tau={tau:g}")
        axes[1, it].axhline(0, color="black", lw=0.8)
        axes[0, it].set_ylabel("verified-safe fraction of D")
        axes[1, it].set_ylabel("paired change vs beta = 0")
        axes[2, it].set_ylabel(f"mean verified horizon (cap {100})")
        axes[2, it].set_xlabel("checkpoint")
        for k in range(3):
            axes[k, it].grid(alpha=0.3)
        axes[2, it].xaxis.set_major_locator(matplotlib.ticker.MaxNLocator(integer=True))
    axes[0, 0].legend(fontsize=7)
    g = res.options.get("safe_cells", "the default for the dimension")
    fig.suptitle(f"The closed-loop answer (SPEC §9): each run's network verified\non the -safe_cells grid ({g}); mean +- SE over {res.ns} seeds", fontsize=10)
    fig.tight_layout()
    fig.savefig(out, dpi=110)
    plt.close(fig)


def grid_answer_section(res, ga):
    """The closed-loop answer at the final checkpoint per (beta, tau): mean +- SE over seeds and the
    paired change against beta = 0 of the same seed; or why it is not there."""
    L = ["## The closed-loop answer (SPEC §9): the network verified on the -safe_cells grid", ""]
    if ga is None:
        return L + ["Not applicable: no finished run stored one (`-model dynamics`: the network is a learned world model, "
                    "whose verified-safe set is the model's, not the system's; or `-safe_cells 0`).", ""]
    final = int(np.nanmax(res.ck[:, :, 0]))
    L += [f"Final checkpoint ({final}); mean +- standard error over seeds; change: paired by seed against beta = 0 of the same tau.", "",
          "| beta | tau | seeds | verified-safe fraction | simulated safe (ceiling) | change | mean horizon | change | change, accuracy-matched (gather) |", "|---|---|---|---|---|---|---|---|---|"]
    acc = "dsafe_grid_accmatched_mean" in res.tablecols
    for ib, beta in enumerate(res.beta):
        for it, tau in enumerate(res.tau):
            v, d = _paired(res, ga, ib, it, final, 0)
            h, dh = _paired(res, ga, ib, it, final, 1)
            (m, se), (dm, dse), (hm, hse), (dhm, dhse) = _mse(v), _mse(d), _mse(h), _mse(dh)
            ch = "(baseline)" if beta == 0 else f"{dm:+.4f} +- {dse:.4f}"
            chh = "(baseline)" if beta == 0 else f"{dhm:+.2f} +- {dhse:.2f}"
            am = (f"{res.table[ib, it, res.tcol('dsafe_grid_accmatched_mean')]:+.4f} +- {res.table[ib, it, res.tcol('dsafe_grid_accmatched_mean') + 1]:.4f}"
                  f" ({int(res.table[ib, it, res.tcol('safe_grid_accmatched_pairs')])} pairs)") if acc and beta != 0 else "-"
            sim = fmt(float(res.table[ib, it, res.tcol("safe_sim_mean")]), ".4f") if "safe_sim_mean" in res.tablecols else "-"
            L.append(f"| {beta:g} | {tau:g} | {len(v)} | {m:.4f} +- {se:.4f} | {sim} | {ch} | {hm:.2f} +- {hse:.2f} | {chh} | {am} |")
    return L + [""]


def manipulation_section(res):
    """The manipulation check (SPEC §9, issue 33) as the gather stored it in /summary/table: one line
    beginning `Manipulation check` and ending `-> k of m settings acted`, then the per-setting table."""
    if "p_manipulation_holm" not in res.tablecols:
        return ["", "Manipulation check: not in this file (gathered before issue 33)."]
    parts, k, m = [], 0, 0
    for ib, beta in enumerate(res.beta):
        for it, tau in enumerate(res.tau):
            row = res.table[ib, it]
            a = float(row[res.tcol("acted")])
            if a < 0:
                continue
            m += 1
            k += a == 1
            d, se, b0 = (float(row[res.tcol(c)]) for c in ("dLsim_ref_mean", "dLsim_ref_se", "Lsim_ref_baseline_mean"))
            parts.append(f"beta={beta:g} tau={tau:g} {d:+.4f}+-{se:.4f} ({(100 * d / abs(b0) if b0 else math.nan):+.1f}%) p {float(row[res.tcol('p_manipulation')]):.2g} "
                         f"Holm {float(row[res.tcol('p_manipulation_holm')]):.2g} {'yes' if a == 1 else 'no'};")
    return ["", "## Manipulation check (SPEC §9, from /summary/table)", "",
            "Manipulation check: held-out L_sim on one yardstick (the cells as they start, the targets chosen for the warm-started network every arm of a seed starts from), "
            "beta > 0 against beta = 0 of the same tau and seed, one-sided paired t, Holm: " + " ".join(parts) + f" -> {k} of {m} settings acted", "",
            "Only settings that acted are judged on criterion 2; none acted -> criterion 2 NOT TESTED."]


def write_report(res, outdir, figures, notes, scaling_rows):
    L = [f"# simreach study report", "", f"Results file: `{os.path.basename(res.path)}` ({res.format}, simreach {res.version}).", ""]
    L += ["## Verdict (SPEC §9, from /summary/verdict)", "", "| criterion | holds |", "|---|---|"]
    for name, v in zip(res.verdictcols, res.verdict):
        L.append(f"| {VERDICT_TEXT.get(name, name)} | {'yes' if v == 1 else 'no' if v == 0 else 'NOT TESTED' if v == -1 else 'NOT FULLY VERIFIED (unknown cells)' if v == 2 else 'undecided'} |")
    L += ["", f"Stored by the gather (rule version {res.rule_version}); positive control: "
          + (f"`{os.path.basename(res.control)}`, {'DETECTED' if res.control_detected == 1 else 'NOT DETECTED'}" if res.control else "none given (a criterion-2 null reads NOT TESTED; run `simreach gather FILE -control CONTROL`)") + "."]
    if "recheck_failures" in res.ckcols and "falsified" in res.ckcols:
        # criterion 3's outcomes (SPEC §11): over every recorded checkpoint of the finished runs
        done = [r for r in range(len(res.points)) if int(res.status[r]) == 2]
        notp = sum(float(np.nansum(res.series(r, "recheck_failures"))) for r in done)
        fals = sum(float(np.nansum(res.series(r, "falsified"))) for r in done)
        L += ["", f"Re-check of the stored triples (SPEC §11), cell-checkpoints over {len(done)} finished runs: "
              f"**{int(fals)} falsified**, **{int(notp - fals)} unknown** (not proven within the budget), the rest proven."]
    L += manipulation_section(res)
    same = "spearman_same_tau" in res.tablecols
    L += ["", "## Criterion 1: Spearman(training L_sim, held-out H) across checkpoints (from /summary)", "",
          "The verdict's pair is the training L_sim (what the optimiser sees) with H on the held-out samples (SPEC §9, turn 4); "
          "beside it the same-sample pair (held-out L_sim, held-out H), the surrogate-fidelity check, which the tau log n bound "
          "alone makes near 1 at small tau.", "",
          "| tau | Spearman (verdict) | same-sample (surrogate fidelity) |", "|---|---|---|"]
    for it, tau in enumerate(res.tau):
        sv = fmt(float(res.table[0, it, res.tcol("spearman_same_tau")]), ".6f") if same else "-"
        L.append(f"| {tau:g} | {res.spearman_tau[it]:.6f} | {sv} |")
    L.append(f"| pooled | {res.spearman_all:.6f} | |")
    L += ["", "## Per (beta, tau): means over seeds (from /summary/table)", ""]
    want = [c for c in ("acted", "p_manipulation_holm", "dLsim_ref_mean", "effect", "tight_reduction_mean", "tight_reduction_se", "tight_reduction_accmatched_mean", "volEtight_reduction_mean", "volEtight_reduction_accmatched_mean",
                        "accmatched_pairs", "accmatched_interpolated", "dsafe_grid_mean", "dsafe_grid_accmatched_mean", "safe_grid_accmatched_pairs", "dLsim_heldout_mean", "succ_floor_mean", "succ_tight_mean", "succ_minimal_mean", "succ_certified_mean", "dpred_error_mean", "dcoverage_mean", "spearman_mean", "recheck_failures") if c in res.tablecols]
    L += ["| beta | tau | " + " | ".join(want) + " |", "|---" * (len(want) + 2) + "|"]
    for ib, beta in enumerate(res.beta):
        for it, tau in enumerate(res.tau):
            L.append(f"| {beta:g} | {tau:g} | " + " | ".join(fmt(float(res.table[ib, it, res.tcol(c)])) for c in want) + " |")
    if "accmatched_interpolated" in res.tablecols:
        L += ["", "Accuracy-matched (SPEC §9): each treated run against the baseline checkpoint whose prediction error is closest to and "
              "not better than the run's final one; where every baseline checkpoint is more accurate, the baseline's value is interpolated "
              "along its checkpoints at the prediction error of the run's latest checkpoint that two consecutive baseline checkpoints bracket "
              "(`accmatched_interpolated` counts those pairs). `dsafe_grid_*`: change of the verified-safe fraction on the -safe_cells grid, "
              "same checkpoint and accuracy-matched by the same matching among the checkpoints that carry the grid answer (`safe_grid_accmatched_pairs` pairs)."]
    L += ["", "Counts: " + ", ".join(f"{n} = {int(v)}" for n, v in zip(res.countcols, res.counts)),
          f"; largest measured gap / (tau log n): {fmt(res.gap_ratio_max)}.", ""]
    L += published_check(res)
    L += cell_solve_section(res)
    L += grid_answer_section(res, grid_answer(res))
    L += ["## Figures", ""]
    for title, name in figures:
        L += [f"### {title}", "", f"![{title}]({name})", ""]
    if scaling_rows:
        L += ["## Scaling table", "", "| mode | ranks | cells | event | time_max (s) |", "|---|---|---|---|---|"]
        for r in scaling_rows:
            L.append(f"| {r['mode']} | {r['ranks']} | {r['cells']} | {r['event']} | {r['time_max']} |")
        L.append("")
    if notes:
        L += ["## Notes", ""] + [f"- {n}" for n in notes] + [""]
    with open(os.path.join(outdir, "report.md"), "w") as fh:
        fh.write("\n".join(L))


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("results", help="results file of simreach study / gather")
    ap.add_argument("-o", "--output", default="report", help="output directory (created)")
    ap.add_argument("--scaling", action="append", default=[], help="scaling table(s) written by slurm/scaling.sbatch")
    a = ap.parse_args(argv)
    os.makedirs(a.output, exist_ok=True)
    res = Results(a.results)
    figures, notes = [], []
    fig_lsim_vs_H(res, os.path.join(a.output, "lsim_vs_H.png"))
    figures.append(("L_sim vs H per tau", "lsim_vs_H.png"))
    fig_beta_panels(res, os.path.join(a.output, "successors_volume.png"), ["succ_certified", "vol_E", "vol_union"],
                    ["certified successors per cell", "mean vol(E_k)", "mean vol(U C(k))"], True)
    figures.append(("Successor count and reachable volume vs beta", "successors_volume.png"))
    fig_beta_panels(res, os.path.join(a.output, "task_coverage.png"), ["pred_error", "coverage"],
                    ["prediction error (held-out task loss)", "eps-coverage"], False)
    figures.append(("Task loss and eps-coverage vs beta", "task_coverage.png"))
    fig_gap(res, os.path.join(a.output, "gap.png"))
    figures.append(("Softmin / softmax gap vs tau log n", "gap.png"))
    if fig_tradeoff(res, os.path.join(a.output, "tradeoff.png")):
        figures.append(("Trade-off: prediction error against |M_tight| and vol(E_tight), one curve per beta", "tradeoff.png"))
    if "safe_tight" in res.ckcols:
        fig_beta_panels(res, os.path.join(a.output, "closed_loop.png"), ["safe_tight", "horizon_tight", "safe_C", "horizon_C"],
                        ["verified-safe fraction (M_tight)", "mean verified horizon (M_tight)", "verified-safe fraction (C)",
                         "mean verified horizon (C)"], False)
        figures.append(("The closed loop (SPEC §12) on the training cells, for the record: vs beta (every training cell's list holds the sink, so the verified-safe fraction there is 0 by construction; the answer is the -safe_cells grid's below)", "closed_loop.png"))
    ga = grid_answer(res)
    if ga is not None:
        fig_safe_grid(res, os.path.join(a.output, "closed_loop_grid.png"), ga)
        figures.append(("The closed-loop answer (SPEC §9): verified-safe fraction on the -safe_cells grid per checkpoint, treatment against the beta = 0 baseline (paired change in the middle row)", "closed_loop_grid.png"))
    if fig_counts(res, os.path.join(a.output, "counts.png")):
        figures.append(("Floor, tightest, minimal and certified successor counts per beta", "counts.png"))
    note = fig_cells(res, os.path.join(a.output, "cells.png"))
    if note is not None:
        figures.append(("Certified successors per cell before and after training", "cells.png"))
        notes.append(note)
    note = fig_partition(res, os.path.join(a.output, "partition.png"))
    if note is not None:
        figures.append(("The learned partition with a few final enclosures E_k", "partition.png"))
        notes.append(note)
    rows = []
    if a.scaling:
        rows = read_scaling(a.scaling)
        fig_scaling(rows, os.path.join(a.output, "scaling.png"))
        figures.append(("Strong and weak scaling", "scaling.png"))
    write_report(res, a.output, figures, notes, rows)
    print(f"report: wrote {os.path.join(a.output, 'report.md')} and {len(figures)} figures")
    return 0


if __name__ == "__main__":
    sys.exit(main())
