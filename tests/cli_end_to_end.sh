#!/usr/bin/env bash
# The CLI as a user drives it: gauge -> info -> spinor -> apply, numpy reads the result, and every
# error path prints one line on stderr, exits 2, and leaves no output file.
set -euo pipefail
dslash=$1
tests=$(cd "$(dirname "$0")" && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$work"

fail() { echo "FAIL: $*" >&2; exit 1; }

# --version: version, git revision, compiler, backends and instruction sets on stdout; exit 0.
"$dslash" --version > version.txt 2> version_err.txt || fail "--version exited $?"
[ ! -s version_err.txt ] || fail "--version wrote to stderr: $(cat version_err.txt)"
grep -Eq '^dslash [0-9]+\.[0-9]+\.[0-9]+ \(git ([0-9a-f]{7,}(-dirty)?|unknown)\)$' version.txt || fail "--version line 1: $(head -1 version.txt)"
grep -Eq '^compiler: (GCC|clang) ' version.txt || fail "--version names no compiler"
grep -Eq '^backends: OpenMP yes \([0-9]+\), CUDA (yes|no), MPI (yes|no)$' version.txt || fail "--version backends: $(cat version.txt)"
grep -Eq '^instruction sets compiled: scalar(, [a-z0-9]+)+$' version.txt || fail "--version compiled ISAs: $(cat version.txt)"
grep -Eq '^instruction sets this CPU runs: scalar(, [a-z0-9]+)*$' version.txt || fail "--version runnable ISAs: $(cat version.txt)"
grep -Eq '^kernels built for: links of 18( and 12| and 8|, 12 and 8)? reals; CPU layouts right( and left)?; CPU xpay epilogue (yes|no)$' version.txt ||
  fail "--version kernel build: $(cat version.txt)"
# A reduced build (DSLASH_CPU_ISAS, DSLASH_CPU_LAYOUTS) runs these checks with what it has.
runs=$(sed -n 's/^instruction sets this CPU runs: //p' version.txt)
case ", $runs," in *", avx512,"*) wide=avx512 ;; *", emulated512,"*) wide=emulated512 ;; *) wide= ;; esac
layout=right
if grep -q "CPU layouts right and left" version.txt; then layout=left; fi

"$dslash" gauge --lattice 4x6x8x10 --random --seed 5 --out U.nersc > /dev/null
"$dslash" gauge --lattice 4.6.8.10 --unit --two-row --single --out unit.nersc > /dev/null
"$dslash" info U.nersc | grep -q "checksum .* OK" || fail "info did not verify the checksum"
"$dslash" info unit.nersc | grep -q "plaquette .*1.000000000000  OK" || fail "unit plaquette"
"$dslash" spinor --lattice 4x6x8x10 --seed 2 --out psi.npy > /dev/null
"$dslash" spinor --lattice 4x6x8x10 --seed 2 --nrhs 3 --out psi3.npy > /dev/null
for parity in full even odd; do
  "$dslash" apply --gauge U.nersc --in psi.npy --out "chi_$parity.npy" --parity "$parity" > /dev/null
done
"$dslash" apply --gauge U.nersc --in psi3.npy --out chi3.npy --dagger > /dev/null
# mrhs takes 3 right-hand sides on any lanes: padded to a vector, the padding never written out.
"$dslash" apply --gauge U.nersc --in psi3.npy --out chi3_mrhs.npy --dagger --kernel mrhs > /dev/null
# The fast kernels through every dispatch agree with the reference.
"$dslash" gauge --lattice 8x4x12x8 --random --seed 9 --out V.nersc > /dev/null
"$dslash" spinor --lattice 8x4x12x8 --seed 4 --nrhs 8 --out psi8.npy > /dev/null
"$dslash" apply --gauge V.nersc --in psi8.npy --out ref8.npy --parity odd --dagger > /dev/null
"$dslash" apply --gauge V.nersc --in psi8.npy --out naive8.npy --parity odd --dagger --kernel naive --dispatch team --team-size 3 > /dev/null
"$dslash" apply --gauge V.nersc --in psi8.npy --out vnode8.npy --parity odd --dagger --kernel vnode --dispatch mdrange --tile 3.1.5.2 --layout "$layout" > /dev/null
"$dslash" apply --gauge V.nersc --in psi8.npy --out mrhs8.npy --parity odd --dagger --kernel mrhs --simd scalar --prec single > /dev/null
# Gauge compression: 12 and 8 give 18's answer on SU(3) links.
for r in 12 8; do
  "$dslash" apply --gauge V.nersc --in psi8.npy --out "vnode8_r$r.npy" --parity odd --dagger --kernel vnode --dispatch mdrange --tile 3.1.5.2 --layout "$layout" --compress "$r" > /dev/null
  "$dslash" apply --gauge V.nersc --in psi8.npy --out "naive8_r$r.npy" --parity odd --dagger --kernel naive --dispatch team --team-size 3 --compress "$r" > /dev/null
  "$dslash" apply --gauge V.nersc --in psi8.npy --out "mrhs8_r$r.npy" --parity odd --dagger --kernel mrhs --simd scalar --prec single --compress "$r" > /dev/null
done

# Half precision storage (16-bit codes, single's arithmetic), whole and 12-real links.
"$dslash" apply --gauge V.nersc --in psi8.npy --out vnode8_half.npy --parity odd --dagger --kernel vnode --dispatch team --prec half > /dev/null
"$dslash" apply --gauge V.nersc --in psi8.npy --out mrhs8_half.npy --parity odd --dagger --kernel mrhs --simd scalar --prec half --compress 12 > /dev/null

npy_close() { /usr/bin/python3 "$tests/npy_close.py" "$@" || fail "npy_close $*"; }
npy_close ref8.npy 1e-12 naive8.npy vnode8.npy
npy_close ref8.npy 1e-5 mrhs8.npy
# Half's bound (kernels/dslash_kernel.hpp, half_precision_bound) is 1.4e-3 of |D psi| on these fields.
npy_close ref8.npy 2e-3 vnode8_half.npy mrhs8_half.npy
for r in 12 8; do
  npy_close vnode8.npy 1e-12 "vnode8_r$r.npy"
  npy_close naive8.npy 1e-12 "naive8_r$r.npy"
  npy_close mrhs8.npy 1e-5 "mrhs8_r$r.npy"
done

if [ -x /usr/bin/python3 ] && /usr/bin/python3 -c "import numpy" 2>/dev/null; then
  /usr/bin/python3 - <<'PY'
import numpy as np
full, even, odd = (np.load(f"chi_{p}.npy") for p in ("full", "even", "odd"))
assert full.shape == (10, 8, 6, 4, 4, 3) and full.dtype == np.complex128, full.shape
t, z, y, x = np.indices((10, 8, 6, 4))
parity = (t + z + y + x) % 2
assert np.all(even[parity == 1] == 0) and np.all(odd[parity == 0] == 0)
assert np.allclose(even + odd, full, rtol=0, atol=1e-13), "D_eo + D_oe != D"
psi3 = np.load("psi3.npy"); chi3 = np.load("chi3.npy")
assert psi3.shape == (3, 10, 8, 6, 4, 4, 3) and chi3.shape == psi3.shape
assert np.array_equal(psi3[0], np.load("psi.npy")), "nrhs=3 spinor 0 differs from the seed-2 spinor"
chi3_mrhs = np.load("chi3_mrhs.npy")
assert chi3_mrhs.shape == chi3.shape
for r in range(3):
    assert np.linalg.norm(chi3_mrhs[r] - chi3[r]) <= 1e-12 * np.linalg.norm(chi3[r]), f"mrhs rhs {r} differs from the reference"
assert np.load("mrhs8.npy").dtype == np.complex64
PY
fi

# Every error: exit status 2, exactly one line on stderr, no partial output file.
expect_error() {
  local out=$1; shift
  set +e
  "$dslash" "$@" > /dev/null 2> err.txt
  local rc=$?
  set -e
  [ "$rc" -eq 2 ] || fail "'$*' exited $rc, expected 2"
  [ "$(wc -l < err.txt)" -eq 1 ] || fail "'$*' printed $(wc -l < err.txt) lines on stderr: $(cat err.txt)"
  [ -z "$out" ] || [ ! -e "$out" ] || fail "'$*' left $out behind"
  ls | grep -q '\.tmp\.' && fail "'$*' left a temporary file" || true
}
# The same, and the one line says `pattern`.
expect_message() {
  local pattern=$1; shift
  expect_error "$@"
  grep -q -- "$pattern" err.txt || fail "'${*:2}' said '$(cat err.txt)', expected '$pattern'"
}
expect_error "" --bogus
# Messages that name what is wrong: an unknown command and the commands there are, the one even
# extent near 1, the extent that is no integer.
expect_message "^dslash: unknown command 'frobnicate': choose gauge, spinor, info, apply, bench or solve (try '--help')$" "" frobnicate
expect_message "^dslash: a command is required: gauge, spinor, info, apply, bench or solve" ""
expect_message "L0 (x) = 1 must be even for the checkerboard; try 2$" x.nersc gauge --lattice 1x1x1x1 --unit --out x.nersc
expect_message "lattice size '4.0x4x4x4': extent '4.0' is not a positive integer" x.nersc gauge --lattice 4.0x4x4x4 --unit --out x.nersc
expect_error "" apply --gauge U.nersc --in psi.npy --out x.npy --parity diagonal
expect_error x.nersc gauge --lattice 5x6x8x10 --unit --out x.nersc
expect_error x.nersc gauge --lattice 4x6x8 --unit --out x.nersc
expect_error x.nersc gauge --lattice 4x6x8x10 --out x.nersc
expect_error x.nersc gauge --lattice 4x6x8x10 --unit --random --out x.nersc
expect_error x.npy apply --gauge missing.nersc --in psi.npy --out x.npy
expect_error x.npy apply --gauge U.nersc --in psi.npy --out x.npy --prec single
"$dslash" spinor --lattice 4x6x8x12 --out wrong.npy > /dev/null
expect_error x.npy apply --gauge U.nersc --in wrong.npy --out x.npy
head -c 5000 U.nersc > truncated.nersc
expect_error x.npy apply --gauge truncated.nersc --in psi.npy --out x.npy
expect_error "" info truncated.nersc
cp U.nersc corrupt.nersc
printf '\x01' | dd of=corrupt.nersc bs=1 seek=4000 conv=notrunc status=none
expect_error x.npy apply --gauge corrupt.nersc --in psi.npy --out x.npy
expect_error x.npy apply --gauge U.nersc --in U.nersc --out x.npy
if [ -n "$wide" ]; then  # 16 lanes: L0 = 4 cannot fold
  expect_error x.npy apply --gauge U.nersc --in psi.npy --out x.npy --kernel vnode --simd "$wide"
fi
expect_message "error: --tile applies to --dispatch mdrange$" x.npy apply --gauge U.nersc --in psi.npy --out x.npy --kernel naive --tile 2.2.2.2
expect_message "error: --team-size applies to --dispatch team$" x.npy apply --gauge U.nersc --in psi.npy --out x.npy --kernel naive --team-size 2
expect_message "error: --tile '2.2.2': expected four sizes a.b.c.d" x.npy apply --gauge U.nersc --in psi.npy --out x.npy --kernel naive --dispatch mdrange --tile 2.2.2
# Only bench tunes: apply's --tile auto is no tile.
expect_message "error: --tile 'auto': expected four sizes a.b.c.d" x.npy apply --gauge U.nersc --in psi.npy --out x.npy --kernel naive --dispatch mdrange --tile auto
expect_error x.npy apply --gauge U.nersc --in psi.npy --out x.npy --kernel naive --simd avx9000
expect_error x.npy apply --gauge U.nersc --in psi3.npy --out x.npy --kernel naive --nrhs 2
expect_error x.npy spinor --lattice 1024x1024x1024x1024 --out x.npy

# An input from a pipe has no size to read it by: refused in one line, for every reader.
from_pipe() {
  local file=$1 pattern=$2; shift 2
  set +e
  cat "$file" | "$dslash" "$@" > /dev/null 2> err.txt
  local rc=${PIPESTATUS[1]}
  set -e
  [ "$rc" -eq 2 ] || fail "'cat $file | dslash $*' exited $rc, expected 2"
  [ "$(wc -l < err.txt)" -eq 1 ] || fail "'cat $file | dslash $*' printed: $(cat err.txt)"
  grep -q -- "$pattern" err.txt || fail "'cat $file | dslash $*' said '$(cat err.txt)', expected '$pattern'"
}
from_pipe U.nersc "^dslash: error: '/dev/stdin' is a pipe, not a seekable regular file; give a regular file$" info /dev/stdin
from_pipe U.nersc "'/dev/stdin' is a pipe" apply --gauge /dev/stdin --in psi.npy --out x.npy
from_pipe psi.npy "'/dev/stdin' is a pipe" apply --gauge U.nersc --in /dev/stdin --out x.npy
[ ! -e x.npy ] || fail "a refused piped input left x.npy"
"$dslash" info /dev/stdin < U.nersc | grep -q "checksum .* OK" || fail "info /dev/stdin from a regular file did not verify"

# Output paths are checked before any work, and the message says what is wrong with them.
mkdir outdir
expect_message "'outdir': it is a directory" "" gauge --lattice 4x6x8x10 --unit --out outdir
expect_message "'outdir/': a name ending in '/' is a directory" "" spinor --lattice 4x6x8x10 --out outdir/
expect_message "it is a directory" "" gauge --lattice 4x6x8x10 --unit --out "$work"
expect_message "directory 'missing' does not exist" "" spinor --lattice 4x6x8x10 --out missing/x.npy
expect_message "'U.nersc' is not a directory" "" apply --gauge U.nersc --in psi.npy --out U.nersc/x.npy
expect_message "^dslash: error: --out: cannot write 'outdir'" "" apply --gauge U.nersc --in psi.npy --out outdir
[ -z "$(ls -A outdir)" ] || fail "a refused output left $(ls -A outdir) in outdir"
# What an output's name is decides how it is written: a symbolic link's file is written and the
# link kept; a FIFO and a character device are written in place; other kinds are refused.
mkdir data
echo old > data/real.npy
ln -s data/real.npy link.npy
"$dslash" spinor --lattice 4x6x8x10 --seed 2 --out link.npy > /dev/null || fail "--out through a symbolic link failed"
[ -L link.npy ] || fail "--out replaced the symbolic link link.npy"
cmp -s data/real.npy psi.npy || fail "--out link.npy did not write the file the link names"
mkfifo pipe
cat pipe > from_pipe.npy &
reader=$!
"$dslash" spinor --lattice 4x6x8x10 --seed 2 --out pipe > /dev/null || { kill "$reader"; fail "--out to a FIFO failed"; }
[ -p pipe ] || { kill "$reader"; fail "--out replaced the FIFO with a regular file"; }
wait "$reader"
cmp -s from_pipe.npy psi.npy || fail "the FIFO's reader did not get the spinor file"
# A null device of the test's own where it may make one (as root), so that a dslash that replaced
# the node would not replace the system's /dev/null.
null=/dev/null
if mknod null c 1 3 2> /dev/null; then
  if : > null 2> /dev/null; then null=$work/null; else rm -f null; fi
fi
"$dslash" gauge --lattice 4x6x8x10 --unit --out "$null" > /dev/null || fail "--out $null failed"
[ -c "$null" ] || fail "--out $null replaced the character device"
# Two outputs may both be discarded into one character device.
"$dslash" solve --random --lattice 4x4x4x4 --mass 0.1 --out "$null" --json "$null" > /dev/null || fail "--out and --json both $null were refused"
[ -c "$null" ] || fail "--out and --json $null replaced the character device"
ln -s outdir to_outdir
expect_message "'to_outdir': it is a directory" "" spinor --lattice 4x6x8x10 --out to_outdir
[ -L to_outdir ] || fail "a refused --out replaced the symbolic link to_outdir"
/usr/bin/python3 -c "import socket; socket.socket(socket.AF_UNIX).bind('sock')"
expect_message "'sock': it is a socket" "" spinor --lattice 4x6x8x10 --out sock
[ -S sock ] || fail "a refused --out replaced the socket"
# A name as long as the file system allows (252 characters where the limit is 255) fits with its temporary.
long=$(printf 'a%.0s' $(seq $(($(getconf NAME_MAX .) - 7)))).npy
"$dslash" spinor --lattice 4x6x8x10 --seed 2 --out "$long" > /dev/null || fail "a ${#long}-character --out name was refused"
cmp -s "$long" psi.npy || fail "the ${#long}-character output differs"
# An output that is an input, or two outputs that are one file (however named), are refused before any work.
cp U.nersc U_before.nersc
expect_message "^dslash: error: --out: 'U.nersc' is the same file as --gauge 'U.nersc'" "" apply --gauge U.nersc --in psi.npy --out U.nersc
cmp -s U.nersc U_before.nersc || fail "a refused --out changed its input U.nersc"
ln -s psi.npy psi_link.npy
expect_message "is the same file as --in 'psi.npy'" "" apply --gauge U.nersc --in psi.npy --out ./psi_link.npy
expect_message "is the same file as --in" "" solve --gauge U.nersc --in psi.npy --mass 0.1 --out psi.npy
expect_message "^dslash: error: --json: './same.out' is the same file as --out 'same.out'" same.out \
  solve --random --lattice 4x4x4x4 --mass 0.1 --out same.out --json ./same.out
cmp -s psi.npy data/real.npy || fail "a refused --out changed its input psi.npy"
# SIGTERM while a large output is written: the process ends with the signal's status and leaves no
# temporary. The signal goes once the temporary is there; the check is skipped if the write won.
"$dslash" spinor --lattice 24x24x24x24 --nrhs 8 --out big.npy > /dev/null 2>&1 &
writer=$!
for _ in $(seq 600); do
  if compgen -G 'big.npy.tmp.*' > /dev/null || ! kill -0 "$writer" 2> /dev/null; then break; fi
  sleep 0.05
done
kill -TERM "$writer" 2> /dev/null || true
rc=0
wait "$writer" || rc=$?
if [ "$rc" -eq 0 ]; then
  echo "note: the large write ended before SIGTERM reached it; that check was skipped" >&2
else
  [ "$rc" -eq 143 ] || fail "SIGTERM during a write: exit status $rc, expected 143"
  ! compgen -G '*.tmp*' > /dev/null || fail "SIGTERM during a write left $(compgen -G '*.tmp*')"
fi
rm -f big.npy
# Numbers: whole, in range, refused in words (never wrapped, never "stoi" or CLI11's 1.79e308).
expect_message "--seed -1: negative; expected a whole number from 0 to 18446744073709551615" x.npy spinor --lattice 4x6x8x10 --seed -1 --out x.npy
expect_message "--seed 99999999999999999999: too large" x.npy spinor --lattice 4x6x8x10 --seed 99999999999999999999 --out x.npy
expect_message "--seed 12abc: not a whole number" x.nersc gauge --lattice 4x6x8x10 --random --seed 12abc --out x.nersc
expect_message "--nrhs 0: too small; expected a whole number from 1 to 4096" x.npy apply --gauge U.nersc --in psi.npy --out x.npy --nrhs 0
expect_message "--nrhs 5000: too large" x.npy spinor --lattice 4x6x8x10 --nrhs 5000 --out x.npy
expect_message "--team-size 99999999999: too large; expected a whole number from 1 to" x.npy \
  apply --gauge U.nersc --in psi.npy --out x.npy --kernel naive --dispatch team --team-size 99999999999
"$dslash" spinor --lattice 4x6x8x10 --seed 18446744073709551615 --out max_seed.npy > /dev/null
"$dslash" spinor --lattice 4x6x8x10 --seed 18446744073709551614 --out other_seed.npy > /dev/null
cmp -s max_seed.npy other_seed.npy && fail "seeds 2^64-1 and 2^64-2 gave the same field"
# Options that do not apply are refused, naming the option and why.
expect_message "--dispatch does not apply to --kernel reference" x.npy \
  apply --gauge U.nersc --in psi.npy --out x.npy --kernel reference --dispatch team --team-size 4 --simd avx2 --layout left
expect_message "--layout does not apply to --kernel reference" x.npy apply --gauge U.nersc --in psi.npy --out x.npy --layout left
expect_message "--simd avx2 does not apply to --kernel naive, which runs scalar" x.npy \
  apply --gauge U.nersc --in psi.npy --out x.npy --kernel naive --simd avx2
expect_message "--comms-overlap requires --mpi" x.npy apply --gauge U.nersc --in psi.npy --out x.npy --kernel naive --comms-overlap off
expect_message "--compress does not apply to --kernel reference" x.npy apply --gauge U.nersc --in psi.npy --out x.npy --compress 12

# Gauge compression takes 18, 12 or 8, and only links it can store: a field that is not SU(3) (a
# valid NERSC file of unit links 1% too long) and, for 8, unit links are refused, naming the link.
expect_message "--compress" x.npy apply --gauge U.nersc --in psi.npy --out x.npy --kernel vnode --compress 7
/usr/bin/python3 - <<'PY'
import struct
dims, s = (4, 6, 8, 10), 1.01
link = (s, 0, 0, 0, 0, 0, 0, 0, s, 0, 0, 0, 0, 0, 0, 0, s, 0)
data = struct.pack(">18d", *link) * (4 * dims[0] * dims[1] * dims[2] * dims[3])
checksum = sum(struct.unpack(f">{len(data) // 4}I", data)) & 0xFFFFFFFF
header = ["BEGIN_HEADER", "HDR_VERSION = 1.0", "DATATYPE = 4D_SU3_GAUGE_3x3", "STORAGE_FORMAT = 1.0"]
header += [f"DIMENSION_{mu + 1} = {n}" for mu, n in enumerate(dims)]
header += [f"LINK_TRACE = {s!r}", f"PLAQUETTE = {s ** 4!r}"] + [f"BOUNDARY_{mu + 1} = PERIODIC" for mu in range(4)]
header += [f"CHECKSUM = {checksum:08x}", "FLOATING_POINT = IEEE64BIG", "END_HEADER"]
open("long.nersc", "wb").write(("\n".join(header) + "\n").encode() + data)
PY
"$dslash" apply --gauge long.nersc --in psi.npy --out long18.npy --kernel naive > /dev/null || fail "--compress 18 refused a valid file"
expect_message "^dslash: error: --compress 12: link (x,y,z,t,mu) = (0,0,0,0,0) is not SU(3): |U U^dagger - 1| = 2.0e-02" x.npy \
  apply --gauge long.nersc --in psi.npy --out x.npy --kernel naive --compress 12
expect_message "is not SU(3)" x.npy apply --gauge long.nersc --in psi.npy --out x.npy --kernel mrhs --simd scalar --prec single --compress 8
expect_message "does not survive the 8-real parametrisation" x.npy apply --gauge unit.nersc --in psi.npy --out x.npy --kernel naive --compress 8

# Values no result can be trusted with: a NaN or Inf link or spinor value, named by where it is, and
# spinor values past single precision's range for --prec single; a result that overflows is not
# written. Exit 2, one line, no output file.
/usr/bin/python3 - <<'PY'
import struct
data = open("U.nersc", "rb").read()
start = data.index(b"END_HEADER\n") + len(b"END_HEADER\n")
site = 1 + 4 * (2 + 6 * (3 + 8 * 4))  # (x, y, z, t) = (1, 2, 3, 4) on 4x6x8x10
at = start + 8 * (((site * 4 + 2) * 9 + 1 * 3 + 0) * 2)  # mu 2, entry (1, 0), real part
open("nan.nersc", "wb").write(data[:at] + struct.pack(">d", float("nan")) + data[at + 8:])
PY
link_message="nan.nersc: link of site (x, y, z, t) = (1, 2, 3, 4), mu 2, entry (1, 0), real part, is nan, not a finite number"
expect_message "$link_message" x.npy apply --gauge nan.nersc --in psi.npy --out x.npy
expect_message "$link_message" "" info nan.nersc
if [ -x /usr/bin/python3 ] && /usr/bin/python3 -c "import numpy" 2>/dev/null; then
  /usr/bin/python3 "$tests/bad_npy.py" psi.npy 9 7 5 3 3 2  # psi: (t, z, y, x, spin, colour) = (10, 8, 6, 4, 4, 3)
  # Every value within single precision, where D psi is not.
  /usr/bin/python3 -c "import numpy as np; np.save('edge.npy', np.full(np.load('psi.npy').shape, 3e38, np.complex128))"
  expect_message "nan.npy: element \[9, 7, 5, 3, 3, 2\] (t, z, y, x, spin, colour), real part, is nan, not a finite number" x.npy \
    apply --gauge U.nersc --in nan.npy --out x.npy
  expect_message "inf.npy: element \[9, 7, 5, 3, 3, 2\] (t, z, y, x, spin, colour), imaginary part, is inf" x.npy \
    apply --gauge U.nersc --in inf.npy --out x.npy --kernel naive --prec single
  expect_message "huge.npy: element \[0, 0, 0, 0, 0, 0\] .* past single precision's range (largest 3.40282e+38) (--prec single)" x.npy \
    apply --gauge U.nersc --in huge.npy --out x.npy --kernel naive --prec single
  expect_message "apply: D psi's element \[.*\] (t, z, y, x, spin, colour), real part, is .*, not a finite number: the input's values are too large for single precision; x.npy not written" x.npy \
    apply --gauge U.nersc --in edge.npy --out x.npy --kernel naive --prec single
fi

# A one-spinor file of shape (1, L3, L2, L1, L0, 4, 3) gives a result of the same shape.
if [ -x /usr/bin/python3 ] && /usr/bin/python3 -c "import numpy" 2>/dev/null; then
  /usr/bin/python3 -c "import numpy as np; np.save('psi1.npy', np.load('psi.npy')[None])"
  "$dslash" apply --gauge U.nersc --in psi1.npy --out chi1.npy --parity full > /dev/null
  /usr/bin/python3 -c "
import numpy as np
one, full = np.load('chi1.npy'), np.load('chi_full.npy')
assert one.shape == (1,) + full.shape, one.shape
assert np.array_equal(one[0], full)"
fi
"$dslash" --help | grep -q apply || fail "--help lists no subcommands"
"$dslash" apply --help | grep -q -- "--parity" || fail "apply --help"
echo "cli end-to-end: all checks passed"
