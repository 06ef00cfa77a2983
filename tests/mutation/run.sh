#!/usr/bin/env bash
# Mutation testing (tests/mutation/README.md, issue 37): every planted change of
# tests/mutation/mutants.py applied in turn to a scratch copy of this tree, built, and the
# tests that cover it run; prints killed / survived per mutant and the score.  Not part of CI.
#   tests/mutation/run.sh [--list] [-j N] [--test-jobs N] [--scratch DIR] [--no-baseline] [MUTANT ...]
# Exit 0 when every mutant run was killed, 1 when one survived (or did not build), 2 when a
# snippet no longer matches exactly once (update mutants.py), 3 when the unchanged tree fails.
exec python3 "$(dirname "$0")/run.py" "$@"
