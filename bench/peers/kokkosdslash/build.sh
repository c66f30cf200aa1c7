#!/usr/bin/env bash
# Builds kd_vnode_dslash (this folder's driver) against KokkosDslash's headers and library sources
# and a static Kokkos, with the two patches of this folder (BUILD.md says why).
#   usage: bash build.sh KOKKOSDSLASH_SOURCE [KOKKOS_SOURCE] [WORK]
#     KOKKOSDSLASH_SOURCE  a KokkosDslash clone (github.com/bjoo/KokkosDslash; the numbers were taken
#                          at 6049f63) or an archive of one (.tar, .tar.gz, .tgz, .tar.xz, .zip)
#     KOKKOS_SOURCE        Kokkos at the commit KokkosDslash pins as extern/kokkos (4b7e45d), a clone
#                          or an archive; "-" or omitted: the clone's own extern/kokkos, checked out
#     WORK                 the build folder (default /tmp/kdbuild); the driver ends in
#                          WORK/driver/build/kd_vnode_dslash (and kd_vnode_dslash_static with STATIC=1)
set -euo pipefail
if [ $# -lt 1 ] || [ $# -gt 3 ] || [ "${1:-}" = -h ] || [ "${1:-}" = --help ]; then
  sed -n '4,10p' "$0" | sed 's/^#   //; s/^#//' >&2
  exit 2
fi
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../unpack.sh"
kd_src=$1
kokkos_src=${2:--}
[ -e "$kd_src" ] || { echo "error: KOKKOSDSLASH_SOURCE '$kd_src' does not exist" >&2; exit 2; }
if [ "$kokkos_src" = - ]; then
  kokkos_src=$kd_src/extern/kokkos
  [ -f "$kokkos_src/CMakeLists.txt" ] || { echo "error: no Kokkos given, and '$kd_src' has no extern/kokkos checked out (clone with --recursive, or pass KOKKOS_SOURCE)" >&2; exit 2; }
fi
[ -e "$kokkos_src" ] || { echo "error: KOKKOS_SOURCE '$kokkos_src' does not exist" >&2; exit 2; }
WORK=$(mkdir -p "${3:-/tmp/kdbuild}" && cd "${3:-/tmp/kdbuild}" && pwd)
KD=$WORK/KokkosDslash
KS=$WORK/kokkos
KI=$WORK/kokkos-install
GEN=$WORK/driver/gen
OUT=$WORK/driver/build
CXX=g++
CXXFLAGS="-O3 -march=icelake-server -mtune=sapphirerapids -fopenmp -std=gnu++14 -DNDEBUG"

# Sources, patched: g++ 12's _mm512_stream_ps signature; Kokkos's SKX flags without RTM.
rm -rf "$KD" "$KS"
peer_unpack "$kd_src" "$KD"
peer_unpack "$kokkos_src" "$KS"
[ -f "$KD/include/kokkos_vdslash.h" ] || { echo "error: '$kd_src' holds no KokkosDslash source (no include/kokkos_vdslash.h)" >&2; exit 2; }
[ -f "$KS/cmake/kokkos_arch.cmake" ] || { echo "error: '$kokkos_src' holds no Kokkos source (no cmake/kokkos_arch.cmake)" >&2; exit 2; }
echo "KokkosDslash $(peer_commit "$kd_src"), Kokkos $(peer_commit "$kokkos_src")" > "$WORK/SOURCES"
patch -p1 -d "$KD" < "$here/kokkosdslash-gcc12.patch"
patch -p1 -d "$KS" < "$here/kokkos-arch-skx.patch"

# Kokkos: static, OpenMP + Serial (KokkosDslash uses Kokkos::Serial as HostExec)
mkdir -p "$WORK/build-kokkos"
(cd "$WORK/build-kokkos" &&
  nice -n 15 cmake "$KS" -DCMAKE_BUILD_TYPE=Release -DCMAKE_CXX_COMPILER=g++ \
    -DCMAKE_CXX_FLAGS="-O3 -march=icelake-server -mtune=sapphirerapids -fopenmp" -DCMAKE_CXX_STANDARD=14 \
    -DKokkos_ENABLE_OPENMP=ON -DKokkos_ENABLE_SERIAL=ON -DKokkos_ARCH_SKX=ON -DBUILD_SHARED_LIBS=OFF \
    -DCMAKE_INSTALL_PREFIX="$KI" &&
  nice -n 15 make -j"${JOBS:-1}" install)

# The driver and KokkosDslash's library sources, with the hand-configured header
mkdir -p "$GEN" "$OUT"
cp "$here/kokkos_dslash_config.h" "$GEN/"
INC="-I$GEN -I$KD/include -I$KI/include"
for f in lib/utils/print_utils.cpp lib/utils/initialize.cpp lib/lattice/lattice_info.cpp lib/lattice/nodeinfo.cpp lib/lattice/nodeinfo_single.cpp; do
  nice -n 15 $CXX $CXXFLAGS $INC -c "$KD/$f" -o "$OUT/$(basename "$f" .cpp).o"
done
nice -n 15 $CXX $CXXFLAGS $INC -c "$here/kd_vnode_dslash.cc" -o "$OUT/kd_vnode_dslash.o"
OBJS="$OUT/kd_vnode_dslash.o $OUT/print_utils.o $OUT/initialize.o $OUT/lattice_info.o $OUT/nodeinfo.o $OUT/nodeinfo_single.o"
KLIBS=$(ls "$KI"/lib*/libkokkoscontainers.a "$KI"/lib*/libkokkoscore.a)
$CXX $CXXFLAGS -o "$OUT/kd_vnode_dslash" $OBJS $KLIBS -ldl -static-libstdc++ -static-libgcc
[ "${STATIC:-0}" = 1 ] && $CXX $CXXFLAGS -static -o "$OUT/kd_vnode_dslash_static" $OBJS $KLIBS -ldl
echo "built $OUT/kd_vnode_dslash ($(cat "$WORK/SOURCES"))"
