#!/usr/bin/env bash
# ReLU vs tanh enclosure kernels (SPEC §14, issue 24): a 2-25-25-1 pendulum controller with ReLU
# hidden layers and the same shape with tanh, 10^6 grid cells, interval and taylor1, cells/s per
# core side by side (best of 3, one rank).  Usage: bench_relu.sh BUILD_DIR [GRID]
b=${1:-build} grid=${2:-1000}
echo "load: $(uptime)"
printf "%-9s %-22s %16s %16s\n" enclosure network "cells/s/core" "wall s"
for enc in interval taylor1; do
  for act in tanh relu; do
    line=$("$b/tests/bench_enclosure" -grid "$grid" -mlp_widths 25,25 -model controller -act $act -enclosure $enc -reps 3 | grep RESULT)
    set -- $line
    printf "%-9s %-22s %16.0f %16.3f\n" "$2" "$3" "$(echo "$5 / $6" | bc -l)" "$6"
  done
done
