#!/usr/bin/env bash
# Source preparation + configure as done for this build (run before build.sh).
set -e
apt-get install -y libeigen3-dev libgmp-dev libmpfr-dev libssl-dev zlib1g-dev autoconf automake time
mkdir -p /tmp/gridbuild/Grid /tmp/gridbuild/build
cd /tmp/gridbuild/Grid
git --git-dir=/work/.mirror/paboyle+Grid/repo archive HEAD | tar -x
# Eigen: use Debian's eigen3 instead of bootstrap.sh's download
cp -r /usr/include/eigen3 Eigen
ln -s $PWD/Eigen/Eigen Grid/Eigen
ln -s $PWD/Eigen/unsupported/Eigen Grid/Eigen/unsupported
(cd Grid && echo 'eigen_files =\' > Eigen.inc && find -L Eigen -type f -print | sed 's/^/  /;$q;s/$/ \\/' >> Eigen.inc)
./scripts/filelist
autoreconf -fvi
cd /tmp/gridbuild/build
../Grid/configure --enable-simd=AVX512 --enable-comms=none --enable-shm=none \
  --disable-fermion-reps --disable-gparity --disable-zmobius --enable-Sp=no \
  --without-hdf5 --without-lime --without-fftw --enable-mkl=no --enable-ipp=no --enable-lapack=no \
  CXX=g++ CXXFLAGS="-O3 -march=icelake-server -mtune=sapphirerapids -fopenmp"
# (no 'make': build.sh compiles only the needed .cc files into libGridMini.a)
