#!/usr/bin/env bash
# The same small study on 1, 2 and 4 ranks (-cell_ranks 1 and 2) gives identical files
# (SPEC §9: results must not depend on how many ranks ran them); wall times excluded.  With
# fewer runs than groups the groups are widened and the file stays the same.
# Usage: study_ranks.sh OPTIONS_FILE WORKDIR   (environment: see study_common.sh)
. "$(dirname "$0")/study_common.sh"
opts=$1 dir=$2
rm -rf "$dir" && mkdir -p "$dir" || fail "cannot create $dir"
sr_run 1 study -options_file "$opts" -output "$dir/np1.h5" > "$dir/np1.log" 2>&1 || { cat "$dir/np1.log"; fail "study on 1 rank"; }
for cfg in "2 1" "2 2" "4 1" "4 2"; do
  set -- $cfg
  f="$dir/np$1_cr$2.h5"
  sr_run "$1" study -options_file "$opts" -cell_ranks "$2" -output "$f" > "$f.log" 2>&1 || { cat "$f.log"; fail "study on $1 ranks, -cell_ranks $2"; }
  sr_compare "$dir/np1.h5" "$f" || fail "$1 ranks with -cell_ranks $2 differ from 1 rank"
done
# the gather from the file alone prints the same verdict as the study did
sr_run 1 gather "$dir/np1.h5" > "$dir/gather.log" 2>&1 || { cat "$dir/gather.log"; fail "simreach gather"; }
diff <(grep -E "^(Criterion|Predicted|tau log n|Cell solve)" "$dir/np1.log") <(grep -E "^(Criterion|Predicted|tau log n|Cell solve)" "$dir/gather.log") || fail "simreach gather disagrees with the study's own gather"
grep -qE "^Cell solve \(SPEC §8\): theta moves [0-9]+ accepted, [0-9]+ rejected, [0-9]+ backtracked; [0-9]+ of [0-9]+ checkpoint intervals with a move that counts; TAO converged in [0-9]+ of [0-9]+ solves" "$dir/gather.log" || { cat "$dir/gather.log"; fail "simreach gather prints no cell-solve line (SPEC §8)"; }
# -grid_slice parts (Slurm job arrays) merged by simreach gather give the same file
for i in 0 1 2; do
  sr_run 2 study -options_file "$opts" -grid_slice "$i/3" -output "$dir/slice$i.h5" > "$dir/slice$i.log" 2>&1 || { cat "$dir/slice$i.log"; fail "slice $i/3"; }
done
if sr_run 1 gather "$dir/partial.h5" -merge "$dir/slice0.h5,$dir/slice1.h5" > "$dir/partial.log" 2>&1; then fail "merge of 2 of 3 slices succeeded"; fi
grep -q "finished in none of the slice files" "$dir/partial.log" || { cat "$dir/partial.log"; fail "merge of 2 of 3 slices: no message naming the missing run"; }
sr_run 2 gather "$dir/merged.h5" -merge "$dir/slice0.h5,$dir/slice1.h5,$dir/slice2.h5" > "$dir/merge.log" 2>&1 || { cat "$dir/merge.log"; fail "simreach gather -merge"; }
sr_compare "$dir/np1.h5" "$dir/merged.h5" || fail "merged slices differ from the single study"
# -target certified (T = C, nothing of T in the resume state): the same on 1 and 2 cell ranks,
# resume state included (it once held K uninitialised numbers there)
for np in 1 2; do
  sr_run "$np" study -options_file "$opts" -target certified -cell_ranks "$np" -output "$dir/cert$np.h5" > "$dir/cert$np.log" 2>&1 || { cat "$dir/cert$np.log"; fail "study -target certified on $np ranks"; }
done
sr_compare "$dir/cert1.h5" "$dir/cert2.h5" || fail "-target certified: 2 cell ranks differ from 1 rank"
# fewer runs than groups: one run on 2 ranks with -cell_ranks 1 runs as one group of 2 ranks (no
# rank idles) and gives the file of 1 rank
sr_run 1 study -options_file "$opts" -beta 0.5 -tau 0.05 -seeds 1 -output "$dir/one1.h5" > "$dir/one1.log" 2>&1 || { cat "$dir/one1.log"; fail "a one-run study on 1 rank"; }
sr_run 2 study -options_file "$opts" -beta 0.5 -tau 0.05 -seeds 1 -cell_ranks 1 -output "$dir/one2.h5" > "$dir/one2.log" 2>&1 || { cat "$dir/one2.log"; fail "a one-run study on 2 ranks"; }
grep -q "1 group(s) of 2 rank(s)" "$dir/one2.log" || { cat "$dir/one2.log"; fail "a one-run study on 2 ranks with -cell_ranks 1: not one group of 2 ranks (a rank idles)"; }
sr_compare "$dir/one1.h5" "$dir/one2.h5" || fail "a one-run study: one group of 2 ranks differs from 1 rank"
echo "PASS: identical on 1, 2, 4 ranks with -cell_ranks 1 and 2, merged from 3 grid slices, with -target certified on 1 and 2 ranks, and a one-run study widened to one group of 2 ranks"
