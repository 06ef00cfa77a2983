#!/usr/bin/env bash
# The shipped plant files give the numbers of the C systems they replace (SPEC §16, issue 36
# item 3): the checkpoint tables of three short trainings (pendulum -enclosure interval, Dubins
# -control_steps 10 taylor1, toy1d both) and the gather of tests/study_tiny.opts on 2 ranks, as
# main baed6f0 printed them with its hand-written C steps (tests/data/plants_golden/, written by
# that build), must be printed again, character for character.
# Usage: plants_golden.sh WORKDIR   (environment: see study_common.sh)
. "$(dirname "$0")/study_common.sh"
dir=$1 src=$(cd "$(dirname "$0")/.." && pwd) gold=$(cd "$(dirname "$0")" && pwd)/data/plants_golden
rm -rf "$dir" && mkdir -p "$dir" && cd "$dir" || fail "cannot create $dir"
same() { diff "$gold/$1" "$1" > "$1.diff" || { cat "$1.diff"; fail "$1 differs from the C systems' numbers ($gold/$1)"; }; }
sr_run 1 train -options_file "$src/jobs/train_pendulum.opts" -epochs 4 -checkpoints 2 > train_pend.log 2>&1 || { cat train_pend.log; fail "train pendulum"; }
same train_pend.log
sr_run 1 train -sys dubins -model controller -control_steps 10 -mlp_widths 8 -cells 6,4,4 -epochs 3 -checkpoints 3 -samples 128 -heldout 128 -seed 2 -enclosure taylor1 > train_dub.log 2>&1 || { cat train_dub.log; fail "train dubins"; }
same train_dub.log
sr_run 1 train -sys toy1d -model dynamics -mlp_widths 8 -cells 16 -epochs 3 -checkpoints 3 -samples 128 -heldout 128 -seed 2 -enclosure both > train_toy.log 2>&1 || { cat train_toy.log; fail "train toy1d"; }
same train_toy.log
sr_run 2 study -options_file "$src/tests/study_tiny.opts" -output study_pend.h5 > study.log 2>&1 || { cat study.log; fail "study"; }
sr_run 1 gather study_pend.h5 > gather_pend.txt 2>&1 || { cat gather_pend.txt; fail "gather"; }
same gather_pend.txt
echo "plants_golden: the shipped plant files give the C systems' numbers"
