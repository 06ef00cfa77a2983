#!/usr/bin/env bash
# The test command: set up (packages, build), then the whole suite through ctest.
set -euo pipefail
top=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
"$top/jobs/setup.sh"
cd "${BUILD_DIR:-$top/build}"
# Open MPI 4.1's mpiexec waits odls_base_sigkill_timeout (1 s) twice after a rank exits non-zero
# before it returns; most refusal tests end that way, so the suite does not wait (the tests that
# time signals, oneline.sh and study_signals.sh, set their own value).
export OMPI_MCA_odls_base_sigkill_timeout=${OMPI_MCA_odls_base_sigkill_timeout:-0}
ctest --output-on-failure -j 2 --timeout 900 "$@"
