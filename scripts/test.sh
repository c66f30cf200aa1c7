#!/usr/bin/env bash
# Builds and runs the whole test suite: the Release build's unit, kernel and CLI tests, then short
# libFuzzer runs of the file readers (clang, ASan + UBSan), then, where the cross toolchain and
# qemu-user are installed (install_deps.sh installs them as root), the NEON kernels: an aarch64 cross
# build whose SIMD, kernel and reference tests run under qemu. `--sanitize` adds the Debug build
# with ASan + UBSan and View bounds checks.
#   bash scripts/test.sh [--sanitize]
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install_deps.sh

sanitize=0
for arg in "$@"; do
  case "$arg" in
    --sanitize) sanitize=1 ;;
    *) echo "error: unknown argument '$arg' (try: --sanitize)" >&2; exit 2 ;;
  esac
done

run_preset() {
  local preset=$1
  echo "== $preset: configure and build" >&2
  cmake --preset "$preset" -G Ninja > /dev/null
  cmake --build --preset "$preset"
  echo "== $preset: test" >&2
  ctest --preset "$preset" -j2
}

start=$(date +%s)
run_preset release
[ "$sanitize" -eq 1 ] && run_preset debug
run_preset fuzz
if command -v aarch64-linux-gnu-g++ > /dev/null && command -v qemu-aarch64 > /dev/null && [ -d /usr/src/googletest ]; then
  aarch64_start=$(date +%s)
  run_preset aarch64
  echo "== aarch64: built and tested in $(( $(date +%s) - aarch64_start )) s" >&2
else
  echo "== aarch64: skipped (needs g++-aarch64-linux-gnu, libgomp1-arm64-cross, qemu-user, googletest)" >&2
fi
echo "== all tests passed in $(( $(date +%s) - start )) s" >&2
