#!/usr/bin/env bash
# SPEC §9 last bullet (issue 33 item 6): jobs/toy1d_likeforlike.opts runs, shortened, and
# analysis/published_check.py sets its figures beside the seed's; a file without the seed's beta
# 0.15 is refused (exit non-zero), and the printed H means equal the file's rows read apart.
# Usage: study_published_check.sh JOBS_DIR ANALYSIS_DIR WORKDIR   (environment: study_common.sh)
. "$(dirname "$0")/study_common.sh"
jobs=$1 ana=$2 dir=$3
rm -rf "$dir" && mkdir -p "$dir" || fail "cannot create $dir"
short="-seeds 2 -epochs 4 -checkpoints 2 -pretrain_epochs 4 -samples 128 -heldout 512"
sr_run 1 study -options_file "$jobs/toy1d_likeforlike.opts" $short -output "$dir/lfl.h5" > "$dir/lfl.log" 2>&1 || { cat "$dir/lfl.log"; fail "study of toy1d_likeforlike.opts"; }
"$PY" "$ana/published_check.py" "$dir/lfl.h5" > "$dir/out.txt" 2>&1 || { cat "$dir/out.txt"; fail "published_check.py"; }
grep -q "over the 6 final checkpoints at tau 0.01 (betas x seeds)" "$dir/out.txt" || { cat "$dir/out.txt"; fail "no Spearman over the final checkpoints"; }
"$PY" - "$dir/lfl.h5" "$dir/out.txt" <<'PYEOF' || fail "published_check.py prints an H that is not the file's"
import sys, h5py, numpy as np
f = h5py.File(sys.argv[1], "r"); ck = f["/runs/checkpoints"][()]
cols = f["/runs/checkpoints"].attrs["columns"]; cols = (cols.decode() if isinstance(cols, bytes) else str(cols)).split(",")
nt, ns = len(f["/grid/tau"][()]), len(f["/grid/seed"][()])
r0 = (1 * nt + 0) * ns
h = ck[r0:r0 + ns, -1, cols.index("H")].mean()
line = [l for l in open(sys.argv[2]) if l.startswith("0.15 0.01 |")][0]
if abs(float(line.split("|")[-1]) - h) > 1e-4 * max(1.0, abs(h)):
    sys.exit(f"printed H {line.split('|')[-1].strip()} against {h} from the file")
PYEOF
sr_run 1 study -options_file "$jobs/toy1d_likeforlike.opts" $short -beta 0,0.5 -output "$dir/no015.h5" > "$dir/no015.log" 2>&1 || fail "study without beta 0.15"
if "$PY" "$ana/published_check.py" "$dir/no015.h5" > "$dir/no015.txt" 2>&1; then fail "a file without beta 0.15 was accepted"; fi
grep -q "needs beta 0 and 0.15" "$dir/no015.txt" || { cat "$dir/no015.txt"; fail "no clear refusal"; }
echo "published_check.py: figures beside the seed's, H as in the file, a file without beta 0.15 refused"
