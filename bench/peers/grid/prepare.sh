#!/usr/bin/env bash
# Unpacks Grid's source, puts Debian's Eigen in place of bootstrap.sh's download, and configures it
# (Config.h only: build.sh compiles the files the driver needs). build.sh runs it when WORK is not
# prepared yet.
#   usage: bash prepare.sh GRID_SOURCE [WORK]
#     GRID_SOURCE  a Grid clone (github.com/paboyle/Grid; the numbers were taken at f617468) or an
#                  archive of one (.tar, .tar.gz, .tgz, .tar.xz, .zip)
#     WORK         the build folder (default /tmp/gridbuild): WORK/Grid the source, WORK/build the
#                  configured tree, WORK/GRID_COMMIT the commit it holds
# Needs root for apt-get (Debian 12 packages below) and about 2 GB of disk.
set -euo pipefail
if [ $# -lt 1 ] || [ $# -gt 2 ] || [ "${1:-}" = -h ] || [ "${1:-}" = --help ]; then
  sed -n '5,9p' "$0" | sed 's/^#   //; s/^#//' >&2
  exit 2
fi
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../unpack.sh"
src=$1
work=$(mkdir -p "${2:-/tmp/gridbuild}" && cd "${2:-/tmp/gridbuild}" && pwd)
[ -e "$src" ] || { echo "error: GRID_SOURCE '$src' does not exist" >&2; exit 2; }

apt-get install -y libeigen3-dev libgmp-dev libmpfr-dev libssl-dev zlib1g-dev autoconf automake time
rm -rf "$work/Grid" "$work/build"
peer_unpack "$src" "$work/Grid"
peer_commit "$src" > "$work/GRID_COMMIT"
[ -f "$work/Grid/configure.ac" ] || { echo "error: '$src' holds no Grid source (no configure.ac at its top)" >&2; exit 2; }

cd "$work/Grid"
# Eigen: Debian's eigen3 instead of bootstrap.sh's download
cp -r /usr/include/eigen3 Eigen
ln -s "$PWD/Eigen/Eigen" Grid/Eigen
ln -s "$PWD/Eigen/unsupported/Eigen" Grid/Eigen/unsupported
(cd Grid && echo 'eigen_files =\' > Eigen.inc && find -L Eigen -type f -print | sed 's/^/  /;$q;s/$/ \\/' >> Eigen.inc)
./scripts/filelist
autoreconf -fvi
mkdir -p "$work/build"
cd "$work/build"
../Grid/configure --enable-simd=AVX512 --enable-comms=none --enable-shm=none \
  --disable-fermion-reps --disable-gparity --disable-zmobius --enable-Sp=no \
  --without-hdf5 --without-lime --without-fftw --enable-mkl=no --enable-ipp=no --enable-lapack=no \
  CXX=g++ CXXFLAGS="-O3 -march=icelake-server -mtune=sapphirerapids -fopenmp"
echo "prepared $work (Grid $(cat "$work/GRID_COMMIT"))"
