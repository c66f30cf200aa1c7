#!/usr/bin/env bash
# Builds the dslash binary (the release preset: this machine's best instruction set and scalar, CUDA
# where a GPU is present) and runs the main job: `dslash bench` on its built-in default lattice
# (32x32x32x32, single precision), every kernel x dispatch, against this machine's roofline.
# Extra arguments go to dslash bench, e.g.:  bash scripts/bench.sh --prec double --tile auto
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install_deps.sh
cmake --preset release > /dev/null
cmake --build --preset release --target dslash
exec build/release/src/cli/dslash bench "$@"
