#!/usr/bin/env bash
# Install what is missing (Debian 12 packages), then configure and build simreach into build/.
# Idempotent: with every package present it installs nothing; an up-to-date build does nothing.
# Used by ./jobs/quickstart.sh and ./tests/run.sh.  Environment: BUILD_DIR (default build),
# CMAKE_BUILD_TYPE (default RelWithDebInfo), SR_SKIP_INSTALL=1 to skip the package step.
set -euo pipefail
top=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)

packages=(
  build-essential cmake pkg-config git
  openmpi-bin libopenmpi-dev petsc-dev libhdf5-openmpi-dev hdf5-tools
  libcmocka-dev libmpfr-dev libgmp-dev valgrind gdb
  python3 python3-h5py python3-numpy python3-scipy python3-matplotlib python3-torch
  protobuf-c-compiler libprotobuf-c-dev python3-onnx
  slurm-wlm munge
)

if [ "${SR_SKIP_INSTALL:-0}" != 1 ]; then
  missing=()
  for p in "${packages[@]}"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
  done
  if [ ${#missing[@]} -gt 0 ]; then
    echo "setup: installing missing Debian packages: ${missing[*]}"
    sudo=""
    [ "$(id -u)" -eq 0 ] || sudo="sudo"
    $sudo apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}"
  fi
fi

build="${BUILD_DIR:-$top/build}"
if [ ! -f "$build/CMakeCache.txt" ]; then
  cmake -S "$top" -B "$build" -DCMAKE_BUILD_TYPE="${CMAKE_BUILD_TYPE:-RelWithDebInfo}"
fi
cmake --build "$build" -j "$(nproc)"
