#!/usr/bin/env bash
# scripts/gpu_host.sh refuses what it cannot run, in one line with exit 2, before building anything:
# an unknown step, a host without nvcc, and the profile step on a host without ncu. (Its runs themselves are the GPU host's.)
set -uo pipefail
script=$1
fail() { echo "FAIL: $*" >&2; exit 1; }
expect_refusal() {  # expected message, then the command
  local want=$1 err rc
  shift
  err=$("$@" 2>&1 > /dev/null)
  rc=$?
  [ "$rc" -eq 2 ] || fail "$* exited $rc, not 2"
  [ "$(printf '%s\n' "$err" | wc -l)" -eq 1 ] || fail "$*: not one line: $err"
  [[ "$err" == *"$want"* ]] || fail "$*: '$err' does not say '$want'"
}
expect_refusal "unknown step 'benhc'" bash "$script" test benhc
# A PATH of dirname alone: no nvcc, wherever this machine keeps one.
bin=$(mktemp -d)
trap 'rm -rf "$bin"' EXIT
ln -s "$(command -v dirname)" "$bin/dirname"
expect_refusal "no nvcc on the PATH" env PATH="$bin" "$BASH" "$script" bench
# An nvcc (a stand-in that is never run) but no ncu: the profile step is refused before the build.
printf '#!/bin/sh\nexit 1\n' > "$bin/nvcc"
chmod +x "$bin/nvcc"
expect_refusal "no ncu (Nsight Compute)" env PATH="$bin" "$BASH" "$script" profile
echo "gpu_host.sh: 3 refusals checked"
