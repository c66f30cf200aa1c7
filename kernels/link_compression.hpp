#pragma once
// Gauge compression (--compress 18|12|8): the reals the kernels store per SU(3) link, and how the
// kernel body rebuilds the rest in registers, on its own vectors (a CPU SIMD batch or the GPU's SIMT
// lanes). Include the ISA header first: the arithmetic (madd, nmadd) and the vector maths
// (sqrt_nonnegative, sin_cos, inverse) come from it. The host side (packing, the SU(3) check) is
// kernels/dslash_kernel.hpp's compress_link, decompress_link and check_compressible.
//
// A link U has rows a, b, c (a = (a1, a2, a3), ...). Stored reals, in this order:
//   18: all nine entries, row by row, (re, im) of each
//   12: rows a and b, as 18 does;  c = conj(a x b), i.e. c_j = conj(a_{j+1} b_{j+2} - a_{j+2} b_{j+1}), indices mod 3
//    8: QUDA's reconstruct-8: arg(a1), arg(c1), a2, a3, b1 (re, im each), and by unitarity
//         |a1|^2 = 1 - |a2|^2 - |a3|^2 = 1 - n,  |c1|^2 = n - |b1|^2  (columns and rows have norm 1)
//         b2 = -(conj(c1 a3) + conj(a1) b1 a2) / n     b3 =  (conj(c1 a2) - conj(a1) b1 a3) / n
//         c2 =  (conj(b1 a3) - conj(a1) c1 a2) / n     c3 = -(conj(b1 a2) + conj(a1) c1 a3) / n
//       The 2x2 block (b2 b3; c2 c3) is fixed by a and the first column only while n = |a2|^2 + |a3|^2
//       > 0: at |a1| = 1 (unit links) it is lost, and check_compressible refuses such a field. Near
//       |a1| = 0, |a1| = sqrt(1 - n) carries the rounding of n: an error up to sqrt(epsilon) there.
#include "dslash/core/macros.hpp"
#include "simd/complex.hpp"

namespace dslash::kernels {

using simd::Complex;

template <class V>
DSLASH_INLINE_FUNCTION Complex<V> conj(const Complex<V>& z) {
  return {z.re, -z.im};
}
template <class V>
DSLASH_INLINE_FUNCTION Complex<V> scale(const Complex<V>& z, const V& s) {
  return {z.re * s, z.im * s};
}
// |z|^2
template <class V>
DSLASH_INLINE_FUNCTION V norm(const Complex<V>& z) {
  return simd::madd(z.im, z.im, z.re * z.re);
}
// conj(a) b
template <class V>
DSLASH_INLINE_FUNCTION Complex<V> conj_mul(const Complex<V>& a, const Complex<V>& b) {
  return {simd::madd(a.im, b.im, a.re * b.re), simd::nmadd(a.im, b.re, a.re * b.im)};
}

// 12: the third row from the first two, c = conj(a x b).
template <class V>
DSLASH_INLINE_FUNCTION void rebuild_third_row(Complex<V> (&u)[3][3]) {
  for (int j = 0; j < 3; ++j) {
    const int k = (j + 1) % 3, l = (j + 2) % 3;
    u[2][j] = conj(simd::mul(u[0][k], u[1][l]) - simd::mul(u[0][l], u[1][k]));
  }
}

// 8: the whole link from u[0][1] = a2, u[0][2] = a3, u[1][0] = b1 and the phases of a1 and c1.
template <class V>
DSLASH_INLINE_FUNCTION void rebuild_from_8(const V& arg_a1, const V& arg_c1, Complex<V> (&u)[3][3]) {
  using Real = typename V::value_type;
  const Complex<V>&a2 = u[0][1], &a3 = u[0][2], &b1 = u[1][0];
  const V n = norm(a2) + norm(a3);
  V s, c;
  simd::sin_cos(arg_a1, s, c);
  const V abs_a1 = simd::sqrt_nonnegative(V(Real(1)) - n);
  u[0][0] = {abs_a1 * c, abs_a1 * s};
  simd::sin_cos(arg_c1, s, c);
  const V abs_c1 = simd::sqrt_nonnegative(n - norm(b1));  // 1 - |a1|^2 - |b1|^2, without cancelling 1 - (1 - n)
  u[2][0] = {abs_c1 * c, abs_c1 * s};
  const V inv_n = simd::inverse(n), minus_inv_n = -inv_n;
  const Complex<V> a1_b1 = conj_mul(u[0][0], b1), a1_c1 = conj_mul(u[0][0], u[2][0]);
  u[1][1] = scale(conj(simd::mul(u[2][0], a3)) + simd::mul(a1_b1, a2), minus_inv_n);
  u[1][2] = scale(conj(simd::mul(u[2][0], a2)) - simd::mul(a1_b1, a3), inv_n);
  u[2][1] = scale(conj(simd::mul(b1, a3)) - simd::mul(a1_c1, a2), inv_n);
  u[2][2] = scale(conj(simd::mul(b1, a2)) + simd::mul(a1_c1, a3), minus_inv_n);
}

// The link whose Reals stored reals (18, 12 or 8) start at p, each `load(p, k)` away (k = 0..Reals-1).
template <int Reals, class V, class Load>
DSLASH_FORCE_INLINE void unpack_link(const Load& load, Complex<V> (&u)[3][3]) {
  static_assert(Reals == 18 || Reals == 12 || Reals == 8, "a link stores 18, 12 or 8 reals");
  if constexpr (Reals == 8) {
    u[0][1] = {load(2), load(3)};
    u[0][2] = {load(4), load(5)};
    u[1][0] = {load(6), load(7)};
    rebuild_from_8(load(0), load(1), u);
  } else {
    for (int r = 0; r < Reals / 6; ++r)
      for (int j = 0; j < 3; ++j) u[r][j] = {load(6 * r + 2 * j), load(6 * r + 2 * j + 1)};
    if constexpr (Reals == 12) rebuild_third_row(u);
  }
}

}  // namespace dslash::kernels
