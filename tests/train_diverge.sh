#!/usr/bin/env bash
# Divergence (issue #13 item 8, docs/study.md, "Divergence"): a run whose loss explodes is diverged, not
# "done" -- here every enclosure leaves D (-lr 1e6) and the old rule (non-finite only) accepted
# all updates, reporting eps-coverage 1 and H = 0.  And a TAO solve that fails (a method that needs
# a Hessian nobody gives) marks the run diverged with the reason instead of aborting (exit 0).
# Usage: train_diverge.sh WORKDIR   (environment: see study_common.sh)
. "$(dirname "$0")/study_common.sh"
dir=$1
rm -rf "$dir" && mkdir -p "$dir" || fail "cannot create $dir"
sr_run 1 train -sys pendulum -model dynamics -cells 4,4 -lr 1e6 -quiet > "$dir/explode.log" 2>&1 || { cat "$dir/explode.log"; fail "train -lr 1e6 did not end normally"; }
grep -q "^status: diverged (the loss exploded: prediction error .* exceeds 1000 times its initial value" "$dir/explode.log" || { cat "$dir/explode.log"; fail "-lr 1e6: not diverged by the loss-explosion rule"; }
awk '$1 ~ /^[0-9]+$/ && $7 == "1.000" {bad = 1} END {exit bad}' "$dir/explode.log" || { cat "$dir/explode.log"; fail "-lr 1e6: a checkpoint row reads eps-coverage 1.000"; }
echo "ok: -lr 1e6 -> $(grep '^status' "$dir/explode.log" | cut -c1-120)"
sr_run 1 train -sys pendulum -model dynamics -cells 4,4 -epochs 2 -checkpoints 1 -samples 64 -heldout 64 -tao_type ntr -quiet > "$dir/tao.log" 2>&1 || { cat "$dir/tao.log"; fail "a failing TAO solve aborted the run"; }
grep -q "^status: diverged (the TAO theta solve failed" "$dir/tao.log" || { cat "$dir/tao.log"; fail "a failing TAO solve: the run is not marked diverged with the reason"; }
echo "ok: -tao_type ntr -> $(grep '^status' "$dir/tao.log" | cut -c1-140)"
echo "PASS: an exploding loss and a failing TAO solve end the run as diverged, with the reason"
