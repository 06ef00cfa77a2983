#!/usr/bin/env bash
# The test command: set up (packages, build), then the whole suite through ctest.
set -euo pipefail
top=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
"$top/jobs/setup.sh"
cd "${BUILD_DIR:-$top/build}"
ctest --output-on-failure -j 2 --timeout 900 "$@"
