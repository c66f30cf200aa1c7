#!/bin/bash
# Build kd_vnode_dslash against static Kokkos (3.2.00 = KokkosDslash's submodule commit) + KokkosDslash headers/lib sources
set -e
KD=/tmp/kdbuild/KokkosDslash
KI=/tmp/kdbuild/kokkos-install
OUT=/tmp/kdbuild/driver/build
mkdir -p $OUT
CXX=g++
CXXFLAGS="-O3 -march=icelake-server -mtune=sapphirerapids -fopenmp -std=gnu++14 -DNDEBUG"
INC="-I/tmp/kdbuild/driver/gen -I$KD/include -I$KI/include"
for f in lib/utils/print_utils.cpp lib/utils/initialize.cpp lib/lattice/lattice_info.cpp lib/lattice/nodeinfo.cpp lib/lattice/nodeinfo_single.cpp; do
  o=$OUT/$(basename $f .cpp).o
  echo "nice -n 15 $CXX $CXXFLAGS $INC -c $KD/$f -o $o"
  nice -n 15 $CXX $CXXFLAGS $INC -c $KD/$f -o $o
done
echo "nice -n 15 $CXX $CXXFLAGS $INC -c /tmp/kdbuild/driver/kd_vnode_dslash.cc -o $OUT/kd_vnode_dslash.o"
nice -n 15 $CXX $CXXFLAGS $INC -c /tmp/kdbuild/driver/kd_vnode_dslash.cc -o $OUT/kd_vnode_dslash.o
echo "link"
nice -n 15 $CXX $CXXFLAGS -o $OUT/kd_vnode_dslash $OUT/kd_vnode_dslash.o $OUT/print_utils.o $OUT/initialize.o $OUT/lattice_info.o $OUT/nodeinfo.o $OUT/nodeinfo_single.o \
   $KI/lib/libkokkoscontainers.a $KI/lib/libkokkoscore.a -ldl -static-libstdc++ -static-libgcc
