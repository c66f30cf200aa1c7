#!/usr/bin/env bash
# Builds and runs the test suite.
#   bash scripts/test.sh             the whole suite: every kernel variant of this architecture (the
#                                    `full` preset, at -O2, its Dslash body units but emulated512's
#                                    at -O1: it tests results, not speed), and on a
#                                    machine with nvcc and no GPU the CUDA backend compiled as PTX, so
#                                    that it keeps building (its tests report themselves skipped);
#                                    every ctest label; then the file readers' libFuzzer targets
#                                    (clang, ASan + UBSan), then the NEON and naive kernels
#                                    cross-built for aarch64, the NEON ones tested under qemu (where
#                                    install_deps.sh could install the cross packages)
#   bash scripts/test.sh --quick     this machine's best instruction set and scalar, no CUDA: the
#                                    unit and kernel tests (ctest -L 'unit|kernel')
#   bash scripts/test.sh --sanitize  the whole suite, and the Debug build with ASan + UBSan and View
#                                    bounds checks
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install_deps.sh

quick=0 sanitize=0
for arg in "$@"; do
  case "$arg" in
    --quick) quick=1 ;;
    --sanitize) sanitize=1 ;;
    *) echo "error: unknown argument '$arg' (try: --quick, --sanitize)" >&2; exit 2 ;;
  esac
done
jobs=$(nproc)

# run_preset PRESET [ctest arguments...] [-- cmake configure arguments...]
run_preset() {
  local preset=$1; shift
  local test_args=() configure_args=()
  while [ $# -gt 0 ] && [ "$1" != "--" ]; do test_args+=("$1"); shift; done
  [ $# -gt 0 ] && shift && configure_args=("$@")
  local stage_start
  stage_start=$(date +%s)
  echo "== $preset: configure and build" >&2
  cmake --preset "$preset" "${configure_args[@]}" > /dev/null
  cmake --build --preset "$preset" -j "$jobs"
  echo "== $preset: built in $(( $(date +%s) - stage_start )) s; test" >&2
  ctest --preset "$preset" -j "$jobs" "${test_args[@]}"
  echo "== $preset: built and tested in $(( $(date +%s) - stage_start )) s" >&2
}

start=$(date +%s)
if [ "$quick" -eq 1 ]; then
  run_preset quick -L 'unit|kernel'
  [ "$sanitize" -eq 1 ] && run_preset debug
  echo "== quick check passed in $(( $(date +%s) - start )) s" >&2
  exit 0
fi

# A GPU present: the full build compiles CUDA for it (CMakeLists.txt). nvcc without a GPU: compile
# the backend as unoptimised PTX (no machine code, so no register cap to apply), so a change that
# breaks it fails here; what it would run is the GPU host's to test (scripts/gpu_host.sh test).
cuda_args=()
if command -v nvcc > /dev/null && ! nvidia-smi -L > /dev/null 2>&1; then
  cuda_args=(-DDSLASH_ENABLE_CUDA=ON -DCMAKE_CUDA_ARCHITECTURES=90-virtual -DDSLASH_CUDA_F32_MAXRREG=
             "-DCMAKE_CUDA_FLAGS_RELEASE=-DNDEBUG -Xcicc -O0 -Xcompiler -O0")
fi
run_preset full -- "${cuda_args[@]}"
[ "$sanitize" -eq 1 ] && run_preset debug
run_preset fuzz
if command -v aarch64-linux-gnu-g++ > /dev/null && command -v qemu-aarch64 > /dev/null && [ -d /usr/src/googletest ]; then
  run_preset aarch64
else
  echo "== aarch64: skipped (needs g++-aarch64-linux-gnu, libgomp1-arm64-cross, qemu-user, googletest)" >&2
fi
echo "== all tests passed in $(( $(date +%s) - start )) s" >&2
