#pragma once
// What a kernel body may ask of its vector type beyond arithmetic: is it SIMT, W neighbouring GPU
// threads each holding one lane (simd/simt.hpp), rather than one CPU register of W lanes? And, if
// it is, its complex-pair accesses.
#include <cstdint>

#include "dslash/core/macros.hpp"
#include "simd/fixed16.hpp"
#include "simd/complex.hpp"

namespace dslash::simd {

template <class Vec>
inline constexpr bool is_simt = false;

// SIMT only, defined in simd/simt.hpp: a lane's complex number as one access, where the GPU's vnode
// layout keeps (re, im) adjacent (kernels/kernel_layout.hpp).
template <class Vec>
DSLASH_INLINE_FUNCTION Complex<Vec> load_pair(const typename Vec::value_type* p);
// SIMT only, defined in simd/simt.hpp: a real that the kernel reads once (a link), loaded so that
// the GPU's L2 evicts it first.
template <class Real>
DSLASH_INLINE_FUNCTION Real load_once(const Real* p);
// SIMT only, defined in simd/simt.hpp: a real whose 256-byte neighbourhood other threads read soon.
template <class Real>
DSLASH_INLINE_FUNCTION Real load_fetch_256b(const Real* p);
template <class Vec>
DSLASH_INLINE_FUNCTION void stream_store_pair(typename Vec::value_type* p, const Complex<Vec>& z);

// SIMT only, defined in simd/simt_half.hpp: half precision codes in the GPU's vnode layout, a lane's
// (re, im) codes adjacent (one 4-byte access), scaled as load_fixed16 and store_fixed16 do.
template <class Vec>
DSLASH_INLINE_FUNCTION Complex<Vec> load_fixed16_pair(const std::int16_t* q, const Vec& scale);
template <class Vec>
DSLASH_INLINE_FUNCTION void store_fixed16_pair(std::int16_t* q, const Complex<Vec>& z, const Vec& store_scale);

// Half precision storage: the scale that turns a site's codes back into reals, for any vector type
// (fixed16::load_scale lane by lane: one multiply).
template <class Vec>
DSLASH_INLINE_FUNCTION Vec fixed16_load_scale(const Vec& norm) {
  return norm * Vec(1.0f / fixed16::kMaxCode);
}

// A CPU vector's half that lies on a face of a folded direction (kernels/face_lanes.hpp): the lanes
// whose bit Level is `node`, packed in lane order into W/2 reals, and back (zero in the other lanes).
//   Level 0, node 1: expand ABCD EFGH -> 0A0B 0C0D 0E0F 0G0H (W = 16); compress is its inverse
//   Level 2, node 0: expand ABCD      -> ABCD 0000           (W = 8)
// Here lane by lane through memory; simd/avx512.hpp overloads both with its expand and compress.
template <int Level, class Vec>
inline void expand_half(Vec& v, const typename Vec::value_type* src, int node) {
  constexpr int W = static_cast<int>(Vec::size), R = 1 << Level;
  alignas(64) typename Vec::value_type lanes[W] = {};
  for (int k = 0; k < W / (2 * R); ++k)
    for (int j = 0; j < R; ++j) lanes[(2 * k + node) * R + j] = src[k * R + j];
  v = Vec::load_aligned(lanes);
}
template <int Level, class Vec>
inline void compress_half(typename Vec::value_type* dst, const Vec& v, int node) {
  constexpr int W = static_cast<int>(Vec::size), R = 1 << Level;
  alignas(64) typename Vec::value_type lanes[W];
  v.store_aligned(lanes);
  for (int k = 0; k < W / (2 * R); ++k)
    for (int j = 0; j < R; ++j) dst[k * R + j] = lanes[(2 * k + node) * R + j];
}
// The lanes of v whose bit Level is `node`, zero in the others (+0, as expand_half leaves them):
//   Level 0, node 1: ABCD EFGH -> 0B0D 0F0H
template <int Level, class Vec>
inline Vec keep_half(const Vec& v, int node) {
  constexpr int W = static_cast<int>(Vec::size);
  alignas(64) typename Vec::value_type lanes[W];
  v.store_aligned(lanes);
  for (int i = 0; i < W; ++i)
    if (((i >> Level) & 1) != node) lanes[i] = 0;
  return Vec::load_aligned(lanes);
}
// Bit i set where lane i's bit Level is `node`: the lanes expand_half fills.
template <int W, int Level>
constexpr unsigned half_lanes_mask(int node) {
  unsigned m = 0;
  for (int i = 0; i < W; ++i)
    if (((i >> Level) & 1) == node) m |= 1u << i;
  return m;
}

}  // namespace dslash::simd
