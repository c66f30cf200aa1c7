#!/usr/bin/env bash
# Builds the mini-app and runs the main job on a built-in default lattice (16x16x16x16): a random
# gauge field and spinor are generated, then the reference operator is applied and timed.
#   bash scripts/bench.sh
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install_deps.sh
cmake --preset release -G Ninja > /dev/null
cmake --build --preset release
dslash=build/release/src/cli/dslash
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
"$dslash" gauge --lattice 16x16x16x16 --random --seed 1 --out "$work/U.nersc"
"$dslash" spinor --lattice 16x16x16x16 --seed 1 --out "$work/psi.npy"
time "$dslash" apply --gauge "$work/U.nersc" --in "$work/psi.npy" --out "$work/chi.npy" --parity even
