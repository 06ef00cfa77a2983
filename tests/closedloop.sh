#!/usr/bin/env bash
# simreach safe and simreach reach end to end (SPEC §12) on abstraction files of simreach verify:
# - the horizons and the safe set against a brute-force Python reference that expands every
#   index-box list (independent of src/graph/closedloop.c), and the reachable sets likewise;
# - identical safety files on 1, 2 and 4 ranks;
# - sampled trajectories of the real network never leave D before their cell's horizon;
# - a planted list edit that hides a reachable sink changes the answer and is caught by the
#   re-check of the stored abstraction (simreach verify -recheck and simreach check);
# - the horizon figure (analysis/safety_figure.py) is drawn;
# - bad input refused, naming the option.
# Usage: closedloop.sh WORKDIR   (environment: see study_common.sh)
. "$(dirname "$0")/study_common.sh"
dir=$1
rm -rf "$dir" && mkdir -p "$dir" || fail "cannot create $dir"
# Fixtures: world models written here (network-file layout, analysis/abstraction-schema.md) with
# a known shape per dimension, in s = 2 x / r (r the half-width of D): f(s) = s + N(s),
# N(s) = -50 tanh(0.01 s) + 0.6 tanh(4 s - 6) - 0.6 tanh(-4 s - 6): about s / 2 inside
# |s| < 1.5 (contracting, safe), pushed out of D near the rim (|s| > 1.6 leaves) — so the
# verified-safe set and finite horizons both occur.
"$PY" - "$dir" <<'PYEOF' || fail "writing the fixture networks"
import sys, h5py, numpy as np
d = sys.argv[1]
def write(path, sysname, r):
    n = len(r)
    W0, b0, W1 = np.zeros((3 * n, n)), np.zeros(3 * n), np.zeros((n, 3 * n))
    for e in range(n):
        a = 2.0 / r[e]
        W0[3 * e, e], W0[3 * e + 1, e], W0[3 * e + 2, e] = 0.01 * a, 4 * a, -4 * a
        b0[3 * e + 1], b0[3 * e + 2] = -6, -6
        W1[e, 3 * e], W1[e, 3 * e + 1], W1[e, 3 * e + 2] = -50 * r[e] / 2, 0.6 * r[e] / 2, -0.6 * r[e] / 2
    with h5py.File(path, "w") as f:
        for k, v in (("simreach_format", "simreach-network-1"), ("sys", sysname), ("model", "dynamics"), ("activation", "tanh")):
            f.attrs[k] = np.bytes_(v)
        f.attrs["control_steps"] = np.int64(1)
        f["widths"] = np.asarray([n, 3 * n, n], dtype=np.int64)
        f["layers/0/weight"], f["layers/0/bias"] = W0, b0
        f["layers/1/weight"], f["layers/1/bias"] = W1, np.zeros(n)
write(f"{d}/pend.h5", "pendulum", [1.0, 2.0])
write(f"{d}/toy.h5", "toy1d", [2.0])
PYEOF
sr_run 2 verify -network "$dir/pend.h5" -cells 40,30 -output "$dir/pend_abs.h5" > "$dir/pv.log" 2>&1 || { cat "$dir/pv.log"; fail "verify pendulum"; }
sr_run 2 verify -network "$dir/toy.h5" -cells 200 -enclosure both -output "$dir/toy_abs.h5" > "$dir/tv.log" 2>&1 || { cat "$dir/tv.log"; fail "verify toy1d"; }
for base in pend toy; do
  for np in 1 2 4; do
    sr_run $np safe "$dir/${base}_abs.h5" -trajectories 20000 -output "$dir/${base}_safe$np.h5" > "$dir/${base}_safe$np.log" 2>&1 || { cat "$dir/${base}_safe$np.log"; fail "safe $base on $np ranks"; }
  done
  grep -q " 0 left D before their verified horizon" "$dir/${base}_safe1.log" || { cat "$dir/${base}_safe1.log"; fail "$base: trajectory check"; }
done
sr_run 2 reach "$dir/pend_abs.h5" -init -0.2,0.2,-0.3,0.3 -steps 8 > "$dir/reach.log" 2>&1 || { cat "$dir/reach.log"; fail "reach"; }
"$PY" - "$dir" <<'PYEOF' || fail "closed-loop answers differ from the brute-force reference"
import sys, h5py, numpy as np
d = sys.argv[1]

def load(path):
    f = h5py.File(path, "r")
    n, K = int(f.attrs["n"][0]), int(f.attrs["K"][0])
    N = [int(c) for c in f["partition/counts"][()]]
    rows = f["cells/list"][()]
    fail = set(int(c) for c in f["failures/cell"][()])
    b = [0.5 * f[f"partition/boundary_lo_{e}"][()] + 0.5 * f[f"partition/boundary_hi_{e}"][()] for e in range(n)]
    succ, sink = [], []
    for k in range(K):
        r = rows[k]
        lo, hi, fl = r[:n], r[n:2 * n], r[2 * n]
        ks = []
        if all(lo[e] <= hi[e] for e in range(n)):
            grids = np.meshgrid(*[np.arange(lo[e], hi[e] + 1) for e in range(n)], indexing="ij")
            idx = np.zeros(grids[0].shape, dtype=np.int64)
            stride = 1
            for e in range(n):
                idx += grids[e] * stride
                stride *= N[e]
            ks = sorted(idx.ravel().tolist())
        succ.append(ks)
        sink.append(bool(fl & 1) or bool(fl & 2) or k in fail)
    vol = np.ones(K)
    for k in range(K):
        r = k
        for e in range(n):
            i = r % N[e]; r //= N[e]
            vol[k] *= b[e][i + 1] - b[e][i]
    return n, K, N, succ, sink, vol / vol.sum(), f

for base in ("pend", "toy"):
    n, K, N, succ, sink, vol, f = load(f"{d}/{base}_abs.h5")
    INF = 1 << 62
    h = [0 if sink[k] else INF for k in range(K)]
    changed = True
    while changed:
        changed = False
        for k in range(K):
            if sink[k]:
                continue
            best = min((h[j] + 1 for j in succ[k] if h[j] < INF), default=INF)
            if best < h[k]:
                h[k] = best; changed = True
    ref = np.array([-1 if x == INF else x for x in h], dtype=np.int32)
    files = [h5py.File(f"{d}/{base}_safe{np_}.h5", "r") for np_ in (1, 2, 4)]
    for g in files:
        assert np.array_equal(g["horizon"][()], ref), f"{base}: horizons differ from the reference"
        assert abs(float(g.attrs["safe_fraction"]) - vol[ref == -1].sum()) < 1e-12, base
        assert g.attrs["iterations"] == files[0].attrs["iterations"]
    nsafe = int((ref == -1).sum())
    assert 0 < nsafe < K, f"{base}: the fixture should have both safe and unsafe cells ({nsafe} of {K} safe)"
    print(f"{base}: {nsafe} of {K} cells safe, max horizon {ref.max()}; identical on 1, 2, 4 ranks and to the reference")
    if base == "pend":
        # bounded reachability from X0 = [-0.2,0.2] x [-0.3,0.3]
        olo = [f[f"partition/cell_lo_{e}"][()] for e in range(n)]
        ohi = [f[f"partition/cell_hi_{e}"][()] for e in range(n)]
        X0 = [(-0.2, 0.2), (-0.3, 0.3)]
        R = set()
        for k in range(K):
            r, ok = k, True
            for e in range(n):
                i = r % N[e]; r //= N[e]
                if ohi[e][i] < X0[e][0] or olo[e][i] > X0[e][1]:
                    ok = False
            if ok:
                R.add(k)
        table, sink_step = [], -1
        for t in range(9):
            table.append((len(R), sum(vol[k] for k in R)))
            if t == 8:
                break
            if sink_step < 0 and any(sink[k] for k in R):
                sink_step = t + 1
            R = set(j for k in R for j in succ[k])
        got = []
        for line in open(f"{d}/reach.log"):
            p = [s.strip() for s in line.split("|")]
            if len(p) == 6 and p[1].isdigit():
                got.append((int(p[2]), float(p[3]), p[4]))
        assert len(got) == 9, got
        for t in range(9):
            assert got[t][0] == table[t][0], (t, got[t], table[t])
            assert abs(got[t][1] - table[t][1]) <= 1e-5 * max(1.0, table[t][1]), (t, got[t], table[t])
            assert got[t][2] == ("yes" if sink_step >= 0 and t >= sink_step else "no"), (t, got[t], sink_step)
        print(f"reach: {[c for c, _ in table]} cells, sink at step {sink_step}: matches the reference")
PYEOF
# planted edit: a cell whose list holds the sink (its enclosure leaves D) loses the sink flag;
# safe must then answer differently, and the re-check of the stored lists must catch it
cp "$dir/pend_abs.h5" "$dir/planted.h5"
# (its stored enclosure is clipped to D to match and every checksum recomputed: an edit the
# validation on open cannot see, tests/sr_reseal.py)
cell=$("$PY" - "$dir/planted.h5" <<'PYEOF'
import sys, h5py, numpy as np
f = h5py.File(sys.argv[1], "r+")
n = int(f.attrs["n"][0])
L, E = f["cells/list"], f["cells/enclosure"]
rows, enc = L[()], E[()]
lo, hi = f["partition/domain_lo"][()], f["partition/domain_hi"][()]
for k in range(rows.shape[0]):
    if rows[k, 2 * n] == 1 and all(rows[k, d] <= rows[k, n + d] for d in range(n)):
        e = enc[k].copy()
        e[:n], e[n:] = np.clip(e[:n], lo, hi), np.clip(e[n:], lo, hi)
        if not all(e[d] <= e[n + d] for d in range(n)):
            continue
        rows[k, 2 * n] = 0
        L[k], E[k] = rows[k], e
        print(k)
        break
PYEOF
)
"$PY" "$(dirname "$0")/sr_reseal.py" "$dir/planted.h5" || fail "sr_reseal.py"
[ -n "$cell" ] || fail "no cell listing the sink to plant an edit in"
# safe re-proves the lists before any claim (issue 34): it refuses the planted file, exit 5, no
# output; with -reprove false it answers "given the stored lists" and the answer changed
sr_run 1 safe "$dir/planted.h5" -trajectories 0 -output "$dir/planted_safe.h5" > "$dir/planted_safe.log" 2>&1
rc=$?
[ $rc -eq 5 ] && [ ! -e "$dir/planted_safe.h5" ] && ! grep -q "verified-safe set" "$dir/planted_safe.log" || { cat "$dir/planted_safe.log"; fail "safe re-proving the planted file: exit $rc, want 5 and no claim, no output"; }
sr_run 1 safe "$dir/planted.h5" -trajectories 0 -reprove false -output "$dir/planted_safe.h5" > "$dir/planted_safe.log" 2>&1 || { cat "$dir/planted_safe.log"; fail "safe -reprove false on the planted file"; }
grep -q "given the stored lists, NOT verified here" "$dir/planted_safe.log" || { cat "$dir/planted_safe.log"; fail "safe -reprove false does not say what it proved"; }
"$PY" - "$dir" "$cell" <<'PYEOF' || fail "the planted edit did not change the answer"
import sys, h5py
d, cell = sys.argv[1], int(sys.argv[2])
a, b = h5py.File(f"{d}/pend_safe1.h5")["horizon"][()], h5py.File(f"{d}/planted_safe.h5")["horizon"][()]
assert a[cell] == 0 and b[cell] != 0, (a[cell], b[cell])
print(f"planted edit in cell {cell}: horizon 0 -> {b[cell]}")
PYEOF
if sr_run 2 verify -recheck "$dir/planted.h5" -enclosure interval > "$dir/planted_re.log" 2>&1; then cat "$dir/planted_re.log"; fail "the hidden sink in cell $cell was not caught by the re-check"; fi
grep -q "FAILED cell $cell:" "$dir/planted_re.log" || { cat "$dir/planted_re.log"; fail "the re-check does not name cell $cell"; }
sr_run 2 check "$dir/planted.h5" > "$dir/planted_check.log" 2>&1
rc=$?
[ $rc -eq 5 ] || { cat "$dir/planted_check.log"; fail "simreach check exited $rc on the file with a hidden sink in cell $cell, expected 5 (not proven)"; }
grep -qE "^  cell $cell: falsified, x = \(" "$dir/planted_check.log" || { cat "$dir/planted_check.log"; fail "simreach check does not falsify cell $cell with a witness"; }
sr_run 2 check "$dir/pend_abs.h5" > "$dir/untouched_check.log" 2>&1 || { cat "$dir/untouched_check.log"; fail "simreach check fails the untouched abstraction file"; }
# the figure of the horizons (1-D and 2-D)
for base in pend toy; do
  "$PY" "$(dirname "$0")/../analysis/safety_figure.py" "$dir/${base}_safe1.h5" "$dir/${base}_abs.h5" -o "$dir/${base}_horizon.png" > /dev/null || fail "safety_figure.py on $base"
  [ -s "$dir/${base}_horizon.png" ] || fail "safety_figure.py wrote no $base figure"
done
# on a run of a study's results file: the abstraction the run certified at its end (its final
# partition and index-box lists), identical on 1, 2, 4 ranks, equal to a reference that expands
# the stored lists, and to the study's own safe_C column at the last checkpoint
sr_run 2 study -options_file "$(dirname "$0")/study_tiny.opts" -safe_every 4 -output "$dir/study.h5" > "$dir/study.log" 2>&1 || { cat "$dir/study.log"; fail "the study for the results-file questions"; }
for np in 1 2 4; do
  sr_run $np safe "$dir/study.h5" -run 5 -trajectories 5000 -output "$dir/run_safe$np.h5" > "$dir/run_safe$np.log" 2>&1 || { cat "$dir/run_safe$np.log"; fail "safe on run 5 of a results file, $np ranks"; }
done
grep -q " 0 left D before their verified horizon" "$dir/run_safe1.log" || { cat "$dir/run_safe1.log"; fail "results file: trajectory check"; }
sr_run 2 reach "$dir/study.h5" -run_beta 0.5 -run_tau 0.05 -run_seed 1 -init -0.3,0.3,-0.5,0.5 -steps 4 > "$dir/run_reach.log" 2>&1 || { cat "$dir/run_reach.log"; fail "reach on a run named by beta, tau, seed"; }
grep -q "run 4 (beta 0.5, tau 0.05, seed 1)" "$dir/run_reach.log" || { cat "$dir/run_reach.log"; fail "reach does not name the run it answered for"; }
"$PY" - "$dir" <<'PYEOF' || fail "closed-loop answers on a results file differ from the reference"
import sys, h5py, numpy as np
d = sys.argv[1]
f = h5py.File(f"{d}/study.h5", "r")
N, n = [4, 4], 2
cols = f["/runs/checkpoints"].attrs["columns"]
cols = (cols.decode() if isinstance(cols, bytes) else str(cols)).split(",")
def graph(r):
    box, th = f["/runs/successor_box"][r], f["/runs/cells"][r]
    dlo, dhi = [-np.pi, -8.0], [np.pi, 8.0]
    b, off = [], 0
    for e in range(n):
        b.append(np.concatenate(([dlo[e]], th[off:off + N[e] - 1], [dhi[e]]))); off += N[e] - 1
    K = N[0] * N[1]
    succ = [[i0 + N[0] * i1 for i1 in range(box[k][1], box[k][3] + 1) for i0 in range(box[k][0], box[k][2] + 1)] for k in range(K)]
    sink = [bool(box[k][4]) for k in range(K)]
    vol = np.array([(b[0][k % 4 + 1] - b[0][k % 4]) * (b[1][k // 4 + 1] - b[1][k // 4]) for k in range(K)])
    return K, succ, sink, vol / vol.sum(), b
K, succ, sink, vol, b = graph(5)
INF = 1 << 62
h = [0 if sink[k] else INF for k in range(K)]
for _ in range(K + 1):
    for k in range(K):
        if not sink[k]:
            h[k] = min(h[k], min((h[j] + 1 for j in succ[k] if h[j] < INF), default=INF))
ref = np.array([-1 if x == INF else x for x in h], dtype=np.int32)
for np_ in (1, 2, 4):
    g = h5py.File(f"{d}/run_safe{np_}.h5", "r")
    assert np.array_equal(g["horizon"][()], ref), (np_, g["horizon"][()], ref)
    assert abs(float(g.attrs["safe_fraction"]) - vol[ref == -1].sum()) < 1e-12
t = f["/runs/checkpoints"][5]
last = max(j for j in range(t.shape[0]) if np.isfinite(t[j, 0]))
assert abs(t[last, cols.index("safe_C")] - vol[ref == -1].sum()) < 1e-12, (t[last, cols.index("safe_C")], vol[ref == -1].sum())
# reach on run 4 from X0 = [-0.3,0.3] x [-0.5,0.5]
K, succ, sink, vol, b = graph(4)
R = set(k for k in range(K) if b[0][k % 4 + 1] >= -0.3 and b[0][k % 4] <= 0.3 and b[1][k // 4 + 1] >= -0.5 and b[1][k // 4] <= 0.5)
table, sink_step = [], -1
for t_ in range(5):
    table.append(len(R))
    if t_ == 4:
        break
    if sink_step < 0 and any(sink[k] for k in R):
        sink_step = t_ + 1
    R = set(j for k in R for j in succ[k])
got = [(int(p[2]), p[4]) for p in ([s.strip() for s in line.split("|")] for line in open(f"{d}/run_reach.log")) if len(p) == 6 and p[1].isdigit()]
assert [c for c, _ in got] == table, (got, table)
assert [s for _, s in got] == ["yes" if sink_step >= 0 and t_ >= sink_step else "no" for t_ in range(5)], (got, sink_step)
print(f"results file: run 5 horizons {ref.tolist()} on 1, 2, 4 ranks = reference = the study's safe_C; run 4 reach {table}, sink at {sink_step}")
PYEOF
# the closed-loop answer of each run (SPEC §9, §12): the study's safe_grid / horizon_grid equal
# simreach verify on the -safe_cells grid then simreach safe on that file, computed independently
# here from the network stored at that checkpoint (-checkpoint c): on the tiny study (40,40 grid,
# -safe_every 4: checkpoints 4 and 6, NaN at the others) and on a short default-like pendulum
# study (jobs/pendulum.opts with a 100,100 grid to keep the test short, -safe_every 1) whose
# fractions are far from 0 (~0.74), so that the comparison checks a fraction, not only the sink.  -safe_cells 0 stores NaN.
sr_run 2 study -options_file "$(dirname "$0")/../jobs/pendulum.opts" -beta 0 -tau 0.05 -seeds 1 -epochs 20 -checkpoints 2 -safe_every 1 -safe_cells 100,100 -output "$dir/pend_study.h5" > "$dir/pend_study.log" 2>&1 || { cat "$dir/pend_study.log"; fail "the short pendulum study"; }
sr_run 2 study -options_file "$(dirname "$0")/study_tiny.opts" -beta 0 -tau 0.05 -seeds 1 -safe_cells 0 -output "$dir/off_study.h5" > "$dir/off_study.log" 2>&1 || { cat "$dir/off_study.log"; fail "a study with -safe_cells 0"; }
# not applicable with -model dynamics (a learned world model, SPEC §9): NaN although study_tiny.opts
# gives -safe_cells, and the gather says so
sr_run 2 study -options_file "$(dirname "$0")/study_tiny.opts" -model dynamics -beta 0 -tau 0.05 -seeds 1 -output "$dir/dyn_study.h5" > "$dir/dyn_study.log" 2>&1 || { cat "$dir/dyn_study.log"; fail "a world-model study"; }
grep -q "Closed-loop answer (SPEC §9): not applicable, no run stored one (-model dynamics" "$dir/dyn_study.log" || { cat "$dir/dyn_study.log"; fail "the gather of a world-model study does not say the closed-loop answer is not applicable"; }
for case in "study 0 4 40,40" "study 5 6 40,40" "pend_study 0 1 100,100" "pend_study 0 2 100,100"; do
  set -- $case
  sr_run 2 verify -from "$dir/$1.h5" -run $2 -checkpoint $3 -cells $4 -enclosure both -bisect 1 -output "$dir/grid_$1_$2_$3.h5" > "$dir/grid.log" 2>&1 || { cat "$dir/grid.log"; fail "verify $1 run $2 checkpoint $3 on the -safe_cells grid"; }
  sr_run 1 safe "$dir/grid_$1_$2_$3.h5" -trajectories 0 -output "$dir/grid_safe_$1_$2_$3.h5" > "$dir/grid_safe.log" 2>&1 || { cat "$dir/grid_safe.log"; fail "safe on the grid of $1 run $2 checkpoint $3"; }
done
"$PY" - "$dir" <<'PYEOF' || fail "the stored closed-loop answer differs from verify + safe"
import sys, h5py, numpy as np
d = sys.argv[1]
def table(name):
    f = h5py.File(f"{d}/{name}.h5", "r")
    cols = f["/runs/checkpoints"].attrs["columns"]
    cols = (cols.decode() if isinstance(cols, bytes) else str(cols)).split(",")
    return f["/runs/checkpoints"][()], cols.index("safe_grid"), cols.index("horizon_grid")
nonzero = 0
for name, r, c, want_rows in (("study", 0, 4, [4, 6]), ("study", 5, 6, [4, 6]), ("pend_study", 0, 1, [1, 2]), ("pend_study", 0, 2, [1, 2])):
    t, cs, ch = table(name)
    t = t[r]
    done = [j for j in range(t.shape[0]) if np.isfinite(t[j, 0])]
    have = [j for j in done if np.isfinite(t[j, cs])]
    assert have == want_rows, (name, r, "safe_grid at rows", have, "expected", want_rows)
    g = h5py.File(f"{d}/grid_safe_{name}_{r}_{c}.h5", "r")
    frac = float(g.attrs["safe_fraction"])
    h = np.where(g["horizon"][()] < 0, 100, np.minimum(g["horizon"][()], 100))
    assert t[c, cs] == frac, (name, r, c, t[c, cs], frac)
    # the study sums the volume-weighted terms rounded to 2^-40 each (rank-independent)
    assert abs(t[c, ch] - h.mean()) <= h.size * 2.0 ** -40 + 1e-12, (name, r, c, t[c, ch], h.mean())
    nonzero += 0 < frac < 1
    print(f"{name} run {r} checkpoint {c}: safe_grid {frac} = verify + safe; horizon_grid {h.mean():.6g}")
assert nonzero >= 2, "the comparison should include fractions strictly between 0 and 1"
t, cs, _ = table("pend_study")
assert t[0, 2, cs] > 0.5, ("the baseline of the short pendulum study", t[0, 2, cs])
for name in ("off_study", "dyn_study"):
    t, cs, _ = table(name)
    assert np.all(np.isnan(t[:, :, cs])), f"{name}: -safe_cells 0 and -model dynamics should store NaN"
PYEOF
# a stored list edited after the run (its checksum no longer holds) is refused, not answered
cp "$dir/study.h5" "$dir/study_edit.h5"
"$PY" -c "import h5py,sys; f=h5py.File(sys.argv[1],'r+'); d=f['/runs/successor_box']; r=d[5]; r[0,4]=1-r[0,4]; d[5]=r" "$dir/study_edit.h5"
if sr_run 1 safe "$dir/study_edit.h5" -run 5 -trajectories 0 > "$dir/run_edit.log" 2>&1; then cat "$dir/run_edit.log"; fail "an edited list of a results file was answered"; fi
grep -q "fails\{0,1\} \(its\|their\) checksum" "$dir/run_edit.log" || { cat "$dir/run_edit.log"; fail "the edited results file: no checksum message"; }
# bad input: one or two lines naming the option, non-zero exit
expect_refusal() { # name, expected text, command...
  local name=$1 text=$2; shift 2
  if "$@" > "$dir/bad.log" 2>&1; then cat "$dir/bad.log"; fail "$name: accepted"; fi
  grep -q -- "$text" "$dir/bad.log" || { cat "$dir/bad.log"; fail "$name: message does not say '$text'"; }
}
expect_refusal "reach -init count" "-init: 2 numbers given" sr_run 1 reach "$dir/pend_abs.h5" -init 0,1 -steps 3
expect_refusal "reach -steps" "-steps -1" sr_run 1 reach "$dir/pend_abs.h5" -init 0,1,0,1 -steps -1
expect_refusal "reach no file" "give the abstraction file" sr_run 1 reach -init 0,1,0,1
expect_refusal "safe missing file" "nothere.h5" sr_run 1 safe "$dir/nothere.h5"
expect_refusal "safe results file without a run" "name the run: -run r" sr_run 1 safe "$dir/study.h5"
expect_refusal "safe -run out of range" "-run 8: " sr_run 1 safe "$dir/study.h5" -run 8
expect_refusal "safe -run on an abstraction file" "is an abstraction file" sr_run 1 safe "$dir/pend_abs.h5" -run 0
expect_refusal "reach half a point" "give all three" sr_run 1 reach "$dir/study.h5" -run_beta 0.5 -init 0,1,0,1
expect_refusal "safe existing output" "pend_safe1.h5" sr_run 1 safe "$dir/pend_abs.h5" -trajectories 0 -output "$dir/pend_safe1.h5"
expect_refusal "study -safe_every" "-safe_every -1" sr_run 1 study -options_file "$(dirname "$0")/study_tiny.opts" -safe_every -1 -output "$dir/every.h5"
echo "closedloop.sh: all checks passed"
