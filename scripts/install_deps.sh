#!/usr/bin/env bash
# Installs the Debian packages the build, tests and scripts need, if any are missing.
# As root it runs apt-get itself; otherwise it names what to install and fails.
set -euo pipefail

packages=(
  cmake ninja-build g++ clang libomp-dev          # compilers; clang + libomp for the fuzz targets
  libxsimd-dev libcli11-dev nlohmann-json3-dev     # SIMD wrappers, command line, JSON
  libgtest-dev libbenchmark-dev                    # GoogleTest, Google Benchmark
  libopenmpi-dev openmpi-bin                       # the MPI halo layer and its mpirun tests
  python3-numpy python3-matplotlib                 # comparison and plot scripts (/usr/bin/python3)
  git
)
# The aarch64 stage of scripts/test.sh: the NEON kernels cross-built and tested under qemu-user.
# Installed as root like the others; without root and without them, that stage is skipped.
cross_packages=(g++-aarch64-linux-gnu libgomp1-arm64-cross qemu-user googletest)

# A host with no package registry (a GPU node, say) that has the libraries elsewhere: point
# CMAKE_PREFIX_PATH at them and set DSLASH_SKIP_DEPS=1; CMake then says what it cannot find.
if [ "${DSLASH_SKIP_DEPS:-0}" = 1 ]; then
  echo "DSLASH_SKIP_DEPS=1: not checking Debian packages (CMAKE_PREFIX_PATH=${CMAKE_PREFIX_PATH:-unset})" >&2
  exit 0
fi

installed() { dpkg-query -W -f='${Status}' "$1" 2>/dev/null | grep -q "install ok installed"; }
missing=() missing_cross=()
for p in "${packages[@]}"; do installed "$p" || missing+=("$p"); done
for p in "${cross_packages[@]}"; do installed "$p" || missing_cross+=("$p"); done

if [ "$(id -u)" -eq 0 ]; then
  missing+=("${missing_cross[@]}")
  [ ${#missing[@]} -eq 0 ] && exit 0
  echo "installing: ${missing[*]}" >&2
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq
  apt-get install -y -qq --no-install-recommends "${missing[@]}" > /dev/null
else
  [ ${#missing_cross[@]} -eq 0 ] || echo "note: without ${missing_cross[*]} the aarch64 (NEON) test stage is skipped" >&2
  [ ${#missing[@]} -eq 0 ] && exit 0
  echo "error: missing Debian packages: ${missing[*]}" >&2
  echo "       run as root, or: sudo apt-get install ${missing[*]}" >&2
  exit 1
fi
