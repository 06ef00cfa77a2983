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
  cells.png              (2-D systems) the cells and their certified successors before and
                         after training, for the baseline and a regularised run
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
import numpy as np  # noqa: E402

VERDICT_TEXT = {
    "spearman_gt_0.8": "Spearman(L_sim, H) > 0.8 across checkpoints",
    "reduction_ge_20pct": ">= 20 % fewer successors or less reachable volume than beta = 0",
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
            self.sptr = f["/runs/successor_ptr"][()] if "/runs/successor_ptr" in f else None
            self.sidx = f["/runs/successor_idx"][()] if "/runs/successor_idx" in f else None
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
            self.initial = {k: f["/runs/" + k][()] for k in ("cells_initial", "successor_ptr_initial", "successor_idx_initial") if "/runs/" + k in f}
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
                x.extend(res.series(r, "Lsim"))
                y.extend(res.series(r, "H"))
            ax.scatter(x, y, s=14, color=cmap(ib / max(res.nb - 1, 1)), label=f"beta={beta:g}", alpha=0.8)
        ax.set_title(f"tau={tau:g}: Spearman {res.spearman_tau[it]:.3f}")
        ax.set_xlabel("L_sim (smooth)")
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


def draw_cells(ax, c, w, ptr, idx, title, dom, labels):
    from matplotlib.patches import Rectangle

    K = len(c)
    for k in range(K):
        ax.add_patch(Rectangle(c[k] - w[k], 2 * w[k, 0], 2 * w[k, 1], fill=False, lw=0.6, color="0.4"))
    if ptr is not None and idx is not None:
        for k in range(K):
            a, b = int(ptr[k]), int(ptr[k + 1])
            if a < 0 or b < a:
                continue
            for j in idx[a:b]:
                j = int(j)
                if 0 <= j < K and j != k:
                    ax.annotate("", xy=c[j], xytext=c[k], arrowprops=dict(arrowstyle="->", lw=0.4, color="tab:blue", alpha=0.5))
                elif j == K:
                    ax.plot(*c[k], "x", color="tab:red", ms=3)
    ax.set_xlim(dom[0])
    ax.set_ylim(dom[1])
    ax.set_xlabel(labels[0])
    ax.set_ylabel(labels[1])
    ax.set_title(title, fontsize=9)


def fig_cells(res, out):
    """Cells and successor arrows, before and after training; returns a note for report.md."""
    sysname, dom, labels = domain_2d(res)
    if dom is None or res.cells is None:
        return None
    K = res.cells.shape[1] // 4
    counts = [int(v) for v in res.options.get("cells", "").split(",") if v.strip().isdigit()]
    if len(counts) != 2 or counts[0] * counts[1] != K:
        n = int(round(math.sqrt(K)))
        counts = [n, K // n] if n * (K // n) == K else None
    it = 0
    ibr = res.nb - 1
    runs = [("baseline beta=%g" % res.beta[0], res.run(0, it, 0)), ("regularised beta=%g" % res.beta[ibr], res.run(ibr, it, 0))]
    fig, axes = plt.subplots(2, 2, figsize=(9, 8))
    for col, (name, r) in enumerate(runs):
        if "cells_initial" in res.initial:
            ci = res.initial["cells_initial"][r]
            draw_cells(axes[0, col], ci[: 2 * K].reshape(K, 2), ci[2 * K :].reshape(K, 2),
                       res.initial.get("successor_ptr_initial", [None])[r] if "successor_ptr_initial" in res.initial else None,
                       res.initial.get("successor_idx_initial", [None])[r] if "successor_idx_initial" in res.initial else None,
                       f"{name}: before training", dom, labels)
        elif counts:
            c0, w0 = grid_cells(dom, counts)
            draw_cells(axes[0, col], c0, w0, None, None, f"{name}: initial grid (no successors in file)", dom, labels)
        th = res.cells[r]
        ptr = res.sptr[r] if res.sptr is not None else None
        idx = res.sidx[r] if res.sidx is not None else None
        draw_cells(axes[1, col], th[: 2 * K].reshape(K, 2), th[2 * K :].reshape(K, 2), ptr, idx, f"{name}: after training", dom, labels)
    fig.suptitle(f"{sysname}, tau={res.tau[it]:g}, seed={res.seed[0]}: cells, certified successors (arrows), sink (x)")
    fig.tight_layout()
    fig.savefig(out, dpi=110)
    plt.close(fig)
    if "cells_initial" in res.initial:
        return "The cells' enclosures E_k are not stored in the results file, so the figure shows the cells and their certified successors only."
    return ("The results file stores only the final cells, network and successor lists; the 'before' panels show the "
            "initial regular grid without successors (the file would need /runs/cells_initial, successor_ptr_initial and "
            "successor_idx_initial, and the enclosures E_k, to draw them).")


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


def write_report(res, outdir, figures, notes, scaling_rows):
    L = [f"# simreach study report", "", f"Results file: `{os.path.basename(res.path)}` ({res.format}, simreach {res.version}).", ""]
    L += ["## Verdict (SPEC §9, from /summary/verdict)", "", "| criterion | holds |", "|---|---|"]
    for name, v in zip(res.verdictcols, res.verdict):
        L.append(f"| {VERDICT_TEXT.get(name, name)} | {'yes' if v == 1 else 'no' if v == 0 else 'undecided'} |")
    L += ["", "## Spearman(L_sim, H) across checkpoints (from /summary)", "", "| tau | Spearman |", "|---|---|"]
    for it, tau in enumerate(res.tau):
        L.append(f"| {tau:g} | {res.spearman_tau[it]:.6f} |")
    L.append(f"| pooled | {res.spearman_all:.6f} |")
    L += ["", "## Per (beta, tau): means over seeds (from /summary/table)", ""]
    want = [c for c in ("succ_reduction_mean", "volE_reduction_mean", "volU_reduction_mean", "dpred_error_mean", "dcoverage_mean", "spearman_mean", "recheck_failures") if c in res.tablecols]
    L += ["| beta | tau | " + " | ".join(want) + " |", "|---" * (len(want) + 2) + "|"]
    for ib, beta in enumerate(res.beta):
        for it, tau in enumerate(res.tau):
            L.append(f"| {beta:g} | {tau:g} | " + " | ".join(fmt(float(res.table[ib, it, res.tcol(c)])) for c in want) + " |")
    L += ["", "Counts: " + ", ".join(f"{n} = {int(v)}" for n, v in zip(res.countcols, res.counts)),
          f"; largest measured gap / (tau log n): {fmt(res.gap_ratio_max)}.", ""]
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
    note = fig_cells(res, os.path.join(a.output, "cells.png"))
    if note is not None:
        figures.append(("Cells and successors before and after training", "cells.png"))
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
