#!/usr/bin/env bash
# Builds the mini-app and runs the main job: `dslash bench` on its built-in default lattice
# (32x32x32x32, single precision), every kernel x dispatch, against this machine's roofline.
# Extra arguments go to dslash bench, e.g.:  bash scripts/bench.sh --prec double --tile auto
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install_deps.sh
cmake --preset release -G Ninja > /dev/null
cmake --build --preset release
exec build/release/src/cli/dslash bench "$@"
